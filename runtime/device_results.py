"""The reduction results of a prepared launch (acc.py ``Launch.reductions``): how each
reduction of a ``loop ... acc`` reaches its host variable.

A kernel leaves one partial per warp (per thread on the host backend).  Each reduction
of a prepared launch gets one result object, made once with the launch and replayed with
it: ``before_launch`` and ``start`` around every launch of the kernel, ``finish`` when
the host needs the value (at once, or at ``_xmpacc_acc_reductions_wait`` for a deferred
one).

* ``DeviceResult`` (GPU) and ``HostResult`` (host backend), for the integer and floating
  types: a record of include/xmpacc_results.h, whose functions do the work, called from
  here on the general path and directly by a replayed launch (replay.py), so that both
  reduce alike.  On a GPU ``start`` queues behind the kernel, on a side stream, the
  partials kernel (partials.py), a copy of the value into page-locked host memory and an
  event; ``finish`` waits for that event alone (kernels queued after it go on, and do not
  wait for it either) and folds the value into the host variable.  On the host backend
  the partials are reduced after the kernel.
* ``CupyResult`` and ``WaitResult``: the other types (bool, long double, complex), by
  CuPy's reductions on the side stream, or on the host after a wait for the stream.
* ``EmptyResult``: a deferred launch with no iterations on this node; the variable keeps
  its value.
* ``PresentResult``: a variable present on the device (OpenACC 2.7: a construct's
  reduction implies copy, and the original variable is then the device copy).  ``start``
  brings the device value to a scratch cell, folds the partials into it through one of
  the above, and puts it back, before the host queues anything else (a later kernel may
  read it); the host variable stays as it was.

An XMP ``reduction`` of a variable whose deferred result is still on its way
(acc_collectives.py ``reduce_pending``) runs on the device where NCCL can: DeviceResult,
CupyResult and EmptyResult then queue the host's value, the NCCL reduction over the nodes
(a communicator of its own) and the copy to the host behind the result, and ``finish``
stores the outcome.
"""

from __future__ import annotations

import ctypes
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import partials as partials_kernel
from .errors import RuntimeFailure

_REDUCE = {1: "sum", 2: "prod", 3: "bitwise_and", 4: "bitwise_or", 5: "bitwise_xor",
           6: "all", 7: "any", 8: "max", 9: "min"}

# host value op device result, by numpy reduction name (read-only)
_COMBINE_HOST = {"sum": operator.add, "prod": operator.mul, "bitwise_and": operator.and_,
                 "bitwise_or": operator.or_, "bitwise_xor": operator.xor, "max": max, "min": min}


# XMP operator code -> CuPy ufunc of host value op device value, where NCCL has the operator
_UFUNC = {1: "add", 2: "multiply", 8: "maximum", 9: "minimum"}
_IDENTITY = {1: 0, 2: 1}   # a host value that leaves the result as it is (sums and products)


def on_device(op: int) -> bool:
    """Can CuPy reduce the partials of ``op`` (no reduce for the bitwise ufuncs)?"""
    return not _REDUCE[op].startswith("bitwise")


def fold(host: np.ndarray, op: int, r: Any) -> None:
    """host[0] = host[0] op r, in the host variable's type (``&&`` / ``||``: 0 or 1)."""
    name = _REDUCE[op]
    if name in ("all", "any"):
        r = bool(r)
        host[0] = int(bool(host[0]) and r) if op == 6 else int(bool(host[0]) or r)
        return
    host[0] = _COMBINE_HOST[name](host[0], host.dtype.type(r.item() if hasattr(r, "item") else r))


def combine(host: np.ndarray, partial: Any, op: int, xp: Any) -> None:
    """host[0] = host[0] op (reduction of the partials), in the host variable's type."""
    if partial.size == 0:
        return
    name = _REDUCE[op]
    if name in ("all", "any"):
        r = getattr(xp, name)(partial != 0)
    elif name in ("max", "min"):
        r = getattr(xp, name)(partial)
    elif name.startswith("bitwise"):
        # CuPy has no reduce for the bitwise ufuncs; the partials are one per block
        r = getattr(np, name).reduce(partial.get() if hasattr(partial, "get") else partial)
    else:
        r = getattr(xp, name)(partial, dtype=host.dtype)
    fold(host, op, r)


