"""``acc replicate`` regions and ``acc replicate_sync`` (reference §7.2, §7.3).

Before:                                   After:
    #pragma xmp acc replicate (x, v)          { _XMPACC_CLEANUP(_xmpacc_replicate_scope_end)
    {                                             int _xmpacc_rep_1 = _xmpacc_replicate_begin("f.c:30", 2,
      #pragma xmp acc replicate_sync in (v)         (const void *[]){&_xmpacc_a_x, &_xmpacc_a_v},
      ...                                           (const long long []){-1, -1}, (const char *[]){"x", "v"});
    }                                           { _xmpacc_replicate_sync("f.c:32", 0, &_xmpacc_a_v, "v");
                                                  ... } }

A variable's runtime key is an address: the descriptor of an aligned array (its device
copy mirrors the local block with shadows), otherwise the variable itself (size
``sizeof``; size -1 marks an aligned array).  The cleanup attribute frees the device
copies on every exit from the region.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.values import Replicated, identity_of
from xmpacc.symbols import ArraySym, Scope, is_member_path, member_array


def resolve(d: xd.AccReplicate, scope: Scope, active: list[Replicated]) -> list[Replicated]:
    """The variables of a replicate directive, checked (reference §10, XMP-ACC)."""
    out: list[Replicated] = []
    for name in d.variables:
        found = scope.find_c(name.name)
        if found is None:
            raise XmpError(name.loc, f"'{name.name}' in acc replicate is not declared")
        decl = found[1]
        array = member_array(name, scope)
        if any(r.identity == _identity(name, decl, array) for r in active + out):
            raise XmpError(name.loc, f"'{name.name}' is already replicated in this or an enclosing region")
        if array is not None:
            out.append(Replicated(name.name, decl, array, f"&{array.c_name}"))
            continue
        _check_type(name, decl)
        is_array = isinstance(decl.type, c_ast.ArrayDecl)
        out.append(Replicated(name.name, decl, None, name.name if is_array else f"&{name.name}"))
    return out


def _identity(name: xd.Name, decl: c_ast.Decl, array: ArraySym | None) -> tuple[int, str]:
    """``Replicated.identity`` of the variable ``name`` denotes (a member: by its key)."""
    return identity_of(decl, f"&{array.c_name}" if array is not None and is_member_path(name.name) else "")


def _check_type(name: xd.Name, decl: c_ast.Decl) -> None:
    t = decl.type
    if isinstance(t, c_ast.PtrDecl):
        raise XmpError(name.loc, f"'{name.name}' is a pointer; acc replicate takes arrays, "
                                 "scalars and structs")
    if isinstance(t, c_ast.FuncDecl):
        raise XmpError(name.loc, f"'{name.name}' is a function")
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None:
            raise XmpError(name.loc, f"'{name.name}' has an unknown size")
        if not isinstance(t.dim, c_ast.Constant) and not _constant_expr(t.dim):
            raise XmpError(name.loc, f"'{name.name}' is a variable-length array; acc replicate needs a "
                                     "constant size")
        t = t.type
    if isinstance(t, c_ast.PtrDecl):
        raise XmpError(name.loc,
                       f"'{name.name}' is an array of pointers; the GPU cannot follow host pointers")


def _constant_expr(node: c_ast.Node) -> bool:
    return all(not isinstance(n, c_ast.ID) for n in cbuild.walk(node))


def begin_call(d: xd.AccReplicate, reps: list[Replicated], region: str) -> str:
    keys = ", ".join(r.key for r in reps)
    sizes = ", ".join("-1" if r.array is not None else f"sizeof({r.name})" for r in reps)
    names = ", ".join(cbuild.c_string(r.name) for r in reps)
    return (f"_xmpacc_replicate_begin({cbuild.where_literal(d.loc)}, {len(reps)}, "
            f"(const void *[]){{{keys}}}, (const long long []){{{sizes}}}, (const char *[]){{{names}}})")


def region_block(d: xd.AccReplicate, reps: list[Replicated], body: c_ast.Node, region: str) -> c_ast.Compound:
    decl = cbuild.cleanup_decl(f"int {region} = {begin_call(d, reps, region)};",
                               "_xmpacc_replicate_scope_end", body.coord)
    return c_ast.Compound([decl, body], body.coord)


def sync_calls(d: xd.AccReplicateSync, scope: Scope,
               active: list[Replicated], coord: object) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    for clause in d.clauses:
        direction = 0 if clause.direction == "in" else 1
        for name in clause.variables:
            found = scope.find_c(name.name)
            identity = _identity(name, found[1], member_array(name, scope)) if found is not None else None
            rep = next((r for r in active if r.identity == identity), None)
            if rep is None:
                raise XmpError(name.loc, f"'{name.name}' is not replicated: acc replicate_sync needs it in "
                                         f"an enclosing '#pragma xmp acc replicate ({name.name})'")
            out += cbuild.stmts(f"_xmpacc_replicate_sync({cbuild.where_literal(d.loc)}, {direction}, "
                                f"{rep.key}, {cbuild.c_string(rep.name)});", coord)
    return out
