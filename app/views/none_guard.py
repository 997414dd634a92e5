"""Keep ``None``, ``True`` and ``False`` alive under PySide6 builds that drop references to them.

PySide6 6.12's abi3 wheels return these singletons from C++ methods without
taking a reference, which is correct only since CPython 3.12 (PEP 683 made
them immortal).  On CPython 3.11 every ``QPainter.setPen``, ``save``,
``QStyle.drawPrimitive`` … call lowers ``None``'s reference count by one (and
some calls do the same to ``True``/``False``), so after a few thousand paints
the interpreter aborts with "none_dealloc: deallocating None".  Raising each
count once by a huge margin makes them effectively immortal, as on 3.12.
Checked by ``tests/unit/test_views_none_guard.py``; remove this module when Python
3.11 support (or the affected PySide6 versions) are dropped.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

RESERVE = 1 << 40
"""References added to each singleton: more than any session can drop (~10^12 calls)."""
SINGLETONS: tuple[Any, ...] = (None, True, False, Ellipsis, NotImplemented)


def protect_none() -> bool:
    """Make the singletons immortal on CPython < 3.12 (idempotent); True when counts were raised."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    raised = False
    for obj in SINGLETONS:
        if sys.getrefcount(obj) < RESERVE // 2:
            refcnt = ctypes.c_ssize_t.from_address(id(obj))  # ob_refcnt is the first field of every object
            refcnt.value += RESERVE
            raised = True
    return raised
