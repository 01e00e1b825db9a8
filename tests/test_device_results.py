"""Reductions of ``loop ... acc`` launches (runtime/device_results.py, acc.py): on a GPU
each is reduced on the device behind its kernel, copied into page-locked memory and
marked by an event; the host waits for that event alone.  Here a stand-in for CuPy runs
the device path's steps on numpy arrays, in program order, and counts what it makes and
what the host waits for."""

from __future__ import annotations

import ctypes
import sys
import types
from typing import Any

import numpy as np
import pytest
from conftest import gpu_count

pytest.importorskip("mpi4py.MPI")
from xmpacc.runtime.acc import AccRuntime  # noqa: E402
from xmpacc.runtime.acc_collectives import AccCollectiveRuntime  # noqa: E402
from xmpacc.runtime.acc_compute import AccComputeRuntime  # noqa: E402
from xmpacc.runtime.contract import LAUNCH_REDUCTION  # noqa: E402
from xmpacc.runtime.device import CudaBackend, LaunchShape  # noqa: E402
from xmpacc.runtime.device_results import DeviceResult, EmptyResult, combine  # noqa: E402

PARTIALS = 4
F64, I64 = 14, 9   # type codes (collectives.DTYPES)
SUM, BOR, MAX = 1, 4, 8


class _DevArray(np.ndarray):
    """A numpy array with the ``data.ptr`` of a CuPy array."""

    @property
    def data(self) -> Any:   # type: ignore[override]
        return types.SimpleNamespace(ptr=self.__array_interface__["data"][0])

    def get(self) -> np.ndarray:
        return np.asarray(self)


class _Stream:
    def __init__(self, cupy: Any = None, non_blocking: bool = False) -> None:
        self.ptr = id(self)
        self.synchronized = 0
        self.cupy = cupy
        self.waits_for: list[_Event] = []
        self.before: list[_Stream] = []

    def synchronize(self) -> None:
        self.synchronized += 1

    def wait_event(self, event: _Event) -> None:
        self.waits_for.append(event)

    def __enter__(self) -> _Stream:   # CuPy's 'with stream:': current within
        self.before.append(self.cupy.current)
        self.cupy.current = self
        return self

    def __exit__(self, *exc: Any) -> None:
        self.cupy.current = self.before.pop()


class _Event:
    def __init__(self, block: bool = False, disable_timing: bool = False) -> None:
        self.recorded_on: list[_Stream] = []
        self.synchronized = 0

    def record(self, stream: _Stream) -> None:
        self.recorded_on.append(stream)

    def synchronize(self) -> None:
        self.synchronized += 1


