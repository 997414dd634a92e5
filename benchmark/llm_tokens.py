"""LLM tester cost and speed: image tokens per step, and engine overhead per LLM step.

    python benchmark/llm_tokens.py [--steps 30] [--no-session]

Targets:
* image tokens per step for the window content we send ≤ 1/3 of sending the
  whole 1280×800 screen at the provider's default detail (per frame, and per
  step of three frames);
* engine overhead per LLM step, provider latency excluded, median ≤ 50 ms:
  a real step loop against a local protocol server with no delay, step time
  minus the server's own handling time.  Two loops: the tester on synthetic
  frames with a real store (every provider), and — when Xvfb is installed —
  a whole ``Session`` on the Tk probe target, reading ``decide_ms`` from
  its steps.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from app.engine.play.control import RunControl  # noqa: E402
from app.engine.llm.client import LLMClient  # noqa: E402
from app.engine.llm.images import ANTHROPIC_RULES, OPENAI_RULES, ImageRules  # noqa: E402
from app.engine.llm.pricing import PriceTable  # noqa: E402
from app.engine.llm.shots import Shot, crop_part  # noqa: E402
from app.engine.play.observer import Observation  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.engine.play.targetspec import resolve_target  # noqa: E402
from app.engine.testers import base as tester_base  # noqa: E402
from app.engine.testers.llm import FRAMES_KEPT, LLMTester  # noqa: E402
from llm_servers import TEST_KEY, AnthropicServer, OpenAIServer, playbook, settings_for, synthetic_frame  # noqa: E402

SCREEN = (1280, 800)
WINDOWS = [("a 480x560 window (tiles2048)", (480, 560)), ("flappy 400x600", (400, 600)),
           ("calculator 320x420", (320, 420))]
TYPICAL_CHANGE = (100, 100, 160, 150)
"""A changed region of a typical action (a tile, a button): 60×50 pixels."""
RULES: dict[str, ImageRules] = {"openai": OPENAI_RULES, "anthropic": ANTHROPIC_RULES}
SERVERS = {"openai": OpenAIServer, "anthropic": AnthropicServer}
ACTION = '{"thought": "keep exploring", "action": "press", "key": "a"}'


def image_tokens() -> bool:
    ok = True
    print("Image tokens per step: window content we send vs the whole 1280x800 screen at default detail")
    for provider, rules in RULES.items():
        screen = rules.tokens(SCREEN, "auto")
        print(f"\n  {provider}: whole screen = {screen} tokens per frame, {screen * FRAMES_KEPT} per step of "
              f"{FRAMES_KEPT} frames")
        for label, size in WINDOWS:
            frame = synthetic_frame(*size)
            main = Shot(frame, 0).main(rules, "auto")
            context = Shot(frame, 0).context(rules)
            crop = crop_part(frame, TYPICAL_CHANGE, rules)
            per_frame = rules.tokens(main.size, main.detail)
            per_step = per_frame + (FRAMES_KEPT - 1) * rules.tokens(context.size, context.detail)
            per_step += rules.tokens(crop[0].size, crop[0].detail) if crop else 0
            r_frame, r_step = per_frame / screen, per_step / (screen * FRAMES_KEPT)
            ok = ok and r_frame <= 1 / 3 and r_step <= 1 / 3
            print(f"    {label:<30} newest {main.size[0]}x{main.size[1]} {main.detail:<4} = {per_frame:>4} "
                  f"({r_frame:.2f} of a screen); step with 2 context + close-up = {per_step:>4} "
                  f"({r_step:.2f})")
    print(f"\n  target <= 0.33 per frame and per step: {'met' if ok else 'NOT met'}")
    return ok


def tester_loop(provider: str, steps: int) -> list[float]:
    """Overhead of tester.decide on a real store, frames changing every step, server time removed."""
    size = (480, 560)
    with SERVERS[provider]() as server, tempfile.TemporaryDirectory() as tmp:
        server.responder = playbook([ACTION], usage=(900, 40))
        settings = settings_for(server, provider, "gpt-4o" if provider == "openai" else "claude-sonnet-4-5")
        tester = LLMTester(settings, LLMClient(settings, prices=PriceTable({})))
        store = TrajectoryStore(Path(tmp) / "bench.db")
        run_id = store.create_run(target="bench", tester="llm")
        tester.attach(store, run_id, RunControl())
        spec = resolve_target("tiles2048").spec
        first = synthetic_frame(*size, seed=0)
        obs = Observation(first, True, 0.0, None, 1)
        tester.begin(tester_base.TesterContext(spec, 0, steps + 1, random.Random(0), size), obs)
        overhead = []
        for step in range(steps):
            with store.transaction():  # as the session stores each frame before the tester sees it
                store.put_frame(obs.frame.width, obs.frame.height, obs.frame.bgrx)
            t0 = time.perf_counter()
            decision = tester.decide(step, obs)
            total = (time.perf_counter() - t0) * 1000.0
            overhead.append(total - server.requests[-1].server_ms)
            after = Observation(synthetic_frame(*size, seed=step + 1), True, 0.0, TYPICAL_CHANGE, 2)
            tester.observe(step, obs.frame, decision, after, "ok")
            obs = after
        store.close()
    return overhead[1:]  # the first call warms the SDK's connection pool


def session_loop(steps: int) -> list[float]:
    """A whole Session on the Tk probe under Xvfb: decide_ms of each step minus server time."""
    from app.engine.run.session import RunConfig, Session

    os.environ["OPENAI_API_KEY"] = TEST_KEY
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    with OpenAIServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.responder = playbook(['{"thought": "t", "action": "press", "key": "a"}',
                                     '{"thought": "t", "action": "click", "x": 150, "y": 120}'] * steps)
        store = TrajectoryStore(Path(tmp) / "bench.db")
        options = {"provider": "openai", "model": "gpt-4o", "base_url": server.base_url}
        result = Session(RunConfig(str(ROOT / "tests" / "targets" / "probe_tk"), tester="llm", max_steps=steps,
                                   tester_options=options), store).run()
        if result.status != "completed":
            raise SystemExit(f"session run failed: {result.error}")
        server_ms = {}
        for rec in server.requests:
            m = re.search(r"Action decision for step (\d+)", rec.prompt())
            if m:
                server_ms[int(m.group(1))] = server_ms.get(int(m.group(1)), 0.0) + rec.server_ms
        rows = store.steps(result.run_id)
        store.close()
    return [r["decide_ms"] - server_ms.get(r["idx"], 0.0) for r in rows][1:]


def report(label: str, values: list[float]) -> bool:
    med = statistics.median(values)
    p90 = sorted(values)[int(0.9 * (len(values) - 1))]
    print(f"  {label:<48} median {med:6.1f} ms   p90 {p90:6.1f} ms   ({len(values)} steps)")
    return med <= 50.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--no-session", action="store_true", help="skip the whole-session loop (needs Xvfb)")
    args = ap.parse_args()
    ok = image_tokens()
    print("\nEngine overhead per LLM step (prompt, images, SDK, HTTP, llm_calls record; server time removed)")
    for provider in RULES:
        ok = report(f"{provider}: tester loop, 480x560 frames", tester_loop(provider, args.steps)) and ok
    if not args.no_session and shutil.which("Xvfb"):
        ok = report("openai: whole session on probe_tk (decide_ms)", session_loop(args.steps)) and ok
    print(f"  target median <= 50 ms: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
