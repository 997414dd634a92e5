"""`playcoder refs …`: reference pictures of `similar` checks, recorded on this machine.

    playcoder refs record TARGET [--seed S] [--max-steps M] [--db PATH]
    playcoder refs show TARGET [--seed S] [--json]

``record`` plays TARGET's ``[[script]]`` on the reference program (TARGET
itself; for ``APP@BUG`` the unpatched APP) in record mode on a private
display and saves the frame of every ``similar`` expectation into the local
store (:mod:`app.engine.judge.refs`), keyed by the target's name, the
program's source revision and this machine's font fingerprint.  The target
folder is never written.  ``show`` says, per picture, which one a run would
use (local or committed) and why.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app import cli
from app.engine.testers.registry import RUBRIC
from app.engine.errors import UserError
from app.paths import default_db

MAX_STEPS = 400
"""Enough for every case of a script: recording never stops early on purpose."""


@dataclass
class Recording:
    """The outcome of one recording run."""

    target: str
    program: Path
    verdict: str
    reason: str
    run_id: int | None
    pictures: dict[str, Path] = field(default_factory=dict)
    """reference name -> where it was stored"""
    missing: list[str] = field(default_factory=list)
    problem: str = ""
    """Why nothing was stored (empty when the pictures were stored)."""
    slot: Path | None = None
    fonts: dict[str, Any] = field(default_factory=dict)


def record_references(target: str, *, seed: int = 0, db: Path | None = None, max_steps: int = MAX_STEPS,
                      into_folder: bool = False, auto: bool = False, store_root: Path | None = None) -> Recording:
    """Play the reference program of TARGET in record mode and store its ``similar`` pictures.

    The pictures go to the machine-local store, or — ``into_folder``, used only by
    ``python -m benchmark.record_refs`` for the bundled apps — into the program folder itself
    (the committed pictures) with the manifest that names the fonts they were drawn with.
    Nothing is stored when a picture was not reached or a generic oracle fired.
    """
    from app.engine.judge import refs
    from app.engine.judge.oracles import FAILING_KINDS
    from app.engine.play.targetspec import resolve_target
    from app.engine.run.session import RunConfig, Session
    from app.engine.testers.script import ScriptTester
    from app.engine.trace.store import TrajectoryStore

    base = target.partition("@")[0]
    resolved = resolve_target(base)
    try:
        spec = resolved.spec
        store = refs.RefStore(store_root)
        resolver = refs.ReferenceResolver(spec, store)
    finally:
        resolved.cleanup()
    program = spec.source.resolve()
    names = refs.reference_names(spec.script, seed)
    if not refs.reference_names(spec.script):
        raise UserError(f"{spec.name} has no `similar` expectation in its [[script]]; there is nothing to record.")
    if not names:
        raise UserError(f"every case of {spec.name} with a `similar` expectation is written for another seed "
                        f"than {seed}; pass --seed.")
    trajectories = TrajectoryStore(db or default_db())
    with tempfile.TemporaryDirectory(prefix="playcoder-rec-") as staging:
        tester = ScriptTester(record_refs=True, record_dir=Path(staging))
        result = Session(RunConfig(target=str(program), tester=RUBRIC, max_steps=max_steps, seed=seed),
                         trajectories, tester=tester).run()
        trajectories.close()
        out = Recording(spec.name, program, result.verdict, result.reason or result.error, result.run_id,
                        fonts=resolver.key_fingerprint.to_dict())
        got = {name: Path(path) for name, path in tester.recorded_refs.items() if Path(path).is_file()}
        out.missing = [n for n in names if n not in got]
        failing = [f for f in result.findings if f.kind in FAILING_KINDS]
        if result.status != "completed":
            out.problem = f"the recording run did not complete ({result.error or result.status})"
        elif failing:
            out.problem = f"the reference program failed while recording: {failing[0].kind}: {failing[0].message}"
        elif out.missing:
            out.problem = f"the run did not reach {', '.join(out.missing)} (raise --max-steps?)"
        if out.problem:
            return out
        if into_folder:
            for name, path in got.items():
                dest = program / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(path.read_bytes())
                out.pictures[name] = dest
            refs.write_manifest(program, resolver.key_fingerprint, list(got), seed)
            out.slot = program
            return out
        out.slot = store.save(resolver.key, got, resolver.key_fingerprint, seed=seed,
                              source="auto" if auto else "manual",
                              run={"run_id": result.run_id, "db": str(db or default_db()), "verdict": result.verdict})
        out.pictures = {name: out.slot / name for name in got}
    return out


def cmd_record(args: argparse.Namespace) -> int:
    if args.max_steps < 1:
        raise UserError("--max-steps must be at least 1.")
    if "@" in args.target and not args.auto:
        print(f"recording from the reference program {args.target.partition('@')[0]} "
              f"(references of a bug variant come from it)")
    rec = record_references(args.target, seed=args.seed, db=args.db, max_steps=args.max_steps, auto=args.auto)
    if rec.problem:
        print(f"playcoder: nothing stored for {rec.target}: {rec.problem}", flush=True)
        if rec.run_id is not None:
            print(f"  the recording run is run {rec.run_id} ({rec.verdict}: {rec.reason})")
        return 1
    print(f"{rec.target}: recorded {len(rec.pictures)} reference picture(s) from {rec.program} "
          f"(fonts {rec.fonts.get('fonts')}) into {rec.slot}")
    for name in sorted(rec.pictures):
        print(f"  {name}")
    if rec.verdict != "pass":
        print(f"note: the recording run's verdict is {rec.verdict}: {rec.reason}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from app.engine.judge import refs
    from app.engine.play.targetspec import resolve_target

    resolved = resolve_target(args.target)
    try:
        resolver = refs.ReferenceResolver(resolved.spec)
        rows = []
        for name in refs.reference_names(resolved.spec.script):
            ref = resolver.resolve(name)
            rows.append({"reference": name, "origin": ref.origin, "detail": ref.detail,
                         "path": str(ref.path.relative_to(resolved.spec.folder)) if ref.origin == refs.COMMITTED
                         and ref.path is not None else str(ref.path) if ref.path else None})
        shown = resolver.exact or resolver.key
        info = {"target": resolved.spec.label, "reference_program": str(resolver.program or ""),
                "store": str(shown.slot(resolver.store.root)), "revision": shown.revision,
                **resolver.fingerprint.to_dict(), "committed_fits": resolver.committed_fits(),
                "would_record": resolver.should_record(args.seed), "references": rows}
    finally:
        resolved.cleanup()
    if args.json:
        print(json.dumps(info))
        return 0
    print(f"{info['target']}: fonts {info['fonts']}, reference program "
          f"{info['reference_program'] or '(the target; record it from the version you trust)'}")
    for pattern, answer in info["families"].items():
        print(f"  {pattern:<22} {answer}")
    print(f"local store: {info['store']}")
    for row in rows:
        print(f"  {row['reference']:<28} {row['origin']:<9} {row['detail']}")
    if info["would_record"]:
        print("a script run would record the references first (no local copy; committed ones do not fit)")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("refs", help="reference pictures of `similar` checks, recorded on this machine")
    verbs = p.add_subparsers(dest="refs_command", required=True)
    r = verbs.add_parser("record", help="play TARGET's [[script]] on the reference program and store every "
                                        "`similar` picture in the local store (never in the target folder)")
    r.add_argument("target", help="folder with playcoder.toml or a bundled app name (APP@BUG records APP)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--max-steps", type=int, default=MAX_STEPS)
    r.add_argument("--auto", action="store_true", help=argparse.SUPPRESS)  # set by the script tester's own recording
    r.add_argument("--db", type=Path, default=None,
                   help="database file for the recording run (default: $PLAYCODER_DB or the user data dir)")
    r.set_defaults(handler=cmd_record)
    s = verbs.add_parser("show", help="which reference picture a run of TARGET would use, and why")
    s.add_argument("target", help="folder with playcoder.toml or a bundled app name, optionally @BUG_ID")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", action="store_true")
    s.set_defaults(handler=cmd_show)


cli._EXTRA_COMMANDS.append(register)
