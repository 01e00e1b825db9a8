"""Templates and distributed arrays as the runtime sees them.

``Template`` keeps one ``DimDistribution`` per dimension and the node dimension each is
distributed onto; ``DistArray`` keeps the local buffer (a numpy byte array, so host C
writes straight into memory the runtime can send) and one ``ArrayDimLayout`` per
dimension.  Both fill the C descriptors that generated code reads.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cstructs import CArray, CTemplate, set_fields
from .distribution import OUTSIDE, ArrayDimLayout, DimDistribution, DistributionError
from .errors import RuntimeFailure
from .nodes import Nodes

KIND_NAMES = {2100: "none", 2101: "block", 2102: "cyclic", 2103: "gblock"}


@dataclass
class Template:
    name: str
    bounds: list[tuple[int, int]] | None          # None: unfixed until template_fix
    nodes: Nodes | None = None
    dims: list[DimDistribution] = field(default_factory=list)
    node_dims: list[int] = field(default_factory=list)   # -1 for '*'
    # a distribute that waits for template_fix (dynamic.py): (nodes, kinds, widths, maps)
    pending: tuple | None = None

    def coord(self, t: int) -> int:
        """This node's coordinate along the node dimension of template dimension t
        (OUTSIDE on a node that is not in the node array, a subset)."""
        nd = self.node_dims[t]
        if nd < 0 or self.nodes is None:
            return 0
        coords = self.nodes.coords
        return OUTSIDE if coords is None else coords[nd]

    def distribute(self, nodes: Nodes, kinds: list[int], widths: list[int],
                   gblock_maps: list[tuple[int, ...]], where: str, cstruct: CTemplate) -> None:
        assert self.bounds is not None
        self.nodes, self.dims, self.node_dims = nodes, [], []
        next_node_dim = 0
        for t, (lo, hi) in enumerate(self.bounds):
            kind = KIND_NAMES[kinds[t]]
            nd = -1 if kind == "none" else next_node_dim
            next_node_dim += kind != "none"
            nprocs = 1 if nd < 0 else nodes.extents[nd]
            try:
                dist = DimDistribution(kind, lo, hi, nprocs, widths[t] if kind == "cyclic" else 1,
                                       gblock_maps[t] if kind == "gblock" else (),
                                       widths[t] if kind == "block" else 0)
            except DistributionError as e:
                raise RuntimeFailure(where, f"template '{self.name}' dimension {t}: {e}",
                                     collective=True) from None
            self.dims.append(dist)
            self.node_dims.append(nd)
            fields = _tdim_fields(dist, self.coord(t))
            fields["node_dim"] = nd
            set_fields(cstruct.dim[t], fields)
        cstruct.distributed = 1


def _tdim_fields(dist: DimDistribution, k: int) -> dict[str, int]:
    """The C descriptor of one template dimension; a node outside the node array owns
    nothing: its coordinate is past the last one, so no formula of xmpacc_dist.h finds an
    owned index (owned_first past the template keeps count_below at 0)."""
    if k != OUTSIDE:
        return dist.tdim_fields(k)
    fields = dist.tdim_fields(0)
    fields.update(coord=dist.nprocs, owned_count=0, owned_first=dist.upper + 1)
    return fields


@dataclass
class DistArray:
    name: str
    template: Template
    elem_size: int
    layouts: list[ArrayDimLayout]
    tdims: list[int]
    buffer: np.ndarray            # uint8, local_elems * elem_size bytes
    reflect_plans: dict = field(default_factory=dict)   # reflect.py: widths -> steps
    persistent: Any = None        # shadows.py: the reflect_init plan

    @functools.cached_property
    def addr(self) -> int:
        """The local block's address (``buffer`` never changes): the runtime looks arrays
        up by it at every call of a function with aligned parameters."""
        return int(self.buffer.ctypes.data)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(lay.lext for lay in self.layouts)

    def bytes_view(self) -> np.ndarray:
        """The local buffer as an array of shape (lext0, ..., lext_{r-1}, elem_size)."""
        return self.buffer.reshape(self.shape + (self.elem_size,))

    def layout_of(self, dim: int, coord: int) -> ArrayDimLayout:
        """Dimension ``dim`` as node coordinate ``coord`` (along its node dimension) holds it."""
        lay = self.layouts[dim]
        return ArrayDimLayout(lay.dist, lay.extent, lay.offset, lay.shadow_lo, lay.shadow_hi,
                              lay.full_shadow, coord)


def make_array(name: str, tmpl: Template, elem_size: int, extents: list[int], tdims: list[int],
               offsets: list[int], shadows: list[int], where: str, cstruct: CArray,
               base: int = 0, allocate: Callable[[int], int] | None = None) -> DistArray:
    """The local block (allocated, by ``allocate(nbytes)`` if given, or the memory at
    ``base``: an aligned parameter) and the descriptor of an aligned array."""
    layouts = []
    for k, ext in enumerate(extents):
        t = tdims[k]
        lo, hi = shadows[2 * k], shadows[2 * k + 1]
        full = lo == -1 and hi == -1
        try:
            layouts.append(ArrayDimLayout(tmpl.dims[t] if t >= 0 else None, ext, offsets[k],
                                          0 if full else lo, 0 if full else hi, full,
                                          tmpl.coord(t) if t >= 0 else 0))
        except DistributionError as e:
            raise RuntimeFailure(where, f"array '{name}' dimension {k}: {e}", collective=True) from None
    nelem = 1
    for lay in layouts:
        nelem *= lay.lext
    if not base and allocate is not None:
        base = allocate(max(nelem * elem_size, 1))
    buffer = _zeros_between_guards(max(nelem * elem_size, 1)) if not base else \
        np.ctypeslib.as_array((ctypes.c_uint8 * max(nelem * elem_size, 1)).from_address(base))
    arr = DistArray(name, tmpl, elem_size, layouts, list(tdims), buffer[: nelem * elem_size])
    cstruct.ndims, cstruct.elem_size, cstruct.local_elems = len(extents), elem_size, nelem
    cstruct.base = buffer.ctypes.data
    for k, lay in enumerate(layouts):
        fields = lay.adim_fields()
        fields["tdim"] = tdims[k]
        set_fields(cstruct.dim[k], fields)
    return arr


GUARD = 64   # zero bytes on each side of an allocated local block


def _zeros_between_guards(nbytes: int) -> np.ndarray:
    """A zeroed local block with GUARD zero bytes before and after it: a program that
    steps one element past its block (a missing shadow, the labs' classic mistake) reads
    zeros, the same on every run, rather than whatever the allocator keeps there, and its
    stray stores land in the guard, not in the allocator's bookkeeping.  The view keeps
    the whole allocation alive."""
    return np.zeros(nbytes + 2 * GUARD, dtype=np.uint8)[GUARD: GUARD + nbytes]


def read_longs(ptr: int, n: int) -> list[int]:
    return list((ctypes.c_longlong * n).from_address(ptr)) if n else []


def read_ints(ptr: int, n: int) -> list[int]:
    return list((ctypes.c_int * n).from_address(ptr)) if n else []
