"""One run, one step number: the command line, its JSON, the verdict's reason, the HTML report, a repair's
diagnosis and the workbench's timeline and findings all call the crashing step by the same number (from 1)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

from suite import ROOT, TARGETS, needs_xvfb  # noqa: E402

from app.engine.repair.diagnosis import Diagnosis, FindingEvidence  # noqa: E402
from app.engine.trace.report import write_html_report  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402


@needs_xvfb
def test_every_place_names_the_crashing_step_alike(tmp_path, qtbot):
    db = tmp_path / "runs.db"
    proc = subprocess.run([sys.executable, "-m", "app", "test", f"{TARGETS / 'anim_pg'}@crash-on-fourth-space",
                           "--max-steps", "30", "--json", "--db", str(db)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr[-2000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    named = re.match(r"([\w-]+) at step (\d+): ", summary["reason"])
    assert named, summary["reason"]
    kind, number = named.group(1), int(named.group(2))
    crashed = next(f for f in summary["findings"] if f["kind"] == kind)
    assert crashed["step"] == number

    store = TrajectoryStore(db)
    run_id = summary["run_id"]
    run = store.run(run_id)
    crash = next(f for f in store.findings(run_id) if f["kind"] == kind)
    idx = crash["step"]
    assert number == idx + 1 and crashed["idx"] == idx, "people read steps from 1; the stored idx counts from 0"
    assert f"{kind} at step {number}:" in run["reason"]
    listed = subprocess.run([sys.executable, "-m", "app", "runs", "--json", "--db", str(db)], capture_output=True,
                            text=True, timeout=120, cwd=ROOT)
    assert f"{kind} at step {number}:" in json.loads(listed.stdout)[0]["reason"], listed.stdout[-2000:]

    report = write_html_report(store, run_id, tmp_path / "run.html").read_text(encoding="utf-8")
    assert f'<a href="#step-{idx}">step {number}</a>' in report
    assert f'<a href="#step-{idx}">#{number}</a>' in report
    diagnosis = Diagnosis(run_id, "fail", run["reason"], findings=[
        FindingEvidence(kind, crash["message"], idx, None, None, None)]).text()
    assert f"[{kind}] step {number}" in diagnosis and f"{kind} at step {number}:" in diagnosis

    from app.views.widgets.findings_view import FindingsView
    from app.views.widgets.step_number import step_text
    findings = FindingsView()
    qtbot.addWidget(findings)
    findings.set_findings(store.findings(run_id))
    shown = [findings.item(i).text() for i in range(findings.count())]
    assert any(text.startswith(f"step {number} · {kind}") for text in shown), shown
    assert step_text(idx) == f"#{number}"
    store.close()
