"""Pass acc_compute: XcalableACC compute constructs (XcalableACC.md §2) onto the one kernel
generator (kernel_gen.py), the same one that makes XMP-ACC's ``loop ... acc`` kernels.

Before:                                        After (host C; the kernel goes to prog.cu):
    #pragma xmp loop on t[i] reduction(+:s)        { int _xmpacc_acc_1 = _xmpacc_acc_compute_begin(
    #pragma acc parallel loop reduction(+:s)           "f.c:12", 1, (const void *[]){&_xmpacc_a_a}, ...);
    for (i = 0; i < N; i++)                          { <s saved> _xmpacc_sched_t _xmpacc_s_i = ...;
      s += a[i];                                       _xmpacc_launch("f.c:12", "_xmpacc_loop_f_c_12", ...);
                                                       <XMP reduction of s over the nodes> }
                                                     _xmpacc_acc_compute_end(_xmpacc_acc_1); }

* ``parallel loop`` / ``kernels loop``: one kernel over the nest (acc_loopnest.py), with
  or without an XMP ``loop`` in either order above it;
* ``parallel`` / ``kernels`` followed by a statement, usually ``{ ... }`` holding ``acc
  loop`` nests: one kernel per nest, in order, inside one data region; the other statements
  run as kernels of one thread or, on scalars only, on the host (acc_region.py); a ``for``
  in ``kernels`` without ``acc loop`` is parallel when acc_kernels_auto.py proves it, else
  one thread;
* constructs stacked without braces (``data`` + ``kernels`` + ``loop`` + ``for``): the
  inner lines with their statement are the outer line's statement (blocks.py:
  construct_statement), lowered as if in braces, which a data construct's statement gets
  here for acc_data.py;
* ``async(n)``: the kernels between ``_xmpacc_acc_queue_begin`` and ``_queue_end`` go on
  queue n; ``wait(...)``: ``_xmpacc_acc_wait`` before the construct;
* data: the construct's clauses, then every array its kernels use that no clause names
  (OpenACC 2.5 implicit ``copy``; ``default(present)``: ``present``), all with present_or
  semantics at run time (runtime/acc_compute.py); scalars are firstprivate unless a clause
  of the construct or an enclosing ``acc replicate`` puts them on the device.

Runs before the gpu pass, so it still sees the ``acc replicate`` regions around it.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, SourceLoc, XmpError, XmpErrors
from xmpacc.directives import ast as xd
from xmpacc.directives.names import xmp_name
from xmpacc.directives.openacc_ast import (
    AccAtomic,
    AccCompute,
    AccData,
    AccHostData,
    AccLoop,
    AccWait,
    DataClause,
    WaitClause,
    directive_name,
)
from xmpacc.facts import InfoFact, WaitFacts
from xmpacc.passes.common import acc_comm, acc_nest, describe, shadows
from xmpacc.passes.common.acc_clauses import check_writable, queue_arg, read_only, wait_clause_call
from xmpacc.passes.common.accesses import address_taken
from xmpacc.passes.common.blocks import Lowered, construct_statement, reported_inside, rewrite_items
from xmpacc.passes.common.onrefs import owner_guard
from xmpacc.passes.common.pragmas import acc_directive, is_directive, pragma_id
from xmpacc.passes.common.reductions import loop_reduction_calls
from xmpacc.passes.common.values import Replicated, identity_of
from xmpacc.passes.gpu import acc_loopnest, acc_reduction_wait, acc_region, acc_wait_functions, kernel_deref
from xmpacc.passes.gpu.acc_reduction_wait import Waits
from xmpacc.passes.kernel import (
    acc_atomic,
    kernel_gen,
    kernel_location_elements,
    kernel_locations,
    kernel_members,
    kernel_ranges,
)
from xmpacc.passes.kernel.kernel_vars import outer_ids
from xmpacc.runtime.contract import DATA_COPY, DATA_COPYIN, DATA_COPYOUT, DATA_CREATE, DATA_PRESENT
from xmpacc.scoping import ScopedWalker
from xmpacc.symbols import Scope, ScopeTree, is_member_path, member_array

_MODES = {"copy": DATA_COPY, "present_or_copy": DATA_COPY, "copyin": DATA_COPYIN,
          "present_or_copyin": DATA_COPYIN, "copyout": DATA_COPYOUT, "present_or_copyout": DATA_COPYOUT,
          "create": DATA_CREATE, "present_or_create": DATA_CREATE, "present": DATA_PRESENT}


@dataclass
class _Datum:
    rep: Replicated
    size: str       # C expression: bytes, -1 for an aligned array
    mode: int


class _ComputeLowering(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context, unit: Unit, present: list[Replicated]) -> None:
        super().__init__(tree)
        self.ctx, self.unit = ctx, unit
        self.present = present      # scalars of enclosing acc replicate regions
        self.constructs = 0
        self.deferred: set[str] = set()   # reductions the construct just lowered left on the device
        self.address_taken: set[str] = set()   # in the function being lowered: never deferred
        self.function: c_ast.Node = c_ast.Compound([])   # the body of the function being lowered
        self.loop: c_ast.Node | None = None   # the statement of a block being visited (its body may be next)
        self.carried: Waits | None = None   # the waits a loop's body left past its end
        self.functions = acc_wait_functions.WaitingFunctions()   # those whose callers owe their wait
        self.function_name = ""

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self.address_taken = address_taken(node.body)
        self.function = node.body
        self.function_name = node.decl.name
        self.generic_visit(node)

    # ------------------------------------------------------------ walking

    def visit_Compound(self, node: c_ast.Compound) -> None:
        loop, self.loop = self.loop, None
        items = list(node.block_items or [])
        waits = Waits()
        to_callers = node is self.function and self.function_name in self.functions.bodies
        carries = to_callers or acc_reduction_wait.waits_in_body(loop, node, items, self.functions, self.ctx)
        if carries:   # the next iteration's (or call's) statements run while the host owes the wait
            waits.owe(acc_wait_functions.every_queue_wait(node))
        out = rewrite_items(items, lambda items, i: self._lower_at(items, i, waits, carries))
        if to_callers:   # they owe its acc wait (its variables' results end with it)
            out += cbuild.stmts(waits.settle_names(), node.coord)
            waits.tell(self.ctx, f"in the callers of {self.function_name}")
        # a host wait moves past the back edge only where the body was lowered owing it
        elif waits and (carries or not waits.owed) \
                and acc_reduction_wait.carried(loop, node, items, waits.names):
            out = cbuild.stmts(acc_reduction_wait.discard_calls(waits.names), node.coord) + out
            self.carried = waits
        elif waits:
            out += cbuild.stmts(waits.settle(self.ctx, "at the end of its block"), node.coord)
        node.block_items = out

    def _lower_at(self, items: list[c_ast.Node], i: int, waits: Waits, carries: bool) -> Lowered:
        item = items[i]
        out: list[c_ast.Node] = []
        nest = acc_nest.nest_of_pragma(items, i, self.ctx) if is_directive(item) else None
        if waits and not acc_reduction_wait.may_pass(items, i, nest, waits, self.functions, self.ctx):
            out += cbuild.stmts(waits.settle(self.ctx, f"before line {loc_of(item).line}"), item.coord)
        wait = acc_wait_functions.plain_wait(item, self.ctx) if is_directive(item) else None
        if wait is not None:
            return out + self._wait(items, i, wait, waits, carries), 1
        first, launches = i, None
        overlap = acc_nest.overlapped_nest(items, i, self.ctx)
        if overlap is not None and isinstance(overlap[1].acc, AccCompute):
            # reflect ... acc, then the construct's interior, join, rim (its lines and nest, below)
            reflect, nest, peel = overlap[0], overlap[1], overlap[2].peel
            push = shadows.push_name(reflect, peel)
            launches, i = (peel, shadows.overlap_calls(reflect, push)), i + 1
        if nest is not None and isinstance(nest.acc, AccCompute) and nest.acc.loop is not None:
            end = next(k for k in range(i, len(items)) if items[k] is nest.loop) + 1
            at = len(out)
            out.append(self._guarded(nest.acc, lambda: self._combined(nest, launches), nest.loop))
            if launches is not None:   # the reflect's calls before it, with the push its kernel took
                push = push if push in self.ctx.pushes else ""
                out[at:at] = shadows.reflect_calls(reflect, self.scope, item.coord, overlap=True, push=push)
                self.ctx.info += describe.directive(reflect, self.scope, overlap=peel, push=bool(push))
            if self.deferred:
                waits.names |= self.deferred
                waits.at = cbuild.where_literal(nest.acc.loc)
                self.deferred = set()
            return out, end - first
        d = acc_directive(item, self.ctx)
        if isinstance(d, AccCompute):
            body, end = construct_statement(items, i, self.ctx)
            if body is None and reported_inside(items, i, self.ctx):
                return out, 1
            out.append(self._guarded(d, lambda: self._region(d, body), body))
            return out, end - i
        if isinstance(d, (AccData, AccHostData)):
            body, end = construct_statement(items, i, self.ctx)
            if body is not None:   # (acc_data.py reports a missing statement)
                return out + self._data_construct(item, d, body), end - i
        reps = self._replicated_scalars(item, items[i + 1] if i + 1 < len(items) else None)
        self.present += reps
        self.loop = item
        self.visit(item)
        self.loop = None
        out.append(item)
        used = 1
        if self.carried is not None:   # a loop whose body's waits are made after it
            waits.take(self.carried)
            self.carried = None
        if self.functions.called(item):   # a function whose acc wait its callers owe
            waits.owe(acc_wait_functions.every_queue_wait(item))
        if reps and i + 1 < len(items):
            self.visit(items[i + 1])
            out.append(items[i + 1])
            used = 2
        del self.present[len(self.present) - len(reps):]
        return out, used

    def _wait(self, items: list[c_ast.Node], i: int, d: AccWait, waits: Waits,
              carries: bool) -> list[c_ast.Node]:
        """``acc wait``: on the device where only device work follows it until the host's
        own wait (acc_reduction_wait.py), else the host's, with what the block owes."""
        where = cbuild.where_literal(d.loc)
        clause = WaitClause(d.queues, d.loc)
        self.ctx.acc_directives.pop(id(items[i]), None)   # lowered here, not by acc_data.py
        if acc_reduction_wait.passes_next(items, i, waits, carries, self.functions, self.ctx):
            waits.owe(wait_clause_call(clause, where))
            waits.remarks.append(len(self.ctx.info))
            self.ctx.info.append(InfoFact(d.loc, WaitFacts("after the loop")))   # (until told where)
            return cbuild.stmts(wait_clause_call(clause, where, "_xmpacc_acc_wait_on_device"), items[i].coord)
        settled = waits.settle(self.ctx, f"at line {d.loc.line}")
        return cbuild.stmts(settled + wait_clause_call(clause, where), items[i].coord)

    def _guarded(self, d: AccCompute, lower, fallback: c_ast.Node | None) -> c_ast.Node:  # type: ignore[no-untyped-def]
        """Lower one construct; on a mistake report it and keep the statement without its
        directives (so that the check stage does not report the construct again)."""
        try:
            return lower()
        except (XmpError, XmpErrors) as err:
            for e in err.errors if isinstance(err, XmpErrors) else [err]:
                self.ctx.diags.add(e)
        except AlreadyReported:
            pass
        if fallback is None:
            return c_ast.EmptyStatement()
        # nor its inner acc loop / atomic lines: one mistake, one message (out of the
        # statement too, so that an XMP loop above an acc loop still finds its for)
        for node in list(cbuild.walk(fallback)):
            if pragma_id(node, "acc") is not None:
                self.ctx.acc_directives.pop(id(node), None)
            if isinstance(node, c_ast.Compound) and node.block_items:
                node.block_items = [item for item in node.block_items if pragma_id(item, "acc") is None]
        return fallback

    def _replicated_scalars(self, item: c_ast.Node, nxt: c_ast.Node | None) -> list[Replicated]:
        """Scalars of an ``acc replicate`` region that starts at ``item``: shared on the
        device."""
        if not isinstance(nxt, c_ast.Compound):
            return []
        return _replicate_scalars(item, self.scope, self.ctx)

    def _data_construct(self, item: c_ast.Node, d: AccData | AccHostData,
                        body: c_ast.Node) -> list[c_ast.Node]:
        """A data or host_data construct (acc_data.py lowers it) and its statement, in braces
        (constructs stacked on it: construct_statement), with the constructs inside lowered;
        the scalars of a data construct are shared on the device there (OpenACC: a scalar of
        an enclosing data construct is not firstprivate)."""
        block = body if isinstance(body, c_ast.Compound) else c_ast.Compound([body], body.coord)
        reps = [] if isinstance(d, AccHostData) else \
            [r for clause in d.data if clause.kind not in ("deviceptr", "delete")
             for ref in clause.items if ref.subs is None
             for r in [_scalar(self.scope, ref.name.name)] if r is not None]
        self.present += reps
        self.visit(block)
        del self.present[len(self.present) - len(reps):]
        return [item, block]

    # ------------------------------------------------------------ constructs

    def _combined(self, nest: acc_nest.AccNest,
                  overlap: tuple[tuple[tuple[int, int], ...], shadows.OverlapCalls] | None = None
                  ) -> c_ast.Node:
        """A combined construct over its nest; ``overlap``: the peel and the join of the
        reflect ... acc before it, whose exchange its interior overlaps."""
        assert isinstance(nest.acc, AccCompute) and nest.acc.loop is not None
        if nest.omp is not None:
            raise acc_nest.openmp_on_device(nest.omp, "on an OpenACC compute construct")
        host = _host_copy([p for p in [nest.xmp_pragma] if p is not None] + [nest.loop]) \
            if nest.acc.if_ is not None else None
        nest.loop.stmt = kernel_deref.as_subscripts(nest.loop.stmt, kernel_deref.pointer_names(nest.loop.stmt,
                                                                                               self.scope))
        part = acc_loopnest.build(nest, nest.acc, nest.acc.loop, self.scope, self.ctx, self.function, overlap)
        defer = not (part.xmp is not None and part.xmp.reductions) \
            and kernel_ranges.one_launch(part.spec.passes)   # not margin / peel_and_wait
        return _if(nest.acc, self._construct(nest.acc, [part], nest.loop.coord, defer=defer), host)

    def _region(self, d: AccCompute, body: c_ast.Node | None) -> c_ast.Node:
        name = directive_name(d)
        if d.loop is not None:   # not above a for nest (_lower_at takes those)
            raise XmpError(d.loc, f"'{name}' must be followed by a for loop")
        if body is None:
            raise XmpError(d.loc, f"'{name}' must be followed by a statement")
        if not isinstance(body, c_ast.Compound):   # any statement is a structured block
            body = c_ast.Compound([body], body.coord)
        host = _host_copy([body]) if d.if_ is not None else None
        body = kernel_deref.as_subscripts(body, kernel_deref.pointer_names(body, self.scope))
        inner = self.tree.by_node.get(id(body), self.scope)
        region = acc_region.Region(d, inner, self._device_scalars(d, inner), self.ctx)
        parts = _region_items(body.block_items or [], self.ctx)
        kernels = d.construct == "kernels"
        # its for loops in 'kernels' are acc_kernels_auto.py's, scalars included
        region.adopt([item for nest, item in parts if nest is None and not is_directive(item)
                      and not (kernels and isinstance(item, c_ast.For))])
        steps: list[acc_loopnest.AccLoopNest | c_ast.Node] = []
        for k, (nest, item) in enumerate(parts):
            if nest is not None and nest.acc is None:
                # an XMP loop without 'acc loop': the node's iterations, which XMP says are
                # independent, as under 'acc loop independent' (X §2.2)
                steps.append(acc_loopnest.implicit(nest.loop, d, inner, self.ctx,
                                                   "auto", self.function, nest))
            elif nest is not None:
                assert isinstance(nest.acc, AccLoop)
                steps.append(acc_loopnest.build(nest, d, nest.acc.loop, inner, self.ctx, self.function))
            elif kernels and isinstance(item, c_ast.For):
                steps.append(self._kernels_loop(d, item, inner))
            elif is_directive(item):
                what = acc_directive(item, self.ctx)
                if what is None:   # X §6: of the XMP directives only loop
                    xmp = self.ctx.directives.get(id(item), [])
                    at, word = (xmp[0].loc, xmp_name(xmp[0])) if xmp else (loc_of(item), "directive")
                    raise XmpError(at, f"'xmp {word}' is not allowed inside an OpenACC compute construct "
                                       f"('{name}'): of the XMP directives only loop may stand there")
                # data, update, wait ...: OpenACC has none in a construct
                if not isinstance(what, AccAtomic):
                    raise XmpError(what.loc, f"'{directive_name(what)}' is not allowed inside an OpenACC "
                                             f"compute construct ('{name}')")
                # outside the region's loops a statement runs in one thread (acc_region.py),
                # so its atomic is the statement itself, which comes next; its form is checked
                stmt = parts[k + 1][1] if k + 1 < len(parts) and parts[k + 1][0] is None else None
                if stmt is None or is_directive(stmt):
                    raise XmpError(what.loc, "'acc atomic' must be followed by a statement")
                acc_atomic.lower(what, copy.deepcopy(stmt))
            else:
                steps.append(region.step(item))
        return _if(d, self._construct(d, steps, body.coord, region), host)

    def _kernels_loop(self, d: AccCompute, loop: c_ast.For, scope: Scope) -> acc_loopnest.AccLoopNest:
        """A for loop of a kernels region without 'acc loop': as if under 'acc loop auto'
        (acc_loopnest._auto: independent, else one thread running it in order)."""
        return acc_loopnest.implicit(loop, d, scope, self.ctx, "auto", self.function)

    def _device_scalars(self, d: AccCompute, scope: Scope) -> set[int]:
        """The declarations of the scalars with a device copy in the construct: its data
        clauses and the enclosing acc replicate / data regions this pass knows."""
        out = {id(r.decl) for r in self.present if not r.member}
        for clause in d.data:
            for ref in clause.items:
                found = scope.find_c(ref.name.name)
                if found is not None and not is_member_path(ref.name.name):
                    out.add(id(found[1]))
        return out

    def _construct(self, d: AccCompute, steps: list[acc_loopnest.AccLoopNest | c_ast.Node], coord: object,
                   region_stmts: acc_region.Region | None = None, defer: bool = False) -> c_ast.Node:
        """``defer``: a combined construct whose reductions may reach the host later
        (acc_reduction_wait.py); ``self.deferred`` then names them."""
        parts = [s for s in steps if isinstance(s, acc_loopnest.AccLoopNest)]
        d, around = _data_region_clauses(d, self.scope)
        data = self._data(d, parts, [ref for clause in around for ref in clause.items])
        if region_stmts is not None:
            data += _adopted_data(d, region_stmts, data)
        replicated = [x.rep for x in data] + [r for r in self.present
                                              if all(r.identity != x.rep.identity for x in data)]
        self.constructs += 1
        region = f"_xmpacc_acc_{self.constructs}"
        where = cbuild.where_literal(d.loc)
        items = cbuild.stmts(wait_clause_call(d.wait, where)
                             + f"int {region} = {_begin_call(d.loc, data)};", coord)
        if d.async_ is not None:   # the kernels go on the queue's stream
            items += cbuild.stmts(f"_xmpacc_acc_queue_begin({where}, {queue_arg(d.async_)});", coord)
        problems: list[XmpError] = []
        for step in steps:
            if not isinstance(step, acc_loopnest.AccLoopNest):
                items.append(step)   # host statements (scalars only), in order
                continue
            try:
                kernel = self._kernel(step, replicated, coord,
                                      region_stmts.scope if region_stmts is not None else self.scope, defer)
                items.append(kernel if step.xmp is None or step.tmpl is None
                             else owner_guard(step.xmp, step.tmpl, step.indices, kernel))
            except XmpErrors as err:
                problems += err.errors
        if problems:
            raise XmpErrors(problems)
        if d.async_ is not None:
            items += cbuild.stmts("_xmpacc_acc_queue_end();", coord)
        items += cbuild.stmts(f"_xmpacc_acc_compute_end({region});", coord)
        if region_stmts is not None:
            items = region_stmts.wrap(items, coord)
        if not around:
            return c_ast.Compound(items, coord)
        # the sections go to an implicit 'acc data' region around the construct, which
        # the acc_data pass lowers (the construct finds them present)
        pragma = c_ast.Pragma(f"acc_{_IMPLICIT_REGION_ID}", coord)
        self.ctx.acc_directives[id(pragma)] = AccData(around, None, d.loc)
        return c_ast.Compound([pragma, c_ast.Compound(items, coord)], coord)

    def _kernel(self, part: acc_loopnest.AccLoopNest, replicated: list[Replicated], coord: object,
                scope: Scope, defer: bool = False) -> c_ast.Node:
        gen = kernel_gen.generate(part.spec, scope, replicated, self.ctx, self.unit, is_directive)
        names = {name for name, _d, _op in gen.kv.reductions}
        if defer and names and not names & self.address_taken:
            self.deferred = names
            gen = dataclasses.replace(gen, host_text=acc_reduction_wait.DEFER + gen.host_text)
        if part.xmp is not None and part.tmpl is not None:   # --info: the XMP loop's remark
            self.ctx.info.append(describe.kernel(part.xmp, part.tmpl, part.indices,
                                                 gen.kernel, gen.kv, gen.plan))
        before: list[c_ast.Node] = []
        after: list[c_ast.Node] = []
        keys, key_of = kernel_locations.host_decls(part.spec.located, coord)
        if part.xmp is not None and part.tmpl is not None and part.xmp.reductions:
            mask = [0] * part.tmpl.ndims
            for t in part.indices.values():
                mask[t] = 1
            before, after = loop_reduction_calls(part.xmp, part.tmpl, mask, self.scope, coord, key_of)
            # where the construct left a node's result in a device copy, the XMP calls work on it
            swaps = acc_comm.loop_reduction_swaps(part.xmp, self.scope)
            located = acc_comm.loop_reduction_swaps(part.xmp, self.scope, located=True)
            inits, results = kernel_location_elements.host_text(part.elements)
            before = cbuild.stmts(located + inits + swaps, coord) + before + cbuild.stmts(swaps, coord)
            after = cbuild.stmts(results + swaps, coord) + after + cbuild.stmts(swaps + located, coord)
        return c_ast.Compound(keys + before + cbuild.stmts(gen.host_text, coord) + after, coord)

    # ------------------------------------------------------------ data

    def _data(self, d: AccCompute, parts: list[acc_loopnest.AccLoopNest],
              around: list[xd.VarRef]) -> list[_Datum]:
        """``around``: the sections of the construct's clauses moved to the data region
        around it (present here)."""
        out = [self._present_item(ref) for ref in around]
        device_pointers = set()   # deviceptr(p): p already holds a device address, passed as is
        for clause in d.data:
            for ref in clause.items:
                if clause.kind == "deviceptr":
                    device_pointers.add(identity_of(self._device_pointer(ref)))
                else:
                    out.append(self._clause_item(clause, ref))
        named = {x.rep.identity for x in out} | device_pointers
        implicit = DATA_PRESENT if d.default is not None and d.default.kind == "present" else DATA_COPY
        for rep in (_scalar(self.scope, n) for part in parts for n in part.copy_scalars):
            if rep is not None and rep.identity not in named:
                named.add(rep.identity)
                out.append(_Datum(rep, _size(rep), DATA_COPY))
        for part in parts:
            # per thread, or a reduction array's temporary of the launch: no device copy; a
            # private distributed array's threads copy its block's shape (kernel_private.py)
            blocks = {n for n in part.spec.private if self.scope.find_array(n) is not None}
            own = set(part.spec.private) - blocks | set(part.spec.reductions) \
                | {a.name for a in part.spec.arrays}
            # with the file-scope variables of the routines it calls (spec.body has them); an
            # aligned member's object (c of c.a) is no variable of the kernel's (kernel_members.py)
            body, members = kernel_members.rename(part.spec.body, self.scope)
            for ident in outer_ids(body):
                found = self.scope.find_c(ident.name)
                if found is None or identity_of(found[1]) in named or ident.name in own:
                    continue
                pointer = (isinstance(found[1].type, c_ast.PtrDecl) or _is_param(self.scope, ident.name)) \
                    and self.scope.find_array(ident.name) is None \
                    and all(r.decl is not found[1] or r.member for r in self.present)
                rep = Replicated(ident.name, found[1], None, ident.name) if pointer \
                    else _array(self.scope, ident.name, found[1])
                if rep is not None:
                    if d.default is not None and d.default.kind == "none" and ident.name not in blocks:
                        raise XmpError(loc_of(ident), f"array '{ident.name}' is not named in a data clause "
                                                      f"of '{directive_name(d)}', which has default(none)")
                    named.add(identity_of(found[1]))
                    # a pointer of unknown extent: the present data it points into (an
                    # enclosing data region's p[0:n]), found at run time, as OpenACC compilers do;
                    # a firstprivate array's start value goes in only
                    # and a const array (static const double w[3]) cannot take its copy back
                    mode = DATA_COPYIN if implicit == DATA_COPY and (ident.name in part.spec.firstprivate
                                                                     or read_only(found[1])) else implicit
                    mode = DATA_CREATE if ident.name in blocks else mode
                    out.append(_Datum(rep, "-2", DATA_PRESENT) if pointer else _Datum(rep, _size(rep), mode))
            for m in members:   # aligned members: c.a
                found = self.scope.find_c(m.sym.name)
                rep = Replicated(m.sym.name, found[1], m.sym, m.key) if found is not None else None
                if rep is None or rep.identity in named:
                    continue
                if d.default is not None and d.default.kind == "none":
                    raise XmpError(m.loc, f"array '{m.sym.name}' is not named in a data clause of "
                                          f"'{directive_name(d)}', which has default(none)")
                named.add(rep.identity)
                out.append(_Datum(rep, _size(rep), implicit))
        return out

    def _present_item(self, ref: xd.VarRef) -> _Datum:
        found = self.scope.find_c(ref.name.name)
        assert found is not None   # _data_region_clauses moved only declared arrays
        rep = _array(self.scope, ref.name.name, found[1])
        if rep is None:   # a pointer: the part of the present copy it points into
            return _Datum(Replicated(ref.name.name, found[1], None, ref.name.name), "-2", DATA_PRESENT)
        return _Datum(rep, _size(rep), DATA_PRESENT)

    def _device_pointer(self, ref: xd.VarRef) -> c_ast.Decl:
        """The declaration of a pointer named in ``deviceptr``: the kernel takes its value."""
        found = self.scope.find_c(ref.name.name)
        if found is None:
            raise XmpError(ref.loc, f"'{ref.name.name}' in deviceptr(...) is not declared")
        if ref.subs is not None or not isinstance(found[1].type, c_ast.PtrDecl) \
                or self.scope.find_array(ref.name.name) is not None:
            raise XmpError(ref.loc, f"deviceptr takes pointer variables that hold device addresses; "
                                    f"'{ref.name.name}' is not one")
        return found[1]

    def _clause_item(self, clause: DataClause, ref: xd.VarRef) -> _Datum:
        """A data clause's item (openacc.ALLOWED gives a compute construct the clauses of
        _MODES and deviceptr, which ``_data`` takes apart)."""
        found = self.scope.find_c(ref.name.name)
        if found is None:
            raise XmpError(ref.loc, f"'{ref.name.name}' in {clause.spelling}(...) is not declared")
        member_array(ref.name, self.scope)   # a member path names an aligned member
        if _MODES[clause.kind] in (DATA_COPY, DATA_COPYOUT):
            check_writable(ref, found[1], f"'{clause.spelling}'")
        rep = _array(self.scope, ref.name.name, found[1]) or _scalar(self.scope, ref.name.name)
        if ref.subs is not None:
            return _Datum(*_section(self.scope, ref, found[1], rep), _MODES[clause.kind])
        if rep is None:
            raise XmpError(ref.loc, f"'{ref.name.name}' is a pointer of unknown extent: name it with its "
                                    f"extent, {clause.spelling}({ref.name.name}[0:n])")
        return _Datum(rep, _size(rep), _MODES[clause.kind])


