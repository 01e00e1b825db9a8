"""A local variable, element or array section named in a directive, as runtime arguments
(global-view §1, §5): its address and a description the runtime turns into a numpy view
(runtime/reductions.py ``var_view``).

    int k[4][5];   k[1][:]   ->   (void *) &k,
                                  (const long long []){_XMPACC_TYPE(k[0][0]), sizeof(k[0][0]), 2,
                                      sizeof(k) / sizeof(k[0]), sizeof(k[0]) / sizeof(k[0][0]),
                                      2, 0, (1), 0, 0, 1, 0, -1, 1}

The description is {type code, element size, rank, extents..., number of subscripts,
(kind, a, b, c) per subscript}: kind 0 is the index a, kind 1 the triplet with base a,
length b (-1: to the end of the dimension) and step c.  Missing trailing subscripts take
the whole dimension.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.symbols import Scope

VAR_INDEX, VAR_TRIPLET = 0, 1


def declared(ref: xd.VarRef, scope: Scope, role: str) -> c_ast.Decl:
    """The declaration of a local (not distributed) variable named in a directive."""
    name = ref.name.name
    found = scope.find_c(name)
    if found is None:
        raise XmpError(ref.name.loc, f"variable '{name}' is not declared")
    if scope.find_array(name) is not None:
        raise XmpError(ref.name.loc, f"'{name}' is a distributed (aligned) array; it cannot be {role}")
    return found[1]


def shape(decl: c_ast.Decl) -> tuple[int, c_ast.Node]:
    """(rank, element type node) of a declaration."""
    rank, t = 0, decl.type
    while isinstance(t, c_ast.ArrayDecl):
        rank, t = rank + 1, t.type
    return rank, t


def type_names(decl: c_ast.Decl) -> set[str]:
    _rank, t = shape(decl)
    return set(getattr(getattr(t, "type", None), "names", []) or [])


def _sub(sub: xd.VarSub) -> list[str]:
    if isinstance(sub, xd.Expr):
        return [str(VAR_INDEX), f"({sub.text})", "0", "0"]
    base = f"({sub.base.text})" if sub.base else "0"
    length = f"({sub.length.text})" if sub.length else "-1"
    step = f"({sub.step.text})" if sub.step else "1"
    return [str(VAR_TRIPLET), base, length, step]


def var_operand(ref: xd.VarRef, scope: Scope, role: str) -> tuple[str, str]:
    """(address, description) C texts of a variable or section named in a directive."""
    decl = declared(ref, scope, role)
    name = ref.name.name
    rank, elem_type = shape(decl)
    if isinstance(elem_type, c_ast.PtrDecl):
        raise XmpError(ref.name.loc, f"'{name}' is a pointer; {role} must be a scalar or an array")
    subs = ref.subs or ()
    if len(subs) > rank:
        raise XmpError(ref.loc, f"'{name}' has {rank} dimension(s) but {len(subs)} subscript(s) are given")
    elem = name + "[0]" * rank
    extents = [cbuild.extent_of(name, d, d + 1) for d in range(rank)]
    parts = [f"_XMPACC_TYPE({elem})", f"sizeof({elem})", str(rank), *extents, str(len(subs))]
    for sub in subs:
        parts += _sub(sub)
    return f"(void *) &{name}", "(const long long []){" + ", ".join(parts) + "}"
