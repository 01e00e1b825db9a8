"""A streaming kernel's plan (``StreamPlan``: passes/kernel/streaming.py decides what streams) and
the C text of its walk.

Given a StreamPlan: the lines after the kernel's prologue (this thread's first row, the
window's first rows), the walk's ``for`` header, the lines before the body in each step
(the next row, the window's one new row) and after it (the window moves down), and the
host's thread count for the launch (one thread per ``walk`` rows of the outer loop).

For kernels with a large index state (2 blocks per SM, streaming.min_blocks), small deep
kernels of 4-byte elements (4 blocks per SM), and kernels without a window, the template
writes the walk twice: unrolled without an exit
test for the threads whose ``walk`` rows all exist (all but the last row of threads), and
with the test for the others.  One loop with the test ran the Himeno L sweep in 602 us on
an H200; the same kernel without it in 473 us (ncu, one job): an exit in every step keeps
nvcc from starting the loads of later rows early, and those loads are what the walk is
for.  Small kernels (8 blocks per SM, 32 registers) keep the one loop: without the test
nvcc starts more loads early than 32 registers hold, and the 512^3 Jacobi sweep spilled,
fell back to 2 blocks per SM and took 0.667 ms instead of 0.591.  A kernel without a
window keeps nothing in registers across rows, so its early loads fit: the Himeno L copy
kernel (``p = wrk2``, 8 blocks per SM, 32 registers, no spill) took 90 us whole against 94
with the test.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.kernel import stream_rows
from xmpacc.passes.kernel.stream_rows import RowIndex

WHOLE_WALK_BLOCKS = 4   # kernels asking for at most this many blocks per SM get the whole-walk loop


@dataclass(frozen=True)
class Window:
    """Registers holding rows ``i + lo`` .. ``i + hi`` of one read-only access pattern."""

    array: str               # kernel parameter name of the array
    ctype: str               # element type, e.g. "double"
    lo: int
    hi: int
    load: str                # C text of one element, with the walked index as _xmpacc_ROW
    ldg: bool                # can the element go through __ldg
    row: int = -1            # its row index (stream_rows.py), -1: none
    pattern: str = ""        # with a row index: its subscript, the walked index as _xmpacc_ROW

    def reg(self, g: int, k: int) -> str:
        return f"_xmpacc_r{g}_{k}"



@dataclass(frozen=True)
class StreamPlan:
    walk: int                       # outer iterations per thread
    var: str                        # the walked loop variable
    ctype: str                      # its C type
    windows: tuple[Window, ...]
    threads: int                    # suggested block size, 0: the runtime's default
    rows: tuple[RowIndex, ...] = ()  # subscripts that move with the walk (stream_rows.py)
    min_blocks: int = 2             # __launch_bounds__ blocks per SM to ask nvcc for, 0: none
    fallback_blocks: int = 0        # where the kernel spills at min_blocks (runtime/device.py), 0: fixed


@dataclass(frozen=True)
class WalkCode:
    """C lines of a streaming kernel around its body (templates/kernels.cu.j2)."""

    prologue: list[str]      # after kernels.prologue: the first row, the window's first rows
    loop: str                # the walk's for header
    next_row: str            # first in each step: the next row, or leave the walk past the loop's end
    head: list[str]          # then, before the body: the window's new row
    tail: list[str]          # after the body: the window moves down one row
    whole: str = ""          # the test that this thread's walk is whole ("": one loop, with exit tests)
    next_row_whole: str = ""   # next_row in a whole walk: no exit test
    min_blocks: int = 0      # __launch_bounds__ blocks per SM (0: none)
    fallback: int = 0        # blocks per SM where the runtime finds the kernel spills (0: fixed)


def code(p: StreamPlan) -> WalkCode:
    s, v, t = f"_xmpacc_s_{p.var}", p.var, p.ctype
    pro = [f"long long _xmpacc_p0 = _xmpacc_rest * {p.walk};   /* this thread's first row */",
           f"{v} = ({t}) ({s}.first + _xmpacc_p0 * {s}.step);"]
    step = f"{v} = ({t}) ({s}.first + (_xmpacc_p0 + _xmpacc_w) * {s}.step);"
    head: list[str] = []
    pro_rows, tail = _row_indices(p, v, s)
    pro += pro_rows
    for g, w in enumerate(p.windows):
        regs = [w.reg(g, k) for k in range(w.hi - w.lo + 1)]
        pro.append(f"{w.ctype} {', '.join(regs)};")
        pro += [f"{regs[k]} = {_load(p, w, v, w.lo + k)};" for k in range(len(regs) - 1)]
        head.append(f"{regs[-1]} = {_load(p, w, v, w.hi)};")
        tail += [f"{regs[k]} = {regs[k + 1]};" for k in range(len(regs) - 1)]
    loop = f"for (int _xmpacc_w = 0; _xmpacc_w < {p.walk}; _xmpacc_w++)"
    whole = f"_xmpacc_p0 + {p.walk} <= {s}.count" if _whole_walk(p) else ""
    return WalkCode(pro, loop,
                    f"if (_xmpacc_w > 0) {{ if (_xmpacc_p0 + _xmpacc_w >= {s}.count) break; {step} }}",
                    head, tail, whole=whole, next_row_whole=f"if (_xmpacc_w > 0) {step}",
                    min_blocks=p.min_blocks, fallback=p.fallback_blocks)


def _whole_walk(p: StreamPlan) -> bool:
    """Whether the walk is written twice (the docstring above); XMPACC_STREAM_WHOLE=0/1 in
    the compiler's environment forces it off/on, for measurements."""
    forced = os.environ.get("XMPACC_STREAM_WHOLE", "")
    if forced in ("0", "1"):
        return forced == "1"
    return 0 < p.min_blocks <= WHOLE_WALK_BLOCKS or not p.windows