def _region_items(items: list[c_ast.Node], ctx: Context) -> list[tuple[acc_nest.AccNest | None, c_ast.Node]]:
    """A region's items in order: (the nest, its for) for an 'acc loop' nest or an XMP
    loop (its pragmas taken with it), else (None, the item)."""
    out: list[tuple[acc_nest.AccNest | None, c_ast.Node]] = []
    k = 0
    while k < len(items):
        nest = acc_nest.nest_of_pragma(items, k, ctx) if is_directive(items[k]) else None
        if nest is not None and (isinstance(nest.acc, AccLoop)
                                 or (nest.acc is None and nest.xmp is not None)):
            out.append((nest, nest.loop))
            k = next(j for j in range(k, len(items)) if items[j] is nest.loop) + 1
        else:
            out.append((None, items[k]))
            k += 1
    return out


def _adopted_data(d: AccCompute, region: acc_region.Region, data: list[_Datum]) -> list[_Datum]:
    """The region's adopted scalars (acc_region.py): declared in it, created; from outside,
    copied in, and out again from 'kernels' (OpenACC 2.5: implicit copy; 'parallel': firstprivate)."""
    named = {x.rep.identity for x in data}
    outside = DATA_COPY if d.construct == "kernels" else DATA_COPYIN
    out = []
    for decl, local in region.adopted:
        if identity_of(decl) in named:
            continue
        array = isinstance(decl.type, c_ast.ArrayDecl)   # declared in the region, with its initializer
        mode = (DATA_COPYIN if array and decl.init is not None else DATA_CREATE) if local else outside
        rep = Replicated(decl.name, decl, None, decl.name if array else f"&{decl.name}")
        out.append(_Datum(rep, _size(rep), mode))
    return out


