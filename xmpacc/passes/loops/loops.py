"""Pass loops: ``#pragma xmp loop`` gets this node's bounds (reference §6.1, global-view §6, §7).

Before:                                   After:
    #pragma xmp loop on t[i]                  {
    for (i = 1; i < N - 1; i++)                 _xmpacc_sched_t _xmpacc_s_i =
      a[i] = ...;                                 _xmpacc_schedule(&_xmpacc_t_t.dim[0], 1, (N - 1) - 1, 1);
                                                for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last;
                                                     i += _xmpacc_s_i.step)
                                                  a[i] = ...;
                                              }

The control variable keeps global values, so the body is unchanged.  Each distributed
loop of a nest gets its schedule right before it (loopnest.py, loopsched.py): on a
template, with an offset (``t(i+1)``), on a node array (``p[i]``: iteration i on node i),
widened by ``expand``, or the rim of ``margin``; ``peel_and_wait(id, w)`` is the interior
(``expand(-w)``), ``wait_async(id)``, then the rim (``margin(-w)``).  Reduction clauses
reset non-first copies to the identity before the nest and combine after it; location
variables are tracked by locations.py.  An OpenMP line next to the directive (above or
below it) goes directly above the node's own ``for`` (openmp.py), so that the node's
iterations, and only they, run on its threads.  ``loop ... acc`` is left to the gpu pass.
"""

from __future__ import annotations

import copy
import dataclasses

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, XmpError, XmpErrors
from xmpacc.directives import ast as xd
from xmpacc.directives.exprs import negate
from xmpacc.directives.names import COLLECTIVES, xmp_name
from xmpacc.passes.common import acc_nest, describe
from xmpacc.passes.common.blocks import BlockLowering, Lowered
from xmpacc.passes.common.canonical import canonical
from xmpacc.passes.common.loopnest import NestBuilder, control_var, nested_for
from xmpacc.passes.common.loopsched import DimSched, cell_digits, dim_widths
from xmpacc.passes.common.onrefs import loop_indices, loop_offsets, loop_target, owner_guard
from xmpacc.passes.common.pragmas import directives_of, pragma_id
from xmpacc.passes.common.reductions import loop_reduction_calls
from xmpacc.passes.loops import locations, openmp
from xmpacc.passes.loops.hoist import hoist
from xmpacc.symbols import NodesSym, ScopeTree, TemplateSym


