"""Overlapped ``reflect ... acc`` exchanges that the loop's kernel makes itself
(``include/xmpacc_push.h`` says how the kernel does it; docs/performance.md, "O3b").

At a site the overlap pass found (a ``reflect (u) acc`` right before a loop that reads u's
shadow only along one dimension), the compiler gives the loop's kernel a ``_xmpacc_push_t``
and the reflect call its address.  The first call at the site exchanges through the
transport as any reflect does; then, where every node of the exchange can, this module
plans the push, collectively:

* the transport is NCCL, the exchange one step of contiguous slabs (no staging), at most
  two neighbours and four slabs, and every node of the array's communicator agrees;
* the neighbours are other GPUs of the same host (a process that waits in a kernel for
  another process on its own GPU would wait for a kernel that cannot run beside it);
* each node maps its neighbours' receive slabs and flags (CUDA IPC) and pairs its k-th
  send to a neighbour with that neighbour's k-th receive from it, as NCCL pairs them.

From the next call on, the reflect call exchanges nothing: it numbers the call (``want``)
and marks the struct active, in C (include/xmpacc_replay.h) or here, and the kernel stores
the rows.  ``XMPACC_PUSH=0`` keeps every exchange on the transport; ``XMPACC_PUSH_SPIN_S``
bounds a kernel's wait for a neighbour (20 s; then the kernel traps and the launch fails
at the loop's line).

A device copy that moves (a data region that ends and begins again around the loop), or a
site in a function that reflects another array than last time, is mapped again at the
first call that sees it, on every node at once: data regions and calls are the same on
every node, so every node sees its own copy move at the same call.
"""

from __future__ import annotations

import ctypes
import os
import socket
from dataclasses import dataclass, field
from typing import Any

from .reflect import active_step, planned_steps
from .replay import driver

UNITS_PEERS, UNITS_SLABS = 2, 4   # include/xmpacc_push.h _XMPACC_PUSH_PEERS, _XMPACC_PUSH_SLABS
FLAG_BYTES = 64


class PushDesc(ctypes.Structure):
    """include/xmpacc_push.h ``_xmpacc_push_desc_t`` (in device memory)."""

    _fields_ = [("npeers", ctypes.c_int), ("nslabs", ctypes.c_int), ("slot", ctypes.c_int * UNITS_PEERS),
                ("mine", ctypes.c_void_p),
                ("theirs", ctypes.c_void_p * UNITS_PEERS), ("src", ctypes.c_void_p * UNITS_SLABS),
                ("dst", ctypes.c_void_p * UNITS_SLABS), ("bytes", ctypes.c_longlong * UNITS_SLABS),
                ("spin_ns", ctypes.c_longlong)]


class PushStruct(ctypes.Structure):
    """include/xmpacc_push.h ``_xmpacc_push_t`` (the generated code's static variable)."""

    _fields_ = [("active", ctypes.c_int), ("want", ctypes.c_uint), ("lo", ctypes.c_longlong),
                ("hi", ctypes.c_longlong), ("desc", ctypes.c_void_p), ("arrived", ctypes.c_void_p),
                ("npeers", ctypes.c_int), ("flip", ctypes.c_int), ("generation", ctypes.c_longlong),
                ("bytes", ctypes.c_longlong), ("array", ctypes.c_void_p)]


def enabled() -> bool:
    return os.environ.get("XMPACC_PUSH", "1") != "0"


def spin_ns() -> int:
    try:
        return int(float(os.environ.get("XMPACC_PUSH_SPIN_S", "20")) * 1e9)
    except ValueError:
        return 20_000_000_000


