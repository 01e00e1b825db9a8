"""The symbol table: nodes, templates, distributions, aligned arrays and shadows per scope.

XMP names (nodes, templates) live in their own namespace (reference decision 4); aligned
arrays are C variables with an XMP mapping.  Both follow C block scope, so the table is a
tree of ``Scope`` objects, one per file and per compound statement, kept in ``ScopeTree``
keyed by the pycparser node that opens the scope (pycparser nodes have ``__slots__``, so
analysis results never live on them).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc.cbuild import to_c, unwind
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd


# NodesSym and TemplateSym answer the same questions (name, rank) of different directives.
@dataclass(frozen=True, slots=True)
class NodesSym:
    decl: xd.NodesDecl
    c_name: str              # descriptor variable in generated C
    file_scope: bool

    @property
    def name(self) -> str:
        return self.decl.name.name

    @property
    def ndims(self) -> int:
        return len(self.decl.extents)


@dataclass(frozen=True, slots=True)
class TemplateSym:
    decl: xd.TemplateDecl
    c_name: str
    file_scope: bool
    distribute: xd.Distribute | None = None
    nodes: NodesSym | None = None

    @property
    def name(self) -> str:
        return self.decl.name.name

    @property
    def ndims(self) -> int:
        return len(self.decl.dims)

    @property
    def unfixed_size(self) -> bool:
        """Declared ``t[:]``: its extents come with ``template_fix`` (global-view §4)."""
        return any(isinstance(d, xd.Colon) for d in self.decl.dims)

    @property
    def is_dynamic(self) -> bool:
        """Not usable until ``template_fix``: unfixed extents or a ``gblock(*)`` dimension."""
        formats = self.distribute.formats if self.distribute is not None else ()
        return self.unfixed_size or any(f.kind == "gblock" and isinstance(f.arg, xd.Star) for f in formats)

    def dist_kind(self, tdim: int) -> str:
        """'block', 'cyclic', 'gblock' or 'none' for one template dimension."""
        if self.distribute is None:
            return "none"
        return self.distribute.formats[tdim].kind


@dataclass(frozen=True, slots=True)
class ArrayDim:
    extent: c_ast.Node | None    # declared extent (C expression); None: given by xmp_malloc
    tdim: int                    # aligned template dimension, -1 when collapsed
    offset: str                  # align offset as C text ("0" when none)
    shadow_lo: str               # C text
    shadow_hi: str
    full_shadow: bool
    index_kind: str              # how a global subscript becomes local: 'offset' or 'cyclic'


@dataclass(frozen=True, slots=True)
class ArraySym:
    """A C array named in ``align``: its declaration becomes a pointer to the local block."""

    name: str
    decl: c_ast.Decl
    align: xd.Align
    shadow: xd.Shadow | None
    template: TemplateSym
    dims: tuple[ArrayDim, ...]
    elem_type: c_ast.Node        # the element's TypeDecl
    c_name: str                  # descriptor variable, e.g. _xmpacc_a_u
    file_scope: bool
    # An aligned pointer (``double *a``, global-view §4): allocated by xmp_malloc, so its
    # extents are known at run time only and every access checks that it is allocated.
    is_pointer: bool = False
    # A parameter (``void f(double a[N])`` aligned in f): the caller's local block is
    # described, not allocated; the parameter becomes ``double *a``.
    is_param: bool = False

    @property
    def ndims(self) -> int:
        return len(self.dims)

    @property
    def has_shadow(self) -> bool:
        return any(d.full_shadow or d.shadow_lo != "0" or d.shadow_hi != "0" for d in self.dims)


@dataclass
class Scope:
    """One C scope: the XMP objects declared in it and the C names it declares."""

    node: c_ast.Node | None
    parent: Scope | None
    nodes: dict[str, NodesSym] = field(default_factory=dict)
    templates: dict[str, TemplateSym] = field(default_factory=dict)
    arrays: dict[str, ArraySym] = field(default_factory=dict)
    c_decls: dict[str, c_ast.Decl] = field(default_factory=dict)
    params: set[str] = field(default_factory=set)     # a function body: its parameters' names
    static_descs: set[str] = field(default_factory=set)   # the names its static_desc directives give
    # File scope only (global-view §8): structure definitions by tag, typedefs by name, and
    # the aligned members, keyed by (id of the struct definition, member name).
    struct_defs: dict[str, c_ast.Struct] = field(default_factory=dict)
    typedefs: dict[str, c_ast.Node] = field(default_factory=dict)
    members: dict[tuple[int, str], ArraySym] = field(default_factory=dict)
    broken_members: set[tuple[int, str]] = field(default_factory=set)   # their align was in error
    # Names whose declaration (nodes, template, distribute; align, shadow of an array) was
    # in error in this scope: later uses stay silent instead of repeating the mistake.
    broken_xmp: set[str] = field(default_factory=set)
    broken_arrays: set[str] = field(default_factory=set)

    def find_nodes(self, name: str) -> NodesSym | None:
        s: Scope | None = self
        while s is not None:
            if name in s.nodes:
                return s.nodes[name]
            s = s.parent
        return None

    def find_template(self, name: str) -> TemplateSym | None:
        s: Scope | None = self
        while s is not None:
            if name in s.templates:
                return s.templates[name]
            s = s.parent
        return None

    def is_broken(self, name: str) -> bool:
        """Is ``name`` a node array or template whose declaration had an error?"""
        s: Scope | None = self
        while s is not None:
            if name in s.broken_xmp:
                return True
            if name in s.nodes or name in s.templates:
                return False
            s = s.parent
        return False

    def is_broken_array(self, name: str) -> bool:
        """Is the C variable ``name`` an array whose align or shadow had an error?"""
        if "." in name or "->" in name:
            return member_is_broken(self, name)
        found = self.find_c(name)
        return found is not None and name in found[0].broken_arrays

    def find_c(self, name: str) -> tuple[Scope, c_ast.Decl] | None:
        """The innermost C declaration of ``name`` and the scope that holds it (for a
        member path ``c.a`` or ``p->a``: the declaration of the object ``c`` or ``p``)."""
        name = name.split(".", 1)[0].split("->", 1)[0]
        s: Scope | None = self
        while s is not None:
            if name in s.c_decls:
                return s, s.c_decls[name]
            s = s.parent
        return None

    def find_array(self, name: str) -> ArraySym | None:
        """The aligned array that ``name`` denotes here (None if it is a plain variable).
        A member path ``c.a`` / ``p->a`` gives the aligned member of that object."""
        if "." in name or "->" in name:
            return member_by_path(self, name)
        found = self.find_c(name)
        if found is None:
            return None
        scope, decl = found
        sym = scope.arrays.get(name)
        if sym is None and scope.parent is not None and "extern" in getattr(decl, "storage", ()):
            # `extern double a[N];` inside a function names the file-scope array
            root = scope
            while root.parent is not None:
                root = root.parent
            sym = root.arrays.get(name)
        return sym


@dataclass
class ScopeTree:
    """All scopes of a translation unit, keyed by id() of the node that opens them."""

    root: Scope
    by_node: dict[int, Scope] = field(default_factory=dict)

    def scope_of(self, node: c_ast.Node) -> Scope:
        return self.by_node[id(node)]


# ---------------------------------------------------------------- aligned structure members
#
# Aligned members of structures (global-view §8): which object's member an access names.
#
#     struct b { int a[10]; };               every object of type struct b has its member a
#     #pragma xmp align b.a[i] with t[i]     distributed: in the generated C the member is a
#     #pragma xmp shadow b.a[1]              pointer to the object's local block, next to a
#     struct b c;                            descriptor member  _xmpacc_array_t _xmpacc_a_a;
#
# An access ``c.a[i]``, ``p->a[i]`` or ``s[k].a[i]`` (or the directive name ``c.a``) is the
# member's mapping bound to that object: an ``ArraySym`` whose C names are ``c.a`` and
# ``c._xmpacc_a_a``, so that the passes treat it as any aligned array.

_PATH = re.compile(r"([A-Za-z_]\w*)(\.|->)([A-Za-z_]\w*)")


def root_of(scope: Scope) -> Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


def struct_def(t: c_ast.Node | None, root: Scope) -> c_ast.Struct | None:
    """The definition of the structure type that ``t`` (a TypeDecl, Struct or typedef
    name) denotes; None for any other type."""
    seen = 0
    while t is not None and seen < 32:   # typedef chains are short; never loop forever
        seen += 1
        if isinstance(t, c_ast.TypeDecl):
            t = t.type
        elif isinstance(t, c_ast.Struct):
            return t if t.decls is not None else root.struct_defs.get(t.name or "")
        elif isinstance(t, c_ast.IdentifierType) and len(t.names) == 1 and t.names[0] in root.typedefs:
            t = root.typedefs[t.names[0]]
        else:
            return None
    return None


def element_type(t: c_ast.Node, levels: int) -> c_ast.Node | None:
    """The type after ``levels`` subscripts (or one ``->``) of an object of type ``t``."""
    for _ in range(levels):
        if not isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            return None
        t = t.type
    return t


def bound_member(scope: Scope, obj: c_ast.Node, arrow: bool, member: str) -> ArraySym | None:
    """The aligned member ``member`` of the object expression ``obj`` (``c``, ``s[k]``,
    ``p`` with ``arrow``), bound to that object; None when it is no aligned member."""
    root = root_of(scope)
    if not root.members:
        return None
    head, subs = unwind(obj)
    levels = len(subs) + (1 if arrow else 0)
    if not isinstance(head, c_ast.ID):
        return None
    found = scope.find_c(head.name)
    t = element_type(found[1].type, levels) if found is not None else None
    d = struct_def(t, root)
    sym = root.members.get((id(d), member)) if d is not None else None
    if sym is None:
        return None
    sep, text = ("->" if arrow else "."), to_c(obj)
    return dataclasses.replace(sym, name=f"{text}{sep}{member}", c_name=f"{text}{sep}_xmpacc_a_{member}")


def _resolve_path(scope: Scope, path: str) -> tuple[c_ast.Struct, str] | None:
    m = _PATH.fullmatch(path)
    found = scope.find_c(m.group(1)) if m is not None else None
    if m is None or found is None:
        return None
    t = element_type(found[1].type, 1 if m.group(2) == "->" else 0)
    d = struct_def(t, root_of(scope))
    return (d, m.group(3)) if d is not None else None


def member_is_broken(scope: Scope, path: str) -> bool:
    """Was the align of the member that ``path`` (``c.a``) names in error?"""
    resolved = _resolve_path(scope, path)
    return resolved is not None and (id(resolved[0]), resolved[1]) in root_of(scope).broken_members


def member_by_path(scope: Scope, path: str) -> ArraySym | None:
    """``bound_member`` for a path written in a directive: ``c.a`` or ``p->a``."""
    m = _PATH.fullmatch(path)
    if m is None:
        return None
    return bound_member(scope, c_ast.ID(m.group(1)), m.group(2) == "->", m.group(3))


def descriptor_path(name: str) -> tuple[str, str, str] | None:
    """(object, '.' or '->', member) of the descriptor of an object's aligned member as
    the passes name it in C (``c._xmpacc_a_a``: ``bound_member``'s c_name); None otherwise."""
    m = _PATH.fullmatch(name)
    if m is None or not m.group(3).startswith("_xmpacc_a_"):
        return None
    return m.group(1), m.group(2), m.group(3).removeprefix("_xmpacc_a_")


def descriptor_member(sym: ArraySym) -> str:
    """The name of the descriptor member next to the aligned member ``sym`` (unbound)."""
    return f"_xmpacc_a_{sym.decl.name}"


def is_member_path(name: str) -> bool:
    return "." in name or "->" in name



def member_array(name: xd.Name, scope: Scope) -> ArraySym | None:
    """The aligned array ``name`` denotes, None for another variable; a member path
    (``c.a``) must name an aligned member (global-view §8)."""
    array = scope.find_array(name.name)
    if array is None and is_member_path(name.name):
        raise XmpError(name.loc, f"'{name.name}' is not an aligned member: of structure members, "
                                 "only aligned ones (global-view §8) can be named here; other "
                                 "members are not supported yet")
    return array
