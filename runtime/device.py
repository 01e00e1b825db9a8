"""Device backends: where ``acc replicate`` copies live and ``loop ... acc`` kernels run.

``CudaBackend``: one GPU per process (node-local rank modulo the GPUs of the host), device
buffers from CuPy, the program's kernels compiled once by NVRTC (CuPy caches the binary
across runs) and launched with ``cuLaunchKernel``.  Never hands a device pointer to MPI.

``HostBackend``: the same kernels compiled into the program by the host C compiler and
run through their ``_host`` trampolines; its "device" buffers are separate host memory,
so a missing ``replicate_sync`` shows the same stale data it would on a GPU.

``XMPACC_DEVICE=cuda|host|auto`` chooses; ``auto`` takes the GPU when CuPy sees one.
"""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .device_results import CupyResult, DeviceResult, HostResult, WaitResult, in_c, on_device
from .errors import RuntimeFailure

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
_MIN_BLOCKS = re.compile(r"^#define _XMPACC_MINB(\w+) \d+\s*$", re.M)
_FALLBACK = re.compile(r"^#ifndef _XMPACC_MINB(\w+)\s.*defines it as (\d+) ", re.M)

@dataclass(frozen=True)
class LaunchShape:
    """How a launch is laid out: thread blocks, grid, and one reduction partial per
    ``partials`` slot (per warp on a GPU, per thread on the host)."""

    threads: int                 # thread ids the kernel sees (iterations x lanes)
    block: int
    grid: tuple[int, int]
    grid2: bool                  # x walks the innermost loop, y the outer ones
    partials: int
    rows: int = 1                # threads per block along y (2-D grids: rows of the outer loops)


def grid_pad(first: int, step: int) -> int:
    """Idle threads before the innermost loop of a 2-D grid (_XMPACC_PAD of xmpacc_kernel.h)."""
    return first & 31 if step == 1 else 0


DEFAULT_BLOCK = 256          # 16 x 16, the paper's default (reference §7.4)
DEFAULT_BLOCK_LANES = 128    # lane-split kernels: measured faster on H200 (bench/)


def device_number(backend: Any) -> tuple[int, int]:
    """(this process's device, the devices of its kind on the node), as OpenACC numbers
    them (acc_api.py, wait(devnum:)): the host backend is one device, number 0."""
    return (backend.device_id, backend.device_count) if backend.name == "cuda" else (0, 1)


def devices_text(count: int) -> str:
    """The node's devices, for messages."""
    return "device 0" if count == 1 else f"devices 0 to {count - 1}"


