"""``acc replicate`` and ``acc replicate_sync`` of XMP-ACC: a region that gives each listed
variable a device copy (allocate / body / free, as Omni does), and the copies between the
host and that copy.

A variable's key is that of the present table (device_memory.py): an aligned array's
descriptor, whose copy mirrors its local buffer with shadows, or the variable itself.
A variable already present through OpenACC (acc_data.py) gets one more reference
instead of a second copy, so the two dialects share one copy.
"""

from __future__ import annotations

from .acc_data import read_clause
from .device_memory import DeviceMemory
from .errors import RuntimeFailure, where_text
from .shared import Shared


class Replicate:
    """The replicate regions: region -> the keys of its copies (a concern of ``api.Runtime``)."""

    def __init__(self, shared: Shared, device: DeviceMemory) -> None:
        self.shared, self.device = shared, device
        self.regions: dict[int, list[int]] = {}
        self.next_region = 1

    def _xmpacc_replicate_begin(self, where: bytes, n: int, keys: int, sizes: int, names: int) -> int:
        w = where_text(where)
        device = self.device
        device.need_backend(w)
        region = self.next_region
        self.next_region += 1
        device.generation += 1
        self.regions[region] = []
        for key, size, name in read_clause(n, keys, sizes, names):
            present = device.copies.get(key)
            if present is not None and present.openacc:
                # present through OpenACC (acc_data.py): one more reference; a variable
                # replicated twice by acc replicate alone stays an error
                present.refs += 1
            else:
                device.copies[key] = device.new_copy(key, size, name, w)
            self.regions[region].append(key)
        return region

    def _xmpacc_replicate_end(self, region: int) -> None:
        device = self.device
        device.generation += 1
        for key in self.regions.pop(region, []):
            copy = device.copies.get(key)
            if copy is None:
                continue
            copy.refs -= 1
            if copy.refs <= 0 and copy.dynamic <= 0:
                del device.copies[key]
                device.backend.unpin(copy.host_addr, copy.nbytes)

    def _xmpacc_replicate_sync(self, where: bytes, direction: int, key: int, name: bytes) -> None:
        copy = self.device.copies.get(key)
        if copy is None:
            raise RuntimeFailure(where_text(where), f"'{name.decode()}' has no device copy "
                                                    "(not inside its acc replicate)")
        backend = self.device.backend
        backend.wait()
        if copy.nbytes:
            if direction == 0:
                backend.copy_in(copy.buffer, copy.host_addr, copy.nbytes)
            else:
                backend.copy_out(copy.buffer, copy.host_addr, copy.nbytes)
        self.shared.count("sync_in_bytes" if direction == 0 else "sync_out_bytes", copy.nbytes)
