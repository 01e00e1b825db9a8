"""The runtime of a checked run: ``Runtime`` plus the bookkeeping of device copies.

The checked subscripts (include/xmpacc_check.h) check every access of a distributed array;
this module checks what moves between host and device copies, at the runtime calls where
it moves (``acc replicate``, launches: the checked concerns ``CheckedReplicate`` and
``CheckedKernels`` share one ``CopyBook``).  Per device copy it keeps:

* ``valid``: something was copied in (``replicate_sync in``) or computed there (a kernel
  that writes it).  A kernel that reads a copy that is not valid reads uninitialised
  device memory: ``acc replicate_sync in`` is missing.
* ``snapshot``: the host bytes when host and device last agreed (``replicate_sync`` in
  either direction).  A kernel that reads the copy while the host bytes differ reads
  stale data: the host wrote the variable after the last ``replicate_sync in``.  Cost: a
  copy of the host buffer and one comparison per launch and read variable (checked runs
  only).  Limits: a host write that stores the value already there is not seen (and is
  harmless); both checks skip variables the kernel also writes (``b[i] = x; b[i] += y``
  writes before it reads, which the runtime cannot tell from a read of old data).
* ``writer``: the loop of the last kernel that wrote the copy, cleared by
  ``replicate_sync out``.  While it is set, the descriptor's ``check`` flag makes every
  host access of an aligned array fail (checked host code, xmpacc_check.h), and a host
  ``reflect`` or a ``replicate_sync in`` of it fails: they would use or overwrite stale
  data.  Limits: host accesses of replicated variables that are not aligned arrays are not
  seen (no descriptor); a host write counts like a read.

Descriptors get distinct ids (``Checks.ids``, check.py), so that a kernel's copy of a descriptor
still names its array.  Nothing here runs in an unchecked run.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from .acc import Kernels
from .acc_replicate import Replicate
from .api import Runtime
from .arrays import DistArray
from .check import Checks, element
from .contract import LAUNCH_DEVBUF, LAUNCH_READS, LAUNCH_WRITES
from .cstructs import CArray
from .device_memory import DeviceMemory
from .errors import RuntimeFailure, where_text
from .shared import Shared


@dataclass
class CopyState:
    name: str
    valid: bool = False
    snapshot: np.ndarray | None = None
    writer: str | None = None


def _host_bytes(addr: int, nbytes: int) -> np.ndarray:
    if nbytes == 0:
        return np.zeros(0, np.uint8)
    return np.frombuffer((ctypes.c_char * nbytes).from_address(addr), dtype=np.uint8)


class CopyBook:
    """The state of each replicated variable's device copy (module doc), and the checks
    that read it; ``checks`` holds what the checked host accesses see (check.py)."""

    def __init__(self, shared: Shared, device: DeviceMemory, checks: Checks) -> None:
        self.arrays, self.device, self.checks = shared.arrays, device, checks
        self.states: dict[int, CopyState] = {}

    def newer(self, key: int, writer: str | None) -> None:
        """Mark (or clear) the host copy of aligned array ``key`` as stale."""
        if key in self.arrays:
            CArray.from_address(key).dim[0].check = int(writer is not None)
            if writer is None:
                self.checks.device_writer.pop(key, None)
                self.checks.freed_newer.discard(key)
            else:
                self.checks.device_writer[key] = writer

    def check_read(self, key: int, where: str) -> None:
        state = self.states.get(key)
        copy = self.device.copies.get(key)
        if state is None or copy is None:
            return   # the launch itself reports a variable without a device copy
        n = state.name
        if not state.valid:
            raise RuntimeFailure(where, f"the kernel of this loop reads '{n}' on the device, but nothing "
                                        "was copied there: add '#pragma xmp acc replicate_sync in "
                                        f"({n})' before the loop")
        host = _host_bytes(copy.host_addr, copy.nbytes)
        if state.snapshot is not None and not np.array_equal(host, state.snapshot):
            first = int(np.flatnonzero(host != state.snapshot)[0])
            raise RuntimeFailure(where, f"the kernel of this loop reads '{n}' on the device, but the host "
                                        f"changed {self._what(key, n, first)} after the last acc "
                                        f"replicate_sync in ({n}): the device copy is stale; add '#pragma "
                                        f"xmp acc replicate_sync in ({n})' before the loop")

    def _what(self, key: int, name: str, byte: int) -> str:
        """The element at byte ``byte`` of a device copy's host buffer, as the user names it."""
        arr = self.arrays.get(key)
        if arr is None:
            return f"'{name}'"
        return element(arr, _global_of(arr, byte // arr.elem_size))

    def device_violation(self, where: str) -> None:
        """A CUDA kernel's first bad access (host-backend kernels report it themselves)."""
        read = getattr(self.device.backend, "violation", None)
        found = read() if read is not None else None
        if found is None:
            return
        what, ident, line, g = found
        key = self.checks.ids.get(ident)
        arr = self.arrays.get(key) if key is not None else None
        if arr is None:
            raise RuntimeFailure(where, "a kernel of this loop made a bad access of a distributed array")
        raise self.checks.access_failure(key, arr, what, g[: len(arr.layouts)],
                                         f"{where.rsplit(':', 1)[0]}:{line}")


class CheckedReplicate(Replicate):
    """``acc replicate`` noting each copy's state in the book."""

    def __init__(self, shared: Shared, device: DeviceMemory, book: CopyBook) -> None:
        super().__init__(shared, device)
        self.book = book

    def _xmpacc_replicate_begin(self, where: bytes, n: int, keys: int, sizes: int, names: int) -> int:
        region = super()._xmpacc_replicate_begin(where, n, keys, sizes, names)
        for key in self.regions[region]:
            self.book.states[key] = CopyState(self.device.copies[key].name)
        return region

    def _xmpacc_replicate_end(self, region: int) -> None:
        for key in self.regions.get(region, []):
            state = self.book.states.pop(key, None)
            if state is not None and state.writer is not None and key in self.book.arrays:
                self.book.checks.freed_newer.add(key)
        super()._xmpacc_replicate_end(region)

    def _xmpacc_replicate_sync(self, where: bytes, direction: int, key: int, name: bytes) -> None:
        state = self.book.states.get(key)
        w, n = where_text(where), name.decode()
        if state is not None and direction == 0 and state.writer is not None:
            raise RuntimeFailure(w, f"acc replicate_sync in ({n}) overwrites the device copy of '{n}', which "
                                    f"a kernel ({state.writer}) wrote after the last acc replicate_sync out "
                                    f"({n}); add '#pragma xmp acc replicate_sync out ({n})' after that loop")
        if state is not None and direction == 1 and not state.valid:
            raise RuntimeFailure(w, f"acc replicate_sync out ({n}) copies the device copy of '{n}', which "
                                    f"holds nothing yet (no acc replicate_sync in ({n}), no kernel wrote it)")
        super()._xmpacc_replicate_sync(where, direction, key, name)
        if state is not None:
            copy = self.device.copies[key]
            state.valid, state.writer = True, None
            state.snapshot = _host_bytes(copy.host_addr, copy.nbytes).copy()
            self.book.newer(key, None)


class CheckedKernels(Kernels):
    """Launches that check what their kernels read and note what they write."""

    def __init__(self, shared: Shared, device: DeviceMemory, book: CopyBook) -> None:
        super().__init__(shared, device)
        self.book = book

    def _xmpacc_launch(self, where: bytes, kernel: bytes, total: int, nthreads: int, nparams: int,
                       args: int, kinds: int) -> None:
        w = where_text(where)
        flat = list((ctypes.c_longlong * (3 * nparams)).from_address(kinds))
        arg_list = list((ctypes.c_void_p * nparams).from_address(args))
        used = [(arg_list[i] or 0, flat[3 * i + 1]) for i in range(nparams) if flat[3 * i] == LAUNCH_DEVBUF]
        for key, use in used:
            if use == LAUNCH_READS and total > 0:   # a kernel that also writes it may write first
                self.book.check_read(key, w)
        super()._xmpacc_launch(where, kernel, total, nthreads, nparams, args, kinds)
        self.book.device_violation(w)
        for key, use in used:
            state = self.book.states.get(key)
            if use & LAUNCH_WRITES and state is not None:
                state.valid = True                # computed there (a node without iterations too)
                if total > 0:
                    state.writer = w
                    self.book.newer(key, w)


class CheckedRuntime(Runtime):
    """``Runtime`` with the checked concerns of replicate and the launches (module doc)."""

    def _device_code(self, device: DeviceMemory) -> tuple[Replicate, Kernels]:
        book = CopyBook(self.shared, device, self.checks)
        return CheckedReplicate(self.shared, device, book), CheckedKernels(self.shared, device, book)

    # ------------------------------------------------------------ descriptors
    def _xmpacc_align(self, ptr: int, *args: Any) -> int:
        base = super()._xmpacc_align(ptr, *args)
        ident = next((i for i, p in self.checks.ids.items() if p == ptr), len(self.checks.ids) + 1)
        CArray.from_address(ptr).id = ident   # one id per descriptor, however often it is aligned
        self.checks.ids[ident] = ptr
        return base

    # ------------------------------------------------------------ host reflect
    def _xmpacc_reflect(self, ptr: int, where: bytes, widths: int | None) -> None:
        writer = self.checks.device_writer.get(ptr)
        if writer is not None:
            n = self.arrays[ptr].name
            gone = " and its device copy was freed at the end of the acc replicate region" \
                if ptr in self.checks.freed_newer else ""
            raise RuntimeFailure(where_text(where), f"reflect ({n}) sends the host copy of '{n}', but a "
                                                    f"kernel ({writer}) wrote '{n}' on the device after the "
                                                    f"last acc replicate_sync out ({n}){gone}; add '#pragma "
                                                    f"xmp acc replicate_sync out ({n})' before the reflect")
        super()._xmpacc_reflect(ptr, where, widths)


def _global_of(arr: DistArray, flat: int) -> list[int]:
    """The global indices of local element number ``flat`` of ``arr``'s buffer."""
    local = [int(x) for x in np.unravel_index(flat, arr.shape)] if arr.shape else []
    out = []
    for lay, loc in zip(arr.layouts, local, strict=True):
        if lay.dist is not None and lay.dist.kind == "cyclic" and not lay.full_shadow:
            out.append(lay.dist.glb(lay.coord, loc) - lay.offset)
        else:
            out.append(loc + lay.gtol)
    return out
