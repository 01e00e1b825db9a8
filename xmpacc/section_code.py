"""C code for array sections (global-view §1), shared by the passes assign, gmove and array.

An *operand* is one side of an array assignment or of a gmove: a scalar variable, an
element or a section of a local (C) or distributed (aligned) array.  ``operand_of`` reads
it from the C AST; ``resolve`` turns its subscripts into ``SubCode``s whose base, length
and step are simple C expressions (constants, identifiers, or ``long long`` temporaries
declared once by a ``Hoister``), with the checks the specification asks for:

    a[i:n][2]   ->  SubCode(triplet, base=i, length=n, step=1), SubCode(index, 2)
                    + if (n <= 0) _xmpacc_section_error("f.c:9", 1, "a", {0, n}, 0);

A constant violation (length <= 0, step 0, an index out of bounds) is an ``XmpError`` at
the triplet instead.  ``element`` gives the element an iteration touches
(``a[i + _xmpacc_i0][2]``) and ``encode`` the section as the runtime reads it
(runtime/sections.py): ``{ndims, elem_size, (extent, kind, base, length, step)...}``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from pycparser import c_ast
from pycparser.c_parser import Coord

from xmpacc import cbuild
from xmpacc.cbuild import array_base, loc_of, unwind
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives import ast as xd
from xmpacc.facts import value
from xmpacc.frontend.sections import OMIT, TRIPLET
from xmpacc.runtime.contract import SEC_INDEX, SEC_TRIPLET, SECERR_LENGTH, SECERR_SHAPE, SECERR_STEP
from xmpacc.sections import CTriplet, section
from xmpacc.symbols import ArraySym, Scope, bound_member

_BASIC = frozenset({"char", "signed", "unsigned", "short", "int", "long", "float", "double",
                    "_Bool", "_Complex"})


def const(node: c_ast.Node | None) -> int | None:
    """The value of an integer constant expression (after macro expansion), else None."""
    return None if node is None else value(cbuild.to_c(node))


def is_simple(node: c_ast.Node) -> bool:
    """Constants and plain identifiers may be repeated in generated code."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        return isinstance(node.expr, c_ast.Constant)
    return isinstance(node, (c_ast.Constant, c_ast.ID))


def num(v: int) -> c_ast.Node:
    return c_ast.Constant("int", str(v)) if v >= 0 else c_ast.UnaryOp("-", c_ast.Constant("int", str(-v)))


@dataclass
class Hoister:
    """The declarations and checks that precede one generated statement."""

    where: str                          # C string literal "file.c:line"
    coord: object
    decls: list[c_ast.Node] = field(default_factory=list)
    checks: list[c_ast.Node] = field(default_factory=list)
    _conds: list[str] = field(default_factory=list)

    def simple(self, node: c_ast.Node, prefix: str = "v") -> c_ast.Node:
        """``node`` itself when it is simple, its value when it is a constant expression,
        else a temporary holding its value."""
        if is_simple(node):
            return node
        if const(node) is not None:
            return num(const(node))  # type: ignore[arg-type]
        name = f"_xmpacc_{prefix}{len(self.decls)}"
        decl = cbuild.stmt(f"long long {name} = 0;", self.coord)
        decl.init = node
        self.decls.append(decl)
        return c_ast.ID(name)

    def check(self, cond: str, what: int, name: str, a: str, b: str = "0") -> None:
        """``if (cond) _xmpacc_section_error(where, what, name, a, b);`` (run-time error)."""
        if any(cond == seen for seen in self._conds):
            return
        self._conds.append(cond)
        self.checks += cbuild.stmts(f"if ({cond}) _xmpacc_section_error({self.where}, {what}, "
                                    f"{cbuild.c_string(name)}, {a}, {b});", self.coord)


@dataclass
class Operand:
    """A scalar, element or section on one side of an assignment."""

    node: c_ast.Node                    # as written
    name: str
    decl: c_ast.Decl
    sym: ArraySym | None                # a distributed (aligned) array
    subs: tuple[c_ast.Node | CTriplet, ...]
    extents: tuple[c_ast.Node | None, ...]   # per array dimension; None: unknown
    elem: c_ast.Node                    # the element's type declaration
    loc: SourceLoc

    @property
    def rank(self) -> int:
        return sum(isinstance(s, CTriplet) for s in self.subs)

    @property
    def is_array(self) -> bool:
        return bool(self.extents)

    @property
    def elem_type(self) -> str:
        """The element type as C text, qualifiers dropped (``double``, ``struct s``)."""
        t = copy.deepcopy(self.elem)
        inner = t
        while not isinstance(inner, c_ast.TypeDecl):
            inner = inner.type
        inner.declname, inner.quals = None, []
        return cbuild.to_c(c_ast.Typename(None, [], None, t))

    @property
    def basic_type(self) -> bool:
        t = self.elem
        return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
            and set(t.type.names) <= _BASIC


