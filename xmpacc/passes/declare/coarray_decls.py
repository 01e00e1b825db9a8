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

Qualifiers and ``static`` in a file-scope coarray's brackets (``double w[restrict N]:[*]``,
as ports from Omni write them; Omni's coarrays are runtime storage) are dropped: C allows
them only in parameters.  A coarray parameter (a *coarray dummy argument*) refers to the
caller's coarray, as in Fortran: ``void f(int n, double v[restrict n]:[*])`` keeps
``double v[restrict n]`` in C and is recorded under the key ``"f(v)"``; ``v[i]:[k]`` is then
the element of the caller's coarray on image k.  The caller passes a whole coarray (a part
of one, ``&w[5]``, is not supported yet), and the dummy's codimensions are ``[*]``.
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
    for node in walk(decl.type):
        if isinstance(node, c_ast.ArrayDecl):
            node.dim_quals = []    # only a parameter may have them (C11 6.7.6.2)
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
    dummies: dict[str, dict[int, str]] = {}      # function -> position -> dummy's name
    for item in unit.ast.ext:
        fn = item.decl if isinstance(item, c_ast.FuncDef) else item
        if isinstance(fn, c_ast.Decl) and isinstance(fn.type, c_ast.FuncDecl):
            found = _dummies(fn, ctx, register=isinstance(item, c_ast.FuncDef))
            if found:
                dummies[fn.name] = found
        if isinstance(item, c_ast.FuncDef):
            _inner(item, ctx)
    _check_calls(unit, dummies, ctx)
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


def _dummies(fn: c_ast.Decl, ctx: Context, register: bool) -> dict[int, str]:
    """The coarray parameters of a function definition or prototype, by position, their
    codimensions removed; a definition's are recorded in ``ctx.coarrays``."""
    args = fn.type.args
    found: dict[int, str] = {}
    for k, param in enumerate(args.params if args else []):
        call = _strip(param) if isinstance(param, c_ast.Decl) else None
        if call is None:
            continue
        loc = loc_of(param)
        found[k] = param.name
        try:
            codims = _codims(call, loc)
            if len(codims) > 1:
                raise XmpError(loc, f"a coarray dummy argument with {len(codims)} codimensions is not "
                                    f"supported yet: declare '{param.name}' with '[*]'")
            if not isinstance(param.type, c_ast.ArrayDecl):
                raise XmpError(loc, f"a coarray dummy argument that is not an array is not supported yet: "
                                    f"declare '{param.name}' as an array ('{param.name}[]:[*]')")
        except XmpError as err:
            ctx.diags.add(err)
            continue
        if register:
            ctx.coarrays[f"{fn.name}({param.name})"] = Coarray(param.name, param, codims, loc)
    return found


def _check_calls(unit: Unit, dummies: dict[str, dict[int, str]], ctx: Context) -> None:
    """A coarray dummy argument is passed a coarray by name: a file-scope coarray or a
    coarray dummy of the caller (checked where the call is in this file)."""
    if not dummies:
        return
    for item in unit.ast.ext:
        if not isinstance(item, c_ast.FuncDef):
            continue
        names = set(ctx.coarrays) | set(dummies.get(item.decl.name, {}).values())
        for call in walk(item.body):
            if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
                    and call.name.name in dummies and call.args is not None):
                continue
            for k, dummy in dummies[call.name.name].items():
                if k >= len(call.args.exprs):
                    continue
                actual = call.args.exprs[k]
                if isinstance(actual, c_ast.ID) and actual.name in names:
                    continue
                what = "a part of a coarray is not supported yet" if _in_coarray(actual, names) else \
                    "it must be a coarray"
                ctx.diags.error(loc_of(actual), f"argument {k + 1} of '{call.name.name}' is the coarray "
                                                f"dummy argument '{dummy}': {what}; pass one by its name")


def _in_coarray(node: c_ast.Node, names: set[str]) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name in names for n in walk(node))


def _inner(fn: c_ast.FuncDef, ctx: Context) -> None:
    """Coarrays declared in a block of a function are user mistakes or later."""
    for node in walk(fn.body):
        if isinstance(node, c_ast.Decl) and node.name and _strip(node) is not None:
            what = "a static coarray in a function is not supported yet" if "static" in node.storage \
                else "a coarray must be declared at file scope (its storage lives as long as the program)"
            ctx.diags.error(loc_of(node), f"{what}: declare '{node.name}' outside the function")


def _uses_local_view(ctx: Context) -> bool:
    from xmpacc.directives import local_view_ast as lv
    kinds = (lv.SyncImages, lv.Post, lv.Wait, lv.Critical)
    return any(isinstance(d, kinds) for ds in ctx.directives.values() for d in ds)
