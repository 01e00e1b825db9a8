"""'acc routine' functions across the files of a program (acc_routine.py calls it).

A file may call, in its kernels, a routine that another file defines: the usual shape is
a header with the directive and the prototype, included by both files,

    #pragma acc routine seq          shared.h
    double weight(double x, int k);

and the definition in one of them.  The program's kernel files are one NVRTC module
(launcher.py), each file's in a namespace of its own (xmpacc_kernel.h _XMPACC_UNIT_BEGIN),
so the caller's kernel file declares the routine at global scope and the defining file
adds a global entry that calls its namespace's device copy:

    caller's prog.cu                                    defining file's prog.cu
    _XMPACC_ROUTINE_EXTERN double weight(double x, int k);  namespace _xmpacc_unit_w_c { ...weight... }
                                                        __device__ double weight(double x, int k)
                                                        { return _xmpacc_unit_w_c::weight(x, k); }

On the host backend the caller's kernels call the program's host function itself.  Only
routines whose directive stands in a header get the entry, and only what one C
declaration can say crosses files: a routine that uses no file-scope variable (those are
passed by the file's own calls, routine_args.routine_globals).  Its parameters and result
may be of the program's structures, unions and enums: both files' kernel files define
the types such a signature needs at global scope, once per module (emit_cu.py), so that
the caller and the entry name one C++ type.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.kernel_types import Typedefs


@dataclass(frozen=True)
class Export:
    """A routine of this file that other files' kernels may call."""

    signature: c_ast.Decl    # the definition's declarator, without 'static'
    args: tuple[str, ...]    # its parameter names, in order


def extern(name: str, items: list[c_ast.Node], loc: SourceLoc, typedefs: Typedefs) -> c_ast.Decl:
    """The prototype of a routine this file calls but does not define (an error if there is
    none, or if its types cannot cross files)."""
    proto = next((item for item in items if isinstance(item, c_ast.Decl) and item.name == name
                  and isinstance(item.type, c_ast.FuncDecl)), None)
    if proto is None:
        raise XmpError(loc, f"'acc routine' function '{name}' is neither defined nor declared in this file")
    _plain(proto, typedefs, loc)
    out = copy.deepcopy(proto)
    out.storage = []
    return out


def export(fn: c_ast.FuncDef, globals_used: list[str], loc: SourceLoc, unit_path: str,
           typedefs: Typedefs) -> Export | None:
    """The global entry of a routine that other files can call: not static, its directive
    in a header (which other files include); errors where those files could not call it.
    Other routines stay in the file's namespace only: a global 'int max(int, int)' would
    clash with CUDA's own."""
    if "static" in fn.decl.storage or "inline" in fn.decl.funcspec or loc.file == unit_path:
        return None
    _plain(fn.decl, typedefs, loc)
    if globals_used:
        raise XmpError(loc, f"'acc routine' function '{fn.decl.name}', declared in a header for other files, "
                            f"uses the file-scope variable '{globals_used[0]}': other files' kernels cannot "
                            "pass it (not supported yet); pass it as an argument")
    signature = copy.deepcopy(fn.decl)
    signature.storage = []
    params = fn.decl.type.args.params if fn.decl.type.args is not None else []
    args = tuple(p.name for p in params if isinstance(p, c_ast.Decl) and p.name)
    return Export(signature, args)


def _plain(decl: c_ast.Decl, typedefs: Typedefs, loc: SourceLoc) -> None:
    """Result and parameters of types the kernel file can declare (arithmetic, void, the
    program's own structures, unions, enums and typedefs), or pointers to them."""
    func = decl.type
    params = func.args.params if func.args is not None else []
    for t in [func.type] + [p.type for p in params if isinstance(p, (c_ast.Decl, c_ast.Typename))]:
        while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            t = t.type
        base = getattr(t, "type", None)
        names = list(getattr(base, "names", []) or [])
        if names == ["void"] or typedefs.is_type(names) or \
                (isinstance(base, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and base.name):
            continue
        shown = " ".join(names) if names else "an anonymous struct or union"
        raise XmpError(loc, f"'acc routine' function '{decl.name}' of another file has a parameter or result "
                            f"of type '{shown}', which the GPU kernel file cannot declare (a type of a "
                            "system header other than <stdint.h>'s and <stddef.h>'s)")
