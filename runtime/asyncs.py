"""Asynchronous communication (global-view §7): operations started under an async id and
completed by ``wait_async``.

Generated code brackets a directive that has an ``async (id)`` clause:

    _xmpacc_async_begin(id);  _xmpacc_reflect(...);  _xmpacc_async_end();

While an id is current, an operation that can run in the background starts and hands a
``Pending`` to ``AsyncOps.add``; one that cannot simply completes at once, which XMP
allows (``async`` permits overlap, it does not require it).  ``wait_async (id, ...)``
completes every operation of those ids in the order they were started;
``xmp_test_async(id)`` says whether they are all complete, without waiting.  An id may
carry several operations; an unknown id is a no-op.  Host reflects under async run in C
(include/xmpacc_async.h, fast_async.py) while no operation of Python's shares their id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


class Pending(Protocol):
    """An operation in flight."""

    def test(self) -> bool:
        """Complete it if that needs no waiting; True once it is complete."""

    def wait(self) -> None:
        """Complete it."""


@dataclass
class MpiPending:
    """Non-blocking MPI requests, then ``finish`` once (e.g. unpack received slabs).
    ``keep`` holds the buffers the requests use until they complete."""

    requests: list[Any]
    finish: Callable[[], None] | None = None
    keep: Any = None
    done: bool = False

    def test(self) -> bool:
        from mpi4py import MPI

        if not self.done and MPI.Request.Testall(self.requests):
            self._finish()
        return self.done

    def wait(self) -> None:
        from mpi4py import MPI

        if not self.done:
            MPI.Request.Waitall(self.requests)
            self._finish()

    def _finish(self) -> None:
        self.done = True
        if self.finish is not None:
            self.finish()
        self.keep = None


class CSide(Protocol):
    """The glue's side of async (fast_async.py), when async directives begin and end in C."""

    def current(self) -> int | None:
        """The id of the directive with an async clause that is running, if any."""

    def take(self, async_id: int) -> list[Pending]:
        """The operations C started under ``async_id``, in order; C forgets them."""

    def publish(self, ids: list[int]) -> None:
        """The ids Python holds operations under: C leaves those to Python."""


@dataclass
class AsyncOps:
    """The async ids of one process and their operations in flight.  When the glue runs
    async_begin and async_end (``c_side``), C also keeps operations of its own, under ids
    Python holds nothing under; Python takes them over before it adds an operation to an
    id, waits for it or tests it, so that each id's operations complete in order."""

    own: int | None = None      # the current id when Python begins and ends the directives
    pending: dict[int, list[Pending]] = field(default_factory=dict)
    c_side: CSide | None = None

    def begin(self, async_id: int) -> None:
        self.own = async_id

    def end(self) -> None:
        self.own = None

    @property
    def current(self) -> int | None:
        return self.c_side.current() if self.c_side is not None else self.own

    @property
    def active(self) -> bool:
        """Is a directive with an async clause running (may its operation stay in flight)?"""
        return self.current is not None

    def add(self, op: Pending) -> None:
        """Register ``op`` under the current id; without one, complete it now."""
        current = self.current
        if current is None:
            op.wait()
            return
        self.take_over(current)
        self.pending.setdefault(current, []).append(op)
        self._publish()

    def wait(self, ids: list[int]) -> None:
        for async_id in ids:
            self.take_over(async_id)
            for op in self.pending.pop(async_id, []):
                op.wait()
        self._publish()

    def test(self, async_id: int) -> bool:
        self.take_over(async_id)
        ops = self.pending.get(async_id, [])
        done = all([op.test() for op in ops])   # a list: test every one, not just up to the first
        if done:
            self.pending.pop(async_id, None)
        self._publish()
        return done

    def take_over(self, async_id: int) -> None:
        """What C started under ``async_id`` becomes Python's (before anything of Python's:
        C starts nothing under an id Python holds)."""
        if self.c_side is not None:
            taken = self.c_side.take(async_id)
            if taken:
                self.pending.setdefault(async_id, []).extend(taken)
                self._publish()

    def _publish(self) -> None:
        if self.c_side is not None:
            self.c_side.publish(list(self.pending))
