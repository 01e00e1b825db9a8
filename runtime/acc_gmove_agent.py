"""The gmove agent: ``gmove in/out ... acc`` (XcalableACC.md §4 with global-view §2) read
or write the device copies of nodes that run no code for them.

A one-sided gmove (``in`` inside a task: pull from owners outside it; ``out``: push to
them) needs "no code on the remote side's control flow".  The host form puts MPI windows
on the local blocks (gmove.py); a device copy cannot be a window here (the MPI need not be
CUDA-aware), so a program with ``gmove in/out ... acc`` starts an *agent* on every node:
a thread that serves the other nodes' requests on a communicator of its own (a duplicate
of the world, so requests never meet the program's messages):

    request  (tag _REQUEST, int64)  [op, element size, key seq, k, key members (k), peer offsets...]
    data     (tag _DATA, bytes)     the elements to put (op PUT only)
    answer   (tag _ANSWER, bytes)   [code (8 bytes), the elements got (op GET)]

The requesting node plans as the host gmove does (the plan lists, per peer, the element
offsets in the peer's local block), so the agent only gathers or scatters rows of its
device copy.  An array is named by a key every node computes alike: the world ranks of
the nodes that aligned it and how many arrays those nodes aligned together before it.
The agent also serves the device copies of coarrays (XcalableACC §5a,
runtime/coarray_device.py), offered under keys of their own (no ranks, their order).

A request on an array that its owner has not aligned or put on its device yet waits
(XMPACC_GMOVE_WAIT seconds at most, 60 by default): nothing orders the owner's align or
data region against the requesting task, as a window's collective creation does.

Order: like a window's owner, the agent does not wait for its node's queued device work
(that work may be an NCCL exchange with the very node waiting for the answer, a
deadlock): the program orders one-sided gmoves against the owners' kernels with
``barrier acc``, which waits for the devices.  A put is complete on the device before the
agent answers.  A copy enters the present table once its copy-in has run (or been queued,
with ``async``) and leaves it before its copy-out, under a lock the agent holds while it
serves a request: a request finds a copy with its data, or none.  The agent polls
(Iprobe, sleeping up to 1 ms when idle): a thread blocked in a receive spins a core in
common MPI libraries.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

GET, PUT, STOP = 0, 1, 2
OK, UNKNOWN, ABSENT, PARTLY, BROKEN = 0, 1, 2, 3, 4   # answer codes
_REQUEST, _DATA, _ANSWER = 7311, 7312, 7313
_NAPS = (2e-5, 1e-3)    # the idle poll's first and longest sleep (seconds)
_TEXT = 256             # the longest reason an answer carries
_WAIT = 60.0            # XMPACC_GMOVE_WAIT's default

Key = tuple[tuple[int, ...], int]
Rows = Callable[[int, int], Any]   # (descriptor, element size) -> rows of the device copy, or a code


def selector(offsets: np.ndarray, xp: Any) -> Any:
    """Rows by offsets: a slice for consecutive ones, else an index array on ``xp``."""
    n = len(offsets)
    if n and int(offsets[-1]) - int(offsets[0]) == n - 1 and (n == 1 or bool((np.diff(offsets) == 1).all())):
        return slice(int(offsets[0]), int(offsets[0]) + n)
    return xp.asarray(offsets.astype(np.int64))


def reason(code: int, name: str, peer: int, detail: str) -> str:
    """Why node ``peer`` could not serve a request on ``name`` (it waited XMPACC_GMOVE_WAIT
    seconds for the first two)."""
    waited = f"within {_patience():g} s (XMPACC_GMOVE_WAIT)"
    return {UNKNOWN: f"'{name}' was not aligned on node {peer} {waited}: its align had not run there, or "
                     "it was released",
            ABSENT: f"'{name}' was not present on the device of node {peer} {waited}: no acc data, enter "
                    "data, declare or acc replicate held it there, or that node had left the data region "
                    "that did (a barrier after this gmove keeps it there)",
            PARTLY: f"'{name}' is only partly present on the device of node {peer}"}.get(
        code, f"node {peer} failed to serve it: {detail}")


def _patience() -> float:
    """How long the agent waits for an array to be aligned and on its device (seconds)."""
    try:
        return max(0.0, float(os.environ.get("XMPACC_GMOVE_WAIT", _WAIT)))
    except ValueError:
        return _WAIT


@dataclass
class _Request:
    peer: int
    op: int
    key: Key
    esize: int
    offsets: np.ndarray
    data: np.ndarray | None
    since: float           # when it came (time.monotonic)


class GmoveAgent:
    """This node's agent (a daemon thread) and the requests this node makes of others."""

    def __init__(self, world: Any, rows: Rows, backend: Callable[[], Any], lock: Any) -> None:
        self.comm = world.Dup()
        self.rows, self.backend = rows, backend
        self.lock = lock   # the present table's (device_memory.py): held from finding a copy to done with it
        self.counters: dict[tuple[int, ...], int] = {}
        self.keys: dict[int, tuple[Any, Key]] = {}   # id(DistArray) -> (weak reference, key)
        self.ptrs: dict[Key, int] = {}               # key -> descriptor
        self.offered: dict[Key, Callable[[int], Any]] = {}   # key -> rows by element size (coarrays)
        self.stream: Any = None
        self.patience = _patience()
        self.thread: threading.Thread | None = threading.Thread(target=self._serve, name="xmpacc-gmove-agent",
                                                                daemon=True)
        self.thread.start()

    # ------------------------------------------------------------------ arrays
    def register(self, arr: Any, ptr: int, members: list[int]) -> None:
        """``arr`` was aligned by the nodes ``members`` (world ranks), collectively: each
        of them gives it the same key."""
        group = tuple(members)
        seq = self.counters.get(group, 0)
        self.counters[group] = seq + 1
        key = (group, seq)
        self.keys[id(arr)] = (weakref.ref(arr), key)
        self.ptrs[key] = ptr

    def forget(self, arr: Any) -> None:
        entry = self.keys.pop(id(arr), None)
        if entry is not None:
            self.ptrs.pop(entry[1], None)

    def offer(self, key: Key, rows: Callable[[int], Any]) -> None:
        """Serve ``key`` (no aligned array's: ``((), n)``) from ``rows(element size)``."""
        self.offered[key] = rows

    def key_of(self, arr: Any) -> Key | None:
        entry = self.keys.get(id(arr))
        return entry[1] if entry is not None and entry[0]() is arr else None

    # ------------------------------------------------------------------ requests
    def request(self, op: int, key: Key, esize: int, items: list[tuple[int, np.ndarray, np.ndarray | None]]
                ) -> list[tuple[int, np.ndarray]]:
        """One request per (peer, its offsets, data to put), all in flight at once; the
        answers in the same order: (code, the elements got as rows of ``esize`` bytes, or
        the reason's text for BROKEN)."""
        from mpi4py import MPI

        members, seq = key
        keep, requests, answers = [], [], []
        for peer, offsets, data in items:
            head = np.concatenate(([op, esize, seq, len(members)], members, offsets)).astype(np.int64)
            keep.append(head)
            requests.append(self.comm.Isend([head, MPI.INT64_T], dest=peer, tag=_REQUEST))
            if op == PUT:
                requests.append(self.comm.Isend([data, MPI.BYTE], dest=peer, tag=_DATA))
            nbytes = len(offsets) * esize if op == GET else 0
            answer = np.zeros(8 + max(nbytes, _TEXT), dtype=np.uint8)   # room for a BROKEN answer's text
            answers.append((answer, nbytes))
            requests.append(self.comm.Irecv([answer, MPI.BYTE], source=peer, tag=_ANSWER))
        MPI.Request.Waitall(requests)
        out = []
        for answer, nbytes in answers:
            code = int(answer[:8].view(np.int64)[0])
            out.append((code, answer[8:8 + nbytes].reshape(-1, esize) if code == OK else answer[8:]))
        return out

    # ------------------------------------------------------------------ serving
    def _serve(self) -> None:
        from mpi4py import MPI

        status, nap = MPI.Status(), _NAPS[0]
        waiting: list[_Request] = []
        while True:
            waiting = [r for r in waiting if not self._try(r)]
            if not self.comm.Iprobe(MPI.ANY_SOURCE, _REQUEST, status):
                time.sleep(nap)
                nap = min(2 * nap, _NAPS[1])
                continue
            nap = _NAPS[0]
            request = self._receive(status.Get_source(), status.Get_count(MPI.INT64_T))
            if request is None:
                return
            if not self._try(request):
                waiting.append(request)

    def _receive(self, peer: int, count: int) -> _Request | None:
        """The request ``peer`` sent (None: stop)."""
        from mpi4py import MPI

        head = np.empty(count, dtype=np.int64)
        self.comm.Recv([head, MPI.INT64_T], source=peer, tag=_REQUEST)
        op = int(head[0])
        if op == STOP:
            return None
        esize, seq, k = (int(v) for v in head[1:4])
        data = None
        if op == PUT:
            data = np.empty((len(head) - 4 - k) * esize, dtype=np.uint8)
            self.comm.Recv([data, MPI.BYTE], source=peer, tag=_DATA)
        return _Request(peer, op, (tuple(int(v) for v in head[4:4 + k]), seq), esize, head[4 + k:], data,
                        time.monotonic())

    def _try(self, r: _Request) -> bool:
        """Answer ``r``, unless its array is not aligned or not on the device yet and the
        agent may still wait for it (the owner has not reached its align or its data
        region: nothing orders that against the requester's task)."""
        try:
            if self.stream is None:
                self.stream = self._stream()
            with self.lock:
                code, out = self._answer(r.op, r.key, r.esize, r.offsets, r.data, self.stream)
        except Exception as e:  # noqa: BLE001 - the requester reports it; it must not wait forever
            code, out = BROKEN, np.frombuffer(f"{type(e).__name__}: {e}".encode()[:_TEXT], dtype=np.uint8)
        if code in (UNKNOWN, ABSENT) and time.monotonic() - r.since < self.patience:
            return False
        from mpi4py import MPI

        answer = np.concatenate((np.array([code], dtype=np.int64).view(np.uint8), out))
        self.comm.Send([answer, MPI.BYTE], dest=r.peer, tag=_ANSWER)
        return True

    def _stream(self) -> Any:
        """The agent's CUDA stream (non-blocking: it does not queue behind the program's
        work), on its node's GPU; False on the host backend, None before there is one."""
        backend = self.backend()
        if backend is None:
            return None
        if backend.name == "host":
            return False
        backend.cupy.cuda.Device(backend.device_id).use()
        return backend.cupy.cuda.Stream(non_blocking=True)

    def _answer(self, op: int, key: Key, esize: int, offsets: np.ndarray, data: np.ndarray | None,
                stream: Any) -> tuple[int, np.ndarray]:
        ptr, offered = self.ptrs.get(key), self.offered.get(key)
        if ptr is None and offered is None:
            return UNKNOWN, np.empty(0, dtype=np.uint8)
        rows = offered(esize) if offered is not None else self.rows(ptr, esize)
        if isinstance(rows, int):
            return rows, np.empty(0, dtype=np.uint8)
        if len(offsets) and (int(offsets.min()) < 0 or int(offsets.max()) >= len(rows)):
            raise IndexError(f"element offsets up to {int(offsets.max())} in a copy of {len(rows)} elements")
        if not stream:   # the host backend: its "device" copies are host arrays
            if op == GET:
                return OK, np.ascontiguousarray(rows[offsets]).reshape(-1)
            rows[offsets] = data.reshape(-1, esize)
            return OK, np.empty(0, dtype=np.uint8)
        xp = self.backend().xp
        with stream:
            sel = selector(offsets, xp)
            if op == GET:
                return OK, rows[sel].get(stream=stream).reshape(-1)
            rows[sel] = xp.asarray(data.reshape(-1, esize))
            stream.synchronize()
        return OK, np.empty(0, dtype=np.uint8)

    # ------------------------------------------------------------------ end
    def stop(self, world: Any) -> None:
        """Collective: once every node is here no request can come; end the thread."""
        if self.thread is None:
            return
        from mpi4py import MPI

        world.Barrier()
        stop = np.array([STOP], dtype=np.int64)
        request = self.comm.Isend([stop, MPI.INT64_T], dest=self.comm.Get_rank(), tag=_REQUEST)
        self.thread.join()
        request.Wait()
        self.thread = None
        self.comm.Free()