class _FakeCupy:
    """The CuPy calls DeviceResult makes; each reduction notes the stream current then."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.current = _Stream()
        self.made: list[str] = []
        self.reduced_on: list[_Stream] = []
        self.events: list[_Event] = []
        self.copied_on: list[int] = []
        runtime = types.SimpleNamespace(memcpyAsync=self._memcpy, memcpyDeviceToHost=2)
        self.cuda = types.SimpleNamespace(get_current_stream=lambda: self.current, runtime=runtime,
                                          Event=self._event, Stream=self._stream)
        for name in ("sum", "prod", "all", "any", "max", "min"):
            setattr(self, name, self._reduction(getattr(np, name)))
        self.joined: list[str] = []   # host values joined to device values (DeviceResult.reduce_over_nodes)
        self.joined_on: list[_Stream] = []
        for name in ("add", "multiply", "maximum", "minimum"):
            setattr(self, name, self._ufunc(name))
        monkeypatch.setitem(sys.modules, "cupyx", types.SimpleNamespace(empty_pinned=self._pinned))

    def empty(self, shape: Any, dtype: Any) -> np.ndarray:
        self.made.append("array")
        return np.zeros(shape, dtype).view(_DevArray)

    def not_equal(self, a: np.ndarray, b: Any, out: np.ndarray) -> np.ndarray:
        return np.not_equal(a, b, out=out)

    def _pinned(self, shape: Any, dtype: Any) -> np.ndarray:
        self.made.append("pinned")
        return np.zeros(shape, dtype)

    def _stream(self, non_blocking: bool = False) -> _Stream:
        self.made.append("stream")
        return _Stream(self, non_blocking)

    def _event(self, **kw: Any) -> _Event:
        self.made.append("event")
        self.events.append(_Event(**kw))
        return self.events[-1]

    def _reduction(self, fn: Any) -> Any:
        def run(a: np.ndarray, **kw: Any) -> np.ndarray:
            assert fn not in (np.all, np.any) or a.dtype == np.bool_   # as DeviceResult assumes of CuPy's
            self.reduced_on.append(self.current)
            return np.asarray(fn(a, **kw)).view(_DevArray)   # a 0-d value from the pool
        return run

    def _ufunc(self, name: str) -> Any:
        def run(a: np.ndarray, b: Any) -> np.ndarray:
            self.joined.append(name)
            self.joined_on.append(self.current)
            return np.asarray(getattr(np, name)(a, b)).view(_DevArray)
        return run

    def asarray(self, a: np.ndarray) -> np.ndarray:
        return np.array(a).view(_DevArray)

    def _memcpy(self, dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
        assert kind == 2   # device to host
        self.copied_on.append(stream)
        ctypes.memmove(dst, src, nbytes)


class _FakeGpu:
    """A backend that answers like CudaBackend (its ``result`` is CudaBackend's): each
    launch writes the next row of ``rows`` into the partials."""

    name = "cuda"
    result = CudaBackend.result
    side_stream = CudaBackend.side_stream

    def __init__(self, cupy: _FakeCupy, rows: list[list[float]], dtype: Any) -> None:
        self.cupy = self.xp = cupy
        self.rows, self.dtype = rows, dtype
        self.launched = 0
        self.waited = 0

    def lanes(self, total: int, nthreads: int) -> int:
        return 1

    def shape(self, threads: int, nthreads: int, lanes: int, inner: int, rows: int = 1,
              pad: int = 0) -> LaunchShape:
        return LaunchShape(threads, 32, (1, 1), False, PARTIALS)

    def alloc(self, nbytes: int, what: str, where: str) -> np.ndarray:
        return np.zeros(nbytes, np.uint8).view(_DevArray)

    def ptr(self, buf: np.ndarray) -> int:
        return int(buf.__array_interface__["data"][0])

    def view(self, buf: np.ndarray, dtype: Any, count: int) -> np.ndarray:
        return buf[: count * np.dtype(dtype).itemsize].view(dtype)

    def launch(self, name: str, shape: LaunchShape, params: Any, where: str, lanes: int = 1) -> None:
        partials = ctypes.c_void_p.from_address(params[0]).value or 0
        row = np.asarray(self.rows[self.launched % len(self.rows)], self.dtype)
        ctypes.memmove(partials, row.ctypes.data, row.nbytes)
        self.launched += 1

    def wait(self) -> None:
        self.waited += 1


class _Runtime(AccRuntime, AccComputeRuntime, AccCollectiveRuntime):
    pass


class _Program:
    """One call site of ``_xmpacc_launch``: a kernel with one reduction into ``var``."""

    def __init__(self, backend: _FakeGpu, type_code: int, op: int, var: Any) -> None:
        self.rt = _Runtime()
        self.rt._acc_init(backend)
        self.rt._acc_compute_init()
        self.rt.stats = {}
        self.var = var
        self.args = (ctypes.c_void_p * 1)(ctypes.addressof(var))
        self.kinds = (ctypes.c_longlong * 3)(LAUNCH_REDUCTION, type_code, op)

    def launch(self, defer: bool) -> None:
        if defer:
            self.rt._xmpacc_acc_defer_reductions()
        self.rt._xmpacc_launch(b"p.c:7", b"k", 100, 0, 1, ctypes.addressof(self.args),
                               ctypes.addressof(self.kinds))

    def wait(self) -> None:
        self.rt._xmpacc_acc_reductions_wait(b"p.c:9")


def _program(monkeypatch: pytest.MonkeyPatch, rows: list[list[float]], type_code: int = F64,
             op: int = SUM, var: Any = None) -> tuple[_Program, _FakeCupy, _FakeGpu]:
    cupy = _FakeCupy(monkeypatch)
    gpu = _FakeGpu(cupy, rows, np.float64 if type_code == F64 else np.int64)
    return _Program(gpu, type_code, op, var if var is not None else ctypes.c_double(0.0)), cupy, gpu


def test_deferred_sum_waits_for_its_event_and_reuses_its_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Himeno's iteration: the sweep's sum deferred, another kernel queued, then the
    host's wait.  The value reaches the variable at the wait alone; every replay of the
    cached launch reuses one pinned buffer and event; the stream is never
    synchronised."""
    p, cupy, gpu = _program(monkeypatch, [[1, 2, 3, 4], [10, 20, 30, 40]])
    made = None
    for it in range(4):
        p.var.value = 0.5
        p.launch(defer=True)
        assert p.var.value == 0.5          # still on its way
        made = made or list(cupy.made)
        p.wait()
        assert p.var.value == 0.5 + (10 if it % 2 == 0 else 100)
    # made by the first launch only
    assert made == ["stream", "pinned", "event", "event", "event"] and cupy.made == made
    launched, reduced, ready = cupy.events
    side, kernels = gpu.side, cupy.current
    assert launched.recorded_on == [kernels] * 4 and side.waits_for == [launched] * 4
    # on the side stream: the reduction, the copy, the events the host and the kernel wait for
    assert cupy.reduced_on == [side] * 4 and cupy.copied_on == [side.ptr] * 4
    assert reduced.recorded_on == [side] * 4 and kernels.waits_for == [reduced] * 4   # before each launch
    assert ready.synchronized == 4 and ready.recorded_on == [side] * 4
    assert kernels.synchronized == side.synchronized == 0 and gpu.waited == 0 and len(p.rt.launch_cache) == 1


def test_relaunch_of_a_pending_launch_waits_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its partials and pinned value are about to be rewritten: the first result reaches
    the variable before the second launch."""
    p, cupy, _ = _program(monkeypatch, [[1, 1, 1, 1], [2, 2, 2, 2]])
    p.launch(defer=True)
    p.launch(defer=True)
    assert p.var.value == 4.0
    p.wait()
    assert p.var.value == 12.0 and cupy.events[2].synchronized == 2


def test_immediate_reduction_and_an_xmp_reduction_after_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not deferred: combined at the launch.  Deferred: what was put after the wait
    (reductions.py's XMP reduction) runs after the value arrived."""
    p, cupy, _ = _program(monkeypatch, [[1, 2, 3, 4]])
    p.launch(defer=False)
    assert p.var.value == 10.0 and p.rt.pending == []
    p.launch(defer=True)
    seen: list[float] = []
    p.rt.pending_after.append(lambda: seen.append(p.var.value))
    assert int(ctypes.addressof(p.var)) in p.rt.pending_addrs
    p.wait()
    assert seen == [20.0] and not p.rt.pending_addrs and cupy.current.synchronized == 0


def test_bitwise_or_waits_for_the_stream_and_reduces_on_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    p, cupy, gpu = _program(monkeypatch, [[1, 2, 0, 8]], I64, BOR, ctypes.c_longlong(16))
    p.launch(defer=True)
    assert p.var.value == 16 and gpu.waited == 0
    p.wait()
    assert p.var.value == 27 and gpu.waited == 1 and cupy.made == []


@pytest.mark.parametrize("op", [1, 2, 6, 7, 8, 9])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.int8])
@pytest.mark.parametrize("values", [[3, 0, -2, 5], [0, 0, 0, 0], [1, 7, 1, 2]])
def test_device_result_combines_as_the_host(monkeypatch: pytest.MonkeyPatch, op: int, dtype: Any,
                                            values: list[int]) -> None:
    """The same value as ``combine`` for every operator CuPy reduces: sums in the host
    variable's type, && and || as 0 or 1."""
    cupy = _FakeCupy(monkeypatch)
    partial = np.asarray(values, dtype).view(_DevArray)
    for start in (0, 1, 5):
        want = np.full(1, start, dtype)
        combine(want, np.asarray(partial), op, np)
        host = np.full(1, start, dtype)
        r = DeviceResult(cupy, host, partial, op, "p.c:3", cupy.cuda.Stream(non_blocking=True))
        r.start()
        r.finish()
        assert host[0] == want[0] and host.dtype == want.dtype



