"""Stage emit (kernels): the program's ``.cu`` file from every unit's ``loop ... acc``."""

from __future__ import annotations

import copy
import hashlib

from pycparser import c_ast

from xmpacc import __version__, kernel_types
from xmpacc.context import Context, Unit
from xmpacc.deepstack import nesting_error
from xmpacc.diagnostics import SourceLoc
from xmpacc.emit import HostGenerator, template_env
from xmpacc.frontend.rawbytes import escape_for_c


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


def _render(body: c_ast.Node, k: object) -> str:
    gen = KernelGenerator()
    try:
        return (gen.visit(body) if hasattr(body, "block_items") else gen._generate_stmt(body)).rstrip()
    except RecursionError:
        raise nesting_error(body, SourceLoc(k.source, 1, 1)) from None  # type: ignore[attr-defined]


def kernels_cu(unit: Unit, ctx: Context, name: str = "kernels.cu") -> str | None:
    """The kernel file of one unit (``name`` is its file name, for #line markers), or None
    when the unit has no acc loop.  The kernels of a program are those of its units, put
    together at run time (xmpacc_unit.h)."""
    if not ctx.kernels and not ctx.device_data and not ctx.acc_routine_exports:
        return None
    rendered = []
    for k in ctx.kernels:
        body = _render(k.body, k)
        vector_bodies = [_render(b, k) for b in k.vector_bodies]
        rendered.append({
            "name": k.name, "source": k.source.rsplit("/", 1)[-1],
            "params": [p.decl for p in k.params], "names": [p.name for p in k.params],
            "prologue": k.prologue, "epilogue": k.epilogue, "body": body, "guard": k.guard,
            "walk": k.walk, "stream": k.info.get("stream", ""), "vector_bodies": vector_bodies,
        })
    # A routine other files call is defined in the namespace as _xmpacc_export_<name>, and
    # <name> is declared at global scope like another file's routine, defined at the end as
    # a call of it: a call of <name> (here or in another file) then finds one function,
    # even where C++'s argument-dependent lookup adds the global scope (arguments of the
    # shared structures).
    routines = [KernelGenerator().visit(_renamed(fn) if name in ctx.acc_routine_exports else fn).rstrip()
                for name, fn in ctx.acc_routines.items()]
    externs = [KernelGenerator().visit(d) for d in ctx.acc_routine_externs.values()] + \
        [KernelGenerator().visit(e.signature) for e in ctx.acc_routine_exports.values()]
    exports = [(KernelGenerator().visit(e.signature),
                f"_xmpacc_export_{e.signature.name}({', '.join(e.args)})")
               for e in ctx.acc_routine_exports.values()]
    template = template_env().get_template("kernels.cu.j2")
    fields = dict(version=__version__, sources=unit.path.rsplit("/", 1)[-1], kernels=rendered,
                  routines=routines, unit=unit.stem, externs=externs, exports=exports)
    defs = kernel_types.needed(unit.ast.ext, template.render(types=[], shared=[], **fields))
    # the types of routines that cross files: at global scope, where the other file's
    # declaration of the same routine names the same C++ type (acc_routine_files.py)
    crossing = kernel_types.needed(defs, "\n".join(externs + [signature for signature, _call in exports]))
    shared_texts = [KernelGenerator().visit(d) + ";" for d in crossing]
    shared = [(_guard(text), text) for text in shared_texts]
    types = [t for t in (KernelGenerator().visit(d) + ";" for d in defs) if t not in shared_texts]
    text = template.render(types=types, shared=shared, **fields)
    return escape_for_c(_reset_line_markers(kernel_types.enums_as_int(text), name))


def _renamed(fn: c_ast.FuncDef) -> c_ast.FuncDef:
    """A copy of the routine ``fn`` named _xmpacc_export_<name>."""
    out = copy.deepcopy(fn)
    t = out.decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    out.decl.name = t.declname = f"_xmpacc_export_{fn.decl.name}"
    return out


def _guard(text: str) -> str:
    """The macro that keeps a type shared by the files of a program (kernels.cu.j2) to one
    definition in their module: named after the definition's text, which is the same in
    every file that includes its header (the #line markers aside: they hold the header's
    path as each file's command line named it)."""
    bare = "\n".join(line for line in text.split("\n") if not line.startswith("#line "))
    return "_XMPACC_SHARED_" + hashlib.sha1(bare.encode()).hexdigest()[:16]
