"""A target's rubric beyond its format: recording a ``[[script]]`` case from a played run (record) and
checking every case against the program and its controls (check).  Both play sessions (run/)."""
