"""Small constructors and helpers for pycparser ASTs used by the passes.

Runtime calls are ordinary ``c_ast.FuncCall`` nodes, so the stock C generator prints
them and the round-trip test covers them.  ``expr`` parses a C expression string, which
keeps the passes readable: ``expr("_XMPACC_L(_xmpacc_a_u, 0, i)")`` instead of a tree of
constructors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from pycparser import c_ast, c_generator, c_parser

from xmpacc.diagnostics import InternalError, SourceLoc

_GEN = c_generator.CGenerator()


def to_c(node: c_ast.Node) -> str:
    return _GEN.visit(node)


def loc_of(node: c_ast.Node) -> SourceLoc:
    """Where a node of the user's program stands (``file:line:col`` of its messages)."""
    c = node.coord
    return SourceLoc(getattr(c, "file", "?"), getattr(c, "line", 0), getattr(c, "column", 0) or 1)


def expr(text: str, coord: object = None) -> c_ast.Node:
    """Parse a C expression (generated code; a failure is a bug in xmpacc)."""
    return stmt(f"({text});", coord)


def stmt(text: str, coord: object = None) -> c_ast.Node:
    """Parse one C statement or declaration of generated code."""
    items = stmts(text, coord)
    if len(items) != 1:
        raise InternalError(f"expected one statement in generated code: {text}")
    return items[0]


def stmts(text: str, coord: object = None) -> list[c_ast.Node]:
    """Parse generated statements; names the runtime declares are typedefs here."""
    prelude = ("typedef int _xmpacc_nodes_t; typedef int _xmpacc_template_t; "
               "typedef int _xmpacc_array_t; typedef int _xmpacc_sched_t; typedef int _xmpacc_object_t; "
               "typedef int _xmpacc_range_t; typedef int _xmpacc_tdim_t; typedef int _xmpacc_posmap_t; "
               "typedef int _xmpacc_push_t;")
    ast = _parse_generated(prelude, f"void _xmpacc_f(void) {{ {text} }}")
    items = ast.ext[-1].body.block_items or []
    for item in items:
        set_coord(item, coord)
    return items


def set_coord(node: c_ast.Node, coord: object) -> None:
    for n in walk(node):
        n.coord = coord


def compound(items: list[c_ast.Node], coord: object = None) -> c_ast.Compound:
    return c_ast.Compound(items, coord)


def subscript_chain(node: c_ast.Node) -> list[c_ast.ArrayRef]:
    """The ArrayRef nodes of ``a[i][j]``, the whole reference first: ``a[i][j]``, ``a[i]``
    ([] for any other node)."""
    chain: list[c_ast.ArrayRef] = []
    while isinstance(node, c_ast.ArrayRef):
        chain.append(node)
        node = node.name
    return chain


def unwind(node: c_ast.Node) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """``a[i][j]`` -> (a, [i, j]): what a chain of subscripts applies to and the subscripts,
    the first dimension's first (``node`` itself and [] for any other node)."""
    chain = subscript_chain(node)
    return (chain[-1].name if chain else node), [ref.subscript for ref in reversed(chain)]


def array_base(node: c_ast.Node) -> c_ast.Node:
    """What a chain of subscripts applies to: ``a`` of ``a[i][j]``, ``s[k].a`` of ``s[k].a[i]``."""
    return unwind(node)[0]


def walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """Pre-order walk over a subtree (an explicit stack: programs may nest thousands deep)."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for _name, child in reversed(node.children()))


def _slots(node: c_ast.Node) -> list[str]:
    return [s for s in node.__slots__ if s not in ("coord", "__weakref__", "attributes")]


def map_children(node: c_ast.Node, fn: Callable[[c_ast.Node], c_ast.Node]) -> c_ast.Node:
    """Replace each child of ``node`` (a node or a list of nodes in a slot) by ``fn(child)``."""
    for slot in _slots(node):
        value = getattr(node, slot)
        if isinstance(value, c_ast.Node):
            setattr(node, slot, fn(value))
        elif isinstance(value, list) and value and isinstance(value[0], c_ast.Node):
            setattr(node, slot, [fn(v) for v in value])
    return node


def transform(node: c_ast.Node, fn: Callable[[c_ast.Node], c_ast.Node | None]) -> c_ast.Node:
    """Post-order rewrite: ``fn`` returns a replacement node or None to keep the node."""
    map_children(node, lambda child: transform(child, fn))
    result = fn(node)
    return node if result is None else result


def extent_of(name: str, outer: int, inner: int) -> str:
    """C: how many ``name[0]..[0]`` (``inner`` subscripts) one ``name[0]..`` (``outer``
    subscripts) holds, by sizeof: ``extent_of("a", 1, 2)`` is a's row length, also for a
    variable-length array, which keeps its declaration's sizes."""
    return f"sizeof({name}{'[0]' * outer}) / sizeof({name}{'[0]' * inner})"


def where_literal(loc: object) -> str:
    """The C string literal ``"file.c:12"`` that runtime calls carry for their messages
    (``loc`` is a SourceLoc or a pycparser Coord)."""
    path = str(getattr(loc, "file", "?") or "?")
    return c_string(f"{path.rsplit('/', 1)[-1]}:{getattr(loc, 'line', 0)}")


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cleanup_decl(decl_text: str, cleanup_fn: str, coord: object = None) -> c_ast.Decl:
    """A block-scope declaration whose ``cleanup_fn(&var)`` runs on every exit from the block.

    pycparser has no GNU attributes, so the ``_XMPACC_CLEANUP(fn)`` macro from xmpacc.h
    travels as a function specifier, which the generator prints before the type.
    """
    decl = stmt(decl_text, coord)
    if not isinstance(decl, c_ast.Decl):
        raise InternalError(f"not a declaration: {decl_text}")
    decl.funcspec = [f"_XMPACC_CLEANUP({cleanup_fn})"] + list(decl.funcspec)
    return decl


def external(text: str) -> c_ast.Node:
    """Parse one file-scope declaration or function definition of generated code."""
    return _parse_generated("", text).ext[-1]


# Typedef names of the file being compiled (set by the driver): generated code embeds the
# user's expressions, and a cast to the user's ``real`` in a loop bound only parses when
# ``real`` is known as a type.  They are declared only when the text needs them, as a
# variable may have the same name as a typedef elsewhere in the file.
USER_TYPEDEFS: ContextVar[frozenset[str]] = ContextVar("xmpacc_user_typedefs", default=frozenset())
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _parse_generated(prelude: str, text: str) -> c_ast.FileAST:
    try:
        return c_parser.CParser().parse(f"{prelude} {text}")
    except c_parser.ParseError as e:
        error = e
    names = sorted(USER_TYPEDEFS.get() & set(_IDENT.findall(text)))
    if names:
        typedefs = "".join(f"typedef int {n};" for n in names)
        try:
            return c_parser.CParser().parse(f"{prelude} {typedefs} {text}")
        except c_parser.ParseError as e:
            error = e
    raise InternalError(f"xmpacc generated invalid C ({error}): {text}") from None