class CResult(ctypes.Structure):
    """_xmpacc_result_t of include/xmpacc_results.h."""

    _fields_ = [("host", ctypes.c_void_p), ("type", ctypes.c_int), ("op", ctypes.c_int),
                ("partials", ctypes.c_void_p), ("n", ctypes.c_longlong), ("value", ctypes.c_void_p),
                ("function", ctypes.c_void_p), ("grid", ctypes.c_uint), ("blocks", ctypes.c_size_t),
                ("done", ctypes.c_size_t), ("out", ctypes.c_size_t), ("side", ctypes.c_void_p),
                ("launched", ctypes.c_void_p), ("reduced", ctypes.c_void_p), ("ready", ctypes.c_void_p),
                ("over_nodes", ctypes.c_int), ("finished", ctypes.c_int), ("params", ctypes.c_void_p * 5)]


def in_c(type_code: int) -> bool:
    """Does include/xmpacc_results.h reduce this type (the integer and floating types)?"""
    return type_code in partials_kernel.CTYPES


class _Calls:
    """The glue's result functions (bound once per program library)."""

    def __init__(self, lib: Any) -> None:
        ptr = ctypes.POINTER(CResult)
        self.before, self.start, self.finish = lib._xmpacc_result_before, lib._xmpacc_result_start, \
            lib._xmpacc_result_finish
        for fn in (self.before, self.start):
            fn.argtypes, fn.restype = [ptr, ctypes.c_void_p], ctypes.c_int
        self.finish.argtypes, self.finish.restype = [ptr], ctypes.c_int


_CALLS: dict[int, _Calls] = {}


def driver_error(code: int) -> str:
    """The CUDA driver's name of an error code, as CuPy's messages give it."""
    try:
        from cupy.cuda import driver

        return str(driver.CUDADriverError(code))
    except Exception:  # noqa: BLE001 - no CuPy (the host backend), or a code it does not know
        return f"CUDA error {code}"


def calls(lib: Any) -> _Calls:
    found = _CALLS.get(id(lib))
    if found is None:
        found = _CALLS[id(lib)] = _Calls(lib)
    return found


class _Recorded:
    """A result whose work the C record does (DeviceResult, HostResult)."""

    c: CResult
    calls: _Calls
    where: str
    host: np.ndarray

    def _check(self, status: int) -> None:
        if status:
            raise RuntimeFailure(self.where, f"the kernel of this acc loop (or an earlier one) failed: "
                                             f"{driver_error(status)}")

    def before_launch(self) -> None:
        self._check(self.calls.before(ctypes.byref(self.c), self._stream()))

    def start(self) -> None:
        self._check(self.calls.start(ctypes.byref(self.c), self._stream()))

    def finish(self) -> None:
        self._check(self.calls.finish(ctypes.byref(self.c)))

    def _stream(self) -> int:
        return 0


class HostResult(_Recorded):
    """The host backend: the partials, reduced in C after the kernel (which ran inside
    its launch), then folded into the variable."""

    def __init__(self, lib: Any, host: np.ndarray, partial: np.ndarray, op: int, type_code: int,
                 where: str) -> None:
        self.host, self.partial, self.where, self.calls = host, partial, where, calls(lib)
        self.value = np.zeros(1, host.dtype)
        self.c = CResult(int(host.ctypes.data), type_code, op, int(partial.ctypes.data), partial.size,
                         int(self.value.ctypes.data))


