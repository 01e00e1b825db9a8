"""An OpenACC loop nest (XcalableACC §2) as the kernel generator's ``NestSpec``.

    #pragma xmp loop on t[i]                      NestSpec(loops=[i, j], body=<for k ...>,
    #pragma acc parallel loop collapse(2)             passes=(SchedPass("<XMP schedule of i>
    for (i = 1; i < N - 1; i++)                               _xmpacc_sched_t _xmpacc_s_j =
      for (j = 0; j < M; j++) {                                  _xmpacc_range_k(0, (M) - 1, 1);"),),
    #pragma acc loop vector reduction(+:s)            reductions={...}, private=[...])
        for (k = 0; k < K; k++) s += ...
      }

The thread space is the first ``collapse(n)`` loops of the perfect nest, extended to
every loop the XMP ``loop`` distributes; a distributed loop takes this node's schedule,
the others their whole range.  ``acc loop`` lines inside the body (``seq``, ``vector``
with its reduction and private lists) run sequentially in the thread; the lane-split
analysis (lanes.py) then shares an inner reduction loop between lanes where it can.
``seq`` on the construct's own loop gives a one-thread kernel running the whole nest.
The XMP loop's reductions with location variables are tracked per thread, their keys
over the whole thread space (kernel_locations.py); reductions of arrays and sections, of
any of the clauses, update a device temporary atomically (kernel_arrays.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc import facts
from xmpacc.cbuild import loc_of, walk
from xmpacc.context import Context
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives.exprs import int_value, larger, plus
from xmpacc.directives.openacc_ast import AccAtomic, AccCompute, AccLoop, LoopClauses, directive_name
from xmpacc.passes.common import acc_nest
from xmpacc.passes.common.acc_nest import AccNest
from xmpacc.passes.common.canonical import CanonicalLoop, canonical
from xmpacc.passes.common.loopnest import control_var, nested_for
from xmpacc.passes.common.loopsched import cyclic_loops
from xmpacc.passes.common.onrefs import loop_indices, loop_template
from xmpacc.passes.common.pragmas import acc_directive
from xmpacc.passes.common.shadows import OverlapCalls
from xmpacc.passes.gpu import acc_kernels_auto, routine_args
from xmpacc.passes.kernel import (
    acc_atomic,
    kernel_arrays,
    kernel_location_elements,
    kernel_locations,
    kernel_ranges,
)
from xmpacc.passes.kernel.block_shape import BlockRequest
from xmpacc.passes.kernel.kernel_gen import NestSpec
from xmpacc.symbols import Scope, TemplateSym


@dataclass
class AccLoopNest:
    """A nest ready for the generator, with what the XMP ``loop`` around it adds."""

    spec: NestSpec
    xmp: xd.Loop | None = None
    tmpl: TemplateSym | None = None
    indices: dict[str, int] = field(default_factory=dict)
    # a kernels loop run in one thread (acc_kernels_auto.py): the outside scalars it
    # assigns, copied to the device and back as OpenACC 2.5 says of kernels
    copy_scalars: tuple[str, ...] = ()
    # the elements of location arrays and sections, scalars in the kernel (kernel_location_elements.py)
    elements: tuple[kernel_location_elements.Element, ...] = ()


def _private(refs: list[xd.VarRef], scope: Scope) -> tuple[list[str], dict[str, str]]:
    """The private names, and the element counts (C) of pointers privatised by a subarray.

    ``private(tmp[0:3])`` of an array privatises the array (each thread's copy covers the
    subarray); ``private(p[0:4])`` of a pointer gives each thread an array of 4 elements
    for ``p`` to name (of base + length, so that the subscripts the loop writes stay);
    ``private(p[0:n])``, n known at run time, one of n; ``private(w)`` of a distributed
    array, one of its node's block with shadows (kernel_private.py)."""
    names: list[str] = []
    lengths: dict[str, str] = {}
    for r in refs:
        names.append(r.name.name)
        section = _pointer_section(r, scope, "private")
        if section is None:
            continue
        count = plus(*section)
        had = lengths.get(r.name.name)
        lengths[r.name.name] = count if had is None else larger(had, count)
    return names, lengths