@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("op", [1, 2, 6, 7, 8, 9])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
def test_device_result_on_a_gpu_stream(op: int, dtype: Any) -> None:
    """CuPy itself (``out=``, ``dtype=``, bool all/any), on a stream of its own as an
    async queue's: three replays of one result against ``combine`` on the host."""
    import cupy

    rng = np.random.default_rng(op)
    stream = cupy.cuda.Stream(non_blocking=False)
    with stream:
        partial = cupy.zeros(1000, dtype)
        host = np.ones(1, dtype)
        want = host.copy()
        r = DeviceResult(cupy, host, partial, op, "p.c:3", cupy.cuda.Stream(non_blocking=True))
        for _ in range(3):
            values = rng.integers(-3, 4, 1000).astype(dtype)
            partial.set(values, stream=stream)
            r.start()
            r.finish()
            combine(want, values, op, np)
            assert host[0] == pytest.approx(want[0]) and host.dtype == want.dtype


def test_a_node_without_iterations_launches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """total 0 (a distributed loop whose range misses this node's block): no launch shape
    is worked out (CudaBackend.shape divided by zero there: clause_sections.c on 4 GPUs)
    and the variable keeps its value, deferred or not."""
    p, cupy, gpu = _program(monkeypatch, [[1, 2, 3, 4]])
    monkeypatch.setattr(gpu, "shape", lambda *a, **k: pytest.fail("a launch shape for no iterations"))
    p.var.value = 3.0
    for defer in (False, True):
        if defer:
            p.rt._xmpacc_acc_defer_reductions()
        p.rt._xmpacc_launch(b"p.c:7", b"k", 0, 0, 1, ctypes.addressof(p.args), ctypes.addressof(p.kinds))
        p.wait()
    assert p.var.value == 3.0 and gpu.launched == 0 and p.rt.pending == [] and not p.rt.defer_next


