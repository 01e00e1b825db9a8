"""Vector streaming kernels: each thread of a streaming kernel computes the V consecutive
points of the innermost loop that one 16-byte load brings (4 floats), as it walks
the outer loop (streaming.py decides what streams, stream_walk.py writes the walk, this
module the vector form of it).  Made for 4-byte elements only (``LANES``: in fp64 it did not
pay).

Why: a 3-D stencil streamed one point per thread is bound by the bytes in flight, not by
DRAM: each step of the walk issues one 4- or 8-byte load of the next plane, and the 512^3
7-point sweep ran at 0.73 (fp32) and 0.84 (fp64) of the copy bandwidth on an H200.  The
same walk with 16-byte loads, V points per thread, ran at 0.92 in both by hand
(bench/stencil3d_vector_designs.py, bench/results/stencil3d-vector-designs-*); two rows per
thread with scalar loads reached 0.84 / 0.94 by hand and did not pay in generated code
(docs/performance.md, "What the 7-point sweep would need").

The thread's points start where a 16-byte block of the written array starts, so a row's
first points may lie before the loop's first iteration (they are masked):

    i = first;  phase = (address of W[.. i] / sizeof) % V;   i0 = first - phase + g * V
    mask: bit e set where first <= i0 + e <= last

and the launch counts V-point groups (``_xmpacc_sched_groups`` of the innermost schedule,
which the kernel receives in the innermost schedule's place; the loop's own schedule
follows as ``_xmpacc_s0_<i>``).  Where every array of the thread steps by one element
along i (the row indices' unit step), every plane step is a whole number of blocks and
every access pattern starts on a 16-byte boundary, the thread runs the vector walk:

    per step: the windows' new plane, one vector per V points; every other access
    pattern's elements (point e of offset c reads element c + e): whole blocks as vectors,
    the rest scalar; then the body once per point, in a scope where i is i0 + e, its reads
    replaced by those registers and its store by a value; then one vector store (every
    point in range) or the masked scalar stores.

Where the arrays step by one element but a pattern does not start a block (rows that are
no multiple of 4 long), the thread moves its 4 points into the loop's range (a neighbour
computes some of them again, to the same values: the body reads no array it writes) and
runs the same walk with element-by-element loads and stores: 4 points per thread still,
where the one-point walk for each point would take several times as long.  The load form
is a branch of each step (stream_walk.VectorCode), not a second walk: one set of registers.  Anywhere else
(a loop of fewer than 4 iterations there, an array that does not step by one element,
checked builds) the thread runs the scalar walk once per point of its mask: the same
result in every case.

Legality (on top of streaming.py's): a nest of three or more loops whose innermost loop
goes up by 1 over a dimension that is not cyclic; a body with exactly one store, ``W[..]
= expr`` at the bare innermost index, unconditional and at the top level; no reduction;
every array float; every read unconditional, of a read-only array,
through a row index, and naming the innermost variable once as ``i + c`` (windows: c = 0).
``XMPACC_STREAM_VECTOR=0`` in the compiler's environment turns it off.

Index width: where every array's local buffer holds fewer than about 2^31 elements (checked
in the kernel, from the descriptors) the walk's row indices, steps and distances are ints
counted from each buffer's start (stream_walk._rows32): one register each instead of two,
and the 512^3 fp32 7-point kernel fits 40 registers (6 blocks of 256 per SM, no spill; 64
registers and 4 blocks in 64 bits).  Elsewhere, for loops of fewer than 4 iterations and in
checked builds, the thread runs the body as written once per point and row.
``XMPACC_STREAM_INDEX32=0`` keeps the 64-bit walk and its streamed one-point fallback.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.passes.common.accesses import text_value
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.common.loopsched import CyclicLoop
from xmpacc.passes.common.values import KernelVars, Param
from xmpacc.passes.kernel.stream_rows import index_slots, walked, walked_slot, with_row
from xmpacc.runtime.contract import LAUNCH_VALUE

# points per 16-byte load.  Only 4-byte elements: on one H200 the 512^3 7-point sweep took
# 0.309 ms in fp32 with 4 points per thread against 0.340 with one, but 0.607 in fp64 with
# 2 points against 0.590 with one (bench/results/stream-knobs-vector-2026-11-29-NVIDIA-H200.txt):
# an 8-byte row already keeps as many bytes in flight per load as two 4-byte ones, and the
# vector walk's registers cost fp64 its occupancy.
LANES = {"float": 4}


class NotVector(Exception):
    """Why a streaming kernel keeps one point per thread."""


@dataclass(frozen=True)
class Group:
    """The elements of one access pattern along the innermost loop that a step reads:
    point e of an offset c reads element c + e, register ``_xmpacc_x<n>_<c + e - lo>``."""

    number: int
    array: str
    at: str                  # C text of the element index of offset 0 at the current row
    lo: int                  # the lowest element read
    hi: int                  # the highest
    offsets: tuple[int, ...]
    window: tuple[int, int] = (-1, 0)   # (window, register slot) holding elements 0 .. V - 1, or -1
    lanes: int = 1
    row: int = -1            # the row index ``at`` goes through (stream_rows.py)

    def reg(self, element: int) -> str:
        if self.window[0] >= 0 and 0 <= element < self.lanes:   # the window's row: no load of its own
            return f"_xmpacc_r{self.window[0]}_{self.window[1]}_{element}"
        return f"_xmpacc_x{self.number}_{element - self.lo}"


@dataclass(frozen=True)
class VectorPlan:
    var: str                              # the innermost loop's variable
    ctype: str                            # every array's element type
    lanes: int                            # V
    groups: tuple[Group, ...]
    store_array: str
    store_at: str                         # C text of the store's element index (row index)
    phase_at: str                         # the store's original subscript (the phase at i = first)
    windows: tuple[int, ...]              # the streaming windows read, by number
    reads: dict[int, tuple[str, int]]     # id of a read ArrayRef -> ("w", window) | ("g", group), offset
    store_id: int                         # id of the store's Assignment
    ivar_type: str
    store_row: int = -1                   # the store's row index


def enabled() -> bool:
    return os.environ.get("XMPACC_STREAM_VECTOR", "1") != "0"


def plan(body: c_ast.Node, loops: list[CanonicalLoop], types: list[str], kv: KernelVars,
         cyclic: tuple[CyclicLoop, ...], windows: list[tuple[int, int, int]],
         where: dict[int, tuple[int, int]], moved: dict[int, tuple[int, int]],
         reads: list[tuple[c_ast.ArrayRef, bool]],
         elem: dict[str, str | None]) -> tuple[VectorPlan | None, str]:
    """The vector plan of a streaming nest (before streaming.substitute), or None and why.
    ``windows``: (lowest row, highest row, row index) of each of streaming's windows."""
    try:
        return _plan(body, loops, types, kv, cyclic, windows, where, moved, reads, elem), "vector"
    except NotVector as why:
        return None, str(why)


