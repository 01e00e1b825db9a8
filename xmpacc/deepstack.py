"""Deeply nested programs: the compiler runs on a thread with a large stack.

pycparser parses recursively (about eight Python frames per level of parentheses), and so
do its C generator, ``cbuild.transform`` and ``ScopedWalker``.  gcc compiles an expression
nested thousands of parentheses deep, so instead of stopping at Python's default limit of
1000 frames the compiler runs (``call``) with a high recursion limit on a thread whose
stack can hold that many frames.  Two guards keep every input a located error at worst:

* brackets nested more than ``MAX_NESTING`` levels deep are reported where the limit is
  crossed (``deepest_bracket``, checked before pycparser runs; the directive parser has
  the same limit);
* a construct that still exhausts the recursion limit without brackets (a chain of
  100,000 unary minus signs) is reported at its deepest node (``nesting_error``).

    int x = ((((...((1))...))));      3,000 levels: compiles, as with gcc
    int y = ((((...((1))...))));      20,000 levels: error: brackets nested more than 10000 levels deep
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from pycparser import c_ast

from xmpacc.diagnostics import SourceLoc, XmpError

MAX_NESTING = 10_000
RECURSION_LIMIT = 250_000
STACK_BYTES = 1 << 30   # address space only: pages are touched as the stack grows

T = TypeVar("T")

_LINEMARK = re.compile(r'#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')
# Literals first, so that brackets inside them do not count.
_BRACKET = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[(\[{]|[)\]}]')


def call(fn: Callable[[], T]) -> T:
    """``fn()`` on a thread with a large stack and a high recursion limit; its result or
    its exception.  Ctrl-C still reaches the calling thread."""
    result: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn())
        except BaseException as e:  # noqa: BLE001 - handed to the caller as it is
            error.append(e)

    try:
        old_size = threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):  # a platform without settable stacks
        return fn()
    try:
        thread = threading.Thread(target=target, name="xmpacc-compiler", daemon=True)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        try:
            thread.start()
        except RuntimeError:  # no address space for such a stack (ulimit -v)
            sys.setrecursionlimit(old_limit)
            return fn()
    finally:
        threading.stack_size(old_size)
    try:
        while thread.is_alive():
            thread.join(0.2)
    finally:
        sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return result[0]


def deepest_bracket(text: str) -> tuple[str, int, int] | None:
    """(file, line, 1-based column) in cpp output ``text`` of the first bracket nested
    more than ``MAX_NESTING`` levels deep, or None."""
    if text.count("(") + text.count("[") + text.count("{") <= MAX_NESTING:
        return None
    depth = 0
    file, line = "", 1
    for physical in text.split("\n"):
        mark = _LINEMARK.match(physical) if physical.startswith("#") else None
        if mark:
            file, line = mark.group(2), int(mark.group(1))
            continue
        if not physical.startswith("#"):
            for m in _BRACKET.finditer(physical):
                tok = m.group()
                if tok in "([{":
                    depth += 1
                    if depth > MAX_NESTING:
                        return file, line, m.start() + 1
                elif tok in ")]}":
                    depth = max(depth - 1, 0)
        line += 1
    return None


def too_deep_message() -> str:
    return f"brackets nested more than {MAX_NESTING} levels deep (xmpacc's limit)"


def nesting_error(ast: c_ast.Node, fallback: SourceLoc) -> XmpError:
    """The error for a tree too deep for the recursion limit, at its deepest node."""
    deepest, where = -1, fallback
    stack: list[tuple[c_ast.Node, int]] = [(ast, 0)]
    while stack:
        node, depth = stack.pop()
        coord = node.coord
        if depth > deepest and coord is not None and getattr(coord, "line", 0):
            deepest = depth
            where = SourceLoc(str(coord.file), coord.line, getattr(coord, "column", 0) or 1)
        stack.extend((child, depth + 1) for _name, child in node.children())
    return XmpError(where, "construct nested too deeply for xmpacc (more than "
                           f"{RECURSION_LIMIT // 10} levels); split it into smaller pieces")