@dataclass(frozen=True)
class SubCode:
    """One resolved subscript: an index (``base``) or a triplet; nodes are simple."""

    triplet: bool
    base: c_ast.Node
    length: c_ast.Node
    step: c_ast.Node
    loc: SourceLoc

    @property
    def const_length(self) -> int | None:
        return const(self.length)


def _local_shape(decl: c_ast.Decl) -> tuple[list[c_ast.Node | None], c_ast.Node]:
    """Extents (None: unknown) and element type of a local array, pointer or scalar."""
    t, dims = decl.type, []
    if isinstance(t, c_ast.PtrDecl):
        dims.append(None)
        t = t.type
    while isinstance(t, c_ast.ArrayDecl):
        dim = t.dim
        if dims and dim is not None and any(isinstance(n, c_ast.ID) for n in cbuild.walk(dim)):
            # a variable row length: what the array was declared with, whatever the
            # variable holds now (double a[n][m]; m = 0;)
            k = len(dims)
            dim = cbuild.expr(cbuild.extent_of(decl.name, k, k + 1))
        dims.append(dim)
        t = t.type
    if dims and dims[0] is None and decl.init is not None and isinstance(decl.type, c_ast.ArrayDecl):
        dims[0] = cbuild.expr(f"sizeof({decl.name}) / sizeof({decl.name}[0])")  # int a[] = {...}
    return dims, t


def operand_of(node: c_ast.Node, scope: Scope, members: bool = False) -> Operand | None:
    """The operand ``node`` denotes (None when it is no variable, element or section).
    ``members``: an aligned structure member (``c.a``, ``p->a``, global-view §8) may be
    one; it travels as its descriptor like any distributed array (gmove)."""
    sec = section(node)
    if sec is not None:
        root, subs = sec.array, sec.subs
    elif isinstance(node, c_ast.ArrayRef):
        root, subs = unwind(node)
    else:
        root, subs = node, ()
    if isinstance(root, c_ast.StructRef):
        return _member_operand(node, root, tuple(subs), scope, members)
    if not isinstance(root, c_ast.ID):
        return None
    found = scope.find_c(root.name)
    if found is None:
        raise XmpError(loc_of(root), f"'{root.name}' is not declared")
    decl = found[1]
    sym = scope.find_array(root.name)
    if sym is not None:
        extents: list[c_ast.Node | None] = [d.extent for d in sym.dims]
        elem: c_ast.Node = sym.elem_type
    else:
        extents, elem = _local_shape(decl)
    if len(subs) > len(extents):
        raise XmpError(loc_of(node), f"'{root.name}' has {len(extents)} dimension(s) but "
                                     f"{len(subs)} subscript(s) are given")
    return Operand(node, root.name, decl, sym, tuple(subs), tuple(extents), elem, loc_of(node))


def _member_operand(node: c_ast.Node, root: c_ast.StructRef, subs: tuple[c_ast.Node | CTriplet, ...],
                    scope: Scope, members: bool) -> Operand:
    sym = bound_member(scope, root.name, root.type == "->", root.field.name) if members else None
    if sym is None:
        what = "gmove of structure members that are not aligned" if members else \
            "sections of structure members outside gmove"
        raise XmpError(loc_of(node), f"{what} are not supported yet")
    head = array_base(root.name)   # s[k].a: the object array s
    found = scope.find_c(head.name) if isinstance(head, c_ast.ID) else None
    assert found is not None   # bound_member found the object this way
    if len(subs) > len(sym.dims):
        raise XmpError(loc_of(node), f"'{sym.name}' has {len(sym.dims)} dimension(s) but "
                                     f"{len(subs)} subscript(s) are given")
    return Operand(node, sym.name, found[1], sym, subs, tuple(d.extent for d in sym.dims), sym.elem_type,
                   loc_of(node))


