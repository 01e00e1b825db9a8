"""Streaming stencil kernels: each GPU thread walks several rows of the outermost loop.

A ``loop (i, j) ... acc`` kernel normally runs one thread per iteration.  A stencil such as

    #pragma xmp loop (i, j) on t[i][j] acc
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < M - 1; j++)
        unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);

reads the rows ``u[i - 1][j]`` and ``u[i + 1][j]`` that the threads of rows i - 2 and
i + 2 read again.  When the nest is *streamable* (``plan``), the kernel instead runs one
thread per ``W`` consecutive outer iterations (W, the walk length, a compile-time constant)
and keeps a sliding window of the re-read rows in registers:

    r0 = ldg(&u[i0 - 1][j]); r1 = ldg(&u[i0][j]);           /* before the walk       */
    for (w = 0; w < W; w++) {                                /* unrolled              */
      if (w > 0) { if (p0 + w >= count) break; i = ...; }
      r2 = ldg(&u[i + 1][j]);                                /* the one new row       */
      do { unew[i][j] = 0.25 * (r0 + r2 + u[i][j - 1] + u[i][j + 1]); } while (0);
      r0 = r1; r1 = r2;                                      /* register renames      */
    }

so each windowed element is loaded once per thread instead of once per reader.  Window
loads go through the read-only data path (``_XMPACC_LDG``: ``__ldg`` on the GPU); the
kernel parameters of read-only arrays are already ``const __restrict__`` (kernels.py).
The subscripts of aligned arrays move with the walk (stream_rows.py: one index per array
computed once, plus a constant per row), so a nest with nothing to keep in registers
streams too: its index arithmetic, not its loads, was what bounded it (a 3-D copy ran
2.5x faster).  Streaming kernels carry ``__launch_bounds__`` (``min_blocks``).

Legality (conservative; anything else keeps the one-thread-per-iteration mapping):
* two or more distributed loops, the outermost upward with step 1, no lane split
  (lanes.py); a reduction variable is a per-thread accumulator, so a thread adds its
  ``W`` rows before the warp combines (the order of a floating-point sum changes);
* the body is straight-line code: no loops, switch, goto, labels or return;
* it assigns no loop variable and no replicated scalar (shared by all threads);
* every array it writes is written through subscripts that name the walked variable
  bare (``a[i][j]``, not ``a[i + 1][j]`` nor ``b[j]``: those would make two rows of one
  thread's walk, or two threads, touch one element), all writes of one array at one
  subscript, and the body reads a written array only at that same subscript (no
  loop-carried dependence through the walked dimension);
* windows hold only arrays the kernel never writes, read unconditionally (not under an
  ``if``, ``?:`` or the right operand of ``&&``/``||``), at ``i + c`` (c an integer
  constant) in one subscript and the walked variable nowhere else.  Distinct replicated
  arrays never share device memory, so a window cannot go stale (no aliasing).

``XMPACC_STREAM=0`` in the compiler's environment turns streaming off (the fallback
mapping, for comparisons); ``XMPACC_STREAM_WALK=W`` fixes the walk length,
``XMPACC_STREAM_MINBLOCKS=B`` the blocks per SM of ``__launch_bounds__`` (0: none),
``XMPACC_STREAM_INDEX32=0`` keeps vector walks' indices in 64 bits (stream_walk._rows32).
"""

from __future__ import annotations

import copy
import dataclasses
import os

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import InternalError
from xmpacc.facts import elem_size
from xmpacc.passes.common.accesses import text_value
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.common.loopsched import CyclicLoop
from xmpacc.passes.common.values import KernelVars
from xmpacc.passes.kernel import stream_planes, stream_rows, stream_vector
from xmpacc.passes.kernel.stream_rows import names, walked_slot, with_row
from xmpacc.passes.kernel.stream_walk import StreamPlan, Window, code, narrow_rows

_NOT_STRAIGHT = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch, c_ast.Goto, c_ast.Label,
                 c_ast.Return, c_ast.Break)
_LDG_TYPES = {"double", "float", "int", "unsigned", "long long", "unsigned int", "unsigned long long",
              "long long int", "short", "char", "signed char", "unsigned char", "unsigned short"}
GPU_THREADS = 132 * 2048 * 8    # about eight waves of an H100/H200: enough threads to hide latency


class NotStreamable(Exception):
    """Why a nest keeps the one-thread-per-iteration mapping."""


def enabled() -> bool:
    return os.environ.get("XMPACC_STREAM", "1") != "0"


