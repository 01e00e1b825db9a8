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
from collections.abc import Callable
from dataclasses import dataclass

from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.kernel import stream_rows, stream_vector
from xmpacc.passes.kernel.stream_planes import PlaneSum
from xmpacc.passes.kernel.stream_rows import RowIndex
from xmpacc.passes.kernel.stream_vector import VectorPlan

WHOLE_WALK_BLOCKS = 4   # kernels asking for at most this many blocks per SM get the whole-walk loop


def index32() -> bool:
    """Whether vector walks index in 32 bits where the arrays allow (``_rows32``);
    XMPACC_STREAM_INDEX32=0 in the compiler's environment keeps the 64-bit walk, for measurements."""
    return os.environ.get("XMPACC_STREAM_INDEX32", "1") != "0"


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
    vector: VectorPlan | None = None   # V points of the innermost loop per thread (stream_vector.py)
    vector_why: str = ""            # why not, where not
    sums: tuple[PlaneSum, ...] = ()  # windows of one plane's sums instead of its reads (stream_planes.py)


@dataclass(frozen=True)
class VectorCode:
    """C lines of the vector walk (stream_vector.py; templates/kernels.cu.j2).  One walk
    loads with 16-byte blocks where every access pattern of the thread's rows starts a
    block (``_xmpacc_al``), element by element where not (rows of a length that is no
    multiple of 4: ``shift`` first moves the thread's points into the loop's range).  The
    two load forms are branches of each step, not two walks: one walk's registers serve both,
    and the kernel keeps 4 blocks per SM (two walks in one kernel spilled there, and 3 blocks
    cost the aligned walk 9 % on an H200: 0.309 -> 0.338 ms per 512^3 fp32 sweep).

    ``narrow`` (index32, _rows32): the walk indexes in 32 bits from each array's local buffer
    where the kernel's test ``narrow`` holds, and the kernel's other path is the body as
    written, one point and one row at a time (``plain_row``; the program's last body in
    Kernel.vector_bodies): the streamed one-point fallback of the 64-bit form needs 61
    registers on its own, so with it the kernel would not fit the 40 of 6 blocks per SM."""

    lanes: int
    setup: list[str]         # the thread's first point and mask (from its group and the row's phase)
    rows: list[str]          # not in checked builds: row indices at the first point, the tests
    decls: list[str]         # the registers of the windows, the groups and the values
    scopes: list[str]        # opens the body's scope, one per point
    tail: list[str]          # the row indices and windows move down one plane
    point: str               # the fallback's point: the loop variable at point _xmpacc_e
    shift: list[str]         # element by element: every point an iteration (_Loads)
    blocks: str              # the test of 16-byte loads in the walk: the mask's bit ``lanes`` (one
                             # register for both tests: a flag of its own spilled at 4 blocks)
    first: tuple[list[str], list[str]]   # the window's first planes: (16-byte blocks, elements)
    step: tuple[list[str], list[str]]    # a step's loads: (16-byte blocks, elements)
    store: list[str]         # the four values, one 16-byte store where aligned and whole
    test: str                # when the vector walk serves (aligned, or a loop of 4 iterations or more)
    narrow: str = ""         # 32-bit element indices (index32): the test that they fit, "" where 64-bit
    next_row: str = ""       # with narrow: the walk's next row (the row indices move there), else WalkCode's
    plain_row: str = ""      # with narrow: the fallback's next row (the body as written, point by point)


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
    vector: VectorCode | None = None   # the vector walk, with this walk as its fallback


def _window_lines(ctype: str, regs: list[str], value: Callable[[int], str],
                  lines: tuple[list[str], list[str], list[str]]) -> None:
    """Append a window of registers' lines to (prologue, head, tail): the registers declared
    and all but the last slot loaded before the walk, the last slot (``value(slot)``) at each
    row, and the window moved down one slot after the body."""
    pro, head, tail = lines
    pro.append(f"{ctype} {', '.join(regs)};")
    pro += [f"{regs[k]} = {value(k)};" for k in range(len(regs) - 1)]
    head.append(f"{regs[-1]} = {value(len(regs) - 1)};")
    tail += [f"{regs[k]} = {regs[k + 1]};" for k in range(len(regs) - 1)]


