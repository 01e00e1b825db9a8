"""Stage emit: host C of each unit and the program's glue C, from Jinja2 templates.

The templates (``templates/*.j2``) only lay out text; the C bodies come from pycparser's
generator, with ``#line`` markers so that the host compiler's messages and a debugger
point at the user's source lines.
"""

from __future__ import annotations

import os
import re

import jinja2
from pycparser import c_ast, c_generator

import xmpacc.templates
from xmpacc import __version__
from xmpacc.context import Context, Unit
from xmpacc.deepstack import nesting_error
from xmpacc.diagnostics import SourceLoc
from xmpacc.frontend.rawbytes import escape_for_c
from xmpacc.frontend.preprocess import LIBC_STRING_SENTINEL, is_system_path
from xmpacc.passes.entry import init_function_name
from xmpacc.runtime.contract import ENTRIES, Entry, contract_id


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.dirname(xmpacc.templates.__file__)),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True)


def _is_system_coord(coord: object) -> bool:
    path = getattr(coord, "file", None)
    return bool(path) and is_system_path(path)


MAX_INDENT = 80
_LINE_MARKER = re.compile(r'#line (\d+) "((?:[^"\\]|\\.)*)"')


def drop_redundant_line_markers(text: str) -> str:
    """Remove each ``#line`` marker that names the line the C compiler is already on.

    A marker sets the number of the line after it; every other line adds one.  The
    generator puts a marker before every statement, so that a statement printed on a
    different line than in the source (``int main(void) { f(); }`` becomes three lines)
    is still reported at its own line; this pass keeps only the markers that change
    something.
    """
    out: list[str] = []
    here: tuple[str, int] | None = None      # (file, number of the next line)
    for line in text.split("\n"):
        m = _LINE_MARKER.fullmatch(line)
        if m:
            target = (m.group(2), int(m.group(1)))
            if target == here:
                continue
            here = target
        elif here is not None:
            here = (here[0], here[1] + 1)
        out.append(line)
    return "\n".join(out)


class HostGenerator(c_generator.CGenerator):
    """pycparser's generator plus ``#line`` markers before statements.

    Every statement but a brace gets a marker, generated ones too: they carry user
    expressions (loop bounds, directive arguments) that the host compiler may reject.
    ``visit`` of a whole tree returns text without the redundant ones
    (``drop_redundant_line_markers``).
    """

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0

    def _make_indent(self) -> str:
        # capped: blocks nested thousands deep would otherwise give quadratic output
        return " " * min(self.indent_level, MAX_INDENT)

    def visit(self, node: c_ast.Node) -> str:
        self._depth += 1
        try:
            text = super().visit(node)
        finally:
            self._depth -= 1
        return drop_redundant_line_markers(text) if self._depth == 0 else text

    def _marker(self, node: c_ast.Node) -> str:
        c = node.coord
        path, line = getattr(c, "file", None), getattr(c, "line", 0)
        if not path or not line or isinstance(node, c_ast.Compound):
            return ""
        return f'#line {line} "{path}"\n'

    def _generate_stmt(self, n: c_ast.Node, add_indent: bool = False) -> str:
        return self._marker(n) + super()._generate_stmt(n, add_indent)

    def external(self, n: c_ast.Node) -> str:
        text = self._marker(n) + self.visit(n)
        if isinstance(n, (c_ast.Decl, c_ast.Typedef)):
            text += ";"
        return text + "\n"


def host_c(unit: Unit, ctx: Context) -> str:
    gen = HostGenerator()
    try:
        body = "".join(gen.external(item) for item in unit.ast.ext if not _is_system_coord(item.coord))
    except RecursionError:
        raise nesting_error(unit.ast, SourceLoc(unit.path, 1, 1)) from None
    body = drop_redundant_line_markers(body)
    body = LIBC_STRING_SENTINEL.sub(r'" \1 "', body)
    descriptors = [HostGenerator().visit(d) + ";" for d in ctx.file_decls]
    return escape_for_c(_env().get_template("host.c.j2").render(
        version=__version__, source=unit.path, includes=unit.pre.system_includes,
        descriptors=descriptors, body=body))


def _glue_entry(e: Entry) -> dict[str, str]:
    return {
        "name": e.name, "returns": e.returns,
        "param_types": ", ".join(t for t, _ in e.params) or "void",
        "params": ", ".join(f"{t} {n}" for t, n in e.params) or "void",
        "args": ", ".join(n for _, n in e.params),
        "ret": "" if e.returns == "void" else "return ",
    }


def glue_c(units: list[tuple[Unit, Context]]) -> str:
    mains = [ctx for _u, ctx in units if ctx.has_main]
    main = mains[0] if mains else None
    params = main.main_params if main else 2
    args = {0: "", 2: "argc, argv"}.get(params, "argc, argv, environ")
    return _env().get_template("glue.c.j2").render(
        version=__version__, contract_id=contract_id(), entries=[_glue_entry(e) for e in ENTRIES],
        inits=[init_function_name(u) for u, _c in units],
        main_params=params if params in (0, 2) else 3,
        main_ret="void" if main and main.main_returns_void else "int", main_args=args)
