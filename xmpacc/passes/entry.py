"""Pass entry: the program's ``main`` and the file's start-up code.

Before:  int main(int argc, char **argv) { ... }
After:   int _xmpacc_user_main(int argc, char **argv) { ... return 0; }   (when it fell off the end)
         void _xmpacc_init_laplace_c(void) { <file-scope nodes/template/distribute/align> }

The runtime's entry point (rendered in templates/glue.c.j2) calls every unit's init
function, then ``_xmpacc_user_main``, so distributed arrays exist before ``main`` runs.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.context import Context, Unit

USER_MAIN = "_xmpacc_user_main"


def init_function_name(unit: Unit) -> str:
    return f"_xmpacc_init_{unit.stem}"


def _rename(decl: c_ast.Decl) -> None:
    decl.name = USER_MAIN
    t = decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = USER_MAIN


def run(unit: Unit, ctx: Context) -> Unit:
    for item in unit.ast.ext:
        if isinstance(item, c_ast.FuncDef) and item.decl.name == "main":
            ctx.has_main = True
            args = item.decl.type.args
            params = [p for p in (args.params if args else []) if not _is_void(p)]
            ctx.main_params = len(params)
            ret = item.decl.type.type
            ctx.main_returns_void = isinstance(ret, c_ast.TypeDecl) and \
                getattr(ret.type, "names", None) == ["void"]
            if not ctx.main_returns_void:
                _falls_off_with_zero(item)
            _rename(item.decl)
        elif isinstance(item, c_ast.Decl) and item.name == "main":
            _rename(item)
    fn = cbuild.external(f"void {init_function_name(unit)}(void) {{ }}")
    fn.body = cbuild.compound(list(ctx.init_stmts))
    unit.ast.ext.append(fn)
    return unit


def _falls_off_with_zero(main: c_ast.FuncDef) -> None:
    """Reaching the end of ``main`` returns 0 (C99 5.1.2.2.3); the renamed function would
    return garbage, so the return is written out."""
    items = main.body.block_items or []
    if not items or not isinstance(items[-1], c_ast.Return):
        main.body.block_items = items + [c_ast.Return(c_ast.Constant("int", "0"), main.body.coord)]


def _is_void(param: c_ast.Node) -> bool:
    return isinstance(param, c_ast.Typename) and getattr(getattr(param.type, "type", None), "names", None) == ["void"]
