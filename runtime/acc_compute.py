"""The implicit data region of an OpenACC compute construct (XcalableACC §2).

``acc parallel loop`` / ``kernels loop`` / ``parallel`` / ``kernels`` open a data region
around themselves: their data clauses and, for every array the kernels use that no clause
names, OpenACC 2.5's implicit ``copy``.  Every mode has present_or semantics: a variable
that already has a device copy (``acc replicate``, an enclosing data region) is used as it
is and not copied; otherwise the region makes the copy, moves it in (copy, copyin) at the
start and out (copy, copyout) at the end, and frees it.  Both are the present table's
reference counts of acc_data.py (``_attach`` / ``_release``), as for an ``acc data`` region.
``present`` of an absent variable is an error naming the line and the variable.  Keys and
sizes are those of ``_xmpacc_replicate_begin`` (runtime/acc.py): an aligned array's copy is
its local block with shadows.

``async(n)`` on a construct (§3): ``_xmpacc_acc_queue_begin`` makes queue n's CUDA stream
(acc_data.py) the current one, so the construct's kernels are launched there and the host
goes on; ``_xmpacc_acc_queue_end`` restores the stream before.  A queue's kernels run in
order, ``acc wait`` synchronises it.  Copies the implicit data region made are moved out
at its end after every queue has finished (the end of a data region blocks the host).
A reduction of the construct is combined on the host when its kernel ends (the host then
waits for that kernel), or, where the compiler deferred it (passes/gpu/acc_reduction_wait.py),
at ``_xmpacc_acc_reductions_wait`` (acc.py).  On the host backend every kernel runs to completion when it is
launched, in program order, which is what ordered queues promise.
"""

from __future__ import annotations

import ctypes
from typing import Any

from .acc import read_clause
from .acc_data import DataItem
from .contract import (
    ACC_COPY,
    ACC_COPYIN,
    ACC_COPYOUT,
    ACC_CREATE,
    ACC_PRESENT,
    DATA_COPY,
    DATA_COPYIN,
    DATA_COPYOUT,
    DATA_CREATE,
    DATA_PRESENT,
)
from .deferred import Deferred
from .errors import RuntimeFailure, where_text

# a compute construct's data modes (present_or semantics) as data clause kinds of acc_data.py
_KINDS = {DATA_PRESENT: ACC_PRESENT, DATA_COPY: ACC_COPY, DATA_COPYIN: ACC_COPYIN,
          DATA_COPYOUT: ACC_COPYOUT, DATA_CREATE: ACC_CREATE}


