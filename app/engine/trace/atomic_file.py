"""Write a file atomically: into a hidden temporary beside it, then rename over the target."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Callable, Iterator


@contextlib.contextmanager
def atomic_path(path: Path, error: Callable[[str], Exception]) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, on failure it is removed.

    Not ``mkstemp``: the result gets the user's usual file mode.  An ``OSError``
    becomes ``error(sentence)`` — one sentence that says what to do.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        yield tmp
        os.replace(tmp, path)
    except OSError as exc:
        raise error(f"Cannot write {path} ({exc.strerror or exc}); choose another file or folder.") from exc
    finally:
        with contextlib.suppress(OSError):  # e.g. the folder never existed
            tmp.unlink(missing_ok=True)
