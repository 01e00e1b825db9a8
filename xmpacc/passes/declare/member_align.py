"""``align b.a[i] with t[i]`` and ``shadow b.a[1]``: aligned structure members (part of
pass declare; global-view §8).

``b`` is a structure tag or a typedef name of a structure, ``a`` an array member of it.
The member's mapping goes into the file scope's ``members`` table (structs.py binds it to
each object); the passes members.py (objects) and subscripts.py (accesses) use it.
"""

from __future__ import annotations

import dataclasses

from pycparser import c_ast

from xmpacc.context import Context
from xmpacc.directives import ast as xd
from xmpacc.passes.declare.align import array_shape, array_sym, check_decl
from xmpacc.symbols import Scope, descriptor_member, is_member_path, root_of, struct_def


def _split(name: xd.Name, ctx: Context) -> tuple[str, str] | None:
    parts = name.name.split(".")
    if len(parts) != 2 or "->" in name.name:
        ctx.diags.error(name.loc, f"'{name.name}': only members of a structure type ('type.member') can be "
                                  "aligned; nested members are not supported yet")
        return None
    return parts[0], parts[1]


def _member_decl(struct: c_ast.Struct, member: str) -> c_ast.Decl | None:
    return next((d for d in struct.decls or [] if isinstance(d, c_ast.Decl) and d.name == member), None)


def resolve_member_align(align: xd.Align, shadows: list[xd.Shadow], scope: Scope, ctx: Context) -> None:
    for name in align.arrays:
        if not is_member_path(name.name):
            ctx.diags.error(name.loc, "an align directive with a structure member aligns members only; "
                                      f"align '{name.name}' in a directive of its own")
            continue
        _align_member(name, align, shadows, scope, ctx)


def _align_member(name: xd.Name, align: xd.Align, shadows: list[xd.Shadow], scope: Scope,
                  ctx: Context) -> None:
    errors = len(ctx.diags.errors)
    struct = _resolve_member(name, align, shadows, scope, ctx)
    if struct is not None and len(ctx.diags.errors) > errors:
        # reported: the member's uses stay silent
        root_of(scope).broken_members.add((id(struct), name.name.split(".")[1]))


def _resolve_member(name: xd.Name, align: xd.Align, shadows: list[xd.Shadow], scope: Scope,
                    ctx: Context) -> c_ast.Struct | None:
    parts = _split(name, ctx)
    if parts is None:
        return None
    type_name, member = parts
    root = root_of(scope)
    if scope is not root:
        ctx.diags.error(name.loc, "aligned structure members must be declared at file scope (inside a "
                                  "function: not supported yet)")
        return None
    struct = root.struct_defs.get(type_name) or struct_def(root.typedefs.get(type_name), root)
    if struct is None:
        ctx.diags.error(name.loc, f"'{type_name}' is not a structure type (a struct tag or a typedef of one)")
        return None
    decl = _member_decl(struct, member)
    if decl is None:
        ctx.diags.error(name.loc, f"structure '{type_name}' has no member '{member}'")
        return struct
    if (id(struct), member) in root.members:
        ctx.diags.error(name.loc, f"member '{name.name}' is already aligned")
        return None
    tmpl = scope.find_template(align.template.name)
    if tmpl is None or tmpl.distribute is None or scope.is_broken(align.template.name):
        if not scope.is_broken(align.template.name):
            what = "declared" if tmpl is None else "distributed"
            ctx.diags.error(align.template.loc, f"template '{align.template.name}' is not {what}")
        root.broken_members.add((id(struct), member))
        return struct
    extents, elem = array_shape(decl)
    if not extents:
        ctx.diags.error(name.loc, f"member '{name.name}' is not an array; only arrays can be aligned")
        return struct
    if not check_decl(name, decl, extents, elem, False, ctx, True):
        return struct
    if tmpl.is_dynamic:
        ctx.diags.error(name.loc, f"template '{tmpl.name}' is fixed by template_fix; aligned structure "
                                  "members need a template of fixed size (not supported yet)")
        return struct
    sym = array_sym(name, decl, extents, elem, align, tmpl, shadows, "", True, False, ctx)
    if sym is not None:
        root.members[(id(struct), member)] = dataclasses.replace(sym, c_name=descriptor_member(sym))
    return struct


def check_member_shadow(name: xd.Name, scope: Scope, ctx: Context) -> None:
    """A shadow of ``b.a`` needs the align of ``b.a`` (resolved before the shadows)."""
    root = root_of(scope)
    if any(sym.name == name.name for sym in root.members.values()):
        return
    parts = name.name.split(".")
    struct = root.struct_defs.get(parts[0]) or struct_def(root.typedefs.get(parts[0]), root)
    if struct is not None and len(parts) == 2 and (id(struct), parts[1]) in root.broken_members:
        return
    ctx.diags.error(name.loc, f"shadow of '{name.name}', which is not an aligned structure member")