# The shape of every BlockLowering (passes/common/blocks.py): a counter of its own, then lower_at.
class _LoopLowering(BlockLowering):
    def __init__(self, tree: ScopeTree, ctx: Context, openmp_on: bool) -> None:
        super().__init__(tree, ctx)
        self.number = 0
        self.openmp_on = openmp_on   # without it cc ignores OpenMP lines: no threads to check

    def lower_at(self, items: list[c_ast.Node], i: int) -> Lowered:
        item = items[i]
        nest = acc_nest.nest_of_pragma(items, i, self.ctx) if isinstance(item, c_ast.Pragma) else None
        if nest is not None and nest.acc is not None:
            return [item], 1  # XcalableACC: the loop belongs to the OpenACC construct
        if nest is not None and nest.xmp is not None and nest.xmp.acc is None:
            return self._lower_nest(nest, items, i)
        if self.openmp_on and acc_nest.openmp_line(item) and openmp.threads_start(item):
            self._threaded(item, items[i + 1:])
        loop = self._loop_directive(item)
        if loop is None:
            self.visit(item)
            return [item], 1
        self.ctx.diags.error(loop.loc, "the loop directive must be followed by a for statement")
        return [], 1

    def _lower_nest(self, nest: acc_nest.AccNest, items: list[c_ast.Node], i: int) -> Lowered:
        """The loop directive (and OpenMP line) at ``items[i]`` and its for."""
        assert nest.xmp is not None
        used = next(k for k in range(i, len(items)) if items[k] is nest.loop) + 1 - i
        threaded = _threaded_errors(nest.xmp, nest.loop, nest.omp, self.ctx) \
            if nest.omp is not None and self.openmp_on else []
        self.visit(nest.loop)  # inner directives first
        try:
            if threaded:
                raise XmpErrors(threaded)
            return [self._lower(nest.xmp, nest.loop, nest.omp)], used
        except XmpError as err:
            self.ctx.diags.add(err)
        except XmpErrors as errs:
            for err in errs.errors:
                self.ctx.diags.add(err)
        except AlreadyReported:
            pass
        return [nest.loop], used  # so that later passes still check the body

    def _threaded(self, pragma: c_ast.Pragma, rest: list[c_ast.Node]) -> None:
        """An OpenMP construct that is no loop directive's: its statement (after the OpenMP
        lines under it) runs on several threads, so it must not call the runtime."""
        stmt = next((n for n in rest if not acc_nest.openmp_line(n)), None)
        if stmt is not None:
            for err in openmp.threaded_errors(stmt, pragma, self.ctx, "code"):
                self.ctx.diags.add(err)

    def _check_body(self, body: c_ast.Node) -> None:
        """Communication inside a distributed loop runs on the owners of one iteration only,
        which deadlocks the others (reference §6.1: LATER, rejected)."""
        for node in walk(body):
            for d in directives_of(node, self.ctx):
                if type(d) in COLLECTIVES:
                    raise XmpError(d.loc, f"'{xmp_name(d)}' inside the body of a loop directive is not "
                                          "supported yet")

    def _loop_directive(self, item: c_ast.Node) -> xd.Loop | None:
        if pragma_id(item) is None:
            return None
        ds = [d for d in self.ctx.directives.get(id(item), []) if isinstance(d, xd.Loop)]
        if ds and ds[0].acc is not None:
            return None  # the gpu pass owns loop ... acc
        return ds[0] if ds else None

    def _lower(self, loop: xd.Loop, node: c_ast.For, omp: c_ast.Pragma | None) -> c_ast.Node:
        target = loop_target(loop, self.scope)
        self._check_body(node.stmt)
        indices = dict(loop_indices(loop))
        offsets = loop_offsets(loop)
        mode, widths = dim_widths(loop, target)
        _check_nest(loop, node, indices)
        self.number += 1
        number = self.number
        decls, keys, parts = locations.instrument(loop, node, indices, number, self.scope)
        mask = [0] * target.ndims
        for t in indices.values():
            mask[t] = 1
        before, after = loop_reduction_calls(loop, target, mask, self.scope, node.coord, keys)
        if loop.peel_and_wait is not None:
            nests = self._peel_and_wait(loop, node, target, indices, offsets, number, parts)
        else:
            nests = [self._nest(loop, node, target, indices, offsets, mode, widths, number, parts)]
        nests = [hoist(n, self._elem_type, self._fixed) for n in nests]
        if omp is not None:   # above the node's own for, in each part
            nests = [openmp.place(n, omp, self.scope) if _has_for(n) else n for n in nests]
        if parts is not None:
            nests = cbuild.stmts(parts.start, node.coord) + nests + cbuild.stmts(parts.finish, node.coord)
        if isinstance(target, TemplateSym):
            self.ctx.info.append(describe.loop(loop, target, indices))
        return owner_guard(loop, target, indices, c_ast.Compound(decls + before + nests + after, node.coord))

    def _elem_type(self, name: str) -> c_ast.Node | None:
        sym = self.scope.find_array(name)
        return None if sym is None else sym.elem_type

    def _fixed(self, name: str) -> bool:
        sym = self.scope.find_array(name)
        return sym is not None and not sym.is_pointer and not sym.is_param

    def _nest(self, loop: xd.Loop, node: c_ast.For, target: TemplateSym | NodesSym, indices: dict[str, int],
              offsets: dict[str, str | None], mode: str, widths: dict[int, xd.LoopWidth], number: int,
              parts: locations.Parts | None) -> c_ast.Node:
        """The nest of ``mode``; ``parts``: each cell of a margin nest (or the nest) is a part."""
        cell = f"_xmpacc_cell_{number}" if mode == "margin" and widths else None
        digits = cell_digits(cell, [var for var, t in indices.items() if t in widths]) if cell else {}
        scheds = {var: DimSched(var, t, offsets.get(var), mode, widths.get(t), digits.get(var))
                  for var, t in indices.items()}
        nest = NestBuilder(target, loop.on.style, scheds, cell).build(node)
        return nest if parts is None else parts.around(nest, cell)

    def _peel_and_wait(self, loop: xd.Loop, node: c_ast.For, target: TemplateSym | NodesSym,
                       indices: dict[str, int], offsets: dict[str, str | None], number: int,
                       parts: locations.Parts | None) -> list[c_ast.Node]:
        """The interior (no shadow needed), wait_async(id), then the rim (global-view §7)."""
        peel = loop.peel_and_wait
        assert peel is not None
        shrink = tuple(xd.LoopWidth(xd.Expr(negate(w.lower.text), w.lower.loc),
                                    xd.Expr(negate(w.upper.text), w.upper.loc),
                                    w.unbound) for w in peel.widths)
        _mode, inner = dim_widths(dataclasses.replace(loop, expand=shrink, peel_and_wait=None), target)
        _mode, rim = dim_widths(dataclasses.replace(loop, margin=shrink, peel_and_wait=None), target)
        interior = self._nest(loop, copy.deepcopy(node), target, indices, offsets, "expand",
                              inner, number, parts)
        wait = cbuild.stmts(f"_xmpacc_wait_async({cbuild.where_literal(loop.loc)}, 1, "
                            f"(const long long []){{({peel.async_id.text})}}, 0, 0);", node.coord)
        return [interior] + wait + [self._nest(loop, node, target, indices, offsets,
                                               "margin", rim, number, parts)]


def _check_nest(loop: xd.Loop, node: c_ast.For, indices: dict[str, int]) -> None:
    """Every distributed index must control a loop of the perfect nest."""
    pending, current = set(indices), node
    while current is not None and pending:
        var = control_var(current)
        if var is None:
            canonical(current)  # reports what is wrong with the loop's initialisation
        pending.discard(var or "")
        current = nested_for(current.stmt) if pending else None
    if pending:
        name = next(v for v in indices if v in pending)
        raise XmpError(loop.loc, f"cannot find the loop statement of index '{name}' in the loop nest")


def _threaded_errors(loop: xd.Loop, node: c_ast.For, omp: c_ast.Pragma, ctx: Context) -> list[XmpError]:
    """What cannot run on the threads of an OpenMP line: the runtime's calls (directives
    in the body), and the per-node records of location variables."""
    located = next((r for r in loop.reductions for v in r.variables if v.locations), None)
    errors = openmp.threaded_errors(node.stmt, omp, ctx, "a loop")
    if located is not None:
        line = f"'#pragma {omp.string.strip()}'"
        errors.append(XmpError(located.loc, f"a reduction with location variables on a loop that {line} "
                                            "splits over threads is not supported yet: its records are kept "
                                            "per node, not per thread"))
    return errors


def _has_for(node: c_ast.Node) -> bool:
    return any(isinstance(n, c_ast.For) for n in walk(node))


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _LoopLowering(ctx.scopes, ctx, openmp.enabled(unit)).visit(unit.ast)
    return unit  # errors stay collected until the check stage


