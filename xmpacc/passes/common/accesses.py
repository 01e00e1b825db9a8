"""Accesses of aligned arrays in a piece of C, as the locality analysis needs them.

``accesses(node, tree, scope)`` walks a statement with C scoping and returns one
``Access`` per full subscript of an aligned array, ``u[i - 1][j]`` (or of an aligned
structure member, ``c.a[i]``), with its role (read,
write, both), the conditions that guard it (of an ``if``, ``?:``, the left operand of
``&&``/``||``, ``while``, ``switch``) and the inner ``for`` loops around it.  ``affine`` reads a
subscript as ``var + const``; ``const_value`` folds integer constants.  Nothing here
reports: passes/locality/locality.py decides what is a mistake.

    b[i] = a[i - 1] + a[i + 1];    ->  Access(b, [i], write), Access(a, [i - 1], read), ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of, unwind
from xmpacc.diagnostics import InternalError, SourceLoc
from xmpacc.symbols import ArraySym, Scope, ScopeTree, bound_member

READ, WRITE, READWRITE, ADDRESS = "read", "write", "readwrite", "address"


@dataclass(frozen=True)
class Access:
    sym: ArraySym
    ref: c_ast.ArrayRef                 # the outermost ArrayRef of the chain
    subs: tuple[c_ast.Node, ...]        # one per array dimension, C order
    role: str                           # READ, WRITE or READWRITE
    guards: tuple[c_ast.Node, ...]      # conditions it runs under
    fors: tuple[c_ast.For, ...]         # inner loops around it, outermost first

    @property
    def loc(self) -> SourceLoc:
        return loc_of(self.ref)

    @property
    def reads(self) -> bool:
        return self.role in (READ, READWRITE)

    @property
    def writes(self) -> bool:
        return self.role in (WRITE, READWRITE)

    def text(self) -> str:
        return self.sym.name + "".join(f"[{cbuild.to_c(s)}]" for s in self.subs)


@dataclass(frozen=True)
class Affine:
    """``var + const`` (var None: a constant)."""

    var: str | None
    const: int


def int_value(text: str) -> int | None:
    """The value of a C integer literal (suffixes dropped), None for anything else."""
    t = text.rstrip("uUlL")
    try:
        if len(t) > 1 and t[0] == "0" and t[1] not in "xXbB":
            return int(t, 8)
        return int(t, 0)
    except ValueError:
        return None


def const_value(node: c_ast.Node | None) -> int | None:
    """Integer constant arithmetic (+ - * and unary -), else None."""
    if isinstance(node, c_ast.Constant) and "char" not in node.type and "double" not in node.type \
            and "float" not in node.type:
        return int_value(node.value)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = const_value(node.expr)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        a, b = const_value(node.left), const_value(node.right)
        if a is None or b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def text_value(text: str) -> int | None:
    """The value of a directive's integer expression (macros expanded), None if not constant."""
    plain = text.strip()
    if plain.isdigit():          # nearly every width and offset: no parser needed
        return int_value(plain)
    try:
        return const_value(cbuild.expr(text))
    except InternalError:
        return None


def affine(node: c_ast.Node) -> Affine | None:
    """``node`` as ``var + const``, None when it is not of that form."""
    if isinstance(node, c_ast.ID):
        return Affine(node.name, 0)
    c = const_value(node)
    if c is not None:
        return Affine(None, c)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        a, b = affine(node.left), affine(node.right)
        if a is None or b is None:
            return None
        if node.op == "-":
            return Affine(a.var, a.const - b.const) if b.var is None else None
        if a.var is not None and b.var is not None:
            return None
        return Affine(a.var or b.var, a.const + b.const)
    return None


def for_control(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    return None


def names_in(node: c_ast.Node | None) -> set[str]:
    return {n.name for n in cbuild.walk(node) if isinstance(n, c_ast.ID)} if node is not None else set()


@dataclass
class BodyFacts:
    """Variables a loop body assigns (or takes the address of) and declares."""

    assigned: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)


