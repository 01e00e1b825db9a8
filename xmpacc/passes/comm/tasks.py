"""``task``, ``task ... nocomm`` and ``tasks`` as runtime calls (part of pass comm;
reference §6.7, global-view §6).

    #pragma xmp task on p[0]          { _XMPACC_CLEANUP(_xmpacc_task_scope_end) int _xmpacc_task_1 =
    { ... }                               _xmpacc_task_begin("f.c:4", &_xmpacc_n_p, ref);
                                        if (_xmpacc_task_1) { ... } }

    #pragma xmp task on p[0] nocomm   if (_xmpacc_task_nocomm("f.c:7", &_xmpacc_n_p, ref)) { ... }

    #pragma xmp tasks                 { _XMPACC_CLEANUP(_xmpacc_tasks_scope_end) int _xmpacc_task_2 =
    {                                     _xmpacc_tasks_begin("f.c:9", 2, (const void *[]){...},
    #pragma xmp task on p[0:2]              (const void *[]){...}, (const char *[]){"f.c:11", "f.c:13"});
      { ... }                           { _XMPACC_CLEANUP(_xmpacc_task_scope_end) int _xmpacc_task_3 =
    #pragma xmp task on p[2:2]              _xmpacc_tasks_enter(_xmpacc_task_2, 0);
      { ... }                             if (_xmpacc_task_3) { ... } }
    }                                   ... }

Collective directives inside a ``nocomm`` task are errors (pass nocomm reports them): its
nodes have no node set of their own to communicate in.
"""

from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.onrefs import on_ref
from xmpacc.passes.common.pragmas import pragma_id
from xmpacc.symbols import Scope


def task_block(d: xd.Task, body: c_ast.Node, scope: Scope, fresh: Callable[[], str]) -> c_ast.Node:
    """A task on its own (not inside ``tasks``)."""
    desc, ref = on_ref(d.on, scope)
    where = cbuild.where_literal(d.loc)
    if d.nocomm:   # its body was checked by pass nocomm
        return c_ast.If(cbuild.expr(f"_xmpacc_task_nocomm({where}, {desc}, {ref})", body.coord), body, None,
                        body.coord)
    return _pushed(f"_xmpacc_task_begin({where}, {desc}, {ref})", body, fresh())


def _pushed(call: str, body: c_ast.Node, flag: str) -> c_ast.Compound:
    decl = cbuild.cleanup_decl(f"int {flag} = {call};", "_xmpacc_task_scope_end", body.coord)
    return c_ast.Compound([decl, c_ast.If(c_ast.ID(flag), body, None, body.coord)], body.coord)


def split_tasks(body: c_ast.Node | None, d: xd.Tasks,
                directives: Callable[[c_ast.Node], list[xd.Directive]]) -> list[tuple[xd.Task, c_ast.Node]]:
    """The (task, statement) pairs of a ``tasks`` construct's compound statement."""
    if not isinstance(body, c_ast.Compound):
        raise XmpError(d.loc, "the tasks directive must be followed by a compound statement { ... } "
                              "of task constructs")
    items = list(body.block_items or [])
    pairs: list[tuple[xd.Task, c_ast.Node]] = []
    k = 0
    while k < len(items):
        found = [x for x in directives(items[k]) if isinstance(x, xd.Task)] if pragma_id(items[k]) else []
        if not found or k + 1 >= len(items) or pragma_id(items[k + 1]) is not None:
            where = found[0].loc if found else None
            if where is not None:
                raise XmpError(where, "the task directive must be followed by a statement")
            raise XmpError(_loc(items[k], d), "only task constructs may appear in a tasks construct")
        pairs.append((found[0], items[k + 1]))
        k += 2
    if not pairs:
        raise XmpError(d.loc, "the tasks construct holds no task")
    return pairs


def _loc(node: c_ast.Node, d: xd.Tasks) -> object:
    from xmpacc.cbuild import loc_of

    return loc_of(node) if node.coord is not None else d.loc


def tasks_block(d: xd.Tasks, pairs: list[tuple[xd.Task, c_ast.Node]], scope: Scope,
                fresh: Callable[[], str]) -> c_ast.Compound:
    refs = [on_ref(t.on, scope) for t, _ in pairs]
    group = fresh()
    coord = pairs[0][1].coord
    descs = ", ".join(r[0] for r in refs)
    encoded = ", ".join(r[1] for r in refs)
    wheres = ", ".join(cbuild.where_literal(t.loc) for t, _ in pairs)
    begin = cbuild.cleanup_decl(
        f"int {group} = _xmpacc_tasks_begin({cbuild.where_literal(d.loc)}, {len(pairs)}, "
        f"(const void *[]){{{descs}}}, (const void *[]){{{encoded}}}, (const char *[]){{{wheres}}});",
        "_xmpacc_tasks_scope_end", coord)
    items: list[c_ast.Node] = [begin]
    for k, (task, stmt) in enumerate(pairs):
        if task.nocomm:
            items.append(c_ast.If(cbuild.expr(f"{group} == {k}", stmt.coord), stmt, None, stmt.coord))
        else:
            items.append(_pushed(f"_xmpacc_tasks_enter({group}, {k})", stmt, fresh()))
    return c_ast.Compound(items, coord)
