"""Aligned parameters' align, view and release in C after their first call.

A function with aligned dummy arguments aligns each one at every call (NPB's CG: its
matvec, called 10 times per CG iteration): ``align_pointer``, ``xmp_malloc`` of the
argument's block and ``release`` at the return entered Python each time (8, 16 and 5 µs
on the development VM).  Dynamic makes each view once per argument and layout
(dynamic.py ``parameters``); here it hands each view to the glue
(include/xmpacc_params.h), which copies the view's descriptor bytes on later calls with
the same align, argument block and extents while nothing else changed (Dynamic's
``generation``: arrays, templates, node sets).

C tells Python what it did lazily: the plans it changed are on a dirty list, and before a
call enters Python the glue calls ``_xmpacc_params_sync`` (api.py), which applies each
plan's last state to Dynamic as its own calls would have: released, aligned, or holding
a view.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .arrays import DistArray
from .cstructs import MAXDIM, CArray
from .fast_reflect import link_chain

VIEWS = 4          # views per plan (_XMPACC_PARAM_VIEWS)
PLANS_PER_DESCRIPTOR = 4   # align sites per descriptor address (stack slots are shared)


class CParamView(ctypes.Structure):
    """_xmpacc_param_view_t of include/xmpacc_params.h."""

    _fields_ = [("base", ctypes.c_void_p), ("n", ctypes.c_int), ("extents", ctypes.c_longlong * MAXDIM),
                ("desc", ctypes.c_ubyte * ctypes.sizeof(CArray))]


class CParamPlan(ctypes.Structure):
    """_xmpacc_param_plan_t of include/xmpacc_params.h."""


CParamPlan._fields_ = [
    ("where", ctypes.c_char_p), ("name", ctypes.c_char_p), ("tmpl", ctypes.c_void_p),
    ("elem_size", ctypes.c_longlong), ("ndims", ctypes.c_int), ("tdims", ctypes.c_int * MAXDIM),
    ("offsets", ctypes.c_longlong * MAXDIM), ("shadows", ctypes.c_longlong * (2 * MAXDIM)),
    ("generation", ctypes.c_longlong), ("nviews", ctypes.c_int), ("views", CParamView * VIEWS),
    ("aligned", ctypes.c_int), ("current", ctypes.c_int), ("dirty", ctypes.c_int),
    ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p)]


@dataclass
class Plan:
    """One align site's plan for a descriptor, with the Python objects of its views."""

    c: CParamPlan
    key: tuple[Any, ...]              # the align: where, name, template, sizes, maps
    pmap: Any                         # dynamic.PointerMap
    arrays: list[DistArray]           # of views[k]
    texts: tuple[bytes, bytes]        # where and name, kept alive for the C strings


