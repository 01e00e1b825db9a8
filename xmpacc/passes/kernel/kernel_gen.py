"""The one kernel generator: a loop nest description -> a kernel and its host-side launch.

Both dialects describe the nest they want on the GPU as a ``NestSpec`` and hand it here:
XMP-ACC's ``loop ... acc`` (passes/gpu/gpu.py) and XcalableACC's ``acc parallel loop``,
``kernels loop`` and ``acc loop`` inside ``parallel``/``kernels`` (passes/gpu/acc_compute.py).

    NestSpec(loops=[i, j], passes=(SchedPass("<host C declaring _xmpacc_s_i, _xmpacc_s_j>"),), body=...)
      -> prog.cu:  _XMPACC_KERNEL _xmpacc_loop_f_c_42(long long _xmpacc_total, ...)
      -> host C:   <scheds> long long _xmpacc_total = _xmpacc_s_i.count * _xmpacc_s_j.count;
                   _xmpacc_launch("f.c:42", "_xmpacc_loop_f_c_42", _xmpacc_total, 0, ...);

Each loop of ``loops`` is one dimension of the thread space; how its iterations are
chosen (an XMP schedule of this node's share, or the loop's whole range) is the caller's
``scheds`` text.  An empty ``loops`` is one thread running the body (``acc loop seq``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc import cbuild, kernel_types
from xmpacc.cbuild import loc_of
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.kernel_types import Typedefs
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.common.loopsched import CyclicLoop
from xmpacc.passes.common.values import Kernel, KernelVars, Replicated
from xmpacc.passes.kernel import (
    block_shape,
    kernel_arrays,
    kernel_locations,
    kernel_members,
    kernel_private,
    kernel_ranges,
    kernel_vla,
    kernels,
    lanes,
    stream_walk,
    streaming,
)
from xmpacc.passes.kernel.kernel_ranges import SchedPass
from xmpacc.passes.kernel.kernel_vars import check_body, classify
from xmpacc.symbols import Scope


@dataclass
class NestSpec:
    """One kernel's loop nest, whichever directive asked for it."""

    loc: SourceLoc                  # the directive: the kernel's name and messages
    node: c_ast.For                 # the outermost for statement
    loops: list[CanonicalLoop]      # the thread space, outermost first
    passes: tuple[SchedPass, ...]   # the launches: host C declaring _xmpacc_s_<var> of every loop
                                    # (kernel_ranges.py)
    # what one thread runs, its calls of acc routines with their file-scope variables as
    # arguments (routine_args.routine_globals)
    body: c_ast.Node
    private: list[str] = field(default_factory=list)
    firstprivate: list[str] = field(default_factory=list)
    reductions: dict[str, str] = field(default_factory=dict)   # name -> operator
    # the block sizes the program gives (vector_length, num_workers, num_threads), honoured
    # as the block's shape (block_shape.py); None: the compiler's and the runtime's choice
    block: block_shape.BlockRequest | None = None
    device_pointers: list[str] = field(default_factory=list)   # deviceptr(p): passed by value
    # loops over cyclic dimensions; those of cyclic(w) ones are scheduled in positions
    cyclic: tuple[CyclicLoop, ...] = ()
    private_lengths: dict[str, str] = field(default_factory=dict)   # private(p[0:4]) of a pointer: "4"
    # XMP-ACC's loop ... acc: the reductions' results go to the host variables, even where
    # a device copy holds them (reference §7.4); an OpenACC construct's go to the device copy
    to_host: bool = False
    # firstprivate(p[1:4]) of a pointer: ("1", "4"), each thread's array of 5 from the device copy
    firstprivate_sections: dict[str, tuple[str, str]] = field(default_factory=dict)
    # reductions with location variables (kernel_locations.py); not in ``reductions``
    located: tuple[kernel_locations.Located, ...] = ()
    # reductions of arrays and sections (kernel_arrays.py); not in ``reductions``
    arrays: tuple[kernel_arrays.ReducedArray, ...] = ()
    # an overlapped reflect's exchange, which the kernel may make itself (include/xmpacc_push.h)
    push: kernel_ranges.KernelPush | None = None


