# SPDX-License-Identifier: GPL-3.0-or-later
"""Stopwatch logic for the Stopwatch sample target (no GUI code).

Time comes from the caller (``now`` in seconds, e.g. time.monotonic()), so
the rules can be tested without waiting.  The display format is mm:ss.t with
tenths cut off, never rounded up: 59.99 s shows 00:59.9.
"""

# key (Qt key text, lower case) -> action
KEY_ACTIONS = {" ": "toggle", "l": "lap", "r": "reset"}


def format_time(seconds):
    """'mm:ss.t' for a number of seconds (negative counts as 0); minutes keep growing past 99."""
    tenths = int(max(0.0, seconds) * 10 + 1e-6)
    minutes, rest = divmod(tenths, 600)
    secs, tenth = divmod(rest, 10)
    return "%02d:%02d.%d" % (minutes, secs, tenth)


def action_for_key(text):
    """The stopwatch action for a typed key ('toggle', 'lap', 'reset'), or None."""
    return KEY_ACTIONS.get(text.lower()) if text else None


class Lap:
    __slots__ = ("number", "split", "total")

    def __init__(self, number, split, total):
        self.number = number  # 1 for the first lap
        self.split = split    # the lap's own duration
        self.total = total    # time on the watch when the lap was taken

    def row(self):
        """The text of the lap's line in the list."""
        return "Lap %-3d   %s   %s" % (self.number, format_time(self.split), format_time(self.total))


class Stopwatch:
    def __init__(self):
        self.laps = []
        self.reset()

    def reset(self):
        """Stop and clear the time and the laps."""
        self.running = False
        self.banked = 0.0       # time collected by earlier runs
        self.started_at = None  # when the current run began
        self.laps.clear()

    def elapsed(self, now):
        if self.running:
            return self.banked + max(0.0, now - self.started_at)
        return self.banked

    def start(self, now):
        if not self.running:
            self.running = True
            self.started_at = now

    def stop(self, now):
        if self.running:
            self.banked = self.elapsed(now)
            self.running = False
            self.started_at = None

    def toggle(self, now):
        """Start when stopped, stop when running; returns the new running state."""
        if self.running:
            self.stop(now)
        else:
            self.start(now)
        return self.running

    def lap(self, now):
        """Record a lap while running (returns it); does nothing when stopped (returns None)."""
        if not self.running:
            return None
        total = self.elapsed(now)
        previous = self.laps[-1].total if self.laps else 0.0
        lap = Lap(len(self.laps) + 1, total - previous, total)
        self.laps.append(lap)
        return lap

    def rows(self):
        """Lap lines for the list, newest first."""
        return [lap.row() for lap in reversed(self.laps)]
