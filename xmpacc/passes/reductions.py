"""Reductions: the loop clause and the ``reduction`` directive as runtime calls (§6.1, §6.4).

Loop clause ``reduction(+:s)`` on ``loop on t[i]``:

    _xmpacc_loop_reduce_begin(&_xmpacc_t_t, (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);
    <the distributed nest>
    _xmpacc_loop_reduce(&_xmpacc_t_t, "f.c:9", (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);

``begin`` resets ``s`` to the operator's identity on every node but the first of its
reduction node set, so the initial value is counted once.  Local arrays are reduced
element-wise: ``&s`` becomes ``s`` and the count ``sizeof s / sizeof s[0]``.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.runtime.contract import REDUCTION_OPS
from xmpacc.symbols import Scope, TemplateSym

_FLOAT_NAMES = {"float", "double"}


def _array_rank(decl: c_ast.Decl) -> int:
    rank, t = 0, decl.type
    while isinstance(t, c_ast.ArrayDecl):
        rank, t = rank + 1, t.type
    return rank


def reduction_operand(var: xd.ReductionVar, op: str, scope: Scope) -> tuple[str, str, str]:
    """(address, element count, type code) C texts for one reduction variable."""
    name = var.name.name
    if var.locations:
        raise XmpError(var.name.loc, "location variables are only allowed with firstmax/firstmin/lastmax/lastmin")
    found = scope.find_c(name)
    if found is None:
        raise XmpError(var.name.loc, f"variable '{name}' is not declared")
    if scope.find_array(name) is not None:
        raise XmpError(var.name.loc, f"'{name}' is a distributed (aligned) array; it cannot be a reduction variable")
    decl = found[1]
    rank = _array_rank(decl)
    base_type = decl.type
    while isinstance(base_type, c_ast.ArrayDecl):
        base_type = base_type.type
    if isinstance(base_type, c_ast.PtrDecl):
        raise XmpError(var.name.loc, f"'{name}' is a pointer; reduction variables are scalars or arrays")
    names = set(getattr(getattr(base_type, "type", None), "names", []) or [])
    if op in ("&", "|", "^") and names & _FLOAT_NAMES:
        raise XmpError(var.name.loc, f"bitwise reduction '{op}' on floating-point variable '{name}'")
    if rank == 0:
        return f"&{name}", "1", f"_XMPACC_TYPE({name})"
    elem = name + "[0]" * rank
    return name, f"sizeof({name}) / sizeof({elem})", f"_XMPACC_TYPE({elem})"


def _op_code(red: xd.Reduction) -> int:
    if red.op not in REDUCTION_OPS:
        raise XmpError(red.loc, f"reduction '{red.op}' is not supported yet")
    return REDUCTION_OPS[red.op]


def loop_reduction_calls(loop: xd.Loop, tmpl: TemplateSym, mask: list[int], scope: Scope,
                         coord: object) -> tuple[list[c_ast.Node], list[c_ast.Node]]:
    before: list[c_ast.Node] = []
    after: list[c_ast.Node] = []
    dims = "(const int []){" + ", ".join(map(str, mask)) + "}"
    where = cbuild.where_literal(loop.loc)
    for red in loop.reductions:
        code = _op_code(red)
        for var in red.variables:
            addr, count, typ = reduction_operand(var, red.op, scope)
            args = f"{addr}, {count}, {typ}, {code}"
            before += cbuild.stmts(f"_xmpacc_loop_reduce_begin(&{tmpl.c_name}, {dims}, {args});", coord)
            after += cbuild.stmts(f"_xmpacc_loop_reduce(&{tmpl.c_name}, {where}, {dims}, {args});", coord)
    return before, after


def reduction_directive_calls(d: xd.ReductionDirective, on: tuple[str, str], scope: Scope,
                              coord: object) -> list[c_ast.Node]:
    code = _op_code(d.reduction)
    where = cbuild.where_literal(d.loc)
    out: list[c_ast.Node] = []
    for var in d.reduction.variables:
        addr, count, typ = reduction_operand(var, d.reduction.op, scope)
        out += cbuild.stmts(f"_xmpacc_reduce({addr}, {where}, {count}, {typ}, {code}, {on[0]}, {on[1]});", coord)
    return out
