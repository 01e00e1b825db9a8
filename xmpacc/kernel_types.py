"""The program's own type definitions that a kernel file needs (emit_cu.py).

Kernels and ``acc routine`` functions name the types of the source file: an array of
``struct cplx`` or of ``cplx_t`` (a typedef) is a kernel parameter, a routine takes a
``particle`` by value, a struct's member is sized by an enum constant.  The kernel file is
compiled on its own (NVRTC, or the host C compiler for the host backend) without the
source's headers, so it carries the definitions it uses:

    typedef struct { double re, im; } cplx;      /* from the source, as written       */
    _XMPACC_KERNEL _xmpacc_loop_f_c_12(..., cplx *v)

Which ones: every typedef, struct/union/enum definition (or forward declaration) and enum
constant of the source file (not of system headers; at file scope or in a function) that
the kernel file's text names, and those the chosen definitions name in turn, in source
order.  A struct defined inside a variable's declaration (``struct s {...} v[N];``)
contributes its definition alone.  Everything else is left out: a definition the kernels
never use might name a header's type that NVRTC does not know (``FILE``, ``pthread_t``).

Enum types are ``int`` in the kernel file (``enums_as_int``), their constants as written:
C converts between an enum and int freely (``enum mode m = i % 2;``, ``m++``), NVRTC's C++
does not, and int is the size and range GCC gives them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.cbuild import loc_of, walk
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.frontend.preprocess import is_system_coord

# The <stdint.h> / <stddef.h> names kernels may use, as LP64 Linux spells
# them (the kernel header declares them for NVRTC; pycparser's stand-in headers make them int)
STANDARD = {"size_t": "unsigned long", "ptrdiff_t": "long", "intptr_t": "long",
            "uintptr_t": "unsigned long", "int8_t": "signed char", "uint8_t": "unsigned char",
            "int16_t": "short", "uint16_t": "unsigned short", "int32_t": "int", "uint32_t": "unsigned int",
            "int64_t": "long", "uint64_t": "unsigned long", "bool": "_Bool"}
_WORD = re.compile(r"\b(?:(struct|union|enum)\s+)?([A-Za-z_]\w*)")
_TAGGED = (c_ast.Struct, c_ast.Union, c_ast.Enum)
_ENUM_TYPE = re.compile(r"\benum\s+[A-Za-z_]\w*\b(?!\s*\{)")
_LITERALS = re.compile(r'("(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|^#[^\n]*)', re.MULTILINE)


@dataclass(frozen=True)
class _Definition:
    """One file-scope item that defines names of types or enum constants."""

    node: c_ast.Node                   # what is emitted (a Typedef, or a Decl without a name)
    provides: frozenset[str]           # 'cplx' (typedef), 'struct cplx' (tag), 'RED' (constant)
    needs: frozenset[str]              # the same kinds of names, used by its text


def enums_as_int(text: str) -> str:
    """C text with every ``enum tag`` type (not a definition ``enum tag {``) as ``int``;
    string and character literals and preprocessor lines stay as they are."""
    return "".join(part if part.startswith(('"', "'", "#")) else _ENUM_TYPE.sub("int", part)
                   for part in _LITERALS.split(text))


def needed(ext: list[c_ast.Node], text: str) -> list[c_ast.Node]:
    """The definitions among ``ext`` (a file's top-level items) that ``text`` (the kernel
    file without them) needs, directly or through other definitions, in source order."""
    defs = [d for item in _type_items(ext) for d in _definitions(item)]
    by_name: dict[str, list[int]] = {}
    for n, d in enumerate(defs):
        for name in d.provides:
            by_name.setdefault(name, []).append(n)
    chosen: set[int] = set()
    todo = [n for name in _names(text) for n in by_name.get(name, ())]
    while todo:
        n = todo.pop()
        if n not in chosen:
            chosen.add(n)
            todo += [m for name in defs[n].needs for m in by_name.get(name, ())]
    return [defs[n].node for n in sorted(chosen)]


def _type_items(ext: list[c_ast.Node]) -> Iterator[c_ast.Node]:
    """The file's own items that may define types, in source order: file-scope ones, and
    the typedefs and declarations in function bodies (a kernel may use a block's type)."""
    for item in ext:
        if is_system_coord(item.coord):
            continue
        if isinstance(item, c_ast.FuncDef):
            yield from (n for n in walk(item.body) if isinstance(n, (c_ast.Typedef, c_ast.Decl)))
        else:
            yield item


def _names(text: str) -> set[str]:
    """The identifiers of C text, tags as 'struct x' (comments are harmless extras)."""
    return {f"{kind} {word}" if kind else word for kind, word in _WORD.findall(text)}


def _definitions(item: c_ast.Node) -> Iterator[_Definition]:
    if isinstance(item, c_ast.Typedef):
        t = item.type.type if isinstance(item.type, c_ast.TypeDecl) else None
        if isinstance(t, c_ast.Enum):   # typedef enum {...} color_t: the constants, and color_t an int
            if t.values is not None:
                yield _Definition(c_ast.Decl(None, [], [], [], [], copy.copy(t), None,
                                             None, coord=item.coord),
                                  _provided(t), _used(t))
            as_int = c_ast.Typedef(item.name, [], ["typedef"],
                                   c_ast.TypeDecl(item.name, [], None, c_ast.IdentifierType(["int"])),
                                   item.coord)
            yield _Definition(as_int, frozenset({item.name}), frozenset(_provided(t)))
            return
        yield _Definition(item, frozenset({item.name}) | _provided(item.type), _used(item.type))
    elif isinstance(item, c_ast.Decl) and not isinstance(item.type, c_ast.FuncDecl):
        t = item.type
        while isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
            t = t.type
        forward = item.name is None and isinstance(t, (c_ast.Struct, c_ast.Union))   # 'struct node;'
        provides = _provided(t) | (frozenset({_tag(t)}) if forward and t.name else frozenset())
        if isinstance(t, _TAGGED) and provides:   # the type alone, without a variable declared with it
            yield _Definition(c_ast.Decl(None, [], [], [], [], copy.copy(t), None, None, coord=item.coord),
                              provides, _used(t))


def _tag(t: c_ast.Node) -> str:
    return f"{type(t).__name__.lower()} {t.name}"


def _provided(t: c_ast.Node) -> frozenset[str]:
    """Tags and enum constants that a type defines, a typedef's inline struct among them
    (``struct s`` without a member list only refers to the tag)."""
    out: set[str] = set()
    for node in walk(t):
        body = node.values if isinstance(node, c_ast.Enum) else getattr(node, "decls", None)
        if isinstance(node, _TAGGED) and node.name and body is not None:
            out.add(_tag(node))
        if isinstance(node, c_ast.Enumerator):
            out.add(node.name)
    return frozenset(out)


def _used(t: c_ast.Node) -> frozenset[str]:
    """Typedef names, tags and identifiers (enum constants in sizes) a type refers to."""
    out: set[str] = set()
    for node in walk(t):
        if isinstance(node, c_ast.IdentifierType):
            out.update(node.names)
        elif isinstance(node, _TAGGED) and node.name:
            out.add(_tag(node))
        elif isinstance(node, c_ast.ID):
            out.add(node.name)
    return frozenset(out)


class Typedefs:
    """The file-scope typedefs of a source file, to see through them: a kernel's scalar of
    type ``real`` (``typedef double real;``) or ``size_t`` is a double or an unsigned long
    for the choices that depend on the type (reduction identities, device type checks)."""

    def __init__(self, ext: list[c_ast.Node]) -> None:
        self.user: dict[str, c_ast.Typedef] = {item.name: item for item in _type_items(ext)
                                               if isinstance(item, c_ast.Typedef)}
        # the file's enum constants (constant sizes, as in 'double x[NDIM]')
        self.constants = frozenset(n.name for item in ext
                                   for n in walk(item) if isinstance(n, c_ast.Enumerator))

    def resolved(self, decl: c_ast.Decl) -> c_ast.Decl:
        """``decl`` with its base type's typedef names replaced by what they name, where
        that is an arithmetic type; a struct, union or enum typedef stays as written."""
        t = decl.type
        while not isinstance(t, c_ast.TypeDecl):
            t = getattr(t, "type", None)
            if t is None:
                return decl
        names = self.arithmetic(getattr(t.type, "names", None) or [])
        if names is None or names == list(getattr(t.type, "names", [])):
            return decl
        out = copy.deepcopy(decl)
        base = out.type
        while not isinstance(base, c_ast.TypeDecl):
            base = base.type
        base.type = c_ast.IdentifierType(names)
        return out

    def arithmetic(self, names: list[str], depth: int = 0) -> list[str] | None:
        """The builtin type names that ``names`` stand for (None: not an arithmetic type)."""
        if len(names) != 1 or depth > 32:
            return names if names and all(n in BUILTIN for n in names) else None
        name = names[0]
        if name in BUILTIN:
            return names
        if name in STANDARD:
            return STANDARD[name].split()
        td = self.user.get(name)
        if td is None or not isinstance(td.type, c_ast.TypeDecl) \
                or not isinstance(td.type.type, c_ast.IdentifierType):
            return None
        return self.arithmetic(td.type.type.names, depth + 1)

    def is_type(self, names: list[str]) -> bool:
        """Is ``names`` a type the kernel file knows: arithmetic, or a typedef of the file
        (a struct, union or enum; kernels_cu carries its definition)?"""
        return self.arithmetic(names) is not None or (len(names) == 1 and names[0] in self.user)


BUILTIN = frozenset({"char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool"})


def check_constant_sizes(body: c_ast.Node, typedefs: Typedefs, where: str) -> None:
    """Arrays declared in device code (``where``: "an acc loop") have constant sizes."""
    for node in walk(body):
        if isinstance(node, c_ast.Decl) and variable_length(node, typedefs.constants):
            raise XmpError(loc_of(node), f"'{node.name}' is a variable-length array in {where}: arrays "
                                         "declared in GPU code need constant sizes")


def check_long_double(node: c_ast.Node, typedefs: Typedefs, where: str,
                      captured: Sequence[tuple[str, c_ast.Decl, c_ast.Node]] = ()) -> None:
    """No ``long double`` in device code (``where``: "an acc loop"): the declarations and
    casts of ``node`` and the ``captured`` variables (name, declaration, where to report).
    A GPU has no long double: CUDA computes it as a double but keeps the host's 16 bytes, so
    a host value read on the device is garbage (and NVRTC finds its warp shuffles ambiguous);
    the host backend would compute in 80 bits and give other results than the GPU."""
    for name, decl, at in captured:
        if long_double(decl.type, typedefs):
            raise no_long_double(f"'{name}'", where, loc_of(at))
    for item in walk(node):
        if isinstance(item, c_ast.Decl) and long_double(item.type, typedefs):
            raise no_long_double(f"'{item.name}'", where, loc_of(item))
        if isinstance(item, c_ast.Typename) and long_double(item.type, typedefs):
            raise no_long_double("", where, loc_of(item))


def no_long_double(what: str, where: str, at: SourceLoc) -> XmpError:
    """``what`` has type long double (a cast or sizeof, where ``what`` is empty)."""
    subject = f"{what} has type 'long double'" if what else "'long double'"
    return XmpError(at, f"{subject} in {where}: GPUs have no long double (CUDA computes it as double, in "
                        "bytes laid out unlike the host's); use double")


def long_double(decl_type: c_ast.Node, typedefs: Typedefs) -> bool:
    """Is ``decl_type`` long double, or an array of or a pointer to long double (seen
    through the file's typedefs)?"""
    t = decl_type
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        t = t.type
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return False
    names = typedefs.arithmetic(list(t.type.names)) or []
    return "long" in names and "double" in names


def variable_length(decl: c_ast.Decl, constants: frozenset[str]) -> bool:
    """Is ``decl`` a variable-length array (a size naming a variable)?  NVRTC's C++ has
    none; the host backend's C has."""
    t = decl.type
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl, c_ast.TypeDecl)):
        if isinstance(t, c_ast.ArrayDecl) and t.dim is not None and variable_dim(t.dim, constants):
            return True
        t = t.type
    return False


def variable_dim(dim: c_ast.Node, constants: frozenset[str]) -> bool:
    """Does an array dimension name a variable (not an enumeration constant)?"""
    return any(isinstance(n, c_ast.ID) and n.name not in constants for n in walk(dim))
