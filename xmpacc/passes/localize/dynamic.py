"""Pass dynamic: ``template_fix`` and the guards of templates fixed at run time (global-view §4).

Before:                                          After:
    #pragma xmp template t[:]                        (declared unfixed by pass localize)
    #pragma xmp distribute t[gblock(*)] onto p
    ...
    #pragma xmp template_fix [gblock(m)] t[0:n-1]    _xmpacc_template_fix(&_xmpacc_t_t, "f.c:9",
                                                         (const long long []){(0), (n-1)},
                                                         (const void *[]){(m)});
    #pragma xmp loop on t[i]                         if (!_xmpacc_t_t.distributed)
    for (i = 0; i < n; i++) ...                          _xmpacc_not_ready(&_xmpacc_t_t, "f.c:10");
                                                     #pragma xmp loop on t[i]        (pass loops lowers it)
                                                     for (i = 0; i < n; i++) ...

The guard stands above any OpenACC lines right above the directive (``#pragma acc parallel
loop`` written above ``#pragma xmp loop``: the two pair, XcalableACC §2).

A directive whose ``on`` names a template that is only fixed by ``template_fix`` (unfixed
extents or ``gblock(*)``) first checks that it is, so that using it too early is a run-time
error at the directive's line ("template 't' is not fixed yet") instead of a wrong schedule.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.pragmas import pragma_id
from xmpacc.scoping import ScopedWalker
from xmpacc.section_code import const
from xmpacc.symbols import Scope, ScopeTree, TemplateSym


def fix_call(d: xd.TemplateFix, scope: Scope) -> str | None:
    """The runtime call of a template_fix directive, checked; None if the template's own
    declaration was in error (reported there)."""
    tmpl = scope.find_template(d.template.name)
    if scope.is_broken(d.template.name):
        return None
    if tmpl is None:
        raise XmpError(d.template.loc, f"template '{d.template.name}' is not declared")
    if tmpl.distribute is None:
        raise XmpError(d.template.loc, f"template '{tmpl.name}' is not distributed; template_fix needs "
                                       "its distribute directive")
    _check_dims(d, tmpl)
    maps = _maps(d, tmpl)
    bounds = "0" if d.dims is None else "(const long long []){" + ", ".join(
        f"({b.lower.text}), ({b.upper.text})" for b in d.dims) + "}"
    return f"_xmpacc_template_fix(&{tmpl.c_name}, {cbuild.where_literal(d.loc)}, {bounds}, {maps});"


def _check_dims(d: xd.TemplateFix, tmpl: TemplateSym) -> None:
    if d.dims is None:
        if tmpl.unfixed_size:
            raise XmpError(d.template.loc, f"template '{tmpl.name}' is declared unfixed ('{tmpl.name}[:]'); "
                                           "template_fix must give its extents")
        return
    if not tmpl.unfixed_size:
        raise XmpError(d.template.loc, f"template '{tmpl.name}' is declared with its extents; template_fix "
                                       f"can only give its gblock map here (declare it '{tmpl.name}[:]' to "
                                       "give the extents at run time)")
    if len(d.dims) != tmpl.ndims:
        raise XmpError(d.template.loc, f"template '{tmpl.name}' has {tmpl.ndims} dimension(s) but "
                                       f"template_fix gives {len(d.dims)}")
    for t, (declared, given) in enumerate(zip(tmpl.decl.dims, d.dims, strict=True)):
        _check_fixed_part(tmpl, t, declared, given, d.template.loc)


def _check_fixed_part(tmpl: TemplateSym, t: int, declared: object, given: xd.TemplateDim,
                      loc: object) -> None:
    """A template fixed in part (``t[:][4]``) is unfixed until template_fix, which gives
    every extent; those declared must be given again, alike (checked where constant)."""
    if not isinstance(declared, xd.TemplateDim):
        return
    mine = [const(cbuild.expr(e.text)) for e in (declared.lower, declared.upper)]
    theirs = [const(cbuild.expr(e.text)) for e in (given.lower, given.upper)]
    if None not in mine + theirs and mine != theirs:
        raise XmpError(loc, f"dimension {t} of template '{tmpl.name}' is declared {mine[0]}..{mine[1]} "
                                  f"but template_fix gives {theirs[0]}..{theirs[1]}")


def _maps(d: xd.TemplateFix, tmpl: TemplateSym) -> str:
    """The gblock maps given by template_fix, one pointer per template dimension (0: none).
    The format list must be the distribute's, except for the gblock arrays (global-view §4)."""
    assert tmpl.distribute is not None
    declared = tmpl.distribute.formats
    if d.formats is None:
        missing = [f for f in declared if f.kind == "gblock" and isinstance(f.arg, xd.Star)]
        if missing:
            raise XmpError(d.loc, f"template '{tmpl.name}' is distributed with gblock(*): template_fix "
                                  "must give the map, e.g. 'template_fix [gblock(m)] ...'")
        return "0"
    if len(d.formats) != len(declared):
        raise XmpError(d.loc, f"template_fix gives {len(d.formats)} dist-format(s) but template "
                              f"'{tmpl.name}' has {len(declared)} dimension(s)")
    maps = []
    for k, (mine, theirs) in enumerate(zip(d.formats, declared, strict=True)):
        if mine.kind != theirs.kind or (mine.kind != "gblock" and _arg(mine) != _arg(theirs)):
            raise XmpError(mine.loc, f"the format list of template_fix must match the distribute directive "
                                     f"of '{tmpl.name}': dimension {k} is '{_show(theirs)}' there, "
                                     f"'{_show(mine)}' here")
        if mine.kind == "gblock" and isinstance(mine.arg, xd.Star):
            raise XmpError(mine.loc, "template_fix must give the gblock map: gblock(m) with an int array m, "
                                     "not gblock(*)")
        maps.append(f"({mine.arg.text})" if mine.kind == "gblock" and isinstance(mine.arg, xd.Expr) else "0")
    return "(const void *[]){" + ", ".join(maps) + "}"


