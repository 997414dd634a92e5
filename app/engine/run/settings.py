"""RunSettings: how one run plays, as one typed value, validated in one place and resolved in one order.

Every knob of a run (tester, display, step and time bounds, seed, film rate, the
clock's slices, the tester's options) is a field of :class:`RunSettings`.  The
command line, the workbench's New-run dialog, the bench and the repair loop all
build one, and :meth:`RunSettings.check` refuses a bad value in one sentence that
names the option and its range, whoever built it.

A run's settings are resolved in this order, each layer overriding the one before:

1. the built-in defaults (the field defaults below);
2. the user's config: the ``[run]`` table of ``$PLAYCODER_CONFIG``, else of
   ``config.toml`` in the user config directory (``~/.config/playcoder`` on Linux);
3. the target's ``playcoder.toml``: its ``[run]`` table;
4. the command line (or the dialog, the bench, the repair loop: what the caller gave).

The resolved settings are written into each run's ``config`` (``settings``) so a
recorded run says how it was played.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from app.engine.errors import UserError
from app.engine.llm.config import public_url
from app.engine.play.display import DISPLAY_MODES, ISOLATED
from app.engine.testers.registry import DEFAULT, check_options, spec

UNBOUNDED_STEPS = 1_000_000
"""The most steps a run may take (also the bound of a ``duration_s`` run that names no step bound)."""
DEFAULT_STEPS = 30
"""Steps of a run that names neither a step bound nor a duration."""
MAX_DURATION_S = 86_400
MAX_SLICE_MS = 60_000
MAX_FILM_FPS = 120
MAX_SEED = 2**32 - 1
"""Targets hand the seed to numpy and random, which take 32 bits."""
CONFIG_ENV = "PLAYCODER_CONFIG"
TABLE = "run"
"""The table of the user config and of a target's playcoder.toml that holds run settings."""
_FILE_KEYS = frozenset({"tester", "display", "max_steps", "seed", "duration_s", "slice_ms", "film_fps",
                        "freeze_while_thinking", "settle_cap_s"})
"""What a config file may set (the tester's options and where the run plays are the caller's)."""


