"""Pass directive_exprs: the C expressions in directives, checked where the directive stands.

Directive expressions are C text that the generated code evaluates (attach.py only checks
that they parse).  A name that is not declared at the directive, or a template extent of
type double, would otherwise be reported by the host compiler on generated code, at a
column of the generated line.  This pass checks every expression of every directive
against the C scope at the directive (block scopes, file scope, enumerators, typedef
names; macros are already expanded) with ``ctypecheck`` and reports at the user's column,
even inside a macro's expansion (at the macro name):

    1 #pragma xmp template t(0:N-1)    m.c:1:26: 'N' undeclared (first use in this directive)
    2 double w = 2;
    3 #pragma xmp shadow a[w]          m.c:3:22: shadow width must be an integer expression
                                                 (it has type 'double')

Nothing in the tree changes.  Each ``Expr`` of a directive object is found generically;
what it must be is looked up in ``KINDS`` by (class, field), then by field name alone,
and defaults to an integer expression, so a new directive class is checked without
changes here (add a row when one of its expressions is not an integer).  ``VARIABLES``
lists the ``Name`` fields that denote C variables and ``XMP_NAMES`` those that denote
node arrays or templates: both must be declared before the directive (their other checks
belong to the passes that use them).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pycparser import c_ast, c_parser

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.ctypecheck import UNKNOWN, CType, Entity, ExprProblem, ExprTypes, constant_value
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives.lexer import TokenStream
from xmpacc.directives.refs import parse_expr as scan_expr
from xmpacc.frontend.libc_names import LibcNames
from xmpacc.frontend.preprocess import RawDirective, is_system_path, runtime_include_dir
from xmpacc.passes.common.pragmas import pragma_id
from xmpacc.scoping import ScopedWalker


@dataclass(frozen=True, slots=True)
class Kind:
    """What an expression of a directive must be; ``what`` names it in messages."""

    what: str
    integer: bool = True
    gblock: bool = False     # a 1-D int array with one entry per node of its dimension


KindRule = Kind | Callable[[Any, xd.Directive], Kind]
DEFAULT = Kind("expression in this directive")
GBLOCK = Kind("gblock argument", integer=False, gblock=True)

# A table, one row per place an expression may stand in a directive (rows look alike).
KINDS: dict[tuple[type, str], KindRule] = {
    (xd.NodesDecl, "extents"): Kind("node extent"),
    (xd.TemplateDim, "lower"): lambda _dim, d: Kind("template extent" if getattr(d, "style", "") == "bracket"
                                                    else "template lower bound"),
    (xd.TemplateDim, "upper"): lambda _dim, d: Kind("template extent" if getattr(d, "style", "") == "bracket"
                                                    else "template upper bound"),
    (xd.DistFormat, "arg"): lambda f, _d: GBLOCK if f.kind == "gblock" else Kind(f"{f.kind} width"),
    (xd.AlignSubscript, "offset"): Kind("align offset"),
    (xd.ShadowWidth, "lower"): Kind("shadow width"),
    (xd.ShadowWidth, "upper"): Kind("shadow width"),
    (xd.ReflectWidth, "lower"): Kind("reflect width"),
    (xd.ReflectWidth, "upper"): Kind("reflect width"),
    (xd.LoopIndex, "offset"): Kind("loop subscript offset"),
    (xd.OnTemplate, "subs"): Kind("template subscript"),
    (xd.Ref, "subs"): lambda ref, _d: Kind(f"subscript of '{ref.name.name}'"),
    (xd.Triplet, "start"): Kind("triplet start"),
    (xd.Triplet, "last"): Kind("triplet end"),
    (xd.Triplet, "step"): Kind("triplet step"),
    (xd.AccClauses, "num_threads"): Kind("thread count"),
    (xd.VarRef, "subs"): Kind("subscript"),
    (xd.SectionTriplet, "base"): Kind("section base"),
    (xd.SectionTriplet, "length"): Kind("section length"),
    (xd.SectionTriplet, "step"): Kind("section step"),
}
FIELD_KINDS: dict[str, Kind] = {"async_id": Kind("async id"), "ids": Kind("async id")}

VARIABLES: frozenset[tuple[type, str]] = frozenset({
    (xd.Bcast, "variables"), (xd.ReductionVar, "name"), (xd.ReductionVar, "locations"),
    (xd.AccReplicate, "variables"), (xd.SyncClause, "variables"), (xd.VarRef, "name"),
})
# Names of node arrays and templates: visible from their declaration on (reference §2).
# (distribute needs no row: the declare pass reads a scope's declarations in order.)
XMP_NAMES: frozenset[tuple[type, str]] = frozenset({
    (xd.Ref, "name"), (xd.OnTemplate, "template"), (xd.Align, "template"),
})

_IDENT = re.compile(r"[A-Za-z_]\w*")


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _DirectiveChecker(unit, ctx).visit(unit.ast)
    return unit  # errors stay collected until the check stage


def kind_of(owner: object, field: str, directive: xd.Directive) -> Kind:
    rule = KINDS.get((type(owner), field)) or FIELD_KINDS.get(field) or DEFAULT
    return rule if isinstance(rule, Kind) else rule(owner, directive)


def fields_of(value: object, cls: type,
              owner: object = None, field: str = "") -> Iterator[tuple[Any, str, Any]]:
    """(owner object, field name, item) for every ``cls`` inside a directive object."""
    if isinstance(value, cls):
        yield owner, field, value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from fields_of(item, cls, owner, field)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from fields_of(getattr(value, f.name), cls, value, f.name)


class _DirectiveChecker(ScopedWalker):
    """Walks the file in order, recording the C names declared so far in each scope."""

    def __init__(self, unit: Unit, ctx: Context) -> None:
        assert ctx.scopes is not None
        super().__init__(ctx.scopes)
        self.unit, self.ctx = unit, ctx
        self.declared: dict[int, dict[str, Entity]] = {}     # id(Scope) -> names so far
        self.tags: dict[str, c_ast.Node] = {}                # 'struct s' -> its definition
        self.xmp_declared: dict[int, set[str]] = {}          # id(Scope) -> nodes, templates so far
        self._system: dict[str, bool] = {}
        self._libc: LibcNames | None = None

    # ------------------------------------------------------------ declarations, in order
    def declare(self, name: str, entity: Entity, scope: object = None) -> None:
        self.declared.setdefault(id(scope or self.scope), {})[name] = entity

    def lookup(self, name: str) -> Entity | None:
        s = self.scope
        while s is not None:
            found = self.declared.get(id(s), {}).get(name)
            if found is not None:
                return found
            s = s.parent
        return None

    def struct(self, tag: str) -> c_ast.Node | None:
        return self.tags.get(tag)

    def _is_system(self, node: c_ast.Node) -> bool:
        path = str(getattr(node.coord, "file", "") or "")
        if path not in self._system:
            self._system[path] = bool(path) and is_system_path(path)
        return self._system[path]

    def _declare_types(self, node: c_ast.Node | None) -> None:
        """Enumerators and struct tags defined inside a declaration's type."""
        for n in walk(node) if node is not None else ():
            if isinstance(n, c_ast.Enum) and n.values is not None:
                self._declare_enum(n)
            elif isinstance(n, (c_ast.Struct, c_ast.Union)) and n.decls is not None and n.name:
                self.tags[f"{'struct' if isinstance(n, c_ast.Struct) else 'union'} {n.name}"] = n

    def _declare_enum(self, enum: c_ast.Enum) -> None:
        value: int | None = 0
        for e in enum.values.enumerators:
            if not isinstance(e, c_ast.Enumerator):
                continue  # a pragma among the enumerators: reported by the check stage
            if e.value is not None:
                value = constant_value(e.value, self)
            self.declare(e.name, Entity("enumerator", e, value, self._is_system(e)))
            value = None if value is None else value + 1

    def _pragmas_inside(self, node: c_ast.Node) -> None:
        for n in walk(node):
            if pragma_id(n) is not None:
                self._check_pragma(n)

    def visit_Decl(self, node: c_ast.Decl) -> None:
        self._declare_types(node.type)
        if node.name:
            kind = "function" if isinstance(node.type, c_ast.FuncDecl) else "object"
            self.declare(node.name, Entity(kind, node, None, self._is_system(node)))
        self._pragmas_inside(node)  # a directive among struct members (reported elsewhere)

    def visit_Typedef(self, node: c_ast.Typedef) -> None:
        self._declare_types(node.type)
        self.declare(node.name, Entity("typedef", node, None, self._is_system(node)))
        self._pragmas_inside(node)

    def visit_Typename(self, node: c_ast.Typename) -> None:
        self._declare_types(node.type)

    def visit_Enum(self, node: c_ast.Enum) -> None:
        if node.values is not None:
            self._declare_enum(node)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self.visit_Decl(node.decl)
        body_scope = self.tree.by_node.get(id(node.body))
        args = getattr(node.decl.type, "args", None)
        for param in [*(args.params if args is not None else []), *(node.param_decls or [])]:
            if isinstance(param, c_ast.Decl) and param.name:
                self._declare_types(param.type)
                self.declare(param.name, Entity("object", param), body_scope)
            elif pragma_id(param) is not None:
                self._check_pragma(param)
        self.visit(node.body)

    def visit_Pragma(self, node: c_ast.Pragma) -> None:
        if pragma_id(node) is not None:
            self._check_pragma(node)

    # ------------------------------------------------------------ names C does not declare
    def undeclared(self, node: c_ast.ID, call: bool) -> CType:
        name = node.name
        if name.startswith("__builtin_"):
            return UNKNOWN
        macro = self._libc_names().kind(name)
        if macro is not None:
            return UNKNOWN if macro == "unknown" else CType(macro, "int" if macro == "integer" else "double")
        later = self.scope.find_c(name)
        if later is not None and getattr(later[1].coord, "line", 0):
            raise ExprProblem(node, f"'{name}' undeclared here: it is declared after this directive "
                                    f"(line {later[1].coord.line})")
        xmp = "node array" if self.scope.find_nodes(name) else "template" if self.scope.find_template(name) \
            else ""
        if xmp:
            raise ExprProblem(node,
                              f"'{name}' is a {xmp}, not a C value (XMP names have their own namespace)")
        if call:
            raise ExprProblem(node, f"implicit declaration of function '{name}'")
        raise ExprProblem(node, f"'{name}' undeclared (first use in this directive)")

    def _libc_names(self) -> LibcNames:
        if self._libc is None:
            pre = self.unit.pre
            self._libc = LibcNames(pre.cc, pre.cpp_args, pre.system_includes, [runtime_include_dir()])
        return self._libc

    # ------------------------------------------------------------ one directive
    def _check_pragma(self, node: c_ast.Pragma) -> None:
        raw = self.unit.pre.directives.get(pragma_id(node))  # type: ignore[arg-type]
        directives = self.ctx.directives.get(id(node), [])
        if raw is None or not directives:
            return
        stream = TokenStream(raw.text, raw.locs)
        seen: set[int] = set()
        for d in directives:
            for owner, field, expr in fields_of(d, xd.Expr):
                _ExprCheck(self, raw, stream, expr).run(kind_of(owner, field, d), owner, d, seen)
            for owner, field, name in fields_of(d, xd.Name):
                if (type(owner), field) in VARIABLES:
                    self._check_variable(name)
                elif (type(owner), field) in XMP_NAMES:
                    self._check_xmp_name(name)
        for d in directives:
            if isinstance(d, (xd.NodesDecl, xd.TemplateDecl)):
                self.xmp_declared.setdefault(id(self.scope), set()).add(d.name.name)

    def _check_variable(self, name: xd.Name) -> None:
        head = name.name.split(".", 1)[0].split("->", 1)[0]   # the object of a member path (c.a)
        entity = self.lookup(head)
        if entity is not None:
            # (the passes report enumerators and type names: C declarations they do not know)
            if entity.kind == "function":
                self.ctx.diags.error(name.loc, f"'{name.name}' is a function, not a variable")
            return
        later = self.scope.find_c(name.name)  # not found at all: the pass using it reports
        if later is not None and getattr(later[1].coord, "line", 0):
            self.ctx.diags.error(name.loc, f"'{name.name}' undeclared here: it is declared after "
                                           f"this directive (line {later[1].coord.line})")

    def _check_xmp_name(self, name: xd.Name) -> None:
        s = self.scope
        while s is not None:
            if name.name in self.xmp_declared.get(id(s), ()):
                return
            s = s.parent
        nodes = self.scope.find_nodes(name.name)
        sym = nodes or self.scope.find_template(name.name)
        if sym is not None:  # not declared at all: the pass using it reports
            what = "nodes" if nodes is not None else "template"
            self.ctx.diags.error(name.loc, f"{what} '{name.name}' is used before its declaration "
                                           f"(line {sym.decl.loc.line})")


