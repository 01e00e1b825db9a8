"""Image control of the local view (global-view §11): sync_all, sync_memory, sync_images,
post/wait, lock/unlock and critical, on MPI-3 passive-target RMA.

One *control window* per process (``_xmpacc_local_view_init``, collective, once) holds
64-bit counters: ``posts[src][tag]`` (post/wait), ``syncs[src]`` (sync_images) and one
lock word for ``critical`` (used on image 0).  A post adds 1 to the target's counter with
``Accumulate``; a wait polls its own counters under an exclusive lock of its own window
and takes one post back.  Locks are ``Compare_and_swap`` loops on the lock word (owner + 1, 0 = free) in
the window of the ``xmp_lock_t`` coarray.  Puts and gets complete before their statement
ends, so ``sync_memory`` has nothing left to wait for and ``sync_all`` is a barrier.  In a
program with coarrays on the device, every statement here first waits for this image's
device work (coarray_device.py).  An MPI that cannot make the control window is said at the
first statement that needs it (``sync_all`` and ``sync_memory`` do not; ``sync_images``
falls back to messages).  xmp.h's functions (``xmp_sync_all(&status)`` ...:
include/xmpacc_library.c) call the same entries.

``LocalViewSync`` owns the control window; ``coarray.Coarrays`` holds one and frees it
with its own windows.  The lock words (``lock_word``, ``own_lock_word``) serve ``critical``
here and the coarray locks there.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .arrays import read_ints, read_longs
from .errors import WINDOW_HINT, RuntimeFailure, where_text
from .nodesets import NodeSets

TAGS = 256   # post/wait tags 0..TAGS-1
_SYNC_TAG = 7303   # sync_images by messages (gmove takes 7301 and 7302)


class LocalViewSync:
    """The image-control entries.  ``node_sets`` reads the node of post/wait (tasks.py),
    ``quiet`` waits for this image's device work (coarray_device.py), ``started`` is told
    when the control window is made (coarray.py frees it at exit)."""

    def __init__(self, world: Any, node_sets: Callable[[int, int | None, str], NodeSets],
                 quiet: Callable[[], None], started: Callable[[], None]) -> None:
        self.world, self.node_sets, self.quiet, self.started = world, node_sets, quiet, started
        self.control: Any = None         # the control window (None: not made, or this MPI cannot)
        self.control_error = ""          # why this MPI could not make it
        self.counters: np.ndarray | None = None   # this image's counters, in the window

    # ------------------------------------------------------------------ control window
    def _xmpacc_local_view_init(self) -> None:
        from mpi4py import MPI

        if self.control is not None or self.control_error:
            return
        self.started()   # registers the freeing at exit
        n = self.world.Get_size()
        try:
            win = MPI.Win.Allocate(8 * (n * TAGS + n + 1), 8, comm=self.world)
        except MPI.Exception as e:   # said where a statement needs it (module doc)
            self.control_error = e.Get_error_string()
            return
        if win.Get_attr(MPI.WIN_MODEL) != MPI.WIN_UNIFIED:   # pragma: no cover - MPICH/Open MPI: unified
            raise RuntimeFailure("?", "this MPI's windows are not in the unified memory model, which "
                                      "coarray post/wait needs", collective=True)
        memory = np.frombuffer(win.tomemory(), dtype=np.int64)
        win.Lock(self.world.Get_rank(), MPI.LOCK_EXCLUSIVE)
        memory[:] = 0
        win.Unlock(self.world.Get_rank())
        self.control = win
        self.counters = memory
        self.world.Barrier()   # every counter is 0 before anyone posts

    def free(self) -> None:
        win, self.control, self.counters = self.control, None, None
        if win is not None:
            win.Free()

    def _control_win(self, where: str) -> Any:
        win = self.control
        if win is None and self.control_error:
            raise RuntimeFailure(where, "this MPI library could not make the window of post/wait, "
                                        f"sync_images and critical ({self.control_error}); "
                                        "they need MPI one-sided communication" + WINDOW_HINT)
        if win is None:
            raise RuntimeFailure(where, "a local-view directive ran before the start-up code "
                                        "(this is a bug in xmpacc)")
        self.quiet()   # only image-control statements get here
        return win

    def _add(self, win: Any, rank: int, disp: int, value: int) -> None:
        from mpi4py import MPI

        win.Lock(rank, MPI.LOCK_SHARED)
        win.Accumulate([np.array([value], dtype=np.int64), MPI.INT64_T], rank, (disp, 1, MPI.INT64_T),
                       MPI.SUM)
        win.Unlock(rank)

    def _take(self, win: Any, disps: list[int]) -> int | None:
        """Take one post from the first of this image's counters ``disps`` that has one.

        Under an exclusive lock of its own window no other image's Accumulate is in flight,
        and in MPI's unified memory model the counters can then be read and changed in
        place (one look at all of them: ``wait`` without a node scans n * TAGS counters)."""
        from mpi4py import MPI

        me = self.world.Get_rank()
        win.Lock(me, MPI.LOCK_EXCLUSIVE)
        try:
            win.Sync()
            counters = self.counters
            assert counters is not None   # made with the window
            found = next((d for d in disps if counters[d] > 0), None)
            if found is not None:
                counters[found] -= 1
                win.Sync()
            return found
        finally:
            win.Unlock(me)

    def _wait_for(self, win: Any, disps: list[int]) -> int:
        pause = 1e-5
        while (disp := self._take(win, disps)) is None:
            time.sleep(pause)
            pause = min(pause * 2, 1e-3)
        return disp

    # ------------------------------------------------------------------ sync
    def _xmpacc_sync_all(self, where: bytes) -> None:
        self.quiet()
        self.world.Barrier()

    def _xmpacc_sync_memory(self, where: bytes) -> None:
        """Puts and gets are complete when their statement ends: nothing is outstanding but
        this image's device work."""
        self.quiet()

    def _xmpacc_sync_images(self, where: bytes, n: int, images: int) -> None:
        size = self.world.Get_size()
        self._sync_with(where_text(where), list(range(size)) if n < 0 else read_longs(images, n),
                        "sync_images: ")

    def _xmpacc_sync_image_list(self, where: bytes, n: int, images: int | None) -> None:
        """xmp_sync_images(n, image_set, status), xmp_sync_image(k, status)."""
        w = where_text(where)
        if n < 0:
            raise RuntimeFailure(w, f"the number of images is {n}; it must be 0 or more")
        if n and not images:
            raise RuntimeFailure(w, f"the image set of {n} image(s) is NULL")
        self._sync_with(w, read_ints(images, n) if n else [], "")

    def _sync_with(self, w: str, targets: list[int], what: str) -> None:
        size = self.world.Get_size()
        for k in targets:
            if not 0 <= k < size:
                raise RuntimeFailure(w, f"{what}image {k} does not exist: there are {size} "
                                        f"images (0..{size - 1})")
        self.quiet()   # an image-control statement
        win, me = self.control, self.world.Get_rank()
        if win is None:
            self._sync_by_messages(targets)
            return
        base = size * TAGS
        for k in targets:
            self._add(win, k, base + me, 1)
        for k in targets:
            self._wait_for(win, [base + k])

    def _sync_by_messages(self, targets: list[int]) -> None:
        """sync_images in a program without the control window: one without coarrays or
        local-view directives, which only xmp_sync_images() or xmp_sync_image() can reach
        (the window is made at start-up, collectively, or never).  With nothing to order
        but control flow, a zero-byte message each way does it: two images sync with each
        other equally often, so the k-th message from an image is its k-th sync with this
        one."""
        from mpi4py import MPI

        empty = np.empty(0, dtype=np.uint8)
        requests = [self.world.Isend([empty, MPI.BYTE], dest=k, tag=_SYNC_TAG) for k in targets]
        requests += [self.world.Irecv([np.empty(0, dtype=np.uint8), MPI.BYTE], source=k, tag=_SYNC_TAG)
                     for k in targets]
        MPI.Request.Waitall(requests)

    # ------------------------------------------------------------------ post / wait
    def _one_node(self, nodes: int, ref: int | None, where: str, what: str) -> int:
        sets = self.node_sets(nodes, ref, where)
        ranks = sorted({r for s in sets.sets for r in s})
        if len(ranks) != 1:
            raise RuntimeFailure(where, f"the node of '{what}' must be exactly one node, not {len(ranks)}")
        return ranks[0]

    def _check_tag(self, tag: int, where: str, what: str) -> None:
        if not 0 <= tag < TAGS:
            raise RuntimeFailure(where, f"the tag of '{what}' is {tag}; tags must be in 0..{TAGS - 1}")

    def _xmpacc_post(self, where: bytes, nodes: int, ref: int | None, tag: int) -> None:
        w = where_text(where)
        self._check_tag(tag, w, "post")
        target = self._one_node(nodes, ref, w, "post")
        self._add(self._control_win(w), target, self.world.Get_rank() * TAGS + tag, 1)

    def _xmpacc_wait(self, where: bytes, nodes: int | None, ref: int | None, has_tag: int, tag: int) -> None:
        w = where_text(where)
        win = self._control_win(w)
        sources = [self._one_node(nodes, ref, w, "wait")] if nodes else list(range(self.world.Get_size()))
        if has_tag:
            self._check_tag(tag, w, "wait")
        tags = [tag] if has_tag else list(range(TAGS))
        self._wait_for(win, [s * TAGS + t for s in sources for t in tags])

    # ------------------------------------------------------------------ critical
    def _xmpacc_critical(self, where: bytes, end: int) -> None:
        w = where_text(where)
        size = self.world.Get_size()
        lock_word(self._control_win(w), self.world.Get_rank(), 0, 8 * (size * TAGS + size), bool(end),
                  "critical", w, unit=8)