@dataclass(frozen=True)
class RunSettings:
    """How one run plays.  ``None`` means "decided by the target" where a field says so."""

    tester: str = DEFAULT
    display: str = ISOLATED
    max_steps: int | None = None
    """At most this many steps; None: unbounded (up to :data:`UNBOUNDED_STEPS`) with a duration, else 30."""
    seed: int = 0
    duration_s: float | None = None
    """Play until this much time has passed (as well as at most ``max_steps`` steps): a soak."""
    slice_ms: int | None = None
    """With the clock stopped: how long the game runs after each action; None: by the target's kind."""
    film_fps: int | None = None
    """Most frames a second of the run's film; None: the film's default; 0: no film."""
    freeze_while_thinking: bool | None = None
    """Stop the target's clock (SIGSTOP) while the tester decides; None: when the tester declares it on games."""
    settle_cap_s: float | None = None
    """None: the target's ``timing.settle_cap_ms``."""
    tester_options: Mapping[str, Any] = field(default_factory=dict)
    """Options of the chosen tester (a reference, a provider, the explorer's switches)."""

    def __post_init__(self) -> None:
        self.check()

    @property
    def steps(self) -> int:
        """The step bound the run keeps."""
        if self.max_steps is not None:
            return self.max_steps
        return UNBOUNDED_STEPS if self.duration_s is not None else DEFAULT_STEPS

    def check(self) -> None:
        """Refuse a value no run can play with, in one sentence naming the option and what it takes."""
        spec(self.tester)  # an unknown tester: one sentence listing the known ones
        if self.display not in DISPLAY_MODES:
            raise UserError(f"--display must be one of {', '.join(DISPLAY_MODES)}, not {self.display!r}.")
        _within("--max-steps", self.max_steps, 1, UNBOUNDED_STEPS, "steps")
        _within("--seed", self.seed, 0, MAX_SEED, "")
        if self.duration_s is not None and (_not_number(self.duration_s) or not 0 < self.duration_s <= MAX_DURATION_S):
            raise UserError(f"--duration must be a number of seconds between 0 and {MAX_DURATION_S:,}.")
        _within("--slice-ms", self.slice_ms, 1, MAX_SLICE_MS, "milliseconds")
        if self.film_fps is not None and (_not_int(self.film_fps) or not 0 <= self.film_fps <= MAX_FILM_FPS):
            raise UserError(f"--film-fps must be between 0 (no film) and {MAX_FILM_FPS} frames a second.")
        if self.settle_cap_s is not None and (_not_number(self.settle_cap_s) or not 0 < self.settle_cap_s <= 60):
            raise UserError("settle_cap_s must be a number of seconds between 0 and 60.")
        if self.freeze_while_thinking is not None and not isinstance(self.freeze_while_thinking, bool):
            raise UserError("freeze_while_thinking must be true or false.")
        check_options(self.tester, self.tester_options)

    def over(self, layer: Mapping[str, Any], where: str) -> RunSettings:
        """These settings with ``layer``'s values on top (``where`` names a file layer when one is refused)."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(layer) - names)
        if unknown:
            raise UserError(f"{where}: unknown run setting {unknown[0]!r}; the settings are {', '.join(sorted(names))}.")
        try:
            return dataclasses.replace(self, **layer)
        except UserError as exc:
            raise UserError(f"{where}: {exc}" if where else str(exc)) from None

    def recorded(self) -> dict[str, Any]:
        """The settings as a run's config keeps them (the tester's options without secrets)."""
        data = dataclasses.asdict(self)
        data["tester_options"] = public_options(self.tester_options)
        data["steps"] = self.steps
        return data

    def command_line(self) -> list[str]:
        """``playcoder test`` options that give these settings (a bound or a switch only when it is set; the
        tester and display after them, the tester's own options last)."""
        args = ["--seed", str(self.seed)]
        for flag, value in (("--max-steps", self.max_steps), ("--duration", self.duration_s),
                            ("--slice-ms", self.slice_ms), ("--film-fps", self.film_fps)):
            if value is not None:
                args += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
        if self.freeze_while_thinking is not None:
            args.append("--freeze-while-thinking" if self.freeze_while_thinking else "--no-freeze-while-thinking")
        args += ["--tester", self.tester, "--display", self.display]
        for name, flag in (("provider", "--provider"), ("model", "--model"), ("base_url", "--base-url"),
                           ("reference", "--reference"), ("explorer", "--explorer")):
            if self.tester_options.get(name):
                args += [flag, str(self.tester_options[name])]
        if self.tester_options.get("script") is False:
            args.append("--no-script")
        if "survival" in self.tester_options:
            args += ["--survival", "on" if self.tester_options["survival"] else "off"]
        return args


def resolve(command_line: Mapping[str, Any], target_table: Mapping[str, Any] | None = None,
            target_file: str = "the target's playcoder.toml", user_table: Mapping[str, Any] | None = None,
            user_file: str = "the user config") -> RunSettings:
    """The settings of a run, in the documented order: built-in default < user config < target < command line."""
    settings = RunSettings()
    for layer, where in ((user_table, user_file), (target_table, target_file)):
        if layer:
            extra = sorted(set(layer) - _FILE_KEYS)
            if extra:
                raise UserError(f"{where}: [{TABLE}] cannot set {extra[0]!r}; it sets "
                                f"{', '.join(sorted(_FILE_KEYS))}.")
            settings = settings.over(layer, where)
    return settings.over({k: v for k, v in command_line.items() if v is not None}, "")


def user_config_path() -> Path:
    """``$PLAYCODER_CONFIG``, else ``config.toml`` in the user config directory."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("playcoder", appauthor=False)) / "config.toml"


def user_table(path: Path | None = None) -> tuple[dict[str, Any], str]:
    """The user config's ``[run]`` table (empty when there is no file) and the file's name for messages."""
    path = path or user_config_path()
    if not path.is_file():
        return {}, str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path} could not be read ({exc}); fix or remove it.") from None
    table = data.get(TABLE, {})
    if not isinstance(table, dict):
        raise UserError(f"{path}: [{TABLE}] must be a table of run settings; fix the file.")
    return table, str(path)


def _within(flag: str, value: int | None, low: int, high: int, unit: str) -> None:
    if value is not None and (_not_int(value) or not low <= value <= high):
        raise UserError(f"{flag} must be a whole number between {low:,} and {high:,}{' ' + unit if unit else ''}.")


def _not_int(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)


def _not_number(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, (int, float))


def public_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Tester options as stored with the run: no secrets, no credentials inside URLs."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if any(word in key.lower() for word in ("key", "secret", "password", "token")) and "max" not in key.lower():
            continue
        if isinstance(value, str) and "://" in value:
            value = public_url(value)  # no user:password, and no query (``?token=``) nor fragment
        out[key] = value
    return out
