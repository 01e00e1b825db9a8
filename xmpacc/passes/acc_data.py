"""Pass acc_data: the OpenACC data directives of XcalableACC (XcalableACC.md §1, §3).

``data``, ``enter data``, ``exit data``, ``declare``, ``update``, ``host_data`` and ``wait``
become calls of runtime/acc_data.py, whose present table is the one of ``acc replicate``:

Before:                                   After:
    #pragma acc data copyin(u) copy(x)        { _XMPACC_CLEANUP(_xmpacc_acc_data_scope_end) int _xmpacc_accdata_1 =
    {                                             _xmpacc_acc_data_begin("f.c:30", 2, (const void *[]){&_xmpacc_a_u, &x},
      ...                                         (const long long []){-1, sizeof(x)}, (const char *[]){"u", "x"},
    #pragma acc update host(u[0:2][:])            (const long long []){1, 0}, (const void *[]){0, 0}, 1);
    }                                           { ... _xmpacc_acc_update("f.c:32", 1, &_xmpacc_a_u, -1, "u",
                                                    (const long long []){2, sizeof(*u), 8, 1, 0, 2, 1, ...}, 1); } }

A variable's key is its host address (a distributed array's: its descriptor), its size
``sizeof``, -1 for a distributed array and -2 for a pointer (its section gives the extent).
A block-scope ``declare`` is a data region from the directive to the end of its block; a
file-scope one an ``enter data`` at start-up.  ``async`` is accepted and runs in order
(the runtime's queues); ``wait`` clauses wait first.  The variables of a data region are
present for the XMP-ACC kernels and ``reflect ... acc`` inside it (``ctx.acc_present``,
read by the gpu pass); after ``enter data`` or ``declare`` the runtime checks presence.
"""

from __future__ import annotations

import copy
import dataclasses

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
    AsyncClause,
    DataClause,
    WaitClause,
)
from xmpacc.passes.attach import acc_directive, pragma_id
from xmpacc.passes.kernel_vars import Replicated
from xmpacc.passes.member_align import member_array
from xmpacc.runtime.contract import (
    ACC_ASYNC_NOVAL,
    ACC_COPY,
    ACC_COPYIN,
    ACC_COPYOUT,
    ACC_CREATE,
    ACC_DELETE,
    ACC_DEVICEPTR,
    ACC_PRESENT,
    ACC_SYNC,
)
from xmpacc.scoping import ScopedWalker
from xmpacc.section_code import Hoister, encode, operand_of, resolve, var_ref_node
from xmpacc.sections import CTriplet
from xmpacc.symbols import Scope, ScopeTree

_KINDS = {"copy": ACC_COPY, "copyin": ACC_COPYIN, "copyout": ACC_COPYOUT, "create": ACC_CREATE,
          "present": ACC_PRESENT, "delete": ACC_DELETE, "deviceptr": ACC_DEVICEPTR,
          "present_or_copy": ACC_COPY, "present_or_copyin": ACC_COPYIN,
          "present_or_copyout": ACC_COPYOUT, "present_or_create": ACC_CREATE}
_HANDLED = (AccData, AccDeclare, AccEnterData, AccExitData, AccHostData, AccUpdate, AccWait)


def read_only(decl: c_ast.Decl) -> bool:
    """Are a variable's elements const (``static const double w[3]``)?  Its host memory
    may be read-only: nothing may be copied back into it."""
    t = decl.type
    while isinstance(t, c_ast.ArrayDecl):
        t = t.type
    return isinstance(t, c_ast.TypeDecl) and "const" in t.quals


def check_writable(ref: xd.VarRef, decl: c_ast.Decl, what: str) -> None:
    """A located error for copying device data back into a const variable."""
    if read_only(decl):
        raise XmpError(ref.name.loc, f"'{ref.name.name}' is const: {what} would write its device copy back into "
                                     f"it (const data only go to the device: copyin, present, delete)")


