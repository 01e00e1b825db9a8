"""Pass coarray_decls: coarray declarations become plain C plus a start-up registration
(global-view §11).  Runs before ``declare``, so every later pass sees ordinary C arrays.

Before (after the front end's rewrite, ``frontend/coarrays.py``):
    int a[10][_xmpacc_coindex(_XMPACC_STAR)];          /* int a[10]:[*]; */
    double s[_xmpacc_coindex(2, _XMPACC_STAR)];        /* double s:[2][*]; */
    int b[4];
    #pragma xmp coarray b : [*]
After:
    int a[10];
    double s;
    int b[4];
    /* start-up code (ctx.init_stmts): */
    _xmpacc_coarray_init((void *) a, "f.c:1", "a", (long long) sizeof(a), (long long) sizeof(a[0]),
                         1, (const long long []){-1});   ... and s, b

The coarrays found are recorded in ``ctx.coarrays`` (name -> ``Coarray``) for the pass
``coarrays`` that lowers coindexed references and the local-view directives.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of, walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives.local_view_ast import CoarrayDirective
from xmpacc.frontend.coarrays import STAR
from xmpacc.passes.common.coindex import Coarray, coindex_args, is_coindex


def _strip(decl: c_ast.Decl) -> c_ast.FuncCall | None:
    """Remove the codimension subscript of a declaration's type; return it (None: none)."""
    parent: c_ast.Node = decl
    t = decl.type
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(t, c_ast.ArrayDecl) and is_coindex(t.dim):
            parent.type = t.type
            return t.dim
        parent, t = t, t.type
    return None


def _codims(call: c_ast.FuncCall | list[xd.Expr | xd.Star], loc: SourceLoc) -> tuple[c_ast.Node | None, ...]:
    if isinstance(call, c_ast.FuncCall):
        dims: list[c_ast.Node | None] = [None if isinstance(a, c_ast.ID) and a.name == STAR else a
                                         for a in coindex_args(call)]
    else:
        dims = [None if isinstance(d, xd.Star) else cbuild.expr(d.text) for d in call]
    if not dims:
        raise XmpError(loc, "a coarray needs codimensions: '[*]' or '[n][*]'")
    if dims[-1] is not None:
        raise XmpError(loc, "the last codimension of a coarray must be '*' ('a[10]:[*]', 'a[10]:[2][*]')")
    if any(d is None for d in dims[:-1]):
        raise XmpError(loc, "only the last codimension of a coarray may be '*'")
    return tuple(dims)


def _file_scope(decl: c_ast.Decl, call: c_ast.FuncCall | list, loc: SourceLoc, ctx: Context) -> None:
    if decl.init is not None:
        raise XmpError(loc, f"coarray '{decl.name}' cannot have an initializer: assign its elements "
                            "in main, then '#pragma xmp sync_all'")
    if any(isinstance(n, c_ast.ArrayDecl) and is_coindex(n.dim) for n in walk(decl.type)):
        raise XmpError(loc, f"coarray '{decl.name}' has codimensions twice")
    if isinstance(decl.type, c_ast.PtrDecl) or isinstance(decl.type, c_ast.FuncDecl):
        raise XmpError(loc, f"coarray '{decl.name}' must be an array or a scalar, not a pointer "
                            "(allocatable coarrays are not supported yet)")
    co = Coarray(decl.name, decl, _codims(call, loc), loc)
    ctx.coarrays[decl.name] = co
    if "extern" not in decl.storage:
        ctx.init_stmts.append(_registration(co))


def _registration(co: Coarray) -> c_ast.Node:
    n = co.name
    addr = f"(void *) {n}" if co.ndims else f"(void *) &{n}"
    codims = ", ".join("-1" if d is None else f"({cbuild.to_c(d)})" for d in co.codims)
    return cbuild.stmt(f"_xmpacc_coarray_init({addr}, {cbuild.where_literal(co.loc)}, {cbuild.c_string(n)}, "
                       f"(long long) sizeof({n}), (long long) sizeof({n}{'[0]' * co.ndims}), "
                       f"{len(co.codims)}, (const long long []){{{codims}}});", co.decl.coord)


def run(unit: Unit, ctx: Context) -> Unit:
    declared: dict[str, c_ast.Decl] = {}
    for item in unit.ast.ext:
        for decl in _decls(item):
            declared[decl.name] = decl
            call = _strip(decl)
            if call is not None:
                _guard(ctx, lambda d=decl, c=call: _file_scope(d, c, loc_of(d), ctx))
    unit.ast.ext = [item for item in unit.ast.ext if not _coarray_directive(item, declared, ctx)]
    for item in unit.ast.ext:
        if isinstance(item, c_ast.FuncDef):
            _inner(item, ctx)
    if ctx.coarrays or _uses_local_view(ctx):
        ctx.init_stmts.append(cbuild.stmt("_xmpacc_local_view_init();"))
    return unit


def _decls(item: c_ast.Node) -> list[c_ast.Decl]:
    if isinstance(item, c_ast.Decl) and item.name and not isinstance(item.type, c_ast.FuncDecl):
        return [item]
    return []


def _guard(ctx: Context, fn: object) -> None:
    try:
        fn()  # type: ignore[operator]
    except XmpError as err:
        ctx.diags.add(err)


def _coarray_directive(item: c_ast.Node, declared: dict[str, c_ast.Decl], ctx: Context) -> bool:
    """``#pragma xmp coarray a : [*]`` at file scope: make ``a`` a coarray; True when handled."""
    ds = ctx.directives.get(id(item), []) if isinstance(item, c_ast.Pragma) else []
    if not ds or not all(isinstance(d, CoarrayDirective) for d in ds):
        return False
    for d in ds:
        for name in d.names:
            decl = declared.get(name.name)
            if decl is None:
                ctx.diags.error(name.loc, f"'{name.name}' is not declared before this 'coarray' directive")
            elif name.name in ctx.coarrays:
                ctx.diags.error(name.loc, f"'{name.name}' is a coarray already")
            else:
                _guard(ctx, lambda dc=decl, n=name, d=d: _file_scope(dc, list(d.codims), n.loc, ctx))
    return True


def _inner(fn: c_ast.FuncDef, ctx: Context) -> None:
    """Coarrays declared in a function (parameters, block scope) are user mistakes or later."""
    args = getattr(fn.decl.type, "args", None)
    for param in (args.params if args else []):
        if isinstance(param, c_ast.Decl) and _strip(param) is not None:
            ctx.diags.error(loc_of(param), f"a coarray cannot be a function parameter: declare "
                                          f"'{param.name}' as a coarray at file scope and use it by name")
    for node in walk(fn.body):
        if isinstance(node, c_ast.Decl) and node.name and _strip(node) is not None:
            what = "a static coarray in a function is not supported yet" if "static" in node.storage \
                else "a coarray must be declared at file scope (its storage lives as long as the program)"
            ctx.diags.error(loc_of(node), f"{what}: declare '{node.name}' outside the function")


def _uses_local_view(ctx: Context) -> bool:
    from xmpacc.directives import local_view_ast as lv
    kinds = (lv.SyncImages, lv.Post, lv.Wait, lv.Critical)
    return any(isinstance(d, kinds) for ds in ctx.directives.values() for d in ds)
