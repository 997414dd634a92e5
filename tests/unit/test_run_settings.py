"""RunSettings: one typed value for a run's settings, checked in one place, resolved in one order."""

from __future__ import annotations

import pytest

from app.cli import build_parser, run_config
from app.engine.errors import UserError
from app.engine.run.settings import (
    DEFAULT_STEPS, UNBOUNDED_STEPS, RunSettings, public_options, resolve, user_table,
)


def test_layers_resolve_default_then_user_then_target_then_command_line():
    user = {"max_steps": 50, "film_fps": 10, "seed": 4}
    target = {"max_steps": 70, "slice_ms": 90}
    s = resolve({"seed": 9}, target, "t/playcoder.toml", user, "u/config.toml")
    assert (s.max_steps, s.film_fps, s.slice_ms, s.seed, s.tester) == (70, 10, 90, 9, "offline")
    assert resolve({}).steps == DEFAULT_STEPS
    assert resolve({"duration_s": 5.0}).steps == UNBOUNDED_STEPS


def test_every_bad_value_is_one_sentence_naming_its_option_and_where():
    with pytest.raises(UserError, match="--max-steps must be a whole number between 1"):
        RunSettings(max_steps=0)
    with pytest.raises(UserError, match="--duration must be a number of seconds"):
        RunSettings(duration_s=-1)
    with pytest.raises(UserError, match="--film-fps must be between 0"):
        RunSettings(film_fps=500)
    with pytest.raises(UserError, match="unknown tester 'nope'"):
        RunSettings(tester="nope")
    with pytest.raises(UserError, match="--no-script applies only to --tester differential"):
        RunSettings(tester_options={"script": False})
    with pytest.raises(UserError, match=r"^t/playcoder.toml: --slice-ms must be"):
        resolve({}, {"slice_ms": 0}, "t/playcoder.toml")
    with pytest.raises(UserError, match=r"u.toml: \[run\] cannot set 'tester_options'"):
        resolve({}, None, "", {"tester_options": {}}, "u.toml")


def test_the_user_config_file_is_read_and_a_broken_one_is_one_sentence(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    monkeypatch.setenv("PLAYCODER_CONFIG", str(path))
    assert user_table() == ({}, str(path))
    path.write_text("[run]\nfilm_fps = 5\n")
    assert user_table()[0] == {"film_fps": 5}
    path.write_text("[run\n")
    with pytest.raises(UserError, match="could not be read"):
        user_table()


def test_the_command_line_round_trips_through_settings():
    settings = RunSettings(tester="differential", max_steps=7, seed=3, duration_s=2.5, film_fps=0,
                           freeze_while_thinking=False, tester_options={"reference": "ref", "script": False,
                                                                        "survival": True})
    args = build_parser().parse_args(["test", "calc", *settings.command_line()])
    assert run_config(args).settings == settings


def test_recorded_settings_keep_no_secret():
    kept = RunSettings(tester="llm", tester_options={"base_url": "http://u:pw@h:1/v1?token=x"}).recorded()
    assert "pw" not in str(kept) and "token" not in str(kept) and kept["steps"] == DEFAULT_STEPS
    assert public_options({"api_key": "sk-1", "model": "m"}) == {"model": "m"}