def kernel_lists(body: c_ast.Node, private: list[xd.VarRef], inner_private: list[xd.VarRef],
                 inner_reductions: list[tuple[str, xd.VarRef]], more_private: list[str] | tuple[str, ...],
                 scope: Scope) -> tuple[list[str], dict[str, str], list[tuple[str, xd.VarRef]]]:
    """A kernel's private names (_private: with the lengths of pointers' subarrays)
    and the reductions its inner acc loop lines add, for both dialects' kernels: the
    construct's ``private``, then the inner loops' private lists, then ``more_private``
    (found by acc_kernels_auto.py); an inner loop's reduction of an outside variable
    reduces over the kernel (OpenACC 2.7).  What ``body`` declares is each thread's
    already and takes no clause."""
    declared = {n.name for n in walk(body) if isinstance(n, c_ast.Decl)}
    names, lengths = _private(private + [p for p in inner_private if p.name.name not in declared], scope)
    names += [n for n in more_private if n not in names]
    outside = [(op, v) for op, v in inner_reductions
               if v.name.name not in declared and v.name.name not in names]
    return names, lengths, outside


def _pointer_section(r: xd.VarRef, scope: Scope, clause: str) -> tuple[str, str] | None:
    """(base, length) of ``p[base:length]`` of a pointer in a private or firstprivate
    clause, as C; None for a name or an array's subarray (a distributed array's names
    the array: its local block, kernel_private.py)."""
    name = r.name.name
    found = scope.find_c(name)
    if r.subs is None or found is None or isinstance(found[1].type, c_ast.ArrayDecl) \
            or scope.find_array(name) is not None:
        return None
    sub = r.subs[0]
    if not isinstance(found[1].type, c_ast.PtrDecl) or len(r.subs) != 1 \
            or not isinstance(sub, xd.SectionTriplet):
        raise XmpError(r.loc, f"{clause} '{name}' with a subscript: '{name}' is not an array or a pointer "
                              "to the elements of a subarray")
    if sub.length is None:
        raise XmpError(r.loc, f"{clause} subarray '{name}[...]' of a pointer needs a length: "
                              f"'{name}[lo:len]'")
    base = sub.base.text if sub.base is not None else "0"
    b, n = int_value(base), int_value(sub.length.text)
    if (b is not None and b < 0) or (n is not None and n < 1):
        raise XmpError(r.loc, f"{clause} subarray '{name}[{base}:{sub.length.text}]' of a pointer: the base "
                              "must be >= 0 and the length >= 1")
    return base, sub.length.text


def _firstprivate(refs: tuple[xd.VarRef, ...], scope: Scope) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """firstprivate names, and (base, length) of the pointers made firstprivate by a
    subarray: each thread's array of base + length elements, the subarray's from its
    device copy (the construct copies it in, acc_compute._data_region_clauses); a
    subarray of a C array names the array (each thread's copy covers it, kernel_vars:
    from the device copy of the start value)."""
    sections: dict[str, tuple[str, str]] = {}
    for r in refs:
        section = _pointer_section(r, scope, "firstprivate")
        if section is not None:
            if r.name.name in sections:
                raise XmpError(r.loc, f"'{r.name.name}' is in two firstprivate subarrays: name one")
            sections[r.name.name] = section
    return [r.name.name for r in refs], sections


def _collapse(lc: LoopClauses) -> int:
    """The loops of the thread space: collapse(n), or as many as tile(...) has sizes (the
    tiles are a schedule hint; the loops are independent either way)."""
    if lc.tile is not None:
        return len(lc.tile)
    if lc.collapse is None:
        return 1
    try:
        n = int(lc.collapse.text.strip().strip("()"), 0)
    except ValueError:
        raise XmpError(lc.collapse.loc, "collapse needs a constant positive integer") from None
    if n < 1:
        raise XmpError(lc.collapse.loc, "collapse needs a constant positive integer")
    return n


def _nest_loops(nest: AccNest, lc: LoopClauses, pending: dict[str, int], ctx: Context,
                joined: list[LoopClauses]) -> list[c_ast.For]:
    """The for statements of the thread space: ``collapse(n)`` of them, more while a
    distributed loop is still to come.  A distributed loop under its own ``acc loop`` line
    (``parallel loop gang`` over i, ``acc loop vector`` over j, both distributed) joins the
    space too; its clauses go to ``joined``."""
    depth = _collapse(lc)
    fors: list[c_ast.For] = []
    current: c_ast.For | None = nest.loop
    while current is not None:
        fors.append(current)
        pending.pop(control_var(current) or "", None)
        if len(fors) >= depth and not pending:
            break
        nxt = nested_for(current.stmt)
        if nxt is None and pending:
            found = _distributed_inner(current.stmt, set(pending), ctx)
            if found is not None:
                joined.append(found[0])
                nxt = found[1]
        current = nxt
    if len(fors) < depth:
        what = f"tile with {depth} sizes" if lc.tile is not None else f"collapse({depth})"
        raise XmpError(lc.collapse.loc if lc.collapse else lc.loc,
                       f"{what} needs {depth} perfectly nested for loops, found {len(fors)}")
    if pending:
        # the reference's error for an XMP loop (6.1: its indices control loops of a perfect nest)
        raise XmpError(nest.xmp.loc if nest.xmp else lc.loc,
                       f"cannot find the loop statement of index '{next(iter(pending))}' in the loop "
                       "nest (the loops an XMP loop distributes are perfectly nested, under an "
                       "OpenACC construct too)")
    return fors