def _other_node(adds: float, seen: list[Any]) -> Any:
    """An allreduce over two nodes whose other node holds ``adds`` (a double sum)."""
    def allreduce(ptr: int, stream: Any) -> None:
        seen.append(stream)
        ctypes.c_double.from_address(ptr).value += adds
    return allreduce


@pytest.mark.parametrize("start, joins", [(0.0, []), (0.5, ["add"])])
def test_an_xmp_reduction_of_a_pending_result_runs_behind_it(monkeypatch: pytest.MonkeyPatch, start: float,
                                                             joins: list[str]) -> None:
    """DeviceResult.reduce_over_nodes: the host's value joins the device value once (not
    at all where it changes nothing), the nodes' reduction is queued on the result's
    side stream, and ``finish`` stores the outcome instead of folding it again."""
    cupy = _FakeCupy(monkeypatch)
    host = np.full(1, start)
    r = DeviceResult(cupy, host, np.asarray([1, 2, 3, 4], np.float64).view(_DevArray), SUM, "p.c:3",
                     cupy.cuda.Stream(non_blocking=True))
    seen: list[Any] = []
    for _ in range(2):
        r.start()
        r.reduce_over_nodes(_other_node(5.0, seen))
        assert host[0] == start                      # nothing waited for yet
        r.finish()
        assert host[0] == start + 10.0 + 5.0
        host[0] = start
    r.start()
    r.reduce_over_nodes(_other_node(5.0, seen))
    r.reduce_over_nodes(_other_node(1.0, seen))      # a second XMP reduction: the host value is in
    r.finish()
    assert host[0] == start + 10.0 + 6.0 and cupy.joined == joins * 3
    assert seen == [r.side] * 4 and cupy.joined_on == [r.side] * len(cupy.joined)
    assert cupy.copied_on == [r.side.ptr] * 7 and cupy.current.synchronized == 0


