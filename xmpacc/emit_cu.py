"""Stage emit (kernels): the program's ``.cu`` file from every unit's ``loop ... acc``."""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import __version__, kernel_types
from xmpacc.context import Context, Unit
from xmpacc.deepstack import nesting_error
from xmpacc.diagnostics import SourceLoc
from xmpacc.frontend.rawbytes import escape_for_c
from xmpacc.emit import HostGenerator, _env


class KernelGenerator(HostGenerator):
    """The host generator for the kernel file, which NVRTC compiles as C++ and the host
    backend as C: a compound literal ``(cplx){x, y}`` is ``_XMPACC_COMPOUND(cplx, cplx){x, y}``,
    the C cast on the host, C++'s ``cplx{x, y}`` under NVRTC (xmpacc_kernel.h), where a
    struct's tag names its type too."""

    def visit_CompoundLiteral(self, n: c_ast.CompoundLiteral) -> str:
        t = n.type.type
        base = t.type if isinstance(t, c_ast.TypeDecl) else None
        if isinstance(base, (c_ast.Struct, c_ast.Union)) and base.name:
            name = base.name
        elif isinstance(base, c_ast.IdentifierType) and len(base.names) == 1:
            name = base.names[0]
        else:   # an array or a multi-word type: C++ has no such literal, NVRTC reports it
            return super().visit_CompoundLiteral(n)
        return f"_XMPACC_COMPOUND({self.visit(n.type)}, {name}){{{self.visit(n.init)}}}"


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
    if not ctx.kernels and not ctx.device_data and not ctx.acc_routine_exports:
        return None
    rendered = []
    for k in ctx.kernels:
        gen = KernelGenerator()
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
    routines = [KernelGenerator().visit(fn).rstrip() for fn in ctx.acc_routines.values()]
    externs = [KernelGenerator().visit(d) for d in ctx.acc_routine_externs.values()]
    exports = [(KernelGenerator().visit(e.signature), f"{e.signature.name}({', '.join(e.args)})")
               for e in ctx.acc_routine_exports.values()]
    template = _env().get_template("kernels.cu.j2")
    fields = dict(version=__version__, sources=unit.path.rsplit("/", 1)[-1], kernels=rendered, routines=routines,
                  unit=unit.stem, externs=externs, exports=exports)
    types = [KernelGenerator().visit(d) + ";" for d in
             kernel_types.needed(unit.ast.ext, template.render(types=[], **fields))]
    return escape_for_c(_reset_line_markers(kernel_types.enums_as_int(template.render(types=types, **fields)), name))