def _distributed_inner(body: c_ast.Node, pending: set[str],
                       ctx: Context) -> tuple[LoopClauses, c_ast.For] | None:
    """``{ #pragma acc loop [vector|worker|gang|seq|private|reduction ...]  for (j ...) }`` as
    the whole body, j a loop the XMP loop distributes: the for and the line's clauses."""
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else []
    if len(items) != 2 or not isinstance(items[1], c_ast.For) or control_var(items[1]) not in pending:
        return None
    d = acc_directive(items[0], ctx)
    if not isinstance(d, AccLoop):
        return None
    if d.loop.collapse is not None or d.loop.tile is not None:   # ('seq': as on the construct's loop, build)
        raise XmpError(d.loc, f"'collapse' or 'tile' on the 'acc loop' of '{control_var(items[1])}', a loop "
                              "the XMP loop distributes: put them on the construct")
    return d.loop, items[1]


def _header_names(f: c_ast.For) -> set[str]:
    """The names that a for statement's init, condition and step read."""
    return {n.name for part in (f.init, f.cond, f.next) if part is not None
            for n in walk(part) if isinstance(n, c_ast.ID)}


def _rectangular(fors: list[c_ast.For], loops: list[CanonicalLoop]) -> None:
    """A loop whose bounds change inside the construct cannot be flattened (X §2.2)."""
    for k in range(1, len(fors)):
        outer = {lp.var for lp in loops[:k]}
        f = fors[k]
        used = _header_names(f) & outer
        if used:
            raise XmpError(loc_of(f), f"the bounds of loop '{loops[k].var}' depend on '{sorted(used)[0]}': "
                                      "collapsed loops must have bounds that do not change in the nest")


def _xmp_part(xmp: xd.Loop, scope: Scope) -> tuple[TemplateSym, dict[str, int]]:
    tmpl = loop_template(xmp, scope)
    acc = xmp.acc   # XcalableACC's 'acc' on the loop: its reduction works on the device copies (acc_comm.py)
    if acc is not None and (acc.private or acc.firstprivate or acc.shared or acc.num_threads):
        raise XmpError(acc.loc, "an XMP loop with an OpenACC construct takes no XMP-ACC clauses after 'acc' "
                                "(private, firstprivate, shared, num_threads): give them to the OpenACC "
                                "directive (vector_length for the block size)")
    return tmpl, dict(loop_indices(xmp))


def _vector_loop(body: c_ast.Node, loops: list[CanonicalLoop],
                 ctx: Context) -> tuple[LoopClauses, c_ast.For] | None:
    """``#pragma acc loop vector`` over a loop that is the whole body of the thread space's
    last loop, with bounds that do not depend on it: the inner loop goes to the vector
    lanes, so it becomes the innermost (fastest, coalesced) dimension of the thread space,
    as OpenACC compilers map gang/vector.  Its clauses are returned with it."""
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else []
    if len(items) != 2 or not isinstance(items[1], c_ast.For):
        return None
    d = acc_directive(items[0], ctx)
    if not isinstance(d, AccLoop) or d.loop.vector is None or d.loop.seq is not None or d.loop.collapse:
        return None
    inner = items[1]
    try:
        canonical(inner)
    except XmpError:
        return None
    outer = {lp.var for lp in loops}
    return None if _header_names(inner) & outer else (d.loop, inner)