class ParamViews:
    """The plans by descriptor address, and the sync of what C did with them."""

    def __init__(self, dynamic: Any, release: Callable[[int, bool], None]) -> None:
        self.dynamic, self.release = dynamic, release
        self.lib: Any = None
        self.plans: dict[int, list[Plan]] = {}
        self.by_address: dict[int, tuple[int, Plan]] = {}   # a plan's C address -> its descriptor, the plan
        self.folded = 0

    def start(self, lib: Any) -> None:
        """The launcher hands over the program (replay on)."""
        self.lib = lib
        self.generation = ctypes.c_longlong.in_dll(lib, "_xmpacc_param_generation")
        self.ndirty = ctypes.c_int.in_dll(lib, "_xmpacc_params_ndirty")
        self.dirty = (ctypes.c_void_p * 64).in_dll(lib, "_xmpacc_params_dirty")
        d = self.dynamic
        d.generation_changed, d.view_made, d.python_made = self.changed, self.offer, self.python_made
        d.block_gone = self.block_gone

    def changed(self) -> None:
        """A template or node set changed: every view may be another now."""
        if self.lib is not None:
            self.generation.value += 1

    def block_gone(self, base: int) -> None:
        """An array's block went (a local array at its function's end): a later array at
        its address may be laid out otherwise, so the views of it match no call."""
        for chain in self.plans.values():
            for p in chain:
                for k in range(p.c.nviews):
                    if p.c.views[k].base == base:
                        p.c.views[k].base, p.c.views[k].n = None, -1
                        if p.c.current == k:
                            p.c.current = -1

    # ----------------------------------------------------------------- what Python did
    def offer(self, ptr: int, pmap: Any, base: int, sizes: list[int], arr: DistArray) -> None:
        """Python made (or reused) the view ``arr`` of block ``base`` for the parameter of
        descriptor ``ptr``: C may make it from the next call on."""
        if self.lib is None:
            return
        key = (pmap.where, pmap.name, pmap.tmpl_ptr, pmap.elem_size, tuple(pmap.tdims), tuple(pmap.offsets),
               tuple(pmap.shadows))
        chain = self.plans.setdefault(ptr, [])
        plan = next((p for p in chain if p.key == key), None)
        if plan is None or plan.c.generation != self.generation.value:
            if plan is not None:
                chain.remove(plan)
            elif len(chain) == PLANS_PER_DESCRIPTOR:
                plan = chain.pop(0)
            if plan is not None:
                self.folded += plan.c.calls
                del self.by_address[ctypes.addressof(plan.c)]
            plan = self._plan(key, pmap)
            chain.append(plan)
            self.by_address[ctypes.addressof(plan.c)] = (ptr, plan)
            link_chain(chain)
            self.lib._xmpacc_param_plan_set(ctypes.c_void_p(ptr), ctypes.byref(chain[0].c))
        c = plan.c
        desc = ctypes.string_at(ptr, ctypes.sizeof(CArray))
        k = next((k for k, v in enumerate(c.views[:c.nviews]) if v.base == base
                  and list(v.extents[:len(sizes)]) == sizes and bytes(v.desc) == desc), None)
        if k is None:   # a free slot, one whose block went, or the first
            k = c.nviews if c.nviews < VIEWS else next((k for k in range(VIEWS) if not c.views[k].base), 0)
            v = c.views[k]
            v.base, v.n = base, len(sizes)
            for d, s in enumerate(sizes):
                v.extents[d] = s
            ctypes.memmove(v.desc, desc, len(desc))
            if k == c.nviews:
                c.nviews += 1
                plan.arrays.append(arr)
            else:
                plan.arrays[k] = arr
        for other in chain:
            other.c.aligned, other.c.current = 0, -1
        c.current = k

    def python_made(self, ptr: int) -> None:
        """Python aligned or released the descriptor itself: no plan holds it now."""
        for plan in self.plans.get(ptr, ()):
            plan.c.aligned, plan.c.current = 0, -1

    def _plan(self, key: tuple[Any, ...], pmap: Any) -> Plan:
        where, name = pmap.where.encode(), pmap.name.encode()
        c = CParamPlan()
        c.where, c.name, c.tmpl, c.elem_size = where, name, pmap.tmpl_ptr, pmap.elem_size
        c.ndims = len(pmap.tdims)
        for d in range(c.ndims):
            c.tdims[d], c.offsets[d] = pmap.tdims[d], pmap.offsets[d]
            c.shadows[2 * d], c.shadows[2 * d + 1] = pmap.shadows[2 * d], pmap.shadows[2 * d + 1]
        c.generation, c.current = self.generation.value, -1
        return Plan(c, key, pmap, [], (where, name))

    # ----------------------------------------------------------------- what C did
    def sync(self) -> None:
        """Apply each plan C changed: the descriptor released (the api's release, as at a
        return), then aligned, then holding its view, as the last C call left it."""
        n, self.ndirty.value = self.ndirty.value, 0
        for k in range(n):
            ptr, plan = self.by_address[self.dirty[k]]
            plan.c.dirty = 0
            self._apply(ptr, plan)

    def _apply(self, ptr: int, plan: Plan) -> None:
        """A released descriptor may lie in a frame that has returned: its memory is not
        touched here (C wrote what the descriptor holds)."""
        c = plan.c
        aligned, current = c.aligned, c.current
        self.release(ptr, False)   # as the api releases a block's array at its end
        c.aligned, c.current = aligned, current   # the release told the plans Python made it
        if c.aligned or c.current >= 0:
            self.dynamic.pointers[ptr] = plan.pmap
        if c.current >= 0:
            view = c.views[c.current]
            self.dynamic.view_again(ptr, plan.arrays[c.current], int(view.base))
        self.dynamic.count_descriptors()

    def fold(self, stats: dict[str, int]) -> None:
        calls = self.folded + sum(p.c.calls for chain in self.plans.values() for p in chain)
        if calls:
            stats["replayed_parameter_views"] = calls
