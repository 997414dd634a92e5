"""Python source to syntax trees, one thread at a time.

CPython 3.11 keeps the AST converter's recursion depth in one per-interpreter counter: two
threads building or compiling trees at once (a repair in a worker thread while another parses)
can end in ``SystemError: AST constructor recursion depth mismatch`` (CPython gh-106905, fixed
in 3.12.x). Every parse and tree compile in the app goes through this lock.
"""

from __future__ import annotations

import ast
import threading
from types import CodeType
from typing import Literal, overload

_LOCK = threading.Lock()


@overload
def parse(source: str, filename: str = ..., mode: Literal["exec"] = ...) -> ast.Module: ...
@overload
def parse(source: str, filename: str = ..., *, mode: Literal["eval"]) -> ast.Expression: ...


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse`` under the lock."""
    with _LOCK:
        return ast.parse(source, filename=filename, mode=mode)


def compile_tree(tree: ast.Module, filename: str, mode: str = "exec") -> CodeType:
    """``compile`` of a tree under the lock."""
    with _LOCK:
        return compile(tree, filename, mode)