class HostBackend:
    name = "host"
    xp = np
    device_count = 0

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.kernels: dict[str, Any] = {}

    def describe(self) -> str:
        return "host (kernels run on the CPU)"

    def lanes(self, total: int, nthreads: int) -> int:
        return 1   # the trampolines run one thread id at a time: no shuffles

    def wait(self) -> None:
        pass       # kernels ran to completion inside launch

    def wait_all(self) -> None:
        pass

    def shape(self, threads: int, nthreads: int, lanes: int, inner: int,
              rows: int = 1, pad: int = 0) -> LaunchShape:
        return LaunchShape(threads, nthreads or DEFAULT_BLOCK, (1, 1), False, threads)

    def scratch_slots(self, shape: LaunchShape) -> int:
        return 1   # the trampolines run one thread id at a time: one private array serves all

    def pin(self, addr: int, nbytes: int) -> None:
        pass

    def unpin(self, addr: int, nbytes: int) -> None:
        pass

    def alloc(self, nbytes: int, what: str, where: str) -> np.ndarray:
        return np.zeros(max(nbytes, 1), dtype=np.uint8)

    def ptr(self, buf: np.ndarray) -> int:
        return int(buf.ctypes.data)

    def copy_in(self, buf: np.ndarray, host_addr: int, nbytes: int) -> None:
        ctypes.memmove(buf.ctypes.data, host_addr, nbytes)

    def copy_out(self, buf: np.ndarray, host_addr: int, nbytes: int) -> None:
        ctypes.memmove(host_addr, buf.ctypes.data, nbytes)

    def descriptor(self, host_addr: int, nbytes: int, tmpl_addr: int, tmpl_bytes: int) -> tuple[Any, int]:
        return None, host_addr   # kernels run on the host: the host descriptor as it is

    def view(self, buf: np.ndarray, dtype: Any, count: int) -> np.ndarray:
        return buf[: count * np.dtype(dtype).itemsize].view(dtype)

    def result(self, host: np.ndarray, partial: np.ndarray, op: int, type_code: int,
               where: str) -> HostResult | WaitResult:
        """How one reduction of a prepared launch reaches ``host`` (device_results.py)."""
        if in_c(type_code):
            return HostResult(self.lib, host, partial, op, type_code, where)
        return WaitResult(host, partial, op, np, self.wait)

    def _trampoline(self, name: str) -> Any:
        fn = self.kernels.get(name)
        if fn is None:
            fn = getattr(self.lib, name + "_host")
            fn.argtypes = [ctypes.c_longlong, ctypes.c_void_p]
            fn.restype = None
            self.kernels[name] = fn
        return fn

    def launch(self, name: str, shape: LaunchShape, params: Any, where: str, lanes: int = 1) -> None:
        self._trampoline(name)(shape.threads, ctypes.addressof(params))

    def handle(self, name: str, where: str, lanes: int) -> int:
        """What the C side calls to launch the kernel (replay.py): its trampoline."""
        return ctypes.cast(self._trampoline(name), ctypes.c_void_p).value or 0

    def stream_ptr(self) -> int:
        return 0


def nvrtc_options(lanes: int, checked: bool) -> tuple[str, ...]:
    """NVRTC's options for a program's kernel file (CuPy adds the GPU architecture); the
    tests compile generated kernel files with them (tests/test_nvrtc.py).  C++20: C's
    designated initializers (``cplx c = {.re = x, .im = y};``) are C++20's."""
    return (f"-I{INCLUDE_DIR}", "--std=c++20") + ((f"-D_XMPACC_FIXED_LANES={lanes}",) if lanes > 1 else ()) \
        + (("-D_XMPACC_CHECK",) if checked else ())


