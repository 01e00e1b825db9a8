"""Walking a pycparser AST with C block scopes.

``build_scopes`` creates one ``Scope`` per file, function body, compound statement and
``for`` with a declaration, records the C declarations of each, and lists the XMP
declarative directives (pragmas) found directly in each scope.  ``ScopedWalker`` then lets
later passes visit the tree knowing the current scope.
"""

from __future__ import annotations

from collections.abc import Iterator

from pycparser import c_ast

from xmpacc.symbols import Scope, ScopeTree


def _opens_scope(node: c_ast.Node) -> bool:
    if isinstance(node, (c_ast.FileAST, c_ast.Compound)):
        return True
    return isinstance(node, c_ast.For) and isinstance(node.init, c_ast.DeclList)


def _declared_names(node: c_ast.Node) -> Iterator[c_ast.Decl]:
    if isinstance(node, c_ast.Decl) and node.name:
        yield node
    elif isinstance(node, c_ast.DeclList):
        yield from (d for d in node.decls if d.name)


def build_scopes(ast: c_ast.FileAST) -> ScopeTree:
    root = Scope(ast, None)
    tree = ScopeTree(root, {id(ast): root})
    _fill(ast, root, tree)
    return tree


def _fill(node: c_ast.Node, scope: Scope, tree: ScopeTree) -> None:
    _note_types(node, tree.root)
    for _name, child in node.children():
        if isinstance(child, c_ast.FuncDef):
            _fill_function(child, scope, tree)
            continue
        for decl in _declared_names(child):
            if isinstance(node, (c_ast.FileAST, c_ast.Compound, c_ast.DeclList, c_ast.For)):
                scope.c_decls.setdefault(decl.name, decl)
        if _opens_scope(child):
            inner = Scope(child, scope)
            tree.by_node[id(child)] = inner
            _fill(child, inner, tree)
        else:
            _fill(child, scope, tree)


def _note_types(node: c_ast.Node, root: Scope) -> None:
    """Structure definitions and typedefs, for the aligned members of structures (their
    objects are found by type; C's separate tag scopes are not modelled)."""
    if isinstance(node, c_ast.Typedef) and node.name:
        root.typedefs.setdefault(node.name, node.type)
    elif isinstance(node, c_ast.Struct) and node.name and node.decls is not None:
        root.struct_defs.setdefault(node.name, node)


def _fill_function(fn: c_ast.FuncDef, scope: Scope, tree: ScopeTree) -> None:
    scope.c_decls[fn.decl.name] = fn.decl
    body = Scope(fn.body, scope)
    tree.by_node[id(fn.body)] = body
    args = getattr(fn.decl.type, "args", None)
    for param in (args.params if args else []):
        if isinstance(param, c_ast.Decl) and param.name:
            body.c_decls[param.name] = param
            body.params.add(param.name)
    for decl in fn.param_decls or []:   # K&R declarations (pragmas may stand among them)
        if isinstance(decl, c_ast.Decl) and decl.name:
            body.c_decls[decl.name] = decl
            body.params.add(decl.name)
    _fill(fn.body, body, tree)


class ScopedWalker:
    """Base class: ``visit`` every node with ``self.scope`` set to the enclosing scope."""

    def __init__(self, tree: ScopeTree) -> None:
        self.tree = tree
        self.scope: Scope = tree.root

    def visit(self, node: c_ast.Node) -> None:
        inner = self.tree.by_node.get(id(node))
        outer = self.scope
        if inner is not None:
            self.scope = inner
        try:
            method = getattr(self, "visit_" + type(node).__name__, None)
            if method is not None:
                method(node)
            else:
                self.generic_visit(node)
        finally:
            self.scope = outer

    def generic_visit(self, node: c_ast.Node) -> None:
        for _name, child in node.children():
            self.visit(child)


def scope_items(scope: Scope) -> list[c_ast.Node]:
    """The items directly in a scope: a file's external declarations, a block's statements."""
    node = scope.node
    if isinstance(node, c_ast.FileAST):
        return list(node.ext)
    if isinstance(node, c_ast.Compound):
        return list(node.block_items or [])
    return []
