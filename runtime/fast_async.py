"""``reflect ... async (id)`` and its ``wait_async`` without Python: the runtime's half.

A time loop that overlaps its halo exchange with work calls ``async_begin``, ``reflect``,
``async_end`` and later ``wait_async`` at every step; through the runtime each of them
crossed from C into Python.  Once ``FastAsync`` turns the glue's side on
(include/xmpacc_async.h), those four run in C: the directives begin and end there, a
host reflect with a plan (fast_reflect.py) starts its persistent requests there, and
``wait_async`` and ``xmp_test_async`` complete them there, each step of a reflect started
when the previous one completes, as the general path does (reflect.StepsPending).

Python still owns any other operation under async (gmove, bcast, reductions, a reflect
with no plan yet): ``AsyncOps`` (asyncs.py) reads the current id from C, tells C which
ids it holds operations under (C starts nothing under those), and takes over what C
started under an id before it adds to that id, waits for it or tests it: the reflects C
started become ``ReflectInFlight`` operations of Python's list, completed by the same C
function.  A plan dropped while its requests are in flight is taken over the same way
and freed once they complete.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_OPS = 64      # include/xmpacc_async.h _XMPACC_ASYNC_OPS
_PYTHON = 16   # _XMPACC_ASYNC_PYTHON


class CFastAsync(ctypes.Structure):
    """_xmpacc_fast_async_t of include/xmpacc_async.h."""

    _fields_ = [("on", ctypes.c_int), ("active", ctypes.c_int), ("current", ctypes.c_longlong),
                ("npython", ctypes.c_int), ("python", ctypes.c_longlong * _PYTHON), ("nops", ctypes.c_int),
                ("id", ctypes.c_longlong * _OPS), ("op", ctypes.c_void_p * _OPS),
                ("waits", ctypes.c_longlong), ("tests", ctypes.c_longlong)]


@dataclass
class ReflectInFlight:
    """A reflect C started under async, now in Python's list (asyncs.Pending): completed
    by the C side's own function; ``release`` once complete when its plan was dropped."""

    plan: Any                                    # fast_reflect.FastPlan
    progress: Any                                # _xmpacc_fast_reflect_progress
    release: Callable[[Any], None]
    done: bool = False

    def test(self) -> bool:
        return self._progress(0)

    def wait(self) -> None:
        self._progress(1)

    def _progress(self, wait: int) -> bool:
        if self.done:
            return True
        got = self.progress(ctypes.addressof(self.plan.c), wait)
        if got < 0:
            from mpi4py import MPI

            raise MPI.Exception(MPI.ERR_OTHER)
        if got == 1:
            self.done = True
            if self.plan.retired:
                self.release(self.plan)
        return self.done


class FastAsync:
    """The glue's async state (``_xmpacc_fast_async``), as asyncs.AsyncOps asks it
    (asyncs.CSide)."""

    def __init__(self, lib: Any, plan_at: Callable[[int], Any],
                 release: Callable[[Any], None]) -> None:
        self.c = CFastAsync.in_dll(lib, "_xmpacc_fast_async")
        self.progress = lib._xmpacc_fast_reflect_progress
        self.progress.argtypes, self.progress.restype = [ctypes.c_void_p, ctypes.c_int], ctypes.c_int
        self.drop = lib._xmpacc_fast_async_drop
        self.drop.argtypes, self.drop.restype = [ctypes.c_longlong], None
        self.plan_at, self.release = plan_at, release
        self.published: list[int] = []

    def start(self) -> None:
        """From now on async_begin and async_end run in C."""
        self.c.on = 1

    def current(self) -> int | None:
        return int(self.c.current) if self.c.active else None

    def take(self, async_id: int) -> list[Any]:
        ops = [self.c.op[k] for k in range(self.c.nops) if self.c.id[k] == async_id]
        if not ops:
            return []
        self.drop(async_id)
        return [ReflectInFlight(self.plan_at(addr), self.progress, self.release) for addr in ops]

    def ids_of(self, plan: Any) -> list[int]:
        """The ids under which C has ``plan``'s requests in flight."""
        addr = ctypes.addressof(plan.c)
        return [int(self.c.id[k]) for k in range(self.c.nops) if self.c.op[k] == addr]

    def publish(self, ids: list[int]) -> None:
        if ids == self.published:
            return
        self.published = ids
        if len(ids) > _PYTHON:
            self.c.npython = -1   # more than C's list holds: every id is Python's
            return
        for k, async_id in enumerate(ids):
            self.c.python[k] = async_id
        self.c.npython = len(ids)

    def count(self, stats: dict[str, int]) -> None:
        """The waits and tests done in C, into the runtime counters (XMPACC_STATS)."""
        for key, name in (("wait_async_fast_calls", "waits"), ("test_async_fast_calls", "tests")):
            n = getattr(self.c, name)
            setattr(self.c, name, 0)
            if n:
                stats[key] = stats.get(key, 0) + n
