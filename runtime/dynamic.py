"""The contract entries of dynamic global data and of the library (global-view §4, §8, §9).

* ``template_fix``: an unfixed template (``t[:]``) or a ``gblock(*)`` distribution waits
  in ``Template.pending`` until the fix gives its bounds and maps;
* aligned pointers: ``_xmpacc_align_pointer`` records the mapping (``PointerMap``),
  ``_xmpacc_malloc`` (xmp_malloc, or an aligned parameter with the caller's block) makes
  the ``DistArray``, ``_xmpacc_free`` releases it;
* releases at the end of a block (nodes, templates, objects with aligned members), the
  descriptor counter ``stats["descriptors"]`` (XMPACC_STATS=1 prints it), and the queries
  the C library cannot answer from the descriptors alone.

``DynamicRuntime`` is mixed into ``api.Runtime``.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from .arrays import DistArray, Template, make_array, read_ints, read_longs
from .cstructs import DESC_ARRAY, CArray, CNodes, CTemplate
from .errors import RuntimeFailure, where_text
from .nodes import Nodes


@dataclass(frozen=True)
class PointerMap:
    """The align of an aligned pointer or parameter, waiting for its extents."""

    name: str
    where: str
    tmpl_ptr: int
    elem_size: int
    tdims: list[int]
    offsets: list[int]
    shadows: list[int]


def set_bounds(c: CTemplate, bounds: list[tuple[int, int]] | None) -> None:
    """What the C side knows of a template before it is distributed: its bounds."""
    c.fixed = int(bounds is not None)
    for t, (lo, hi) in enumerate(bounds or []):
        c.dim[t].lower, c.dim[t].upper = lo, hi


def check_bounds(name: str, bounds: list[tuple[int, int]], where: str) -> None:
    for lo, hi in bounds:
        if lo > hi:
            raise RuntimeFailure(where, f"template '{name}' has lower bound {lo} > upper bound {hi}",
                                 collective=True)


class DynamicRuntime:
    nodes: dict[int, Nodes]
    templates: dict[int, Template]
    arrays: dict[int, DistArray]
    pointers: dict[int, PointerMap]
    stats: dict[str, int]
    exec_stack: list[Any]

    def _count_descriptors(self) -> None:
        self.stats["descriptors"] = len(self.nodes) + len(self.templates) + \
            len(self.arrays.keys() | self.pointers.keys())

    def find_array(self, ptr: int) -> DistArray | None:
        """The array of a descriptor; a copy of one (a structure object passed by value
        carries its members' descriptors) finds the array whose block it describes."""
        arr = self.arrays.get(ptr)
        if arr is not None or not ptr:
            return arr
        c = CArray.from_address(ptr)
        base = int(c.base or 0)
        if c.id != DESC_ARRAY or not base:
            return None
        return next((a for a in self.arrays.values() if int(a.buffer.ctypes.data) == base), None)

    # ----------------------------------------------------------------- block ends
    def _xmpacc_nodes_release(self, ptr: int) -> None:
        if self.nodes.pop(ptr, None) is not None:
            CNodes.from_address(ptr).id = 0
        self._count_descriptors()

    def _xmpacc_template_release(self, ptr: int) -> None:
        if self.templates.pop(ptr, None) is not None:
            c = CTemplate.from_address(ptr)
            c.id, c.distributed, c.fixed = 0, 0, 0
        self._count_descriptors()

    def _xmpacc_release_range(self, base: int, nbytes: int) -> None:
        for ptr in [p for p in (*self.arrays, *self.pointers) if base <= p < base + nbytes]:
            self._release_array(ptr)

    def _release_array(self, ptr: int) -> None:
        self._fast_forget(ptr)
        self.pointers.pop(ptr, None)
        if self.arrays.pop(ptr, None) is not None:
            c = CArray.from_address(ptr)
            c.base, c.id = None, 0
        self._count_descriptors()

    # ----------------------------------------------------------------- template_fix
    def defer_distribute(self, tmpl: Template, nodes: Nodes, kinds: list[int], widths: list[int],
                         maps: list[tuple[int, ...] | None]) -> bool:
        """A distribute that must wait for template_fix (unfixed bounds, gblock(*))."""
        if tmpl.bounds is not None and all(m is not None for m in maps):
            return False
        tmpl.pending = (nodes, kinds, widths, maps)
        return True

    def _xmpacc_template_fix(self, ptr: int, where: bytes, bounds: int | None, maps: int | None) -> None:
        w = where_text(where)
        tmpl = self.templates.get(ptr)
        if tmpl is None:
            raise RuntimeFailure(w, "template_fix before the template directive ran", collective=True)
        c = CTemplate.from_address(ptr)
        if c.distributed or (bounds and tmpl.bounds is not None):
            raise RuntimeFailure(w, f"template '{tmpl.name}' is already fixed", collective=True)
        if tmpl.pending is None:
            raise RuntimeFailure(w, f"template '{tmpl.name}' is fixed before its distribute directive ran",
                                 collective=True)
        nd = c.ndims
        if bounds:
            b = read_longs(bounds, 2 * nd)
            tmpl.bounds = [(b[2 * t], b[2 * t + 1]) for t in range(nd)]
            check_bounds(tmpl.name, tmpl.bounds, w)
            set_bounds(c, tmpl.bounds)
        nodes, kinds, widths, pending_maps = tmpl.pending
        given = list((ctypes.c_void_p * nd).from_address(maps)) if maps else [None] * nd
        gblocks, node_dim = [], 0
        for t in range(nd):
            if given[t]:
                gblocks.append(tuple(read_ints(given[t], nodes.extents[node_dim])))
            else:
                gblocks.append(pending_maps[t])
            node_dim += kinds[t] != 2100
        if any(m is None for m in gblocks):
            raise RuntimeFailure(w, f"template '{tmpl.name}' is distributed with gblock(*) but template_fix "
                                    "gives no map", collective=True)
        tmpl.pending = None
        tmpl.distribute(nodes, kinds, widths, [m or () for m in gblocks], w, c)

    # ----------------------------------------------------------------- aligned pointers
    def _xmpacc_align_pointer(self, ptr: int, where: bytes, name: bytes, tmpl_ptr: int, elem_size: int,
                              ndims: int, tdims: int, offsets: int, shadows: int) -> None:
        self._release_array(ptr)   # a block entered again: its previous block is gone
        self.pointers[ptr] = PointerMap(name.decode(), where_text(where), tmpl_ptr, elem_size,
                                        read_ints(tdims, ndims), read_longs(offsets, ndims),
                                        read_longs(shadows, 2 * ndims))
        c = CArray.from_address(ptr)
        c.id, c.ndims, c.elem_size, c.base = 0, ndims, elem_size, None
        c.tmpl = ctypes.cast(tmpl_ptr, ctypes.POINTER(CTemplate))
        self._count_descriptors()

    def _xmpacc_malloc(self, ptr: int, where: bytes, n: int, extents: int, base: int | None) -> int:
        w = where_text(where)
        pmap = self.pointers.get(ptr)
        if pmap is None:
            what = f"'{self.arrays[ptr].name}', which is not an aligned pointer" if ptr in self.arrays else \
                "a descriptor that is not the one of an aligned pointer (xmp_desc_of(p) after its align)"
            raise RuntimeFailure(w, f"xmp_malloc of {what}")
        if n != len(pmap.tdims):
            raise RuntimeFailure(w, f"xmp_malloc gives {n} extent(s) for the {len(pmap.tdims)}-dimensional "
                                    f"array '{pmap.name}'")
        tmpl = self.templates.get(pmap.tmpl_ptr)
        if tmpl is None or not CTemplate.from_address(pmap.tmpl_ptr).distributed:
            name = tmpl.name if tmpl is not None else "?"
            raise RuntimeFailure(w, f"template '{name}' is not fixed yet (xmp_malloc of '{pmap.name}', which "
                                    "is aligned with it)", collective=True)
        self.arrays.pop(ptr, None)   # xmp_malloc again: the old block goes
        c = CArray.from_address(ptr)
        arr = make_array(pmap.name, tmpl, pmap.elem_size, read_longs(extents, n), pmap.tdims, pmap.offsets,
                         pmap.shadows, w, c, base or 0)
        c.id = DESC_ARRAY
        c.tmpl = ctypes.cast(pmap.tmpl_ptr, ctypes.POINTER(CTemplate))
        if base:
            self._check_argument(arr, base, w)
        self._fast_forget(ptr)
        self.arrays[ptr] = arr
        self._count_descriptors()
        return int(c.base or 0)

    def _check_argument(self, param: DistArray, base: int, where: str) -> None:
        """An aligned parameter must be mapped as the array passed to it (XMP requires it;
        a different shadow or template would shift every index silently)."""
        def layout(a: DistArray) -> list[tuple[int, int]]:
            return [(lay.lext, lay.gtol) for lay in a.layouts]

        actual = next((a for a in self.arrays.values() if int(a.buffer.ctypes.data) == base), None)
        if actual is not None and layout(actual) != layout(param):
            raise RuntimeFailure(where, f"the aligned parameter '{param.name}' is not mapped like the array "
                                        f"'{actual.name}' passed to it: their local blocks differ (align, "
                                        "shadow or extents)")

    def _xmpacc_free(self, base: int | None, where: bytes) -> None:
        if not base:
            return
        for ptr, arr in list(self.arrays.items()):
            if ptr in self.pointers and int(arr.buffer.ctypes.data) == base:
                self.arrays.pop(ptr)
                c = CArray.from_address(ptr)
                c.base, c.id = None, 0
                self._count_descriptors()
                return
        raise RuntimeFailure(where_text(where), "xmp_free of a pointer that xmp_malloc did not return (or "
                                                "that was freed already)")

    def _xmpacc_not_ready(self, desc: int, where: bytes) -> int:
        """An access before xmp_malloc (one node may make it) or a directive on a template
        before template_fix (all nodes do)."""
        raise self.not_ready(desc, where_text(where), collective=desc in self.templates)

    def not_ready(self, desc: int, where: str, collective: bool) -> RuntimeFailure:
        if desc in self.templates:
            return RuntimeFailure(where, f"template '{self.templates[desc].name}' is not fixed yet",
                                  collective)
        pmap = self.pointers.get(desc)
        if pmap is None:
            return RuntimeFailure(where, "distributed array used before its align directive ran", collective)
        tmpl = self.templates.get(pmap.tmpl_ptr)
        if tmpl is not None and not CTemplate.from_address(pmap.tmpl_ptr).distributed:
            return RuntimeFailure(where, f"template '{tmpl.name}' is not fixed yet ('{pmap.name}' is aligned "
                                         "with it)", collective)
        return RuntimeFailure(where, f"'{pmap.name}' is not allocated: call xmp_malloc before using it",
                              collective)

    # ----------------------------------------------------------------- library queries
    def _xmpacc_gblock_map(self, tmpl_ptr: int, tdim: int, out: int) -> int:
        tmpl = self.templates.get(tmpl_ptr)
        if tmpl is None or not tmpl.dims or not 0 <= tdim < len(tmpl.dims) \
                or tmpl.dims[tdim].kind != "gblock":
            return -1
        sizes = tmpl.dims[tdim].gblock
        (ctypes.c_int * len(sizes)).from_address(out)[:] = list(sizes)
        return 0

    def _xmpacc_mpi_comm(self) -> int:
        handle = int(self.exec_stack[-1].comm.handle) & 0xFFFFFFFFFFFFFFFF
        return handle - (1 << 64) if handle >= 1 << 63 else handle   # a C long long

    def _xmpacc_mpi_thread_level(self) -> int:
        from mpi4py import MPI

        return int(MPI.Query_thread())
