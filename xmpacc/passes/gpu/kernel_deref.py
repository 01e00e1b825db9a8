"""Dereferences in an OpenACC compute construct written as subscripts (part of acc_compute).

    *(p + i) = x;        becomes    p[i] = x;
    s += *p;                        s += p[0];
    *(q + i - 1)                    q[i - 1]
    v->re                           v[0].re
    (v + k)->im                     v[k].im

C defines ``E1[E2]`` as ``*((E1) + (E2))``, so the meaning is the same; the kernel machinery
then sees the pointer as it sees any array: a pointer with a device copy (``copy(p[0:n])``,
``enter data``) or a ``deviceptr`` is used on the device, and a host pointer without one is
classify's error by its name (before, any ``*p`` of an outside pointer was "the GPU cannot
follow host pointers", a deviceptr's too).  Only a dereference of a named pointer or array,
alone or plus and minus integers, is rewritten; the others stay as written.
"""

from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from xmpacc.cbuild import transform, walk
from xmpacc.symbols import Scope


def pointer_names(body: c_ast.Node, scope: Scope) -> Callable[[str], bool]:
    """Is a name a pointer or an array declared outside the body?  The body's own pointers
    point where the body makes them and keep their dereferences (kernel_vars allows them)."""
    local = {n.name for n in walk(body) if isinstance(n, c_ast.Decl) and n.name}

    def is_pointer(name: str) -> bool:
        found = scope.find_c(name) if name not in local else None
        return found is not None and isinstance(found[1].type, (c_ast.PtrDecl, c_ast.ArrayDecl))
    return is_pointer


def _element(address: c_ast.Node, is_pointer: Callable[[str], bool]) -> c_ast.ArrayRef | None:
    """``address`` (``p``, ``p + e``, ``e + p``, ``p + i - 1``: a named pointer plus or minus
    integers) as the element ``p[...]``."""
    terms: list[tuple[int, c_ast.Node]] = []
    _terms(address, 1, terms)
    pointers = [(sign, t) for sign, t in terms if isinstance(t, c_ast.ID) and is_pointer(t.name)]
    if len(pointers) != 1 or pointers[0][0] != 1:
        return None
    pointer = pointers[0][1]
    others = [(sign, t) for sign, t in terms if t is not pointer]
    if any(_pointer_valued(t, is_pointer) for _sign, t in others):
        return None
    index: c_ast.Node = c_ast.Constant("int", "0", address.coord)
    for k, (sign, t) in enumerate(others):
        if k == 0:
            index = t if sign > 0 else c_ast.UnaryOp("-", t, t.coord)
        else:
            index = c_ast.BinaryOp("+" if sign > 0 else "-", index, t, t.coord)
    return c_ast.ArrayRef(pointer, index, address.coord)


def _terms(node: c_ast.Node, sign: int, out: list[tuple[int, c_ast.Node]]) -> None:
    """The terms of a sum (``a + b - c``) with their signs."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        _terms(node.left, sign, out)
        _terms(node.right, sign if node.op == "+" else -sign, out)
    else:
        out.append((sign, node))


def _pointer_valued(node: c_ast.Node, is_pointer: Callable[[str], bool]) -> bool:
    """Could ``node`` be a pointer (then ``p - q`` is a difference, not an element)?"""
    return any(isinstance(n, c_ast.ID) and is_pointer(n.name)
               and not _subscripted(node, n) for n in walk(node))


def _subscripted(root: c_ast.Node, ident: c_ast.ID) -> bool:
    """Is ``ident`` the array of a subscript in ``root`` (``idx[k]``: an integer then)?"""
    return any(isinstance(n, c_ast.ArrayRef) and n.name is ident for n in walk(root))


def as_subscripts(node: c_ast.Node, is_pointer: Callable[[str], bool]) -> c_ast.Node:
    """``node`` with its dereferences of named pointers written as subscripts."""
    def rewrite(n: c_ast.Node) -> c_ast.Node | None:
        if isinstance(n, c_ast.UnaryOp) and n.op == "*":
            return _element(n.expr, is_pointer)
        if isinstance(n, c_ast.StructRef) and n.type == "->":
            element = _element(n.name, is_pointer)
            return c_ast.StructRef(element, ".", n.field, n.coord) if element is not None else None
        return None
    return transform(node, rewrite)