def var_ref_node(ref: xd.VarRef) -> c_ast.Node:
    """A variable, element or section named in a directive, as the C expression it is
    (each part located where the directive has it)."""
    def coord(loc: SourceLoc) -> Coord:
        return Coord(loc.file, loc.line, loc.col)

    def part(text: str | None, loc: SourceLoc) -> c_ast.Node:
        node = cbuild.expr(text) if text is not None else c_ast.ID(OMIT)
        cbuild.set_coord(node, coord(loc))
        return node

    node: c_ast.Node = c_ast.ID(ref.name.name, coord(ref.name.loc))
    for sub in ref.subs or ():
        if isinstance(sub, xd.Expr):
            index = part(sub.text, sub.loc)
        else:
            args = [part(x.text if x is not None else None, x.loc if x is not None else sub.loc)
                    for x in (sub.base, sub.length, sub.step)]
            index = c_ast.FuncCall(c_ast.ID(TRIPLET), c_ast.ExprList(args), coord(sub.loc))
        node = c_ast.ArrayRef(node, index, coord(ref.loc))
    return node


def whole(op: Operand) -> Operand:
    """A bare array name in a gmove means the whole array: ``a`` is ``a[:][:]``."""
    subs = tuple(CTriplet(None, None, None, op.node.coord) for _ in op.extents)
    return Operand(op.node, op.name, op.decl, op.sym, subs, op.extents, op.elem, op.loc)


def resolve(op: Operand, h: Hoister) -> list[SubCode]:
    """Every subscript of ``op`` as simple C, with the checks of global-view §1."""
    out = []
    for k, sub in enumerate(op.subs):
        extent = op.extents[k]
        if not isinstance(sub, CTriplet):
            out.append(_index(op, k, sub, h))
            continue
        loc = loc_of(sub) if sub.coord is not None else op.loc
        base = h.simple(sub.base) if sub.base is not None else num(0)
        step = h.simple(sub.step) if sub.step is not None else num(1)
        if const(step) == 0:
            raise XmpError(loc, f"the step of a section of '{op.name}' must not be 0")
        if sub.length is not None:
            length = h.simple(sub.length)
        else:
            length = _omitted_length(op, k, extent, base, step, loc, h)
        _check_triplet(op, k, extent, base, length, step, loc, h)
        out.append(SubCode(True, base, length, step, loc))
    return out


def _index(op: Operand, k: int, sub: c_ast.Node, h: Hoister) -> SubCode:
    base = h.simple(sub)
    i, ext = const(base), const(op.extents[k])
    if i is not None and ext is not None and not 0 <= i < ext:
        raise XmpError(loc_of(sub), f"index {i} is out of bounds of dimension {k} of '{op.name}' "
                                    f"(0..{ext - 1})")
    return SubCode(False, base, num(1), num(1), loc_of(sub))


