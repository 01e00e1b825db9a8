"""Canonical ``for`` loops (reference §6.1): ``for (v = e1; v op e2; v += s)``.

``canonical(for_node)`` returns the control variable, its start, the inclusive last value
and the step as C text, or raises XmpError saying what is not canonical.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.cbuild import loc_of, to_c
from xmpacc.diagnostics import XmpError

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True, slots=True)
class CanonicalLoop:
    var: str
    declared: c_ast.Decl | None   # ``for (int i = ...)``: the declaration, else None
    init: str                     # e1
    last: str                     # inclusive bound, e.g. "(N) - 1" for i < N
    step: str                     # signed step, e.g. "1", "-(2)"
    upward: bool                  # direction from the comparison


def _init(node: c_ast.For) -> tuple[str, c_ast.Decl | None, str]:
    init = node.init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name, None, to_c(init.rvalue)
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        d = init.decls[0]
        return d.name, d, to_c(d.init)
    raise XmpError(loc_of(node), "loop is not canonical: the initialisation must be 'v = start'")


def _cond(node: c_ast.For, var: str) -> tuple[str, str]:
    cond = node.cond
    if isinstance(cond, c_ast.BinaryOp) and cond.op in _FLIP:
        if isinstance(cond.left, c_ast.ID) and cond.left.name == var:
            return cond.op, to_c(cond.right)
        if isinstance(cond.right, c_ast.ID) and cond.right.name == var:
            return _FLIP[cond.op], to_c(cond.left)
    where = loc_of(cond) if cond is not None else loc_of(node)
    raise XmpError(where, f"loop is not canonical: the condition must compare '{var}' with <, <=, > or >=")


def _step(node: c_ast.For, var: str) -> str:
    nxt = node.next
    if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == var:
        if nxt.op in ("p++", "++"):
            return "1"
        if nxt.op in ("p--", "--"):
            return "-1"
    if isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) and nxt.lvalue.name == var:
        if nxt.op == "+=":
            return f"({to_c(nxt.rvalue)})"
        if nxt.op == "-=":
            return f"-({to_c(nxt.rvalue)})"
        rv = nxt.rvalue
        if nxt.op == "=" and isinstance(rv, c_ast.BinaryOp) and rv.op in "+-" \
                and isinstance(rv.left, c_ast.ID) and rv.left.name == var:
            return f"{'' if rv.op == '+' else '-'}({to_c(rv.right)})"
    where = loc_of(nxt) if nxt is not None else loc_of(node)
    raise XmpError(where, f"loop is not canonical: the increment must be '{var}++', '{var}--', "
                          f"'{var} += s' or '{var} -= s'")


def canonical(node: c_ast.For) -> CanonicalLoop:
    var, declared, init = _init(node)
    op, bound = _cond(node, var)
    step = _step(node, var)
    last = {"<": f"({bound}) - 1", "<=": bound, ">": f"({bound}) + 1", ">=": bound}[op]
    return CanonicalLoop(var, declared, init, last, step, op in ("<", "<="))