def _row_indices(p: StreamPlan, v: str, s: str) -> tuple[list[str], list[str]]:
    """Prologue lines computing each row index, its step and distances; the tail's moves
    (stream_rows.py).  Checked builds keep the original subscripts and skip both."""
    if not p.rows:
        return [], []
    pro, tail = ["#ifndef _XMPACC_CHECK"], ["#ifndef _XMPACC_CHECK"]
    for n, r in enumerate(p.rows):
        o = f"_xmpacc_o{n}"
        pro.append(f"long long {o} = {r.at(r.base, v)};")
        pro.append(f"const long long _xmpacc_t{n} = ({r.at(r.base, f'{v} + {s}.step')}) - {o};")
        pro += [f"const long long _xmpacc_d{n}_{k} = ({r.at(pattern, _row(v, c))}) - {o};"
                for k, (pattern, c) in enumerate(r.distances)]
        tail.append(f"{o} += _xmpacc_t{n};")
    return pro + ["#endif"], tail + ["#endif"]


def _row(var: str, offset: int) -> str:
    return var if offset == 0 else f"{var} + {offset}" if offset > 0 else f"{var} - {-offset}"


def _load(p: StreamPlan, w: Window, var: str, offset: int) -> str:
    row = _row(var, offset)
    if w.row >= 0:
        r = p.rows[w.row]
        k = r.distance(w.pattern, offset)
        element = f"{r.array}[_XMPACC_SO({stream_rows.walked(w.row, k)}, {r.at(w.pattern, row)})]"
    else:
        element = w.load.replace("_xmpacc_ROW", f"({row})")
    return f"_XMPACC_LDG(&{element})" if w.ldg else element


def launch_total(loops: list[CanonicalLoop], p: StreamPlan) -> str:
    """Threads of a streaming launch: one per ``walk`` rows of the outer loop."""
    outer = f"((_xmpacc_s_{loops[0].var}.count + {p.walk} - 1) / {p.walk})"
    return " * ".join([outer] + [f"_xmpacc_s_{lp.var}.count" for lp in loops[1:]])
