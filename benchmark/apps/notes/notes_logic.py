# SPDX-License-Identifier: GPL-3.0-or-later
"""Notebook logic for the Notes sample target (no GUI code).

A notebook is a list of notes.  Each note has the text last saved and a
draft (what the editor shows); the note counts as modified while the two
differ.  The list of notes shows each note's title: the first non-empty
line of its draft.
"""

import random

TITLE_CHARS = 18
UNTITLED = "Untitled"
SAMPLE_NOTES = [
    "Shopping\n- bread\n- eggs\n- coffee\n- apples\nAsk Sam about the party food.",
    "Ideas\n- a bird feeder for the balcony\n- paint the shed green\n- learn three songs on the ukulele",
    "Meeting notes\nMove the design review to Friday.\nAnna shows the new logo.\nBudget: ask finance by June.",
    "Books to read\nThe Hobbit\nDune\nThe Left Hand of Darkness\nPiranesi",
    "Packing list\n- tent\n- torch\n- warm socks\n- map and compass\n- snacks",
    "Recipe\nMix flour, water and salt.\nLet the dough rest for an hour.\nBake at 220 degrees for 30 minutes.",
    "Garden\nPlant the tulips in October.\nCut back the roses in March.\nWater the herbs every evening.",
    "Phone numbers\nPlumber 555 0199\nDentist 555 0142\nTaxi 555 0100",
]
BULLETS = ("- ", "* ")


class Note:
    __slots__ = ("saved", "draft")

    def __init__(self, text=""):
        self.saved = text
        self.draft = text

    @property
    def modified(self):
        return self.draft != self.saved


def word_count(text):
    """Words are runs of non-space characters that contain a letter or a digit."""
    return sum(1 for word in text.split() if any(ch.isalnum() for ch in word))


def title_of(text):
    """The first non-empty line, stripped and cut to TITLE_CHARS (with '…'); 'Untitled' if none."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS - 1] + "\u2026"
    return UNTITLED


def continuation(line):
    """What a new line after `line` starts with: its indent, plus its bullet if it has one."""
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    rest = line[len(indent):]
    for bullet in BULLETS:
        if rest.startswith(bullet) and rest.strip() != bullet.strip():
            return indent + bullet
    return indent


def status_text(index, count, words, modified):
    """The status bar: 'Note 2/3 · 12 words · saved'."""
    unit = "word" if words == 1 else "words"
    return "Note %d/%d \u00b7 %d %s \u00b7 %s" % (index + 1, count, words, unit,
                                                  "modified" if modified else "saved")


class Notebook:
    def __init__(self, texts=()):
        self.notes = [Note(text) for text in texts] or [Note()]
        self.current = 0

    def __len__(self):
        return len(self.notes)

    def _check(self, index):
        if not isinstance(index, int) or not 0 <= index < len(self.notes):
            raise IndexError("no note at index %r" % (index,))

    def select(self, index):
        self._check(index)
        self.current = index
        return self.notes[index]

    def edit(self, text):
        """The editor's text for the current note changed."""
        self.notes[self.current].draft = text

    def save(self):
        note = self.notes[self.current]
        note.saved = note.draft

    def new(self):
        """Append an empty note and make it current; returns its index."""
        self.notes.append(Note())
        self.current = len(self.notes) - 1
        return self.current

    def delete(self):
        """Delete the current note; the next one (or the new last one) becomes current.

        The notebook is never empty: deleting the only note leaves one empty note.
        """
        del self.notes[self.current]
        if not self.notes:
            self.notes.append(Note())
        self.current = min(self.current, len(self.notes) - 1)
        return self.current

    def titles(self):
        """List lines: the title, with ' *' while the note has unsaved changes."""
        return [title_of(n.draft) + (" *" if n.modified else "") for n in self.notes]

    def status(self):
        note = self.notes[self.current]
        return status_text(self.current, len(self.notes), word_count(note.draft), note.modified)


def sample_notes(seed, count=3):
    """The notes a fresh window starts with, chosen by the seed."""
    return random.Random(seed).sample(SAMPLE_NOTES, count)
