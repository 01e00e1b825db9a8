"""The implicit data region of an OpenACC compute construct (XcalableACC §2).

``acc parallel loop`` / ``kernels loop`` / ``parallel`` / ``kernels`` open a data region
around themselves: their data clauses and, for every array the kernels use that no clause
names, OpenACC 2.5's implicit ``copy``.  Every mode has present_or semantics: a variable
that already has a device copy (``acc replicate``, an enclosing data region) is used as it
is and not copied; otherwise the region makes the copy, moves it in (copy, copyin) at the
start and out (copy, copyout) at the end, and frees it.  Both are the present table's
reference counts of acc_data.py (``attach`` / ``release``), as for an ``acc data`` region.
``present`` of an absent variable is an error naming the line and the variable.  Keys and
sizes are those of ``_xmpacc_replicate_begin`` (acc_replicate.py): an aligned array's copy is
its local block with shadows.

``async(n)`` on a construct (§3) runs its kernels on queue n's stream (acc_queues.py:
``_xmpacc_acc_queue_begin`` / ``_xmpacc_acc_queue_end`` around them).  Copies the implicit
data region made are moved out at its end after every queue has finished (the end of a
data region blocks the host).  A reduction of the construct is combined on the host when
its kernel ends (the host then waits for that kernel), or, where the compiler deferred it
(passes/gpu/acc_reduction_wait.py), at ``_xmpacc_acc_reductions_wait`` (acc.py).  On the
host backend every kernel runs to completion when it is launched, in program order, which
is what ordered queues promise.
"""

from __future__ import annotations

import ctypes
from typing import Any

from .acc_data import AccData, DataItem, read_clause
from .acc_queues import Queues
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
from .device_memory import DeviceMemory
from .errors import RuntimeFailure, where_text
from .shared import Shared

# a compute construct's data modes (present_or semantics) as data clause kinds of acc_data.py
_KINDS = {DATA_PRESENT: ACC_PRESENT, DATA_COPY: ACC_COPY, DATA_COPYIN: ACC_COPYIN,
          DATA_COPYOUT: ACC_COPYOUT, DATA_CREATE: ACC_CREATE}


class AccCompute:
    """The implicit data regions of the compute constructs (a concern of ``api.Runtime``):
    they hold references in the present table through ``AccData`` (``attach`` /
    ``release``), like an ``acc data`` region."""

    def __init__(self, shared: Shared, device: DeviceMemory, data: AccData, queues: Queues) -> None:
        self.shared, self.device, self.data, self.queues = shared, device, data, queues
        self.regions: dict[int, list[DataItem]] = {}   # region -> its variables
        # region -> (the C side's where, the clause's arrays) of a construct that found
        # every variable present: its end offers the C side a plan (replay.py)
        self.replayable: dict[int, tuple[int, int, list[Any]]] = {}
        self.next_region = 1
        self.clauses: dict[tuple[bytes, ...], list[tuple[DataItem, int]]] = {}   # _compute_clause

    def _xmpacc_acc_compute_begin(self, where: bytes, n: int, keys: int, sizes: int, names: int,
                                  modes: int) -> int:
        clause = self._compute_clause(where, n, keys, sizes, names, modes)
        w = where_text(where)
        replay, copies = self.shared.replay, self.device.copies
        present = replay is not None and all(item.key in copies for item, _mode in clause)
        items = []
        for item, mode in clause:
            if mode == DATA_PRESENT and item.key not in copies and self.data.part_of_present(item) is None:
                if item.size == -2 and item.sec is None:   # used in the construct, in no clause
                    raise RuntimeFailure(w, f"pointer '{item.name}' of unknown extent is not present on the "
                                            "device: name it in a data clause with its extent, "
                                            f"copy({item.name}[0:n]), or use the construct inside an 'acc "
                                            "data' region that holds its data")
                raise RuntimeFailure(w, f"'{item.name}' is not present on the device (present clause)")
            self.data.attach(item, w, dynamic=False)   # present: one more reference
            items.append(item)
        region = self.next_region
        self.next_region += 1
        self.regions[region] = items
        if present and all(copies[item.key].refs >= 2 for item in items):
            site = replay.compute_site(n, keys, sizes, modes)
            if site is not None:
                self.replayable[region] = site
        return region

    def _compute_clause(self, where: bytes, n: int, keys: int, sizes: int, names: int,
                        modes: int) -> list[tuple[DataItem, int]]:
        """The construct's variables and modes, read once per call site and contents: a
        construct inside a time loop passes the same arrays every time, and decoding them
        through ctypes cost more than the rest of the call (names are decoded only when
        the keys, sizes or modes are new)."""
        raw = (where, ctypes.string_at(keys, 8 * n), ctypes.string_at(sizes, 8 * n),
               ctypes.string_at(modes, 4 * n)) if n else (where,)
        clause = self.clauses.get(raw)
        if clause is None:
            self.device.need_backend(where_text(where))
            mode_list = list((ctypes.c_int * n).from_address(modes)) if n else []
            clause = [(DataItem(key, size, name, _KINDS[mode], None), mode)
                      for (key, size, name), mode in zip(read_clause(n, keys, sizes, names),
                                                         mode_list, strict=True)]
            if len(self.clauses) > 512:
                self.clauses.clear()
            self.clauses[raw] = clause
        return clause

    def _xmpacc_acc_compute_end(self, region: int) -> None:
        items = self.regions.pop(region, [])
        replayable = self.replayable.pop(region, None)
        copies = self.device.copies
        last = [item for item in items if (c := copies.get(item.key)) is not None and c.refs <= 1
                and c.dynamic <= 0]
        if last:   # copies go away: every queue first, then move out
            self.queues.wait_all()
        for item in reversed(items):
            copy = copies.get(item.key)
            if copy is None:
                continue
            copy.refs -= 1
            self.data.release(copy, item, "end of the compute construct")
        if replayable is not None and self.shared.replay is not None:
            # every copy stays: the region's begin and end change nothing the next time
            self.shared.replay.offer_compute(*replayable)