def body_facts(body: c_ast.Node) -> BodyFacts:
    facts = BodyFacts()
    for node in cbuild.walk(body):
        target = None
        if isinstance(node, c_ast.Assignment):
            target = node.lvalue
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&"):
            target = node.expr
        if isinstance(target, c_ast.ID):
            facts.assigned.add(target.name)
        if isinstance(node, c_ast.Decl) and node.name:
            facts.declared.add(node.name)
    return facts


def store_target(node: c_ast.Node) -> c_ast.Node | None:
    """What ``node`` stores into: an assignment's left side, an increment's operand."""
    if isinstance(node, c_ast.Assignment):
        return node.lvalue
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        return node.expr
    return None


def stored_variable(node: c_ast.Node) -> c_ast.ID | None:
    """The variable an lvalue stores into: ``a`` of ``a[i][j]``, ``s.x``, ``a[i].x``."""
    while isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
        if isinstance(node, c_ast.StructRef) and node.type != ".":
            return None
        node = node.name
    return node if isinstance(node, c_ast.ID) else None


def uses(body: c_ast.Node) -> tuple[set[str], set[str]]:
    """(names read, names written) in ``body``: the variable of a plain ``=`` target is
    written only; ``+=``, ``++`` targets are read and written; every other name is read."""
    written: set[str] = set()
    write_only: set[int] = set()
    calls: set[int] = set()
    for node in cbuild.walk(body):
        target = None
        if isinstance(node, c_ast.Assignment):
            target = stored_variable(node.lvalue)
            if target is not None and node.op == "=":
                write_only.add(id(target))
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            target = stored_variable(node.expr)
        elif isinstance(node, c_ast.FuncCall):
            calls.add(id(node.name))
        elif isinstance(node, c_ast.StructRef):
            calls.add(id(node.field))   # a member name, not a variable
        if target is not None:
            written.add(target.name)
    read = {n.name for n in cbuild.walk(body) if isinstance(n, c_ast.ID) and id(n) not in write_only
            and id(n) not in calls}
    return read, written


def address_taken(body: c_ast.Node) -> set[str]:
    """Names whose address ``&x`` the code takes."""
    return {n.expr.name for n in cbuild.walk(body) if isinstance(n, c_ast.UnaryOp) and n.op == "&"
            and isinstance(n.expr, c_ast.ID)}


def passed_addresses(body: c_ast.Node, rank: Callable[[str], int],
                     const_param: Callable[[str, int], bool]) -> set[str]:
    """The arrays whose elements a call in ``body`` may store into through an argument:
    ``f(&a[i][j])``, ``f(a)``, ``f(a[i])`` of a 2-D ``a`` (a row), ``f(a + k)``, unless
    ``const_param(callee, argument number)`` (a pointer-to-const parameter).  ``rank``:
    the dimensions of a name (0 for a scalar)."""
    out: set[str] = set()
    for call in cbuild.walk(body):
        if not isinstance(call, c_ast.FuncCall) or call.args is None:
            continue
        callee = call.name.name if isinstance(call.name, c_ast.ID) else ""
        for k, arg in enumerate(call.args.exprs):
            name = None if const_param(callee, k) else _address_base(arg, rank)
            if name is not None:
                out.add(name)
    return out


def _address_base(node: c_ast.Node, rank: Callable[[str], int]) -> str | None:
    """The array an address expression points into, or None."""
    while isinstance(node, c_ast.Cast):
        node = node.expr
    if isinstance(node, c_ast.UnaryOp) and node.op == "&":
        ident = stored_variable(node.expr)
        return ident.name if ident is not None else None
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        return _address_base(node.left, rank) or (_address_base(node.right, rank) if node.op == "+" else None)
    node, subs = unwind(node)   # an array, or a row of one: decays to a pointer
    return node.name if isinstance(node, c_ast.ID) and rank(node.name) > len(subs) else None


_LOOPS_AND_BRANCHES = (c_ast.While, c_ast.DoWhile, c_ast.Switch)


