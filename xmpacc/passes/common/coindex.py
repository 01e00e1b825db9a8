"""Coarrays as the passes see them (global-view §11): the front end
(``frontend/coarrays.py``) writes each codimension list as a call of ``_xmpacc_coindex``,
pass coarray_decls records each file-scope coarray as a ``Coarray``, and pass coarrays
lowers the coindexed references.

    int a[10]:[*];      ->  int a[10][_xmpacc_coindex(_XMPACC_STAR)];
    a[i]:[k] = x;       ->  a[i][_xmpacc_coindex(k)] = x;
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.diagnostics import SourceLoc
from xmpacc.frontend.coarrays import COINDEX


@dataclass(frozen=True)
class Coarray:
    """A file-scope coarray: its C declaration (codimensions removed) and codimensions."""

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
