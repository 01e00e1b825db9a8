"""The symbol table: nodes, templates, distributions, aligned arrays and shadows per scope.

XMP names (nodes, templates) live in their own namespace (reference decision 4); aligned
arrays are C variables with an XMP mapping.  Both follow C block scope, so the table is a
tree of ``Scope`` objects, one per file and per compound statement, kept in ``ScopeTree``
keyed by the pycparser node that opens the scope (pycparser nodes have ``__slots__``, so
analysis results never live on them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc.directives import ast as xd


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
            from xmpacc.structs import member_is_broken

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
            from xmpacc.structs import member_by_path

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
