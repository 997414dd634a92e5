"""`playcoder validate …`: blinded validation sets, label import/export, agreement statistics, promotion."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, Callable

from app import cli
from app.engine.errors import UserError
from app.paths import default_db

RATES = ("fn_rate", "fp_rate")
SIGNAL_TICK_MS = 200
"""How often the GUI commands let Python notice a signal."""


def _store(args: argparse.Namespace, *, readonly: bool = False) -> Any:
    from app.engine.trace.store import TrajectoryStore

    return TrajectoryStore(args.db or default_db(), readonly=readonly)


def cmd_sample(args: argparse.Namespace) -> int:
    from app.engine.study import validation

    store = _store(args)
    try:
        vset = validation.sample_set(store, args.name, successes=args.successes, failures=args.failures,
                                     seed=args.seed, tester=args.tester, kind=args.kind, target=args.target)
    finally:
        store.close()
    print(f"set '{vset.name}': {vset.successes} successes + {vset.failures} failures drawn with seed {vset.seed}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from app.engine.study import validation

    store = _store(args, readonly=True)
    rows: list[dict[str, Any]] = []
    for vset in validation.list_sets(store):
        names = validation.annotators(store, vset)
        done = {name: validation.progress(store, vset, name)[0] for name in names}
        rows.append({"name": vset.name, "seed": vset.seed, "successes": vset.successes,
                     "failures": vset.failures, "created_at": vset.created_at, "labelled": done})
    store.close()
    if args.json:
        print(json.dumps(rows))
        return 0
    if not rows:
        print("no validation sets yet; draw one with `playcoder validate sample --name NAME`")
    for row in rows:
        total = row["successes"] + row["failures"]
        who = ", ".join(f"{n} {c}/{total}" for n, c in row["labelled"].items()) or "no labels yet"
        print(f"{row['name']:<24} {row['successes']:>4} + {row['failures']:<4} seed {row['seed']:<8} {who}")
    return 0


def _fmt(value: float | None, key: str) -> str:
    if value is None:
        return "—"
    return f"{value * 100:.1f}%" if key in RATES else f"{value:.3f}"


def cmd_stats(args: argparse.Namespace) -> int:
    from app.engine.study import agreement
    from app.engine.study import validation

    store = _store(args, readonly=True)
    try:
        vset = validation.get_set(store, args.name)
        units = validation.units(store, vset)
    finally:
        store.close()
    seed = vset.seed if args.seed is None else args.seed
    report = agreement.compute_agreement(units, resamples=args.resamples, seed=seed, name=vset.name)
    if args.csv:
        agreement.write_report_csv(report, args.csv)
    if args.json:
        print(json.dumps(report.to_dict()))  # one JSON line, as every --json of the command line
        return 0
    print(f"set '{vset.name}': {report.units} runs, {len(report.annotators)} annotators")
    for p in report.annotators:
        print(f"  {p.annotator:<20} {p.labelled}/{p.total} labelled (pass {p.passes}, fail {p.fails}, unsure {p.unsure})")
    pct = int(round(report.confidence * 100))
    for key, est in report.statistics().items():
        interval = f"[{_fmt(est.low, key)}, {_fmt(est.high, key)}]" if est.low is not None else "[—]"
        print(f"{agreement.STAT_TITLES[key]:<58} {_fmt(est.value, key):>7}  {pct}% {interval}  n={est.n}")
    c = report.confusion
    print("tester \\ human majority      pass    fail")
    for t in ("pass", "fail"):
        print(f"  tester {t:<20} {c[t]['pass']:>5} {c[t]['fail']:>7}")
    e = report.excluded
    print(f"left out: {e['tied']} tied, {e['unsure_only']} unsure only, {e['unlabelled']} unlabelled")
    if args.csv:
        print(f"wrote {args.csv}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from app.engine.study import validation

    store = _store(args, readonly=True)
    try:
        count = validation.export_labels(store, validation.get_set(store, args.name), args.output)
    finally:
        store.close()
    print(f"wrote {count} labels to {args.output}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from app.engine.study import validation

    store = _store(args)
    try:
        summary = validation.import_labels(store, validation.get_set(store, args.name), args.file)
    finally:
        store.close()
    print(f"imported {summary.labels} labels from {summary.annotators} annotators into '{args.name}' "
          f"({summary.new} new, {summary.replaced} replaced)")
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    from app.engine.study import validation

    store = _store(args)
    try:
        vset = validation.get_set(store, args.name)
        judgment = validation.promote(store, vset, args.annotator, args.run)
        verdict = store.effective_verdict(args.run)
    finally:
        store.close()
    print(f"run {args.run}: {args.annotator}'s label promoted to judgment {judgment}; effective verdict {verdict}")
    return 0


def _qt_app() -> Any:
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") \
            and os.environ.get("QT_QPA_PLATFORM") not in ("offscreen", "xcb"):
        raise UserError("No display is available for the workbench; use `playcoder validate import-labels` instead.")
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        raise UserError(f"Qt could not be loaded ({exc}); install PySide6-Essentials and the Qt xcb libraries.") from exc
    app = QApplication.instance() or QApplication(sys.argv[:1])
    _quit_on_signals(app)
    return app


def _quit_on_signals(app: Any) -> None:
    """Ctrl-C, SIGTERM and SIGHUP close the window: Python handlers only run between Qt events, so tick."""
    from PySide6.QtCore import QTimer

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: app.quit())
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(SIGNAL_TICK_MS)


def cmd_annotate(args: argparse.Namespace) -> int:
    app = _qt_app()
    from app.views.labelling.annotation_view import AnnotationView

    from app.views.model.database import Database

    view = AnnotationView(Database(_store(args)), args.annotator, set_name=args.name)
    view.resize(1200, 800)
    view.show()
    return int(app.exec())


def cmd_dashboard(args: argparse.Namespace) -> int:
    app = _qt_app()
    from app.views.labelling.agreement_view import AgreementView

    from app.views.model.database import Database

    view = AgreementView(Database(_store(args, readonly=True)), set_name=args.name)
    view.resize(1000, 700)
    view.show()
    return int(app.exec())


def register(subparsers: Any) -> None:
    v = subparsers.add_parser("validate", help="blinded human validation of the tester and agreement statistics")
    vsub = v.add_subparsers(dest="validate_command", required=True)

    def add(name: str, handler: Callable[[argparse.Namespace], int], text: str) -> argparse.ArgumentParser:
        p = vsub.add_parser(name, help=text)
        p.add_argument("--db", type=Path, default=None, help="database file (default: $PLAYCODER_DB or the user data dir)")
        p.set_defaults(handler=handler)
        return p

    s = add("sample", cmd_sample, "draw a seeded set of runs by the tester's verdict and freeze it")
    s.add_argument("--name", required=True)
    s.add_argument("--successes", type=cli.bounded_int(0, 1_000_000), default=100, help="runs with tester verdict pass (default 100)")
    s.add_argument("--failures", type=cli.bounded_int(0, 1_000_000), default=100, help="runs with tester verdict fail (default 100)")
    s.add_argument("--seed", type=cli.SEED, default=0)
    s.add_argument("--tester", default=None, help="only runs of this tester (default: any)")
    s.add_argument("--kind", default=None, help="only runs of targets of this kind, game or app (default: any)")
    s.add_argument("--target", default=None, help="only runs of this target, any bug variant (default: any)")

    ls = add("list", cmd_list, "list validation sets and labelling progress")
    ls.add_argument("--json", action="store_true")

    st = add("stats", cmd_stats, "agreement between the tester and the annotators")
    st.add_argument("--name", required=True)
    st.add_argument("--json", action="store_true", help="print the report as JSON")
    st.add_argument("--csv", type=Path, default=None, metavar="FILE", help="also write the report as CSV")
    st.add_argument("--resamples", type=cli.bounded_int(1, 1_000_000), default=2000, help="bootstrap resamples (default 2000)")
    st.add_argument("--seed", type=cli.SEED, default=None, help="bootstrap seed (default: the set's seed)")

    ex = add("export-labels", cmd_export, "write the set's labels as CSV (annotator, run_id, label, note)")
    ex.add_argument("--name", required=True)
    ex.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.csv")

    im = add("import-labels", cmd_import, "read labels from CSV (annotator, run_id, label, note); all or nothing")
    im.add_argument("file", type=Path, metavar="FILE.csv")
    im.add_argument("--name", required=True)

    pr = add("promote", cmd_promote, "turn an annotator's label into a human judgment on the run")
    pr.add_argument("--name", required=True)
    pr.add_argument("--annotator", required=True)
    pr.add_argument("--run", type=cli.ROW_ID, required=True, metavar="RUN_ID")

    an = add("annotate", cmd_annotate, "open the blinded labelling window")
    an.add_argument("--name", default=None)
    an.add_argument("--annotator", default=None, help="default: the name given last time")

    da = add("dashboard", cmd_dashboard, "open the agreement dashboard")
    da.add_argument("--name", default=None)


cli._EXTRA_COMMANDS.append(register)
