"""Outlining one ``loop ... acc`` into a kernel and its host-side launch (reference §7.4).

Before:                                      After, host C:
    #pragma xmp loop on t(i) acc                 { _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(...);
    for (i = 0; i < N; i++)                        long long _xmpacc_total = _xmpacc_s_i.count;
      x[i] += v[i] * DT;                           _xmpacc_launch("f.c:42", "_xmpacc_loop_f_c_42",
                                                       _xmpacc_total, 256, 5, (void *[]){...},
                                                       (const long long []){...}); }
                                             and in prog.cu:
    _XMPACC_KERNEL _xmpacc_loop_f_c_42(long long _xmpacc_total, _xmpacc_sched_t _xmpacc_s_i,
        double *x, _xmpacc_array_t _xmpacc_a_x, double *v, _xmpacc_array_t _xmpacc_a_v)
    { long long _xmpacc_tid = _XMPACC_TID; if (_xmpacc_tid >= _xmpacc_total) return;
      int i = ...;  do { x[...] += v[...] * 0.01; } while (0); }

One thread per local iteration; the innermost distributed loop varies fastest.  Each
parameter travels with a kind (runtime/contract.py: LAUNCH_*) telling the runtime what to
hand the kernel: a host value, the device copy of a replicated variable, the device copy of
a descriptor, or a fresh buffer of per-thread reduction partials.
"""

from __future__ import annotations

import copy
import dataclasses

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of
from xmpacc.diagnostics import InternalError, XmpError
from xmpacc.kernel_types import Typedefs
from xmpacc.passes.common.accesses import text_value
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.common.loopsched import CyclicLoop
from xmpacc.passes.common.values import Kernel, KernelVars, LanePlan, Param
from xmpacc.passes.kernel.stream_rows import walked_slot
from xmpacc.runtime.contract import (
    LAUNCH_DEVBUF,
    LAUNCH_DEVDESC,
    LAUNCH_GRID2,
    LAUNCH_LANES,
    LAUNCH_PUSH,
    LAUNCH_READS,
    LAUNCH_REDUCTION,
    LAUNCH_VALUE,
    LAUNCH_WRITES,
    REDUCTION_OPS,
    REDUCTION_TO_HOST,
)


def base_type_names(decl_type: c_ast.Node) -> list[str]:
    t = decl_type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    return list(getattr(t.type, "names", []) or [])