class _Var:
    """One variable of a clause as generated code passes it to the runtime."""

    def __init__(self, ref: xd.VarRef, scope: Scope, h: Hoister) -> None:
        name = ref.name.name
        found = scope.find_c(name)
        if found is None:
            raise XmpError(ref.name.loc, f"'{name}' is not declared")
        self.name, self.decl = name, found[1]
        self.array = member_array(ref.name, scope)
        t = self.decl.type
        if isinstance(t, c_ast.FuncDecl):
            raise XmpError(ref.name.loc, f"'{name}' is a function")
        # an array parameter (double g[n][m]) is a pointer: its clause names a section
        pointer = isinstance(t, c_ast.PtrDecl) or (isinstance(t, c_ast.ArrayDecl) and name in found[0].params)
        if self.array is not None:
            self.key, self.size = f"&{self.array.c_name}", "-1"
        elif pointer:
            self.key, self.size = name, "-2"
        elif isinstance(t, c_ast.ArrayDecl):
            self.key, self.size = name, f"sizeof({name})"
        else:
            self.key, self.size = f"&{name}", f"sizeof({name})"
        self.sec = "0"
        if ref.subs:
            op = operand_of(var_ref_node(ref), scope)
            if op is None or not op.is_array:
                raise XmpError(ref.loc, f"'{name}' is not an array; it takes no subscripts")
            # the dimensions after the subscripted ones are whole: q[0:n] of double (*q)[m]
            # is n rows, g[1:2] of double g[4][5] two rows
            whole = CTriplet(None, None, None, op.node.coord)
            op = dataclasses.replace(op, subs=op.subs + (whole,) * (len(op.extents) - len(op.subs)))
            self.sec = encode(op, resolve(op, h), h)
        self.whole = not ref.subs and not pointer


def var_key(name: xd.Name, scope: Scope) -> tuple[str, str]:
    """The runtime key and size of a whole variable (for acc_comm.py)."""
    v = _Var(xd.VarRef(name, None, name.loc), scope, Hoister("", None))
    return v.key, v.size


def _cond(if_: xd.Expr | None) -> str:
    return "1" if if_ is None else f"(({if_.text}) != 0)"


def _queue(async_: AsyncClause | None) -> str:
    if async_ is None:
        return str(ACC_SYNC)
    return str(ACC_ASYNC_NOVAL) if async_.queue is None else f"(long long)({async_.queue.text})"


def _wait_call(wait: WaitClause | None, where: str) -> str:
    if wait is None:
        return ""
    if not wait.queues:
        return f"_xmpacc_acc_wait({where}, -1, 0);"
    queues = ", ".join(f"(long long)({q.text})" for q in wait.queues)
    if wait.devnum is not None:
        return (f"_xmpacc_acc_wait_devnum({where}, (long long)({wait.devnum.text}), {len(wait.queues)}, "
                f"(const long long []){{{queues}}});")
    return f"_xmpacc_acc_wait({where}, {len(wait.queues)}, (const long long []){{{queues}}});"