@dataclass
class Generated:
    kernel: Kernel
    host_text: str                  # host C: schedules and the launch
    kv: KernelVars
    plan: lanes.LanePlan | None


def control_type(lp: CanonicalLoop, scope: Scope, node: c_ast.Node, typedefs: Typedefs) -> str:
    decl = lp.declared or (scope.find_c(lp.var) or (None, None))[1]
    if decl is None:
        raise XmpError(loc_of(node), f"loop variable '{lp.var}' is not declared")
    decl = typedefs.resolved(decl)
    kernels.check_device_type(lp.var, decl.type, node, typedefs)
    return " ".join(kernels.base_type_names(decl.type))


def kernel_name(ctx: Context, unit: Unit, loc: SourceLoc) -> str:
    name = f"_xmpacc_loop_{unit.stem}_{loc.line}"
    if any(k.name == name for k in ctx.kernels):
        name += f"_{len(ctx.kernels)}"
    return name


def _variable_rows(kv: KernelVars, arrays: tuple[kernel_arrays.ReducedArray, ...], scope: Scope,
                   typedefs: Typedefs) -> list[kernel_vla.Rows]:
    """The C arrays and reduction arrays of the kernel whose rows have variable lengths."""
    found = [kernel_vla.rows(rep.name, rep.decl.name, rep.decl, typedefs.constants) for rep in kv.arrays
             if rep.array is None]   # the host's name: a firstprivate array's copy is _xmpacc_fp_<name>
    for ra in arrays:
        decl = scope.find_c(ra.name)
        found.append(kernel_vla.rows(ra.param, ra.name, decl[1], typedefs.constants)
                     if decl is not None else None)
    return [r for r in found if r is not None]


