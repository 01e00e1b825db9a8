"""Pass acc_routine: ``#pragma acc routine seq`` functions become device functions
(XcalableACC.md §2, SHOULD).

Before:                                      After:
    #pragma acc routine seq                      host C: the function, unchanged;
    double f(double x) { return x * x; }         prog.cu: _XMPACC_ROUTINE double f(double x) { return x * x; }
                                                 and kernels of this file may call f.

The directive stands directly before the function's definition or prototype, or names it
(``routine(f) seq``) at file scope; the definition must be in the same file.  A device
function computes from its arguments: it calls only math functions and other routines,
and reads no file-scope variable (host memory).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives.openacc_ast import AccRoutine
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


def _check(fn: c_ast.FuncDef, routines: set[str], file_names: set[str]) -> None:
    params = {p.name for p in (fn.decl.type.args.params if fn.decl.type.args else [])
              if isinstance(p, c_ast.Decl)}
    local = {n.name for n in walk(fn.body) if isinstance(n, c_ast.Decl)} | params
    calls = set()
    for node in walk(fn.body):
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            calls.add(id(node.name))
            name = node.name.name
            if name not in DEVICE_FUNCTIONS and name not in routines:
                raise XmpError(loc_of(node), f"call of '{name}' in 'acc routine' function '{fn.decl.name}': only "
                                             "math functions and other 'acc routine seq' functions run on the GPU")
    for node in walk(fn.body):
        if isinstance(node, c_ast.ID) and id(node) not in calls and node.name not in local \
                and node.name in file_names:
            raise XmpError(loc_of(node), f"'acc routine' function '{fn.decl.name}' reads the file-scope "
                                         f"variable '{node.name}', which is host memory: not supported yet")


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
    for name, loc in wanted.items():
        if name not in defs:
            ctx.diags.error(loc, f"'acc routine' function '{name}' is not defined in this file: not supported yet")
            continue
        try:
            _check(defs[name], set(wanted), file_names)
            ctx.acc_routines[name] = copy.deepcopy(defs[name])
        except XmpError as err:
            ctx.diags.add(err)
    return unit
