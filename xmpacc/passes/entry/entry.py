"""Pass entry: the file's start-up code, and ``main`` as the runtime calls it.

Before:  int main(int argc, char **argv) { ... }     (file-scope directives elsewhere)
After:   int main(int argc, char **argv) { ... }
         static void _xmpacc_init_laplace_c(void) { <file-scope nodes/template/distribute/align> }

The runtime's entry point (templates/glue.c.j2) runs the start-up function of every file
(through the file's record, xmpacc_unit.h: in link order), then calls
``main(argc, argv, envp)``, so distributed arrays exist before ``main`` runs.  ``main``
keeps its name (compiler messages, debuggers and the linker see the user's ``main``);
only a ``void main`` (so written, or through a typedef) is renamed and called by an
``int main`` that returns 0, so that every process exits with 0 (global view §8):

    void main(void) { ... }   ->   void _xmpacc_user_main(void) { ... }
                                   int main(int argc, char **argv, char **envp)
                                   { ...; _xmpacc_user_main(); return 0; }

A file that defines ``void main`` comes here even without a directive (frontend/scan.py).
An ``int main`` (or ``main()``) that ends without ``return`` returns 0 as C99 says: the
host compiler compiles ``main`` under its name, so it adds that return.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.context import USER_MAIN, Context, Unit, init_function_name

_MAIN_ARGS = ("argc", "argv", "envp")


def _rename(decl: c_ast.Decl) -> None:
    decl.name = USER_MAIN
    t = decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = USER_MAIN


def run(unit: Unit, ctx: Context) -> Unit:
    definition = None
    for item in unit.ast.ext:
        if isinstance(item, c_ast.FuncDef) and item.decl.name == "main":
            definition = item
            ctx.has_main = True
            args = item.decl.type.args
            params = [p for p in (args.params if args else []) if not _is_void_param(p)]
            ctx.main_params = len(params)
            ctx.main_returns_void = _is_void(item.decl.type.type, unit)
    if definition is not None and ctx.main_returns_void:
        for item in unit.ast.ext:
            decl = item.decl if isinstance(item, c_ast.FuncDef) else item
            if isinstance(decl, c_ast.Decl) and decl.name == "main":
                _rename(decl)
        unit.ast.ext.append(_void_main_wrapper(ctx.main_params, definition.coord))
    fn = cbuild.external(f"static void {init_function_name(unit)}(void) {{ }}")
    fn.body = cbuild.compound(list(ctx.init_stmts))
    unit.ast.ext.append(fn)
    return unit


def _void_main_wrapper(params: int, coord: object) -> c_ast.FuncDef:
    """``int main`` for the glue to call, around the user's ``void main``."""
    unused = " ".join(f"(void) {a};" for a in _MAIN_ARGS[params:])
    fn = cbuild.external(f"int main(int argc, char **argv, char **envp) {{ {unused} "
                         f"{USER_MAIN}({', '.join(_MAIN_ARGS[:params])}); return 0; }}")
    cbuild.set_coord(fn, coord)
    return fn


def _is_void_param(param: c_ast.Node) -> bool:
    return isinstance(param, c_ast.Typename) \
        and getattr(getattr(param.type, "type", None), "names", None) == ["void"]


def _is_void(t: c_ast.Node, unit: Unit) -> bool:
    """Is ``t`` (main's return type) void, written so or through typedefs (``typedef void
    V; V main()``)?  Called as ``int main`` it would return what the register held."""
    typedefs = {x.name: x.type for x in unit.ast.ext if isinstance(x, c_ast.Typedef)}
    for _ in range(len(typedefs) + 1):   # a chain of typedefs, each named once
        names = getattr(t.type, "names", None) if isinstance(t, c_ast.TypeDecl) else None
        if names == ["void"]:
            return True
        if names is None or len(names) != 1 or names[0] not in typedefs:
            return False
        t = typedefs[names[0]]
    return False