def check_device_type(name: str, decl_type: c_ast.Node, where: c_ast.Node, typedefs: Typedefs) -> None:
    """A kernel's scalar: arithmetic, or a struct, union or enum of the file (kernel_types.py
    puts its definition in the kernel file); an anonymous struct has no name to declare it."""
    t = decl_type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    names = base_type_names(decl_type)
    if typedefs.is_type(names) \
            or (isinstance(t.type, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and t.type.name):
        return
    shown = " ".join(names) if names else "an anonymous struct or union"
    raise XmpError(loc_of(where), f"'{name}' has type '{shown}', which the GPU kernel file cannot declare "
                                  "(a type of a system header other than <stdint.h>'s and <stddef.h>'s)")


def declaration(decl: c_ast.Decl, name: str, pointer: bool = False, drop_outer_dim: bool = False) -> str:
    """``decl``'s type declaring ``name`` (as a pointer, or as a pointer to its rows)."""
    t = copy.deepcopy(decl.type)
    if drop_outer_dim:
        t = c_ast.PtrDecl([], t.type)
    elif pointer:
        t = c_ast.PtrDecl([], t)
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = name
    inner.quals = [q for q in inner.quals if q != "const"]  # device copies and locals are written
    return cbuild.to_c(c_ast.Decl(name, [], [], [], [], t, None, None))


def pointer_to(elem_type: c_ast.Node, name: str) -> str:
    """``elem_type *name`` (an element, or a row of constant lengths), not const."""
    return declaration(c_ast.Decl(name, [], [], [], [], copy.deepcopy(elem_type), None, None), name,
                       pointer=True)


def identity(op: str, type_names: list[str]) -> str:
    floating = bool({"float", "double"} & set(type_names))
    ctype = " ".join(type_names)
    if op in ("+", "-", "|", "^", "||"):
        return "0"
    if op in ("*", "&&"):
        return "1"
    if op == "&":
        return f"(({ctype}) ~({ctype}) 0)"
    top = f"(({ctype}) 1 << (8 * sizeof({ctype}) - 1))"
    unsigned = "unsigned" in type_names
    if op == "max":
        return "(-_XMPACC_INF)" if floating else ("0" if unsigned else f"(({ctype}) {top})")
    if op == "min":
        return "_XMPACC_INF" if floating else (f"(({ctype}) ~({ctype}) 0)" if unsigned
                                               else f"(({ctype}) ~{top})")
    raise InternalError(f"no identity for reduction '{op}'")


def block_rows(loops: list[CanonicalLoop], body: c_ast.Node) -> int:
    """Threads per block along y of a 2-D grid (the runtime makes the block 256 / rows
    wide).  Nests of three or more loops whose body reads a neighbouring row (``j + c``,
    c != 0, for the second innermost variable j) get 4 rows: a 64 x 4 block keeps the rows
    j - 1, j, j + 1 that a 3-D stencil reads in one block's L1 cache, where a 256 x 1 block
    reads them through L2 (bench/results/stencil-*: 512^3 Jacobi 0.568 ms with 64 x 4,
    0.608 with 128 x 1).  Without such a read there is nothing to share and a 256 x 1
    block streams best (bench/copy_shapes.py, one H200, the interior copy of a 257 x 257 x
    513 float array: 77.9 us with 256 x 1 blocks, 86.4 with 64 x 4, 4 rows of i per
    thread in both).  One row too when the innermost loop is shorter than 64.  A block size
    the program gives keeps these rows where it gives no rows itself (block_shape.py)."""
    if len(loops) < 3 or not _reads_neighbour_row(body, loops[-2].var):
        return 1
    first, last = text_value(loops[-1].init), text_value(loops[-1].last)
    if first is not None and last is not None and abs(last - first) + 1 < 64:
        return 1
    return 4


def _reads_neighbour_row(body: c_ast.Node, var: str) -> bool:
    """Whether some array subscript of the device body is ``var + c`` with c != 0."""
    return any(slot is not None and slot[1] != 0
               for slot in (walked_slot(n, var) for n in cbuild.walk(body) if isinstance(n, c_ast.ArrayRef)))


def build_params(loops: list[CanonicalLoop], kv: KernelVars, lanes: bool = False, rows: int = 1,
                 cyclic: tuple[CyclicLoop, ...] = (), to_host: bool = False) -> list[Param]:
    """``to_host``: the scalar reductions' results go to the host variables even where a
    device copy holds them (XMP-ACC's loop ... acc, NestSpec.to_host)."""
    params = [Param("_xmpacc_total", "long long _xmpacc_total", "&_xmpacc_total", LAUNCH_VALUE,
                    "sizeof(long long)")]
    if lanes:  # chosen by the runtime at each launch
        params.append(Param("_xmpacc_lanes_arg", "int _xmpacc_lanes_arg", "0", LAUNCH_LANES))
    elif len(loops) > 1:  # the runtime may launch a 2-D grid: blockIdx.y walks the outer loops
        params.append(Param("_xmpacc_grid2", "int _xmpacc_grid2", "0", LAUNCH_GRID2,
                            str(len(loops)), str(rows)))
    params += [Param(f"_xmpacc_s_{lp.var}", f"_xmpacc_sched_t _xmpacc_s_{lp.var}", f"&_xmpacc_s_{lp.var}",
                     LAUNCH_VALUE, "sizeof(_xmpacc_sched_t)") for lp in loops]
    # after every schedule: the runtime finds the innermost one at the LAUNCH_GRID2 slot + n
    params += [Param(f"_xmpacc_m_{p.var}", f"_xmpacc_posmap_t _xmpacc_m_{p.var}", f"&_xmpacc_m_{p.var}",
                     LAUNCH_VALUE, "sizeof(_xmpacc_posmap_t)") for p in cyclic if p.by_position]
    for rep in kv.arrays:
        if rep.array is not None:
            # distinct replicated variables never share device memory: restrict is safe,
            # and const on arrays the body only reads lets loads use the read-only path
            elem_type = _renamed(rep.array.elem_type, rep.name)
            if rep.name not in kv.written_arrays:
                elem_type.quals = list(elem_type.quals) + ["const"]
            elem = cbuild.to_c(c_ast.Decl(rep.name, [], [], [], [],
                                          c_ast.PtrDecl(["_XMPACC_RESTRICT"], elem_type), None, None))
            params.append(Param(rep.name, elem, rep.key, LAUNCH_DEVBUF, _use(rep.name, kv)))
            # by value: kernel parameters live in constant memory, the fastest place for
            # the gtol/lext that every subscript reads
            params.append(Param(rep.array.c_name, f"_xmpacc_array_t {rep.array.c_name}", rep.key,
                                LAUNCH_DEVDESC))
        else:
            params.append(Param(rep.name, declaration(rep.decl, rep.name, drop_outer_dim=True), rep.key,
                                LAUNCH_DEVBUF, _use(rep.name, kv)))
    for rep in kv.device_scalars:
        ds = f"_xmpacc_ds_{rep.name}"
        params.append(Param(ds, declaration(rep.decl, ds, pointer=True), rep.key, LAUNCH_DEVBUF,
                            _use(rep.name, kv)))
    for name, decl in kv.by_value:
        params.append(Param(name, declaration(decl, name), f"(void *) &{name}",
                            LAUNCH_VALUE, f"sizeof({name})"))
    for name, decl, op in kv.reductions:
        red = f"_xmpacc_red_{name}"
        code = REDUCTION_OPS[op] + (REDUCTION_TO_HOST if to_host else 0)
        params.append(Param(red, declaration(decl, red, pointer=True), f"&{name}",
                            LAUNCH_REDUCTION, f"_XMPACC_TYPE({name})", str(code)))
    return params


def _use(name: str, kv: KernelVars) -> str:
    """LAUNCH_DEVBUF's ``a``: LAUNCH_READS | LAUNCH_WRITES, what the kernel does with the
    device copy (checked runs check the copy's state before and after the launch)."""
    return str((LAUNCH_READS if name in kv.read_vars else 0) |
               (LAUNCH_WRITES if name in kv.written_vars else 0))


def _renamed(elem_type: c_ast.TypeDecl, name: str) -> c_ast.TypeDecl:
    return c_ast.TypeDecl(name, elem_type.quals, None, copy.deepcopy(elem_type.type))


def prologue(loops: list[CanonicalLoop], types: list[str], kv: KernelVars, lanes: bool = False,
             cyclic: tuple[CyclicLoop, ...] = (), pointed: list[str] | None = None) -> list[str]:
    """``pointed``: lines that point array parameters elsewhere before they are rebased
    (kernel_private.block_prologue: each thread's copy of a private distributed array)."""
    out = ["long long _xmpacc_gid = _XMPACC_TID;"]
    if lanes:
        # T lanes per iteration (a compile-time constant when the runtime specialised the
        # module); every thread of a warp takes part in the shuffles, so the threads past
        # the end redo the last iteration and write nothing.
        out += ["const int _xmpacc_lanes = _XMPACC_LANES(_xmpacc_lanes_arg);",
                "long long _xmpacc_tid = _xmpacc_gid / _xmpacc_lanes;",
                "int _xmpacc_lane = (int) (_xmpacc_gid % _xmpacc_lanes);",
                "int _xmpacc_valid = _xmpacc_tid < _xmpacc_total;",
                "if (!_xmpacc_valid) _xmpacc_tid = _xmpacc_total - 1;",
                "long long _xmpacc_rest = _xmpacc_tid;"]
    elif len(loops) > 1:
        inner = f"_xmpacc_s_{loops[-1].var}"
        # 2-D grid: x walks the innermost loop, y the others, so no index division; x starts
        # _XMPACC_PAD iterations early so that warps read whole aligned rows
        out += ["long long _xmpacc_tid, _xmpacc_rest, _xmpacc_in;",
                "if (_xmpacc_grid2) {",
                f"  _xmpacc_in = _XMPACC_GRID_X - _XMPACC_PAD({inner}); _xmpacc_rest = _XMPACC_GRID_Y;",
                f"  _xmpacc_tid = _xmpacc_rest * {inner}.count + _xmpacc_in;",
                f"  if (_xmpacc_in < 0 || _xmpacc_in >= {inner}.count) _xmpacc_tid = _xmpacc_total;",
                "} else {",
                "  _xmpacc_tid = _xmpacc_gid; _xmpacc_rest = _xmpacc_tid;",
                f"  _xmpacc_in = _xmpacc_divmod(&_xmpacc_rest, {inner});",
                "}",
                "int _xmpacc_valid = _xmpacc_tid < _xmpacc_total;"]
    else:
        out += ["long long _xmpacc_tid = _xmpacc_gid;", "int _xmpacc_valid = _xmpacc_tid < _xmpacc_total;",
                "long long _xmpacc_rest = _xmpacc_tid;"]
    if not lanes and not kv.combines:  # with reductions every thread joins the warp-level combine
        out.append("if (!_xmpacc_valid) return;")
    by_pos = {p.var for p in cyclic if p.by_position}
    # innermost varies fastest
    for k, (lp, ctype) in enumerate(reversed(list(zip(loops, types, strict=True)))):
        s = f"_xmpacc_s_{lp.var}"
        if k == 0 and len(loops) > 1 and not lanes:
            index = "_xmpacc_in"
        elif k == len(loops) - 1:
            index = "_xmpacc_rest"
        else:
            index = f"_xmpacc_divmod(&_xmpacc_rest, {s})"
        if lp.var in by_pos:
            out.append(f"{ctype} {lp.var} = ({ctype}) _xmpacc_posmap_var(_xmpacc_m_{lp.var}, "
                       f"{s}.first + {index} * {s}.step);")
        else:
            out.append(f"{ctype} {lp.var} = ({ctype}) ({s}.first + {index} * {s}.step);")
    out += _off_progression(cyclic, kv, lanes)
    out += pointed or []
    out += rebase_prologue(kv)
    for name, decl in kv.private:
        out.append(declaration(decl, name) + ";")
    for name, decl, first in kv.firstprivate_arrays:
        out.append(declaration(decl, name) + ";")
        at = f" + {first}" if first else ""
        out.append(f"_xmpacc_copy_bytes({name}{at}, _xmpacc_fp_{name}{at}, sizeof({name})"
                   + (f" - {first} * sizeof({name}[0])" if first else "") + ");")
    for name, decl, op in kv.reductions:
        out.append(f"{declaration(decl, name)} = {identity(op, base_type_names(decl.type))};")
    return out


def push_param(name: str) -> Param:
    """The site's _xmpacc_push_t (include/xmpacc_push.h), by value."""
    return Param("_xmpacc_push", "_xmpacc_push_t _xmpacc_push", f"&{name}", LAUNCH_PUSH,
                 "sizeof(_xmpacc_push_t)")


def add_push(kernel: Kernel, loops: list[CanonicalLoop], var: str, lanes: bool, rows: int) -> None:
    """The exchange first thing in the kernel, the wait before its first early return,
    where every thread of a block is still there for a barrier (include/xmpacc_push.h).
    ``var`` is the outermost of at most two loops (kernel_ranges.push_of): a thread waits
    where its rows of ``var`` (``rows`` consecutive positions a thread: a streaming
    kernel's walk, from ``_xmpacc_rest``) leave the interior, a block of a 2-D grid where
    its rows do; with lanes (threads share an iteration) every block waits."""
    exact = not lanes   # (push_of: at most two loops, var the outermost)
    s = f"_xmpacc_s_{var}"
    if exact:   # a 2-D grid's block knows its rows; else each thread asks for its own
        grid2 = "_xmpacc_grid2" if len(loops) == 2 else "0"
        if len(loops) == 2:   # the rows in reverse where only the low rim waits (flip)
            kernel.prologue[:] = [line.replace("_XMPACC_GRID_Y", "_XMPACC_PUSH_GRID_Y(_xmpacc_push)")
                                  for line in kernel.prologue]
        args = (f"{grid2}, {s}.count, {rows}, _xmpacc_valid && "
                f"_xmpacc_push_outside(_xmpacc_push, {s}.count, _xmpacc_rest * {rows}, {rows})")
    else:
        args = "0, 0, 0, 1"
    at = max(k for k, line in enumerate(kernel.prologue)
             if line.startswith(("int _xmpacc_valid", "long long _xmpacc_rest")))
    kernel.prologue.insert(at + 1, f"_XMPACC_PUSH(_xmpacc_push, {args});")
    kernel.prologue.insert(0, "_XMPACC_PUSH_OUT(_xmpacc_push);")
    walk = kernel.walk
    if walk is not None and walk.fallback:   # type: ignore[attr-defined]
        # where the push's call spills a word at the small kernels' 32 registers, the
        # runtime's fallback (2 blocks per SM) would cost the sweep far more than the word
        kernel.walk = dataclasses.replace(walk, fallback=0)  # type: ignore[attr-defined]
    kernel.info["push"] = "exact" if exact else "every block"


def _off_progression(cyclic: tuple[CyclicLoop, ...], kv: KernelVars, lanes: bool) -> list[str]:
    """cyclic(w) loops with |step| > 1: the thread space covers every owned position of the
    range (the l-th owned iteration has no closed form), so threads whose index is off the
    loop's progression run nothing, as the host loop skips them (loopnest.py)."""
    tests = [f"!_xmpacc_posmap_on(_xmpacc_m_{p.var}, {p.var})" for p in cyclic if p.progression]
    if not tests:
        return []
    out = [f"if ({' || '.join(tests)}) _xmpacc_valid = 0;"]
    if not lanes and not kv.combines:
        out.append("if (!_xmpacc_valid) return;")
    return out


def body_guard(kv: KernelVars, lanes: bool) -> str:
    """Threads past the end skip the body when they stay alive for the reductions."""
    return "if (_xmpacc_valid) " if kv.combines and not lanes else ""


def epilogue(kv: KernelVars, lanes: bool = False) -> list[str]:
    """Per-thread values of the reduction variables, combined per warp on a GPU."""
    out = []
    for name, _d, op in kv.reductions:
        combine = _COMBINE[_REDUCTION_COMBINE.get(op, op)]
        out.append(f"_XMPACC_PARTIAL({name}, {combine}, _xmpacc_red_{name});")
    return out


_COMBINE = {"+": "_XMPACC_LANES_SUM", "*": "_XMPACC_LANES_PROD", "max": "_XMPACC_LANES_MAX",
            "min": "_XMPACC_LANES_MIN", "&": "_XMPACC_LANES_AND", "|": "_XMPACC_LANES_OR",
            "^": "_XMPACC_LANES_XOR", "&&": "_XMPACC_LANES_LAND", "||": "_XMPACC_LANES_LOR"}
_REDUCTION_COMBINE = {"-": "+"}


def split_lanes(body: c_ast.Compound, plan: LanePlan) -> c_ast.Compound:
    """The body with its inner loop shared by ``_xmpacc_lanes`` lanes (see lanes.py)."""
    items = list(body.block_items or [])
    inner = items[plan.index]
    assert isinstance(inner, c_ast.For)
    lp, coord = plan.loop, inner.coord
    start = cbuild.expr(f"({lp.init}) + _xmpacc_lane * ({lp.step})", coord)
    if lp.declared is not None:
        lp.declared.init = start
    else:
        inner.init = c_ast.Assignment("=", c_ast.ID(lp.var), start, coord)
    inner.next = cbuild.expr(f"{lp.var} += ({lp.step}) * _xmpacc_lanes", coord)
    resets = [f"{name} = {'1' if op == '*' else '0'};" for name, op in plan.accumulators if op in "+*"]
    before = cbuild.stmts(f"if (_xmpacc_lane != 0) {{ {' '.join(resets)} }}", coord) if resets else []
    combine = cbuild.stmts(" ".join(f"{_COMBINE[op]}({name}, _xmpacc_lanes);"
                                    for name, op in plan.accumulators), coord)
    suffix = items[plan.index + 1:]
    guarded = cbuild.stmts("if (_xmpacc_lane == 0 && _xmpacc_valid) { }", coord) if suffix else []
    if guarded:
        guarded[0].iftrue.block_items = suffix
    return c_ast.Compound(items[:plan.index] + before + [inner] + combine + guarded, body.coord)


def rebased_arrays(kv: KernelVars) -> list[str]:
    """Aligned arrays whose every dimension is indexed by an offset (block, gblock,
    collapsed, full shadow): the kernel moves their pointer back by the offset once, and
    subscripts use global indices directly."""
    return [r.array.c_name for r in kv.arrays
            if r.array is not None and all(d.index_kind == "offset" for d in r.array.dims)]


def rebase_prologue(kv: KernelVars) -> list[str]:
    """``p -= offset`` with the offset written out per dimension: indexing the descriptor
    with a run-time dimension would copy the whole parameter to local memory.  A checked
    build (xmpacc_check.h) keeps the pointers and checks every subscript instead."""
    out = []
    rebased = set(rebased_arrays(kv))
    for r in kv.arrays:
        if r.array is None or r.array.c_name not in rebased:
            continue
        d = r.array.c_name
        off = f"{d}.dim[0].gtol"
        for k in range(1, r.array.ndims):
            off = f"({off}) * {d}.dim[{k}].lext + {d}.dim[{k}].gtol"
        out.append(f"{r.name} -= {off};")
    return ["#ifndef _XMPACC_CHECK", *out, "#endif"] if out else out


def device_body(body: c_ast.Node, kv: KernelVars) -> c_ast.Node:
    """Replicated scalars are reached through kernel pointer parameters (one shared copy);
    subscripts of rebased arrays drop their per-access offset (rebase_prologue):
    ``_XMPACC_G(desc, d, g)`` is ``g`` (a checked build checks it)."""
    scalars = {r.name for r in kv.device_scalars}
    rebased = set(rebased_arrays(kv))
    skip: set[int] = set()
    for node in cbuild.walk(body):
        if isinstance(node, c_ast.FuncCall):
            skip.add(id(node.name))
        elif isinstance(node, c_ast.StructRef):
            skip.add(id(node.field))

    def fix(node: c_ast.Node) -> c_ast.Node | None:
        if isinstance(node, c_ast.ID) and id(node) not in skip and node.name in scalars:
            return c_ast.UnaryOp("*", c_ast.ID(f"_xmpacc_ds_{node.name}"), node.coord)
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name == "_XMPACC_LIVE":
            return node.args.exprs[2]   # an aligned pointer: replicate_begin checked it is allocated
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name == "_XMPACC_L":
            desc = node.args.exprs[0]
            if isinstance(desc, c_ast.ID) and desc.name in rebased:
                return c_ast.FuncCall(c_ast.ID("_XMPACC_G", node.name.coord), node.args, node.coord)
        return None

    return cbuild.transform(body, fix)


def launch_text(kernel: Kernel, loops: list[CanonicalLoop], where: str, nthreads: str,
                total: str | None = None) -> str:
    args = ", ".join(p.host_arg if p.host_arg.startswith("(void *)") else f"(void *) {p.host_arg}"
                     for p in kernel.params)
    kinds = ", ".join(f"{p.kind}, {p.a}, {p.b}" for p in kernel.params)
    total = total or " * ".join(f"_xmpacc_s_{lp.var}.count" for lp in loops) or "1"   # no loops: one thread
    return (f"long long _xmpacc_total = {total};"
            f"_xmpacc_launch({where}, \"{kernel.name}\", _xmpacc_total, {nthreads}, {len(kernel.params)}, "
            f"(void *[]){{{args}}}, (const long long []){{{kinds}}});")
