"""Host loop nests that the C compiler can vectorise (part of pass loops).

A distributed loop reads its arrays through descriptor macros; the descriptor is a
global that a store through an element pointer may alias (a ``long long`` or ``char``
array), and so may the global pointer to the local block, so cc must reload both in every
iteration and gives up vectorising.  Before the nest, each array's descriptor and block
pointer are copied into locals that nothing else can reach:

    for (i = s.first; i <= s.last; i += 1)         {
      unew[_XMPACC_L(_xmpacc_a_unew, 0, i)] =         _xmpacc_array_t _xmpacc_ha_unew = _xmpacc_a_unew;
        u[_XMPACC_L(_xmpacc_a_u, 0, i - 1)];          double *restrict const _xmpacc_hp_unew = unew;
                                                      ... the same for u ...
                                                      for (...)
                                                        _xmpacc_hp_unew[_XMPACC_L(_xmpacc_ha_unew, 0, i)] =
                                                          _xmpacc_hp_u[_XMPACC_L(_xmpacc_ha_u, 0, i - 1)];
                                                    }

The subscript macros stay, so a checked build (-D_XMPACC_CHECK) still checks every access
(the copy describes the same block; runtime/check.py finds arrays by their buffer).
``restrict`` is written only where it is provable: every array of the nest is a fixed
aligned array (each has its own buffer; aligned pointers and parameters may share one),
the body reaches the arrays only through these subscripts and calls no function but the
math functions.  The step of the loop itself is made a constant by loopnest.py.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import walk

_MACROS = {"_XMPACC_L", "_XMPACC_LC"} | {f"_XMPACC_AT{n}" for n in range(2, 8)}

# calls that read no memory of the program (math.h), so restrict stays provable
_PURE = {"sqrt", "fabs", "exp", "log", "sin", "cos", "tan", "pow", "floor", "ceil", "fmin", "fmax",
         "sqrtf", "fabsf", "expf", "logf", "sinf", "cosf", "powf", "abs", "labs", "atan", "atan2",
         "sinh", "cosh", "tanh", "log10", "fmod", "exp2", "log2", "cbrt", "hypot",
         # the schedule helpers of loopnest.py: they read template descriptors only
         "_xmpacc_schedule", "_xmpacc_schedule_pos", "_xmpacc_schedule_span", "_xmpacc_sched_shift",
         "_xmpacc_range", "_xmpacc_range_sched", "_xmpacc_nodes_tdim", "_xmpacc_tdim_glb",
         "_xmpacc_on_progression"}


def _desc_of(sub: c_ast.Node) -> str | None:
    """The descriptor named by a subscript macro (all of its macros must name the same)."""
    if not (isinstance(sub, c_ast.FuncCall) and isinstance(sub.name, c_ast.ID) and sub.name.name in _MACROS):
        return None
    names = {n.args.exprs[0].name for n in walk(sub)
             if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in _MACROS
             and n.args is not None and isinstance(n.args.exprs[0], c_ast.ID)}
    return names.pop() if len(names) == 1 else None


def _accesses(nest: c_ast.Node) -> tuple[list[c_ast.ArrayRef], dict[str, str]]:
    """The hoistable accesses and array name -> descriptor name."""
    declared = {n.name for n in walk(nest) if isinstance(n, c_ast.Decl) and n.name}
    refs: list[c_ast.ArrayRef] = []
    arrays: dict[str, str] = {}
    conflicting: set[str] = set()
    for n in walk(nest):
        if not (isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID)):
            continue
        desc = _desc_of(n.subscript)
        name = n.name.name
        if desc is None or name in declared or desc in declared:
            continue
        if arrays.setdefault(name, desc) != desc:
            conflicting.add(name)
        refs.append(n)
    for name in conflicting:
        del arrays[name]
    return [r for r in refs if r.name.name in arrays], arrays


def _restrict_ok(nest: c_ast.Node, arrays: dict[str, str], refs: list[c_ast.ArrayRef],
                 fixed: Callable[[str], bool]) -> bool:
    if not all(fixed(name) for name in arrays):
        return False
    inside = {id(n) for r in refs for n in walk(r.subscript)}
    bases = {id(r.name) for r in refs}
    for n in walk(nest):
        if isinstance(n, c_ast.FuncCall) and id(n) not in inside:
            if not (isinstance(n.name, c_ast.ID) and n.name.name in _PURE):
                return False
        if isinstance(n, c_ast.ID) and id(n) not in bases and id(n) not in inside \
                and (n.name in arrays or n.name in arrays.values()):
            return False    # the block or its descriptor reached another way
        if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ArrayRef) \
                and id(n.expr.name) in bases:
            return False    # an element's address escapes
    return True


def _pointer_decl(local: str, name: str, elem_type: c_ast.Node, restrict: bool) -> c_ast.Decl:
    quals = "restrict const" if restrict else "const"
    decl = cbuild.stmt(f"int *{quals} {local} = {name};")
    typedecl = copy.deepcopy(elem_type)
    typedecl.declname = local
    decl.type.type = typedecl
    return decl


def hoist(nest: c_ast.Node, elem_type: Callable[[str], c_ast.Node | None],
          fixed: Callable[[str], bool]) -> c_ast.Node:
    """``nest`` with its arrays read through local copies (see the module docstring).
    ``elem_type(name)``: the element TypeDecl of an aligned array (None: leave it alone);
    ``fixed(name)``: a fixed aligned array, not a pointer or parameter."""
    refs, arrays = _accesses(nest)
    arrays = {a: d for a, d in arrays.items() if elem_type(a) is not None}
    refs = [r for r in refs if r.name.name in arrays]
    if not refs:
        return nest
    restrict = _restrict_ok(nest, arrays, refs, fixed)
    decls: list[c_ast.Node] = []
    for name, desc in sorted(arrays.items()):
        decls += cbuild.stmts(f"_xmpacc_array_t _xmpacc_ha_{name} = {desc};", nest.coord)
        decls.append(_pointer_decl(f"_xmpacc_hp_{name}", name, elem_type(name), restrict))
    for r in refs:
        name = r.name.name
        r.name = c_ast.ID(f"_xmpacc_hp_{name}", r.name.coord)
        for n in walk(r.subscript):
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in _MACROS:
                n.args.exprs[0] = c_ast.ID(f"_xmpacc_ha_{name}", n.args.exprs[0].coord)
    for d in decls:
        cbuild.set_coord(d, nest.coord)
    return c_ast.Compound(decls + [nest], nest.coord)
