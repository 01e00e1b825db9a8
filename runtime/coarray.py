"""Coarrays (global-view §11): MPI-3 RMA windows on the coarrays' local storage.

Every file-scope coarray gets a window over the C storage of its image at start-up
(``_xmpacc_coarray_init``, collective over the whole job: every image runs the same
start-up code in the same order).  A put or get is one passive-target epoch on the target
image (``Lock(shared)``, ``Put``/``Get``, ``Unlock``), so it is complete when the statement
ends: the remote side runs no code for it.  Images are the ranks of MPI_COMM_WORLD,
0-based as in XMP C; codimensions are in C order (row-major, the last one ``*``):

    int a[10]:[2][*];   a[i]:[k1][k2]  is on image  k1 * n2 + k2,  n2 = ceil(images / 2)

Post/wait, sync_images and critical live in ``coarray_sync.py``.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from .arrays import read_longs
from .coarray_sync import LocalViewSync
from .errors import RuntimeFailure, where_text
from .sections import SectionError, check_section, local_view, numpy_index, read_section, shape_text

_SCRATCH = 64   # results of gets inside one C expression that may be alive at once


@dataclass
class Coarray:
    name: str
    base: int
    nbytes: int
    elem_size: int
    codims: tuple[int, ...]      # -1: '*'
    win: Any


class CoarrayRuntime(LocalViewSync):
    """The coarray entries of ``contract.py`` (mixed into ``api.Runtime``)."""

    world: Any
    stats: dict[str, int]

    def _coarray_state(self) -> dict[str, Any]:
        state = self.__dict__.get("_coarrays")
        if state is None:
            import atexit

            state = self.__dict__["_coarrays"] = {"by_base": {}, "scratch": [], "next": 0}
            atexit.register(self._coarray_free_windows)   # before mpi4py finalizes MPI (LIFO)
        return state

    def _coarray_free_windows(self) -> None:
        """Free the windows (collective; every image ends here in the same order)."""
        from mpi4py import MPI

        state = self.__dict__.get("_coarrays")
        if state is None:
            return
        if not MPI.Is_finalized():   # MPI_Win_free waits for every image's epochs to end
            for co in state["by_base"].values():
                co.win.Free()
            self._local_view_free()
        state["by_base"].clear()

    def _xmpacc_coarray_init(self, base: int, where: bytes, name: bytes, nbytes: int, elem_size: int,
                             ncodims: int, codims: int) -> None:
        from mpi4py import MPI

        state = self._coarray_state()
        dims = tuple(read_longs(codims, ncodims))
        self._check_codims(name.decode(), dims, where_text(where))
        memory = MPI.memory.fromaddress(base, nbytes) if nbytes else MPI.BOTTOM
        win = MPI.Win.Create(memory, 1, comm=self.world)
        old = state["by_base"].pop(base, None)
        if old is not None:
            old.win.Free()
        state["by_base"][base] = Coarray(name.decode(), base, nbytes, elem_size, dims, win)

    def _check_codims(self, name: str, dims: tuple[int, ...], where: str) -> None:
        if any(d == 0 or d < -1 for d in dims):
            raise RuntimeFailure(where, f"the codimensions of coarray '{name}' must be > 0, not "
                                        f"{''.join(f'[{d}]' for d in dims)}", collective=True)

    # ------------------------------------------------------------------ helpers
    def _coarray(self, base: int, where: str) -> Coarray:
        coarrays = self._coarray_state()["by_base"]
        co = coarrays.get(base)
        if co is not None:
            return co
        inside = next((c for c in coarrays.values() if c.base < base < c.base + c.nbytes), None)
        if inside is not None:   # a coarray dummy argument passed &w[k] (compiled in another file)
            raise RuntimeFailure(where, f"a coarray dummy argument refers to element "
                                        f"{(base - inside.base) // max(inside.elem_size, 1)} of coarray "
                                        f"'{inside.name}': a part of a coarray is not supported yet; pass "
                                        "the whole coarray")
        raise RuntimeFailure(where, "a coarray used before its start-up registration (a coarray declared "
                                    "'extern' whose definition is not compiled by xmpacc, or a coarray "
                                    "dummy argument passed something that is not a coarray?)")

    def _image(self, co: Coarray, image: int, where: str) -> int:
        """The world rank of coindex ``image`` ({n, k...}, C order, last extent '*')."""
        n = read_longs(image, 1)[0]
        ks = read_longs(image, 1 + n)[1:]
        size = self.world.Get_size()
        # a coarray dummy argument declared [*] of a coarray with more codimensions: its one
        # image index is the image itself
        extents = list(co.codims) if n == len(co.codims) else [-1]
        known = int(np.prod([d for d in extents[:-1]], dtype=np.int64)) if len(extents) > 1 else 1
        extents[-1] = -(-size // known)
        text = "".join(f"[{k}]" for k in ks)
        rank = 0
        for k, ext in zip(ks, extents, strict=False):
            if not 0 <= k < ext:
                rank = -1
                break
            rank = rank * ext + k
        if not 0 <= rank < size:
            raise RuntimeFailure(where, f"image {text} of coarray '{co.name}' does not exist: there are "
                                        f"{size} images (0..{size - 1})")
        return rank

    def _offset(self, co: Coarray, elem: int, nbytes: int, where: str) -> int:
        disp = elem - co.base
        if disp < 0 or disp + nbytes > co.nbytes:
            index = disp // max(co.elem_size, 1)
            raise RuntimeFailure(where, f"element {index} of coarray '{co.name}' is out of bounds "
                                        f"({co.nbytes // max(co.elem_size, 1)} elements)")
        return disp

    def _count(self, what: str, nbytes: int) -> None:
        self.stats[f"coarray_{what}s"] = self.stats.get(f"coarray_{what}s", 0) + 1
        self.stats["coarray_bytes"] = self.stats.get("coarray_bytes", 0) + nbytes

    # ------------------------------------------------------------------ elements
    def _xmpacc_coarray_put_elem(self, base: int, where: bytes, image: int, elem: int, value: int,
                                 nbytes: int) -> None:
        from mpi4py import MPI

        w = where_text(where)
        co = self._coarray(base, w)
        rank, disp = self._image(co, image, w), self._offset(co, elem, nbytes, w)
        data = np.frombuffer((ctypes.c_char * nbytes).from_address(value), dtype=np.uint8).copy()
        co.win.Lock(rank, MPI.LOCK_SHARED)
        co.win.Put([data, MPI.BYTE], rank, (disp, nbytes, MPI.BYTE))
        co.win.Unlock(rank)
        self._count("put", nbytes)

    def _xmpacc_coarray_get_elem(self, base: int, where: bytes, image: int, elem: int, nbytes: int) -> int:
        from mpi4py import MPI

        w = where_text(where)
        co = self._coarray(base, w)
        rank, disp = self._image(co, image, w), self._offset(co, elem, nbytes, w)
        buf = self._scratch(nbytes)
        co.win.Lock(rank, MPI.LOCK_SHARED)
        co.win.Get([buf[:nbytes], MPI.BYTE], rank, (disp, nbytes, MPI.BYTE))
        co.win.Unlock(rank)
        self._count("get", nbytes)
        return int(buf.ctypes.data)

    def _scratch(self, nbytes: int) -> np.ndarray:
        """A buffer that stays valid for the next _SCRATCH gets (one C expression's worth)."""
        state = self._coarray_state()
        ring: list[np.ndarray] = state["scratch"]
        k = state["next"]
        state["next"] = (k + 1) % _SCRATCH
        if k >= len(ring):
            ring.append(np.zeros(max(nbytes, 16), dtype=np.uint8))
        elif ring[k].nbytes < nbytes:
            ring[k] = np.zeros(nbytes, dtype=np.uint8)
        return ring[k]

    # ------------------------------------------------------------------ sections
    def _xmpacc_coarray_put(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                            local_sec: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, put=True)

    def _xmpacc_coarray_get(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                            local_sec: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, put=False)

    def _transfer(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                  local_sec: int, put: bool) -> None:
        from mpi4py import MPI

        w = where_text(where)
        co = self._coarray(base, w)
        rank = self._image(co, image, w)
        remote, mine = read_section(remote_sec), read_section(local_sec)
        try:
            check_section(remote, co.name)
            check_section(mine, "the local side")
        except SectionError as e:
            raise RuntimeFailure(w, str(e)) from None
        source = mine.shape if put else remote.shape   # a scalar source fills every element
        if source and source != (remote.shape if put else mine.shape):
            raise RuntimeFailure(w, f"shapes do not conform: the coarray side {remote.text(co.name)} has "
                                    f"shape {shape_text(remote.shape)} but the local side has shape "
                                    f"{shape_text(mine.shape)}")
        esize = remote.elem_size
        view = local_view(local, mine)[numpy_index(mine)] if mine.subs else \
            np.frombuffer((ctypes.c_char * esize).from_address(local), dtype=np.uint8)
        target = _target_type(remote)
        lb, extent = target.Get_true_extent()
        if lb < 0 or lb + extent > co.nbytes:   # only through a dummy declared larger than its coarray
            target.Free()
            raise RuntimeFailure(w, f"{remote.text(co.name)} reaches beyond coarray '{co.name}' "
                                    f"({co.nbytes // max(co.elem_size, 1)} elements): is a coarray dummy "
                                    "argument declared larger than the coarray passed to it?")
        count = int(np.prod(remote.shape, dtype=np.int64))
        co.win.Lock(rank, MPI.LOCK_SHARED)
        if put:
            data = np.ascontiguousarray(np.broadcast_to(view, remote.shape + (esize,)))
            co.win.Put([data, MPI.BYTE], rank, (0, 1, target))
        else:
            data = np.empty(remote.shape + (esize,), dtype=np.uint8)
            co.win.Get([data, MPI.BYTE], rank, (0, 1, target))
        co.win.Unlock(rank)
        target.Free()
        if not put:
            view[...] = data
        self._count("put" if put else "get", count * esize)


def _target_type(sec: Any) -> Any:
    """An MPI datatype of the section's elements in the coarray, in row-major order."""
    from mpi4py import MPI

    extents = list(sec.extents)
    strides = [1] * len(extents)
    for d in range(len(extents) - 2, -1, -1):
        strides[d] = strides[d + 1] * extents[d + 1]
    offsets = np.zeros((), dtype=np.int64)
    for s, stride in zip(sec.subs, strides, strict=True):
        idx = np.arange(s.length, dtype=np.int64) * s.step + s.base if s.triplet else np.int64(s.base)
        offsets = np.add.outer(offsets, idx * stride) if s.triplet else offsets + idx * stride
    flat = (offsets.reshape(-1) * sec.elem_size).tolist()
    return MPI.BYTE.Create_indexed_block(sec.elem_size, flat).Commit()
