"""Pass array: ``#pragma xmp array on t[...]`` and its array assignment statement become a
loop over this node's elements of the template section (global-view §3).

Before:                                  After:
    #pragma xmp array on t[:]                {
    a[:] = 2.0 * b[:] + 1.0;                   _xmpacc_sched_t _xmpacc_s__xmpacc_g0 =
                                                   _xmpacc_schedule(&_xmpacc_t_t.dim[0], 0, 99, 1);
                                               for (long long _xmpacc_g0 = _xmpacc_s__xmpacc_g0.first; ...) {
                                                 long long _xmpacc_i0 = _xmpacc_g0 - 0;
                                                 a[_xmpacc_i0] = 2.0 * b[_xmpacc_i0] + 1.0;
                                               }
                                             }

Each element of the left-hand side is assigned by the owner of the template element it is
aligned with, as Omni does: where the left-hand side is aligned with the template of the
``on`` clause, shape dimension q follows that array's alignment (``align a[i][j] with
t(i,j)`` in the parenthesised syntax reaches the template's dimensions in the other order;
``array on t[:]`` over a section one element shorter than the template runs on the owners
of its elements; a collapsed dimension, ``align x[i][*] with t[i]``, is a loop on every
owner), the template reference's triplets must stand on the dimensions the array's
triplets are aligned with, their lengths are checked where the reference gives bounds or
a step (not ``:``), and its scalar subscripts on the other dimensions add their owners.
Any other left-hand side follows the template reference: dimension q the q-th triplet,
with the shapes checked.  Each node runs the positions whose template element it owns (the loop
schedules of pass loops, so block, cyclic, cyclic(w) and gblock all work) and the
subscripts pass then makes the distributed arrays' subscripts local.  No communication: an
operand dimension that is not provably aligned with the template (same template and
dimension, base + align offset = the template start, same step) gets a run-time check
that names the line.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable

from pycparser import c_ast

from xmpacc import cbuild, facts
from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.blocks import BlockLowering, Lowered, owned_statement
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.common.loopnest import distributed_for
from xmpacc.passes.common.pragmas import directives_of
from xmpacc.passes.localize.assignments import is_array_assignment, ivars, lower_rhs, needs_temp, with_temp
from xmpacc.runtime.contract import SECERR_NOT_LOCAL, SECERR_STEP
from xmpacc.section_code import (
    Hoister,
    Operand,
    SubCode,
    conform,
    const,
    element,
    num,
    operand_of,
    resolve,
    shape,
    written,
)
from xmpacc.sections import section
from xmpacc.symbols import Scope, TemplateSym


def _template(d: xd.ArrayDirective, scope: Scope) -> TemplateSym:
    name = d.on.name.name
    if scope.is_broken(name):
        raise AlreadyReported
    tmpl = scope.find_template(name)
    if tmpl is None:
        what = "a node array; 'array on' takes a template" if scope.find_nodes(name) else "not declared"
        raise XmpError(d.on.name.loc, f"template '{name}' is {what}")
    if tmpl.distribute is None:
        raise XmpError(d.on.name.loc, f"template '{name}' is not distributed")
    if d.on.subs is not None and len(d.on.subs) != tmpl.ndims:
        raise XmpError(d.on.loc, f"template '{name}' has {tmpl.ndims} dimension(s) but the reference "
                                 f"gives {len(d.on.subs)}")
    return tmpl


def _template_subs(d: xd.ArrayDirective, tmpl: TemplateSym, h: Hoister) -> list[tuple[int, SubCode]]:
    """(template dimension, SubCode) per subscript; a triplet's length is its trip count."""
    out = []
    subs = d.on.subs if d.on.subs is not None else (xd.Triplet(None, None, None, d.on.loc),) * tmpl.ndims
    for t, sub in enumerate(subs):
        dim = tmpl.decl.dims[t]
        assert isinstance(dim, xd.TemplateDim)
        if isinstance(sub, xd.Star):   # every index of this dimension: no owner test, no shape
            continue
        if isinstance(sub, xd.Expr):
            out.append((t, SubCode(False, h.simple(cbuild.expr(sub.text)), num(1), num(1), sub.loc)))
            continue
        start = h.simple(cbuild.expr((sub.start or dim.lower).text))
        last = h.simple(cbuild.expr((sub.last or dim.upper).text))
        step = h.simple(cbuild.expr(sub.step.text)) if sub.step is not None else num(1)
        if const(step) is None:
            h.check(f"({cbuild.to_c(step)}) == 0", SECERR_STEP, d.on.name.name,
                    f"(const long long []){{{t}, 0}}")
        elif const(step) == 0:
            raise XmpError(sub.loc, "the step of a template triplet must not be 0")
        if None not in (const(start), const(last)):
            count = num(max(0, (const(last) - const(start)) // const(step) + 1))  # type: ignore[operator]
        else:
            # a zero step is reported by the checks, which run after these declarations
            count = h.simple(cbuild.expr(f"({cbuild.to_c(step)}) == 0 ? 0 : _xmpacc_trip_count("
                                         f"{cbuild.to_c(start)}, {cbuild.to_c(last)}, {cbuild.to_c(step)})"),
                             "n")
        out.append((t, SubCode(True, start, count, step, sub.loc)))
    return out


def _by_alignment(lhs: Operand, lsubs: list[SubCode], tmpl: TemplateSym, tsubs: list[tuple[int, SubCode]],
                  h: Hoister) -> list[tuple[int, SubCode]] | None:
    """The iteration of a left-hand side aligned with ``tmpl``, as ``tsubs`` gives that of
    the template reference: a triplet per shape dimension, in shape order, on the template
    dimension that the array's dimension is aligned with (-1: collapsed, a local loop),
    then the scalar subscripts whose owners run it (the array's aligned scalar
    subscripts, the reference's on the other dimensions).  None for any other left-hand
    side."""
    sym = lhs.sym
    if sym is None or sym.template.c_name != tmpl.c_name:
        return None
    loops: list[tuple[int, SubCode]] = []
    owners: dict[int, SubCode] = {}
    for k, sub in enumerate(lsubs):
        tdim = sym.dims[k].tdim
        if tdim < 0:
            if sub.triplet:
                loops.append((-1, SubCode(True, num(0), sub.length, num(1), sub.loc)))
            continue
        start = h.simple(cbuild.expr(f"({cbuild.to_c(sub.base)}) + ({sym.dims[k].offset})"))
        if sub.triplet:
            loops.append((tdim, SubCode(True, start, sub.length, sub.step, sub.loc)))
        else:
            owners[tdim] = SubCode(False, start, num(1), num(1), sub.loc)
    if {t for t, _s in loops if t >= 0} != {t for t, s in tsubs if s.triplet}:
        return None   # the reference's triplets are on other dimensions: shapes by order, checked
    owners.update((t, s) for t, s in tsubs if not s.triplet and t not in owners)
    return loops + sorted(owners.items())


def _explicit(d: xd.ArrayDirective) -> set[int]:
    """The template dimensions whose reference gives bounds or a step (not ``:``)."""
    subs = d.on.subs or ()
    return {t for t, sub in enumerate(subs) if isinstance(sub, xd.Triplet) and
            (sub.start is not None or sub.last is not None or sub.step is not None)}


def _aligned(op: Operand, k: int, sub: SubCode, tmpl: TemplateSym, tsub: tuple[int, SubCode] | None) -> bool:
    """Is dimension k of a distributed operand provably local for every iteration?"""
    assert op.sym is not None
    dim = op.sym.dims[k]
    if dim.tdim < 0 or op.sym.template.dist_kind(dim.tdim) == "none" or dim.full_shadow:
        return True
    if tsub is None or not sub.triplet or op.sym.template.c_name != tmpl.c_name or dim.tdim != tsub[0]:
        return False
    base, offset, start = const(sub.base), const(cbuild.expr(dim.offset)), const(tsub[1].base)
    return None not in (base, offset, start) and base + offset == start and \
        const(sub.step) == const(tsub[1].step)  # type: ignore[operator]


def _local_checks(operands: list[tuple[Operand, list[SubCode]]], tmpl: TemplateSym,
                  tsubs: list[tuple[int, SubCode]], h: Hoister) -> tuple[list[c_ast.Node], tuple[str, ...]]:
    """Per-element checks for the dimensions that are not provably local (and the names
    of the arrays checked)."""
    triplets = [t for t in tsubs if t[1].triplet]
    checks: list[c_ast.Node] = []
    names: dict[str, None] = {}
    for op, subs in operands:
        if op.sym is None:
            continue
        index = element(op, subs, ivars(len(triplets)))
        idx = [cbuild.to_c(sub) for sub in cbuild.unwind(index)[1]]
        q, bad = 0, []
        for k, sub in enumerate(subs):
            tsub = triplets[q] if sub.triplet and q < len(triplets) else None
            q += sub.triplet
            if not _aligned(op, k, sub, tmpl, tsub):
                bad.append(f"_xmpacc_is_local(&{op.sym.c_name}, {k}, {idx[k]})")
        if bad:
            names[op.name] = None
            values = "(const long long []){" + ", ".join([str(len(idx))] + idx) + "}"
            checks += cbuild.stmts(f"if (!({' && '.join(bad)})) _xmpacc_section_error({h.where}, "
                                   f"{SECERR_NOT_LOCAL}, {cbuild.c_string(op.name)}, {values}, 0);", h.coord)
    return checks, tuple(names)


def _distributed_elements(rhs: c_ast.Node, scope: Scope) -> list[Operand]:
    """Elements of distributed arrays on the right (``b[3]``): they must be local too."""
    out = []
    for node in walk(rhs):
        if isinstance(node, c_ast.ArrayRef) and section(node) is None and \
                not any(isinstance(n, c_ast.ArrayRef) and n.name is node for n in walk(rhs)):
            op = operand_of(node, scope)
            if op is not None and op.sym is not None and len(op.subs) == len(op.extents):
                out.append(op)
    return out


def _nest(tmpl: TemplateSym, tsubs: list[tuple[int, SubCode]],
          coord: object) -> Callable[[c_ast.Node], c_ast.Node]:
    """A function wrapping a body in this node's loops over the template section.  A step
    known only at run time gives one nest per combination of signs (a loop's direction
    is fixed in C), chosen by ``if``."""
    triplets = [(t, s) for t, s in tsubs if s.triplet]
    unknown = [q for q, (_t, s) in enumerate(triplets) if const(s.step) is None]

    def loops(body: c_ast.Node, upward: dict[int, bool]) -> c_ast.Node:
        for q in reversed(range(len(triplets))):
            t, s = triplets[q]
            g, start, step = f"_xmpacc_g{q}", cbuild.to_c(s.base), cbuild.to_c(s.step)
            up = upward[q] if q in upward else const(s.step) > 0  # type: ignore[operator]
            last = f"{start} + ({cbuild.to_c(s.length)} - 1) * ({step})"
            loop = cbuild.stmt(f"for (long long {g} = {start}; {g} {'<=' if up else '>='} {last}; "
                               f"{g} += {step}) ;", coord)
            pos = f"{g} - {start}" if const(s.step) == 1 else f"({g} - {start}) / ({step})"
            loop.stmt = c_ast.Compound(cbuild.stmts(f"long long _xmpacc_i{q} = {pos};", coord) + [body],
                                       coord)
            info = CanonicalLoop(g, loop.init.decls[0], start, last, step, up)
            # a collapsed dimension of the left-hand side (t < 0) is a loop on every owner
            body = distributed_for(loop, info, tmpl, t) if t >= 0 else loop
        return body

    def nest(body: c_ast.Node) -> c_ast.Node:
        combos = list(itertools.product((True, False), repeat=len(unknown)))
        out = loops(copy.deepcopy(body) if unknown else body, dict(zip(unknown, combos[-1], strict=True)))
        for combo in reversed(combos[:-1]):
            cond = " && ".join(f"({cbuild.to_c(triplets[q][1].step)}) > 0" if up else
                               f"({cbuild.to_c(triplets[q][1].step)}) < 0"
                               for q, up in zip(unknown, combo, strict=True))
            branch = cbuild.stmt(f"if ({cond}) ; else ;", coord)
            branch.iftrue, branch.iffalse = loops(copy.deepcopy(body),
                                                  dict(zip(unknown, combo, strict=True))), out
            out = branch
        for t, s in tsubs:
            if not s.triplet:
                guard = cbuild.stmt(f"if (_xmpacc_tdim_owns(&{tmpl.c_name}.dim[{t}], "
                                    f"{cbuild.to_c(s.base)})) ;", coord)
                guard.iftrue = out
                out = guard
        return out
    return nest


def lower_array(d: xd.ArrayDirective,
                stmt: c_ast.Node, scope: Scope) -> tuple[c_ast.Compound, facts.OwnerFacts]:
    if not is_array_assignment(stmt):
        raise XmpError(d.loc, "the statement after 'array' must be an array assignment statement "
                              "('a[...] = expression with sections;')")
    tmpl = _template(d, scope)
    h = Hoister(cbuild.where_literal(d.loc), stmt.coord)
    tsubs = _template_subs(d, tmpl, h)
    lhs = operand_of(stmt.lvalue, scope)
    if lhs is None:
        raise XmpError(d.loc, "only sections of named arrays are supported")
    lsubs = resolve(lhs, h)
    lshape = shape(lsubs)
    aligned = _by_alignment(lhs, lsubs, tmpl, tsubs, h)
    if aligned is None:
        conform(d.on.name.name, [s for _t, s in tsubs if s.triplet], lhs.name, lshape, lhs.loc, h)
    else:
        given, explicit = {t: s for t, s in tsubs if s.triplet}, _explicit(d)
        pairs = [(given[t], lshape[q]) for q, (t, _s) in enumerate(aligned[:len(lshape)]) if t in explicit]
        if pairs:
            conform(d.on.name.name, [a for a, _b in pairs], lhs.name, [b for _a, b in pairs], lhs.loc, h)
        tsubs = aligned
    rhs = lower_rhs(stmt.rvalue, scope, h, lhs.name, lshape, allow_distributed=True)
    elements = [(op, resolve(op, h)) for op in _distributed_elements(stmt.rvalue, scope)]
    # a left-hand side that the iteration follows is local by construction
    mine = [] if aligned is not None else [(lhs, lsubs)]
    checks, checked = _local_checks(mine + rhs.operands + elements, tmpl, tsubs, h)
    lhs_elem = element(lhs, lsubs, ivars(len(lshape)))
    nest = _nest(tmpl, tsubs, stmt.coord)

    def with_checks(body: c_ast.Node) -> c_ast.Node:
        return nest(c_ast.Compound(copy.deepcopy(checks) + [body], stmt.coord)) if checks else nest(body)

    temporary = needs_temp(lhs, lsubs, stmt.rvalue, scope)
    info = facts.OwnerFacts(written(stmt), d.on.name.name, checked, temporary)
    if temporary:
        count = " * ".join(f"_xmpacc_schedule(&{tmpl.c_name}.dim[{t}], {cbuild.to_c(s.base)}, "
                           f"{cbuild.to_c(s.base)} + ({cbuild.to_c(s.length)} - 1) * {cbuild.to_c(s.step)}, "
                           f"{cbuild.to_c(s.step)}).count" if t >= 0 else f"({cbuild.to_c(s.length)})"
                           for t, s in tsubs if s.triplet) or "1"
        body = with_temp(lhs_elem, stmt.op, rhs.expr, lhs.elem, count, with_checks, stmt.coord, nest)
    else:
        body = [with_checks(c_ast.Assignment(stmt.op, lhs_elem, rhs.expr, stmt.coord))]
    items = h.decls + h.checks + body
    for item in items:
        cbuild.set_coord(item, stmt.coord)
    return c_ast.Compound(items, stmt.coord), info


class _ArrayLowering(BlockLowering):
    def lower_at(self, items: list[c_ast.Node], i: int) -> Lowered:
        item = items[i]
        d = next((x for x in directives_of(item, self.ctx) if isinstance(x, xd.ArrayDirective)), None)
        if d is None:
            self.visit(item)
            return [item], 1
        stmt = owned_statement(items, i)
        used = 1 if stmt is None else 2
        try:
            if stmt is None:
                raise XmpError(d.loc, "the statement after 'array' must be an array assignment statement")
            lowered, info = lower_array(d, stmt, self.scope)
            self.ctx.info.append(facts.InfoFact(d.loc, info))
            return [lowered], used
        except XmpError as err:
            self.ctx.diags.add(err)
        except AlreadyReported:
            pass
        return [], used


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _ArrayLowering(ctx.scopes, ctx).visit(unit.ast)
    return unit