def _base(ref: c_ast.ArrayRef) -> str | None:
    node = cbuild.array_base(ref)
    return node.name if isinstance(node, c_ast.ID) else None


def _refs(body: c_ast.Node) -> tuple[list[c_ast.ArrayRef], list[tuple[c_ast.ArrayRef, bool]]]:
    """(written outermost ArrayRefs, [(read outermost ArrayRef, unconditional)])."""
    writes: list[c_ast.ArrayRef] = []
    reads: list[tuple[c_ast.ArrayRef, bool]] = []

    def visit(node: c_ast.Node | None, cond: bool, lvalue: bool) -> None:
        if node is None:
            return
        if lvalue and isinstance(node, c_ast.StructRef):   # a[i].x = ...: a write of a[i]
            visit(node.name, cond, True)
            return
        if isinstance(node, c_ast.ArrayRef):
            if lvalue:
                writes.append(node)
            else:
                reads.append((node, not cond))
            for inner in cbuild.subscript_chain(node):
                visit(inner.subscript, cond, False)
            return
        if isinstance(node, c_ast.Assignment):
            visit(node.lvalue, cond, True)
            if node.op != "=" and isinstance(node.lvalue, c_ast.ArrayRef):
                reads.append((node.lvalue, not cond))
            visit(node.rvalue, cond, False)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&"):
            if isinstance(node.expr, c_ast.ArrayRef):
                writes.append(node.expr)
                reads.append((node.expr, not cond))
            visit(node.expr, cond, True)
        elif isinstance(node, c_ast.If):
            visit(node.cond, cond, False)
            visit(node.iftrue, True, False)
            visit(node.iffalse, True, False)
        elif isinstance(node, c_ast.TernaryOp):
            visit(node.cond, cond, False)
            visit(node.iftrue, True, False)
            visit(node.iffalse, True, False)
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            visit(node.left, cond, False)
            visit(node.right, True, False)
        else:
            for _name, child in node.children():
                visit(child, cond, False)

    visit(body, False, False)
    return writes, reads


def _check_writes(writes: list[c_ast.ArrayRef],
                  reads: list[tuple[c_ast.ArrayRef, bool]], var: str) -> set[str]:
    """The written arrays; raises when a write or a read of a written array breaks the rules."""
    subscript: dict[str, str] = {}
    for ref in writes:
        name = _base(ref)
        slot = walked_slot(ref, var)
        if name is None or slot is None or slot[1] != 0:
            raise NotStreamable(f"'{cbuild.to_c(ref)}' is written without the walked index '{var}' bare")
        text = cbuild.to_c(ref)
        if subscript.setdefault(name, text) != text:
            raise NotStreamable(f"'{name}' is written at two different subscripts")
    for ref, _u in reads:
        name = _base(ref)
        if name in subscript and cbuild.to_c(ref) != subscript[name]:
            raise NotStreamable(f"'{name}' is written and read at another subscript")
    return set(subscript)


def _windows(reads: list[tuple[c_ast.ArrayRef, bool]], var: str, elem: dict[str, str | None],
             written: set[str], assigned: set[str]
             ) -> tuple[list[Window], dict[int, tuple[int, int]], list[c_ast.ArrayRef]]:
    """Window per read-only pattern read at two or more offsets; id(ref) -> (window, slot);
    a reference of each window.  ``elem``: each device array's element type."""
    groups: dict[tuple[str, str], list[tuple[c_ast.ArrayRef, int]]] = {}
    for ref, unconditional in reads:
        name = _base(ref)
        if not unconditional or name not in elem or name in written or elem[name] is None:
            continue
        slot = walked_slot(ref, var)
        if slot is None or names(ref) & assigned:
            continue
        pattern = with_row(ref, slot[0])
        groups.setdefault((name, cbuild.to_c(pattern)), []).append((ref, slot[1]))
    windows: list[Window] = []
    first: list[c_ast.ArrayRef] = []
    # every other read of a read-only array goes through the read-only path: (-1, 0)
    where: dict[int, tuple[int, int]] = {id(ref): (-1, 0) for ref, _u in reads
                                         if _base(ref) in elem and _base(ref) not in written
                                         and elem[_base(ref)] in _LDG_TYPES}
    for (name, load), refs in groups.items():
        offsets = {c for _r, c in refs}
        if len(offsets) < 2:
            continue   # nothing is re-read along the walk: a plain load is as good
        lo, hi = min(offsets), max(offsets)
        ctype = elem[name] or ""
        windows.append(Window(name, ctype, lo, hi, load, ctype in _LDG_TYPES))
        first.append(refs[0][0])
        for ref, c in refs:
            where[id(ref)] = (len(windows) - 1, c - lo)
    return windows, where, first