def strip_inner(body: c_ast.Node, ctx: Context) -> tuple[list[xd.VarRef], list[tuple[str, xd.VarRef]]]:
    """Remove the ``acc loop`` lines inside a kernel body and lower its ``acc atomic``
    statements; return the private lists and the reductions (operator, name) of the inner
    loops."""
    private: list[xd.VarRef] = []
    reductions: list[tuple[str, xd.VarRef]] = []
    for node in list(walk(body)):
        if not isinstance(node, c_ast.Compound):
            continue
        items = node.block_items or []
        kept: list[c_ast.Node] = []
        k = 0
        while k < len(items):
            item, nxt = items[k], items[k + 1] if k + 1 < len(items) else None
            k += 1
            d = acc_directive(item, ctx)
            if d is None:
                kept.append(item)
            elif isinstance(d, AccLoop) and isinstance(nxt, c_ast.For):
                private += d.loop.private
                reductions += [(r.op, v) for r in d.loop.reductions for v in r.variables]
                _collapse(d.loop)
            elif isinstance(d, AccAtomic) and nxt is not None and not isinstance(nxt, c_ast.Pragma):
                kept.append(acc_atomic.lower(d, nxt))
                k += 1
            elif isinstance(d, (AccLoop, AccAtomic)):
                raise XmpError(d.loc, f"'{directive_name(d)}' must be followed by a "
                                      f"{'for loop' if isinstance(d, AccLoop) else 'statement'}")
            else:
                raise XmpError(d.loc, f"'{directive_name(d)}' is not allowed inside a kernel (an OpenACC "
                                      "compute construct or an XMP-ACC 'loop ... acc')")
        node.block_items = kept
    return private, reductions


def build(nest: AccNest, compute: AccCompute, lc: LoopClauses, scope: Scope, ctx: Context,
          function: c_ast.Node | None = None,
          overlap: tuple[tuple[tuple[int, int], ...], OverlapCalls] | None = None) -> AccLoopNest:
    """The nest under ``lc`` (the loop part of ``compute`` or of an ``acc loop`` in it);
    ``function``: the body of the function holding it (acc_kernels_auto.py reads it);
    ``overlap``: the peel and the join of the reflect whose exchange its interior overlaps
    (passes/locality/overlap.py)."""
    xmp, tmpl, indices = nest.xmp, None, {}
    if xmp is not None:
        tmpl, indices = _xmp_part(xmp, scope)
    verdict = _auto(nest, compute, lc, scope, ctx, function)
    vector: tuple[LoopClauses, c_ast.For] | None = None
    joined: list[LoopClauses] = []   # the acc loop lines of inner distributed loops (_nest_loops)
    # 'seq' on a loop that an XMP loop distributes: the XMP loop says its iterations are
    # independent (XMP §4.2.1), so the node's iterations run one thread each, which a
    # conforming program cannot tell from running them in order
    if (lc.seq is not None and xmp is None) or (verdict is not None and not verdict.independent):
        fors, loops = [], []
    else:
        fors = _nest_loops(nest, lc, dict(indices), ctx, joined)
        loops = [canonical(f) for f in fors]
        _rectangular(fors, loops)
        vector = _vector_loop(fors[-1].stmt, loops, ctx)
        if vector is not None:   # the inner 'acc loop vector' joins the thread space
            fors.append(vector[1])
            loops.append(canonical(vector[1]))
    tracked, elements = xmp, ()
    if xmp is not None:   # location arrays and sections: scalars for the kernel (it wraps the body)
        tracked, elements = kernel_location_elements.scalarize(xmp, fors[-1] if fors else nest.loop, scope)
    body = fors[-1].stmt if fors else nest.loop
    inner_private, inner_reductions = strip_inner(body, ctx)
    for clauses in joined + ([vector[0]] if vector is not None else []):
        inner_private += clauses.private
        inner_reductions += [(r.op, v) for r in clauses.reductions for v in r.variables]
    found = verdict if verdict is not None and verdict.independent else acc_kernels_auto.Verdict("")
    private, private_lengths, outside = kernel_lists(body, list(compute.private + lc.private), inner_private,
                                                     inner_reductions, found.private, scope)
    firstprivate, firstprivate_sections = _firstprivate(compute.firstprivate, scope)
    # the construct's first: a name's first mention gives its operator
    refs = [(r.op, v) for r in compute.reductions + lc.reductions for v in r.variables]
    at = loc_of(nest.loop)
    refs += [(op, xd.VarRef(xd.Name(v, at), None, at)) for v, op in found.reductions]   # found in 'kernels'
    refs += outside
    located = kernel_locations.located(tracked, loops, scope) if tracked is not None else ()
    if xmp is not None:   # the node's result of an XMP reduction variable is reduced on the device
        refs += [(r.op, v.ref) for r in xmp.reductions for v in r.variables]
    reductions, arrays = kernel_arrays.split(refs, scope)   # scalars, and arrays and sections
    for loc in located:   # tracked with its locations, not reduced (the construct's max: v too)
        reductions.pop(loc.value, None)
    levels = [lc] + joined + ([vector[0]] if vector is not None else [])
    spec = NestSpec(compute.loc if nest.acc is compute else lc.loc, nest.loop, loops,
                    kernel_ranges.passes(loops, xmp, tmpl, indices) if overlap is None or xmp is None
                    or tmpl is None else kernel_ranges.overlapped(loops, xmp, tmpl, indices, *overlap),
                    routine_args.routine_globals(body, ctx.acc_routine_globals), list(dict.fromkeys(private)),
                    firstprivate, reductions, _block_request(compute, levels),
                    device_pointers=[r.name.name for c in compute.data
                                     if c.kind == "deviceptr" for r in c.items],
                    cyclic=cyclic_loops(loops, tmpl, indices), private_lengths=private_lengths,
                    located=located, arrays=arrays, firstprivate_sections=firstprivate_sections,
                    push=None if overlap is None or xmp is None
                    else kernel_ranges.push_of(loops, xmp, indices, *overlap))
    carried = verdict.carried if verdict is not None and not verdict.independent else ()
    return AccLoopNest(spec, xmp, tmpl, indices, carried, elements)


