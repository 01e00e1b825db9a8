"""Coarrays (global-view §11): MPI-3 RMA windows on the coarrays' local storage.

Every file-scope coarray gets a window over the C storage of its image at start-up
(``_xmpacc_coarray_init``, collective over the whole job: every image runs the same
start-up code in the same order).  A put or get is one passive-target epoch on the target
image (``Lock(shared)``, ``Put``/``Get``, ``Unlock``), so it is complete when the statement
ends: the remote side runs no code for it.  Images are the ranks of MPI_COMM_WORLD,
0-based as in XMP C; codimensions are in C order (row-major, the last one ``*``):

    int a[10]:[2][*];   a[i]:[k1][k2]  is on image  k1 * n2 + k2,  n2 = ceil(images / 2)

Post/wait, sync_images and critical live in ``coarray_sync.py``, device copies of coarrays
(XcalableACC §5a) in ``coarray_device.py``.  An MPI that cannot make windows (the device
machine's Open MPI) is said at the first host put or get of a coarray, not at start-up:
device copies move without windows.

``Coarrays`` is the concern of ``api.Runtime`` that owns the coarrays of this image, their
windows and the scratch buffers of element gets; it holds the device side
(``DeviceCoarrays``) and the image control (``LocalViewSync``) and frees their windows
with its own.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import acc_gmove_agent as agent
from .acc_gmove import AccGmove
from .arrays import read_longs
from .coarray_device import DeviceCoarrays, DeviceSide, element_offsets, host_rows, to_host
from .coarray_sync import LocalViewSync, lock_word, own_lock_word
from .contract import COARRAY_ON_DEVICE, LOCAL_ON_DEVICE
from .errors import WINDOW_HINT, RuntimeFailure, where_text
from .nodesets import NodeSets
from .sections import Section, SectionError, check_section, read_section, shape_text
from .shared import Device, Shared

_SCRATCH = 64   # results of gets inside one C expression that may be alive at once


@dataclass
class Coarray:
    name: str
    base: int
    nbytes: int
    elem_size: int
    codims: tuple[int, ...]      # -1: '*'
    win: Any                     # None: this MPI could not make it (win_error says why)
    win_error: str = ""
    device: DeviceSide | None = None   # its device copy (acc declare create; coarray_device.py)


class Coarrays:
    """The coarray entries of ``contract.py`` but image control's (``sync``).  ``node_sets``
    reads the nodes of post/wait (tasks.py), ``device`` and ``agents`` serve the device
    copies (coarray_device.py)."""

    def __init__(self, shared: Shared, node_sets: Callable[[int, int | None, str], NodeSets],
                 device: Device, agents: AccGmove) -> None:
        self.world, self.shared = shared.world, shared
        self.by_base: dict[int, Coarray] = {}
        self.scratch: list[np.ndarray] = []   # the ring of element gets' results (_scratch)
        self.next = 0
        self.in_use = False   # the first use registers the freeing at exit (use)
        self.device = DeviceCoarrays(shared.world, device, agents)
        self.sync = LocalViewSync(shared.world, node_sets, self.device.quiet, self.use)

    def use(self) -> None:
        """The first use of coarrays or image control: their windows are freed at exit."""
        if not self.in_use:
            import atexit

            self.in_use = True
            atexit.register(self.free_windows)   # before mpi4py finalizes MPI (LIFO)

    def free_windows(self) -> None:
        """Free the windows (collective; every image ends here in the same order)."""
        from mpi4py import MPI

        if not self.in_use:
            return
        if not MPI.Is_finalized():   # MPI_Win_free waits for every image's epochs to end
            for co in self.by_base.values():
                if co.win is not None:
                    co.win.Free()
            self.sync.free()
        self.by_base.clear()

    def _xmpacc_coarray_init(self, base: int, where: bytes, name: bytes, nbytes: int, elem_size: int,
                             ncodims: int, codims: int) -> None:
        from mpi4py import MPI

        self.use()
        dims = tuple(read_longs(codims, ncodims))
        self._check_codims(name.decode(), dims, where_text(where))
        memory = MPI.memory.fromaddress(base, nbytes) if nbytes else MPI.BOTTOM
        try:
            if os.environ.get("XMPACC_COARRAY_WINDOWS") == "0":   # as an MPI that cannot (tests)
                raise MPI.Exception(MPI.ERR_WIN)
            win, error = MPI.Win.Create(memory, 1, comm=self.world), ""
        except MPI.Exception as e:   # said at a host put or get (module doc)
            win, error = None, e.Get_error_string()
        old = self.by_base.pop(base, None)
        if old is not None and old.win is not None:
            old.win.Free()
        self.by_base[base] = Coarray(name.decode(), base, nbytes, elem_size, dims, win, error)

    def _check_codims(self, name: str, dims: tuple[int, ...], where: str) -> None:
        if any(d == 0 or d < -1 for d in dims):
            raise RuntimeFailure(where, f"the codimensions of coarray '{name}' must be > 0, not "
                                        f"{''.join(f'[{d}]' for d in dims)}", collective=True)

    # ------------------------------------------------------------------ helpers
    def _coarray(self, base: int, where: str) -> Coarray:
        self.use()
        coarrays = self.by_base
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

    def _windowless_own(self, co: Coarray, rank: int) -> bool:
        """An access of this image's own copy of a coarray that has no window (an MPI that
        could not make one over the program's memory, e.g. Open MPI under one process):
        it needs no MPI, so it is a plain memory access (_window_move, the element
        functions, coarray_sync's locks).  Other images still need the window."""
        return co.win is None and rank == self.world.Get_rank()

    def _window(self, co: Coarray, where: str) -> Any:
        if co.win is None:
            raise RuntimeFailure(where, f"coarray '{co.name}': this MPI library could not make a window "
                                        f"over it ({co.win_error}); puts and gets of a coarray's host copy "
                                        "need MPI one-sided communication (its device copy does not)"
                                        + WINDOW_HINT)
        return co.win

    def _offset(self, co: Coarray, elem: int, nbytes: int, where: str, base: int | None = None) -> int:
        """``elem``'s byte offset in the coarray (``base``: where this image's copy starts,
        its host storage by default)."""
        disp = elem - (co.base if base is None else base)
        if disp < 0 or disp + nbytes > co.nbytes:
            index = disp // max(co.elem_size, 1)
            raise RuntimeFailure(where, f"element {index} of coarray '{co.name}' is out of bounds "
                                        f"({co.nbytes // max(co.elem_size, 1)} elements)")
        return disp

    def _count(self, what: str, nbytes: int) -> None:
        self.shared.count(f"coarray_{what}s")
        self.shared.count("coarray_bytes", nbytes)

    # ------------------------------------------------------------------ elements
    def _xmpacc_coarray_put_elem(self, base: int, where: bytes, image: int, elem: int, value: int,
                                 nbytes: int) -> None:
        from mpi4py import MPI

        w = where_text(where)
        co = self._coarray(base, w)
        rank, disp = self._image(co, image, w), self._offset(co, elem, nbytes, w)
        if self._windowless_own(co, rank):
            ctypes.memmove(co.base + disp, value, nbytes)
            self._count("put", nbytes)
            return
        data = np.frombuffer((ctypes.c_char * nbytes).from_address(value), dtype=np.uint8).copy()
        win = self._window(co, w)
        win.Lock(rank, MPI.LOCK_SHARED)
        win.Put([data, MPI.BYTE], rank, (disp, nbytes, MPI.BYTE))
        win.Unlock(rank)
        self._count("put", nbytes)

    def _xmpacc_coarray_get_elem(self, base: int, where: bytes, image: int, elem: int, nbytes: int) -> int:
        from mpi4py import MPI

        w = where_text(where)
        co = self._coarray(base, w)
        rank, disp = self._image(co, image, w), self._offset(co, elem, nbytes, w)
        buf = self._scratch(nbytes)
        if self._windowless_own(co, rank):
            ctypes.memmove(buf.ctypes.data, co.base + disp, nbytes)
        else:
            win = self._window(co, w)
            win.Lock(rank, MPI.LOCK_SHARED)
            win.Get([buf[:nbytes], MPI.BYTE], rank, (disp, nbytes, MPI.BYTE))
            win.Unlock(rank)
        self._count("get", nbytes)
        return int(buf.ctypes.data)

    def _scratch(self, nbytes: int) -> np.ndarray:
        """A buffer that stays valid for the next _SCRATCH gets (one C expression's worth)."""
        self.use()
        ring = self.scratch
        k = self.next
        self.next = (k + 1) % _SCRATCH
        if k >= len(ring):
            ring.append(np.zeros(max(nbytes, 16), dtype=np.uint8))
        elif ring[k].nbytes < nbytes:
            ring[k] = np.zeros(nbytes, dtype=np.uint8)
        return ring[k]

    # ------------------------------------------------------------------ sections
    def _xmpacc_coarray_put(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                            local_sec: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, 0, put=True)

    def _xmpacc_coarray_get(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                            local_sec: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, 0, put=False)

    def _xmpacc_coarray_put_acc(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                                local_sec: int, flags: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, flags, put=True)

    def _xmpacc_coarray_get_acc(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                                local_sec: int, flags: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, flags, put=False)

    def _transfer(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                  local_sec: int, flags: int, put: bool) -> None:
        """A section put or get; ``flags``: which sides are device copies (coarray_device.py)."""
        w = where_text(where)
        on_device = bool(flags & COARRAY_ON_DEVICE)
        co = self.device.find(base, w) if on_device else self._coarray(base, w)
        rank = self._image(co, image, w)
        remote, mine = self._sections(co, remote_sec, local_sec, put, w)
        esize, theirs, ours = remote.elem_size, element_offsets(remote), element_offsets(mine)
        if len(theirs) and (int(theirs.min()) < 0 or (int(theirs.max()) + 1) * esize > co.nbytes):
            # only through a coarray dummy argument declared larger than the coarray passed to it
            raise RuntimeFailure(w, f"{remote.text(co.name)} reaches beyond coarray '{co.name}' "
                                    f"({co.nbytes // max(co.elem_size, 1)} elements): is a coarray dummy "
                                    "argument declared larger than the coarray passed to it?")
        rows = host_rows(local, ours, esize) if not flags & LOCAL_ON_DEVICE else \
            self.device.local_rows(local, ours, esize, w)
        xp = np if isinstance(rows, np.ndarray) else self.device.backend.xp
        here = agent.selector(ours, xp)
        if put:
            data = rows[here].copy()   # read before anything lands (a put into this image's copy)
            if len(ours) < len(theirs):   # a scalar or an element into every element of the section
                data = xp.broadcast_to(data, (len(theirs), esize))
            if on_device:
                self.device.write(co, rank, theirs, data, w)
            else:   # the host copy of image k: its MPI window
                self._window_move(co, rank, theirs, to_host(data), True, w)
        else:
            data = self._remote_read(co, rank, on_device, theirs, esize, w)
            rows[here] = to_host(data) if xp is np else xp.asarray(data)
        self._count("put" if put else "get", len(theirs) * esize)

    def _sections(self, co: Coarray, remote_sec: int, local_sec: int, put: bool,
                  where: str) -> tuple[Section, Section]:
        """Both sides' sections, checked: in bounds and of one shape (or a scalar source)."""
        remote, mine = read_section(remote_sec), read_section(local_sec)
        try:
            check_section(remote, co.name)
            check_section(mine, "the local side")
        except SectionError as e:
            raise RuntimeFailure(where, str(e)) from None
        source = mine.shape if put else remote.shape   # a scalar source fills every element
        if source and source != (remote.shape if put else mine.shape):
            raise RuntimeFailure(where, f"shapes do not conform: the coarray side {remote.text(co.name)} has "
                                        f"shape {shape_text(remote.shape)} but the local side has shape "
                                        f"{shape_text(mine.shape)}")
        return remote, mine

    def _window_move(self, co: Coarray, rank: int, offsets: np.ndarray, data: np.ndarray, put: bool,
                     where: str) -> None:
        """Rows of image ``rank``'s host copy at element ``offsets`` from or into ``data``: one
        passive-target epoch, complete when it returns."""
        from mpi4py import MPI

        esize = int(data.shape[1])
        if self._windowless_own(co, rank):
            rows = host_rows(co.base, offsets, esize)
            if put:
                rows[offsets] = data
            else:
                data[...] = rows[offsets]
            return
        win = self._window(co, where)
        target = MPI.BYTE.Create_indexed_block(esize, (offsets * esize).tolist()).Commit()
        win.Lock(rank, MPI.LOCK_SHARED)
        if put:
            win.Put([np.ascontiguousarray(data), MPI.BYTE], rank, (0, 1, target))
        else:
            win.Get([data, MPI.BYTE], rank, (0, 1, target))
        win.Unlock(rank)
        target.Free()

    def _remote_read(self, co: Coarray, rank: int, on_device: bool, offsets: np.ndarray, esize: int,
                     where: str) -> Any:
        if on_device:
            return self.device.read(co, rank, offsets, esize, where)
        data = np.empty((len(offsets), esize), dtype=np.uint8)
        self._window_move(co, rank, offsets, data, False, where)
        return data

    # ------------------------------------------------------------------ device copies
    def _xmpacc_coarray_device_init(self, base: int, where: bytes) -> None:
        w = where_text(where)
        self.device.attach(self._coarray(base, w), w)

    def _xmpacc_coarray_get_elem_acc(self, base: int, where: bytes, image: int, elem: int,
                                     nbytes: int) -> int:
        w = where_text(where)
        co = self.device.find(base, w)
        rank = self._image(co, image, w)
        disp = self._offset(co, elem, nbytes, w, base)
        # rows of the element's size where it is aligned to it (always, for C elements)
        esize, offsets = (nbytes, np.array([disp // nbytes])) if disp % nbytes == 0 else \
            (1, np.arange(disp, disp + nbytes, dtype=np.int64))
        data = to_host(self.device.read(co, rank, offsets, esize, w))
        buf = self._scratch(nbytes)
        buf[:nbytes] = data.reshape(-1)
        self._count("get", nbytes)
        return int(buf.ctypes.data)

    # ------------------------------------------------------------------ locks
    def _xmpacc_coarray_lock(self, base: int, where: bytes, image: int, elem: int, release: int) -> None:
        w = where_text(where)
        co = self._coarray(base, w)
        rank, disp = self._image(co, image, w), self._offset(co, elem, 8, w)
        self.device.quiet()
        me, what = self.world.Get_rank(), f"lock '{co.name}' of image {rank}"
        if self._windowless_own(co, rank):   # one image: no one to wait for
            own_lock_word(co.base + disp, me, bool(release), what, w)
            return
        lock_word(self._window(co, w), me, rank, disp, bool(release), what, w)