class CudaBackend:
    name = "cuda"

    def __init__(self, source: str | None, local_rank: int, checked: bool = False, lib: Any = None) -> None:
        import cupy

        from .replay import bind_driver

        # the program's glue, whose records reduce the launches' results (device_results.py)
        # through the driver's functions; None where they cannot be bound: CuPy does it
        self.lib = lib if lib is not None and bind_driver(lib) else None
        self.cupy = cupy
        self.xp = cupy
        count = cupy.cuda.runtime.getDeviceCount()
        self.device_count = count
        self.device_id = local_rank % count
        cupy.cuda.Device(self.device_id).use()
        self.props = cupy.cuda.runtime.getDeviceProperties(self.device_id)
        self.source = source
        self.modules: dict[int, Any] = {}
        self.functions: dict[tuple[str, int], Any] = {}
        self.pinned: set[int] = set()
        self.replay: Any = None           # replay.py's Replay: the C side keeps ``pending``
        self._pending: str | None = None
        self.checked = checked            # a checked run: kernels check their subscripts

    @property
    def pending(self) -> str | None:
        """Where of the last launch not waited for (None: the stream is idle); kept by the
        C side when it replays launches, which set it too."""
        if self.replay is not None:
            where = self.replay.pending
            return where.decode(errors="replace") if where is not None else None
        return self._pending

    @pending.setter
    def pending(self, where: str | None) -> None:
        if self.replay is not None:
            self.replay.set_pending(where)
        else:
            self._pending = where

    def describe(self) -> str:
        return f"GPU {self.device_id} ({self.props['name'].decode()})"

    PIN_MIN = 1 << 16   # small variables share pages; page-locking them buys nothing

    def pin(self, addr: int, nbytes: int) -> None:
        """Page-lock the host side of a device copy: replicate_sync then runs at full speed."""
        if nbytes >= self.PIN_MIN:
            try:
                self.cupy.cuda.runtime.hostRegister(addr, nbytes, 0)
                self.pinned.add(addr)
            except Exception:  # noqa: BLE001 - already pinned or not pinnable: copies still work
                pass

    def unpin(self, addr: int, nbytes: int) -> None:
        if addr in self.pinned:
            self.pinned.discard(addr)
            self.cupy.cuda.runtime.hostUnregister(addr)

    def shape(self, threads: int, nthreads: int, lanes: int, inner: int,
              rows: int = 1, pad: int = 0) -> LaunchShape:
        block = nthreads or (DEFAULT_BLOCK_LANES if lanes > 1 else DEFAULT_BLOCK)
        if inner > 0 and threads % inner == 0:
            # rows > 1 (the compiler's choice for deep nests, kernels.block_rows, or the
            # program's workers, block_shape.py): a 2-D block of the same thread count, so
            # that neighbouring rows share the L1 cache
            rows = rows if rows > 1 and block % rows == 0 and block // rows >= 32 else 1
            bx = block // rows
            grid = (-(-(inner + pad) // bx), -(-(threads // inner) // rows))
            if grid[1] <= 65535:
                return LaunchShape(threads, bx, grid, True, -(-(grid[0] * grid[1] * block) // 32), rows)
        blocks = -(-threads // block)
        gx = min(blocks, 2**31 - 1)
        gy = -(-blocks // gx)
        if gy > 65535:
            raise RuntimeFailure("?", f"data is too big for GPU: {threads} threads")
        return LaunchShape(threads, block, (gx, gy), False, -(-(gx * gy * block) // 32))

    def scratch_slots(self, shape: LaunchShape) -> int:
        """A private array per thread id of the grid (_xmpacc_gid: below a warp's 32
        per partial slot, padding threads included)."""
        return shape.partials * 32

    def lanes(self, total: int, nthreads: int) -> int:
        """Lanes per iteration for a lane-split kernel: enough threads for about eight
        waves of the whole GPU, at most a warp; XMPACC_LANES fixes it (1: the paper's
        mapping)."""
        forced = os.environ.get("XMPACC_LANES")
        if forced:
            t = int(forced)
        else:
            target = 8 * self.props["multiProcessorCount"] * self.props["maxThreadsPerMultiProcessor"]
            t = 1
            while t < 32 and total * t < target:
                t *= 2
        if t not in (1, 2, 4, 8, 16, 32) or nthreads % 32 != 0:
            return 1
        return t

    def alloc(self, nbytes: int, what: str, where: str) -> Any:
        try:
            return self.cupy.empty(max(nbytes, 1), dtype=np.uint8)
        except self.cupy.cuda.memory.OutOfMemoryError:
            raise RuntimeFailure(where, f"failed to allocate data on GPU {self.device_id}: {nbytes} bytes "
                                        f"for '{what}' (out of device memory)") from None

    def ptr(self, buf: Any) -> int:
        return int(buf.data.ptr)

    def copy_in(self, buf: Any, host_addr: int, nbytes: int) -> None:
        buf.data.copy_from_host(ctypes.c_void_p(host_addr), nbytes)

    def copy_out(self, buf: Any, host_addr: int, nbytes: int) -> None:
        buf.data.copy_to_host(ctypes.c_void_p(host_addr), nbytes)

    def descriptor(self, host_addr: int, nbytes: int, tmpl_addr: int, tmpl_bytes: int) -> tuple[Any, int]:
        """A copy of an array descriptor, passed to kernels by value, whose template pointer
        (read by the cyclic index formula) points at a device copy of the template."""
        from .cstructs import CArray

        tbuf = self.alloc(tmpl_bytes, "template descriptor", "?")
        self.copy_in(tbuf, tmpl_addr, tmpl_bytes)
        host = CArray.from_buffer_copy((ctypes.c_char * nbytes).from_address(host_addr))
        host.tmpl = ctypes.cast(self.ptr(tbuf), type(host.tmpl))
        return (tbuf, host), ctypes.addressof(host)

    def view(self, buf: Any, dtype: Any, count: int) -> Any:
        return buf[: count * np.dtype(dtype).itemsize].view(dtype)

    def _function(self, name: str, where: str, lanes: int) -> Any:
        fn = self.functions.get((name, lanes))
        if fn is None:
            module = self.modules.get(lanes)
            if module is None:
                module = self.modules[lanes] = self._compile(where, lanes)
            fn = self.functions[(name, lanes)] = module.get_function(name)
        return fn

    def _compile(self, where: str, lanes: int) -> Any:
        """The program's kernels for one lane count (CuPy caches the binary on disk).
        Streaming kernels that ask for many blocks per SM (``_XMPACC_MINB<name>``,
        passes/kernel/streaming.py min_blocks) and spill at that register budget are built
        again at their fallback: one more NVRTC run, only for programs that have such a
        kernel."""
        options = nvrtc_options(lanes, self.checked)
        module = self._nvrtc(where, options)
        relaxed = fallbacks(self.source or "", lambda name: self._local_bytes(module, name))
        if relaxed:
            module = self._nvrtc(where, options + tuple(f"-D_XMPACC_MINB{n}={b}" for n, b in relaxed))
        return module

    def _nvrtc(self, where: str, options: tuple[str, ...]) -> Any:
        try:
            module = self.cupy.RawModule(code=self.source, options=options)
            module.compile()
            return module
        except self.cupy.cuda.compiler.CompileException as e:
            log = "\n".join(_user_lines(str(e))) or str(e)
            raise RuntimeFailure(where, "the GPU kernels failed to compile (NVRTC):\n" + log) from None

    def _local_bytes(self, module: Any, name: str) -> int:
        """Local memory (spilled registers) per thread of one kernel of ``module``."""
        return int(module.get_function(name).local_size_bytes)   # a RawKernel

    VIOLATION_BYTES = 16 + 8 * 7   # _xmpacc_violation_t of include/xmpacc_check.h

    def violation(self) -> tuple[int, int, int, list[int]] | None:
        """Checked runs: the first bad access a kernel recorded (what, array id, line, global
        indices), cleared; None without one."""
        self.wait()
        for module in self.modules.values():
            ptr = module.get_global("_xmpacc_violation")
            raw = np.zeros(self.VIOLATION_BYTES, np.uint8)
            ptr.copy_to_host(ctypes.c_void_p(raw.ctypes.data), raw.nbytes)
            head = raw[:16].view(np.int32)
            if head[0]:
                ptr.memset(0, raw.nbytes)
                return int(head[1]), int(head[2]), int(head[3]), [int(x) for x in raw[16:].view(np.int64)]
        return None

    def result(self, host: np.ndarray, partial: Any, op: int, type_code: int,
               where: str) -> DeviceResult | CupyResult | WaitResult:
        """How one reduction of a prepared launch reaches ``host`` (device_results.py):
        reduced on the device behind the kernel (by the C records where they take the
        type, else by CuPy), or, for CuPy's types and the bitwise operators, on the host
        after a wait for the stream."""
        if partial.size and in_c(type_code) and self.lib is not None:
            return DeviceResult(self, host, partial, op, type_code, where)
        if on_device(op) and partial.size:
            return CupyResult(self.cupy, host, partial, op, where, self.side_stream())
        return WaitResult(host, partial, op, self.cupy, self.wait)

    def side_stream(self) -> Any:
        """The stream of the reductions behind the kernels (DeviceResult), made once."""
        if getattr(self, "side", None) is None:
            self.side = self.cupy.cuda.Stream(non_blocking=True)
        return self.side

    def handle(self, name: str, where: str, lanes: int) -> int:
        """The kernel's CUfunction, for the C side (replay.py)."""
        fn = self._function(name, where, lanes)
        return int(fn.kernel.ptr if hasattr(fn, "kernel") else fn.ptr)

    def stream_ptr(self) -> int:
        return int(self.cupy.cuda.get_current_stream().ptr)

    def launch(self, name: str, shape: LaunchShape, params: Any, where: str, lanes: int = 1) -> None:
        fn = self._function(name, where, lanes)
        (gx, gy), nthreads = shape.grid, shape.block
        stream = self.cupy.cuda.get_current_stream()
        try:
            ptr = fn.kernel.ptr if hasattr(fn, "kernel") else fn.ptr
            self.cupy.cuda.driver.launchKernel(ptr, gx, gy, 1, nthreads, shape.rows, 1, 0, stream.ptr,
                                               ctypes.addressof(params), 0)
        except Exception as e:  # noqa: BLE001 - CUDA reports launch errors here
            raise RuntimeFailure(where,
                                 f"the kernel of this acc loop failed on GPU {self.device_id}: {e}") from None
        self.pending = where

    def wait_all(self) -> None:
        """Wait for every stream of the GPU (the side stream's reductions too)."""
        self.cupy.cuda.Device(self.device_id).synchronize()

    def wait(self) -> None:
        """Wait for the kernels launched so far.  Launches are stream-ordered: the next
        kernel, copy or NCCL exchange sees their results without a host wait; the runtime
        waits here before the host can observe the device (replicate_sync, xmp_wtime, the
        end of the program; a reduction waits for an event of its own, device_results.py),
        so the program behaves as if every launch were synchronous (reference §7.4), only
        faster."""
        if self.pending is None:
            return
        where, self.pending = self.pending, None
        try:
            self.cupy.cuda.get_current_stream().synchronize()
        except Exception as e:  # noqa: BLE001 - an execution error of a kernel
            raise RuntimeFailure(where, f"the kernel of this acc loop (or a later one) failed on GPU "
                                        f"{self.device_id}: {e}") from None


def fallbacks(source: str, local_bytes: Any) -> list[tuple[str, int]]:
    """(kernel, blocks per SM) for each kernel of ``source`` with a register budget of
    its own (templates/kernels.cu.j2: ``_XMPACC_MINB<name>``) that ``local_bytes(name)``
    finds spilling: it is built again at its fallback."""
    wanted = dict(_FALLBACK.findall(source))
    return [(name, int(wanted[name])) for name in _MIN_BLOCKS.findall(source)
            if name in wanted and local_bytes(name) > 0]


def _user_lines(log: str) -> list[str]:
    """NVRTC's messages, rewritten as ``file:line: error: ...`` (the #line markers point
    them at the user's source)."""
    out = []
    for line in log.splitlines():
        m = re.match(r"^(.*?)\((\d+)\): (error|warning)[^:]*: (.*)$", line.strip())
        if m:
            out.append(f"{m.group(1)}:{m.group(2)}: {m.group(3)}: {m.group(4)}")
    return out


def choose_backend(lib: ctypes.CDLL, source: str | None, world: Any,
                   checked: bool = False) -> tuple[Any, str | None]:
    """The backend XMPACC_DEVICE asks for, and a notice for rank 0 to print (or None)."""
    from mpi4py import MPI

    wanted = os.environ.get("XMPACC_DEVICE", "auto").lower()
    if wanted not in ("auto", "cuda", "host"):
        raise RuntimeFailure("XMPACC_DEVICE", f"unknown device '{wanted}' (cuda, host or auto)",
                             collective=True)
    local = world.Split_type(MPI.COMM_TYPE_SHARED)
    local_rank = local.Get_rank()
    local.Free()
    if wanted == "host":
        return HostBackend(lib), None
    reason = _gpu_unavailable()
    if reason is None:
        return CudaBackend(source, local_rank, checked, lib), None
    if wanted == "cuda":
        raise RuntimeFailure("XMPACC_DEVICE=cuda", f"no GPU device found: {reason}")
    return HostBackend(lib), f"xmpacc: no GPU ({reason}); acc loops run on the host backend"


def _gpu_unavailable() -> str | None:
    try:
        import cupy
    except Exception:  # noqa: BLE001 - any import failure means no usable CuPy
        return "CuPy is not installed (pip install 'xmpacc[cuda13]')"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "CUDA sees no device"
    except Exception as e:  # noqa: BLE001
        return f"CUDA is not usable ({type(e).__name__})"
    return None