def test_an_empty_result_of_the_host_backend_keeps_the_value() -> None:
    host = np.full(1, 7.0)
    r = EmptyResult(types.SimpleNamespace(name="host"), host, MAX)
    assert not r.over_nodes_ok   # the host backend: MPI after the wait
    r.start()
    r.finish()
    assert host[0] == 7.0


class _Nccl:
    """An NCCL communicator of two nodes whose other node contributes 100 to a double sum."""

    def __init__(self) -> None:
        self.calls = 0

    def allReduce(self, send: int, recv: int, count: int, kind: int, op: int, stream: int) -> None:  # noqa: N802
        assert send == recv and count == 1 and (kind, op) == ("f64", "sum")
        self.calls += 1
        ctypes.c_double.from_address(recv).value += 100.0


def _with_nccl(monkeypatch: pytest.MonkeyPatch, p: _Program) -> _Nccl:
    nccl = types.SimpleNamespace(NCCL_FLOAT64="f64", NCCL_SUM="sum", NCCL_MAX="max", NCCL_MIN="min",
                                 NCCL_PROD="prod")
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=types.SimpleNamespace(nccl=nccl)))
    monkeypatch.setitem(sys.modules, "cupy.cuda", types.SimpleNamespace(nccl=nccl))
    comm = _Nccl()
    monkeypatch.setattr(p.rt, "_nccl_comm",
                        lambda c, side=False: comm if side else pytest.fail("reflect's comm"), raising=False)
    return comm


def test_himeno_iteration_does_not_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The time loop of passes/gpu/acc_reduction_wait.py: discard, store, deferred sweep, XMP
    reduction on the device.  The host waits once, after the loop, and the value is the
    last iteration's, over both nodes."""
    p, cupy, gpu = _program(monkeypatch, [[1, 2, 3, 4], [10, 20, 30, 40]])
    comm = _with_nccl(monkeypatch, p)
    p.rt._acc_collective_init()
    addr = ctypes.addressof(p.var)
    for _ in range(3):
        p.rt._xmpacc_acc_reductions_discard(addr)
        p.var.value = 0.0
        p.launch(defer=True)
        assert p.rt._reduce_pending(addr, None, SUM) and p.rt.pending_after == []
    assert cupy.events[2].synchronized == 0 and gpu.waited == 0
    p.wait()
    assert p.var.value == 10.0 + 100.0 and comm.calls == 3 and cupy.events[2].synchronized == 1


def test_discard_waits_where_the_host_reduces_over_the_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """An XMP reduction queued for the wait (MPI) is collective: the discard runs it."""
    p, _, _ = _program(monkeypatch, [[1, 2, 3, 4]])
    addr = ctypes.addressof(p.var)
    p.rt._xmpacc_acc_reductions_discard(addr)   # nothing pending: nothing to do
    p.launch(defer=True)
    ran: list[float] = []
    p.rt.pending_after.append(lambda: ran.append(p.var.value))
    p.rt._xmpacc_acc_reductions_discard(addr)
    assert ran == [10.0] and p.rt.pending == [] and not p.rt.pending_addrs


def test_a_node_without_iterations_defers_its_value_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deferred launch of no iterations leaves an EmptyResult pending, so that the XMP
    reduction after it takes the NCCL path as on the nodes that launched; the variable
    keeps its value and joins the reduction over the nodes."""
    p, cupy, gpu = _program(monkeypatch, [[1, 2, 3, 4]])
    comm = _with_nccl(monkeypatch, p)
    addr = ctypes.addressof(p.var)
    p.var.value = 2.5
    p.rt._xmpacc_acc_defer_reductions()
    p.rt._xmpacc_launch(b"p.c:7", b"k", 0, 0, 1, ctypes.addressof(p.args), ctypes.addressof(p.kinds))
    assert [type(r) for r in p.rt.pending] == [EmptyResult] and addr in p.rt.pending_addrs
    assert p.rt._reduce_pending(addr, None, SUM)
    assert p.rt._reduce_pending(addr, None, BOR) is False   # NCCL has no |: MPI after the wait, everywhere
    p.wait()
    assert p.var.value == 102.5 and comm.calls == 1 and gpu.launched == 0