class _ExprCheck:
    """One ``Expr`` of a directive: found again in the directive's text as written (the
    object may hold a normalised form such as ``(N)-1``), parsed, typed and judged."""

    def __init__(self, checker: _DirectiveChecker, raw: RawDirective, stream: TokenStream,
                 expr: xd.Expr) -> None:
        self.checker, self.raw, self.expr = checker, raw, expr
        self.text, self.start = _written(stream, expr)

    def loc(self, offset: int = 0) -> SourceLoc:
        if self.start is None:
            return self.expr.loc
        offset = max(0, min(offset, len(self.text) - 1))
        return self.raw.locs[self.start + offset]

    def run(self, kind: Kind, owner: object, directive: xd.Directive, seen: set[int]) -> None:
        if self.start is not None:
            if self.start in seen:   # both bounds of t[N] come from one N
                return
            seen.add(self.start)
        node = _parse(self.text, self.checker)
        if node is None:
            return  # attach reported what does not parse
        diags = self.checker.ctx.diags
        try:
            t = ExprTypes(self.checker).type_of(node)
        except ExprProblem as p:
            diags.error(self.loc(_offset(p.node)), p.message)
            return
        if kind.gblock:
            problem = _gblock_problem(t, node, owner, directive, self.checker)
            if problem is not None:
                diags.error(self.loc(), problem)
        elif kind.integer and t.kind not in ("integer", "unknown"):
            diags.error(self.loc(), f"{kind.what} must be an integer expression (it has type {t.describe()})")


