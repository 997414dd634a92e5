# SPDX-License-Identifier: GPL-3.0-or-later
"""Task-list logic for the Todo sample target (no GUI code).

A TodoList holds tasks in the order they were added.  Each task has a text
and a done flag.  The window shows the tasks with checkboxes and a counter
such as "2 left".
"""

import random

MAX_TEXT = 60
SAMPLE_TASKS = [
    "Buy milk", "Call the dentist", "Water the plants", "Pay the rent",
    "Read chapter 3", "Fix the bike light", "Book train tickets", "Reply to Anna",
    "Take out the bins", "Back up the laptop", "Bake bread", "Renew passport",
]


class Task:
    __slots__ = ("text", "done")

    def __init__(self, text, done=False):
        self.text = text
        self.done = done

    def __repr__(self):
        return "Task(%r, done=%r)" % (self.text, self.done)


def clean_text(text):
    """Collapse runs of white space and cut to MAX_TEXT characters; '' means nothing to add."""
    return " ".join(str(text).split())[:MAX_TEXT]


def counter_text(left):
    """The counter label: '0 left', '1 left', '5 left'."""
    return "%d left" % left


class TodoList:
    def __init__(self, texts=()):
        self.tasks = []
        for text in texts:
            self.add(text)

    def __len__(self):
        return len(self.tasks)

    def add(self, text):
        """Append a task; returns its index, or None when the text is empty."""
        text = clean_text(text)
        if not text:
            return None
        self.tasks.append(Task(text))
        return len(self.tasks) - 1

    def _check(self, index):
        if not isinstance(index, int) or not 0 <= index < len(self.tasks):
            raise IndexError("no task at index %r" % (index,))

    def toggle(self, index):
        """Flip the done flag of one task; returns the new flag."""
        self._check(index)
        task = self.tasks[index]
        task.done = not task.done
        return task.done

    def set_done(self, index, done):
        self._check(index)
        self.tasks[index].done = bool(done)

    def remove(self, index):
        """Remove one task; returns the index to select next (or -1 when the list is empty)."""
        self._check(index)
        del self.tasks[index]
        if not self.tasks:
            return -1
        return min(index, len(self.tasks) - 1)

    def delete_done(self):
        """Remove every finished task; returns how many were removed."""
        before = len(self.tasks)
        self.tasks = [task for task in self.tasks if not task.done]
        return before - len(self.tasks)

    def left(self):
        """How many tasks are not done yet."""
        return sum(1 for task in self.tasks if not task.done)

    def done_count(self):
        return sum(1 for task in self.tasks if task.done)


def sample_tasks(seed, count=3):
    """The tasks a fresh window starts with, chosen by the seed."""
    return random.Random(seed).sample(SAMPLE_TASKS, count)


def next_row(row, count, step):
    """Keyboard selection: move by step (-1 up, +1 down), clamped; -1 when the list is empty."""
    if count <= 0:
        return -1
    if row < 0:
        return 0 if step > 0 else count - 1
    return max(0, min(count - 1, row + step))