def _host_copy(nodes: list[c_ast.Node]) -> list[c_ast.Node]:
    """The statements as the host runs them when the ``if`` clause is false: a copy
    without OpenACC lines, sharing the XMP pragma nodes (directives are found by node)."""
    keep = {id(n): n for node in nodes for n in cbuild.walk(node) if pragma_id(n) is not None}
    out = [copy.deepcopy(node, dict(keep)) for node in nodes]
    for node in out:
        for inner in cbuild.walk(node):
            if isinstance(inner, c_ast.Compound) and inner.block_items:
                inner.block_items = [i for i in inner.block_items if pragma_id(i, "acc") is None]
    return out


def _if(d: AccCompute, device: c_ast.Node, host: list[c_ast.Node] | None) -> c_ast.Node:
    """``if (cond) <device construct> else <host statements>`` for an ``if`` clause."""
    if d.if_ is None or host is None:
        return device
    branch = cbuild.stmt(f"if ({d.if_.text}) {{ }} else {{ }}", getattr(device, "coord", None))
    branch.iftrue = device
    branch.iffalse = c_ast.Compound(host, branch.coord)
    return branch


def _is_param(scope: Scope, name: str) -> bool:
    """A function parameter (``double a[N]`` is a pointer there: no extent to copy)."""
    found = scope.find_c(name)
    return found is not None and name in found[0].params and isinstance(found[1].type, c_ast.ArrayDecl)


