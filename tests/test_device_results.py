"""Reductions of ``loop ... acc`` launches (runtime/device_results.py, acc.py,
include/xmpacc_results.h): on a GPU each is reduced on the device behind its kernel,
copied into page-locked memory and marked by an event; the host waits for that event
alone.  Here the C records run in a library built from the glue's headers, with a
stand-in for the CUDA driver on host memory that logs each call (its partials kernel
reduces with numpy), and a stand-in for the CuPy calls DeviceResult makes."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import types
from typing import Any

import numpy as np
import pytest
from conftest import gpu_count

pytest.importorskip("mpi4py.MPI")
from xmpacc.runtime import device_results  # noqa: E402
from xmpacc.runtime.acc import Kernels  # noqa: E402
from xmpacc.runtime.acc_collectives import AccCollectives  # noqa: E402
from xmpacc.runtime.asyncs import AsyncOps  # noqa: E402
from xmpacc.runtime.collectives import DTYPES  # noqa: E402
from xmpacc.runtime.contract import LAUNCH_REDUCTION  # noqa: E402
from xmpacc.runtime.deferred import Deferred  # noqa: E402
from xmpacc.runtime.device import INCLUDE_DIR, CudaBackend, LaunchShape  # noqa: E402
from xmpacc.runtime.device_memory import DeviceMemory  # noqa: E402
from xmpacc.runtime.device_results import DeviceResult, EmptyResult, HostResult, combine  # noqa: E402
from xmpacc.runtime.nodes import CommCache  # noqa: E402
from xmpacc.runtime.replay import PLANS_PER_SITE, CLaunchPlan, CReplay, Held, Replay, bind_driver  # noqa: E402
from xmpacc.runtime.shared import Shared  # noqa: E402
from xmpacc.runtime.tasks import Tasks  # noqa: E402

PARTIALS = 4
F64, I64, I32, I8, F32 = 14, 9, 7, 3, 13   # type codes (collectives.DTYPES)
SUM, BOR, MAX = 1, 4, 8
_KERNEL = 1 << 20   # the stand-in partials kernel of (type, op): _KERNEL + 16 * type + op


@pytest.fixture(scope="module")
def glue(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    """The C records' functions, as every program's glue has them."""
    src = tmp_path_factory.mktemp("glue") / "results.c"
    src.write_text('#include "xmpacc_fast.h"\n')
    lib = src.with_suffix(".so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", f"-I{INCLUDE_DIR}", str(src), "-o", str(lib)],
                   check=True)
    return ctypes.CDLL(str(lib))


def _reduce(values: np.ndarray, op: int) -> Any:
    """What the partials kernel computes (runtime/partials.py): op over the partials."""
    if op in (6, 7):
        return (np.all if op == 6 else np.any)(values != 0)
    return {1: np.add, 2: np.multiply, 3: np.bitwise_and, 4: np.bitwise_or, 5: np.bitwise_xor,
            8: np.maximum, 9: np.minimum}[op].reduce(values)


class _Driver:
    """The driver functions the glue calls, on host memory: ``log`` gets (call, event,
    stream) in order."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.log: list[tuple[str, int, int]] = []
        self.keep: list[Any] = []
        c = CReplay.in_dll(lib, "_xmpacc_replay")
        i, p = ctypes.c_int, ctypes.c_void_p
        c.event_record = self._cb(ctypes.CFUNCTYPE(i, p, p), lambda e, s: self._note("record", e, s))
        c.stream_wait = self._cb(ctypes.CFUNCTYPE(i, p, p, ctypes.c_uint),
                                 lambda s, e, _f: self._note("wait", e, s))
        c.event_synchronize = self._cb(ctypes.CFUNCTYPE(i, p), lambda e: self._note("sync", e, 0))
        c.copy_to_host = self._cb(ctypes.CFUNCTYPE(i, p, ctypes.c_size_t, ctypes.c_size_t, p), self._copy)
        u = ctypes.c_uint
        launch = ctypes.CFUNCTYPE(i, p, u, u, u, u, u, u, u, p, ctypes.POINTER(p), p)
        c.launch = self._cb(launch, self._launch)

    def _cb(self, kind: Any, fn: Any) -> int:
        self.keep.append(kind(fn))
        return ctypes.cast(self.keep[-1], ctypes.c_void_p).value or 0

    def _note(self, call: str, event: int | None, stream: int | None) -> int:
        self.log.append((call, event or 0, stream or 0))
        return 0

    def _copy(self, dst: int, src: int, nbytes: int, stream: int | None) -> int:
        ctypes.memmove(dst, src, nbytes)
        return self._note("copy", 0, stream)

    def _launch(self, fn: int, gx: int, *rest: Any) -> int:
        stream, params = rest[-3], rest[-2]
        type_code, op = divmod(fn - _KERNEL, 16)
        dtype = np.dtype(DTYPES[type_code])
        n = ctypes.c_longlong.from_address(params[1]).value
        src = ctypes.c_void_p.from_address(params[0]).value or 0
        out = ctypes.c_size_t.from_address(params[4]).value
        values = np.frombuffer((ctypes.c_char * (n * dtype.itemsize)).from_address(src), dtype)
        np.frombuffer((ctypes.c_char * dtype.itemsize).from_address(out), dtype)[0] = _reduce(values, op)
        return self._note("launch", 0, stream)

    def calls(self, name: str) -> list[tuple[int, int]]:
        return [(e, s) for c, e, s in self.log if c == name]


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
        self.before: list[_Stream] = []

    def synchronize(self) -> None:
        self.synchronized += 1

    def __enter__(self) -> _Stream:   # CuPy's 'with stream:': current within
        self.before.append(self.cupy.current)
        self.cupy.current = self
        return self

    def __exit__(self, *exc: Any) -> None:
        self.cupy.current = self.before.pop()


