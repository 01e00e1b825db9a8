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
from xmpacc.cbuild import c_string
from xmpacc.ccmessages import abi_symbol
from xmpacc.context import Context, Unit, init_function_name
from xmpacc.deepstack import nesting_error
from xmpacc.diagnostics import SourceLoc
from xmpacc.frontend.preprocess import LIBC_STRING_SENTINEL, is_system_coord
from xmpacc.frontend.rawbytes import escape_for_c
from xmpacc.runtime.contract import ENTRIES, Entry, contract_id

# headers of xmpacc's own by the name no other include folder has: GCC ships an openacc.h
# (acc_device_nvidia = 5, ours 4) that the device machine's compiler found before ours
_OWN_HEADERS = {"openacc.h": "xmpacc_openacc.h"}


def template_env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.dirname(xmpacc.templates.__file__)),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True)


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
        self._line = 0      # the source line the statement being printed started on
        self._calls = 0     # inside the arguments of a call (maybe a macro): no markers there

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
        marker = self._marker(n)
        if marker:
            self._line = n.coord.line
        return marker + super()._generate_stmt(n, add_indent)

    def visit_FuncCall(self, n: c_ast.FuncCall) -> str:
        self._calls += 1
        try:
            return super().visit_FuncCall(n)
        finally:
            self._calls -= 1

    def visit_ArrayRef(self, n: c_ast.ArrayRef) -> str:
        """A subscript on a later line than its statement's start gets its own marker, so
        that __LINE__ in a checked subscript (include/xmpacc_check.h) and the compiler's
        messages name the line of the access.  Not inside call arguments: a directive in
        the arguments of a macro is undefined behaviour."""
        text = super().visit_ArrayRef(n)
        path, line = getattr(n.coord, "file", None), getattr(n.coord, "line", 0)
        if self._calls or not path or not line or line == self._line:
            return text
        self._line = line
        return f'\n#line {line} "{path}"\n{text}'

    def external(self, n: c_ast.Node) -> str:
        text = self._marker(n) + self.visit(n)
        if isinstance(n, (c_ast.Decl, c_ast.Typedef)):
            text += ";"
        return text + "\n"


def host_c(unit: Unit, ctx: Context, record: str) -> str:
    """The host C of a unit; it ends with ``#include "<record>"`` (``record_h``)."""
    gen = HostGenerator()
    try:
        body = "".join(gen.external(item) for item in unit.ast.ext if not is_system_coord(item.coord))
    except RecursionError:
        raise nesting_error(unit.ast, SourceLoc(unit.path, 1, 1)) from None
    body = drop_redundant_line_markers(body)
    body = LIBC_STRING_SENTINEL.sub(r'" \1 "', body)
    descriptors = [HostGenerator().visit(d) + ";" for d in ctx.file_decls]
    return escape_for_c(template_env().get_template("host.c.j2").render(
        version=__version__, source=unit.path,
        includes=[_OWN_HEADERS.get(h, h) for h in unit.pre.system_includes],
        descriptors=descriptors, body=body, record=record))


def c_string_lines(text: str) -> list[str]:
    """``text`` as C string literals, one per line (adjacent literals concatenate)."""
    def char(c: str) -> str:
        if c in '\\"?':       # '?': no trigraphs with -std=c99
            return "\\" + c
        if c == "\t":
            return "\\t"
        return c if c >= " " else f"\\{ord(c):03o}"
    return ['"' + "".join(char(c) for c in line.rstrip("\n")) + ('\\n"' if line.endswith("\n") else '"')
            for line in text.splitlines(keepends=True)]


def record_h(unit: Unit, kernels: str | None) -> str:
    """The unit's record (xmpacc_unit.h): start-up function, kernel source, the mark of
    this xmpacc; included at the end of the host C."""
    return template_env().get_template("record.h.j2").render(
        version=__version__, source=unit.path, abi=abi_symbol(),
        source_literal=c_string(unit.path), init=init_function_name(unit),
        kernels=c_string_lines(kernels) if kernels else None,
        kernels_ref="_xmpacc_kernels" if kernels else "0")


def _glue_entry(e: Entry) -> dict[str, str]:
    return {
        "name": e.name, "returns": e.returns,
        "param_types": ", ".join(t for t, _ in e.params) or "void",
        "params": ", ".join(f"{t} {n}" for t, n in e.params) or "void",
        "args": ", ".join(n for _, n in e.params),
        "ret": "" if e.returns == "void" else "return ",
        # the C fast path of the entry (contract.py): replays a plan without entering Python
        "fast": _fast_call(e),
    }


def _fast_call(e: Entry) -> str:
    if not e.fast:
        return ""
    args = ", ".join(n for _, n in e.params)
    if e.returns == "void":
        return f"if ({e.fast}({args})) return; "
    return f"{{ {e.returns} _r; if ({e.fast}({args}{', ' if args else ''}&_r)) return _r; }} "


def glue_c() -> str:
    """The program's glue (templates/glue.c.j2): the same for every program of this xmpacc."""
    return template_env().get_template("glue.c.j2").render(
        version=__version__, contract_id=contract_id(), abi=abi_symbol(),
        entries=[_glue_entry(e) for e in ENTRIES])


def library_c() -> str:
    """The start-up glue of a shared library (-shared): templates/library.c.j2."""
    return template_env().get_template("library.c.j2").render(version=__version__)