def _array(scope: Scope, name: str, decl: c_ast.Decl) -> Replicated | None:
    """An aligned or constant-size C array as a device variable, else None."""
    array = scope.find_array(name)
    if array is not None:
        return Replicated(name, decl, array, f"&{array.c_name}")
    if isinstance(decl.type, c_ast.ArrayDecl) and not _is_param(scope, name):
        t = decl.type
        while isinstance(t, c_ast.ArrayDecl):
            if t.dim is None:
                raise XmpError(loc_of(decl), f"array '{name}' has an unknown size and cannot be copied "
                                             "to the device")
            t = t.type
        return Replicated(name, decl, None, name)
    return None


def _scalar(scope: Scope, name: str) -> Replicated | None:
    found = scope.find_c(name)
    if found is None or scope.find_array(name) is not None or not isinstance(found[1].type, c_ast.TypeDecl):
        return None
    return Replicated(name, found[1], None, f"&{name}")


_IMPLICIT_REGION_ID = 0   # the pragma of an implicit data region: found by node, like every acc pragma


def _leading(ref: xd.VarRef) -> bool:
    """``p[0:n]`` (later dimensions whole): the first n elements (rows)."""
    subs = ref.subs or ()
    first = subs[0]
    return isinstance(first, xd.SectionTriplet) and first.length is not None \
        and (first.base is None or first.base.text.strip() == "0") and first.step is None \
        and all(isinstance(s, xd.SectionTriplet) and (s.base, s.length, s.step) == (None, None, None)
                for s in subs[1:])


