"""Pass acc_routine: ``#pragma acc routine seq`` functions become device functions
(XcalableACC.md §2, SHOULD).

Before:                                      After:
    #pragma acc routine seq                      host C: the function, unchanged;
    double f(double x) { return x * x; }         prog.cu: _XMPACC_ROUTINE double f(double x) { return x * x; }
                                                 and kernels of this file may call f.

The directive stands directly before the function's definition or prototype, or names it
(``routine(f) seq``) at file scope; the definition must be in the same file.  A device
function computes from its arguments: it calls only math functions and other routines,
and reads no file-scope variable (host memory) except ``const`` scalars with a constant
initializer, which its device copy reads as that value (``const double G = 6.67e-11;``:
``((double) (6.67e-11))``).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives.openacc_ast import AccRoutine
from xmpacc.passes import openacc_calls
from xmpacc.passes.attach import acc_directive
from xmpacc.passes.canonical import loc_of
from xmpacc.passes.kernel_vars import DEVICE_FUNCTIONS


def _target(items: list[c_ast.Node], k: int, d: AccRoutine) -> str:
    if d.name is not None:
        return d.name.name
    nxt = items[k + 1] if k + 1 < len(items) else None
    if isinstance(nxt, c_ast.FuncDef):
        return nxt.decl.name
    if isinstance(nxt, c_ast.Decl) and isinstance(nxt.type, c_ast.FuncDecl):
        return nxt.name
    raise XmpError(d.loc, "'acc routine' must stand before a function definition or prototype "
                          "(or name the function: routine(f) seq)")


def _check(fn: c_ast.FuncDef, routines: set[str], file_names: set[str], constants: dict[str, c_ast.Node]) -> None:
    local = _locals(fn)
    calls = set()
    for node in walk(fn.body):
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            calls.add(id(node.name))
            name = node.name.name
            library = openacc_calls.device_call_error(name)
            if library is not None:
                raise XmpError(loc_of(node), library)
            if name not in DEVICE_FUNCTIONS and name not in routines:
                raise XmpError(loc_of(node), f"call of '{name}' in 'acc routine' function '{fn.decl.name}': only "
                                             "math functions and other 'acc routine seq' functions run on the GPU")
    for node in walk(fn.body):
        if isinstance(node, c_ast.ID) and id(node) not in calls and node.name not in local \
                and node.name in file_names and node.name not in constants:
            raise XmpError(loc_of(node), f"'acc routine' function '{fn.decl.name}' reads the file-scope "
                                         f"variable '{node.name}', which is host memory: not supported yet "
                                         "(a const scalar with a constant initializer is)")


def _locals(fn: c_ast.FuncDef) -> set[str]:
    """The function's parameters and the names it declares."""
    params = {p.name for p in (fn.decl.type.args.params if fn.decl.type.args else [])
              if isinstance(p, c_ast.Decl)}
    return {n.name for n in walk(fn.body) if isinstance(n, c_ast.Decl)} | params


def _constants(items: list[c_ast.Node]) -> dict[str, c_ast.Node]:
    """File-scope ``const`` scalars initialised with a constant expression, as the
    parenthesised, cast expression a device function reads instead."""
    out: dict[str, c_ast.Node] = {}
    for item in items:
        if isinstance(item, c_ast.Decl) and isinstance(item.type, c_ast.TypeDecl) and "const" in item.type.quals \
                and item.init is not None and _constant(item.init):
            ctype = c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, copy.deepcopy(item.type.type)))
            out[item.name] = c_ast.Cast(ctype, copy.deepcopy(item.init))
    return out


def _constant(node: c_ast.Node) -> bool:
    """Literals combined by operators (no names, calls or assignments)."""
    return all(isinstance(n, (c_ast.Constant, c_ast.UnaryOp, c_ast.BinaryOp, c_ast.TernaryOp))
               and not (isinstance(n, c_ast.UnaryOp) and n.op in ("&", "*", "++", "--", "p++", "p--", "sizeof"))
               for n in walk(node))


def _substitute(fn: c_ast.FuncDef, constants: dict[str, c_ast.Node], local: set[str]) -> None:
    """The device copy's reads of file-scope constants become their values."""
    for node in walk(fn.body):
        for name, child in node.children():
            if isinstance(child, c_ast.ID) and child.name in constants and child.name not in local:
                _replace(node, name, copy.deepcopy(constants[child.name]))


def _replace(parent: c_ast.Node, slot: str, new: c_ast.Node) -> None:
    """Set the child ``slot`` ("expr", "args[1]", ...) of ``parent``."""
    if "[" in slot:
        field, index = slot[:-1].split("[")
        getattr(parent, field)[int(index)] = new
    else:
        setattr(parent, slot, new)


def run(unit: Unit, ctx: Context) -> Unit:
    items = unit.ast.ext
    wanted: dict[str, SourceLoc] = {}
    kept = []
    for k, item in enumerate(items):
        d = acc_directive(item, ctx)
        if not isinstance(d, AccRoutine):
            kept.append(item)
            continue
        try:
            wanted.setdefault(_target(items, k, d), d.loc)
        except XmpError as err:
            ctx.diags.add(err)
    unit.ast.ext = kept
    defs = {item.decl.name: item for item in items if isinstance(item, c_ast.FuncDef)}
    file_names = {item.name for item in items if isinstance(item, c_ast.Decl) and item.name
                  and not isinstance(item.type, c_ast.FuncDecl)}
    constants = _constants(items)
    for name, loc in wanted.items():
        if name not in defs:
            ctx.diags.error(loc, f"'acc routine' function '{name}' is not defined in this file: not supported yet")
            continue
        try:
            _check(defs[name], set(wanted), file_names, constants)
            device = ctx.acc_routines[name] = copy.deepcopy(defs[name])
            device.decl.storage = [s for s in device.decl.storage if s != "static"]   # _XMPACC_ROUTINE says it
            _substitute(device, constants, _locals(device))
        except XmpError as err:
            ctx.diags.add(err)
    return unit
