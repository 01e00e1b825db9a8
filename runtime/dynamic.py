"""The contract entries of dynamic global data and of the library (global-view §4, §8, §9).

* ``template_fix``: an unfixed template (``t[:]``) or a ``gblock(*)`` distribution waits
  in ``Template.pending`` until the fix gives its bounds and maps;
* aligned pointers: ``_xmpacc_align_pointer`` records the mapping (``PointerMap``),
  ``_xmpacc_malloc`` (xmp_malloc, or an aligned parameter with the caller's block) makes
  the ``DistArray``, ``_xmpacc_free`` releases it;
* xmp_malloc's blocks come from C's calloc, as Omni's come from malloc, so that a program
  may release one with ``free(p)``.  The program is linked with ``--wrap=free``
  (xmpacc_library.c): a ``free`` of the program whose address is one of the blocks (the C
  table ``_xmpacc_live_bases``) first calls ``_xmpacc_forget_block``, which drops the array
  (its descriptor then says "not allocated"), and C frees it; the runtime frees a block
  itself only when the program has not (xmp_free, xmp_malloc again, the end of the
  block of a block-scope pointer), so nothing is freed twice and no view of freed
  memory stays;
* releases at the end of a block (nodes, templates, objects with aligned members), the
  descriptor counter ``stats["descriptors"]`` (XMPACC_STATS=1 prints it), and the queries
  the C library cannot answer from the descriptors alone.

``Dynamic`` is the concern of ``api.Runtime`` that owns the aligned pointers and the
blocks; the descriptor tables it changes are the shared ones (shared.py).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .arrays import GUARD, DistArray, Template, make_array, read_ints, read_longs
from .cstructs import DESC_ARRAY, CArray, CNodes, CTemplate
from .errors import RuntimeFailure, where_text
from .nodes import Nodes
from .shared import Shared

_LIVE_MAX = 64   # the C table of their addresses (_XMPACC_LIVE_MAX, xmpacc_library.c)
_PARAMETERS_KEPT = 64   # aligned parameters' views kept for the next call (Dynamic._parameter_key)

# libc's calloc and free (the program's free() is libc's too, under the wrap)
_LIBC = ctypes.CDLL(None)
_calloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)(("calloc", _LIBC))
_free = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(("free", _LIBC))


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


class Dynamic:
    """Template fixes, aligned pointers, xmp_malloc's blocks, releases and the library's
    queries.  ``forget`` drops what the C fast path keeps of a descriptor (fast_reflect.py),
    ``layout_changed`` the C plans that a new distribution may change (replay.py)."""

    def __init__(self, shared: Shared, forget: Callable[[int], None],
                 layout_changed: Callable[[], None]) -> None:
        self.shared = shared
        self.nodes, self.templates, self.arrays = shared.nodes, shared.templates, shared.arrays
        self.forget, self.layout_changed = forget, layout_changed
        self.pointers: dict[int, PointerMap] = {}   # aligned pointers waiting for xmp_malloc
        self.c_blocks: dict[int, int] = {}   # xmp_malloc's blocks from calloc not freed yet -> descriptor
        self.live_blocks: Any = None         # the C count and table of them (None: not bound, launcher.py)
        # aligned parameters' views by what they depend on (_parameter_key) -> (array, descriptor bytes)
        self.parameters: dict[tuple[Any, ...], tuple[DistArray, bytes]] = {}
        # the descriptors of aligned parameters' views -> the block each describes: a view
        # goes with its block (_drop_block), since a static_desc parameter's descriptor
        # outlives the call and is kept while the caller passes the same block
        self.views: dict[int, int] = {}
        # the C side's plans of parameters' views (replay_params.py): told when templates or
        # node sets change and when an array's block goes (a view may be another then), when
        # Python makes a view and when it aligns or releases a descriptor itself
        self.generation_changed: Callable[[], None] = lambda: None
        self.block_gone: Callable[[int], None] = lambda base: None
        self.view_made: Callable[[int, PointerMap, int, list[int], DistArray], None] = lambda *a: None
        self.python_made: Callable[[int], None] = lambda ptr: None

    def bind_blocks(self, lib: Any) -> None:
        """The launcher hands over the program: its free() asks the runtime for the
        addresses it finds in this table (xmpacc_library.c)."""
        bases = (ctypes.c_void_p * _LIVE_MAX).in_dll(lib, "_xmpacc_live_bases")
        self.live_blocks = (ctypes.c_int.in_dll(lib, "_xmpacc_live_blocks"), bases)
        self._blocks_changed()

    def _c_block(self, ptr: int, nbytes: int, where: str) -> int:
        """A block for the descriptor ``ptr``, which owns it (an aligned parameter's
        descriptor only describes the caller's)."""
        # zeros after the block as after the others (arrays.py): one step past its end
        # reads 0; none before it, where free() must find what calloc returned
        base = _calloc(1, nbytes + GUARD)
        if not base:
            raise RuntimeFailure(where, f"xmp_malloc: out of memory (a local block of {nbytes} bytes)")
        self.c_blocks[int(base)] = ptr
        self._blocks_changed()
        return int(base)

    def _blocks_changed(self) -> None:
        if self.live_blocks is None:
            return
        count, bases = self.live_blocks
        for k, base in enumerate(list(self.c_blocks)[:_LIVE_MAX]):
            bases[k] = base
        count.value = len(self.c_blocks)

    def _drop_block(self, ptr: int, free: bool, write: bool = True) -> None:
        """Forget the array of descriptor ``ptr`` (its descriptor says "not allocated"
        afterwards, unless not ``write``: a parameter's descriptor C released, whose
        function has returned) and, with ``free``, free its block if it is a calloc'ed one."""
        self.forget(ptr)
        arr = self.arrays.pop(ptr, None)
        if arr is None:
            return
        if arr.persistent is not None:   # reflect_init's requests on the block
            arr.persistent.free()
        if write:
            c = CArray.from_address(ptr)
            c.base, c.id = None, 0
        if self.views.pop(ptr, None) is None:   # the block's own array: its views go too
            for view in [v for v, b in self.views.items() if b == arr.addr]:
                self._drop_block(view, free=False)
            self.block_gone(arr.addr)
        base = int(arr.buffer.ctypes.data)
        if self.c_blocks.get(base) == ptr:
            del self.c_blocks[base]
            self._blocks_changed()
            if free:
                _free(base)

    def _xmpacc_forget_block(self, base: int | None) -> None:
        """``free(p)`` in the program (the wrap in xmpacc_library.c): if ``p`` is an
        xmp_malloc block, the array goes; C frees the memory after this returns."""
        if base not in self.c_blocks:
            return
        # the owner, and the aligned parameters that describe the block
        for ptr in [q for q, arr in self.arrays.items() if arr.addr == base]:
            self._drop_block(ptr, free=False)
        self.c_blocks.pop(base, None)
        self._blocks_changed()
        self.count_descriptors()

    def count_descriptors(self, layout: bool = False) -> None:
        """The stats' count; a node set or template made or gone (``layout``) may change
        what the C side's parameter views hold."""
        self.shared.stats["descriptors"] = len(self.nodes) + len(self.templates) + \
            len(self.arrays.keys() | self.pointers.keys())
        if layout:
            self.generation_changed()

    def view_again(self, ptr: int, arr: DistArray, base: int) -> None:
        """Descriptor ``ptr`` holds the parameter view ``arr`` of block ``base`` (as
        _xmpacc_malloc leaves it), made in C (replay_params.py)."""
        self.forget(ptr)
        self.arrays[ptr] = arr
        self.views[ptr] = base

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
        return self._array_at(base)

    # ----------------------------------------------------------------- block ends
    def _xmpacc_nodes_release(self, ptr: int) -> None:
        if self.nodes.pop(ptr, None) is not None:
            CNodes.from_address(ptr).id = 0
        self.count_descriptors(layout=True)

    def _xmpacc_template_release(self, ptr: int) -> None:
        if self.templates.pop(ptr, None) is not None:
            c = CTemplate.from_address(ptr)
            c.id, c.distributed, c.fixed = 0, 0, 0
        self.count_descriptors(layout=True)

    def _xmpacc_release_range(self, base: int, nbytes: int) -> None:
        for ptr in [p for p in (*self.arrays, *self.pointers) if base <= p < base + nbytes]:
            self.release_array(ptr)

    def release_array(self, ptr: int, write: bool = True) -> None:
        self.pointers.pop(ptr, None)
        self._drop_block(ptr, free=True, write=write)
        self.python_made(ptr)
        self.count_descriptors()

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
        self.layout_changed()
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
        self.release_array(ptr)   # a block entered again: its previous block is gone
        self.pointers[ptr] = PointerMap(name.decode(), where_text(where), tmpl_ptr, elem_size,
                                        read_ints(tdims, ndims), read_longs(offsets, ndims),
                                        read_longs(shadows, 2 * ndims))
        c = CArray.from_address(ptr)
        c.id, c.ndims, c.elem_size, c.base = 0, ndims, elem_size, None
        c.tmpl = ctypes.cast(tmpl_ptr, ctypes.POINTER(CTemplate))
        self.python_made(ptr)
        self.count_descriptors()

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
        self._drop_block(ptr, free=True)   # xmp_malloc again: the old block goes
        c = CArray.from_address(ptr)
        sizes = read_longs(extents, n)
        passed = list(sizes)   # as the call passed them (-1: the argument's), what C compares
        actual = self._array_at(base) if base else None   # the array passed to a parameter
        key = self._parameter_key(ptr, pmap, tmpl, sizes, base, actual) if base else None
        known = self.parameters.get(key) if key is not None else None
        if known is not None and known[0].persistent is None:   # as at the last call: the same view
            arr = known[0]
            ctypes.memmove(ptr, known[1], ctypes.sizeof(CArray))
            stats = self.shared.stats
            stats["parameter_views_reused"] = stats.get("parameter_views_reused", 0) + 1
        else:
            if base and min(sizes) < 0:
                sizes = self._argument_extents(pmap, sizes, actual, tmpl, w)
            arr = make_array(pmap.name, tmpl, pmap.elem_size, sizes, pmap.tdims, pmap.offsets,
                             pmap.shadows, w, c, base or 0, lambda nbytes: self._c_block(ptr, nbytes, w))
            c.id = DESC_ARRAY
            c.tmpl = ctypes.cast(pmap.tmpl_ptr, ctypes.POINTER(CTemplate))
            if base:
                self._check_argument(arr, actual, w)
            if key is not None:
                if len(self.parameters) >= _PARAMETERS_KEPT:
                    del self.parameters[next(iter(self.parameters))]
                self.parameters[key] = (arr, ctypes.string_at(ptr, ctypes.sizeof(CArray)))
        self.forget(ptr)
        self.arrays[ptr] = arr
        if base:
            self.views[ptr] = arr.addr
            if key is not None and arr.persistent is None:
                self.view_made(ptr, pmap, base, passed, arr)
        self.count_descriptors()
        return int(c.base or 0)

    def _array_at(self, base: int) -> DistArray | None:
        """The array whose local block is at ``base`` (the first: a parameter's view shares it)."""
        return next((a for a in self.arrays.values() if a.addr == base), None)

    def _parameter_key(self, ptr: int, pmap: PointerMap, tmpl: Template, sizes: list[int],
                       base: int, actual: DistArray | None) -> tuple[Any, ...]:
        """What an aligned parameter's view depends on: its descriptor and map, the extents
        it declares, the array passed to it (its block and layout) and the template's
        distribution.  A function called in a time loop (NPB CG's matvec aligns its two
        dummies at every call) then gets the view of its last call again: no new layout,
        no check against the argument (it passed for this argument and layout)."""
        return (ptr, pmap.tmpl_ptr, pmap.elem_size, tuple(pmap.tdims), tuple(pmap.offsets),
                tuple(pmap.shadows), tuple(sizes), base, tuple(id(d) for d in tmpl.dims), id(actual),
                None if actual is None else tuple((lay.extent, lay.lext, lay.gtol) for lay in actual.layouts))

    def _argument_extents(self, pmap: PointerMap, sizes: list[int], actual: DistArray | None,
                          tmpl: Template, where: str) -> list[int]:
        """The extents an aligned parameter does not declare (``double *a``, ``a[]``):
        those of the array passed to it, else (memory of no aligned array) the
        template's along the aligned dimension."""
        if actual is not None and len(actual.layouts) == len(sizes):
            return [actual.layouts[k].extent if e < 0 else e for k, e in enumerate(sizes)]
        out = []
        for k, e in enumerate(sizes):
            t = pmap.tdims[k]
            if e >= 0:
                out.append(e)
            elif t >= 0 and tmpl.bounds is not None:
                out.append(tmpl.bounds[t][1] - pmap.offsets[k] + 1)
            else:
                raise RuntimeFailure(where, f"the aligned parameter '{pmap.name}' is passed memory that is "
                                            f"no aligned array's, so the extent of its dimension {k} is "
                                            "unknown; declare it in the parameter")
        return out

    def _check_argument(self, param: DistArray, actual: DistArray | None, where: str) -> None:
        """An aligned parameter must be mapped as the array passed to it (XMP requires it;
        a different shadow or template would shift every index silently)."""
        def layout(a: DistArray) -> list[tuple[int, int]]:
            return [(lay.lext, lay.gtol) for lay in a.layouts]

        if actual is not None and layout(actual) != layout(param):
            raise RuntimeFailure(where, f"the aligned parameter '{param.name}' is not mapped like the array "
                                        f"'{actual.name}' passed to it: their local blocks differ (align, "
                                        "shadow or extents)")

    def _xmpacc_free(self, base: int | None, where: bytes) -> None:
        if not base:
            return
        if base in self.c_blocks:
            self._xmpacc_forget_block(base)   # its array and every aligned parameter's view
            _free(base)
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
        handle = int(self.shared.exec_comm.handle) & 0xFFFFFFFFFFFFFFFF
        return handle - (1 << 64) if handle >= 1 << 63 else handle   # a C long long

    def _xmpacc_mpi_thread_level(self) -> int:
        from mpi4py import MPI

        return int(MPI.Query_thread())
