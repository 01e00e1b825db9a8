"""Pass gpu: XMP-ACC directives (reference §7).

* ``acc replicate`` regions (block and file scope) and ``acc replicate_sync``: replicate.py;
* ``loop ... acc``: the nest's schedules stay on the host, the body of the innermost
  distributed loop becomes a kernel (kernels.py) collected in ``ctx.kernels``, and the loop
  becomes a ``_xmpacc_launch`` call.  Reductions use the host clause machinery around it;
  those with location variables are tracked per thread (kernel_locations.py), those of
  arrays and sections updated atomically on a device temporary (kernel_arrays.py).

Replicated variables are tracked lexically, like O11: a loop sees a variable as
replicated only inside the region's compound statement.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, XmpError, XmpErrors
from xmpacc.directives import ast as xd
from xmpacc.passes.common import acc_nest, describe
from xmpacc.passes.common.blocks import Lowered, rewrite_block
from xmpacc.passes.common.canonical import CanonicalLoop, canonical
from xmpacc.passes.common.loopnest import control_var, nested_for
from xmpacc.passes.common.loopsched import cyclic_loops
from xmpacc.passes.common.onrefs import loop_indices, loop_template, owner_guard
from xmpacc.passes.common.pragmas import directives_of, pragma_id
from xmpacc.passes.common.reductions import loop_reduction_calls
from xmpacc.passes.common.shadows import OverlapCalls, overlap_calls, push_name, reflect_calls
from xmpacc.passes.common.values import Replicated
from xmpacc.passes.gpu import replicate, routine_args
from xmpacc.passes.gpu.acc_loopnest import kernel_lists, strip_inner
from xmpacc.passes.kernel import (
    kernel_arrays,
    kernel_gen,
    kernel_location_elements,
    kernel_locations,
    kernel_ranges,
)
from xmpacc.passes.kernel.block_shape import BlockRequest
from xmpacc.scoping import ScopedWalker
from xmpacc.symbols import ScopeTree, TemplateSym


class _GpuLowering(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context, unit: Unit, file_reps: list[Replicated]) -> None:
        super().__init__(tree)
        self.ctx, self.unit = ctx, unit
        self.active: list[Replicated] = list(file_reps)
        self.regions = 0
        # reflect pragma -> its loop's peel, and whether the loop's kernel pushes
        self.overlapped: dict[int, tuple[tuple[tuple[int, int], ...], bool]] = {}

    def visit_Compound(self, node: c_ast.Compound) -> None:
        present = self.ctx.acc_present.get(id(node), [])  # an OpenACC data region (acc_data.py)
        self.active += present
        try:
            self._compound(node)
        finally:
            del self.active[len(self.active) - len(present):]

    def _compound(self, node: c_ast.Compound) -> None:
        items = list(node.block_items or [])
        rewrite_block(node, self._lower_at)
        for item in items:  # --info: acc reflect and replicate_sync (loops and regions: below)
            self.ctx.info += describe.directive(self._acc_directive(item), self.scope, self.active,
                                                *self.overlapped.get(id(item), ((), False)))

    def _lower_at(self, items: list[c_ast.Node], i: int) -> Lowered:
        item, nxt = items[i], items[i + 1] if i + 1 < len(items) else None
        d = self._acc_directive(item)
        if d is None:
            self.visit(item)
            return [item], 1
        if isinstance(d, xd.Loop) and acc_nest.has_acc_construct(items, i, self.ctx):
            return [item], 1  # XcalableACC: the loop belongs to the OpenACC construct
        nest = acc_nest.nest_of_pragma(items, i, self.ctx) if isinstance(d, xd.Loop) else None
        if nest is not None and nest.omp is not None:
            self.ctx.diags.add(acc_nest.openmp_on_device(nest.omp, "on a 'loop ... acc'"))
            return [nest.loop], next(k for k in range(i, len(items)) if items[k] is nest.loop) + 1 - i
        owned, taken = None, 1
        try:
            if isinstance(d, xd.AccReplicateSync):
                return replicate.sync_calls(d, self.scope, self.active, item.coord), 1
            overlap = self._overlap(d, items, i)
            if isinstance(d, xd.Reflect) and overlap is None:
                return reflect_calls(d, self.scope, item.coord), 1   # present or not: at run time
            if overlap is not None:   # the reflect, then its loop's interior, join, rim
                loop, peel = overlap
                owned, taken = items[i + 2], 3
                push = push_name(d, peel)
                lowered = self._loop(loop, owned, (peel, overlap_calls(d, push)))
                push = push if push in self.ctx.pushes else ""   # the kernel took it
                self.overlapped[id(item)] = (peel, bool(push))
                return reflect_calls(d, self.scope, item.coord, overlap=True, push=push) + [lowered], taken
            if isinstance(nxt, (c_ast.Compound, c_ast.For)):
                owned, taken = nxt, 2   # the directive owns the next statement
            lowered = self._region(d, owned) if isinstance(d, xd.AccReplicate) else self._loop(d, owned)
            return [lowered], taken
        except (XmpError, XmpErrors) as err:
            for e in err.errors if isinstance(err, XmpErrors) else [err]:
                self.ctx.diags.add(e)
        except AlreadyReported:
            pass
        return ([] if owned is None else [owned]), taken   # later passes still check it

    def _overlap(self, d: xd.Directive, items: list[c_ast.Node],
                 i: int) -> tuple[xd.Loop, tuple[tuple[int, int], ...]] | None:
        """A reflect ... acc whose exchange the next loop ... acc overlaps, with that loop
        and the peel, when the loop is this pass's (no OpenACC construct: acc_compute.py's)."""
        found = acc_nest.overlapped_nest(items, i, self.ctx) if isinstance(d, xd.Reflect) else None
        if found is None or found[1].acc is not None or found[1].xmp is None or i + 2 >= len(items) \
                or found[1].loop is not items[i + 2]:
            return None
        return found[1].xmp, found[2].peel

    def _acc_directive(self, item: c_ast.Node) -> xd.Directive | None:
        if pragma_id(item) is None:
            return None
        for d in self.ctx.directives.get(id(item), []):
            if isinstance(d, (xd.AccReplicate, xd.AccReplicateSync)) or (isinstance(d, xd.Loop) and d.acc) \
                    or (isinstance(d, xd.Reflect) and d.acc):
                return d
        return None

    def _region(self, d: xd.AccReplicate, body: c_ast.Node | None) -> c_ast.Node:
        if not isinstance(body, c_ast.Compound):
            raise XmpError(d.loc, "acc replicate inside a function must be followed by a compound "
                                  "statement { ... }")
        reps = replicate.resolve(d, self.scope, self.active)
        self.regions += 1
        self.active += reps
        try:
            self.visit(body)
        finally:
            del self.active[len(self.active) - len(reps):]
        self.ctx.info.append(describe.replicate(d, reps))
        return replicate.region_block(d, reps, body, f"_xmpacc_rep_{self.regions}")

    def _loop(self, d: xd.Loop, node: c_ast.Node | None,
              overlap: tuple[tuple[tuple[int, int], ...], OverlapCalls] | None = None) -> c_ast.Node:
        """A loop ... acc; ``overlap``: the peel and the join of the reflect it overlaps."""
        if not isinstance(node, c_ast.For):
            raise XmpError(d.loc, "the loop directive must be followed by a for statement")
        tmpl = self._template(d)
        indices = dict(loop_indices(d))
        loops, fors = _distributed_prefix(node, indices, tmpl, d)
        if not fors:
            raise XmpError(d.on.loc, "'loop ... acc' whose on-ref names no loop index (as in "
                                     f"'{d.on.template.name}[i]') is not supported yet")
        tracked, elements = kernel_location_elements.scalarize(d, fors[-1], self.scope)
        located = kernel_locations.located(tracked, loops, self.scope)
        body = fors[-1].stmt
        assert d.acc is not None
        # the two dialects mix: inner 'acc loop' lines go (their loops run in the thread,
        # reductions over lanes where lanes.py splits them), adding their private lists and
        # their reductions of outside variables; 'acc atomic' statements are atomic
        inner_private, inner_reductions = strip_inner(body, self.ctx)
        private, private_lengths, outside = kernel_lists(body, [xd.VarRef(n, None, n.loc)
                                                                for n in d.acc.private],
                                                         inner_private, inner_reductions, (), self.scope)
        for n in d.acc.private + d.acc.firstprivate:
            found = self.scope.find_c(n.name)
            if found is not None and (isinstance(found[1].type, c_ast.ArrayDecl)
                                      or self.scope.find_array(n.name)):
                raise XmpError(n.loc, f"'{n.name}' is an array; private and firstprivate take scalars only")
        if d.acc.shared:
            raise XmpError(d.acc.shared[0].loc, "the shared clause is not supported yet "
                                                "(replicated variables are shared already)")
        refs = [(r.op, v.ref) for r in d.reductions for v in r.variables if not v.locations]
        refs += outside
        reductions, arrays = kernel_arrays.split(refs, self.scope)
        launches = kernel_ranges.passes(loops, d, tmpl, indices) if overlap is None else \
            kernel_ranges.overlapped(loops, d, tmpl, indices, *overlap)
        spec = kernel_gen.NestSpec(
            d.loc, node, loops, launches,
            routine_args.routine_globals(body, self.ctx.acc_routine_globals),
            list(dict.fromkeys(private)), [n.name for n in d.acc.firstprivate], reductions,
            _block_request(d.acc.num_threads), cyclic=cyclic_loops(loops, tmpl, indices),
            located=located, arrays=arrays, to_host=True, private_lengths=private_lengths,
            push=None if overlap is None else kernel_ranges.push_of(loops, d, indices, *overlap))
        gen = kernel_gen.generate(spec, self.scope, self.active + self.ctx.acc_entered, self.ctx, self.unit,
                                  lambda n: pragma_id(n) is not None)
        self.ctx.info.append(describe.kernel(d, tmpl, indices, gen.kernel, gen.kv, gen.plan))
        mask = [0] * tmpl.ndims
        for t in indices.values():
            mask[t] = 1
        keys, key_of = kernel_locations.host_decls(located, node.coord)
        before, after = loop_reduction_calls(d, tmpl, mask, self.scope, node.coord, key_of)
        inits, results = kernel_location_elements.host_text(elements)
        return owner_guard(d, tmpl, indices, c_ast.Compound(keys + cbuild.stmts(inits, node.coord) + before
                                                            + cbuild.stmts(gen.host_text, node.coord)
                                                            + cbuild.stmts(results, node.coord) + after,
                                                            node.coord))

    def _template(self, d: xd.Loop) -> TemplateSym:
        return loop_template(d, self.scope)


def _distributed_prefix(node: c_ast.For, indices: dict[str, int], tmpl: TemplateSym,
                        d: xd.Loop) -> tuple[list[CanonicalLoop], list[c_ast.For]]:
    """The distributed loops, which must be the outermost loops of the nest."""
    pending = dict(indices)
    loops: list[CanonicalLoop] = []
    fors: list[c_ast.For] = []
    current: c_ast.For | None = node
    while current is not None and pending:
        var = control_var(current)
        if var not in pending:
            raise XmpError(loc_of(current), f"in a loop ... acc nest the distributed loops must come first; "
                                            f"'{var}' is not distributed (not supported yet)")
        pending.pop(var)
        loops.append(canonical(current))
        fors.append(current)
        current = nested_for(current.stmt) if pending else None
    if pending:
        raise XmpError(d.loc,
                       f"cannot find the loop statement of index '{next(iter(pending))}' in the loop nest")
    return loops, fors


def _file_scope(unit: Unit, ctx: Context) -> list[Replicated]:
    """``acc replicate`` at file scope: allocated at start-up, alive for the whole program."""
    assert ctx.scopes is not None
    reps: list[Replicated] = []
    kept = []
    for item in unit.ast.ext:
        ds = directives_of(item, ctx)
        reg = [x for x in ds if isinstance(x, xd.AccReplicate)]
        if not reg:
            kept.append(item)
            continue
        try:
            new = replicate.resolve(reg[0], ctx.scopes.root, reps)
            ctx.init_stmts += cbuild.stmts(f"{replicate.begin_call(reg[0], new, '')};", item.coord)
            reps += new
            ctx.info.append(describe.replicate(reg[0], new, file_scope=True))
        except XmpError as err:
            ctx.diags.add(err)
    unit.ast.ext = kept
    return reps


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    file_reps = _file_scope(unit, ctx)
    _GpuLowering(ctx.scopes, ctx, unit, file_reps).visit(unit.ast)
    return unit  # errors stay collected until the check stage


def _block_request(num_threads: tuple[xd.Expr, ...]) -> BlockRequest | None:
    """``num_threads(x, y, z)`` (reference §7.4): x the block's width along the innermost
    loop, y * z its rows (block_shape.py); None without the clause (the runtime's 256)."""
    if not num_threads:
        return None
    rows = " * ".join(f"({e.text})" for e in num_threads[1:]) or None
    return BlockRequest(num_threads[0].text, rows, f"num_threads({', '.join(e.text for e in num_threads)})")
