"""Pass localize (2/2): global subscripts of aligned arrays become local buffer offsets.

Before:  un[i][j] = u[i-1][j];         (u, un: double[N][M] aligned with t[i][j])
After:   un[_XMPACC_AT2(_xmpacc_a_un, _XMPACC_L(_xmpacc_a_un, 0, i), _XMPACC_L(_xmpacc_a_un, 1, j))]
           = u[_XMPACC_AT2(_xmpacc_a_u, _XMPACC_L(_xmpacc_a_u, 0, i - 1), _XMPACC_L(_xmpacc_a_u, 1, j))];

``_XMPACC_L`` subtracts the dimension's gtol (block, gblock, collapsed, full shadow);
``_XMPACC_LC`` calls the cyclic formula of xmpacc_dist.h.  A partial subscript
(``u[i]`` of a 2-D array) becomes the address of that row in the local block.  Names are
resolved with C scoping, so a local variable that hides an aligned array is left alone.
An aligned member of a structure object (``c.a[i]``, global-view §8) indexes with the
object's descriptor member (``c._xmpacc_a_a``); an aligned pointer (xmp_malloc) checks on
each access that it is allocated (``_XMPACC_LIVE``, nothing in kernels).
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import map_children, unwind
from xmpacc.context import Context, Unit
from xmpacc.scoping import ScopedWalker
from xmpacc.symbols import ArraySym, ScopeTree, bound_member


def _int(v: int) -> c_ast.Constant:
    return c_ast.Constant("int", str(v))


def _call(name: str, args: list[c_ast.Node], coord: object) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name, coord), c_ast.ExprList(args, coord), coord)


def local_offset(sym: ArraySym, subs: list[c_ast.Node], coord: object) -> c_ast.Node:
    """The flat local offset of global subscripts ``subs`` (missing trailing ones are 0)."""
    locs: list[c_ast.Node] = []
    for k, dim in enumerate(sym.dims):
        if k >= len(subs):
            locs.append(_int(0))
            continue
        macro = "_XMPACC_LC" if dim.index_kind == "cyclic" else "_XMPACC_L"
        locs.append(_call(macro, [c_ast.ID(sym.c_name, coord), _int(k), subs[k]], coord))
    if sym.ndims == 1:
        return locs[0]
    return _call(f"_XMPACC_AT{sym.ndims}", [c_ast.ID(sym.c_name, coord)] + locs, coord)


class _Rewriter(ScopedWalker):
    def __init__(self, tree: ScopeTree) -> None:
        super().__init__(tree)

    def rewrite(self, node: c_ast.Node) -> c_ast.Node:
        inner = self.tree.by_node.get(id(node))
        outer = self.scope
        if inner is not None:
            self.scope = inner
        try:
            return self._rewrite(node)
        finally:
            self.scope = outer

    def _array(self, base: c_ast.Node) -> ArraySym | None:
        """The aligned array (or aligned member of a structure object) ``base`` names."""
        if isinstance(base, c_ast.ID):
            return self.scope.find_array(base.name)
        if isinstance(base, c_ast.StructRef) and isinstance(base.field, c_ast.ID):
            return bound_member(self.scope, base.name, base.type == "->", base.field.name)
        return None

    def _rewrite(self, node: c_ast.Node) -> c_ast.Node:
        if isinstance(node, c_ast.ArrayRef):
            base, subs = unwind(node)
            sym = self._array(base)
            if sym is not None and len(subs) <= sym.ndims:
                subs = [self.rewrite(s) for s in subs]
                if isinstance(base, c_ast.StructRef):
                    base.name = self.rewrite(base.name)
                offset = local_offset(sym, subs, node.coord)
                if sym.is_pointer:  # xmp_malloc'ed: report an access before the allocation
                    offset = _call("_XMPACC_LIVE", [c_ast.ID(sym.c_name), c_ast.Constant(
                        "string", cbuild.where_literal(node.coord)), offset], node.coord)
                ref = c_ast.ArrayRef(base, offset, node.coord)
                if len(subs) == sym.ndims:
                    return ref
                return c_ast.UnaryOp("&", ref, node.coord)
        return map_children(node, self.rewrite)


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    rewriter = _Rewriter(ctx.scopes)
    rewriter.rewrite(unit.ast)
    for stmt in ctx.init_stmts:
        rewriter.rewrite(stmt)
    return unit