def code(p: StreamPlan) -> WalkCode:
    s, v, t = f"_xmpacc_s_{p.var}", p.var, p.ctype
    pro = [f"long long _xmpacc_p0 = _xmpacc_rest * {p.walk};   /* this thread's first row */",
           f"{v} = ({t}) ({s}.first + _xmpacc_p0 * {s}.step);"]
    step = f"{v} = ({t}) ({s}.first + (_xmpacc_p0 + _xmpacc_w) * {s}.step);"
    head: list[str] = []
    pro_rows, row_tail = _row_indices(p, v, s)
    pro += pro_rows
    tail = list(row_tail)
    for g, w in enumerate(p.windows):
        _window_lines(w.ctype, [w.reg(g, k) for k in range(w.hi - w.lo + 1)],
                      lambda k, w=w: _load(p, w, v, w.lo + k), (pro, head, tail))
    for m, sums in enumerate(p.sums):   # windows of plane sums (stream_planes.py), after the reads'
        _window_lines(sums.ctype, [sums.reg(m, k) for k in range(sums.depth)], sums.text, (pro, head, tail))
    loop = f"for (int _xmpacc_w = 0; _xmpacc_w < {p.walk}; _xmpacc_w++)"
    whole = f"_xmpacc_p0 + {p.walk} <= {s}.count" if _whole_walk(p) else ""
    vector = _vector(p, p.vector, pro[:2], (pro_rows, row_tail)) if p.vector is not None else None
    return WalkCode(pro, loop,
                    f"if (_xmpacc_w > 0) {{ if (_xmpacc_p0 + _xmpacc_w >= {s}.count) break; {step} }}",
                    head, tail, whole=whole, next_row_whole=f"if (_xmpacc_w > 0) {step}",
                    min_blocks=p.min_blocks, fallback=p.fallback_blocks, vector=vector)


def _aligned(address: str) -> str:
    return f"(((unsigned long long) ({address})) & 15) == 0"


def _any_of(points: list[int], lanes: int) -> str:
    """C test that one of ``points`` is in the loop's range ("" when all are: always true
    where the vector walk runs)."""
    if len(points) == lanes:
        return ""
    return "(" + (" || ".join(f"(_xmpacc_mask >> {e} & 1)" for e in points) or "0") + ")"