class _DataLowering(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree)
        self.ctx = ctx
        self.regions = 0

    def visit_Compound(self, node: c_ast.Compound) -> None:
        items = list(node.block_items or [])
        out: list[c_ast.Node] = []
        i = 0
        while i < len(items):
            item = items[i]
            d = acc_directive(item, self.ctx)
            i += 1
            if not isinstance(d, _HANDLED):
                if self._xmp_acc_kernel(item) and i < len(items):
                    # its OpenACC lines are the kernel's (gpu.py: strip_inner), which rejects these
                    out += [item, items[i]]
                    i += 1
                    continue
                self.visit(item)
                out.append(item)
                continue
            try:
                if isinstance(d, AccDeclare):  # the rest of the block is its region
                    rest = c_ast.Compound(items[i:], item.coord)
                    i = len(items)
                    self.visit(rest)
                    out.append(self._region(d, d.data, None, rest, item.coord))
                elif isinstance(d, (AccData, AccHostData)):
                    body = items[i] if i < len(items) else None
                    if body is None:
                        raise XmpError(d.loc, f"'acc {'data' if isinstance(d, AccData) else 'host_data'}' "
                                              "must be followed by a statement")
                    i += 1
                    block = body if isinstance(body, c_ast.Compound) else c_ast.Compound([body], body.coord)
                    self.visit(block)
                    out.append(self._region(d, d.data, d.if_, block, item.coord) if isinstance(d, AccData)
                               else self._host_data(d, block, item.coord))
                else:
                    out.append(self._executable(d, item.coord))
            except XmpError as err:
                self.ctx.diags.add(err)
        node.block_items = out

    def _xmp_acc_kernel(self, item: c_ast.Node) -> bool:
        """Is ``item`` an XMP-ACC ``loop ... acc`` line (the for after it is a kernel)?"""
        return pragma_id(item) is not None and any(isinstance(x, xd.Loop) and x.acc is not None
                                                   for x in self.ctx.directives.get(id(item), []))

    # ------------------------------------------------------------ regions
    def _region(self, d: AccData | AccDeclare, data: tuple[DataClause, ...], if_: xd.Expr | None,
                body: c_ast.Compound, coord: object) -> c_ast.Compound:
        where = cbuild.where_literal(d.loc)
        h = Hoister(where, coord)
        call, present = self._data_call("_xmpacc_acc_data_begin", where, data, _cond(if_), h)
        self.regions += 1
        decl = cbuild.cleanup_decl(f"int _xmpacc_accdata_{self.regions} = {call};",
                                   "_xmpacc_acc_data_scope_end", coord)
        self.ctx.acc_present[id(body)] = present
        return c_ast.Compound(h.decls + h.checks + [decl, body], coord)

    def _data_call(self, entry: str, where: str, data: tuple[DataClause, ...], last: str,
                   h: Hoister) -> tuple[str, list[Replicated]]:
        vs: list[tuple[_Var, int]] = []
        for c in data:
            for ref in c.items:
                v = _Var(ref, self.scope, h)
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
            v = _Var(ref, self.scope, h)
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
            return c_ast.Compound(cbuild.stmts(_wait_call(WaitClause(d.queues, d.loc, d.devnum), where), coord), coord)
        text = _wait_call(d.wait, where)
        if isinstance(d, AccEnterData):
            call, entered = self._data_call("_xmpacc_acc_enter_data", where, d.data,
                                            f"{_cond(d.if_)}, {_queue(d.async_)}", h)
            self.ctx.acc_entered += entered   # present for later XMP-ACC kernels (checked at run time)
            text += call + ";"
        elif isinstance(d, AccExitData):
            flags = f"{_cond(d.if_)} | {2 if d.finalize is not None else 0}"
            text += self._data_call("_xmpacc_acc_exit_data", where, d.data, flags, h)[0] + ";"
        else:
            flags = f"{_cond(d.if_)} | {2 if d.if_present is not None else 0}"
            for move in d.moves:
                direction = 0 if move.direction == "device" else 1
                for ref in move.items:
                    v = _Var(ref, self.scope, h)
                    if direction:
                        check_writable(ref, v.decl, f"'update {move.spelling}'")
                    text += (f"_xmpacc_acc_update({where}, {direction}, {v.key}, {v.size}, "
                             f"{cbuild.c_string(v.name)}, {v.sec}, {flags}, {_queue(d.async_)});")
        return c_ast.Compound(h.decls + h.checks + cbuild.stmts(text, coord), coord)


def _pointer_decl(v: _Var, tmp: str) -> c_ast.Decl:
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
            ctx.init_stmts.append(c_ast.Compound(h.decls + h.checks + cbuild.stmts(call + ";", item.coord),
                                                 item.coord))
        except XmpError as err:
            ctx.diags.add(err)
    unit.ast.ext = kept


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    found = [d for d in ctx.acc_directives.values() if isinstance(d, _HANDLED)]
    if not found:
        return unit
    ctx.device_data = True
    _file_scope(unit, ctx)
    _DataLowering(ctx.scopes, ctx).visit(unit.ast)
    return unit
