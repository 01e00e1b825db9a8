"""The hidden arguments of ``acc routine`` calls (XcalableACC.md §2): a routine's device
copy takes the file-scope variables it uses as trailing parameters (pass acc_routine), so
every call in device code passes them, by name, from the kernel that makes it.

    #pragma acc routine seq
    double f(double x) { return x * w[0]; }       device copy: f(double x, double *w)
    ... y[i] = f(x[i]); ...   (in a kernel)  ->   y[i] = f(x[i], w);
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc.cbuild import walk


def routine_globals(node: c_ast.Node, globals_of: dict[str, list[str]]) -> c_ast.Node:
    """``node`` (a kernel body or a device routine) with the file-scope variables each call
    of a routine needs appended to its arguments, by name; ``node`` itself if none."""
    calls = [n for n in walk(node) if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
             and globals_of.get(n.name.name)]
    if not calls:
        return node
    node = copy.deepcopy(node)
    for call in walk(node):
        if isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID) \
                and globals_of.get(call.name.name):
            args = call.args.exprs if call.args is not None else []
            call.args = c_ast.ExprList(args + [c_ast.ID(g, call.coord) for g in globals_of[call.name.name]])
    return node
