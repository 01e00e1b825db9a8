"""Pass acc_routine: ``#pragma acc routine seq`` functions become device functions
(XcalableACC.md §2, SHOULD).

Before:                                      After:
    #pragma acc routine seq                      host C: the function, unchanged;
    double f(double x) { return x * x; }         prog.cu: _XMPACC_ROUTINE double f(double x) { return x * x; }
                                                 and kernels of this file may call f.

The directive stands directly before the function's definition or prototype (a prototype
in a function too), or names it (``routine(f) seq``); a routine defined in another file of
the program is acc_routine_files.py's.  A device function calls only math functions and
other routines.  It reads ``const`` scalars with a constant initializer as their values
(``const double G = 6.67e-11;``: ``((double) (6.67e-11))``).  Other file-scope variables
it uses (and those of the routines it calls) become parameters of its device copy with
the same names, and every call on the device passes them
(``routine_args.routine_globals``), so the kernel that calls it uses them as its own:

    double coef[4];                              prog.cu:
    #pragma acc routine seq                      _XMPACC_ROUTINE double f(double x, double *coef)
    double f(double x) { return coef[0] * x; }   { return coef[0] * x; }
    ... f(a[i]) in a kernel                      ... f(a[i], coef): coef is present or copied in

An array is passed as a pointer to its elements (rows), so it is the kernel's device copy;
a scalar by value, so a routine may read it but not assign it.  Distributed arrays are
reached through their descriptors in kernels, not in routines.
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc import kernel_types
from xmpacc.cbuild import loc_of, walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives.openacc_ast import AccRoutine
from xmpacc.passes.common import openacc_calls
from xmpacc.passes.common.accesses import address_taken
from xmpacc.passes.common.pragmas import acc_directive, copy_directives
from xmpacc.passes.gpu import acc_routine_files, routine_args
from xmpacc.passes.kernel import kernel_vla
from xmpacc.passes.kernel.kernel_vars import DEVICE_FUNCTIONS, assigned_names


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


def _take(items: list[c_ast.Node], wanted: dict[str, SourceLoc], prototypes: list[c_ast.Node],
          ctx: Context) -> list[c_ast.Node]:
    """``items`` without their ``acc routine`` lines, whose functions go into ``wanted``
    (and the prototypes after them into ``prototypes``): at file scope, or before a
    prototype in a function (C allows one there)."""
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
        else:
            prototypes += items[k + 1:k + 2] if d.name is None else []
    return kept


def _check(fn: c_ast.FuncDef, routines: set[str]) -> None:
    # first: a distributed array's subscripts went through its descriptor (localize), whose
    # index macros the call check below would report instead
    for node in walk(fn.body):
        if isinstance(node, c_ast.ID) and node.name.startswith("_xmpacc_a_"):
            raise XmpError(loc_of(node),
                           f"'acc routine' function '{fn.decl.name}' uses the distributed array "
                           f"'{node.name[len('_xmpacc_a_'):]}': pass its elements as arguments "
                           "(kernels reach distributed arrays through their descriptors)")
    for node in walk(fn.body):
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            name = node.name.name
            library = openacc_calls.device_call_error(name)
            if library is not None:
                raise XmpError(loc_of(node), library)
            if name not in DEVICE_FUNCTIONS and name not in routines:
                raise XmpError(loc_of(node), f"call of '{name}' in 'acc routine' function "
                                             f"'{fn.decl.name}': only math functions and other 'acc "
                                             "routine seq' functions run on the GPU")


def _globals(fn: c_ast.FuncDef, file_decls: dict[str, c_ast.Decl],
             constants: dict[str, c_ast.Node]) -> list[str]:
    """The file-scope variables ``fn`` uses itself (not the constants it reads as values),
    in order of first use; an error for what a parameter cannot carry."""
    local, out = _locals(fn), []
    # not variables: called names and members ('c.re' where the file also has an array 're')
    skip = {id(n.name) for n in walk(fn.body) if isinstance(n, c_ast.FuncCall)} | \
        {id(n.field) for n in walk(fn.body) if isinstance(n, c_ast.StructRef)}
    assigned = set(assigned_names(fn.body)) | address_taken(fn.body)
    for node in walk(fn.body):
        if not isinstance(node, c_ast.ID) or id(node) in skip or node.name in local \
                or node.name not in file_decls or node.name in constants or node.name in out:
            continue
        if not isinstance(file_decls[node.name].type, c_ast.ArrayDecl) and node.name in assigned:
            raise XmpError(loc_of(node), f"'acc routine' function '{fn.decl.name}' assigns the file-scope "
                                         f"scalar '{node.name}': a routine gets its value; return the result "
                                         "instead")
        out.append(node.name)
    return out


def _with_globals(fn: c_ast.FuncDef, names: list[str], file_decls: dict[str, c_ast.Decl],
                  constants: frozenset[str]) -> None:
    """Parameters named as the file-scope variables (arrays as pointers to their rows)."""
    params = fn.decl.type.args.params if fn.decl.type.args is not None else []
    params = [p for p in params if not (isinstance(p, c_ast.Typename) and _is_void(p))]
    for p in params:   # 'double x[n]' (C99): a pointer, which is what C passes; C++ has no such array
        if isinstance(p, c_ast.Decl) and isinstance(p.type, c_ast.ArrayDecl):
            p.type = c_ast.PtrDecl([], p.type.type)
    # rows of variable length (double g[][m]): as the kernels hold such arrays (kernel_vla.py)
    params = [kernel_vla.routine_parameter(p, constants) if isinstance(p, c_ast.Decl) else p for p in params]
    for name in names:
        decl = copy.deepcopy(file_decls[name])
        t = decl.type
        decl.type = c_ast.PtrDecl([], t.type) if isinstance(t, c_ast.ArrayDecl) else t
        decl.storage, decl.init, decl.funcspec = [], None, []
        params.append(decl)
    fn.decl.type.args = c_ast.ParamList(params)


def _is_void(p: c_ast.Typename) -> bool:
    t = p.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
        and t.type.names == ["void"]


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
        if isinstance(item, c_ast.Decl) and isinstance(item.type, c_ast.TypeDecl) \
                and "const" in item.type.quals \
                and item.init is not None and _constant(item.init):
            ctype = c_ast.Typename(None, [], None,
                                   c_ast.TypeDecl(None, [], None, copy.deepcopy(item.type.type)))
            out[item.name] = c_ast.Cast(ctype, copy.deepcopy(item.init))
    return out


def _constant(node: c_ast.Node) -> bool:
    """Literals combined by operators (no names, calls or assignments)."""
    return all(isinstance(n, (c_ast.Constant, c_ast.UnaryOp, c_ast.BinaryOp, c_ast.TernaryOp))
               and not (isinstance(n, c_ast.UnaryOp)
                        and n.op in ("&", "*", "++", "--", "p++", "p--", "sizeof"))
               for n in walk(node))


def _substitute(fn: c_ast.FuncDef, constants: dict[str, c_ast.Node], local: set[str]) -> None:
    """The device copy's reads of file-scope constants become their values."""
    for node in walk(fn.body):
        for name, child in node.children():
            if isinstance(child, c_ast.ID) and child.name in constants and child.name not in local \
                    and not (isinstance(node, c_ast.StructRef) and name == "field"):   # not a member s.G
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
    prototypes: list[c_ast.Node] = []   # of routines other files define, where the lines stand
    unit.ast.ext = _take(items, wanted, prototypes, ctx)
    for block in (n for n in walk(unit.ast) if isinstance(n, c_ast.Compound) and n.block_items):
        block.block_items = _take(block.block_items, wanted, prototypes, ctx)
    defs = {item.decl.name: item for item in items if isinstance(item, c_ast.FuncDef)}
    ctx.acc_routine_defs = {name for name in wanted if name in defs}
    file_decls = {item.name: item for item in items if isinstance(item, c_ast.Decl) and item.name
                  and not isinstance(item.type, c_ast.FuncDecl) and "typedef" not in item.storage}
    constants = _constants(items)
    own: dict[str, list[str]] = {}
    typedefs = ctx.typedefs_of(unit)
    for name, loc in wanted.items():
        if name not in defs:   # defined in another file of the program (acc_routine_files.py)
            try:
                ctx.acc_routine_externs[name] = acc_routine_files.extern(name, items + prototypes, loc,
                                                                         typedefs)
            except XmpError as err:
                ctx.diags.add(err)
            continue
        try:
            _check(defs[name], set(wanted))
            kernel_types.check_constant_sizes(defs[name].body, typedefs, f"'acc routine' function '{name}'")
            kernel_types.check_long_double(defs[name], typedefs, f"'acc routine' function '{name}'")
            own[name] = _globals(defs[name], file_decls, constants)
            device = ctx.acc_routines[name] = copy.deepcopy(defs[name])
            copy_directives(defs[name], device, ctx)   # its loop and atomic lines (acc_orphans.py)
            # _XMPACC_ROUTINE says it
            device.decl.storage = [s for s in device.decl.storage if s != "static"]
            _substitute(device, constants, _locals(device))
        except XmpError as err:
            ctx.diags.add(err)
    ctx.acc_routine_globals = _closure(own, ctx.acc_routines)
    for name, device in ctx.acc_routines.items():
        try:
            entry = acc_routine_files.export(defs[name], ctx.acc_routine_globals[name], wanted[name],
                                             unit.path, typedefs)
        except XmpError as err:
            ctx.diags.add(err)
            entry = None
        if entry is not None:
            ctx.acc_routine_exports[name] = entry
        _with_globals(device, ctx.acc_routine_globals[name], file_decls, typedefs.constants)
        device.body = routine_args.routine_globals(device.body, ctx.acc_routine_globals)
    return unit


def _closure(own: dict[str, list[str]], routines: dict[str, c_ast.FuncDef]) -> dict[str, list[str]]:
    """Each routine's variables with those of the routines it calls, directly or not."""
    calls = {name: {n.name.name for n in walk(fn.body) if isinstance(n, c_ast.FuncCall)
                    and isinstance(n.name, c_ast.ID) and n.name.name in routines}
             for name, fn in routines.items()}
    out = {name: list(own.get(name, [])) for name in routines}
    changed = True
    while changed:
        changed = False
        for name in routines:
            for callee in sorted(calls[name]):
                for g in out[callee]:
                    if g not in out[name]:
                        out[name].append(g)
                        changed = True
    return out
