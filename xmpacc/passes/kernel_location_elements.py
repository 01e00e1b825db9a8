"""Array and section location variables of GPU loops (global-view §5: ``/pos[0:2]/``,
``/k[1][:]/``; XcalableACC §2, §4): each element of the section becomes a scalar for the
kernel, which tracks scalars only (kernel_locations.py).

    #pragma xmp loop on t[i] reduction(firstmax: v /pos[0:2]/) acc
    for (i = 0; i < N; i++)
      if (a[i] > v) { v = a[i]; pos[0] = i; pos[1] = b[i]; }
->  { long long _xmpacc_lkey_0[2] = {0};
      int __xmpacc_le_3_31_0 = pos[0]; int __xmpacc_le_3_31_1 = pos[1];
      <reduce_var_begin>  <the launch: the kernel's body reads and writes the scalars,
                           the node's record goes to them>
      pos[0] = __xmpacc_le_3_31_0; pos[1] = __xmpacc_le_3_31_1;
      _xmpacc_loop_reduce_var(..., pos's section, ...); }

The reduction over the nodes stays the host loop's, on the section itself.  The body may
name the array's elements with constant subscripts only, each inside the section (the
elements it tracks); anything else is an error at its use.  Where a data region holds the
array on the device, the located swaps of acc_comm.loop_reduction_swaps stand around all of
this: the scalars start from the device values and the result goes there.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.canonical import loc_of
from xmpacc.passes.varrefs import shape
from xmpacc.section_code import const, value
from xmpacc.symbols import Scope


@dataclass(frozen=True, slots=True)
class Element:
    """One element of a location section, as a scalar of the kernel."""

    scalar: str
    array: str
    index: tuple[int, ...]
    decl: str         # C: the scalar's declaration, without initialiser

    @property
    def host(self) -> str:
        return self.array + "".join(f"[{k}]" for k in self.index)


def scalarize(loop: xd.Loop, body: c_ast.For, scope: Scope) -> tuple[xd.Loop, tuple[Element, ...]]:
    """``loop`` with each array or section location variable replaced by its elements'
    scalars (declared in ``scope`` for the kernel passes), and those elements; the body of
    ``body`` (the kernel's innermost loop) names the scalars instead of the elements."""
    elements: list[Element] = []
    tracked: dict[str, dict[tuple[int, ...], Element]] = {}   # per array, its elements so far
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
                made = _elements(ref, found[1], scope)
                mine = tracked.setdefault(ref.name.name, {})
                twice = next((e for e in made if e.index in mine), None)
                if twice is not None:
                    raise XmpError(ref.loc, f"'{twice.host}' is a location variable of two reductions of this "
                                            "loop: a variable takes part in one reduction")
                mine.update((e.index, e) for e in made)
                elements += made
                locations += [xd.VarRef(xd.Name(e.scalar, ref.name.loc), None, ref.loc) for e in made]
            variables.append(dataclasses.replace(var, locations=tuple(locations)))
        reductions.append(dataclasses.replace(red, variables=tuple(variables)))
    for name, scalars in tracked.items():   # once per array: the body's elements of every section
        _rewrite(body, name, len(next(iter(scalars))), scalars)
    if not elements:
        return loop, ()
    return dataclasses.replace(loop, reductions=tuple(reductions)), tuple(elements)


def host_text(elements: tuple[Element, ...]) -> tuple[str, str]:
    """C text: the scalars' declarations from the elements (before the launch), and the
    elements from the scalars (after it, before the reduction over the nodes)."""
    return ("".join(f"{e.decl} = {e.host};" for e in elements),
            "".join(f"{e.host} = {e.scalar};" for e in elements))


def _elements(ref: xd.VarRef, decl: c_ast.Decl, scope: Scope) -> list[Element]:
    name = ref.name.name
    extents = []
    t = decl.type
    while isinstance(t, c_ast.ArrayDecl):
        n = const(t.dim)
        if n is None or n <= 0:
            raise XmpError(ref.name.loc, f"'{name}' is a location variable of a GPU loop: its extents must be "
                                         "constants")
        extents.append(n)
        t = t.type
    subs = ref.subs or ()
    if len(subs) > len(extents):
        raise XmpError(ref.loc, f"'{name}' has {len(extents)} dimension(s) but {len(subs)} subscript(s) are given")
    ranges = [_range(sub, n, ref) for sub, n in zip(subs, extents)] + [range(n) for n in extents[len(subs):]]
    line, col = ref.name.loc.line, ref.name.loc.col
    _rank, elem_type = shape(decl)
    elements = []
    for k, index in enumerate(itertools.product(*ranges)):
        scalar = f"__xmpacc_le_{line}_{col}_{k}"
        t = copy.deepcopy(elem_type)
        t.declname = scalar
        made = c_ast.Decl(scalar, [], [], [], [], t, None, None, decl.coord)
        scope.c_decls[scalar] = made   # what the kernel passes find when they look it up
        elements.append(Element(scalar, name, index, cbuild.to_c(made)))
    return elements


def _range(sub: xd.VarSub, n: int, ref: xd.VarRef) -> range:
    if isinstance(sub, xd.Expr):
        k = value(sub.text)
        if k is None or not 0 <= k < n:
            raise XmpError(ref.loc, f"the subscript '{sub.text}' of location variable '{ref.name.name}' must be a "
                                    f"constant in 0..{n - 1} on a GPU loop")
        return range(k, k + 1)
    base = value(sub.base.text) if sub.base is not None else 0
    length = value(sub.length.text) if sub.length is not None else None
    step = value(sub.step.text) if sub.step is not None else 1
    if base is None or step is None or step <= 0 or (sub.length is not None and length is None):
        raise XmpError(ref.loc, f"the section of location variable '{ref.name.name}' must have constant bounds "
                                "on a GPU loop")
    length = (n - base + step - 1) // step if length is None else length
    if base < 0 or length < 0 or base + (length - 1) * step >= n:
        raise XmpError(ref.loc, f"the section of location variable '{ref.name.name}' lies outside its "
                                f"{n} elements")
    return range(base, base + length * step, step)


def _rewrite(body: c_ast.For, name: str, rank: int, scalars: dict[tuple[int, ...], Element]) -> None:
    """The body names each tracked element's scalar; any other use of ``name`` is an error."""
    def element(node: c_ast.Node) -> c_ast.Node | None:
        index: list[int | None] = []
        base = node
        while isinstance(base, c_ast.ArrayRef):
            index.insert(0, const(base.subscript))
            base = base.name
        if not (isinstance(base, c_ast.ID) and base.name == name and len(index) == rank):
            return None
        e = scalars.get(tuple(index)) if None not in index else None   # type: ignore[arg-type]
        return c_ast.ID(e.scalar, node.coord) if e is not None else None

    body.stmt = cbuild.transform(body.stmt, element)
    fields = {id(n.field) for n in cbuild.walk(body.stmt) if isinstance(n, c_ast.StructRef)}
    left = next((n for n in cbuild.walk(body.stmt) if isinstance(n, c_ast.ID) and n.name == name
                 and id(n) not in fields), None)
    if left is not None:
        raise XmpError(loc_of(left), f"'{name}' is a location variable of this GPU loop: the body may name only "
                                     f"the elements of '{name}' that it tracks, with constant subscripts "
                                     f"(as in {next(iter(scalars.values())).host})")
