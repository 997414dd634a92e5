# SPDX-License-Identifier: GPL-3.0-or-later
# Reading and writing the to-do list file: one task per line, "[x] " for done, "[ ] " for open.


def parse(text):
    tasks = []
    for line in text.splitlines():
        line = line.rstrip()
        if line.startswith("[x] "):
            tasks.append([line[4:], True])
        elif line.startswith("[ ] "):
            tasks.append([line[4:], False])
        elif line.strip():
            tasks.append([line.strip(), False])
    return tasks


def dump(tasks):
    lines = []
    for text, done in tasks:
        if done:
            lines.append("[x] " + text)
        else:
            lines.append("[ ] " + text)
    return "\n".join(lines) + "\n"


def tidy(text):
    """What the user typed, cleaned up: no extra spaces, first letter upper case."""
    words = text.split()
    if not words:
        return ""
    sentence = " ".join(words)
    return sentence[0].upper() + sentence[1:]


def summary(tasks):
    done = sum(1 for _, d in tasks if d)
    if len(tasks) == 1:
        return "1 task, %d done" % done
    return "%d tasks, %d done" % (len(tasks), done)