def _with_rows(windows: list[Window], first: list[c_ast.ArrayRef], moved: dict[int, tuple[int, int]],
               var: str) -> list[Window]:
    """The windows whose array has a row index, loading through it."""
    out = []
    for w, ref in zip(windows, first, strict=True):
        slot = walked_slot(ref, var)
        if id(ref) in moved and slot is not None:
            w = dataclasses.replace(w, row=moved[id(ref)][0], pattern=stream_rows.pattern_of(ref, slot[0]))
        out.append(w)
    return out


def _elem_type(rep: object) -> str | None:
    """The element type's names of a device array, None for arrays of structs."""
    decl = rep.decl  # type: ignore[attr-defined]
    t = decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    names = getattr(t.type, "names", None)
    return " ".join(names) if names else None


def _check_body(body: c_ast.Node, loops: list[CanonicalLoop], kv: KernelVars) -> set[str]:
    """Names the body assigns; raises when the body is not straight-line code or assigns
    a loop variable or a shared scalar."""
    assigned: set[str] = set()
    for node in cbuild.walk(body):
        if isinstance(node, _NOT_STRAIGHT):
            raise NotStreamable(f"the body has a '{type(node).__name__.lower()}'")
        if isinstance(node, c_ast.Decl) and "static" in (node.storage or []):
            # the walk's template writes the body twice (stream_walk.py): two variables
            raise NotStreamable(f"the body declares the static variable '{node.name}'")
        target = node.lvalue if isinstance(node, c_ast.Assignment) else (
            node.expr if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&")
            else None)
        if isinstance(target, c_ast.ID):
            assigned.add(target.name)
        if isinstance(target, c_ast.UnaryOp) and target.op == "*":
            raise NotStreamable("the body writes a replicated scalar, which all threads share")
        if isinstance(node, c_ast.Decl) and node.name:
            assigned.add(node.name)
    bad = assigned & {lp.var for lp in loops}
    if bad:
        raise NotStreamable(f"the body assigns the loop variable '{sorted(bad)[0]}'")
    return assigned


SMALL_STATE = 16   # 64-bit index values (row indices, steps, distances) of a "small" kernel
# a vector kernel's __launch_bounds__ blocks per SM and the fallback where it spills (min_blocks):
# its windows and values hold V elements each; its walk (16-byte or element-by-element loads,
# stream_walk.VectorCode) and its one-point fallback fit 64 registers (nvcc 13, sm_90: the
# 512^3 7-point kernel).  On one H200 that sweep took 0.309 ms at 4 blocks, 0.338 at 3.
VECTOR_BLOCKS = (4, 3)
# the same with 32-bit element indices (stream_walk._rows32, XMPACC_STREAM_INDEX32): the walk
# and its fallback (the body as written) fit 40 registers without spilling, 6 blocks of 256
# (the 512^3 7-point fp32 kernel, nvcc 13, sm_90: 40 unbounded; at 8 blocks, 32 registers,
# it spills about 100 bytes); where the runtime finds a spill, the 64-register setting
VECTOR_BLOCKS_32 = (6, 4)


NARROW = {"float", "int", "unsigned", "unsigned int"}   # 4-byte elements


PLANE_SUM_BLOCKS = (5, 4)   # blocks per SM of a walk keeping plane sums of 8-byte elements, and its fallback
WIDE_WINDOWS = 128   # bytes of window registers per thread above which an 8-byte kernel asks for 3 blocks