class AccComputeRuntime:
    """Mixed into ``api.Runtime``; its regions hold references in the present table of
    acc_data.py (``_attach`` / ``_release``), like an ``acc data`` region."""

    copies: dict[int, Any]
    backend: Any
    generation: int
    replay: Any

    def _acc_compute_init(self) -> None:
        self.compute_regions: dict[int, list[DataItem]] = {}   # region -> its variables
        # region -> (the C side's where, the clause's arrays) of a construct that found
        # every variable present: its end offers the C side a plan (replay.py)
        self.compute_replayable: dict[int, tuple[int, int, list[Any]]] = {}
        self.next_compute_region = 1
        self.queue_stack: list[Any] = []    # the streams before each async construct
        self.compute_clauses: dict[tuple[bytes, ...], list[tuple[DataItem, int]]] = {}   # _compute_clause
        # deferred reductions (acc.py _xmpacc_acc_defer_reductions; reductions.py asks it
        # in every program)
        self.deferred = Deferred()

    def _xmpacc_acc_compute_begin(self, where: bytes, n: int, keys: int, sizes: int, names: int,
                                  modes: int) -> int:
        clause = self._compute_clause(where, n, keys, sizes, names, modes)
        w = where_text(where)
        replay = self.replay
        present = replay is not None and all(item.key in self.copies for item, _mode in clause)
        items = []
        for item, mode in clause:
            if mode == DATA_PRESENT and item.key not in self.copies and self._part_of_present(item) is None:  # type: ignore[attr-defined]
                if item.size == -2 and item.sec is None:   # used in the construct, in no clause
                    raise RuntimeFailure(w, f"pointer '{item.name}' of unknown extent is not present on the "
                                            "device: name it in a data clause with its extent, "
                                            f"copy({item.name}[0:n]), or use the construct inside an 'acc "
                                            "data' region that holds its data")
                raise RuntimeFailure(w, f"'{item.name}' is not present on the device (present clause)")
            self._attach(item, w, dynamic=False)   # type: ignore[attr-defined]   # present: one more reference
            items.append(item)
        region = self.next_compute_region
        self.next_compute_region += 1
        self.compute_regions[region] = items
        if present and all(self.copies[item.key].refs >= 2 for item in items):
            site = replay.compute_site(n, keys, sizes, modes)
            if site is not None:
                self.compute_replayable[region] = site
        return region

    def _compute_clause(self, where: bytes, n: int, keys: int, sizes: int, names: int,
                        modes: int) -> list[tuple[DataItem, int]]:
        """The construct's variables and modes, read once per call site and contents: a
        construct inside a time loop passes the same arrays every time, and decoding them
        through ctypes cost more than the rest of the call (names are decoded only when
        the keys, sizes or modes are new)."""
        raw = (where, ctypes.string_at(keys, 8 * n), ctypes.string_at(sizes, 8 * n),
               ctypes.string_at(modes, 4 * n)) if n else (where,)
        clause = self.compute_clauses.get(raw)
        if clause is None:
            self._need_backend(where_text(where))  # type: ignore[attr-defined]
            mode_list = list((ctypes.c_int * n).from_address(modes)) if n else []
            clause = [(DataItem(key, size, name, _KINDS[mode], None), mode)
                      for (key, size, name), mode in zip(read_clause(n, keys, sizes, names),
                                                         mode_list, strict=True)]
            if len(self.compute_clauses) > 512:
                self.compute_clauses.clear()
            self.compute_clauses[raw] = clause
        return clause

    def _xmpacc_acc_queue_begin(self, where: bytes, queue: int) -> None:
        stream = self._stream(queue)   # type: ignore[attr-defined]
        previous = self.backend.cupy.cuda.get_current_stream() if stream is not None else None
        self.queue_stack.append(previous)
        if stream is not None:
            stream.use()
            if self.replay is not None:
                self.replay.set_stream(stream.ptr)

    def _xmpacc_replay_sync(self) -> None:
        """Before a call runs in Python: the async queues the C side switched
        (include/xmpacc_queues.h) become CuPy's current streams as if begun here, and the
        ends of those constructs run here."""
        c = self.replay.c
        streams = {int(s.ptr): s for s in self.queues.values()}   # type: ignore[attr-defined]
        depth = c.queue_depth
        for d in range(depth):
            if c.queue_switched[d]:
                self.queue_stack.append(self.backend.cupy.cuda.get_current_stream())
                streams[(c.queue_saved[d + 1] if d + 1 < depth else c.stream) or 0].use()
            else:
                self.queue_stack.append(None)
        c.queue_depth = c.dirty = 0

    def _xmpacc_acc_queue_end(self) -> None:
        previous = self.queue_stack.pop() if self.queue_stack else None
        if previous is not None:
            previous.use()
            if self.replay is not None:
                self.replay.set_stream(previous.ptr)

    def _xmpacc_acc_compute_end(self, region: int) -> None:
        items = self.compute_regions.pop(region, [])
        replayable = self.compute_replayable.pop(region, None)
        last = [item for item in items if (c := self.copies.get(item.key)) is not None and c.refs <= 1
                and c.dynamic <= 0]
        if last:   # copies go away: every queue first, then move out
            self._xmpacc_acc_wait(b"", -1, 0)   # type: ignore[attr-defined]
        for item in reversed(items):
            copy = self.copies.get(item.key)
            if copy is None:
                continue
            copy.refs -= 1
            self._release(copy, item, "end of the compute construct")   # type: ignore[attr-defined]
        if replayable is not None and self.replay is not None:
            # every copy stays: the region's begin and end change nothing the next time
            self.replay.offer_compute(*replayable)
