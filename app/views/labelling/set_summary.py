"""The end of a validation set, in one paragraph: how many runs got which label, and the time it took.

Shown when the annotator's last unlabelled run got its label (and whenever a
finished set is opened again), so a session ends with what was done rather
than with "Saved: pass".
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from app.engine.study.validation import Label

LABEL_ORDER = ("pass", "fail", "unsure")


def summary_text(labels: Mapping[int, Label], total: int) -> str:
    """``All 40 runs labelled: 18 pass, 20 fail, 2 unsure · 1.6 s per run (64 s in all) …``."""
    counts = Counter(label.label for label in labels.values())
    parts = [f"{counts[name]} {name}" for name in LABEL_ORDER if counts[name]]
    parts += [f"{n} {name}" for name, n in sorted(counts.items()) if name not in LABEL_ORDER]
    timed = [label.seconds for label in labels.values() if label.seconds is not None]
    spent = sum(timed)
    time_text = f" · {spent / len(timed):.1f} s per run ({spent:.0f} s in all)" if timed else ""
    promoted = sum(1 for label in labels.values() if label.promoted_judgment is not None)
    promoted_text = f" · {promoted} promoted to judgments" if promoted else ""
    head = f"All {total} runs labelled" if len(labels) >= total else f"{len(labels)} of {total} runs labelled"
    return (f"{head}: {', '.join(parts) or 'none'}{time_text}{promoted_text}. "
            "You can still change a label (Page Up / Page Down, then 1 / 2 / 3).")
