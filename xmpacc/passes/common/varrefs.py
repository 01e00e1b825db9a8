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

An array parameter (``int plus(int a[N])``) is a pointer in C, so ``sizeof(a)`` measures
the pointer: its outermost extent is the declared one, ``(N)``, and its address ``a``.
One declared without an extent (``int a[]``) takes a section that names its elements.
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


def is_array_param(name: str, scope: Scope) -> bool:
    """Is ``name`` here a function parameter declared as an array (a pointer in C)?"""
    found = scope.find_c(name)
    return found is not None and name in found[0].params and isinstance(found[1].type, c_ast.ArrayDecl)


def outer_extent(ref: xd.VarRef, decl: c_ast.Decl, scope: Scope) -> str:
    """C text: how many elements the outermost dimension of the array ``decl`` has.  For
    an array parameter, its declared extent; without one, as far as the leading subscript
    reaches (an index, or a triplet with its length), else a located error."""
    name = ref.name.name
    if not is_array_param(name, scope):
        return cbuild.extent_of(name, 0, 1)
    if decl.type.dim is not None:
        return f"({cbuild.to_c(decl.type.dim)})"
    sub = ref.subs[0] if ref.subs else None
    if isinstance(sub, xd.Expr):
        return f"({sub.text}) + 1"
    if sub is not None and sub.length is not None:
        base = f"({sub.base.text})" if sub.base else "0"
        step = f" * ({sub.step.text})" if sub.step else ""
        return f"{base} + ({sub.length.text}){step}"
    raise XmpError(ref.name.loc, f"'{name}' is an array parameter declared without an extent "
                                 f"('{name}[]'), so how many elements it has is unknown here; declare it "
                                 f"with one ('{name}[N]') or name its elements as a section, '{name}[0:n]'")


def byte_size(ref: xd.VarRef, decl: c_ast.Decl, scope: Scope) -> str:
    """C text: the bytes of a whole variable (an array parameter's by its extent)."""
    name = ref.name.name
    if is_array_param(name, scope):
        return f"({outer_extent(ref, decl, scope)}) * sizeof({name}[0])"
    return f"sizeof({name})"


def param_bytes(ref: xd.VarRef, scope: Scope) -> str | None:
    """C text: the bytes from an array parameter's address to the end of what ``ref``
    names; None for any other variable, or where its extent is unknown (the reduction
    or bcast that names it reports that)."""
    found = scope.find_c(ref.name.name)
    if found is None or not is_array_param(ref.name.name, scope):
        return None
    try:
        return byte_size(ref, found[1], scope)
    except XmpError:
        return None


def place(ref: xd.VarRef, scope: Scope) -> tuple[str, str]:
    """C texts (address, bytes) of the variable ``ref`` names, for code that copies it
    whole: ``&v``, ``sizeof(v)``; an array parameter holds the address, and its bytes go
    as far as its extent or ``ref``'s section reaches."""
    name = ref.name.name
    if is_array_param(name, scope):
        return name, param_bytes(ref, scope) or f"sizeof(*{name})"
    return f"&{name}", f"sizeof({name})"


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
    if rank:
        extents[0] = outer_extent(ref, decl, scope)
    parts = [f"_XMPACC_TYPE({elem})", f"sizeof({elem})", str(rank), *extents, str(len(subs))]
    for sub in subs:
        parts += _sub(sub)
    # the elements' address: an array parameter is a pointer, which holds it
    addr = name if is_array_param(name, scope) else f"&{name}"
    return f"(void *) {addr}", "(const long long []){" + ", ".join(parts) + "}"