def _data_region_clauses(d: AccCompute, scope: Scope) -> tuple[AccCompute, tuple[DataClause, ...]]:
    """The construct without the sections its own data handling does not take (of a
    distributed array: global indices, owners only; any other than ``[0:n]``), and those
    as the clauses of an implicit data region around it (XcalableACC.md §2: a compute
    construct's data clauses open an implicit data region)."""
    kept: list[DataClause] = []
    around: list[DataClause] = []
    # firstprivate(p[1:4]) of a pointer: its start values come in as copyin(p[1:4]) would
    # (present_or), and each thread copies them into its own array (kernel_gen.py)
    starts = tuple(ref for ref in d.firstprivate
                   if ref.subs is not None and scope.find_array(ref.name.name) is None
                   and (found := scope.find_c(ref.name.name)) is not None
                   and isinstance(found[1].type, c_ast.PtrDecl))
    if starts:
        around.append(DataClause("copyin", "firstprivate", starts, starts[0].loc))
    for clause in d.data:
        moved = tuple(ref for ref in clause.items if clause.kind in _MODES and ref.subs is not None
                      and scope.find_c(ref.name.name) is not None
                      and (scope.find_array(ref.name.name) is not None or not _leading(ref)))
        rest = tuple(ref for ref in clause.items if ref not in moved)
        if moved:
            around.append(dataclasses.replace(clause, items=moved))
        if rest:
            kept.append(dataclasses.replace(clause, items=rest))
    if not around:
        return d, ()
    return dataclasses.replace(d, data=tuple(kept)), tuple(around)


