"""Pass assign: array assignment statements on local arrays become loops (global-view §1).

Before:                               After:
    a[0:5] = 2.0 * b[5:5] + x;            {
                                            for (long long _xmpacc_i0 = 0; _xmpacc_i0 < 5; _xmpacc_i0++)
                                              a[_xmpacc_i0] = 2.0 * b[5 + _xmpacc_i0] + x;
                                          }
    c[1:n] = c[0:n];                      {
                                            long long _xmpacc_v0 = n;  ... run-time checks ...
                                            double *_xmpacc_tmp = __builtin_malloc(...);
                                            long long _xmpacc_k = 0;
                                            for (...) _xmpacc_tmp[_xmpacc_k++] = c[_xmpacc_i0];
                                            _xmpacc_k = 0;
                                            for (...) c[1 + _xmpacc_i0] = _xmpacc_tmp[_xmpacc_k++];
                                            __builtin_free(_xmpacc_tmp);
                                          }

The loop is element-wise in row-major order.  The right-hand side is evaluated into a
temporary first whenever it may read what the statement writes: the same array (unless
constant subscripts prove the parts disjoint), a pointer, or a call of a function that
is not a C math function.  A section of a distributed array in such a statement is an
error that names ``gmove`` and ``array``, the two directives that give it a meaning.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc.cbuild import loc_of
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.passes.localize.assignments import distributed_message, is_array_assignment, lower_assignment
from xmpacc.scoping import ScopedWalker
from xmpacc.sections import section, triplet_calls
from xmpacc.symbols import ScopeTree

_STATEMENT_SLOTS = {c_ast.If: ("iftrue", "iffalse"), c_ast.For: ("stmt",), c_ast.While: ("stmt",),
                    c_ast.DoWhile: ("stmt",), c_ast.Label: ("stmt",)}


class _AssignLowering(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree)
        self.ctx = ctx

    def _statement(self, node: c_ast.Node | None) -> c_ast.Node | None:
        if node is None or not is_array_assignment(node):
            if node is not None:
                self.visit(node)
            return node
        try:
            return lower_assignment(node, self.scope)
        except XmpError as err:
            self.ctx.diags.add(err)
            _silence(node)
            return node

    def visit_Compound(self, node: c_ast.Compound) -> None:
        node.block_items = [self._statement(item) for item in node.block_items or []]

    def visit_Case(self, node: c_ast.Case) -> None:
        node.stmts = [self._statement(item) for item in node.stmts or []]

    def visit_Default(self, node: c_ast.Default) -> None:
        node.stmts = [self._statement(item) for item in node.stmts or []]

    def generic_visit(self, node: c_ast.Node) -> None:
        slots = _STATEMENT_SLOTS.get(type(node), ())
        for slot in slots:
            setattr(node, slot, self._statement(getattr(node, slot)))
        for name, child in node.children():
            if name not in slots:
                self.visit(child)

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> None:
        """A distributed section anywhere else: name the directives that give it a meaning."""
        sec = section(node)
        if sec is not None and isinstance(sec.array, c_ast.ID) and self.scope.find_array(sec.array.name):
            self.ctx.diags.error(loc_of(node), distributed_message(sec.array.name))
            _silence(node)
            return
        self.generic_visit(node)


def _silence(node: c_ast.Node) -> None:
    """A section already reported: the check stage need not report it again."""
    for call in triplet_calls(node):
        call.name.name, call.args = "_xmpacc_reported", None


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _AssignLowering(ctx.scopes, ctx).visit(unit.ast)
    return unit
