"""Pass localize (members): structures with aligned members and their objects (global-view §8).

Before:                                       After:
    struct b { int a[10]; };                      struct b { int *a; _xmpacc_array_t _xmpacc_a_a; };
    #pragma xmp align b.a[i] with t[i]
    struct b c;                                   struct b c;
                                                  /* start-up (file scope) or right after the
                                                     declaration (block scope): */
                                                  c.a = (int *) _xmpacc_align(&c._xmpacc_a_a, "f.c:2", "c.a",
                                                                              ...);
    void f(void) { struct b d[2]; ... }           ... { struct b d[2];
                                                        for (k ...) (&d[0])[k].a = _xmpacc_align(...);
                                                        _XMPACC_CLEANUP(_xmpacc_object_end)
                                                          _xmpacc_object_t _xmpacc_o_d = {&d, sizeof(d)}; ...

Decision: each object carries its member's descriptor, so ``c.a[i]``, ``p->a[i]`` and
``reflect (c.a)`` need nothing but the object (structs.py binds the mapping to it), copies
of the object read the same block, and a block-scope object releases the blocks of all its
members (arrays of objects too) on every exit from the block.  Not supported yet (reported):
initialisers, static block-scope objects, structures holding such a structure by value.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.passes.common.descriptors import align_call
from xmpacc.symbols import ArraySym, Scope, struct_def


def _members_of(t: c_ast.Node, root: Scope) -> tuple[list[ArraySym], int]:
    """The aligned members of the structure type of ``t`` (through array dimensions) and
    the number of those dimensions."""
    dims = 0
    while isinstance(t, c_ast.ArrayDecl):
        t, dims = t.type, dims + 1
    d = struct_def(t, root) if isinstance(t, c_ast.TypeDecl) else None
    if d is None:
        return [], dims
    return [sym for (key, _m), sym in root.members.items() if key == id(d)], dims


def _rewrite_definitions(root: Scope) -> None:
    """``int a[10];`` becomes ``int *a; _xmpacc_array_t _xmpacc_a_a;`` in each definition."""
    for struct in root.struct_defs.values():
        _rewrite_definition(struct, root)
    for t in root.typedefs.values():
        d = struct_def(t, root)
        if d is not None and d.name is None:
            _rewrite_definition(d, root)


def _rewrite_definition(struct: c_ast.Struct, root: Scope) -> None:
    out: list[c_ast.Node] = []
    for decl in struct.decls or []:
        sym = root.members.get((id(struct), getattr(decl, "name", None) or ""))
        if sym is None or not isinstance(decl, c_ast.Decl) or not isinstance(decl.type, c_ast.ArrayDecl):
            out.append(decl)
            continue
        t = sym.elem_type
        ptr = c_ast.PtrDecl([], c_ast.TypeDecl(decl.name, t.quals, None, t.type), decl.coord)
        out.append(c_ast.Decl(decl.name, decl.quals, decl.align, [], [], ptr, None, decl.bitsize, decl.coord))
        desc = cbuild.stmt(f"_xmpacc_array_t {sym.c_name};", decl.coord)
        out.append(desc)
    struct.decls = out


def _check_nesting(root: Scope, ctx: Context) -> None:
    for struct in list(root.struct_defs.values()):
        for decl in struct.decls or []:
            if isinstance(decl, c_ast.Decl) and _members_of(decl.type, root)[0]:
                ctx.diags.error(loc_of(decl), f"member '{decl.name}' is a structure with aligned members; "
                                              "such structures inside others are not supported yet")


def init_stmts(decl: c_ast.Decl, members: list[ArraySym], dims: int) -> str:
    """The align calls that give each member of the object ``decl`` its local block."""
    name = decl.name
    if dims == 0:
        return "".join(align_call(m, f"{name}.{m.decl.name}", f"{name}.{m.c_name}") for m in members)
    first = f"(&{name}" + "[0]" * dims + ")[_xmpacc_k]"
    calls = "".join(align_call(m, f"{first}.{m.decl.name}", f"{first}.{m.c_name}", f"{name}[].{m.decl.name}")
                    for m in members)
    count = f"(long long) (sizeof({name}) / sizeof({name}" + "[0]" * dims + "))"
    return f"for (long long _xmpacc_k = 0; _xmpacc_k < {count}; _xmpacc_k++) {{ {calls} }}"


def _object(decl: c_ast.Node, root: Scope, block: bool) -> tuple[list[ArraySym], int] | None:
    """Members and dimensions of an object declaration that needs its members aligned."""
    if not isinstance(decl, c_ast.Decl) or not decl.name or isinstance(decl.type, c_ast.FuncDecl) \
            or "extern" in decl.storage or "typedef" in decl.storage:
        return None
    members, dims = _members_of(decl.type, root)
    if not members:
        return None
    if decl.init is not None:
        raise XmpError(loc_of(decl), f"'{decl.name}' has aligned members ({members[0].name}); an initializer "
                                     "is not supported yet")
    if block and "static" in decl.storage:
        raise XmpError(loc_of(decl), f"static '{decl.name}' with aligned members inside a function is not "
                                     "supported yet")
    return members, dims


def _reported_object(item: c_ast.Node, root: Scope, block: bool,
                     ctx: Context) -> tuple[list[ArraySym], int] | None:
    """``_object`` of ``item``, None after reporting its mistake."""
    try:
        return _object(item, root, block)
    except XmpError as err:
        ctx.diags.add(err)
        return None


def _lower_file(unit: Unit, ctx: Context, root: Scope) -> None:
    for item in unit.ast.ext:
        found = _reported_object(item, root, False, ctx)
        if found is not None:
            ctx.init_stmts += cbuild.stmts(init_stmts(item, *found), item.coord)


def _lower_block(block: c_ast.Compound, ctx: Context, root: Scope) -> None:
    out: list[c_ast.Node] = []
    for item in block.block_items or []:
        out.append(item)
        found = _reported_object(item, root, True, ctx)
        if found is not None:
            out += cbuild.stmts(init_stmts(item, *found), item.coord)
            out.append(cbuild.cleanup_decl(f"_xmpacc_object_t _xmpacc_o_{item.name} = {{&{item.name}, "
                                           f"sizeof({item.name})}};", "_xmpacc_object_end", item.coord))
    block.block_items = out


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    root = ctx.scopes.root
    if not root.members:
        return unit
    _check_nesting(root, ctx)
    _lower_file(unit, ctx, root)
    for scope in ctx.scopes.by_node.values():
        if isinstance(scope.node, c_ast.Compound):
            _lower_block(scope.node, ctx, root)
    _rewrite_definitions(root)
    return unit