def _plan(body: c_ast.Node, loops: list[CanonicalLoop], types: list[str], kv: KernelVars,
          cyclic: tuple[CyclicLoop, ...], windows: list[tuple[int, int, int]],
          where: dict[int, tuple[int, int]], moved: dict[int, tuple[int, int]],
          reads: list[tuple[c_ast.ArrayRef, bool]], elem: dict[str, str | None]) -> VectorPlan:
    if not enabled():
        raise NotVector("XMPACC_STREAM_VECTOR=0")
    if len(loops) < 3:
        raise NotVector("fewer than three loops")
    inner, walked_var = loops[-1], loops[0].var
    if not inner.upward or text_value(inner.step) != 1 or any(c.var == inner.var for c in cyclic):
        raise NotVector(f"the loop of '{inner.var}' does not go up by 1 over a block of indices")
    if kv.reductions or kv.combines:
        raise NotVector("a reduction")
    store = _the_store(body)
    target = store.lvalue
    name = target.name.name if isinstance(target.name, c_ast.ID) else None
    slot = walked_slot(target, inner.var)
    if name is None or id(target) not in moved or slot is None or slot != (len(index_slots(target)) - 1, 0):
        raise NotVector("the store is not at the bare innermost index through a row index")
    ctype = elem.get(name)
    if ctype not in LANES:
        raise NotVector(f"'{name}' holds {ctype or 'structures'}, not float")
    lanes = LANES[ctype]
    plan_reads: dict[int, tuple[str, int]] = {}
    keyed: dict[tuple[str, str, int], list[tuple[c_ast.ArrayRef, int]]] = {}
    used_windows: set[int] = set()
    rows_of: dict[tuple[str, str], tuple[int, int]] = {}   # (array, pattern) -> (window, its lowest row)
    for ref, unconditional in reads:
        if ref is target:
            continue
        array = ref.name.name if isinstance(ref.name, c_ast.ID) else None
        if array == name:
            raise NotVector(f"the body reads the array '{name}' it writes")
        if not unconditional:
            raise NotVector(f"'{cbuild.to_c(ref)}' is read under a condition")
        if array is None or elem.get(array) != ctype:
            raise NotVector(f"'{cbuild.to_c(ref)}' is not an array of {ctype}")
        islot, kslot = walked_slot(ref, inner.var), walked_slot(ref, walked_var)
        if islot is None or kslot is None or islot[0] != len(index_slots(ref)) - 1:
            # the points of a thread are consecutive elements only along the last subscript
            raise NotVector(f"'{cbuild.to_c(ref)}' does not name '{inner.var}' once, in its last subscript, "
                            f"and '{walked_var}' once")
        # the access pattern along both walked indices: its row, whichever k and i offsets
        pattern = cbuild.to_c(with_row(with_row(ref, kslot[0]), islot[0]).subscript)
        hit = where.get(id(ref))
        if hit is not None and hit[0] >= 0:
            if islot[1] != 0 or windows[hit[0]][2] < 0:
                raise NotVector(f"the window of '{cbuild.to_c(ref)}' is not at '{inner.var}'")
            used_windows.add(hit[0])
            plan_reads[id(ref)] = ("w", hit[0])
            # the same row at i + c is read from the window's registers (fewer loads, registers)
            rows_of.setdefault((array, pattern), (hit[0], kslot[1] - hit[1]))
            continue
        if id(ref) not in moved:
            raise NotVector(f"'{cbuild.to_c(ref)}' has no row index")
        keyed.setdefault((array, pattern, kslot[1]), []).append((ref, islot[1]))
    groups = []
    for (array, pattern, row), members in keyed.items():
        anchor, c0 = members[0]
        n, k = moved[id(anchor)]
        at = walked(n, k) + (f" - {c0}" if c0 > 0 else f" + {-c0}" if c0 < 0 else "")
        offsets = tuple(sorted({c for _r, c in members}))
        window, lowest = rows_of.get((array, pattern), (-1, 0))
        depth = windows[window][1] - windows[window][0] + 1 if window >= 0 else 0
        held = (window, row - lowest) if window >= 0 and 0 <= row - lowest < depth else (-1, 0)
        group = Group(len(groups), array, at, offsets[0], offsets[-1] + lanes - 1, offsets, held, lanes, n)
        groups.append(group)
        for ref, _c in members:
            plan_reads[id(ref)] = ("g", group.number)
    n, k = moved[id(target)]
    return VectorPlan(inner.var, ctype, lanes, tuple(groups), name, walked(n, k),
                      cbuild.to_c(target.subscript), tuple(sorted(used_windows)), plan_reads, id(store),
                      types[-1], n)


