"""Array and section location variables of GPU loops (global-view §5: ``/pos[0:2]/``,
``/k[1][:]/``; XcalableACC §2, §4): every element of such an array becomes a scalar of the
kernel, which tracks scalars only (kernel_locations.py), and the body works on an array of
its own made from them.

    #pragma xmp loop on t[i] reduction(firstmax: v /pos[0:2]/) acc
    for (i = 0; i < N; i++)
      if (a[i] > v) { v = a[i]; for (d = 0; d < 2; d++) pos[d] = c[i][d]; }
->  host: { long long _xmpacc_lkey_0[2] = {0};
            int __xmpacc_le_3_31_0 = pos[0]; int __xmpacc_le_3_31_1 = pos[1]; (... every element)
            <reduce_var_begin>  <the launch: the node's record goes to the tracked scalars>
            pos[0] = __xmpacc_le_3_31_0; pos[1] = __xmpacc_le_3_31_1;   (the section's)
            _xmpacc_loop_reduce_var(..., pos's section, ...); }
    kernel body: { int pos[3]; pos[0] = __xmpacc_le_3_31_0; ... (every element)
                   do <the body> while (0);
                   __xmpacc_le_3_31_0 = pos[0]; __xmpacc_le_3_31_1 = pos[1]; }   (the section's)

The reduction over the nodes stays the host loop's, on the section itself.  The section's
elements are tracked (watched for change, part of the record); the others start from their
values before the loop in every thread, and what the body writes to them stays in its
thread.  Where a data region holds the array on the device, the located swaps of
acc_comm.loop_reduction_swaps stand around all of this: the scalars start from the device
values and the result goes there.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.varrefs import shape
from xmpacc.section_code import const, value
from xmpacc.symbols import Scope

_MOST = 64   # elements of a location array: each is a kernel parameter


@dataclass(frozen=True, slots=True)
class Element:
    """One element of a location array, as a scalar of the kernel."""

    scalar: str
    array: str
    index: tuple[int, ...]
    decl: str         # C: the scalar's declaration, without initialiser
    tracked: bool     # in a section that a reduction names

    @property
    def host(self) -> str:
        return self.array + "".join(f"[{k}]" for k in self.index)


@dataclass
class _Array:
    decl: c_ast.Decl
    extents: list[int]
    elements: dict[tuple[int, ...], Element]


def scalarize(loop: xd.Loop, body: c_ast.For, scope: Scope) -> tuple[xd.Loop, tuple[Element, ...]]:
    """``loop`` with each array or section location variable replaced by its section's
    scalars (declared in ``scope`` for the kernel passes), and the elements of those arrays;
    the body of ``body`` (the kernel's innermost loop) works on arrays made from them."""
    arrays: dict[str, _Array] = {}
    reductions = []
    for red in loop.reductions:
        variables = []
        for var in red.variables:
            locations: list[xd.VarRef] = []
            for ref in var.locations:
                found = scope.find_c(ref.name.name)
                if found is None or scope.find_array(ref.name.name) is not None or \
                        not isinstance(found[1].type, c_ast.ArrayDecl):
                    locations.append(ref)   # a scalar (or an error that kernel_locations reports)
                    continue
                array = arrays.get(ref.name.name)
                if array is None:
                    array = arrays[ref.name.name] = _array(ref, found[1], scope)
                section = []
                for index in section_indices(ref, array.extents):
                    e = array.elements[index]
                    if e.tracked:
                        raise XmpError(ref.loc, f"'{e.host}' is a location variable of two reductions of "
                                                "this loop: a variable takes part in one reduction")
                    array.elements[index] = e = dataclasses.replace(e, tracked=True)
                    section.append(xd.VarRef(xd.Name(e.scalar, ref.name.loc), None, ref.loc))
                locations += section
            variables.append(dataclasses.replace(var, locations=tuple(locations)))
        reductions.append(dataclasses.replace(red, variables=tuple(variables)))
    if not arrays:
        return loop, ()
    for array in arrays.values():
        _wrap(body, array)
    elements = tuple(e for array in arrays.values() for e in array.elements.values())
    return dataclasses.replace(loop, reductions=tuple(reductions)), elements


def host_text(elements: tuple[Element, ...]) -> tuple[str, str]:
    """C text: the scalars' declarations from the elements (before the launch), and the
    tracked elements from their scalars (after it, before the reduction over the nodes)."""
    return ("".join(f"{e.decl} = {e.host};" for e in elements),
            "".join(f"{e.host} = {e.scalar};" for e in elements if e.tracked))


def _array(ref: xd.VarRef, decl: c_ast.Decl, scope: Scope) -> _Array:
    """The array's elements as scalars, declared in ``scope``; none tracked yet."""
    name = ref.name.name
    extents = constant_extents(decl)
    if any(n is None or n <= 0 for n in extents):
        raise XmpError(ref.name.loc, f"'{name}' is a location variable of a GPU loop: its extents must be "
                                     "constants")
    total = math.prod(extents)
    if total > _MOST:
        raise XmpError(ref.name.loc, f"'{name}' has {total} elements; a location array of a GPU loop has at "
                                     f"most {_MOST} (each element is a kernel parameter)")
    line, col = ref.name.loc.line, ref.name.loc.col
    _rank, elem_type = shape(decl)
    elements = {}
    for k, index in enumerate(itertools.product(*(range(n) for n in extents))):
        scalar = f"__xmpacc_le_{line}_{col}_{k}"
        t = copy.deepcopy(elem_type)
        t.declname = scalar
        made = c_ast.Decl(scalar, [], [], [], [], t, None, None, decl.coord)
        scope.c_decls[scalar] = made   # what the kernel passes find when they look it up
        elements[index] = Element(scalar, name, index, cbuild.to_c(made), False)
    return _Array(decl, extents, elements)


def constant_extents(decl: c_ast.Decl) -> list[int | None]:
    """The extents of an array's dimensions, None where one is not a constant."""
    extents = []
    t = decl.type
    while isinstance(t, c_ast.ArrayDecl):
        extents.append(const(t.dim))
        t = t.type
    return extents


def section_indices(ref: xd.VarRef, extents: list[int]) -> list[tuple[int, ...]]:
    """The indices of the elements of the section ``ref`` (trailing dimensions whole); an
    error where a bound is not a constant or the section leaves the array."""
    subs = ref.subs or ()
    if len(subs) > len(extents):
        raise XmpError(ref.loc, f"'{ref.name.name}' has {len(extents)} dimension(s) but {len(subs)} "
                                "subscript(s) are given")
    ranges = [_range(sub, n, ref) for sub, n in zip(subs, extents, strict=False)] \
        + [range(n) for n in extents[len(subs):]]
    return list(itertools.product(*ranges))


def _range(sub: xd.VarSub, n: int, ref: xd.VarRef) -> range:
    if isinstance(sub, xd.Expr):
        k = value(sub.text)
        if k is None or not 0 <= k < n:
            raise XmpError(ref.loc, f"the subscript '{sub.text}' of location variable '{ref.name.name}' must "
                                    f"be a constant in 0..{n - 1} on a GPU loop")
        return range(k, k + 1)
    base = value(sub.base.text) if sub.base is not None else 0
    length = value(sub.length.text) if sub.length is not None else None
    step = value(sub.step.text) if sub.step is not None else 1
    if base is None or step is None or step <= 0 or (sub.length is not None and length is None):
        raise XmpError(ref.loc, f"the section of location variable '{ref.name.name}' must have "
                                "constant bounds on a GPU loop")
    length = (n - base + step - 1) // step if length is None else length
    if base < 0 or length < 0 or base + (length - 1) * step >= n:
        raise XmpError(ref.loc, f"the section of location variable '{ref.name.name}' lies outside its "
                                f"{n} elements")
    return range(base, base + length * step, step)


def _wrap(body: c_ast.For, array: _Array) -> None:
    """The body on an array of its own, made from the scalars, whose tracked elements go
    back to theirs at the end (a ``continue`` ends the do-while, so it still gets there)."""
    local = copy.deepcopy(array.decl)
    local.storage, local.funcspec, local.init = [], [], None
    elements = array.elements.values()
    text = (f"{cbuild.to_c(local)}; " + " ".join(f"{e.host} = {e.scalar};" for e in elements)
            + " do ; while (0); "
            + " ".join(f"{e.scalar} = {e.host};" for e in elements if e.tracked))
    items = cbuild.stmts(text, body.stmt.coord)
    items[1 + len(elements)].stmt = body.stmt
    body.stmt = c_ast.Compound(items, body.stmt.coord)