def _written(stream: TokenStream, expr: xd.Expr) -> tuple[str, int | None]:
    """The expression as the directive writes it at ``expr.loc`` and its offset in the
    directive text; (expr.text, None) when it cannot be found there.  Every token of a
    macro's expansion has the macro name's place: only the first of such a run can start
    an expression (trying each would be quadratic)."""
    first: tuple[str, int] | None = None
    for k, tok in enumerate(stream.tokens):
        if tok.kind == "eof" or stream.loc(tok) != expr.loc or \
                (k > 0 and stream.loc(stream.tokens[k - 1]) == expr.loc):
            continue
        stream.index = k
        try:
            scanned = scan_expr(stream)
        except XmpError:
            continue
        if scanned.text == expr.text:
            return scanned.text, tok.pos
        first = first or (scanned.text, tok.pos)
    return first if first is not None else (expr.text, None)


def _parse(text: str, checker: _DirectiveChecker) -> c_ast.Node | None:
    """The expression's tree; typedef names visible at the directive parse as types.
    Its tokens are on line 2, from column 2."""
    typedefs = sorted(n for n in set(_IDENT.findall(text))
                      if (e := checker.lookup(n)) is not None and e.kind == "typedef")
    prelude = "".join(f"typedef int {name};" for name in typedefs)
    try:
        ast = c_parser.CParser().parse(f"{prelude} void _xmpacc_f(void) {{\n({text}\n);}}", "<directive>")
    except (c_parser.ParseError, ValueError, RecursionError):
        return None
    items = ast.ext[-1].body.block_items or []
    return items[0] if items else None


