"""What a program or a model server can make the engine hold or store is capped.

A program's output is kept as a bounded head and tail with a note of what
was dropped (in memory and in the database); a model's answer is kept up to
a cap per call; absurd usage numbers are counted instead of believed.
"""

from __future__ import annotations

import time

import pytest

from app.engine.llm import providers
from app.engine.llm.client import LLMClient
from app.engine.llm.messages import ChatRequest, Message
from app.engine.play import target_log
from app.engine.play.target_log import TargetLog
from app.engine.trace.store import TrajectoryStore
from suite import needs_xvfb
from llm_servers import AnthropicServer, OpenAIServer, Reply, settings_for

SERVERS = {"openai": (OpenAIServer, "gpt-test"), "anthropic": (AnthropicServer, "claude-test")}


def test_the_log_keeps_a_head_a_note_and_a_tail():
    log = TargetLog(head_bytes=1000, tail_bytes=1000)
    for i in range(10_000):
        log.append(("stdout", float(i), f"line {i:05d}"))
    kept = log.lines()
    texts = [t for _, _, t in kept]
    assert texts[0] == "line 00000" and texts[-1] == "line 09999"
    note = next(t for t in texts if t.startswith("playcoder:"))
    assert f"{log.dropped_lines} lines" in note and "dropped" in note
    assert sum(len(t) + 1 for t in texts) < 2000 + len(note) + 1
    during = log.unsaved(final=False)
    assert [t for _, _, t in during] == texts[:len(during)] and all("line" in t for _, _, t in during)
    rest = log.unsaved(final=True)
    assert during + rest == kept and log.unsaved(final=True) == []
    new, cursor = log.read_since(9_990)
    assert [t for _, _, t in new] == [f"line {i:05d}" for i in range(9_990, 10_000)] and cursor == 10_000


@needs_xvfb
def test_a_program_printing_without_end_costs_a_bounded_log(xvfb, tmp_path):
    from app.engine.play.target import TargetProcess
    from app.engine.play.targetspec import load_spec

    folder = tmp_path / "loud"
    folder.mkdir()
    (folder / "playcoder.toml").write_text('name = "loud"\ncommand = ["python", "main.py"]\n')
    (folder / "main.py").write_text(
        "import sys\nblock = ('x' * 99 + '\\n') * 10000\nfor _ in range(64):\n    sys.stdout.write(block)\n"
        "sys.stdout.write('y' * (8 << 20))\nsys.stdout.write('\\nlast words\\n')\n")
    target = TargetProcess(load_spec(folder), xvfb)
    try:
        deadline = time.monotonic() + 60
        while target.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        target.drain_output(10)
    finally:
        target.shutdown()
    kept = target.lines()
    size = sum(len(t) for _, _, t in kept)
    assert size <= target_log.HEAD_BYTES + target_log.TAIL_BYTES + 1024, "64 MB printed, a bounded log kept"
    assert kept[-1][2] == "last words" and any("were dropped here" in t for _, _, t in kept)
    assert max(len(t) for _, _, t in kept) <= target_log.MAX_LINE_BYTES


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_model_answer_is_capped_per_call(db_path, provider):
    store = TrajectoryStore(db_path)
    try:
        with SERVERS[provider][0]() as server:
            server.push(Reply("z" * (providers.MAX_RESPONSE_CHARS + 5000)))
            client = LLMClient(settings_for(server, provider, SERVERS[provider][1]))
            run_id = store.create_run(target="t", tester="llm")
            client.attach(store, run_id, None)
            result = client.ask("decide", 0, ChatRequest("system", [Message.user("go")], 100))
        assert len(result.text) < providers.MAX_RESPONSE_CHARS + 200 and "was cut here" in result.text
        (row,) = store.db.query("SELECT response FROM llm_calls WHERE run_id = ?", [run_id])
        assert len(row["response"]) == len(result.text)
    finally:
        store.close()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("usage", [(10 ** 400, 5), (float("inf"), 1), (-5, 3), (1e300, 1e300)])
def test_absurd_usage_is_counted_not_believed(db_path, provider, usage):
    store = TrajectoryStore(db_path)
    try:
        with SERVERS[provider][0]() as server:
            server.push(Reply("click(1, 2)", usage=usage))  # type: ignore[arg-type]
            client = LLMClient(settings_for(server, provider, SERVERS[provider][1]))
            run_id = store.create_run(target="t", tester="llm")
            client.attach(store, run_id, None)
            result = client.ask("decide", 0, ChatRequest("system", [Message.user("go")], 100))
        assert result.estimated and 0 < result.tokens_in < 1000 and 0 < result.tokens_out < 1000
    finally:
        store.close()
