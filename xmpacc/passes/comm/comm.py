"""Pass comm: reflect, reduction, bcast, barrier and task become runtime calls.

Before:                              After:
    #pragma xmp reflect (u)              _xmpacc_reflect(&_xmpacc_a_u, "f.c:20", 0);
    #pragma xmp reduction (+:s)          _xmpacc_reduce(&s, "f.c:21", 1, _XMPACC_TYPE(s), 1, 0, 0);
    #pragma xmp bcast (x) from p[0]      _xmpacc_bcast(&x, "f.c:22", sizeof(x), &_xmpacc_n_p, ref, 0, 0);
    #pragma xmp barrier                  _xmpacc_barrier("f.c:23", 0, 0);
    #pragma xmp reflect (u) async (1)    _xmpacc_async_begin(1); _xmpacc_reflect(...); _xmpacc_async_end();
    #pragma xmp wait_async (1)           _xmpacc_wait_async("f.c:25", 1, (const long long []){(1)}, 0, 0);
    #pragma xmp task on p[0]             { _XMPACC_CLEANUP(_xmpacc_task_scope_end) int _xmpacc_task_1 =
    { ... }                                  _xmpacc_task_begin("f.c:24", &_xmpacc_n_p, ref);
                                           if (_xmpacc_task_1) { ... } }

A node reference travels as ``(const long long []){ndims, kind, a, b, c, ...}``
(encoding in runtime/contract.py); ``0, 0`` means the executing node set.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.comm import tasks
from xmpacc.passes.common import acc_comm, describe, shadows
from xmpacc.passes.common.blocks import BlockLowering, Lowered
from xmpacc.passes.common.onrefs import on_ref
from xmpacc.passes.common.pragmas import pragma_id
from xmpacc.passes.common.reductions import reduction_directive_calls
from xmpacc.passes.common.varrefs import byte_size
from xmpacc.section_code import Hoister, base_address, element, encode, operand_of, resolve, var_ref_node
from xmpacc.symbols import Scope, ScopeTree


def node_ref(ref: xd.Ref | None, scope: Scope, single: bool = False) -> tuple[str, str]:
    """(descriptor address, encoded reference) C texts of a node or template reference;
    ("0", "0") without one (onrefs.py)."""
    return on_ref(ref, scope, single)


def _data_operand(name: xd.Name, scope: Scope) -> tuple[str, str]:
    """(address, byte size) of a bcast variable."""
    found = scope.find_c(name.name)
    if found is None:
        raise XmpError(name.loc, f"variable '{name.name}' is not declared")
    if scope.find_array(name.name) is not None:
        raise XmpError(name.loc, f"'{name.name}' is a distributed array; bcast takes local data")
    is_array = isinstance(found[1].type, c_ast.ArrayDecl)
    size = byte_size(xd.VarRef(name, None, name.loc), found[1], scope)
    return (name.name if is_array else f"&{name.name}"), size


def _bcast_part(ref: xd.VarRef, scope: Scope, where: str, src: tuple[str, str], on: tuple[str, str],
                coord: object) -> c_ast.Node:
    """``bcast (k[1])`` (an element: its bytes) or ``bcast (a[0:5])`` (a section of a local
    array: only its elements move, runtime/gmove.py)."""
    op = operand_of(var_ref_node(ref), scope)
    if op is None or not op.is_array:
        raise XmpError(ref.loc, f"'{ref.name.name}' is not an array; it takes no subscripts")
    if op.sym is not None:
        raise XmpError(ref.loc, f"'{ref.name.name}' is a distributed array; bcast takes local data")
    h = Hoister(where, coord)
    subs = resolve(op, h)
    tail = f"{src[0]}, {src[1]}, {on[0]}, {on[1]});"
    if op.rank == 0:
        elem = cbuild.to_c(element(op, subs, []))
        call = f"_xmpacc_bcast(&{elem}, {where}, sizeof({elem}), {tail}"
    else:
        call = f"_xmpacc_bcast_section({base_address(op)}, {where}, {encode(op, subs, h)}, {tail}"
    return c_ast.Compound(h.decls + h.checks + cbuild.stmts(call, coord), coord)


# The shape of every BlockLowering (passes/common/blocks.py): a counter of its own, then lower_at.
class _CommLowering(BlockLowering):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree, ctx)
        self.tasks = 0

    def lower_at(self, items: list[c_ast.Node], i: int) -> Lowered:
        item = items[i]
        if pragma_id(item) is None:
            self.visit(item)
            return [item], 1
        out: list[c_ast.Node] = []
        used = 1
        for d in self.ctx.directives.get(id(item), []):
            body = None
            if isinstance(d, (xd.Task, xd.Tasks)) and i + used < len(items) \
                    and _is_statement(items[i + used]):
                body = items[i + used]
                used += 1
            out += self._lower_or_keep(d, item, body)
        return out, used

    def _lower_or_keep(self, d: xd.Directive, item: c_ast.Node, body: c_ast.Node | None) -> list[c_ast.Node]:
        """The lowered directive; after a mistake (collected) only the statement it owned."""
        try:
            self.ctx.info += describe.directive(d, self.scope)
            if isinstance(d, xd.Task):
                return [self._task(d, body)]
            if isinstance(d, xd.Tasks):
                pairs = tasks.split_tasks(body, d, lambda n: self.ctx.directives.get(id(n), []))
                for _task, stmt in pairs:
                    self.visit(stmt)
                return [tasks.tasks_block(d, pairs, self.scope, self._fresh)]
            lowered = self._lower(d, item)
            if lowered is None:
                return [item]
            if getattr(d, "acc", False):  # XcalableACC: on the device copies (acc_comm.py)
                self.ctx.device_data = True
                return acc_comm.lower(d, self.scope, item.coord, lowered)
            return _with_async(getattr(d, "async_id", None), lowered, item.coord)
        except XmpError as err:
            self.ctx.diags.add(err)
        except AlreadyReported:
            pass
        return [body] if body is not None else []

    def _lower(self, d: xd.Directive, item: c_ast.Node) -> list[c_ast.Node] | None:
        coord = item.coord
        if isinstance(d, xd.Reflect):
            return shadows.reflect_calls(d, self.scope, coord)
        if isinstance(d, xd.ReflectInit):
            return shadows.reflect_init_calls(d, self.scope, coord)
        if isinstance(d, xd.ReflectDo):
            return shadows.reflect_do_calls(d, self.scope, coord)
        if isinstance(d, xd.ReduceShadow):
            return shadows.reduce_shadow_calls(d, self.scope, coord)
        if isinstance(d, xd.ReductionDirective):
            return reduction_directive_calls(d, node_ref(d.on, self.scope), self.scope, coord)
        if isinstance(d, xd.Barrier):
            on = node_ref(d.on, self.scope)
            return cbuild.stmts(f"_xmpacc_barrier({cbuild.where_literal(d.loc)}, {on[0]}, {on[1]});", coord)
        if isinstance(d, xd.Bcast):
            return self._bcast(d, coord)
        if isinstance(d, xd.WaitAsync):
            on = node_ref(d.on, self.scope)
            ids = ", ".join(f"({e.text})" for e in d.ids)
            return cbuild.stmts(f"_xmpacc_wait_async({cbuild.where_literal(d.loc)}, {len(d.ids)}, "
                                f"(const long long []){{{ids}}}, {on[0]}, {on[1]});", coord)
        return None

    def _bcast(self, d: xd.Bcast, coord: object) -> list[c_ast.Node]:
        src = node_ref(d.source, self.scope, single=True)
        on = node_ref(d.on, self.scope)
        where = cbuild.where_literal(d.loc)
        out: list[c_ast.Node] = []
        for ref in d.variables:
            if ref.subs is None:
                addr, size = _data_operand(ref.name, self.scope)
                out += cbuild.stmts(f"_xmpacc_bcast({addr}, {where}, {size}, {src[0]}, {src[1]}, "
                                    f"{on[0]}, {on[1]});", coord)
            else:
                out.append(_bcast_part(ref, self.scope, where, src, on, coord))
        return out

    def _task(self, d: xd.Task, body: c_ast.Node | None) -> c_ast.Node:
        if body is None:
            raise XmpError(d.loc, "the task directive must be followed by a statement")
        self.visit(body)  # first, so that its mistakes are found even if the task has one
        return tasks.task_block(d, body, self.scope, self._fresh)

    def _fresh(self) -> str:
        self.tasks += 1
        return f"_xmpacc_task_{self.tasks}"


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _CommLowering(ctx.scopes, ctx).visit(unit.ast)
    return unit  # errors stay collected until the check stage


def _with_async(async_id: xd.Expr | None, calls: list[c_ast.Node], coord: object) -> list[c_ast.Node]:
    """A directive with ``async (id)``: its runtime calls may leave operations in flight
    under ``id`` (runtime/asyncs.py), completed by ``wait_async``."""
    if async_id is None:
        return calls
    return cbuild.stmts(f"_xmpacc_async_begin({async_id.text});", coord) + calls + \
        cbuild.stmts("_xmpacc_async_end();", coord)


def _is_statement(node: c_ast.Node) -> bool:
    """Can ``node`` be the statement a task owns (not a declaration, not a directive)?"""
    return pragma_id(node) is None and not isinstance(node, (c_ast.Decl, c_ast.DeclList,
                                                             c_ast.Typedef, c_ast.Pragma))
