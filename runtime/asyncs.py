"""Asynchronous communication (global-view §7): operations started under an async id and
completed by ``wait_async``.

Generated code brackets a directive that has an ``async (id)`` clause:

    _xmpacc_async_begin(id);  _xmpacc_reflect(...);  _xmpacc_async_end();

While an id is current, an operation that can run in the background starts and hands a
``Pending`` to ``AsyncOps.add``; one that cannot simply completes at once, which XMP
allows (``async`` permits overlap, it does not require it).  ``wait_async (id, ...)``
completes every operation of those ids in the order they were started;
``xmp_test_async(id)`` says whether they are all complete, without waiting.  An id may
carry several operations; an unknown id is a no-op.
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


@dataclass
class AsyncOps:
    """The async ids of one process and their operations in flight."""

    current: int | None = None
    pending: dict[int, list[Pending]] = field(default_factory=dict)

    def begin(self, async_id: int) -> None:
        self.current = async_id

    def end(self) -> None:
        self.current = None

    @property
    def active(self) -> bool:
        """Is a directive with an async clause running (may its operation stay in flight)?"""
        return self.current is not None

    def add(self, op: Pending) -> None:
        """Register ``op`` under the current id; without one, complete it now."""
        if self.current is None:
            op.wait()
        else:
            self.pending.setdefault(self.current, []).append(op)

    def wait(self, ids: list[int]) -> None:
        for async_id in ids:
            for op in self.pending.pop(async_id, []):
                op.wait()

    def test(self, async_id: int) -> bool:
        ops = self.pending.get(async_id, [])
        if all([op.test() for op in ops]):   # a list: test every one, not just up to the first
            self.pending.pop(async_id, None)
            return True
        return False
