"""Pass acc_data: the OpenACC data directives of XcalableACC (XcalableACC.md §1, §3).

``data``, ``enter data``, ``exit data``, ``declare``, ``update``, ``host_data`` and ``wait``
become calls of runtime/acc_data.py, whose present table is the one of ``acc replicate``:

Before:                                   After:
    #pragma acc data copyin(u) copy(x)        { _XMPACC_CLEANUP(_xmpacc_acc_data_scope_end)
    {                                             int _xmpacc_accdata_1 = _xmpacc_acc_data_begin("f.c:30", 2,
      ...                                             (const void *[]){&_xmpacc_a_u, &x},
                                                      (const long long []){-1, sizeof(x)},
                                                      (const char *[]){"u", "x"}, (const long long []){1, 0},
                                                      (const void *[]){0, 0}, 1);
    #pragma acc update host(u[0:2][:])          { ... _xmpacc_acc_update("f.c:32", 1, &_xmpacc_a_u, -1, "u",
    }                                                 (const long long []){2, sizeof(*u), 8, 1, 0, 2, 1, ...},
                                                      1); } }

A variable's key is its host address (a distributed array's: its descriptor), its size
``sizeof``, -1 for a distributed array and -2 for a pointer (its section gives the extent).
A block-scope ``declare`` is a data region from the directive to the end of its block; a
file-scope one an ``enter data`` at start-up, followed for a coarray by
``_xmpacc_coarray_device_init`` (XcalableACC §5a: its device copy is a coarray too).
``async`` is accepted and runs in order (the runtime's queues); ``wait`` clauses wait first.
The variables of a data region are present for the XMP-ACC kernels and ``reflect ... acc``
inside it (``ctx.acc_present``, read by the gpu pass); after ``enter data`` or ``declare``
the runtime checks presence.
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import (
    AccData,
    AccDeclare,
    AccEnterData,
    AccExitData,
    AccHostData,
    AccUpdate,
    AccWait,
    DataClause,
    WaitClause,
    directive_name,
)
from xmpacc.passes.common.acc_clauses import DataVar, check_writable, cond_arg, queue_arg, wait_clause_call
from xmpacc.passes.common.blocks import BlockLowering, Lowered, construct_statement, reported_inside
from xmpacc.passes.common.pragmas import acc_directive, pragma_id
from xmpacc.passes.common.values import Replicated
from xmpacc.runtime.contract import (
    ACC_COPY,
    ACC_COPYIN,
    ACC_COPYOUT,
    ACC_CREATE,
    ACC_DELETE,
    ACC_DEVICEPTR,
    ACC_PRESENT,
    ACC_SYNC,
)
from xmpacc.section_code import Hoister
from xmpacc.symbols import ScopeTree

_KINDS = {"copy": ACC_COPY, "copyin": ACC_COPYIN, "copyout": ACC_COPYOUT, "create": ACC_CREATE,
          "present": ACC_PRESENT, "delete": ACC_DELETE, "deviceptr": ACC_DEVICEPTR,
          "present_or_copy": ACC_COPY, "present_or_copyin": ACC_COPYIN,
          "present_or_copyout": ACC_COPYOUT, "present_or_create": ACC_CREATE}
_HANDLED = (AccData, AccDeclare, AccEnterData, AccExitData, AccHostData, AccUpdate, AccWait)


# The shape of every BlockLowering (passes/common/blocks.py): a counter of its own, then lower_at.
class _DataLowering(BlockLowering):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree, ctx)
        self.regions = 0

    def lower_at(self, items: list[c_ast.Node], i: int) -> Lowered:
        item = items[i]
        d = acc_directive(item, self.ctx)
        if not isinstance(d, _HANDLED):
            if self._xmp_acc_kernel(item) and i + 1 < len(items):
                # its OpenACC lines are the kernel's (gpu.py: strip_inner), which rejects these
                return [item, items[i + 1]], 2
            self.visit(item)
            return [item], 1
        used = 1
        try:
            if isinstance(d, AccDeclare):  # the rest of the block is its region
                rest = c_ast.Compound(items[i + 1:], item.coord)
                used = len(items) - i
                self.visit(rest)
                return [self._region(d, d.data, None, rest, item.coord)], used
            if isinstance(d, (AccData, AccHostData)):
                # its statement: constructs stacked without braces count with theirs
                body, end = construct_statement(items, i, self.ctx)
                if body is None and reported_inside(items, i, self.ctx):
                    return [], 1
                if body is None:
                    raise XmpError(d.loc, f"'{directive_name(d)}' must be followed by a statement")
                used = end - i
                block = body if isinstance(body, c_ast.Compound) else c_ast.Compound([body], body.coord)
                self.visit(block)
                return [self._region(d, d.data, d.if_, block, item.coord) if isinstance(d, AccData)
                        else self._host_data(d, block, item.coord)], used
            return [self._executable(d, item.coord)], used
        except XmpError as err:
            self.ctx.diags.add(err)
        return [], used

    def _xmp_acc_kernel(self, item: c_ast.Node) -> bool:
        """Is ``item`` an XMP-ACC ``loop ... acc`` line (the for after it is a kernel)?"""
        return pragma_id(item) is not None and any(isinstance(x, xd.Loop) and x.acc is not None
                                                   for x in self.ctx.directives.get(id(item), []))

    # ------------------------------------------------------------ regions
    def _region(self, d: AccData | AccDeclare, data: tuple[DataClause, ...], if_: xd.Expr | None,
                body: c_ast.Compound, coord: object) -> c_ast.Compound:
        where = cbuild.where_literal(d.loc)
        h = Hoister(where, coord)
        call, present = self._data_call("_xmpacc_acc_data_begin", where, data, cond_arg(if_), h)
        self.regions += 1
        decl = cbuild.cleanup_decl(f"int _xmpacc_accdata_{self.regions} = {call};",
                                   "_xmpacc_acc_data_scope_end", coord)
        self.ctx.acc_present[id(body)] = present
        return c_ast.Compound(h.decls + h.checks + [decl, body], coord)

    def _data_call(self, entry: str, where: str, data: tuple[DataClause, ...], last: str,
                   h: Hoister) -> tuple[str, list[Replicated]]:
        vs: list[tuple[DataVar, int]] = []
        for c in data:
            for ref in c.items:
                v = DataVar(ref, self.scope, h)
                if _KINDS[c.kind] in (ACC_COPY, ACC_COPYOUT):
                    check_writable(ref, v.decl, f"'{c.spelling}'")
                vs.append((v, _KINDS[c.kind]))
        present = [Replicated(v.name, v.decl, v.array, v.key) for v, kind in vs
                   if v.whole and kind != ACC_DEVICEPTR]
        call = (f"{entry}({where}, {len(vs)}, (const void *[]){{{', '.join(v.key for v, _ in vs)}}}, "
                f"(const long long []){{{', '.join(v.size for v, _ in vs)}}}, "
                f"(const char *[]){{{', '.join(cbuild.c_string(v.name) for v, _ in vs)}}}, "
                f"(const long long []){{{', '.join(str(k) for _, k in vs)}}}, "
                f"(const void *[]){{{', '.join(v.sec for v, _ in vs)}}}, {last})")
        return call, present

    def _host_data(self, d: AccHostData, body: c_ast.Compound, coord: object) -> c_ast.Compound:
        """Inside the block each name is its device address: a pointer of the same name."""
        where = cbuild.where_literal(d.loc)
        h = Hoister(where, coord)
        items: list[c_ast.Node] = []
        for k, ref in enumerate(d.use_device):
            if ref.subs:
                raise XmpError(ref.loc, "use_device takes variable names, not sections")
            v = DataVar(ref, self.scope, h)
            if not isinstance(v.decl.type, (c_ast.ArrayDecl, c_ast.PtrDecl)) and v.array is None:
                raise XmpError(ref.loc, f"'{v.name}' is not an array or a pointer; use_device takes arrays")
            tmp = f"_xmpacc_devptr_{d.loc.line}_{k}"
            items += cbuild.stmts(f"void *{tmp} = _xmpacc_acc_deviceptr({where}, {v.key}, "
                                  f"{cbuild.c_string(v.name)});", coord)
            items.append(_pointer_decl(v, tmp))
        return c_ast.Compound(items + [body], coord)

    # ------------------------------------------------------------ executable directives
    def _executable(self, d: AccEnterData | AccExitData | AccUpdate | AccWait, coord: object) -> c_ast.Node:
        where = cbuild.where_literal(d.loc)
        h = Hoister(where, coord)
        if isinstance(d, AccWait):
            return c_ast.Compound(cbuild.stmts(wait_clause_call(WaitClause(d.queues, d.loc, d.devnum), where),
                                               coord), coord)
        text = wait_clause_call(d.wait, where)
        if isinstance(d, AccEnterData):
            call, entered = self._data_call("_xmpacc_acc_enter_data", where, d.data,
                                            f"{cond_arg(d.if_)}, {queue_arg(d.async_)}", h)
            self.ctx.acc_entered += entered   # present for later XMP-ACC kernels (checked at run time)
            text += call + ";"
        elif isinstance(d, AccExitData):
            flags = f"{cond_arg(d.if_)} | {2 if d.finalize is not None else 0}"
            text += self._data_call("_xmpacc_acc_exit_data", where, d.data, flags, h)[0] + ";"
        else:
            flags = f"{cond_arg(d.if_)} | {2 if d.if_present is not None else 0}"
            for move in d.moves:
                direction = 0 if move.direction == "device" else 1
                for ref in move.items:
                    v = DataVar(ref, self.scope, h)
                    if direction:
                        check_writable(ref, v.decl, f"'update {move.spelling}'")
                    text += (f"_xmpacc_acc_update({where}, {direction}, {v.key}, {v.size}, "
                             f"{cbuild.c_string(v.name)}, {v.sec}, {flags}, {queue_arg(d.async_)});")
        return c_ast.Compound(h.decls + h.checks + cbuild.stmts(text, coord), coord)


def _pointer_decl(v: DataVar, tmp: str) -> c_ast.Decl:
    """``T *a = tmp;`` for an aligned array or pointer ``a`` (its local block is a pointer
    already), ``T (*a)[M] = tmp;`` for an array ``T a[N][M]``."""
    if v.array is not None:
        t: c_ast.Node = c_ast.PtrDecl([], copy.deepcopy(v.array.elem_type))
        _set_name(t, v.name)
    elif isinstance(v.decl.type, c_ast.PtrDecl):
        t = copy.deepcopy(v.decl.type)
    else:
        t = c_ast.PtrDecl([], copy.deepcopy(v.decl.type.type))
    return c_ast.Decl(v.name, [], [], [], [], t, c_ast.ID(tmp), None)


def _set_name(t: c_ast.Node, name: str) -> None:
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = name


def _file_scope(unit: Unit, ctx: Context) -> None:
    """``declare`` at file scope: an ``enter data`` at start-up, for the whole program."""
    assert ctx.scopes is not None
    kept = []
    for item in unit.ast.ext:
        d = acc_directive(item, ctx)
        if not isinstance(d, AccDeclare):
            kept.append(item)
            continue
        try:
            where = cbuild.where_literal(d.loc)
            h = Hoister(where, item.coord)
            lowering = _DataLowering(ctx.scopes, ctx)
            call, entered = lowering._data_call("_xmpacc_acc_enter_data", where, d.data, f"1, {ACC_SYNC}", h)
            ctx.acc_entered += entered
            text = call + ";" + "".join(_coarray_device(ref.name.name, where, ctx)
                                        for c in d.data for ref in c.items)
            ctx.init_stmts.append(c_ast.Compound(h.decls + h.checks + cbuild.stmts(text, item.coord),
                                                 item.coord))
        except XmpError as err:
            ctx.diags.add(err)
    unit.ast.ext = kept


def _coarray_device(name: str, where: str, ctx: Context) -> str:
    """A coarray's device copy (XcalableACC §5a; the pass coarrays checked the clause) is a
    coarray too: registered collectively, right after the declare's enter data."""
    co = ctx.coarrays.get(name)
    if co is None:
        return ""
    return f"_xmpacc_coarray_device_init((void *) {'' if co.ndims else '&'}{name}, {where});"


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    found = [d for d in ctx.acc_directives.values() if isinstance(d, _HANDLED)]
    if not found:
        return unit
    ctx.device_data = True
    _file_scope(unit, ctx)
    _DataLowering(ctx.scopes, ctx).visit(unit.ast)
    return unit
