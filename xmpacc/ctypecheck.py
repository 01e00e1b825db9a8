"""A small type checker for the C expressions inside directives.

Directive expressions (template bounds, shadow widths, async ids, ...) are C text that
the generated code evaluates; xmpacc checks them itself so that a mistake is reported at
the user's column instead of by the host compiler on generated code.  This checker covers
what such expressions contain: identifiers, literals, operators, casts, ``sizeof``, calls,
array elements and struct members.  It answers the type of an expression, or raises
``ExprProblem`` for what gcc would reject (an undeclared name, ``%`` on a double, a call
of something that is not a function ...).

When a type cannot be known (a member of a struct declared in a system header, a libc
macro such as ``errno``), it is ``UNKNOWN`` and accepted everywhere: the checker must
never reject a valid program.

    double x; int n; enum { K = 4 } ;
    type_of("n * K + 1")        -> 'int'     (an integer type)
    type_of("x / 2")            -> 'double'
    type_of("n % x")            -> ExprProblem: invalid operands to binary % (have 'int' and 'double')
    type_of("m + 1")            -> ExprProblem: 'm' undeclared (first use in this directive)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from pycparser import c_ast

from xmpacc.passes.common.accesses import int_value

TypeKind = Literal["integer", "floating", "pointer", "array", "struct", "function", "void", "unknown"]

_INTEGER_WORDS = frozenset({"_Bool", "bool", "char", "short", "int", "long", "signed", "unsigned",
                            "__int128", "_BitInt"})
_FLOATING_WORDS = frozenset({"float", "double", "_Complex", "complex", "_Decimal32", "_Decimal64",
                             "_Decimal128"})


@dataclass(frozen=True, slots=True)
class CType:
    kind: TypeKind
    spelling: str                        # as gcc names it: 'double', 'int *', 'int[4]'
    target: CType | None = None          # pointee, element or return type
    length: int | None = None            # array extent, when it is a constant
    members: c_ast.Node | None = None    # the Struct/Union node of a struct type
    aka: str = ""                        # the type behind a typedef name
    int_sized: bool = False              # exactly a C int (gblock maps are read as int)

    def describe(self) -> str:
        """'double', or 'real' {aka 'double'} for a typedef, as gcc writes it."""
        return f"'{self.spelling}'" + (f" {{aka '{self.aka}'}}"
                                       if self.aka and self.aka != self.spelling else "")

    @property
    def arithmetic(self) -> bool:
        return self.kind in ("integer", "floating", "unknown")


UNKNOWN = CType("unknown", "?")
INT = CType("integer", "int", int_sized=True)
SIZE_T = CType("integer", "long unsigned int")
DOUBLE = CType("floating", "double")


class ExprProblem(Exception):
    """What gcc would reject in a directive expression, at ``node``."""

    def __init__(self, node: c_ast.Node, message: str) -> None:
        super().__init__(message)
        self.node = node
        self.message = message


@dataclass(frozen=True, slots=True)
class Entity:
    """What a name denotes where the directive stands."""

    kind: Literal["object", "function", "typedef", "enumerator"]
    decl: c_ast.Node                 # Decl, Typedef or Enumerator
    value: int | None = None         # an enumerator's value
    system: bool = False             # declared in a system header (fake libc types are int)


class Names(Protocol):
    def lookup(self, name: str) -> Entity | None: ...
    def struct(self, tag: str) -> c_ast.Node | None: ...
    def undeclared(self, node: c_ast.ID, call: bool) -> CType:
        """The type of a name not declared in C (a libc macro), else raise ExprProblem."""
        ...


# ---------------------------------------------------------------- declared types


def type_of_decl(node: c_ast.Node | None, names: Names, system: bool = False) -> CType:
    """The CType of a pycparser type node (TypeDecl, PtrDecl, ArrayDecl, FuncDecl, Typename)."""
    if isinstance(node, (c_ast.Typename, c_ast.Decl)):
        return type_of_decl(node.type, names, system)
    if isinstance(node, c_ast.PtrDecl):
        target = type_of_decl(node.type, names, system)
        return CType("pointer", _pointer_spelling(target.spelling), target)
    if isinstance(node, c_ast.ArrayDecl):
        target = type_of_decl(node.type, names, system)
        length = constant_value(node.dim, names) if node.dim is not None else None
        return CType("array", f"{target.spelling}[{'' if length is None else length}]", target, length)
    if isinstance(node, c_ast.FuncDecl):
        ret = type_of_decl(node.type, names, system)
        return CType("function", f"{ret.spelling} (*)()", ret)
    if isinstance(node, c_ast.TypeDecl):
        return _base_type(node.type, names, system)
    return UNKNOWN


def _pointer_spelling(target: str) -> str:
    return target + ("*" if target.endswith("*") else " *")


def _base_type(node: c_ast.Node, names: Names, system: bool) -> CType:
    if isinstance(node, c_ast.Enum):
        return CType("integer", f"enum {node.name}" if node.name else "enum", int_sized=True)
    if isinstance(node, (c_ast.Struct, c_ast.Union)):
        word = "struct" if isinstance(node, c_ast.Struct) else "union"
        members = node if node.decls is not None else names.struct(f"{word} {node.name}")
        return CType("struct", f"{word} {node.name}" if node.name else word, members=members)
    if not isinstance(node, c_ast.IdentifierType):
        return UNKNOWN
    words = list(node.names)
    if len(words) == 1 and words[0] not in _INTEGER_WORDS | _FLOATING_WORDS | {"void"}:
        return _typedef_type(words[0], names)
    spelling = " ".join(words)
    if "void" in words:
        return CType("void", "void")
    if any(w in _FLOATING_WORDS for w in words):
        return CType("floating", spelling)
    if all(w in _INTEGER_WORDS for w in words):
        plain = {w for w in words if w not in ("signed", "unsigned")}
        return CType("integer", spelling, int_sized=plain <= {"int"})
    return UNKNOWN


# The fake libc's typedefs are all 'int'; only these are an int in the real headers too.
_REAL_INT_TYPEDEFS = frozenset({"int32_t", "uint32_t", "int_least32_t", "uint_least32_t", "wchar_t"})


def _typedef_type(name: str, names: Names) -> CType:
    entity = names.lookup(name)
    if entity is None or entity.kind != "typedef":
        return UNKNOWN
    real = type_of_decl(entity.decl.type, names, entity.system)
    if entity.system and real.kind in ("integer", "unknown"):
        # the fake type says only 'an integer type' (size_t, clock_t, int64_t, ...)
        return CType("integer", name, int_sized=name in _REAL_INT_TYPEDEFS)
    return CType(real.kind, name, real.target, real.length, real.members, aka=real.spelling,
                 int_sized=real.int_sized)


# ---------------------------------------------------------------- constants


def constant_value(node: c_ast.Node | None, names: Names) -> int | None:
    """The value of an integer constant expression, None when it is not one we can fold
    (the caller then checks nothing that depends on it)."""
    if isinstance(node, c_ast.Constant) and node.type.endswith("int"):
        return int_value(node.value)   # the literal reader of the access analysis
    if isinstance(node, c_ast.ID):
        entity = names.lookup(node.name)
        return entity.value if entity is not None and entity.kind == "enumerator" else None
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~"):
        v = constant_value(node.expr, names)
        return None if v is None else {"-": -v, "+": v, "~": ~v}[node.op]
    if isinstance(node, c_ast.BinaryOp) and node.op in _FOLD:
        a, b = constant_value(node.left, names), constant_value(node.right, names)
        if a is None or b is None or (node.op in ("/", "%") and b == 0) \
                or (node.op in ("<<", ">>") and not 0 <= b < 64):
            return None
        return _FOLD[node.op](a, b)
    return None


_FOLD: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: int(a / b), "%": lambda a, b: a - int(a / b) * b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}


# ---------------------------------------------------------------- expressions


class ExprTypes:
    """``type_of(expr)`` for expressions at one place of the program (``names``)."""

    def __init__(self, names: Names) -> None:
        self.names = names

    def type_of(self, node: c_ast.Node) -> CType:
        method = getattr(self, "_" + type(node).__name__, None)
        return method(node) if method is not None else UNKNOWN

    def _Constant(self, node: c_ast.Constant) -> CType:
        t = node.type
        if t == "string":
            return CType("pointer", "char *", CType("integer", "char"))
        if any(w in t for w in ("float", "double", "_Decimal")):
            return CType("floating", t)
        if t == "nullptr_t":
            return CType("pointer", "nullptr_t", UNKNOWN)
        return CType("integer", t, int_sized=t in ("int", "char", "bool"))

    def _ID(self, node: c_ast.ID) -> CType:
        entity = self.names.lookup(node.name)
        if entity is None:
            return self.names.undeclared(node, call=False)
        if entity.kind == "enumerator":
            return INT
        return type_of_decl(entity.decl, self.names, entity.system)

    def _UnaryOp(self, node: c_ast.UnaryOp) -> CType:
        if node.op in ("sizeof", "_Alignof", "alignof"):
            if not isinstance(node.expr, c_ast.Typename):
                self.type_of(node.expr)  # for its names
            return SIZE_T
        t = self.type_of(node.expr)
        if node.op == "!":
            return INT
        if node.op == "&":
            return CType("pointer", _pointer_spelling(t.spelling), t)
        if node.op == "*":
            if t.kind in ("pointer", "array"):
                return t.target or UNKNOWN
            if t.kind != "unknown":
                raise ExprProblem(node, f"invalid type argument of unary '*' (have {t.describe()})")
            return UNKNOWN
        if node.op in ("-", "+") and not t.arithmetic \
                or node.op == "~" and t.kind not in ("integer", "unknown"):
            raise ExprProblem(node, f"wrong type argument to unary '{node.op}' (have {t.describe()})")
        return t

    def _BinaryOp(self, node: c_ast.BinaryOp) -> CType:
        a, b = self.type_of(node.left), self.type_of(node.right)
        op = node.op
        if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
            return INT
        if "unknown" in (a.kind, b.kind):
            return UNKNOWN
        if op in ("+", "-"):
            pointer = _pointer_arithmetic(op, a, b)
            if pointer is not None:
                return pointer
        if op in ("%", "<<", ">>", "&", "|", "^"):
            ok = a.kind == b.kind == "integer"
        else:
            ok = a.kind in ("integer", "floating") and b.kind in ("integer", "floating")
        if not ok:
            raise ExprProblem(node, f"invalid operands to binary {op} (have {a.describe()} and "
                                    f"{b.describe()})")
        return _arithmetic_result(a, b)

    def _TernaryOp(self, node: c_ast.TernaryOp) -> CType:
        self.type_of(node.cond)
        a, b = self.type_of(node.iftrue), self.type_of(node.iffalse)
        if "unknown" in (a.kind, b.kind):
            return UNKNOWN
        if a.kind in ("integer", "floating") and b.kind in ("integer", "floating"):
            return _arithmetic_result(a, b)
        return a

    def _Cast(self, node: c_ast.Cast) -> CType:
        self.type_of(node.expr)
        return type_of_decl(node.to_type, self.names)

    def _Assignment(self, node: c_ast.Assignment) -> CType:
        self.type_of(node.rvalue)
        return self.type_of(node.lvalue)

    def _ExprList(self, node: c_ast.ExprList) -> CType:
        types = [self.type_of(e) for e in node.exprs]
        return types[-1] if types else UNKNOWN

    def _ArrayRef(self, node: c_ast.ArrayRef) -> CType:
        base, sub = self.type_of(node.name), self.type_of(node.subscript)
        if base.kind not in ("pointer", "array") and sub.kind in ("pointer", "array"):
            base, sub = sub, base  # 2[a] is a[2]
        if base.kind == "unknown":
            return UNKNOWN
        if base.kind not in ("pointer", "array"):
            raise ExprProblem(node, "subscripted value is neither array nor pointer")
        if sub.kind not in ("integer", "unknown"):
            raise ExprProblem(node.subscript, "array subscript is not an integer")
        return base.target or UNKNOWN

    def _FuncCall(self, node: c_ast.FuncCall) -> CType:
        for arg in (node.args.exprs if node.args is not None else []):
            self.type_of(arg)
        if isinstance(node.name, c_ast.ID) and self.names.lookup(node.name.name) is None:
            return self.names.undeclared(node.name, call=True)
        f = self.type_of(node.name)
        if f.kind == "pointer" and f.target is not None and f.target.kind == "function":
            f = f.target
        if f.kind == "function":
            return f.target or UNKNOWN
        if f.kind == "unknown":
            return UNKNOWN
        what = f"'{node.name.name}'" if isinstance(node.name, c_ast.ID) else "object"
        raise ExprProblem(node.name, f"called {what} is not a function (it has type {f.describe()})")

    def _StructRef(self, node: c_ast.StructRef) -> CType:
        t = self.type_of(node.name)
        if node.type == "->":
            if t.kind == "unknown":
                return UNKNOWN
            if t.kind not in ("pointer", "array"):
                raise ExprProblem(node, f"invalid type argument of '->' (have {t.describe()})")
            t = t.target or UNKNOWN
        if t.kind == "unknown":
            return UNKNOWN
        if t.kind != "struct":
            raise ExprProblem(node.field, f"request for member '{node.field.name}' in something "
                                          "not a structure or union")
        if t.members is None:
            return UNKNOWN
        member = _find_member(t.members, node.field.name)
        if member is None:
            raise ExprProblem(node.field, f"{t.describe()} has no member named '{node.field.name}'")
        return type_of_decl(member, self.names)

    def _CompoundLiteral(self, node: c_ast.CompoundLiteral) -> CType:
        return type_of_decl(node.type, self.names)


def _pointer_arithmetic(op: str, a: CType, b: CType) -> CType | None:
    pointers = ("pointer", "array")
    if a.kind in pointers and b.kind == "integer":
        return CType("pointer", _pointer_spelling(a.target.spelling if a.target else "void"), a.target)
    if op == "+" and b.kind in pointers and a.kind == "integer":
        return _pointer_arithmetic(op, b, a)
    if op == "-" and a.kind in pointers and b.kind in pointers:
        return CType("integer", "long int")
    return None


def _arithmetic_result(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions, roughly: only the spelling in messages depends
    on the details."""
    if a.kind == "floating" or b.kind == "floating":
        return a if a.kind == "floating" else b
    wider = max((a, b), key=lambda t: (t.spelling.count("long") if not t.aka else 1,
                                       "unsigned" in t.spelling))
    return wider if "long" in wider.spelling or wider.aka or wider.spelling not in ("int", "char", "short",
                                                                                   "_Bool", "bool") else INT


def _find_member(struct: c_ast.Node, name: str) -> c_ast.Decl | None:
    """A member of a struct or union, also inside its anonymous members."""
    for decl in getattr(struct, "decls", None) or []:
        if getattr(decl, "name", None) == name:
            return decl
        inner = getattr(decl, "type", None)
        inner = inner if isinstance(inner, (c_ast.Struct, c_ast.Union)) else getattr(inner, "type", None)
        if getattr(decl, "name", None) is None and isinstance(inner, (c_ast.Struct, c_ast.Union)):
            found = _find_member(inner, name)
            if found is not None:
                return found
    return None