def _offset(node: c_ast.Node) -> int:
    coord = node.coord
    return max(getattr(coord, "column", 2) - 2, 0) if getattr(coord, "line", 0) == 2 else 0


def _gblock_problem(t: CType, node: c_ast.Node, owner: object, d: xd.Directive,
                    checker: _DirectiveChecker) -> str | None:
    """What is wrong with ``gblock(W)``: W must be an int array (or a pointer to int) with
    one entry per node of the dimension it maps."""
    if t.kind == "unknown":
        return None
    elem = t.target if t.kind in ("array", "pointer") else None
    if elem is None or elem.kind not in ("integer", "unknown") \
            or (elem.kind == "integer" and not elem.int_sized):
        return ("the gblock argument must be an int array with one entry per node (it has type "
                f"{t.describe()})")
    length = t.length if t.kind == "array" else None
    if length is None and isinstance(node, c_ast.ID):
        length = _initializer_length(checker.lookup(node.name))
    nodes = _gblock_nodes(owner, d, checker)
    if length is None or nodes is None or nodes[1] == length:
        return None
    return (f"the gblock argument has {length} entries but nodes '{nodes[0]}' has {nodes[1]} "
            "in this dimension")


def _initializer_length(entity: Entity | None) -> int | None:
    """``int W[] = {3, 7, 0, 6}`` has 4 entries."""
    decl = entity.decl if entity is not None else None
    init = getattr(decl, "init", None)
    if isinstance(getattr(decl, "type", None), c_ast.ArrayDecl) and isinstance(init, c_ast.InitList):
        return len(init.exprs)
    return None


def _gblock_nodes(owner: object, d: xd.Directive, checker: _DirectiveChecker) -> tuple[str, int] | None:
    """(nodes name, constant extent of the node dimension this dist-format maps)."""
    if not isinstance(d, xd.Distribute):
        return None
    distributed = [f for f in d.formats if f.kind != "none"]
    k = next((i for i, f in enumerate(distributed) if f is owner), None)
    nodes = checker.scope.find_nodes(d.onto.name)
    if k is None or nodes is None or k >= len(nodes.decl.extents):
        return None
    extent = nodes.decl.extents[k]
    if not isinstance(extent, xd.Expr):
        return None
    tree = _parse(extent.text, checker)
    value = constant_value(tree, checker) if tree is not None else None
    return None if value is None else (nodes.name, value)

