"""C arrays of variable-length rows in kernels: ``double a[n][m]`` (a VLA), a parameter
``double g[][m]`` or a pointer ``double (*p)[m]``, used by a GPU loop or reduced by one.

A kernel parameter cannot have such a type: NVRTC's C++ has no variable-length arrays, and
in C the row length would have to be a parameter declared before the array.  So the kernel
takes the elements' address and each row extent by value (the host measures them with
sizeof at the launch: a VLA keeps the sizes of its declaration, whatever ``m`` holds now),
and its prologue declares the name again, as C's pointer to rows on the host backend and
as the kernel header's ``_xmpacc_vla`` (the same indexing) in CUDA:

    host:   _xmpacc_launch(..., (void *[]){..., &a_key, &(long long){sizeof(a[0]) / sizeof(a[0][0])}}, ...)
    kernel: (..., double *_xmpacc_v_a, long long _xmpacc_x_a_1)
            #ifdef __CUDACC__
            _xmpacc_vla<double, 1> a(_xmpacc_v_a, _xmpacc_x_a_1);
            #else
            double (*a)[_xmpacc_x_a_1] = (void *) _xmpacc_v_a;
            #endif

The body is left as written (``a[i][j]``, ``&a[i][j]``, ``a[i]`` as a row's first element).
Everything else about the parameter (its kind, its host address) stays as the other
modules made it, so the runtime sees no difference.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.kernel_types import variable_dim
from xmpacc.passes.common.values import Param
from xmpacc.passes.kernel.kernels import pointer_to
from xmpacc.runtime.contract import LAUNCH_VALUE


@dataclass(frozen=True, slots=True)
class Rows:
    """A kernel parameter ``name`` (as the body calls it) that points to variable-length rows."""

    name: str             # the parameter's name: 'a', or '_xmpacc_ra_h' for a reduction array's temporary
    host: str             # the host array that sizeof measures
    elem: c_ast.TypeDecl  # the element type
    extents: int          # the dimensions after the first


def rows(name: str, host: str, decl: c_ast.Decl, constants: frozenset[str]) -> Rows | None:
    """``name``'s Rows when ``decl`` (an array or a pointer to arrays) has a row extent
    that is not a constant, else None."""
    t = decl.type.type if isinstance(decl.type, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None
    extents, variable = 0, False
    while isinstance(t, c_ast.ArrayDecl):
        extents += 1
        variable = variable or t.dim is None or variable_dim(t.dim, constants)
        t = t.type
    if not variable or not isinstance(t, c_ast.TypeDecl):
        return None
    return Rows(name, host, t, extents)


def params(kernel_params: list[Param], found: list[Rows]) -> list[Param]:
    """``kernel_params`` with each of ``found`` taken as its elements' address, followed by
    its row extents (host values: sizeof of the host array's rows)."""
    by_name = {r.name: r for r in found}
    out: list[Param] = []
    for p in kernel_params:
        r = by_name.get(p.name)
        if r is None:
            out.append(p)
            continue
        out.append(replace(p, name=flat(r), decl=pointer_to(r.elem, flat(r))))
        out += extent_params(r)
    return out


def extent_params(r: Rows) -> list[Param]:
    """``r``'s row extents, host values: sizeof of the host array's rows."""
    out = []
    for k in range(1, r.extents + 1):
        extent = cbuild.extent_of(r.host, k, k + 1)
        out.append(Param(_extent(r, k), f"long long {_extent(r, k)}",
                         f"&(long long){{(long long) ({extent})}}", LAUNCH_VALUE, "sizeof(long long)"))
    return out


def elements(r: Rows) -> str:
    """C, in the host's scope: the elements of one row of ``r``'s first dimension."""
    return f"({cbuild.extent_of(r.host, 1, r.extents + 1)})"


def prologue(found: list[Rows]) -> list[str]:
    """The kernel's declarations of the names again (C on the host backend, C++ under NVRTC)."""
    if not found:
        return []
    cxx, c = [], []
    for r in found:
        extents = [_extent(r, k) for k in range(1, r.extents + 1)]
        elem = cbuild.to_c(c_ast.Typename(None, [], None, _named(r.elem, None)))
        cxx.append(f"_xmpacc_vla<{elem}, {r.extents}> {r.name}({flat(r)}, {', '.join(extents)});")
        t: c_ast.Node = _named(r.elem, r.name)
        for x in reversed(extents):
            t = c_ast.ArrayDecl(t, c_ast.ID(x), [])
        t = c_ast.PtrDecl([], t)
        c.append(f"{cbuild.to_c(c_ast.Decl(r.name, [], [], [], [], t, None, None))} = (void *) {flat(r)};")
    return ["#ifdef __CUDACC__", *cxx, "#else", *c, "#endif"]


def routine_parameter(param: c_ast.Decl, constants: frozenset[str]) -> c_ast.Decl:
    """An ``acc routine`` parameter of variable-length rows (``double g[][m]``, as a pointer
    ``double (*g)[m]``) as the kernel header's ``_XMPACC_ROWS_PARAM``: C's declaration on
    the host backend, ``_xmpacc_vla`` in CUDA, which the kernels' own such arrays are
    (``param`` itself for any other parameter)."""
    r = rows(param.name, param.name, param, constants)
    if r is None:
        return param
    elem = cbuild.to_c(c_ast.Typename(None, [], None, _named(r.elem, None)))
    text = f"_XMPACC_ROWS_PARAM({elem}, {r.extents}, {param.name}, {cbuild.to_c(param)})"
    return c_ast.Decl(None, [], [], [], [],
                      c_ast.TypeDecl(None, [], None, c_ast.IdentifierType([text])), None, None)


def flat(r: Rows) -> str:
    """The name of the elements' address."""
    return f"_xmpacc_v_{r.name}"


def _extent(r: Rows, k: int) -> str:
    return f"_xmpacc_x_{r.name}_{k}"


def _named(elem: c_ast.TypeDecl, name: str | None) -> c_ast.TypeDecl:
    t = copy.deepcopy(elem)
    t.declname = name
    return t