class DeviceResult(_Recorded):
    """Reduced on the device behind its kernel; the host waits for this reduction only.

    The partials kernel, the copy to the host and an XMP reduction over the nodes run on a
    side stream (the backend's, one per GPU) that waits for the kernel: the kernels queued
    after it on the kernel's stream (Himeno's copy kernel, the next iteration's reflect)
    do not wait for them, and they overlap.  ``before_launch`` puts the kernel's next
    run behind the reduction that reads its partials.  The buffers and events are made
    once and reused by every launch: acc.py waits for a pending one before its kernel
    runs again."""

    def __init__(self, backend: Any, host: np.ndarray, partial: Any, op: int, type_code: int,
                 where: str) -> None:
        import cupyx

        cupy = self.cupy = backend.cupy
        self.host, self.op, self.where, self.calls = host, op, where, calls(backend.lib)
        self.side = backend.side_stream()
        size = host.dtype.itemsize
        blocks = partials_kernel.grid(partial.size, backend.props["multiProcessorCount"])
        # the blocks' counter (zero between launches), the value, a value per block
        self.scratch = cupy.zeros(16 + size * blocks, dtype=np.uint8)
        base = int(self.scratch.data.ptr)
        self.value = self.scratch[8: 8 + size].view(host.dtype).reshape(())
        self.pinned = cupyx.empty_pinned((1,), dtype=host.dtype)
        event = cupy.cuda.Event
        self.events = [event(block=False, disable_timing=True) for _ in range(3)]  # launched, reduced, ready
        self.c = CResult(int(host.ctypes.data), type_code, op, int(partial.data.ptr), partial.size,
                         int(self.pinned.ctypes.data), partials_kernel.kernel(cupy, type_code, op), blocks,
                         base + 16, base, base + 8, self.side.ptr, *(int(e.ptr) for e in self.events))

    def _stream(self) -> int:
        return int(self.cupy.cuda.get_current_stream().ptr)

    @property
    def over_nodes_ok(self) -> bool:
        return self.op in _UFUNC

    def reduce_over_nodes(self, allreduce: Callable[[int, Any], None]) -> None:
        """Queue behind the result: the host's value joined as ``fold`` would (once), then
        ``allreduce(pointer, stream)`` over the nodes in place, then the copy to the host."""
        h = self.host[0]
        if not self.c.over_nodes and _IDENTITY.get(self.op) != h:
            with self.side:
                getattr(self.cupy, _UFUNC[self.op])(self.value, h, out=self.value)
        allreduce(int(self.value.data.ptr), self.side)
        self.c.over_nodes = 1
        runtime = self.cupy.cuda.runtime
        runtime.memcpyAsync(int(self.pinned.ctypes.data), int(self.value.data.ptr), self.value.nbytes,
                            runtime.memcpyDeviceToHost, self.side.ptr)
        self.events[2].record(self.side)


class WaitResult:
    """Reduces the partials when the host needs the value, after ``wait`` (the types
    the C records do not take)."""

    def __init__(self, host: np.ndarray, partial: Any, op: int, xp: Any, wait: Callable[[], None]) -> None:
        self.host, self.partial, self.op = host, partial, op
        self.xp, self.wait = xp, wait

    def before_launch(self) -> None:
        """The partials are reduced after a wait for the stream."""

    def start(self) -> None:
        # its kernel's stream: an async queue's, where the launch was deferred past the
        # construct (the host then waits for that stream, not the current one)
        cuda = getattr(self.xp, "cuda", None)
        self.stream = cuda.get_current_stream() if cuda is not None else None

    def finish(self) -> None:
        stream = getattr(self, "stream", None)
        if stream is not None:
            try:
                stream.synchronize()
            except Exception:  # noqa: BLE001, S110 - a failed kernel: the backend's wait reports it
                pass
        self.wait()
        combine(self.host, self.partial, self.op, self.xp)


