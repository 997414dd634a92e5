"""The held-out split of the bundled bug variants: a tuning half and a held-out half.

The rule is fixed and needs no results to apply: a bug ``BUG`` of app ``APP``
is in the **tuning** half when the SHA-256 of the UTF-8 text ``"APP@BUG"``,
read as a big-endian integer, is even, and in the **held-out** half when it is
odd.  It was chosen before any figure was split by it and is not to be
changed; a bug added later falls into a half by the same rule, and no other
bug moves.

The offline refiner's templates and the scripted rubrics may be improved by
looking at the *tuning* half only; the *held-out* half is what measures them.
``bench detect`` and ``benchmark/repair_rate.py`` report both halves apart.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.engine.play.targetspec import list_apps, load_bugs

TUNING = "tuning"
HELD_OUT = "held-out"
SPLITS = (TUNING, HELD_OUT)


def split_of(app: str, bug: str) -> str:
    """``tuning`` or ``held-out`` for the bug variant ``app@bug`` (see the module docstring)."""
    digest = hashlib.sha256(f"{app}@{bug}".encode("utf-8")).hexdigest()
    return TUNING if int(digest, 16) % 2 == 0 else HELD_OUT


def bundled_split(apps: list[Path] | None = None) -> dict[str, list[str]]:
    """Every bundled bug variant (``app@bug``) by half, in app and bugs.toml order."""
    halves: dict[str, list[str]] = {s: [] for s in SPLITS}
    for folder in apps if apps is not None else list_apps():
        for bug in load_bugs(folder):
            halves[split_of(folder.name, bug.id)].append(f"{folder.name}@{bug.id}")
    return halves


def markdown(halves: dict[str, list[str]]) -> str:
    lines = ["| half | variants | list |", "| --- | --- | --- |"]
    for name in SPLITS:
        lines.append(f"| {name} | {len(halves[name])} | {', '.join(halves[name])} |")
    return "\n".join(lines) + "\n"