def _arg(f: xd.DistFormat) -> str | None:
    return f.arg.text.replace(" ", "") if isinstance(f.arg, xd.Expr) else None


def _show(f: xd.DistFormat) -> str:
    kind = "*" if f.kind == "none" else f.kind
    arg = "*" if isinstance(f.arg, xd.Star) else _arg(f)
    return f"{kind}({arg})" if arg is not None else kind


def _on_template(d: xd.Directive, scope: Scope) -> TemplateSym | None:
    """The dynamic template that the directive's on-ref names, if any."""
    on = getattr(d, "on", None)
    name = on.template.name if isinstance(on, xd.OnTemplate) else on.name.name if isinstance(on, xd.Ref) \
        else None
    tmpl = scope.find_template(name) if name is not None else None
    if tmpl is None or not tmpl.is_dynamic or scope.find_nodes(name) is not None:  # type: ignore[arg-type]
        return None
    return tmpl


def guard(tmpl: TemplateSym, loc: object) -> str:
    return (f"if (!{tmpl.c_name}.distributed) _xmpacc_not_ready(&{tmpl.c_name}, "
            f"{cbuild.where_literal(loc)});")


class _Dynamic(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree)
        self.ctx = ctx

    def visit_Compound(self, node: c_ast.Compound) -> None:
        out: list[c_ast.Node] = []
        for item in node.block_items or []:
            if pragma_id(item) is None:
                self.visit(item)
                out.append(item)
                continue
            directives = self.ctx.directives.get(id(item), [])
            fixes = [d for d in directives if isinstance(d, xd.TemplateFix)]
            if fixes:
                out += self._fix_calls(fixes, item)
                continue
            # the guards stand above the OpenACC lines right above the directive too: an
            # 'acc parallel loop' there pairs with the XMP loop below it (acc_nest.py)
            k = len(out)
            while k and pragma_id(out[k - 1], "acc") is not None:
                k -= 1
            guards = [t for t in (_on_template(d, self.scope) for d in directives) if t is not None]
            out[k:k] = [s for t in guards for s in cbuild.stmts(guard(t, item.coord), item.coord)]
            out.append(item)
        node.block_items = out

    def _fix_calls(self, fixes: list[xd.TemplateFix], item: c_ast.Node) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        for d in fixes:
            try:
                call = fix_call(d, self.scope)
                if call is not None:
                    out += cbuild.stmts(call, item.coord)
            except XmpError as err:
                self.ctx.diags.add(err)
        return out


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _Dynamic(ctx.scopes, ctx).visit(unit.ast)
    return unit  # errors stay collected until the check stage