class CupyResult:
    """DeviceResult's steps through CuPy, for bool, long double and complex variables."""

    def __init__(self, cupy: Any, host: np.ndarray, partial: Any, op: int, where: str, side: Any) -> None:
        import cupyx

        self.host, self.partial, self.op, self.where = host, partial, op, where
        self.cupy, self.side = cupy, side
        name = _REDUCE[op]
        self.reduce = getattr(cupy, name)   # sum, prod, all, any, max, min
        # sums in the host variable's type, as combine
        self.dtype_arg = {"dtype": host.dtype} if name in ("sum", "prod") else {}
        logical = name in ("all", "any")
        dtype = np.bool_ if logical else host.dtype
        # && and ||: partial != 0 first (CuPy's all/any take bool), into a buffer of its own
        self.nonzero = cupy.empty(partial.shape, dtype=np.bool_) if logical else None
        self.value: Any = None   # the device value of the last start, alive until its copy is done
        self.over_nodes = False  # reduce_over_nodes since the last start: finish stores the value
        self.pinned = cupyx.empty_pinned((), dtype=dtype)
        event = cupy.cuda.Event
        self.launched = event(block=False, disable_timing=True)   # the kernel, on its stream
        self.reduced = event(block=False, disable_timing=True)    # its partials read
        self.ready = event(block=False, disable_timing=True)      # the value in self.pinned

    def before_launch(self) -> None:
        self.cupy.cuda.get_current_stream().wait_event(self.reduced)

    def start(self) -> None:
        # the kernel was just launched on the current stream (CudaBackend.launch)
        self.launched.record(self.cupy.cuda.get_current_stream())
        self.side.wait_event(self.launched)
        with self.side:   # CuPy's reduction runs on the current stream
            partial = self.partial
            if self.nonzero is not None:
                partial = self.cupy.not_equal(partial, 0, out=self.nonzero)
            self.value = self.reduce(partial, **self.dtype_arg)
        self.reduced.record(self.side)
        self.over_nodes = False
        self._to_host()

    def _to_host(self) -> None:
        runtime = self.cupy.cuda.runtime
        runtime.memcpyAsync(self.pinned.ctypes.data, self.value.data.ptr, self.value.nbytes,
                            runtime.memcpyDeviceToHost, self.side.ptr)
        self.ready.record(self.side)

    @property
    def over_nodes_ok(self) -> bool:
        return self.op in _UFUNC

    def reduce_over_nodes(self, allreduce: Callable[[int, Any], None]) -> None:
        h = self.host[0]
        if not self.over_nodes and _IDENTITY.get(self.op) != h:
            with self.side:
                self.value = getattr(self.cupy, _UFUNC[self.op])(self.value, h)
        allreduce(self.value.data.ptr, self.side)
        self.over_nodes = True
        self._to_host()

    def finish(self) -> None:
        try:
            self.ready.synchronize()
        except Exception as e:  # noqa: BLE001 - an execution error of the kernel (or an earlier one)
            raise RuntimeFailure(self.where,
                                 f"the kernel of this acc loop (or an earlier one) failed: {e}") from None
        if self.over_nodes:
            self.host[0] = self.pinned[()]
        else:
            fold(self.host, self.op, self.pinned[()])


class EmptyResult:
    """A deferred launch with no iterations on this node (acc.py): the variable keeps its
    value.  It stands in the pending list so that every node defers alike, and an XMP
    reduction of the variable takes the same path on every node (NCCL is collective):
    over the nodes, this node's value goes to the device for it."""

    def __init__(self, backend: Any, host: np.ndarray, op: int) -> None:
        self.backend, self.host = backend, host
        self.over_nodes_ok = backend.name != "host" and op in _UFUNC   # where a launch has a DeviceResult
        self.value: Any = None

    def start(self) -> None:
        """Nothing ran."""

    def reduce_over_nodes(self, allreduce: Callable[[int, Any], None]) -> None:
        cupy = self.backend.xp
        if self.value is None:
            self.value = cupy.asarray(self.host)
        allreduce(self.value.data.ptr, cupy.cuda.get_current_stream())

    def finish(self) -> None:
        if self.value is not None:
            self.host[...] = self.value.get()
            self.value = None


class PresentResult:
    """The reduction of a variable present on the device into its device copy (above)."""

    def __init__(self, backend: Any, buffer: Any, scratch: np.ndarray, inner: Any) -> None:
        self.backend, self.buffer, self.host, self.inner = backend, buffer, scratch, inner

    def before_launch(self) -> None:
        """``start`` completes its reduction."""

    def start(self) -> None:
        self.backend.wait()
        self.backend.copy_out(self.buffer, self.host.ctypes.data, self.host.nbytes)
        self.inner.start()
        self.inner.finish()
        self.backend.copy_in(self.buffer, self.host.ctypes.data, self.host.nbytes)

    def finish(self) -> None:
        """Done in ``start``."""