def generate(spec: NestSpec, scope: Scope, replicated: list[Replicated], ctx: Context, unit: Unit,
             is_pragma: Callable[[c_ast.Node], bool]) -> Generated:
    """Outline ``spec`` into a kernel (collected in ``ctx.kernels``) and its launch text."""
    # aligned structure members (c.a, p->a) become kernel names first: p->a is no pointer
    # the kernel follows, but the host's descriptor of p's member
    body, members = kernel_members.rename(spec.body, scope)
    check_body(body, is_pragma, frozenset(ctx.acc_routines) | frozenset(ctx.acc_routine_externs))
    typedefs = ctx.typedefs_of(unit)   # typedef names seen through: 'real' is a double
    kernel_types.check_constant_sizes(body, typedefs, "an acc loop")
    kernel_arrays.check_elements(spec.arrays, typedefs)
    if spec.arrays:   # every update of a reduction array: atomic, on the kernel's temporary
        body = kernel_arrays.rewrite(body, spec.arrays)
    if spec.located:   # the watched variables are per-thread copies of their values before the loop
        body = kernel_locations.instrument(body, spec.located, scope, spec.node.coord)
    kv = classify(body, [lp.var for lp in spec.loops], scope, replicated, spec.private,
                  spec.firstprivate + kernel_locations.value_names(spec.located), spec.reductions, spec.loc,
                  spec.device_pointers, ctx.acc_routines)
    kv.arrays += kernel_members.device_arrays(members, replicated)
    if spec.located:
        kernel_locations.check_firstprivate(spec.located, kv, spec.loc)
        kv.located = kernel_locations.value_names(spec.located)
    scratch = kernel_private.private_arrays(kv, spec.private_lengths, spec.firstprivate_sections, typedefs)
    kv.by_value = [(name, typedefs.resolved(decl)) for name, decl in kv.by_value]
    kv.private = [(name, typedefs.resolved(decl)) for name, decl in kv.private]
    kv.reductions = [(name, typedefs.resolved(decl), op) for name, decl, op in kv.reductions]
    for name, decl in kv.by_value + kv.private:
        kernels.check_device_type(name, decl.type, spec.node, typedefs)
    captured = [(name, decl) for name, decl in kv.by_value + kv.private] + \
        [(name, decl) for name, decl, _op in kv.reductions] + \
        [(r.name, r.decl) for r in kv.arrays + kv.device_scalars]
    kernel_types.check_long_double(body, typedefs, "an acc loop", [(n, d, spec.node) for n, d in captured])
    for name, decl, _op in kv.reductions:
        if typedefs.arithmetic(kernels.base_type_names(decl.type)) is None:
            raise XmpError(spec.loc, f"reduction variable '{name}' of a GPU loop has type "
                                     f"'{' '.join(kernels.base_type_names(decl.type)) or 'struct'}': "
                                     "reductions take arithmetic types")
    types = [control_type(lp, scope, spec.node, typedefs) for lp in spec.loops]
    # one thread, one iteration: the record a thread keeps is that of its one iteration;
    # the lanes of a split would all run a reduction array's updates outside the inner loop
    plan, why = (None, "a reduction with location variables") if spec.located else \
        (None, "a reduction array") if spec.arrays else lanes.analyse(body)
    device_body = kernels.device_body(body, kv)
    if plan is not None:
        device_body = kernels.split_lanes(device_body, plan)
    split = plan is not None
    block = block_shape.shape(spec.block, kernels.block_rows(spec.loops, device_body))
    if block.overridden:
        ctx.diags.warning(spec.loc, block.remark)
    params = kernels.build_params(spec.loops, kv, split, block.rows, spec.cyclic, spec.to_host)
    params += kernel_locations.params(spec.located, kv) + kernel_arrays.params(spec.arrays)
    params += kernel_private.params(scratch)
    vla = _variable_rows(kv, spec.arrays, scope, typedefs)
    params = kernel_vla.params(params, vla)
    if spec.push is not None:   # last: the runtime finds the others where they were
        params.append(kernels.push_param(spec.push.name))
        ctx.pushes.add(spec.push.name)
    kernel = Kernel(kernel_name(ctx, unit, spec.loc), params,
                            kernel_vla.prologue(vla)
                            + kernels.prologue(spec.loops, types, kv, split, spec.cyclic,
                                               kernel_private.block_prologue(scratch))
                            + kernel_private.prologue(scratch) + kernel_locations.prologue(spec.located),
                            device_body,
                            kernels.epilogue(kv, split) + kernel_locations.epilogue(spec.located, kv),
                            f"{spec.loc.file}:{spec.loc.line}", spec.node.coord,
                            {"lanes": why if plan is None else
                             "split over lanes; accumulators " + ", ".join(a for a, _ in plan.accumulators)},
                            kernels.body_guard(kv, split))
    # a window of rows shared by a block cannot hold the threads' own copies of an array
    unstreamed = ("a reduction with location variables" if spec.located else "a reduction array"
                  if spec.arrays else "private arrays in a block's window" if kv.private_blocks else None)
    kernel.info["stream"] = unstreamed or ""
    stream = streaming.attach(kernel, spec.loops, types, kv, split, spec.cyclic) if not unstreamed else None
    if spec.push is not None:
        kernels.add_push(kernel, spec.loops, spec.push.var, split, stream.walk if stream is not None else 1)
    ctx.kernels.append(kernel)
    kernel.info["block"] = block.remark
    threads = block.threads if block.threads != "0" or stream is None else str(stream.threads)
    total = stream_walk.launch_total(spec.loops, stream) if stream is not None else None
    launch = kernel_arrays.host_decls(spec.arrays, spec.to_host) + \
        (stream_walk.host_setup(stream) if stream is not None else "") + \
        kernels.launch_text(kernel, spec.loops, cbuild.where_literal(spec.loc), threads, total)
    text = kernel_ranges.host_text(spec.passes, launch)
    return Generated(kernel, text, kv, plan)
