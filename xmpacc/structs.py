"""Aligned members of structures (global-view §8): which object's member an access names.

    struct b { int a[10]; };               every object of type struct b has its member a
    #pragma xmp align b.a[i] with t[i]     distributed: in the generated C the member is a
    #pragma xmp shadow b.a[1]              pointer to the object's local block, next to a
    struct b c;                            descriptor member  _xmpacc_array_t _xmpacc_a_a;

An access ``c.a[i]``, ``p->a[i]`` or ``s[k].a[i]`` (or the directive name ``c.a``) is the
member's mapping bound to that object: an ``ArraySym`` whose C names are ``c.a`` and
``c._xmpacc_a_a``, so that the passes treat it as any aligned array.
"""

from __future__ import annotations

import dataclasses
import re

from pycparser import c_ast

from xmpacc.cbuild import to_c
from xmpacc.symbols import ArraySym, Scope

_PATH = re.compile(r"([A-Za-z_]\w*)(\.|->)([A-Za-z_]\w*)")


def root_of(scope: Scope) -> Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


def struct_def(t: c_ast.Node | None, root: Scope) -> c_ast.Struct | None:
    """The definition of the structure type that ``t`` (a TypeDecl, Struct or typedef
    name) denotes; None for any other type."""
    seen = 0
    while t is not None and seen < 32:   # typedef chains are short; never loop forever
        seen += 1
        if isinstance(t, c_ast.TypeDecl):
            t = t.type
        elif isinstance(t, c_ast.Struct):
            return t if t.decls is not None else root.struct_defs.get(t.name or "")
        elif isinstance(t, c_ast.IdentifierType) and len(t.names) == 1 and t.names[0] in root.typedefs:
            t = root.typedefs[t.names[0]]
        else:
            return None
    return None


def element_type(t: c_ast.Node, levels: int) -> c_ast.Node | None:
    """The type after ``levels`` subscripts (or one ``->``) of an object of type ``t``."""
    for _ in range(levels):
        if not isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            return None
        t = t.type
    return t


def bound_member(scope: Scope, obj: c_ast.Node, arrow: bool, member: str) -> ArraySym | None:
    """The aligned member ``member`` of the object expression ``obj`` (``c``, ``s[k]``,
    ``p`` with ``arrow``), bound to that object; None when it is no aligned member."""
    root = root_of(scope)
    if not root.members:
        return None
    head, levels = obj, 1 if arrow else 0
    while isinstance(head, c_ast.ArrayRef):
        head, levels = head.name, levels + 1
    if not isinstance(head, c_ast.ID):
        return None
    found = scope.find_c(head.name)
    t = element_type(found[1].type, levels) if found is not None else None
    d = struct_def(t, root)
    sym = root.members.get((id(d), member)) if d is not None else None
    if sym is None:
        return None
    sep, text = ("->" if arrow else "."), to_c(obj)
    return dataclasses.replace(sym, name=f"{text}{sep}{member}", c_name=f"{text}{sep}_xmpacc_a_{member}")


def _resolve_path(scope: Scope, path: str) -> tuple[c_ast.Struct, str] | None:
    m = _PATH.fullmatch(path)
    found = scope.find_c(m.group(1)) if m is not None else None
    if m is None or found is None:
        return None
    t = element_type(found[1].type, 1 if m.group(2) == "->" else 0)
    d = struct_def(t, root_of(scope))
    return (d, m.group(3)) if d is not None else None


def member_is_broken(scope: Scope, path: str) -> bool:
    """Was the align of the member that ``path`` (``c.a``) names in error?"""
    resolved = _resolve_path(scope, path)
    return resolved is not None and (id(resolved[0]), resolved[1]) in root_of(scope).broken_members


def member_by_path(scope: Scope, path: str) -> ArraySym | None:
    """``bound_member`` for a path written in a directive: ``c.a`` or ``p->a``."""
    m = _PATH.fullmatch(path)
    if m is None:
        return None
    return bound_member(scope, c_ast.ID(m.group(1)), m.group(2) == "->", m.group(3))


def descriptor_path(name: str) -> tuple[str, str, str] | None:
    """(object, '.' or '->', member) of the descriptor of an object's aligned member as
    the passes name it in C (``c._xmpacc_a_a``: ``bound_member``'s c_name); None otherwise."""
    m = _PATH.fullmatch(name)
    if m is None or not m.group(3).startswith("_xmpacc_a_"):
        return None
    return m.group(1), m.group(2), m.group(3).removeprefix("_xmpacc_a_")


def descriptor_member(sym: ArraySym) -> str:
    """The name of the descriptor member next to the aligned member ``sym`` (unbound)."""
    return f"_xmpacc_a_{sym.decl.name}"