class _Event:
    def __init__(self, log: list[tuple[str, int, int]], block: bool = False,
                 disable_timing: bool = False) -> None:
        self.ptr = id(self)
        self.log = log

    def record(self, stream: _Stream) -> None:   # CuPy's record, from reduce_over_nodes
        self.log.append(("record", self.ptr, stream.ptr))


class _FakeCupy:
    """The CuPy calls DeviceResult makes (the partials kernel is _KERNEL's stand-in)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, driver: _Driver) -> None:
        self.current = _Stream()
        self.made: list[str] = []
        self.driver = driver
        runtime = types.SimpleNamespace(memcpyAsync=self._memcpy, memcpyDeviceToHost=2)
        self.cuda = types.SimpleNamespace(get_current_stream=lambda: self.current, runtime=runtime,
                                          Event=self._event, Stream=self._stream)
        self.joined: list[str] = []   # host values joined to device values (DeviceResult.reduce_over_nodes)
        self.joined_on: list[_Stream] = []
        for name in ("add", "multiply", "maximum", "minimum"):
            setattr(self, name, self._ufunc(name))
        monkeypatch.setitem(sys.modules, "cupyx", types.SimpleNamespace(empty_pinned=self._pinned))
        monkeypatch.setattr(device_results.partials_kernel, "kernel",
                            lambda cupy, type_code, op: _KERNEL + 16 * type_code + op)

    def zeros(self, shape: Any, dtype: Any) -> np.ndarray:
        self.made.append("array")
        return np.zeros(shape, dtype).view(_DevArray)

    def asarray(self, a: np.ndarray) -> np.ndarray:
        return np.array(a).view(_DevArray)

    def _pinned(self, shape: Any, dtype: Any) -> np.ndarray:
        self.made.append("pinned")
        return np.zeros(shape, dtype)

    def _stream(self, non_blocking: bool = False) -> _Stream:
        self.made.append("stream")
        return _Stream(self, non_blocking)

    def _event(self, **kw: Any) -> _Event:
        self.made.append("event")
        return _Event(self.driver.log, **kw)

    def _ufunc(self, name: str) -> Any:
        def run(a: np.ndarray, b: Any, out: np.ndarray) -> np.ndarray:
            self.joined.append(name)
            self.joined_on.append(self.current)
            return getattr(np, name)(a, b, out=out)
        return run

    def _memcpy(self, dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
        assert kind == 2   # device to host
        self.driver.log.append(("copy", 0, stream))
        ctypes.memmove(dst, src, nbytes)


class _FakeGpu:
    """A backend that answers like CudaBackend (its ``result`` is CudaBackend's): each
    launch writes the next row of ``rows`` into the partials."""

    name = "cuda"
    result = CudaBackend.result
    side_stream = CudaBackend.side_stream
    stream_ptr = CudaBackend.stream_ptr
    props = {"multiProcessorCount": 2}

    def __init__(self, cupy: _FakeCupy, rows: list[list[float]], dtype: Any, lib: ctypes.CDLL) -> None:
        self.cupy = self.xp = cupy
        self.rows, self.dtype, self.lib = rows, dtype, lib
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


class _Program:
    """One call site of ``_xmpacc_launch``: a kernel with one reduction into ``var``
    (``rt``: the launches' concern of the runtime; ``collectives``: bcast/reduction ... acc)."""

    def __init__(self, backend: _FakeGpu, type_code: int, op: int, var: Any) -> None:
        shared = Shared(None, {}, {}, {}, CommCache(), {}, AsyncOps(), [])
        device = DeviceMemory(shared)
        device.start(backend)
        self.rt = Kernels(shared, device)
        self.collectives = AccCollectives(shared, device, Tasks(shared, lambda: None), self.rt.deferred)
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


def _program(monkeypatch: pytest.MonkeyPatch, glue: ctypes.CDLL, rows: list[list[float]],
             type_code: int = F64, op: int = SUM,
             var: Any = None) -> tuple[_Program, _FakeCupy, _FakeGpu, _Driver]:
    driver = _Driver(glue)
    cupy = _FakeCupy(monkeypatch, driver)
    gpu = _FakeGpu(cupy, rows, DTYPES[type_code], glue)
    return _Program(gpu, type_code, op, var if var is not None else ctypes.c_double(0.0)), cupy, gpu, driver


def test_deferred_sum_waits_for_its_event_and_reuses_its_buffers(monkeypatch: pytest.MonkeyPatch,
                                                                  glue: ctypes.CDLL) -> None:
    """Himeno's iteration: the sweep's sum deferred, another kernel queued, then the
    host's wait.  The value reaches the variable at the wait alone; every replay of the
    cached launch reuses one scratch buffer, pinned buffer and set of events; the stream
    is never synchronised."""
    p, cupy, gpu, driver = _program(monkeypatch, glue, [[1, 2, 3, 4], [10, 20, 30, 40]])
    made = None
    for it in range(4):
        p.var.value = 0.5
        p.launch(defer=True)
        assert p.var.value == 0.5          # still on its way
        made = made or list(cupy.made)
        p.wait()
        assert p.var.value == 0.5 + (10 if it % 2 == 0 else 100)
    # made by the first launch only
    assert made == ["stream", "array", "pinned", "event", "event", "event"] and cupy.made == made
    r = p.rt.launch_cache.popitem()[1].reductions[0]
    launched, reduced, ready = (e.ptr for e in r.events)
    side, kernels = gpu.side.ptr, cupy.current.ptr
    # after each launch, on the side stream: the partials kernel, the copy, the event the
    # host waits for; before it the kernel would wait until the last reduction read its
    # partials, but the host has waited for that reduction since (only the first waits,
    # on an event not yet recorded)
    after = [("record", launched, kernels), ("wait", launched, side), ("launch", 0, side),
             ("record", reduced, side), ("copy", 0, side), ("record", ready, side), ("sync", ready, 0)]
    assert driver.log == [("wait", reduced, kernels)] + after * 4
    assert cupy.current.synchronized == gpu.side.synchronized == 0 and gpu.waited == 0


def test_relaunch_of_a_pending_launch_waits_first(monkeypatch: pytest.MonkeyPatch, glue: ctypes.CDLL) -> None:
    """Its partials and pinned value are about to be rewritten: the first result reaches
    the variable before the second launch."""
    p, _, _, driver = _program(monkeypatch, glue, [[1, 1, 1, 1], [2, 2, 2, 2]])
    p.launch(defer=True)
    p.launch(defer=True)
    assert p.var.value == 4.0
    p.wait()
    assert p.var.value == 12.0 and len(driver.calls("sync")) == 2


def test_a_discarded_result_still_guards_its_partials(monkeypatch: pytest.MonkeyPatch,
                                                      glue: ctypes.CDLL) -> None:
    """A result the host discarded was never waited for: the next launch of its kernel
    waits on the device until the reduction has read the partials."""
    p, cupy, _, driver = _program(monkeypatch, glue, [[1, 1, 1, 1]])
    p.launch(defer=True)
    p.rt._xmpacc_acc_reductions_discard(ctypes.addressof(p.var))
    p.launch(defer=False)
    reduced = p.rt.launch_cache.popitem()[1].reductions[0].events[1].ptr
    assert driver.calls("wait").count((reduced, cupy.current.ptr)) == 2 and p.var.value == 4.0


def test_immediate_reduction_and_an_xmp_reduction_after_the_wait(monkeypatch: pytest.MonkeyPatch,
                                                                  glue: ctypes.CDLL) -> None:
    """Not deferred: combined at the launch.  Deferred: what was put after the wait
    (reductions.py's XMP reduction) runs after the value arrived."""
    p, cupy, _, _ = _program(monkeypatch, glue, [[1, 2, 3, 4]])
    p.launch(defer=False)
    assert p.var.value == 10.0 and p.rt.deferred.results() == []
    p.launch(defer=True)
    seen: list[float] = []
    p.rt.deferred.add_after(lambda: seen.append(p.var.value))
    assert p.rt.deferred.has(ctypes.addressof(p.var))
    p.wait()
    assert seen == [20.0] and not p.rt.deferred.has(ctypes.addressof(p.var))
    assert cupy.current.synchronized == 0


def test_bitwise_or_is_reduced_on_the_device_too(monkeypatch: pytest.MonkeyPatch, glue: ctypes.CDLL) -> None:
    p, _, gpu, driver = _program(monkeypatch, glue, [[1, 2, 0, 8]], I64, BOR, ctypes.c_longlong(16))
    p.launch(defer=True)
    assert p.var.value == 16 and gpu.waited == 0
    p.wait()
    assert p.var.value == 27 and gpu.waited == 0 and len(driver.calls("sync")) == 1


_OPS = [1, 2, 6, 7, 8, 9]
_TYPES = [(F64, np.float64), (F32, np.float32), (I32, np.int32), (I64, np.int64), (I8, np.int8)]
_VALUES = [[3, 0, -2, 5], [0, 0, 0, 0], [1, 7, 1, 2]]


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("type_code, dtype", _TYPES)
@pytest.mark.parametrize("values", _VALUES)
def test_device_result_combines_as_the_host(monkeypatch: pytest.MonkeyPatch, glue: ctypes.CDLL, op: int,
                                            type_code: int, dtype: Any, values: list[int]) -> None:
    """The C record folds the reduced value as ``combine`` does: in the host variable's
    type, && and || as 0 or 1."""
    driver = _Driver(glue)
    cupy = _FakeCupy(monkeypatch, driver)
    gpu = _FakeGpu(cupy, [], dtype, glue)
    partial = np.asarray(values, dtype).view(_DevArray)
    for start in (0, 1, 5):
        want = np.full(1, start, dtype)
        combine(want, np.asarray(partial), op, np)
        host = np.full(1, start, dtype)
        r = DeviceResult(gpu, host, partial, op, type_code, "p.c:3")
        r.start()
        r.finish()
        assert host[0] == want[0] and host.dtype == want.dtype


@pytest.mark.parametrize("op", [1, 2, 3, 4, 5, 6, 7, 8, 9])
@pytest.mark.parametrize("type_code, dtype", _TYPES)
@pytest.mark.parametrize("values", _VALUES + [[-1], [4, -3, 9, 2, 6, -8, 1]])
def test_host_backend_result_as_combine(glue: ctypes.CDLL, op: int, type_code: int, dtype: Any,
                                        values: list[int]) -> None:
    """The host backend's record reduces the partials in C: the same value as numpy's
    reduction (integers exactly, floating sums to their rounding)."""
    if op in (3, 4, 5) and np.issubdtype(dtype, np.floating):
        return   # the compiler refuses bitwise reductions of floating-point variables
    partial = np.asarray(values, dtype)
    for start in (0, 1, 5):
        want = np.full(1, start, dtype)
        with np.errstate(over="ignore"):   # int8 products wrap, in C as in numpy
            combine(want, partial, op, np)
        host = np.full(1, start, dtype)
        r = HostResult(glue, host, partial, op, type_code, "p.c:3")
        r.before_launch()
        r.start()
        r.finish()
        assert host[0] == pytest.approx(want[0]) and host.dtype == want.dtype


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("op", [1, 2, 4, 6, 7, 8, 9])
@pytest.mark.parametrize("type_code, dtype", [(F64, np.float64), (F32, np.float32), (I32, np.int32),
                                              (I64, np.int64), (I8, np.int8)])
@pytest.mark.parametrize("count", [1000, 1_000_003])
def test_device_result_on_a_gpu_stream(glue: ctypes.CDLL, op: int, type_code: int, dtype: Any,
                                       count: int) -> None:
    """The partials kernel itself (one block, and many with the last one folding theirs),
    on a stream of its own as an async queue's: three replays of one result against
    ``combine`` on the host."""
    import cupy

    if op == 4 and type_code in (F64, F32):
        return
    assert bind_driver(glue)
    rng = np.random.default_rng(op)
    stream = cupy.cuda.Stream(non_blocking=False)
    side = cupy.cuda.Stream(non_blocking=True)
    backend = types.SimpleNamespace(cupy=cupy, lib=glue, props=cupy.cuda.runtime.getDeviceProperties(0),
                                    side_stream=lambda: side)
    with stream:
        partial = cupy.zeros(count, dtype)
        host = np.ones(1, dtype)
        want = host.copy()
        r = DeviceResult(backend, host, partial, op, type_code, "p.c:3")
        for _ in range(3):
            values = rng.integers(-3, 4, count).astype(dtype)
            if op == 2:
                values[np.abs(values) > 1] = 1   # products that fit
            partial.set(values, stream=stream)
            r.before_launch()
            r.start()
            r.finish()
            combine(want, values, op, np)
            assert host[0] == pytest.approx(want[0], rel=1e-4) and host.dtype == want.dtype


def test_a_node_without_iterations_launches_nothing(monkeypatch: pytest.MonkeyPatch,
                                                    glue: ctypes.CDLL) -> None:
    """total 0 (a distributed loop whose range misses this node's block): no launch shape
    is worked out (CudaBackend.shape divided by zero there: clause_sections.c on 4 GPUs)
    and the variable keeps its value, deferred or not."""
    p, _, gpu, _ = _program(monkeypatch, glue, [[1, 2, 3, 4]])
    monkeypatch.setattr(gpu, "shape", lambda *a, **k: pytest.fail("a launch shape for no iterations"))
    p.var.value = 3.0
    for defer in (False, True):
        if defer:
            p.rt._xmpacc_acc_defer_reductions()
        p.rt._xmpacc_launch(b"p.c:7", b"k", 0, 0, 1, ctypes.addressof(p.args), ctypes.addressof(p.kinds))
        p.wait()
    assert p.var.value == 3.0 and gpu.launched == 0
    assert p.rt.deferred.results() == [] and not p.rt.deferred.next


def _other_node(adds: float, seen: list[Any]) -> Any:
    """An allreduce over two nodes whose other node holds ``adds`` (a double sum)."""
    def allreduce(ptr: int, stream: Any) -> None:
        seen.append(stream)
        ctypes.c_double.from_address(ptr).value += adds
    return allreduce


@pytest.mark.parametrize("start, joins", [(0.0, []), (0.5, ["add"])])
def test_an_xmp_reduction_of_a_pending_result_runs_behind_it(monkeypatch: pytest.MonkeyPatch,
                                                             glue: ctypes.CDLL, start: float,
                                                             joins: list[str]) -> None:
    """DeviceResult.reduce_over_nodes: the host's value joins the device value once (not
    at all where it changes nothing), the nodes' reduction is queued on the result's
    side stream, and ``finish`` stores the outcome instead of folding it again."""
    driver = _Driver(glue)
    cupy = _FakeCupy(monkeypatch, driver)
    gpu = _FakeGpu(cupy, [], np.float64, glue)
    host = np.full(1, start)
    r = DeviceResult(gpu, host, np.asarray([1, 2, 3, 4], np.float64).view(_DevArray), SUM, F64, "p.c:3")
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
    assert driver.calls("copy") == [(0, r.side.ptr)] * 7 and cupy.current.synchronized == 0


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
    monkeypatch.setattr(p.collectives, "_nccl_comm",
                        lambda c, side=False: comm if side else pytest.fail("reflect's comm"), raising=False)
    return comm


def test_himeno_iteration_does_not_wait(monkeypatch: pytest.MonkeyPatch, glue: ctypes.CDLL) -> None:
    """The time loop of passes/gpu/acc_reduction_wait.py: discard, store, deferred sweep, XMP
    reduction on the device.  The host waits once, after the loop, and the value is the
    last iteration's, over both nodes."""
    p, _, gpu, driver = _program(monkeypatch, glue, [[1, 2, 3, 4], [10, 20, 30, 40]])
    comm = _with_nccl(monkeypatch, p)
    addr = ctypes.addressof(p.var)
    for _ in range(3):
        p.rt._xmpacc_acc_reductions_discard(addr)
        p.var.value = 0.0
        p.launch(defer=True)
        assert p.collectives.reduce_pending(addr, None, SUM) and not p.rt.deferred.has_after()
    assert driver.calls("sync") == [] and gpu.waited == 0
    p.wait()
    assert p.var.value == 10.0 + 100.0 and comm.calls == 3 and len(driver.calls("sync")) == 1


def test_discard_waits_where_the_host_reduces_over_the_nodes(monkeypatch: pytest.MonkeyPatch,
                                                             glue: ctypes.CDLL) -> None:
    """An XMP reduction queued for the wait (MPI) is collective: the discard runs it."""
    p, _, _, _ = _program(monkeypatch, glue, [[1, 2, 3, 4]])
    addr = ctypes.addressof(p.var)
    p.rt._xmpacc_acc_reductions_discard(addr)   # nothing pending: nothing to do
    p.launch(defer=True)
    ran: list[float] = []
    p.rt.deferred.add_after(lambda: ran.append(p.var.value))
    p.rt._xmpacc_acc_reductions_discard(addr)
    assert ran == [10.0] and p.rt.deferred.results() == [] and not p.rt.deferred.has(addr)


def test_a_node_without_iterations_defers_its_value_alike(monkeypatch: pytest.MonkeyPatch,
                                                          glue: ctypes.CDLL) -> None:
    """A deferred launch of no iterations leaves an EmptyResult pending, so that the XMP
    reduction after it takes the NCCL path as on the nodes that launched; the variable
    keeps its value and joins the reduction over the nodes."""
    p, _, gpu, _ = _program(monkeypatch, glue, [[1, 2, 3, 4]])
    comm = _with_nccl(monkeypatch, p)
    addr = ctypes.addressof(p.var)
    p.var.value = 2.5
    p.rt._xmpacc_acc_defer_reductions()
    p.rt._xmpacc_launch(b"p.c:7", b"k", 0, 0, 1, ctypes.addressof(p.args), ctypes.addressof(p.kinds))
    assert [type(r) for r in p.rt.deferred.results()] == [EmptyResult] and p.rt.deferred.has(addr)
    assert p.collectives.reduce_pending(addr, None, SUM)
    # NCCL has no |: MPI after the wait, everywhere
    assert p.collectives.reduce_pending(addr, None, BOR) is False
    p.wait()
    assert p.var.value == 102.5 and comm.calls == 1 and gpu.launched == 0


def test_deferred_takes_over_what_the_c_side_deferred(glue: ctypes.CDLL) -> None:
    """Results a replayed launch deferred in C join Python's list, in order, before any
    deferral entry runs in Python; while Python holds any, the C side leaves them to it."""
    c = CReplay.in_dll(glue, "_xmpacc_replay")
    d = Deferred()
    host = [np.zeros(1) for _ in range(2)]
    results = [HostResult(glue, h, np.ones(3), SUM, F64, "p.c:3") for h in host]
    replay = types.SimpleNamespace(c=c, known={ctypes.addressof(r.c): r for r in results})
    d.bind(replay)
    assert replay.take_over == d._pull   # a launch plan that goes hands its records over first
    d.next = True
    assert c.defer_next == 1 and d.next
    c.deferred[0], c.ndeferred = ctypes.addressof(results[1].c), 1
    assert c.python_deferred == 0
    assert d.has(int(host[1].ctypes.data)) and c.ndeferred == 0 and c.python_deferred == 1
    d.add([results[0]])
    assert d.results() == [results[1], results[0]] and c.python_deferred == 2
    d.discard(int(host[1].ctypes.data))
    assert d.take() == ([results[0]], []) and c.python_deferred == 0


def test_a_dropped_launch_plan_hands_its_deferred_result_over(glue: ctypes.CDLL) -> None:
    """A site keeps PLANS_PER_SITE launch plans; the one that goes may have deferred its
    result on the C side (a replayed launch, not yet waited for): Python takes the C
    side's deferred results over first, so that the record outlives its plan."""
    replay = Replay(glue, profile=False)
    deferred = Deferred()
    deferred.bind(replay)
    where = ctypes.create_string_buffer(b"p.c:7")
    first = None
    for _ in range(PLANS_PER_SITE + 1):
        r = HostResult(glue, np.zeros(1), np.ones(3), SUM, F64, "p.c:7")
        records = (ctypes.c_void_p * 1)(ctypes.addressof(r.c))
        plan = CLaunchPlan()
        plan.nresults, plan.results = 1, ctypes.addressof(records)
        held = Held(plan, [None, types.SimpleNamespace(reductions=[r]), records])
        assert replay._register(replay.launches, ctypes.addressof(where), "_xmpacc_launch_plan_set", held)
        replay.known[ctypes.addressof(r.c)] = r
        if first is None:   # as its replayed launch would: deferred on the C side
            first = r
            replay.c.deferred[0], replay.c.ndeferred = ctypes.addressof(r.c), 1
            assert replay.c.python_deferred == 0
    assert replay.c.ndeferred == 0 and deferred.results() == [first] and replay.c.python_deferred == 1
    assert ctypes.addressof(first.c) not in replay.known and len(replay.known) == PLANS_PER_SITE
    glue._xmpacc_launch_plan_set(ctypes.addressof(where), None)
    deferred.take()
