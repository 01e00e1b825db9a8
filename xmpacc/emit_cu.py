"""Stage emit (kernels): the program's ``.cu`` file from every unit's ``loop ... acc``."""

from __future__ import annotations


from xmpacc import __version__, kernel_types
from xmpacc.context import Context, Unit
from xmpacc.deepstack import nesting_error
from xmpacc.diagnostics import SourceLoc
from xmpacc.frontend.rawbytes import escape_for_c
from xmpacc.emit import HostGenerator, _env


def _reset_line_markers(text: str, name: str) -> str:
    """``#line HERE`` in the template: the code after a kernel body is generated code again,
    so compiler messages about it name the .cu file and its own line."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if line == "#line HERE":
            lines[n] = f'#line {n + 2} "{name}"'
    return "\n".join(lines)


def kernels_cu(unit: Unit, ctx: Context, name: str = "kernels.cu") -> str | None:
    """The kernel file of one unit (``name`` is its file name, for #line markers), or None
    when the unit has no acc loop.  The kernels of a program are those of its units, put
    together at run time (xmpacc_unit.h)."""
    if not ctx.kernels and not ctx.device_data:
        return None
    rendered = []
    for k in ctx.kernels:
        gen = HostGenerator()
        try:
            body = gen.visit(k.body) if hasattr(k.body, "block_items") else gen._generate_stmt(k.body)
        except RecursionError:
            raise nesting_error(k.body, SourceLoc(k.source, 1, 1)) from None
        rendered.append({
            "name": k.name, "source": k.source.rsplit("/", 1)[-1],
            "params": [p.decl for p in k.params], "names": [p.name for p in k.params],
            "prologue": k.prologue, "epilogue": k.epilogue, "body": body.rstrip(), "guard": k.guard,
            "walk": k.walk, "stream": k.info.get("stream", ""),
        })
    routines = [HostGenerator().visit(fn).rstrip() for fn in ctx.acc_routines.values()]
    template = _env().get_template("kernels.cu.j2")
    fields = dict(version=__version__, sources=unit.path.rsplit("/", 1)[-1], kernels=rendered, routines=routines)
    types = [HostGenerator().visit(d) + ";" for d in
             kernel_types.needed(unit.ast.ext, template.render(types=[], **fields))]
    return escape_for_c(_reset_line_markers(template.render(types=types, **fields), name))