def _the_store(body: c_ast.Node) -> c_ast.Assignment:
    """The body's one assignment, ``W[..] = expr`` at its top level."""
    assignments = [n for n in cbuild.walk(body) if isinstance(n, c_ast.Assignment)
                   or (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"))]
    top = body.block_items or [] if isinstance(body, c_ast.Compound) else [body]
    if len(assignments) != 1 or assignments[0] not in top or not isinstance(assignments[0], c_ast.Assignment):
        raise NotVector("the body is not one store")
    store = assignments[0]
    if store.op != "=" or not isinstance(store.lvalue, c_ast.ArrayRef):
        raise NotVector("the body's store is not 'array[...] = value'")
    return store


def copies(body: c_ast.Node, v: VectorPlan, window_regs: dict[int, int]) -> list[c_ast.Node]:
    """The body once per point: reads replaced by registers, the store by ``_xmpacc_y<e>``.
    ``window_regs``: id of a windowed read -> its register slot (streaming's ``where``)."""
    out = []
    for e in range(v.lanes):
        memo: dict[int, object] = {}
        twin = copy.deepcopy(body, memo)
        origin = {id(new): old for old, new in memo.items() if isinstance(new, c_ast.Node)}

        def fix(node: c_ast.Node, e: int = e, origin: dict[int, int] = origin) -> c_ast.Node | None:
            old = origin.get(id(node))
            if old is None:
                return None
            if old == v.store_id:
                return c_ast.Assignment("=", c_ast.ID(f"_xmpacc_y{e}"), node.rvalue, node.coord)  # type: ignore[attr-defined]
            hit = v.reads.get(old)
            if hit is None:
                return None
            kind, number = hit
            if kind == "w":
                return c_ast.ID(f"_xmpacc_r{number}_{window_regs[old]}_{e}", node.coord)
            return c_ast.ID(v.groups[number].reg(_offset(node, v.var) + e), node.coord)
        out.append(cbuild.transform(twin, fix))
    return out


def _offset(ref: c_ast.Node, var: str) -> int:
    slot = walked_slot(ref, var)  # type: ignore[arg-type]
    return slot[1] if slot is not None else 0


def params(params: list[Param], v: VectorPlan) -> list[Param]:
    """The kernel's parameters with the innermost schedule replaced by its groups of V
    points (``_xmpacc_sg_<i>``, host_setup) and the schedule itself after the others."""
    name = f"_xmpacc_s_{v.var}"
    out = [dataclasses.replace(p, host_arg=f"&_xmpacc_sg_{v.var}") if p.name == name else p for p in params]
    own = f"_xmpacc_s0_{v.var}"
    return out + [Param(own, f"_xmpacc_sched_t {own}", f"&{name}", LAUNCH_VALUE, "sizeof(_xmpacc_sched_t)")]


def host_setup(v: VectorPlan) -> str:
    """The host's line before the launch: the groups' schedule."""
    return f"_xmpacc_sched_t _xmpacc_sg_{v.var} = _xmpacc_sched_groups(_xmpacc_s_{v.var}, {v.lanes});"