def own_lock_word(addr: int, me: int, release: bool, what: str, where: str) -> None:
    """A lock word of this image's (world rank ``me``) own window-less copy (coarray.py
    _windowless_own): the same owner + 1 protocol as lock_word, as plain memory; the only
    image that can reach it is this one (the messages are lock_word's)."""
    word = ctypes.c_int64.from_address(addr)
    if release and word.value != me + 1:
        raise RuntimeFailure(where, f"unlock of {what}, which this image does not hold")
    if not release and word.value == me + 1:
        raise RuntimeFailure(where, f"{what} is already held by this image")
    word.value = 0 if release else me + 1


def lock_word(win: Any, me: int, rank: int, disp: int, release: bool, what: str, where: str,
              unit: int = 1) -> None:
    """Acquire (owner + 1 into a 0 word) or release (back to 0) a lock word of image
    ``rank``'s window for image ``me`` (world ranks)."""
    from mpi4py import MPI

    mine = np.array([me + 1], dtype=np.int64)
    new, expected = (np.zeros(1, dtype=np.int64), mine) if release else (mine, np.zeros(1, dtype=np.int64))
    found = np.zeros(1, dtype=np.int64)
    pause = 1e-5
    while True:
        win.Lock(rank, MPI.LOCK_SHARED)
        win.Compare_and_swap([new, MPI.INT64_T], [expected, MPI.INT64_T], [found, MPI.INT64_T],
                             rank, disp // unit)
        win.Unlock(rank)
        if found[0] == expected[0]:
            return
        if release:
            raise RuntimeFailure(where, f"unlock of {what}, which this image does not hold")
        if found[0] == mine[0]:
            raise RuntimeFailure(where, f"{what} is already held by this image")
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)
