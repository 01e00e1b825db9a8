"""The device memory of a process: the backend, the present table and the transport of
device buffers.

The present table maps a variable's key to its ``DeviceCopy``.  The key is the host address
that identifies the variable: the descriptor of an aligned array (its copy mirrors the
whole local buffer, shadows included) or the variable itself.  ``acc replicate``
(acc_replicate.py) and the OpenACC data directives (acc_data.py) fill the one table, so
the two dialects mix both ways; launches (acc.py), ``reflect ... acc`` (acc_comm.py), the
collectives on device copies, gmove ... acc and device coarrays read it.

``DeviceMemory`` is the concern of ``api.Runtime`` that owns it; it is the ``shared.Device``
that gmove ... acc and the device coarrays see.  Its backend exists once the launcher has
chosen one (a program with kernels, ``start``); before, and in a program without kernels,
the table stays empty.
"""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass
from typing import Any

from .cstructs import CArray, CTemplate
from .errors import RuntimeFailure
from .shared import Shared


@dataclass
class DeviceCopy:
    name: str
    host_addr: int       # where the host data lives
    nbytes: int
    buffer: Any          # backend buffer
    desc_keep: Any = None
    desc_ptr: int = 0    # host address of the descriptor kernels get by value (aligned arrays)
    refs: int = 1        # structured references: acc replicate and acc data regions (acc_data.py)
    dynamic: int = 0     # dynamic references: acc enter data
    openacc: bool = False  # an OpenACC data directive holds it (acc replicate may share it)
    view: Any = None     # reflect's byte view of the buffer (device_view), made on first use
    parent: DeviceCopy | None = None   # a part of another copy (a pointer into a present array)


class DeviceMemory:
    """The backend (None until ``start``), the present table (``copies``), its
    ``generation`` and the transport of device buffers (module doc)."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.backend: Any = None
        self.copies: dict[int, DeviceCopy] = {}
        # held by a gmove agent (acc_gmove_agent.py) while it reads or writes a copy for
        # another node, and here while a copy leaves the table: a put lands before the
        # copy-out or finds the copy gone, never between
        self.present_lock = threading.Lock()
        self.transport: Any = None
        self._generation = 0

    def start(self, backend: Any) -> None:
        """The backend the launcher chose for a program with kernels."""
        self.backend = backend

    @property
    def generation(self) -> int:
        """Changes whenever device copies come or go: prepared launches and the C side's
        plans (replay.py) made before are stale."""
        return self._generation

    @generation.setter
    def generation(self, value: int) -> None:
        self._generation = value
        if self.shared.replay is not None:
            self.shared.replay.set_generation(value)

    def need_backend(self, where: str) -> Any:
        if self.backend is None:
            raise RuntimeFailure(where, "acc directive in a program built without kernels")
        return self.backend

    def _xmpacc_device_wait(self) -> None:
        if self.backend is not None:
            self.backend.wait()

    def device_transport(self) -> Any:
        """How ``reflect ... acc`` moves device slabs (made once, collectively, on first use):
        NCCL between GPUs, host MPI for the host backend's buffers; XMPACC_REFLECT=staged
        stages the slabs through host memory instead of NCCL."""
        if self.transport is None:
            from .staging import StagedTransport
            from .transport import MpiTransport, NcclTransport

            staged = os.environ.get("XMPACC_REFLECT", "nccl") == "staged"
            if self.backend.name == "host":   # staged there too: the CPU-only tests check it
                self.transport = StagedTransport(self.backend.xp) if staged else MpiTransport()
            elif staged or self._gpus_shared():
                # NCCL refuses two ranks on one GPU: then the slabs go through host memory
                self.transport = StagedTransport(self.backend.xp)
            else:
                self.transport = NcclTransport(self.backend.xp, self.shared.world)
        return self.transport

    def _gpus_shared(self) -> bool:
        """Do two ranks use the same GPU (more processes than GPUs on a host)?"""
        import socket

        mine = (socket.gethostname(), getattr(self.backend, "device_id", -1))
        everyone = self.shared.world.allgather(mine)
        return len(set(everyone)) < len(everyone)

    # ------------------------------------------------------------ the present table
    def copy_holding(self, addr: int) -> DeviceCopy | None:
        """The device copy keyed by ``addr``, else the (whole) copy whose host data hold the
        byte at ``addr``; None without one.  Callers check that what they need fits."""
        found = self.copies.get(addr)
        if found is not None:
            return found
        return next((c for c in self.copies.values()
                     if c.parent is None and c.host_addr <= addr < c.host_addr + c.nbytes), None)

    def new_copy(self, key: int, size: int, name: str, where: str) -> DeviceCopy:
        """A device copy of the variable ``key`` (``size`` bytes, -1: an aligned array, whose
        copy mirrors its local buffer); the caller puts it in the table."""
        backend = self.backend
        if key in self.copies:
            raise RuntimeFailure(where, f"'{name}' is already replicated")
        if size >= 0:
            backend.pin(key, size)
            return DeviceCopy(name, key, size, backend.alloc(size, name, where))
        arr = self.shared.arrays.get(key)
        if arr is None:
            raise RuntimeFailure(where, f"acc replicate of '{name}' before its align ran")
        nbytes = arr.buffer.nbytes
        backend.pin(int(arr.buffer.ctypes.data), nbytes)
        copy = DeviceCopy(name, int(arr.buffer.ctypes.data) if nbytes else 0, nbytes,
                          backend.alloc(nbytes, name, where))
        c = CArray.from_address(key)
        tmpl_addr = ctypes.cast(c.tmpl, ctypes.c_void_p).value or 0
        copy.desc_keep, copy.desc_ptr = backend.descriptor(key, ctypes.sizeof(CArray), tmpl_addr,
                                                           ctypes.sizeof(CTemplate))
        return copy

    def device_view(self, copy: DeviceCopy, arr: Any) -> Any:
        """A device copy of an aligned array as reflect's byte view (made once: a reflect in
        a time loop should not build array objects, nor work out the array's local shape,
        per call)."""
        if copy.view is None:
            copy.view = self.backend.view(copy.buffer, "uint8",
                                          copy.nbytes).reshape(arr.shape + (arr.elem_size,))
        return copy.view
