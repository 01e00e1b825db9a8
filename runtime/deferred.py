"""The deferred reductions of launches: ``_xmpacc_acc_defer_reductions`` before a launch
leaves its results on their way (passes/gpu/acc_reduction_wait.py), and the host
collects them at ``_xmpacc_acc_reductions_wait`` (or drops one at
``_xmpacc_acc_reductions_discard``); an XMP reduction of such a variable is put after
them (reductions.py).

Replayed launches (replay.py) defer their results on the C side
(include/xmpacc_results.h: ``_xmpacc_replay.deferred``).  ``Deferred`` keeps the one
order of both: every method first takes over what the C side holds (the C records map
back to their result objects through the replay's ``known``; a launch plan that goes
hands its deferred records over first), and while Python holds anything
(``python_deferred``) the C side leaves the deferral entries to Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


class Deferred:
    def __init__(self) -> None:
        self._results: list[Any] = []      # device_results.py objects, in launch order
        self._addrs: set[int] = set()      # their host variables
        self._after: list[Callable[[], None]] = []   # run after the results arrived
        self._next = False                 # the next launch defers (without a C side)
        self.replay: Any = None

    def bind(self, replay: Any) -> None:
        """The C side holds the deferral state from now on."""
        self.replay = replay
        replay.take_over = self._pull
        replay.c.defer_next = int(self._next)
        self._mirror()

    @property
    def next(self) -> bool:
        """Does the next launch defer its results?"""
        return bool(self.replay.c.defer_next) if self.replay is not None else self._next

    @next.setter
    def next(self, value: bool) -> None:
        if self.replay is not None:
            self.replay.c.defer_next = int(value)
        else:
            self._next = value

    def results(self) -> list[Any]:
        self._pull()
        return list(self._results)

    def has(self, addr: int) -> bool:
        self._pull()
        return addr in self._addrs

    def holds_any(self, results: Iterable[Any]) -> bool:
        self._pull()
        return any(r is q for r in results for q in self._results)

    def has_after(self) -> bool:
        return bool(self._after)

    def add(self, results: list[Any]) -> None:
        self._pull()
        self._results += results
        self._addrs.update(int(r.host.ctypes.data) for r in results)
        self._mirror()

    def add_after(self, run: Callable[[], None]) -> None:
        self._pull()
        self._after.append(run)
        self._mirror()

    def discard(self, addr: int) -> None:
        self._pull()
        self._results = [r for r in self._results if int(r.host.ctypes.data) != addr]
        self._addrs.discard(addr)
        self._mirror()

    def take(self) -> tuple[list[Any], list[Callable[[], None]]]:
        """Everything deferred, in order; nothing is deferred after."""
        self._pull()
        out = (self._results, self._after)
        self._results, self._after, self._addrs = [], [], set()
        self._mirror()
        return out

    def _pull(self) -> None:
        c = self.replay.c if self.replay is not None else None
        if c is None or not c.ndeferred:
            return
        for k in range(c.ndeferred):
            r = self.replay.known[c.deferred[k]]
            self._results.append(r)
            self._addrs.add(int(r.host.ctypes.data))
        c.ndeferred = 0
        self._mirror()

    def _mirror(self) -> None:
        if self.replay is not None:
            self.replay.c.python_deferred = len(self._results) + len(self._after)