@dataclass
class Pushes:
    """The sites whose kernels push, by the address of their ``_xmpacc_push_t``; the flags of
    this process (one allocation per site) and the neighbours' memory mapped here."""

    device: Any
    shared: Any
    # site -> the base of the device copy its push was mapped for; 0: the site never pushes
    sites: dict[int, int] = field(default_factory=dict)
    opened: dict[bytes, int] = field(default_factory=dict)   # IPC handle -> its base here
    flags: dict[int, int] = field(default_factory=dict)      # site -> this process's flags

    def call(self, push: int, ptr: int) -> bool:
        """A call at a site that pushes: number it and let the kernel exchange (True); False:
        the site does not push (yet), the caller exchanges."""
        planned = self.sites.get(push)
        s = PushStruct.from_address(push)
        if not planned:
            return False
        copy = self.device.copies.get(ptr)
        base = self.device.backend.ptr(copy.buffer) if copy is not None else 0
        if ptr != s.array or base != planned:   # another array, or the copy moved: planned again
            return False
        s.generation = self._generation()
        s.active = 1
        s.want = (s.want + 1) & 0xFFFFFFFF
        self.shared.count("pushed_reflects")
        return True

    def _generation(self) -> int:
        replay = self.shared.replay
        return int(replay.c.generation) if replay is not None else 0

    def plan(self, push: int, ptr: int, arr: Any, ws: Any, orthogonal: bool, view: Any,
             transport: Any) -> None:
        """After a general exchange at the site: plan its pushes, collectively (module doc)."""
        s = PushStruct.from_address(push)
        s.active = 0
        replanned = self.sites.get(push)
        if replanned == 0:
            return   # refused once, by every node
        planned = planned_steps(arr, ws, orthogonal)
        if not planned:
            return   # nothing to exchange on any node (no collective either)
        # every node of the step's communicator takes part, also one without neighbours
        comm, steps = planned[0][1], [st for st in planned if active_step(st)]
        me = self.shared.world.Get_rank()
        mine = self._local(steps, view, transport, me) if enabled() and steps else None
        rt = self.device.backend.cupy.cuda.runtime
        flags = self.flags.get(push, 0)
        if mine is not None and not flags:   # the flags, then the descriptor (_fill)
            flags = self.flags[push] = rt.malloc(FLAG_BYTES + ctypes.sizeof(PushDesc))
            rt.memset(flags, 0, FLAG_BYTES + ctypes.sizeof(PushDesc))
        payload = None
        if mine is not None:
            sends, recvs, peers = mine
            try:
                props = rt.getDeviceProperties(rt.getDevice())
                bus = (props.get("pciDomainID"), props.get("pciBusID"), props.get("pciDeviceID"))
                payload = (me, socket.gethostname(), bus, peers,
                           self._handle(flags), [(p, *self._handle(d), n) for p, d, n in recvs])
            except Exception:   # noqa: BLE001 - no IPC here: every node keeps the transport
                payload = None
        every = comm.allgather(payload)
        self.sites[push] = 0
        if any(p is None for p in every):
            s.npeers = 0
            return
        by_rank = {p[0]: p for p in every}
        d = PushDesc()
        ok = self._fill(d, mine, by_rank, me, flags) if mine is not None else False
        if not all(comm.allgather(ok)):
            s.npeers = 0
            return
        d.spin_ns = spin_ns()
        if replanned:
            self.device.backend.wait_all()   # no kernel still reads the old descriptor
        rt.memcpy(flags + FLAG_BYTES, ctypes.addressof(d), ctypes.sizeof(d), rt.memcpyHostToDevice)
        copy = self.device.copies.get(ptr)
        self.sites[push] = self.device.backend.ptr(copy.buffer)
        # want goes on counting where a moved copy is mapped again: the flags keep their counts
        s.desc, s.arrived = flags + FLAG_BYTES, flags + 2 * ctypes.sizeof(ctypes.c_uint)
        s.npeers, s.generation, s.array = d.npeers, self._generation(), ptr
        s.bytes = sum(d.bytes[k] for k in range(d.nslabs))

    def _local(self, steps: list[Any], view: Any, transport: Any, me: int) -> tuple[list, list, list] | None:
        """This node's sends and receives as (world rank, device address, bytes), in NCCL's
        order, and its neighbours; None where it cannot push."""
        if transport.name != "nccl" or len(steps) != 1 or self.device.backend.name != "cuda":
            return None
        _kind, comm, sends, recvs = steps[0]
        plan = transport.slab_plans.find(view, transport.address(view), sends, recvs)
        if plan.selected:
            return None
        ranks = transport.world_ranks_of(comm)
        out: list[list[tuple[int, int, int]]] = [[], []]
        for k, (messages, slabs) in enumerate(((sends, plan.sends), (recvs, plan.recvs))):
            for (peer, _tag, _region), slab in zip(messages, slabs, strict=True):
                if slab.stage is not None or ranks[peer] == me:
                    return None
                out[k].append((ranks[peer], int(slab.device), int(slab.nbytes)))
        peers = sorted({p for p, _, _ in out[0]})
        if peers != sorted({p for p, _, _ in out[1]}) or len(peers) > UNITS_PEERS \
                or len(out[0]) > UNITS_SLABS:
            return None
        return out[0], out[1], peers

    def _handle(self, address: int) -> tuple[bytes, int]:
        """The IPC handle of the allocation holding ``address`` and the offset in it."""
        base = _allocation_base(address)
        return bytes(self.device.backend.cupy.cuda.runtime.ipcGetMemHandle(base)), address - base

    def _open(self, handle: bytes) -> int:
        if handle not in self.opened:
            rt = self.device.backend.cupy.cuda.runtime
            self.opened[handle] = int(rt.ipcOpenMemHandle(handle, 1))   # cudaIpcMemLazyEnablePeerAccess
        return self.opened[handle]

    def _fill(self, s: PushDesc, mine: tuple[list, list, list], by_rank: dict[int, Any], me: int,
              flags: int) -> bool:
        """The kernel's descriptor: each send paired with the neighbour's receive from this
        node of the same order, mapped here.  False where a neighbour is on this GPU or
        another host, or the pairs do not match."""
        sends, _recvs, peers = mine
        my_host, my_bus = by_rank[me][1], by_rank[me][2]
        try:
            for p in peers:
                if p not in by_rank or by_rank[p][1] != my_host or by_rank[p][2] == my_bus \
                        or me not in by_rank[p][3]:
                    return False
            s.npeers, s.nslabs, s.mine = len(peers), len(sends), flags
            for k, p in enumerate(peers):
                handle, offset = by_rank[p][4]
                s.theirs[k] = self._open(handle) + offset
                s.slot[k] = by_rank[p][3].index(me)
            taken: dict[int, int] = {}
            for j, (p, src, nbytes) in enumerate(sends):
                theirs = [r for r in by_rank[p][5] if r[0] == me]
                n = taken.get(p, 0)
                taken[p] = n + 1
                if n >= len(theirs) or theirs[n][3] != nbytes:
                    return False
                _, handle, offset, _ = theirs[n]
                s.src[j], s.dst[j], s.bytes[j] = src, self._open(handle) + offset, nbytes
            return all(taken.get(p, 0) == sum(1 for r in by_rank[p][5] if r[0] == me) for p in peers)
        except Exception:   # noqa: BLE001 - a handle that does not open: the transport stays
            return False


def _allocation_base(address: int) -> int:
    """cuMemGetAddressRange: the start of the allocation (CuPy's pool hands out parts of
    larger ones; an IPC handle maps the whole allocation)."""
    base, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
    if driver().cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(address)):
        raise RuntimeError("cuMemGetAddressRange failed")
    return int(base.value)
