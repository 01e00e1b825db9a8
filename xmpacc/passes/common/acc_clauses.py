"""OpenACC clauses as the runtime takes them (XcalableACC.md §3): a data clause's variable
as its present-table key, size and section, and the ``if``, ``async`` and ``wait`` clauses
as C arguments.  Passes acc_data and acc_compute lower the clauses with them; acc_comm.py
finds the device copies that ``reflect ... acc`` and friends work on.

    copy(u)          DataVar: key "&_xmpacc_a_u", size "-1"     (an aligned array: its descriptor)
    copyin(x[0:n])   DataVar: key "x", size "sizeof(x)", sec "(const long long []){...}"
    async(2)         queue_arg -> "(long long)(2)"
    wait(1, 2)       wait_clause_call -> "_xmpacc_acc_wait(where, 2, (const long long []){...});"
"""

from __future__ import annotations

import dataclasses

from pycparser import c_ast

from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AsyncClause, WaitClause
from xmpacc.runtime.contract import ACC_ASYNC_NOVAL, ACC_SYNC
from xmpacc.section_code import Hoister, encode, operand_of, resolve, var_ref_node
from xmpacc.sections import CTriplet
from xmpacc.symbols import Scope, member_array


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
        raise XmpError(ref.name.loc, f"'{ref.name.name}' is const: {what} would write its device copy back "
                                     "into it (const data only go to the device: copyin, present, delete)")



class DataVar:
    """One variable of a data clause as generated code passes it to the runtime."""

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
    v = DataVar(xd.VarRef(name, None, name.loc), scope, Hoister("", None))
    return v.key, v.size



def cond_arg(if_: xd.Expr | None) -> str:
    return "1" if if_ is None else f"(({if_.text}) != 0)"



def queue_arg(async_: AsyncClause | None) -> str:
    if async_ is None:
        return str(ACC_SYNC)
    return str(ACC_ASYNC_NOVAL) if async_.queue is None else f"(long long)({async_.queue.text})"



def wait_clause_call(wait: WaitClause | None, where: str, entry: str = "_xmpacc_acc_wait") -> str:
    """The host's wait for the queues (``entry``: _xmpacc_acc_wait_on_device, the device's)."""
    if wait is None:
        return ""
    if not wait.queues:
        return f"{entry}({where}, -1, 0);"
    queues = ", ".join(f"(long long)({q.text})" for q in wait.queues)
    if wait.devnum is not None:
        return (f"_xmpacc_acc_wait_devnum({where}, (long long)({wait.devnum.text}), {len(wait.queues)}, "
                f"(const long long []){{{queues}}});")
    return f"{entry}({where}, {len(wait.queues)}, (const long long []){{{queues}}});"
