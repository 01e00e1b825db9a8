"""Plane sums: a streaming walk keeps sums of one plane's reads, not the reads themselves.

A 27-point stencil reads nine (j, i) neighbours in each of the planes k - 1, k and k + 1,
so a plain walk (streaming.py) keeps nine windows of three planes: 27 registers a thread.
Its body usually sums each plane's neighbours the same way in every plane, as
bench/spelling/stencil27_spell.c does:

    S4(k - 1) + S4(k + 1)     with  S4(kk) = ((u[kk][j-1][i] + u[kk][j+1][i]) + u[kk][j][i-1]) + u[kk][j][i+1]

and then the plane k + 1 sum a thread computes now is the plane k sum of its next row and
the plane k - 1 sum of the one after.  So the walk computes each such sum once, when its
plane is loaded, and keeps a window of sums instead of the reads (``_xmpacc_q<m>_<slot>``):
three values a thread for S4 instead of twelve.  The hand-written walk of
bench/stencil_kernels.py (s27_walk) keeps the same nine values (the cell, its face sum and
its diagonal sum, per plane).

Which sums: a subtree of the body made only of ``+`` and ``-`` over window registers of one
slot (plane), that appears, the same but for the slot, at two or more slots.  Each is
computed with the very operations, in the very order, the body has, so the results are
the same to the last bit (no multiply in it, so no fused multiply-add either way).  The
windows must be of one type, ``float`` or ``double``, and span the same planes.  Only the
one-point-per-thread walk takes them (a vector walk, stream_vector.py, keeps its reads).
``XMPACC_STREAM_PLANE_SUMS=0`` in the compiler's environment turns them off, for
measurements.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pycparser import c_ast

from xmpacc import cbuild


class _Window(Protocol):
    """What a sum needs of a window (stream_walk.Window, which imports this module)."""

    @property
    def ctype(self) -> str: ...
    @property
    def lo(self) -> int: ...
    @property
    def hi(self) -> int: ...


SUM_TYPES = {"float", "double"}   # a sum of two is of the same type (no promotion)
# a sum's form: ("r", window) for a window's register, (op, left, right) for + and -
Shape = tuple


@dataclass(frozen=True)
class PlaneSum:
    """A window of sums: ``shape`` over the window registers of each slot."""

    shape: Shape
    ctype: str
    depth: int            # slots, as its windows have

    def reg(self, m: int, slot: int) -> str:
        return f"_xmpacc_q{m}_{slot}"

    def text(self, slot: int) -> str:
        """C of the sum at ``slot``: the registers of that slot, the body's operations and order."""
        def go(s: Shape) -> str:
            if s[0] == "r":
                return f"_xmpacc_r{s[1]}_{slot}"
            return f"({go(s[1])} {s[0]} {go(s[2])})"
        return go(self.shape)


def enabled() -> bool:
    return os.environ.get("XMPACC_STREAM_PLANE_SUMS", "1") != "0"


def _shape(node: c_ast.Node, where: dict[int, tuple[int, int]]) -> tuple[Shape, int] | None:
    """(form, slot) of a subtree of + and - over window reads of one slot, else None."""
    if isinstance(node, c_ast.ArrayRef):
        hit = where.get(id(node))
        return (("r", hit[0]), hit[1]) if hit is not None and hit[0] >= 0 else None
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        left, right = _shape(node.left, where), _shape(node.right, where)
        if left is not None and right is not None and left[1] == right[1]:
            return (node.op, left[0], right[0]), left[1]
    return None


def _windows_of(shape: Shape) -> set[int]:
    return {shape[1]} if shape[0] == "r" else _windows_of(shape[1]) | _windows_of(shape[2])


def plan(body: c_ast.Node, windows: Sequence[_Window],
         where: dict[int, tuple[int, int]]) -> tuple[tuple[PlaneSum, ...], dict[int, tuple[int, int]]]:
    """The plane sums of a streamed body (``where``: streaming.plan's windowed reads) and the
    subtrees they replace (id of the node -> (sum, slot))."""
    if not enabled() or not windows:
        return (), {}
    found: list[tuple[c_ast.Node, Shape, int]] = []

    def visit(node: c_ast.Node) -> None:
        hit = _shape(node, where) if isinstance(node, c_ast.BinaryOp) else None
        if hit is not None:
            found.append((node, *hit))
            return
        for _name, child in node.children():
            visit(child)

    visit(body)
    slots: dict[Shape, set[int]] = {}
    for _node, shape, slot in found:
        slots.setdefault(shape, set()).add(slot)
    sums: list[PlaneSum] = []
    index: dict[Shape, int] = {}
    for shape, seen in slots.items():
        used = [windows[g] for g in sorted(_windows_of(shape))]
        if len(seen) < 2 or len({(w.lo, w.hi, w.ctype) for w in used}) != 1 or used[0].ctype not in SUM_TYPES:
            continue   # one plane only (no reuse along the walk), or windows of other planes or types
        index[shape] = len(sums)
        sums.append(PlaneSum(shape, used[0].ctype, used[0].hi - used[0].lo + 1))
    return tuple(sums), {id(node): (index[shape], slot) for node, shape, slot in found if shape in index}


def substitute(body: c_ast.Node, at: dict[int, tuple[int, int]], sums: tuple[PlaneSum, ...],
               fix: Callable[[c_ast.Node], c_ast.Node | None]) -> c_ast.Node:
    """``fix`` (streaming.substitute's rewrite) with each summed subtree replaced by its register."""
    def rewrite(node: c_ast.Node) -> c_ast.Node | None:
        hit = at.get(id(node))
        if hit is not None:
            return c_ast.ID(sums[hit[0]].reg(hit[0], hit[1]), node.coord)
        return fix(node)
    return cbuild.transform(body, rewrite)

