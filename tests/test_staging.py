"""``XMPACC_REFLECT=staged`` (runtime/staging.py): plans made once and reused, device
packing of non-contiguous slabs, the exchange itself; on the host backend and with a
stand-in for CuPy that runs the device path's steps on numpy arrays."""

from __future__ import annotations

import ctypes
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REPO, gpu_count, repo_builds, run_mpi, run_xmpacc

mpi4py = pytest.importorskip("mpi4py.MPI")
from xmpacc.runtime.staging import StagedTransport  # noqa: E402
from xmpacc.runtime.transport import SlabPlans  # noqa: E402

PROGRAM = Path(__file__).parent / "acc_programs" / "stream_stencils.c"


class _DevArray(np.ndarray):
    """A numpy array that answers the CuPy calls the staged transport makes."""

    @property
    def data(self) -> Any:   # type: ignore[override]
        return types.SimpleNamespace(ptr=self.__array_interface__["data"][0])

    def get(self, stream: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        assert stream is not None and out is not None and self.flags.c_contiguous
        out[...] = self
        return out

    def set(self, host: np.ndarray, stream: Any = None) -> None:
        assert stream is not None and self.flags.c_contiguous
        self[...] = host


class _Event:
    def synchronize(self) -> None:
        pass


class _Stream:
    def __init__(self, non_blocking: bool = False) -> None:
        self.waited = 0
        self.ptr = id(self)

    def record(self) -> _Event:
        return _Event()

    def wait_event(self, e: _Event) -> None:
        self.waited += 1

    def synchronize(self) -> None:
        pass

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _memcpy(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    """cudaMemcpyAsync of the raw path (contiguous slabs): both sides are host memory here."""
    assert kind in (1, 2) and stream is not None
    ctypes.memmove(dst, src, nbytes)


def _fake_cupy(monkeypatch: pytest.MonkeyPatch) -> Any:
    current = _Stream()
    runtime = types.SimpleNamespace(memcpyAsync=_memcpy, memcpyHostToDevice=1, memcpyDeviceToHost=2)
    xp = types.SimpleNamespace(cuda=types.SimpleNamespace(Stream=_Stream, get_current_stream=lambda: current,
                                                          runtime=runtime),
                               empty=lambda shape, dtype: np.empty(shape, dtype).view(_DevArray))
    pinned: list[np.ndarray] = []

    def empty_pinned(shape: Any, dtype: Any) -> np.ndarray:
        pinned.append(np.empty(shape, dtype))
        return pinned[-1]

    monkeypatch.setitem(sys.modules, "cupyx", types.SimpleNamespace(empty_pinned=empty_pinned))
    xp.pinned = pinned
    return xp


def _patterns() -> list[tuple[list[Any], list[Any]]]:
    """Rows 1 and 4 of a 6 x 5 array to rows 5 and 0 of the same process, and column
    halos (columns 1 and 3 to 4 and 0): contiguous and strided slabs."""
    rows = [(0, 1, (slice(1, 2), slice(0, 5), slice(0, 8))), (0, 2, (slice(4, 5), slice(0, 5), slice(0, 8)))]
    into = [(0, 1, (slice(5, 6), slice(0, 5), slice(0, 8))), (0, 2, (slice(0, 1), slice(0, 5), slice(0, 8)))]
    cols = [(0, 3, (slice(0, 6), slice(1, 2), slice(0, 8))), (0, 4, (slice(0, 6), slice(3, 4), slice(0, 8)))]
    into_cols = [(0, 3, (slice(0, 6), slice(4, 5), slice(0, 8))),
                 (0, 4, (slice(0, 6), slice(0, 1), slice(0, 8)))]
    return [(rows, into), (cols, into_cols)]


def _periodic(view: Any, transport: StagedTransport, stats: dict[str, int]) -> None:
    for sends, recvs in _patterns():
        transport.exchange(mpi4py.COMM_SELF, view, sends, recvs, stats)


def _expected(a: np.ndarray) -> np.ndarray:
    e = a.copy()
    e[5], e[0] = e[1], e[4]
    e[:, 4], e[:, 0] = e[:, 1].copy(), e[:, 3].copy()
    return e


@pytest.mark.parametrize("device", [False, True])
def test_exchange_reuses_its_buffers(monkeypatch: pytest.MonkeyPatch, device: bool) -> None:
    xp = _fake_cupy(monkeypatch) if device else np
    transport = StagedTransport(xp)
    a = np.arange(30, dtype=np.float64).reshape(6, 5)
    view = a.view(np.uint8).reshape(6, 5, 8)
    if device:
        view = view.view(_DevArray)
    stats: dict[str, int] = {}
    _periodic(view, transport, stats)
    want = _expected(np.arange(30, dtype=np.float64).reshape(6, 5))
    assert np.array_equal(a, want)
    assert stats == {"reflect_bytes": 2 * 40 + 2 * 48, "reflect_shadow_bytes": 2 * 40 + 2 * 48}
    plans = transport.slab_plans.plans
    buffers = [id(s.host) for p in plans.values() for s in p.sends + p.recvs]
    for _ in range(3):
        _periodic(view, transport, stats)
    assert len(plans) == 2   # one plan per pattern, made once
    assert [id(s.host) for p in plans.values() for s in p.sends + p.recvs] == buffers
    if device:
        assert len(xp.pinned) == 8      # page-locked buffers: allocated by the first exchange only
        rows, column = list(plans.values())
        assert all(s.device and s.stage is None for s in rows.sends + rows.recvs)   # raw copies
        assert all(s.stage is not None for s in column.sends + column.recvs)   # packed on the device
        assert len(transport.streams) == 2                                       # one per direction


def test_the_same_exchange_lists_find_their_plan_without_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    transport = StagedTransport(_fake_cupy(monkeypatch))
    view = np.zeros((6, 5, 8), np.uint8).view(_DevArray)
    rows = [(0, 1, (slice(1, 2), slice(0, 5), slice(0, 8)))]
    into = [(0, 1, (slice(5, 6), slice(0, 5), slice(0, 8)))]
    transport.exchange(mpi4py.COMM_SELF, view, rows, into, {})
    monkeypatch.setattr("xmpacc.runtime.transport._region_key", lambda r: pytest.fail("hashed again"))
    for _ in range(3):   # reflect's cached plan passes the same lists every time
        transport.exchange(mpi4py.COMM_SELF, view, rows, into, {})
    assert len(transport.slab_plans.plans) == len(transport.slab_plans.recent) == 1


class _Nccl:
    """NCCL point-to-point within one process (peer 0 is itself): at groupEnd the i-th
    send lands in the i-th receive, as NCCL matches them between two peers."""

    NCCL_UINT8 = 7

    def __init__(self) -> None:
        self.sends: list[tuple[int, int]] = []
        self.recvs: list[tuple[int, int]] = []
        self.groups = 0

    def groupStart(self) -> None:  # noqa: N802
        self.sends, self.recvs = [], []

    def groupEnd(self) -> None:  # noqa: N802
        assert [n for _p, n in self.sends] == [n for _p, n in self.recvs]
        for (src, n), (dst, _n) in zip(self.sends, self.recvs, strict=True):
            ctypes.memmove(dst, src, n)
        self.groups += 1

    def send(self, ptr: int, n: int, kind: int, peer: int, stream: int) -> None:
        assert kind == self.NCCL_UINT8 and peer == 0 and stream
        self.sends.append((ptr, n))

    def recv(self, ptr: int, n: int, kind: int, peer: int, stream: int) -> None:
        assert kind == self.NCCL_UINT8 and peer == 0 and stream
        self.recvs.append((ptr, n))


def test_nccl_exchange_replays_its_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """transport.NcclTransport: contiguous slabs straight from and into the array, the
    others through device buffers made ahead (reflect_init ... acc); the exchanges
    (reflect_do ... acc) allocate nothing."""
    from xmpacc.runtime.transport import NcclTransport

    xp = _fake_cupy(monkeypatch)
    made: list[tuple[int, ...]] = []
    empty = xp.empty
    xp.empty = lambda shape, dtype: made.append(shape) or empty(shape, dtype)
    transport = NcclTransport.__new__(NcclTransport)   # without a communicator: _Nccl stands in
    nccl = _Nccl()
    transport.cupy, transport.nccl, transport.comm, transport.world = xp, nccl, nccl, mpi4py.COMM_SELF
    transport.world_ranks = {}
    transport.slab_plans = SlabPlans(transport._slab)
    a = np.arange(30, dtype=np.float64).reshape(6, 5)
    view = a.view(np.uint8).reshape(6, 5, 8).view(_DevArray)
    for sends, recvs in _patterns():   # reflect_init ... acc
        transport.prepare(view, sends, recvs)
    assert made == [(6, 1, 8)] * 4 and nccl.groups == 0
    stats: dict[str, int] = {}
    for k in range(4):
        _periodic(view, transport, stats)
        if k == 0:
            assert np.array_equal(a, _expected(np.arange(30, dtype=np.float64).reshape(6, 5)))
            a[...] = np.arange(30, dtype=np.float64).reshape(6, 5) * 2
    assert np.array_equal(a, _expected(np.arange(30, dtype=np.float64).reshape(6, 5) * 2))
    assert made == [(6, 1, 8)] * 4 and nccl.groups == 8
    rows, column = list(transport.slab_plans.plans.values())
    assert all(s.device and s.stage is None for s in rows.sends + rows.recvs)
    assert all(s.stage is not None and not s.device for s in column.sends + column.recvs)
    assert stats == {"reflect_bytes": 4 * (2 * 40 + 2 * 48), "reflect_shadow_bytes": 4 * (2 * 40 + 2 * 48)}


@pytest.fixture(scope="module")
def staged_program(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """stream_stencils.c and its serial build's output, made once per test run."""
    return repo_builds(tmp_path_factory, "tests/acc_programs", [PROGRAM.name])[PROGRAM.name]


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [2, 3])
def test_staged_reflect_on_host_backend(staged_program: tuple[Path, str], nprocs: int) -> None:
    exe, expected = staged_program
    r = run_mpi(nprocs, exe, env={"XMPACC_DEVICE": "host", "XMPACC_REFLECT": "staged"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected


@pytest.mark.mpi
def test_staged_column_halos_on_2x2_grid(tmp_path: Path) -> None:
    exe = tmp_path / "lap"
    r = run_xmpacc(str(REPO / "bench" / "laplace_bench.c"), "-DNX=40", "-DNY=33", "-DITER=4", "-DGRID2D",
                   "-o", str(exe))
    assert r.returncode == 0, r.stderr
    outs = [run_mpi(4, exe, env={"XMPACC_DEVICE": "host", **env})
            for env in ({}, {"XMPACC_REFLECT": "staged"})]
    assert all(o.returncode == 0 for o in outs), outs[0].stderr + outs[1].stderr
    checks = [o.stdout.split("checksum = ")[1] for o in outs]
    assert checks[0] == checks[1]



@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("grid2d", [False, True])
def test_staged_reflect_on_gpus(tmp_path: Path, grid2d: bool) -> None:
    """Row halos (contiguous) and, on p[*][2], column halos (packed on the device): the
    staged exchange computes what NCCL computes (two ranks share a GPU when there is one)."""
    exe = tmp_path / "lap"
    r = run_xmpacc(str(REPO / "bench" / "laplace_bench.c"), "-DNX=300", "-DNY=257", "-DITER=6",
                   *(["-DGRID2D"] if grid2d else []), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    n = 4 if grid2d else 2
    outs = [run_mpi(n, exe, env={"XMPACC_DEVICE": "cuda", "XMPACC_REFLECT": how})
            for how in ("nccl", "staged")]
    if gpu_count() < n:   # NCCL refuses two ranks on one GPU: then both runs stage (acc.py)
        outs[0] = run_mpi(n, exe, env={"XMPACC_DEVICE": "host"})
    assert all(o.returncode == 0 for o in outs), outs[0].stderr + outs[1].stderr
    assert outs[0].stdout.split("checksum = ")[1] == outs[1].stdout.split("checksum = ")[1]