class _Collector:
    def __init__(self, tree: ScopeTree) -> None:
        self.tree = tree
        self.found: list[Access] = []

    def visit(self, node: c_ast.Node | None, scope: Scope, role: str = READ,
              guarded: tuple[c_ast.Node, ...] = (), fors: tuple[c_ast.For, ...] = ()) -> None:
        if node is None:
            return
        scope = self.tree.by_node.get(id(node), scope)
        if isinstance(node, c_ast.ArrayRef):
            self._array_ref(node, scope, role, guarded, fors)
        elif isinstance(node, c_ast.Assignment):
            self.visit(node.lvalue, scope, WRITE if node.op == "=" else READWRITE, guarded, fors)
            self.visit(node.rvalue, scope, READ, guarded, fors)
        elif isinstance(node, c_ast.UnaryOp):
            if node.op == "sizeof":
                return
            inner = READWRITE if node.op in ("++", "--", "p++", "p--") else ADDRESS if node.op == "&" \
                else READ
            self.visit(node.expr, scope, inner, guarded, fors)
        elif isinstance(node, c_ast.StructRef):
            self.visit(node.name, scope, role if node.type == "." else READ, guarded, fors)
        elif isinstance(node, c_ast.If):
            self.visit(node.cond, scope, READ, guarded, fors)
            self.visit(node.iftrue, scope, READ, guarded + (node.cond,), fors)
            self.visit(node.iffalse, scope, READ, guarded + (node.cond,), fors)
        elif isinstance(node, c_ast.TernaryOp):
            self.visit(node.cond, scope, READ, guarded, fors)
            self.visit(node.iftrue, scope, role, guarded + (node.cond,), fors)
            self.visit(node.iffalse, scope, role, guarded + (node.cond,), fors)
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            self.visit(node.left, scope, READ, guarded, fors)
            self.visit(node.right, scope, READ, guarded + (node.left,), fors)
        elif isinstance(node, c_ast.For):
            for part in (node.init, node.cond, node.next):
                self.visit(part, scope, READ, guarded, fors)
            self.visit(node.stmt, scope, READ, guarded, fors + (node,))
        elif isinstance(node, _LOOPS_AND_BRANCHES):
            self.visit(node.cond, scope, READ, guarded, fors)
            self.visit(node.stmt, scope, READ, guarded + (node.cond,), fors)
        elif isinstance(node, c_ast.FuncCall):
            self.visit(node.args, scope, READ, guarded, fors)
        else:
            for _name, child in node.children():
                self.visit(child, scope, READ, guarded, fors)

    def _array_ref(self, node: c_ast.ArrayRef, scope: Scope, role: str, guarded: tuple[c_ast.Node, ...],
                   fors: tuple[c_ast.For, ...]) -> None:
        base, subs = unwind(node)
        if isinstance(base, c_ast.ID):
            sym = scope.find_array(base.name)
        elif isinstance(base, c_ast.StructRef) and isinstance(base.field, c_ast.ID):
            # an aligned structure member: c.a[i], p->a[i], s[k].a[i] (global-view §8)
            sym = bound_member(scope, base.name, base.type == "->", base.field.name)
        else:
            sym = None
        if sym is not None and len(subs) == sym.ndims and role != ADDRESS:
            self.found.append(Access(sym, node, tuple(subs), role, guarded, fors))
        if not isinstance(base, c_ast.ID):
            self.visit(base, scope, READ, guarded, fors)   # the object's own subscripts
        for s in subs:
            self.visit(s, scope, READ, guarded, fors)


def restricts(cond: c_ast.Node) -> bool:
    """May ``cond`` pick the node that runs an access?  Only conditions made of ``!=``
    comparisons (joined by ``&&``, ``||``, ``!``) cannot: ``if (i != j)`` still reads every
    other ``j``; ``if (j == i)``, ``if (me == 0)``, ``if (ok(j))`` can."""
    if isinstance(cond, c_ast.BinaryOp) and cond.op in ("&&", "||"):
        return restricts(cond.left) or restricts(cond.right)
    if isinstance(cond, c_ast.UnaryOp) and cond.op == "!":
        return restricts(cond.expr)
    if isinstance(cond, c_ast.BinaryOp) and cond.op == "!=":
        return any(isinstance(n, c_ast.FuncCall) for n in cbuild.walk(cond))
    return True


def accesses(node: c_ast.Node, tree: ScopeTree, scope: Scope) -> list[Access]:
    """Every full subscript of an aligned array in ``node`` (``scope`` encloses it)."""
    c = _Collector(tree)
    c.visit(node, scope)
    return c.found
