"""Row indices of a streaming kernel: subscripts that move with the walk instead of being
recomputed per row (passes/kernel/streaming.py decides what streams; stream_walk.py writes it).

In a streamed kernel every access of an aligned array spells its flat subscript through
the descriptor, e.g. for ``a[i + 1][j][k]``

    a[_XMPACC_AT3(_xmpacc_a_a, _XMPACC_G(_xmpacc_a_a, 0, i + 1), ..., _XMPACC_G(_xmpacc_a_a, 2, k))]

which is a chain of 64-bit multiply-adds per access and per walked row: with one or a
few loads per point that integer work, not memory, bounds the kernel (a 512^3 Jacobi
sweep ran at 0.67 ms where the same loads with a plain offset take 0.57).  The subscript
is affine in the walked index (block, gblock, cyclic and full-shadow maps are), so each
array gets one index, computed once per thread and moved by a constant per row, and each
of its access patterns a constant distance from it:

    long long _xmpacc_o1 = AT3(u, k, j, i);                             /* first row   */
    const long long _xmpacc_t1 = AT3(u, k + step, j, i) - _xmpacc_o1;   /* one row on  */
    const long long _xmpacc_d1_0 = AT3(u, k - 1, j, i) - _xmpacc_o1;    /* u[k - 1][j][i] */
    const long long _xmpacc_d1_1 = AT3(u, k, j + 1, i) - _xmpacc_o1;    /* u[k][j + 1][i] */
    ... u[_XMPACC_SO(_xmpacc_o1 + _xmpacc_d1_1, <the original subscript>)] ...
    _xmpacc_o1 += _xmpacc_t1;                                           /* after each row */

``_XMPACC_SO`` keeps the original subscript in checked builds (-D_XMPACC_CHECK), where
every access is bounds-checked through the descriptor; there the row indices are not
computed at all (the row after the last could be outside the array).

Only flat subscripts of aligned arrays take part, and only when every other index
expression is constant over the walk: no array element, dereference, member, call other
than the index macros, or variable that the body assigns.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.passes.common.accesses import affine

INDEX_MACROS = ("_XMPACC_G", "_XMPACC_L", "_XMPACC_LC")
ROW = "_xmpacc_ROW"


@dataclass(frozen=True)
class RowIndex:
    """One walking index per array (and walked subscript position): ``_xmpacc_o<n>`` is the
    flat subscript of ``base`` at the current row; every other access of the array is at a
    constant distance ``_xmpacc_d<n>_<k>`` from it (``distances[k]``: pattern and row offset)."""

    array: str
    base: str                               # subscript text, the walked index as _xmpacc_ROW
    distances: tuple[tuple[str, int], ...]  # (subscript pattern, row offset c) of each distance
    desc: str = ""                          # the array's descriptor (C text), for 32-bit walks
    ndims: int = 0                          # its index macros: one per dimension
    base_read: bool = True                  # some access reads or writes ``base`` at the row itself
    near: tuple[tuple[int, int] | None, ...] = ()   # per distance: (k, e) where it is distance k's
                                                    # (-1: the base's) plus e elements (_near)

    @property
    def independent(self) -> int:
        """The distances computed through the descriptor (not ``near`` another one)."""
        return sum(1 for k in range(len(self.distances)) if not self.near or self.near[k] is None)

    def at(self, pattern: str, row: str) -> str:
        return pattern.replace(ROW, f"({row})")

    def distance(self, pattern: str, c: int) -> int:
        """k of (pattern, c); -1 for the base itself."""
        return -1 if (pattern, c) == (self.base, 0) else self.distances.index((pattern, c))


def walked(n: int, k: int) -> str:
    """The walked subscript: index n, plus distance k unless k is -1."""
    return f"_xmpacc_o{n}" + (f" + _xmpacc_d{n}_{k}" if k >= 0 else "")


def index_slots(ref: c_ast.ArrayRef) -> list[tuple[c_ast.Node, str | int, c_ast.Node]]:
    """(holder, attribute or argument position, expression) of every index expression of a
    device subscript: the third argument of each _XMPACC_G/L/LC (aligned arrays), or each
    subscript of a nested local array."""
    slots: list[tuple[c_ast.Node, str | int, c_ast.Node]] = []
    for node in cbuild.subscript_chain(ref):
        macros = [n for n in cbuild.walk(node.subscript) if isinstance(n, c_ast.FuncCall)
                  and isinstance(n.name, c_ast.ID) and n.name.name in INDEX_MACROS]
        if macros:
            slots += [(m.args, 2, m.args.exprs[2]) for m in macros]
        else:
            slots.append((node, "subscript", node.subscript))
    return slots


def unit_step(pattern: str) -> bool:
    """Whether a row's elements at i and i + 1 are neighbours in memory whatever the
    descriptor: the last index macro of its flat subscript is _XMPACC_G or _XMPACC_L."""
    calls = re.findall(r"(_XMPACC_(?:G|L|LC))\(", pattern)
    return bool(calls) and calls[-1] != "_XMPACC_LC"


def near_on() -> bool:
    """XMPACC_STREAM_NEAR=0 in the compiler's environment writes every distance through the
    descriptor (RowIndex.near off), for measurements."""
    return os.environ.get("XMPACC_STREAM_NEAR", "1") != "0"


def inner_key(ref: c_ast.ArrayRef, slot: int, pattern: str) -> tuple[str, int] | None:
    """(the pattern with its last index's constant dropped, that constant) where the last
    index (not the walked one, ``slot``) is ``v + c`` or a constant and steps by one element
    (unit_step): two patterns with one key are ``c`` elements apart whatever the
    descriptor.  None otherwise."""
    slots = index_slots(ref)
    aff = affine(slots[-1][2])
    if slot == len(slots) - 1 or aff is None or not unit_step(pattern) \
            or not all(isinstance(h, c_ast.ExprList) for h, _a, _e in slots):
        return None
    key = with_row(ref, slot)
    holder, at, _e = index_slots(key)[-1]
    holder.exprs[at] = c_ast.ID(aff.var) if aff.var is not None else c_ast.Constant("int", "0")
    return cbuild.to_c(key.subscript), aff.const


def _near(base: str, distances: tuple[tuple[str, int], ...],
          keys: dict[str, tuple[str, int] | None]) -> tuple[tuple[int, int] | None, ...]:
    """For each distance, the first of the base and the earlier distances in its row of the
    last dimension (same key and row offset) and how many elements on it is, None where none
    is: the kernel then writes it as that one plus a literal, which nvcc folds into the
    loads' address offsets (the 3-D 27-point 512^3 fp32 sweep: 126 registers -> 118, and
    64 without spilling at 4 blocks per SM, streaming.min_blocks).  ``keys``: inner_key of
    each pattern."""
    seen: dict[tuple[str, int], tuple[int, int]] = {}
    if keys.get(base) is not None:
        seen[(keys[base][0], 0)] = (-1, keys[base][1])
    out: list[tuple[int, int] | None] = []
    for k, (pattern, c) in enumerate(distances):
        key = keys.get(pattern)
        first = seen.setdefault((key[0], c), (k, key[1])) if key is not None else (k, 0)
        out.append(None if first[0] == k else (first[0], key[1] - first[1]))
    return tuple(out)


def names(node: c_ast.Node) -> set[str]:
    return {n.name for n in cbuild.walk(node) if isinstance(n, c_ast.ID)}


def walked_slot(ref: c_ast.ArrayRef, var: str) -> tuple[int, int] | None:
    """(slot position, c) when exactly one index expression is ``var + c`` and no other
    names ``var``; None otherwise."""
    found = None
    for k, (_h, _a, e) in enumerate(index_slots(ref)):
        if var not in names(e):
            continue
        aff = affine(e)
        if found is not None or aff is None or aff.var != var:
            return None
        found = (k, aff.const)
    return found


def with_row(ref: c_ast.ArrayRef, slot: int) -> c_ast.ArrayRef:
    """A copy of ``ref`` with index expression ``slot`` replaced by _xmpacc_ROW."""
    pattern = copy.deepcopy(ref)
    holder, attr, _e = index_slots(pattern)[slot]
    if isinstance(attr, int):
        holder.exprs[attr] = c_ast.ID(ROW)
    else:
        setattr(holder, attr, c_ast.ID(ROW))
    return pattern


def _constant_over_walk(expr: c_ast.Node, assigned: set[str]) -> bool:
    for node in cbuild.walk(expr):
        if isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)) or \
                (isinstance(node, c_ast.UnaryOp) and node.op == "*"):
            return False
        if isinstance(node, c_ast.FuncCall) and not (isinstance(node.name, c_ast.ID)
                                                     and node.name.name.startswith("_XMPACC_")):
            return False
        if isinstance(node, c_ast.ID) and node.name in assigned:
            return False
    return True


def pattern_of(ref: c_ast.ArrayRef, slot: int) -> str:
    return cbuild.to_c(with_row(ref, slot).subscript)


def plan(refs: list[c_ast.ArrayRef], var: str, arrays: set[str], assigned: set[str],
         extra: list[tuple[c_ast.ArrayRef, range]]) -> tuple[list[RowIndex], dict[int, tuple[int, int]]]:
    """The row indices of ``refs`` (the body's outermost array references, walked index
    ``var``), and for each reference that uses one: id -> (index number, distance).
    ``extra``: references whose pattern is also needed at the given row offsets (windows;
    they are in the result too)."""
    groups: dict[tuple[str, int], list[tuple[str, int]]] = {}
    keys: dict[tuple[str, int], dict[str, tuple[str, int] | None]] = {}   # inner_key by pattern
    near = near_on()
    descs: dict[tuple[str, int], tuple[str, int]] = {}
    uses: dict[int, tuple[tuple[str, int], str, int]] = {}
    for ref, offsets in [(r, None) for r in refs] + extra:
        if not isinstance(ref.name, c_ast.ID) or ref.name.name not in arrays:
            continue
        if not any(isinstance(h, c_ast.ExprList) for h, _a, _e in index_slots(ref)):
            continue   # a nested local array: its rows are not one flat subscript
        slot = walked_slot(ref, var)
        if slot is None or not _constant_over_walk(ref.subscript, assigned):
            continue
        key, pattern = (ref.name.name, slot[0]), pattern_of(ref, slot[0])
        members = groups.setdefault(key, [])
        macros = [h for h, _a, _e in index_slots(ref) if isinstance(h, c_ast.ExprList)]
        descs.setdefault(key, (cbuild.to_c(macros[0].exprs[0]), len(macros)))
        if pattern not in keys.setdefault(key, {}):
            keys[key][pattern] = inner_key(ref, slot[0], pattern) if near else None
        for c in (offsets if offsets is not None else [slot[1]]):
            if (pattern, c) not in members:
                members.append((pattern, c))
        uses[id(ref)] = (key, pattern, slot[1])
    rows, number = [], {}
    for key, members in groups.items():
        base = next((p for p, c in members if c == 0), members[0][0])
        number[key] = len(rows)
        distances = tuple(m for m in members if m != (base, 0))
        rows.append(RowIndex(key[0], base, distances, *descs[key], (base, 0) in members,
                             _near(base, distances, keys[key])))
    where = {i: (number[key], rows[number[key]].distance(p, c)) for i, (key, p, c) in uses.items()}
    return rows, where


def subscript(ref: c_ast.ArrayRef, n: int, k: int) -> None:
    """Rewrite ``ref`` (in place) to use row index n at distance k."""
    moved: c_ast.Node = c_ast.ID(f"_xmpacc_o{n}")
    if k >= 0:
        moved = c_ast.BinaryOp("+", moved, c_ast.ID(f"_xmpacc_d{n}_{k}"))
    ref.subscript = c_ast.FuncCall(c_ast.ID("_XMPACC_SO"), c_ast.ExprList([moved, ref.subscript]), ref.coord)
