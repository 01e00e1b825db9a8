"""Coarrays as the passes see them (global-view §11): the front end
(``frontend/coarrays.py``) writes each codimension list as a call of ``_xmpacc_coindex``,
pass coarray_decls records each file-scope coarray and each coarray dummy argument as a
``Coarray``, and pass coarrays lowers the coindexed references.

    int a[10]:[*];      ->  int a[10][_xmpacc_coindex(_XMPACC_STAR)];
    a[i]:[k] = x;       ->  a[i][_xmpacc_coindex(k)] = x;
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.diagnostics import SourceLoc
from xmpacc.frontend.coarrays import COINDEX
from xmpacc.symbols import Scope


@dataclass(frozen=True)
class Coarray:
    """A file-scope coarray or a coarray dummy argument: its C declaration (codimensions
    removed) and codimensions."""

    name: str
    decl: c_ast.Decl
    codims: tuple[c_ast.Node | None, ...]     # None: '*' (the last one)
    loc: SourceLoc

    @property
    def ndims(self) -> int:
        t, n = self.decl.type, 0
        while isinstance(t, c_ast.ArrayDecl):
            t, n = t.type, n + 1
        return n


def is_coindex(node: c_ast.Node | None) -> bool:
    return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name == COINDEX


def coindex_args(call: c_ast.FuncCall) -> list[c_ast.Node]:
    return list(call.args.exprs) if call.args is not None else []


def coarray_of(name: str, scope: Scope, coarrays: dict[str, Coarray]) -> Coarray | None:
    """The coarray that ``name`` denotes in ``scope`` (C scoping: a local of the same name
    hides it): a file-scope coarray, or a coarray dummy argument of the function, which
    ``coarrays`` holds under another key (``"f(v)"``) and is found by its declaration."""
    found = scope.find_c(name)
    if found is None:
        return None
    where, decl = found
    if where.parent is None:
        return coarrays.get(name)
    return next((co for co in coarrays.values() if co.decl is decl), None)