def _block_request(compute: AccCompute, levels: list[LoopClauses]) -> BlockRequest | None:
    """The block sizes of the construct and of its loops' gang/worker/vector clauses:
    vector_length or vector(n) the width, num_workers or worker(n) the rows (block_shape.py)."""
    def first(construct: xd.Expr | None, level: str) -> xd.Expr | None:
        nums = [c.num for lc in levels if (c := getattr(lc, level)) is not None and c.num is not None]
        return construct or (nums[0] if nums else None)

    width, rows, gangs = (first(compute.vector_length, "vector"), first(compute.num_workers, "worker"),
                          first(compute.num_gangs, "gang"))
    if width is None and rows is None and gangs is None:
        return None
    said = [f"{name}({e.text})" for name, e in (("vector_length", width), ("num_workers", rows))
            if e is not None]
    return BlockRequest(width.text if width else None, rows.text if rows else None, " ".join(said),
                        gangs.text if gangs else None)


def implicit(stmt: c_ast.Node, compute: AccCompute, scope: Scope, ctx: Context, how: str,
             function: c_ast.Node | None = None, xmp: AccNest | None = None) -> AccLoopNest:
    """A statement of a region as if under '#pragma acc loop <how>': "seq", one thread runs
    it (acc_region.py); "auto", a for loop of 'kernels' without 'acc loop', or the for of
    ``xmp``, an XMP loop without one (acc_compute.py; ``_auto`` leaves XMP loops parallel)."""
    at = loc_of(stmt)
    lc = LoopClauses(None, None, None, None, at if how == "seq" else None, None,
                     at if how == "auto" else None, (), (), at)
    inner = acc_nest.inner_loops(stmt, ctx) if isinstance(stmt, c_ast.For) else ()
    nest = AccNest(stmt, xmp.xmp if xmp else None, xmp.xmp_pragma if xmp else None,  # type: ignore[arg-type]
                   AccLoop(lc, at), None, xmp.pragmas if xmp else (), inner)
    return build(nest, compute, lc, scope, ctx, function)


def _auto(nest: AccNest, compute: AccCompute, lc: LoopClauses, scope: Scope, ctx: Context,
          function: c_ast.Node | None) -> acc_kernels_auto.Verdict | None:
    """In 'kernels' a loop without 'independent' or 'seq' (and without an XMP loop, which
    says its iterations are independent) is the compiler's to parallelise (OpenACC 2.5
    §2.9: 'auto'): acc_kernels_auto.py's verdict, which --info reports; None elsewhere."""
    if compute.construct != "kernels" or nest.xmp is not None or lc.independent is not None \
            or lc.seq is not None:
        return None
    named = {r.name.name for r in compute.private + lc.private} | \
        {v.name.name for r in compute.reductions + lc.reductions for v in r.variables}
    verdict = acc_kernels_auto.analyse(_nest_loops(nest, lc, {}, ctx, []), scope,
                                       function or c_ast.Compound([]), named)
    at = loc_of(nest.loop)
    ctx.info.append(facts.InfoFact(at, facts.ForFacts(verdict.reason, verdict.reductions, verdict.private)))
    return verdict