def min_blocks(rows: tuple[stream_rows.RowIndex, ...] = (), narrow: bool = False,
               vector: bool = False, window_bytes: int = 0, sums: bool = False) -> tuple[int, int]:
    """Blocks of 256 threads per SM that a streaming kernel's registers must allow
    (``__launch_bounds__``), and the fallback where that makes the kernel spill (0: none;
    the runtime looks at each such kernel after NVRTC and rebuilds the ones with local
    memory at the fallback, runtime/device.py).  The index state the walk keeps live
    decides: a kernel with at most SMALL_STATE 64-bit index values asks for 8 (32
    registers: every warp slot of an SM), else 2.  Measured on H200: the 7-point Jacobi
    512^3 (2 arrays, 8 index values) takes 38 registers unbounded, 75 % occupancy, and is
    5 % faster at 8 (30 registers, no spill); the Himeno L sweep (13 arrays, 41 index
    values, 96 registers unbounded) is 1.3x faster at 2 than unbounded, and 3 or 4 spill
    and are slower; Laplace does not move.  A small kernel of a deep nest whose windows hold
    4-byte elements (``narrow``) asks for 4, which gives nvcc the registers to start the
    walk's loads early in its whole-walk form (stream_walk.py): the 3-D 7-point 512^3 fp32
    sweep took 0.341 ms against 0.375 at 8 (one H200, the same job; fp64 was slower at 4,
    0.619 ms against 0.592: its 8-byte rows fill the registers).  A 4-byte row keeps half
    the bytes in flight of an 8-byte one, which is what bounds that sweep.  A ``vector``
    kernel (stream_vector.py) asks for VECTOR_BLOCKS, VECTOR_BLOCKS_32 where its walk indexes in
    32 bits (stream_walk.narrow_rows).  XMPACC_STREAM_MINBLOCKS=B forces B.

    A distance written as another one plus a literal (RowIndex.near) is no index state: nvcc
    folds it into the loads' address offsets.  Counted so, the 3-D 27-point sweep (9 windows,
    26 distances, 8 of them independent) is small; its window registers then decide: 27 fp32
    values fit 4 blocks (64 registers, 0.511 ms per 512^3 sweep on one H200 against 0.609 at
    2 and 0.551 at 3), 27 fp64 values (``window_bytes`` above WIDE_WINDOWS) fit 3 (80
    registers, no spill: 0.896 ms against 0.923 at 2; 4 spills, 0.935) in one job
    (bench/results/stream-knobs-near-2026-11-29-NVIDIA-H200.txt).

    A walk that keeps plane sums (``sums``, stream_planes.py) holds fewer values across rows
    than its windows' bytes say, but loads every read of each new plane: with 8-byte
    elements it asks for PLANE_SUM_BLOCKS.  The fp64 27-point sweep keeps 9 values instead of
    27 and, 512^3 on one H200 in one job, took 0.788 ms at 5 blocks per SM (48 registers,
    no spill) against 0.858 at 4, 0.798 at 6, 0.915 at 3 and 0.899 for the walk that keeps
    the reads at its 3 (bench/results/stream-knobs-planes-2026-11-30-NVIDIA-H200.txt); the
    hand-written walk took 0.715.  With 4-byte elements it asks for what ``narrow`` asks."""
    forced = os.environ.get("XMPACC_STREAM_MINBLOCKS", "")
    if forced.isdigit():
        return int(forced), 0
    if vector:
        return VECTOR_BLOCKS_32 if narrow_rows(rows) else VECTOR_BLOCKS
    state = sum(2 + r.independent for r in rows)
    if state > SMALL_STATE:
        return 2, 0
    if narrow:
        return 4, 2
    if sums:
        return PLANE_SUM_BLOCKS
    return (3, 2) if window_bytes > WIDE_WINDOWS else (8, 2)