def _omitted_length(op: Operand, k: int, extent: c_ast.Node | None, base: c_ast.Node,
                    step: c_ast.Node, loc: SourceLoc, h: Hoister) -> c_ast.Node:
    if extent is None:
        raise XmpError(loc, f"the length of a section of '{op.name}' must be given: the extent "
                            f"of its dimension {k} is not known here")
    e, b, s = const(extent), const(base), const(step)
    if e is not None and b is not None and s is not None:
        n = -(-(e - b) // s) if s > 0 else b // -s + 1
        return num(max(n, 0))
    call = cbuild.expr(f"_xmpacc_sec_len(0, {cbuild.to_c(base)}, {cbuild.to_c(step)})")
    call.args.exprs[0] = extent
    return h.simple(call, "n")


def _check_triplet(op: Operand, k: int, extent: c_ast.Node | None, base: c_ast.Node,
                   length: c_ast.Node, step: c_ast.Node, loc: SourceLoc, h: Hoister) -> None:
    n, b, s, e = const(length), const(base), const(step), const(extent)
    if n is not None and n <= 0:
        raise XmpError(loc, f"the length of a section of '{op.name}' must be > 0, not {n}")
    if n is None:
        h.check(f"{cbuild.to_c(length)} <= 0", SECERR_LENGTH, op.name,
                f"(const long long []){{{k}, {cbuild.to_c(length)}}}")
    if s is None:
        h.check(f"{cbuild.to_c(step)} == 0", SECERR_STEP, op.name, f"(const long long []){{{k}, 0}}")
    if None not in (n, b, s, e):
        last = b + (n - 1) * s  # type: ignore[operator]
        bad = next((x for x in (b, last) if not 0 <= x < e), None)  # type: ignore[operator]
        if bad is not None:
            raise XmpError(loc, f"the section of '{op.name}' reaches index {bad}, out of bounds of "
                                f"dimension {k} (0..{e - 1})")  # type: ignore[operator]


def shape(subs: list[SubCode]) -> list[SubCode]:
    return [s for s in subs if s.triplet]


def conform(left: str, lshape: list[SubCode], right: str, rshape: list[SubCode], loc: SourceLoc,
            h: Hoister) -> None:
    """Shapes must be equal (§1): a compile-time error when known, else a run-time check."""
    if len(lshape) != len(rshape):
        raise XmpError(loc, f"shapes do not conform: '{left}' has {len(lshape)} dimension(s) but "
                            f"'{right}' has {len(rshape)}")
    lens = [(a.const_length, b.const_length) for a, b in zip(lshape, rshape, strict=True)]
    if all(x is not None and y is not None for x, y in lens):
        if any(x != y for x, y in lens):
            bad = next(k for k, (x, y) in enumerate(lens) if x != y)
            raise XmpError(rshape[bad].loc, f"shapes do not conform: '{left}' has shape "
                                            f"{_shape_text(lshape)} but '{right}' has shape "
                                            f"{_shape_text(rshape)}")
        return
    pairs = [(cbuild.to_c(a.length), cbuild.to_c(b.length)) for a, b in zip(lshape, rshape, strict=True)]
    cond = " || ".join(f"{x} != {y}" for x, y in pairs if x != y)
    if cond:
        h.check(cond, SECERR_SHAPE, f"{left} = {right}", lengths_literal(lshape), lengths_literal(rshape))


def lengths_literal(subs: list[SubCode]) -> str:
    return "(const long long []){" + ", ".join([str(len(subs))] + [cbuild.to_c(s.length) for s in subs]) + "}"


def _shape_text(subs: list[SubCode]) -> str:
    return "[" + "][".join(cbuild.to_c(s.length) for s in subs) + "]"


def element(op: Operand, subs: list[SubCode], ivars: list[str]) -> c_ast.Node:
    """The element of ``op`` that iteration ``ivars`` (one per shape dimension) touches."""
    node: c_ast.Node = c_ast.ID(op.name, op.node.coord)
    q = 0
    for sub in subs:
        if sub.triplet:
            index = offset_index(sub, c_ast.ID(ivars[q]))
            q += 1
        else:
            index = copy.deepcopy(sub.base)
        node = c_ast.ArrayRef(node, index, op.node.coord)
    return node


def offset_index(sub: SubCode, j: c_ast.Node) -> c_ast.Node:
    """``base + j * step``, without the parts that are 0 or 1."""
    scaled = j if const(sub.step) == 1 else c_ast.BinaryOp("*", j, copy.deepcopy(sub.step))
    return scaled if const(sub.base) == 0 else c_ast.BinaryOp("+", copy.deepcopy(sub.base), scaled)


def encode(op: Operand, subs: list[SubCode], h: Hoister) -> str:
    """The section as runtime/sections.py reads it: ``{ndims, elem_size, per dimension:
    extent (-1: unknown), kind (index/triplet), base, length, step}``."""
    elem_size = f"sizeof(*{op.name})" if op.sym is not None else \
        f"sizeof({op.name}{'[0]' * len(op.extents)})"
    parts = [str(len(subs)), elem_size]
    for k, sub in enumerate(subs):
        ext = op.extents[k]
        parts += [cbuild.to_c(h.simple(ext, "e")) if ext is not None else "-1",
                  str(SEC_TRIPLET if sub.triplet else SEC_INDEX), cbuild.to_c(sub.base),
                  cbuild.to_c(sub.length), cbuild.to_c(sub.step)]
    return "(const long long []){" + ", ".join(parts) + "}"


def base_address(op: Operand) -> str:
    """Where a local operand's data starts (a scalar's address, an array's first element)."""
    return f"(void *) {op.name}" if op.is_array else f"(void *) &{op.name}"


def written(node: c_ast.Node) -> str:
    """C text of a statement or expression with its sections as the user writes them
    (``a[0:n][2]``, not the call form the front end made of them)."""
    text = cbuild.to_c(node)
    out, k = [], 0
    while (start := text.find(TRIPLET + "(", k)) >= 0:
        out.append(text[k:start])
        depth, j, parts, begin = 0, start + len(TRIPLET), [], start + len(TRIPLET) + 1
        for j in range(start + len(TRIPLET), len(text)):
            ch = text[j]
            depth += ch in "([" and 1 or (-1 if ch in ")]" else 0)
            if depth == 1 and ch == ",":
                parts.append(text[begin:j].strip())
                begin = j + 1
            if depth == 0:
                parts.append(text[begin:j].strip())
                break
        parts = ["" if p == OMIT else p for p in parts]
        out.append(":".join(parts if parts[2] else parts[:2]))
        k = j + 1
    return "".join(out) + text[k:]