def _section(scope: Scope, ref: xd.VarRef, decl: c_ast.Decl,
             rep: Replicated | None) -> tuple[Replicated, str]:
    """``p[0:n]`` of a pointer or of a C array: the first n elements (rows)."""
    name = ref.name.name
    first = (ref.subs or ())[0]
    assert isinstance(first, xd.SectionTriplet) and first.length is not None   # _data_region_clauses
    size = f"({first.length.text}) * (long long) sizeof({name}[0])"
    if isinstance(decl.type, c_ast.PtrDecl) or (rep is None and isinstance(decl.type, c_ast.ArrayDecl)):
        return Replicated(name, decl, None, name), size
    if rep is None:
        raise XmpError(ref.loc, f"'{name}' is not an array")
    return rep, size


def _size(rep: Replicated) -> str:
    return "-1" if rep.array is not None else f"(long long) sizeof({rep.name})"


def _begin_call(loc: SourceLoc, data: list[_Datum]) -> str:
    keys = ", ".join(x.rep.key for x in data) or "0"
    sizes = ", ".join(x.size for x in data) or "0"
    names = ", ".join(cbuild.c_string(x.rep.name) for x in data) or "0"
    modes = ", ".join(str(x.mode) for x in data) or "0"
    return (f"_xmpacc_acc_compute_begin({cbuild.where_literal(loc)}, {len(data)}, "
            f"(const void *[]){{{keys}}}, "
            f"(const long long []){{{sizes}}}, (const char *[]){{{names}}}, (const int []){{{modes}}})")


def _replicate_scalars(item: c_ast.Node, scope: Scope, ctx: Context) -> list[Replicated]:
    """The scalars that an ``acc replicate`` directive at ``item`` puts on the device."""
    if pragma_id(item) is None:
        return []
    return [r for d in ctx.directives.get(id(item), []) if isinstance(d, xd.AccReplicate)
            for r in (_scalar(scope, n.name) for n in d.variables) if r is not None]


def _file_scope_scalars(unit: Unit, ctx: Context) -> list[Replicated]:
    assert ctx.scopes is not None
    root = ctx.scopes.root
    return [r for item in unit.ast.ext for r in _replicate_scalars(item, root, ctx)]


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    lowering = _ComputeLowering(ctx.scopes, ctx, unit, _file_scope_scalars(unit, ctx))
    lowering.functions = acc_wait_functions.waiting_functions(unit.ast, ctx)
    lowering.visit(unit.ast)
    acc_wait_functions.wrap(unit.ast, lowering.functions)
    return unit  # errors stay collected until the check stage