def walk_length(loops: list[CanonicalLoop], span: int, lanes: int = 1, windows: int = 0) -> int:
    """Outer iterations per thread: long enough to amortise the ``span`` extra rows of
    each window (4 rows for a 2-D nest, 8 for deeper ones), short enough to leave about
    eight waves of threads on the GPU and two rows per thread at least.  A nest without a
    window (span 0: it streams for its index arithmetic) walks 4 rows: nothing to
    amortise, and 4 independent loads per thread are what a copy needs
    (bench/copy_shapes.py, one H200, the interior copy of a 257 x 257 x 513 float array
    in 256 x 1 blocks: 80.2 us walking 2 rows, 77.9 walking 4, 84.3 walking 8, 112.0 one
    point per thread).  A vector kernel's thread computes ``lanes`` points of each row
    (stream_vector.py): fewer threads for the same walk; with a single window it walks 4
    rows as well: the 3-D 7-point fp32 sweep of 512^3 took 0.2943 ms walking 4 against
    0.2956 walking 8 (one H200 of two; 0.2955 / 0.2971 and 0.2959 / 0.2975 in two earlier jobs),
    where the 27-point one, nine windows, took 0.656 against 0.505
    (bench/results/stream-knobs-walk-2026-11-30-NVIDIA-H200-x2.txt)."""
    forced = os.environ.get("XMPACC_STREAM_WALK")
    if forced and forced.isdigit() and int(forced) > 0:
        return int(forced)
    walk = 4 if len(loops) == 2 or span == 0 or (lanes > 1 and windows == 1) else 8
    walk = max(walk, 2 * span)
    extents = [_extent(lp) for lp in loops]
    if all(e is not None for e in extents):
        cells = 1
        for e in extents:
            cells *= e or 1
        cells //= lanes
        while walk > 2 and (cells // walk < GPU_THREADS or (extents[0] or 0) < 2 * walk):
            walk //= 2
    return walk


def _extent(lp: CanonicalLoop) -> int | None:
    first, last = text_value(lp.init), text_value(lp.last)
    return None if first is None or last is None else abs(last - first) + 1


def block_threads(loops: list[CanonicalLoop]) -> int:
    """Threads per block along the innermost loop: the runtime's 256 unless the innermost
    extent is known and shorter (no idle warps on narrow grids)."""
    inner = _extent(loops[-1])
    if inner is None or inner >= 256:
        return 0
    t = 32
    while t < inner:
        t *= 2
    return t


def _check_cyclic(walked: str, cyclic: tuple[CyclicLoop, ...]) -> None:
    """Loops over cyclic dimensions (loopsched.CyclicLoop): the walk slides its window one
    row of the source per step, but this node's rows of a cyclic dimension are P apart
    (plain cyclic: the schedule's step is P times the loop's) or no progression at all
    (cyclic(w)); and the walk has no test for threads that idle off a cyclic(w) loop's
    progression."""
    for c in cyclic:
        if c.var == walked:
            kind = "cyclic(w)" if c.by_position else "cyclic"
            raise NotStreamable(f"the loop of '{walked}' is over a {kind} dimension: "
                                "this node's rows are not consecutive")
        if c.progression:
            raise NotStreamable(f"the loop of '{c.var}' over a cyclic(w) dimension "
                                "may step past owned indices")


Sites = dict[int, tuple[int, int]]   # id of a node -> (window or index or sum, register or offset)


def plan(body: c_ast.Node, loops: list[CanonicalLoop], types: list[str], kv: KernelVars,
         lane_split: bool, cyclic: tuple[CyclicLoop, ...] = ()
         ) -> tuple[StreamPlan | None, Sites, Sites, Sites, str]:
    """The streaming plan of a device body (after kernels.device_body), the windowed reads
    (id of the ArrayRef -> (window, register)), the references that use a row index
    (id -> (index, row offset)), the subtrees its plane sums replace (id -> (sum, slot),
    stream_planes.py), and why when there is no plan."""
    try:
        if not enabled():
            raise NotStreamable("XMPACC_STREAM=0")
        if len(loops) < 2:
            raise NotStreamable("a single distributed loop has no rows to reuse")
        if lane_split:
            raise NotStreamable("the inner loop is split over lanes")
        outer = loops[0]
        if not outer.upward or text_value(outer.step) != 1:
            raise NotStreamable(f"the loop of '{outer.var}' does not go up by 1")
        _check_cyclic(outer.var, cyclic)
        assigned = _check_body(body, loops, kv)
        writes, reads = _refs(body)
        written = _check_writes(writes, reads, outer.var)
        aligned = {r.name for r in kv.arrays if r.array is not None}
        elem = {r.name: _elem_type(r) for r in kv.arrays}
        windows, where, first = _windows(reads, outer.var, elem, written, assigned)
        extra = [(ref, range(w.lo, w.hi + 1)) for ref, w in zip(first, windows, strict=True)]
        rows, moved = stream_rows.plan(writes + [r for r, _u in reads], outer.var, aligned, assigned, extra)
        windows = _with_rows(windows, first, moved, outer.var)
        if not windows and not rows:
            raise NotStreamable("no array is re-read along the outer loop, no subscript moves with it")
        if any(id(ref) in where for ref in writes):
            raise InternalError("a written element got a read-only load")
    except NotStreamable as why:
        return None, {}, {}, {}, str(why)
    span = max((w.hi - w.lo for w in windows), default=0)
    spans = [(w.lo, w.hi, w.row) for w in windows]
    vector, why = stream_vector.plan(body, loops, types, kv, cyclic, spans, where, moved, reads, elem) \
        if windows else (None, "no window")
    # a one-point walk keeps sums of a plane's reads where the body has them (stream_planes.py)
    sums, at = stream_planes.plan(body, windows, where) if vector is None else ((), {})
    wide = sum((w.hi - w.lo + 1) * (elem_size(w.ctype) or 8) for w in windows)
    blocks = min_blocks(tuple(rows), _narrow(windows, loops), vector is not None, wide, bool(sums))
    walk = walk_length(loops, span, vector.lanes if vector else 1, len(windows))
    return StreamPlan(walk, outer.var, types[0],
                      tuple(windows), block_threads(loops), tuple(rows), *blocks, vector=vector,
                      vector_why=why if vector is None else "", sums=sums), \
        where, moved, at, "streamed"


def _narrow(windows: list[Window], loops: list[CanonicalLoop]) -> bool:
    """A nest of three or more loops whose windows all hold 4-byte elements (min_blocks)."""
    return len(loops) >= 3 and bool(windows) and all(w.ctype in NARROW for w in windows)


def substitute(body: c_ast.Node, where: Sites, moved: Sites, p: StreamPlan, at: Sites) -> c_ast.Node:
    """The body with each windowed read replaced by its register, subscripts that have a
    row index using it, and the other reads of read-only arrays by read-only loads (in place);
    each subtree a plane sum replaces (``at``) by the sum's register (stream_planes.py)."""
    def fix(node: c_ast.Node) -> c_ast.Node | None:
        hit = where.get(id(node))
        if hit is not None and hit[0] >= 0:
            return c_ast.ID(f"_xmpacc_r{hit[0]}_{hit[1]}", node.coord)
        if id(node) in moved:
            stream_rows.subscript(node, *moved[id(node)])  # type: ignore[arg-type]
        if hit is None:
            return None
        return c_ast.FuncCall(c_ast.ID("_XMPACC_LDG"), c_ast.ExprList([c_ast.UnaryOp("&", node)]), node.coord)
    return stream_planes.substitute(body, at, p.sums, fix) if p.sums else cbuild.transform(body, fix)


def attach(kernel: object, loops: list[CanonicalLoop], types: list[str], kv: KernelVars,
           lane_split: bool, cyclic: tuple[CyclicLoop, ...] = ()) -> StreamPlan | None:
    """Turn ``kernel`` (values.Kernel, body already on the device) into a streaming kernel
    when its nest allows; records the outcome in ``kernel.info['stream']``."""
    p, where, moved, at, why = plan(kernel.body, loops, types, kv, lane_split, cyclic)  # type: ignore[attr-defined]
    kernel.info["stream"] = why  # type: ignore[attr-defined]
    if p is None:
        return None
    walk = code(p)
    if p.vector is not None:   # the body once per point, from the body as written (stream_vector.py)
        regs = {ref: slot for ref, (g, slot) in where.items() if g >= 0}
        kernel.vector_bodies = stream_vector.copies(kernel.body, p.vector, regs)  # type: ignore[attr-defined]
        if walk.vector is not None and walk.vector.narrow:
            # and the body as written, the 32-bit walk's fallback (stream_walk.VectorCode.plain_row)
            kernel.vector_bodies.append(copy.deepcopy(kernel.body))  # type: ignore[attr-defined]
        kernel.params = stream_vector.params(kernel.params, p.vector)  # type: ignore[attr-defined]
    kernel.body = substitute(kernel.body, where, moved, p, at)  # type: ignore[attr-defined]
    kernel.walk = walk  # type: ignore[attr-defined]
    windows = ", ".join(f"{w.array}[{p.var}{w.lo:+d}..{p.var}{w.hi:+d}]" for w in p.windows) or "none"
    points = f", {p.vector.lanes} points of '{p.vector.var}' each" if p.vector is not None else ""
    sums = (f" (with {len(p.sums)} window{'s' if len(p.sums) > 1 else ''} of plane sums in place of "
            "the reads they add)") if p.sums else ""   # stream_planes.py
    kernel.info["stream"] = (  # type: ignore[attr-defined]
        f"streamed: {p.walk} rows of '{p.var}' per thread{points}, windows {windows}{sums}")
    kernel.info["stream_plan"] = p  # type: ignore[attr-defined]
    kernel.info["vector"] = "vector" if p.vector is not None else p.vector_why  # type: ignore[attr-defined]
    # --info: one entry per array (a window per other subscript: p[i-1..i+1] of p[.][j+1][k] and p[.][j][k])
    counts: dict[str, int] = {}
    for w in p.windows:
        text = f"{w.array}[{p.var}{w.lo:+d}..{p.var}{w.hi:+d}]"
        counts[text] = counts.get(text, 0) + 1
    said = ", ".join(t if n == 1 else f"{t} ({n} windows)" for t, n in counts.items()) or "none"
    said += sums
    kernel.info["stream_walk"] = (p.walk, p.var, said, p.vector.lanes if p.vector else 1)  # type: ignore[attr-defined]
    return p