def _vector(p: StreamPlan, v: VectorPlan, first_row: list[str],
            row_indices: tuple[list[str], list[str]]) -> VectorCode:
    """The vector walk's lines (stream_vector.py's docstring shows them); ``first_row``
    and ``row_indices`` (_row_indices) as the scalar walk has them."""
    iv, t, lanes, s0, ct = v.var, v.ivar_type, v.lanes, f"_xmpacc_s0_{v.var}", v.ctype
    narrow = narrow_rows(p.rows)

    def arr(array: str, row: int) -> str:
        """The array as the walk indexes it: in 32 bits, from its local buffer (_rows32)."""
        return f"_xmpacc_b{row}" if narrow else array
    setup = [f"const long long _xmpacc_g0 = {iv};   /* this thread's group of {lanes} points */",
             f"{iv} = ({t}) {s0}.first;", *first_row,
             "/* the row's first 16-byte block of the written array starts _xmpacc_phase points before its "
             "first iteration */",
             "const long long _xmpacc_phase = (long long) "
             f"(((unsigned long long) &{v.store_array}[{v.phase_at}] / sizeof({ct})) % {lanes});",
             f"long long _xmpacc_i0 = {s0}.first - _xmpacc_phase + _xmpacc_g0;",
             "int _xmpacc_mask = 0;   /* bit e: point e is an iteration of the loop */",
             f"for (int _xmpacc_e = 0; _xmpacc_e < {lanes}; _xmpacc_e++)",
             f"  if (_xmpacc_i0 + _xmpacc_e >= {s0}.first && "
             f"_xmpacc_i0 + _xmpacc_e < {s0}.first + {s0}.count) _xmpacc_mask |= 1 << _xmpacc_e;",
             ]
    var = p.var
    row_lines, row_tail = row_indices
    units = [f"_xmpacc_u{n} == 1" for n in range(len(p.rows))]
    # every plane step a whole number of blocks, every access pattern starting one
    starts = [f"_xmpacc_t{n} % {lanes} == 0" for n in range(len(p.rows))]
    starts.append(_aligned(f"&{arr(v.store_array, v.store_row)}[{v.store_at}]"))
    starts += [_aligned(f"&{arr(g.array, g.row)}[{g.at}]") for g in v.groups]
    starts += [_aligned(f"&{arr(p.windows[w].array, p.windows[w].row)}"
                        f"[{_index(p, p.windows[w], var, p.windows[w].lo)}]") for w in v.windows]
    if narrow:
        # every row steps by one element along i (_XMPACC_G/_XMPACC_L in the last subscript: the
        # flat subscript's last term is the index itself), and the kernel takes this form for loops
        # of ``lanes`` iterations or more (VectorCode.narrow): no _xmpacc_vec, no other test
        rows = [f"{iv} = ({t}) _xmpacc_i0;", *_rows32(p, v, var),
                f"const int _xmpacc_al = {' && '.join(starts)};"]
    else:
        rows = [f"{iv} = ({t}) _xmpacc_i0;", *row_lines, f"{iv} = ({t}) (_xmpacc_i0 + 1);   /* unit steps */"]
        rows += [f"const long long _xmpacc_u{n} = ({r.at(r.base, var)}) - _xmpacc_o{n};"
                 for n, r in enumerate(p.rows)]
        rows += [f"{iv} = ({t}) _xmpacc_i0;", f"const int _xmpacc_vec = {' && '.join(units) or '1'};",
                 f"const int _xmpacc_al = _xmpacc_vec && {' && '.join(starts)};"]
    # distances the vector walk reads through its groups' anchors instead (no -Wall noise)
    rows += [f"(void) _xmpacc_d{n}_{k};" for n, r in enumerate(p.rows) for k in range(len(r.distances))]
    # 32 bits: the row indices move at the next row, after its exit test (never past the last row)
    decls = [f"{ct} {', '.join(f'_xmpacc_y{e}' for e in range(lanes))};"]
    tail = [] if narrow else list(row_tail)
    pro, head = _Loads(ct, lanes), _Loads(ct, lanes)
    for w in v.windows:
        win = p.windows[w]
        depth = win.hi - win.lo + 1
        regs = [[f"_xmpacc_r{w}_{k}_{e}" for e in range(lanes)] for k in range(depth)]
        decls.append(f"{ct} {', '.join(r for row in regs for r in row)};")
        # element e of a window's row: point e reads it, and the points that read it at
        # i + c through a group sharing the row (stream_vector.Group.window), in any slot
        readers = [sorted({e} | {r for g in v.groups if g.window[0] == w for r in range(lanes)
                                 if e - r in g.offsets}) for e in range(lanes)]
        for k in range(depth - 1):
            pro.block(arr(win.array, win.row), _index(p, win, var, win.lo + k), regs[k], readers)
        head.block(arr(win.array, win.row), _index(p, win, var, win.hi), regs[-1], readers)
        tail += [f"{regs[k][e]} = {regs[k + 1][e]};" for k in range(depth - 1) for e in range(lanes)]
    for g in v.groups:
        own = [g.reg(m) for m in range(g.lo, g.hi + 1) if g.reg(m).startswith("_xmpacc_x")]
        if own:
            decls.append(f"{ct} {', '.join(own)};")
        for b in range(g.lo // lanes, g.hi // lanes + 1):
            if b == 0 and g.window[0] >= 0:
                continue   # the window's row (stream_vector.Group)
            needers = {m: [e for e in range(lanes) if m - e in g.offsets]
                       for m in range(b * lanes, (b + 1) * lanes)}
            needed = [m for m, who in needers.items() if who]
            if len(needed) == lanes:
                head.block(arr(g.array, g.row), f"({g.at}) + {b * lanes}", [g.reg(m) for m in needed],
                           [needers[m] for m in needed])
            else:
                for m in needed:
                    head.scalar(arr(g.array, g.row), f"({g.at}) + {m}", g.reg(m), needers[m])
    ys = ", ".join(f"_xmpacc_y{e}" for e in range(lanes))
    w_arr = arr(v.store_array, v.store_row)
    masked = [f"if (_xmpacc_mask >> {e} & 1) {w_arr}[({v.store_at}) + {e}] = _xmpacc_y{e};"
              for e in range(lanes)]
    store = [f"if (_xmpacc_mask == {(1 << lanes) - 1}) {_STORE[ct]}(&{w_arr}[{v.store_at}], {ys});",
             "else {", *(f"  {x}" for x in masked), "}"]
    # rows that are no multiple of 4 long: the thread's points moved into the loop's range,
    # where a neighbour computes some of them again (the same values: the body reads no
    # array it writes), so that every point is an iteration and no load or store needs a test
    end = f"{s0}.first + {s0}.count"
    shift = ["if (!_xmpacc_al) {   /* element by element: the points moved into the loop's range */",
             f"  const long long _xmpacc_sh = _xmpacc_i0 < {s0}.first ? {s0}.first - _xmpacc_i0 : "
             f"_xmpacc_i0 + {lanes} > {end} ? {end} - {lanes} - _xmpacc_i0 : 0;",
             "  _xmpacc_i0 += _xmpacc_sh;",
             *(f"  _xmpacc_o{n} += {'(int) ' if narrow else ''}_xmpacc_sh;" for n in range(len(p.rows))),
             f"  _xmpacc_mask = {(1 << (lanes + 1)) - 1};   /* bit {lanes}: element by element */", "}"]
    scopes = [f"{t} {iv} = ({t}) (_xmpacc_i0 + {e}); (void) {iv};" for e in range(lanes)]
    fits = next_row = plain_row = ""
    if narrow:
        s = f"_xmpacc_s_{p.var}"
        step = f"{p.var} = ({p.ctype}) ({s}.first + (_xmpacc_p0 + _xmpacc_w) * {s}.step);"
        moves = " ".join(f"_xmpacc_o{n} += _xmpacc_t{n};" for n in range(len(p.rows)))
        next_row = f"if (_xmpacc_w > 0) {{ if (_xmpacc_w >= _xmpacc_rows) break; {step} {moves} }}"
        plain_row = f"if (_xmpacc_p0 + _xmpacc_w >= {s}.count) break; {step}"
        # an element index of the walk is one of an element it reads or writes, or of its block's
        # other elements or of the group's ends: at most ``reach`` past the buffer's last element
        reach = max([abs(g.lo) for g in v.groups] + [abs(g.hi) for g in v.groups] + [0]) + 2 * lanes
        fits = " && ".join([*dict.fromkeys(f"_XMPACC_FITS32({r.desc}, {reach})" for r in p.rows),
                            f"{s0}.count >= {lanes}"])
    return VectorCode(lanes, setup, rows, decls, scopes, tail, f"{iv} = ({t}) (_xmpacc_i0 + _xmpacc_e);",
                      shift, f"!(_xmpacc_mask >> {lanes})", (pro.vector, pro.scalars),
                      (head.vector, head.scalars), store,
                      f"_xmpacc_vec && (_xmpacc_al || {s0}.count >= {lanes})", fits, next_row, plain_row)


def _origin(r: RowIndex) -> tuple[str, int]:
    """The element a 32-bit row index stands at: its base where an access reads or writes it at
    the row itself, else its first distance's (so that the index is always one of an element
    the walk touches, inside the buffer)."""
    return (r.base, 0) if r.base_read or not r.distances else r.distances[0]


def narrow_rows(rows: tuple[RowIndex, ...] | list[RowIndex]) -> bool:
    """Whether a vector walk over these row indices gets 32-bit element indices (_rows32):
    index32() and every row a flat subscript of an aligned array whose last index steps by
    one element."""
    return index32() and bool(rows) and \
        all(r.desc and r.ndims and stream_rows.unit_step(r.base) for r in rows)


def _local(subscript: str) -> str:
    """A subscript as an index into the array's local buffer: rebased arrays' subscripts
    (kernels.rebase_prologue) name global indices, _XMPACC_G(a, d, g) = g; _XMPACC_L is g's
    local index in that dimension (g - gtol), and the flat subscript is linear in the indices."""
    return subscript.replace("_XMPACC_G(", "_XMPACC_L(")


def _buffer(r: RowIndex) -> str:
    """The pointer to the first element of the array's local buffer: a rebased array's
    kernel pointer plus the offset the prologue took from it (the same arithmetic, so nvcc
    folds the two), anything else's pointer as it is."""
    if "_XMPACC_G(" not in r.base:
        return r.array
    d = r.desc
    gtols = [f"{d}.dim[{k}].gtol" for k in range(r.ndims)]
    off = gtols[0] if r.ndims == 1 else f"_XMPACC_AT{r.ndims}({d}, {', '.join(gtols)})"
    return f"{r.array} + ({off})"


def _rows32(p: StreamPlan, v: VectorPlan, var: str) -> list[str]:
    """The vector walk's row indices in 32 bits (index32): each an int index into the
    array's local buffer (``_xmpacc_b<n>``), its step and its distances ints as well.  The
    walk then needs one register per index, step and distance instead of two, and adds
    them to a pointer the kernel's parameters give, which nvcc does not keep in registers:
    on the 512^3 fp32 7-point sweep (nvcc 13, sm_90) 64 registers became 40 or fewer.
    An int holds every such value while the buffer has fewer than 2^31 elements
    (_XMPACC_FITS32, checked where the walk starts): an index is one of an element the walk
    reads or writes or at most a few past one, a step or a distance that of two elements of
    the buffer.  Steps and distances are differences of the 64-bit subscripts, as the 64-bit
    walk has them."""
    s = f"_xmpacc_s_{p.var}"
    left = f"{s}.count - _xmpacc_p0"
    out = [f"const int _xmpacc_rows = (int) ({left} < {p.walk} ? {left} : {p.walk});   /* its rows */"]
    for n, r in enumerate(p.rows):
        pattern, c = _origin(r)
        at = f"({r.at(pattern, _row(var, c))})"
        const = "" if r.array == v.store_array else "const "
        out.append(f"{const}{v.ctype} *const _xmpacc_b{n} = {_buffer(r)};   /* {r.array}'s local buffer */")
        out.append(f"int _xmpacc_o{n} = (int) {_local(at)};")
        after = r.at(pattern, _row(f"{var} + {s}.step", c))
        out.append(f"const int _xmpacc_t{n} = (int) (({after}) - {at});")
        base = (pattern, c) == (r.base, 0)
        out += [f"const int _xmpacc_d{n}_{k} = "
                f"{_near_text(r, n, k, base) or f'(int) (({r.at(dp, _row(var, dc))}) - {at})'};"
                for k, (dp, dc) in enumerate(r.distances)]
    return out


class _Loads:
    """One step's loads (or the walk's first planes) twice: as 16-byte blocks where every
    pattern starts one (``vector``: an element no iteration of the thread reads is loaded
    only inside a block with one that is read, the same 16 bytes, or under a test), and
    element by element where not (``scalars``: every point of the thread is an iteration
    there, see VectorCode.shift, so every load is one the program makes)."""

    def __init__(self, ctype: str, lanes: int) -> None:
        self.ctype, self.lanes = ctype, lanes
        self.vector: list[str] = []
        self.scalars: list[str] = []

    def block(self, array: str, index: str, regs: list[str], readers: list[list[int]]) -> None:
        load = f"{_LOAD[self.ctype]}(&{array}[{index}], {', '.join(regs)});"
        test = _any_of(sorted({e for who in readers for e in who}), self.lanes)
        self.vector.append(f"if ({test}) {load}" if test else load)
        self.scalars += [f"{reg} = _XMPACC_LDG(&{array}[({index}) + {k}]);" for k, reg in enumerate(regs)]

    def scalar(self, array: str, index: str, reg: str, readers: list[int]) -> None:
        test = _any_of(readers, self.lanes)
        load = f"{reg} = _XMPACC_LDG(&{array}[{index}]);"
        self.vector.append(f"if ({test}) {load}" if test else load)
        self.scalars.append(load)


_LOAD = {"float": "_XMPACC_LDV4F"}    # stream_vector.LANES's types
_STORE = {"float": "_XMPACC_STV4F"}


def _index(p: StreamPlan, w: Window, var: str, offset: int) -> str:
    """The element index of a window's row ``var + offset`` through its row index."""
    r = p.rows[w.row]
    return stream_rows.walked(w.row, r.distance(w.pattern, offset))


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
        pro += [f"const long long _xmpacc_d{n}_{k} = "
                f"{_near_text(r, n, k) or f'({r.at(pattern, _row(v, c))}) - {o}'};"
                for k, (pattern, c) in enumerate(r.distances)]
        tail.append(f"{o} += _xmpacc_t{n};")
    return pro + ["#endif"], tail + ["#endif"]


def _near_text(r: RowIndex, n: int, k: int, base: bool = True) -> str:
    """Distance k of row index n as an earlier one plus a literal (RowIndex.near), "" where it
    is not; the base's literal alone where the index stands at the base (``base``)."""
    near = r.near[k] if k < len(r.near) else None
    if near is None or (near[0] < 0 and not base):
        return ""
    ref, e = near
    return str(e) if ref < 0 else f"_xmpacc_d{n}_{ref} + {e}" if e >= 0 else f"_xmpacc_d{n}_{ref} - {-e}"


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
    inner = p.vector.var if p.vector is not None else ""   # a vector walk's threads: groups of points
    return " * ".join([outer] + [f"_xmpacc_s{'g' if lp.var == inner else ''}_{lp.var}.count"
                                 for lp in loops[1:]])


def host_setup(p: StreamPlan) -> str:
    """Host lines before the launch ("" but for vector walks: stream_vector.host_setup)."""
    return stream_vector.host_setup(p.vector) if p.vector is not None else ""
