"""Start-up of an xmpacc executable: MPI, the program's shared object, the runtime table.

``./prog a b`` runs ``__main__.py`` of the executable (a zip file), which calls ``main``:

1. read ``program.so`` out of the executable into an anonymous memory file and load it
   (nothing is written to disk, nothing is left behind);
2. initialise MPI (mpi4py) and the runtime, and point every entry of the C table
   ``_xmpacc_rt`` at the method of the same name on the runtime or on the concern that
   implements it (``contract.py`` lists them, ``Runtime.entries()`` finds them);
3. call ``_xmpacc_entry(argc, argv)``, which runs each file's start-up code and ``main``;
4. flush C and Python output (with XMPACC_PROFILE: print the profile, profile.py),
   finalise MPI and exit with main's return value.

A failure inside a runtime call is reported by ``_fail``: one clean message, then the
job ends with a non-zero status (rank 0 alone speaks for collective failures).
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
import traceback
import zipfile
from collections.abc import Callable
from typing import Any

from . import profile
from .contract import ENTRIES, Entry, contract_id
from .errors import ABORT_DRAIN_S, RuntimeFailure

_CTYPES = {
    "void": None, "int": ctypes.c_int, "long long": ctypes.c_longlong, "double": ctypes.c_double,
    "const char *": ctypes.c_char_p, "void *": ctypes.c_void_p, "const void *": ctypes.c_void_p,
    "const int *": ctypes.c_void_p, "const long long *": ctypes.c_void_p, "int *": ctypes.c_void_p,
}

_LIBC = ctypes.CDLL(None)


def flush_c() -> None:
    _LIBC.fflush(None)


def unit_sources(lib: ctypes.CDLL) -> list[str]:
    """The XMP files of the program in the order their start-up code runs (link order)."""
    lib._xmpacc_unit_source.restype = ctypes.c_char_p
    lib._xmpacc_unit_source.argtypes = [ctypes.c_int]
    return [lib._xmpacc_unit_source(i).decode() for i in range(lib._xmpacc_unit_count())]


def load_program(executable: str, library: bytes | None = None) -> tuple[ctypes.CDLL, str | None]:
    """Load program.so from the executable (or ``library``, a checked variant) through an
    anonymous in-memory file; also return the kernel source of the program's files (their
    records, xmpacc_unit.h), None when no file has acc loops."""
    with zipfile.ZipFile(executable) as z:
        data = library if library is not None else z.read("program.so")
    fd = os.memfd_create("xmpacc-program.so")
    os.write(fd, data)
    try:
        lib = ctypes.CDLL(f"/proc/self/fd/{fd}", mode=ctypes.RTLD_GLOBAL)
    except OSError as e:   # a shared library it needs is missing or does not fit
        raise LoadFailure(_load_message(os.path.basename(executable), str(e))) from None
    lib._xmpacc_unit_kernels.restype = ctypes.c_char_p
    lib._xmpacc_unit_kernels.argtypes = [ctypes.c_int]
    texts = [lib._xmpacc_unit_kernels(i) for i in range(lib._xmpacc_unit_count())]
    kernels = "".join(t.decode() for t in texts if t)
    return lib, kernels or None


class LoadFailure(Exception):
    """program.so could not be loaded (the dynamic loader's reason, in the user's terms)."""


def _load_message(program: str, reason: str) -> str:
    reason = reason.split(": ", 1)[-1] if reason.startswith("/proc/self/fd/") else reason
    if "undefined symbol: _xmpacc_abi_v" in reason:
        return (f"{program}: error: a shared library it uses was compiled by another version of "
                "xmpacc; compile the library again with the xmpacc that built this program")
    return f"{program}: error while loading shared libraries: {reason}"


def _fail(world: Any, err: RuntimeFailure, cleanup: Callable[[], None] | None = None) -> None:
    flush_c()
    sys.stdout.flush()
    rank = world.Get_rank()
    if err.collective:
        if rank == 0:
            print(f"{err.where}: error: {err.message}", file=sys.stderr, flush=True)
        from mpi4py import MPI

        if cleanup is not None:   # windows left open make MPI_Finalize print warnings
            cleanup()

        MPI.Finalize()
        # C exit(), not os._exit(): after _exit, hydra (MPICH's mpirun) now and then
        # kills the other processes and prints "BAD TERMINATION" (15 of 60 runs); after
        # exit(), which also flushes C stdio, it never did (0 of 160)
        _LIBC.exit(1)
    suffix = "" if err.names_node else f" (node {rank})"
    sys.stderr.flush()
    # one write: the lines of nodes failing at once do not interleave
    os.write(2, f"{err.where}: error: {err.message}{suffix}\n".encode())
    time.sleep(ABORT_DRAIN_S)  # mpirun forwards the message before the abort kills the job
    world.Abort(1)
    os._exit(1)  # Abort may return before the launcher kills us: never run on into C


def _internal(world: Any) -> None:
    flush_c()
    print("xmpacc runtime: internal error; this is a bug in xmpacc, not in your program:\n"
          + traceback.format_exc(), file=sys.stderr, flush=True)
    time.sleep(ABORT_DRAIN_S)
    world.Abort(2)
    os._exit(2)


def _guarded(fn: Callable[..., Any], world: Any,
             cleanup: Callable[[], None] | None = None) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except RuntimeFailure as err:
            _fail(world, err, cleanup)
        except Exception:  # noqa: BLE001 - a Python exception cannot cross into C
            _internal(world)
        return 0
    return call


def _callback_type(e: Entry) -> Any:
    return ctypes.CFUNCTYPE(_CTYPES[e.returns], *(_CTYPES[t] for t, _ in e.params))


def bind(lib: ctypes.CDLL, runtime: Any, world: Any, profiler: Any = None) -> list[Any]:
    """Fill the C table ``_xmpacc_rt``; returns the callbacks (they must stay alive).
    With a profiler (XMPACC_PROFILE) each entry is timed; without, nothing is added."""
    try:
        built = ctypes.cast(ctypes.addressof(ctypes.c_char.in_dll(lib, "_xmpacc_contract")),
                            ctypes.c_char_p).value
    except ValueError:  # built before the fingerprint existed
        built = None
    if built != contract_id().encode():
        _fail(world, RuntimeFailure(os.path.basename(sys.argv[0]),
                                    "this program was built by another version of xmpacc; compile it "
                                    "again with this one", collective=True))
    table = (ctypes.c_void_p * len(ENTRIES)).in_dll(lib, "_xmpacc_rt")
    entries = runtime.entries()
    keep = []
    for i, e in enumerate(ENTRIES):
        fn = entries[e.name]
        if profiler is not None:
            fn = profiler.wrap(e, fn)
        cb = _callback_type(e)(_guarded(fn, world, getattr(runtime, "free_windows", None)))
        keep.append(cb)
        table[i] = ctypes.cast(cb, ctypes.c_void_p).value
    return keep


class _ExecInfo(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int) for n in ("world_rank", "world_size", "exec_rank",
                                            "exec_size", "gpu_count")]


def _start_device(lib: ctypes.CDLL, kernels: str, runtime: Any, world: Any, checked: bool = False) -> None:
    """Pick the device backend (XMPACC_DEVICE) for a program with acc loops."""
    from .device import choose_backend

    failure: RuntimeFailure | None = None
    try:
        backend, notice = choose_backend(lib, kernels, world, checked)
    except RuntimeFailure as err:
        failure = err
    # Every rank takes part in the decision, so that all end together and cleanly when any
    # rank has no usable device (an abort from one rank can swallow the others' output).
    failed = [r for r, f in enumerate(world.allgather(failure is not None)) if f]
    if failed:
        first = world.bcast(None if failure is None else (failure.where, failure.message), root=failed[0])
        where, message = first
        nodes = ", ".join(map(str, failed))
        _fail(world, RuntimeFailure(where, f"{message} (node{'s' if len(failed) > 1 else ''} {nodes})",
                                    collective=True))
        return
    runtime.device.start(backend)
    runtime.exec_info.gpu_count = getattr(backend, "device_count", 0)
    if notice and world.Get_rank() == 0:
        print(notice, file=sys.stderr, flush=True)
    if os.environ.get("XMPACC_VERBOSE"):
        print(f"xmpacc: rank {world.Get_rank()} uses {backend.describe()}", file=sys.stderr, flush=True)


def _start_replay(lib: ctypes.CDLL, runtime: Any, profiler: Any) -> None:
    """The C side of the per-iteration calls (replay.py)."""
    from .replay import Replay

    replay = Replay(lib, profiler is not None)
    backend = runtime.device.backend
    if backend is not None and backend.name == "cuda":
        replay.bind_cuda(backend)
        backend.replay = replay
    replay.c.host_backend = int(backend is not None and backend.name == "host")
    replay.c.wait_on_host = int(runtime.queues.wait_on_host)
    replay.c.overlap_min_bytes = runtime.acc_comm.overlap_min_bytes
    runtime.replay = replay
    runtime.param_views.start(lib)
    runtime.tasks.plans.start(lib, replay)
    if backend is not None:
        runtime.kernels.deferred.bind(replay)
    runtime.fast_reflect.watch_pause(lib)   # async pauses the C side's collectives too
    replay.set_generation(runtime.device.generation)
    replay.set_exec(runtime.exec_comm)
    if profiler is not None:
        profiler.replayed = replay.events
        profiler.replayed_dropped = lambda: int(replay.c.dropped)


def _checked_program(executable: str) -> Any:
    """The checked variant when this run is checked (checked_build.py), built before MPI
    starts: it may run the C compiler."""
    from .checked_build import CheckBuildError, prepare

    try:
        return prepare(executable)
    except CheckBuildError as e:
        rank = os.environ.get("PMI_RANK") or os.environ.get("OMPI_COMM_WORLD_RANK") or "0"
        if rank == "0":
            print(f"{os.path.basename(executable)}: error: XMPACC_CHECK=1: {e}", file=sys.stderr, flush=True)
        sys.exit(1)


def main(argv: list[str]) -> int:
    check = _checked_program(argv[0])
    from mpi4py import MPI

    from .api import Runtime

    world = MPI.COMM_WORLD
    try:
        lib, kernels = load_program(argv[0], check.library if check is not None else None)
    except LoadFailure as e:
        if world.Get_rank() == 0:
            print(e, file=sys.stderr, flush=True)
        return 127
    if check is not None:
        from .checked_run import CheckedRuntime as Runtime  # noqa: N814 - the runtime of checked runs
    runtime = Runtime(world, _ExecInfo.in_dll(lib, "_xmpacc_exec"))
    setting = profile.requested()
    profiler = profile.Profiler(world, runtime.stats, setting, runtime.device._xmpacc_device_wait) \
        if setting is not None else None
    callbacks = bind(lib, runtime, world, profiler)
    runtime.dynamic.bind_blocks(lib)   # the program's free() and xmp_malloc's blocks (dynamic.py)
    # checked runs see every call: no C fast path (fast_reflect.py, replay.py); profiled
    # runs replay too, and the C side times what it replays
    if check is None and os.environ.get("XMPACC_FAST_REFLECT", "1") != "0":
        runtime.fast_reflect.start(lib)
    if os.environ.get("XMPACC_VERBOSE") and world.Get_rank() == 0:
        print("xmpacc: start-up order: " + ", ".join(unit_sources(lib)), file=sys.stderr, flush=True)
    if kernels is not None:
        _start_device(lib, kernels, runtime, world, check is not None)
    if check is None and os.environ.get("XMPACC_REPLAY", "1") != "0":
        _start_replay(lib, runtime, profiler)
    c_argv = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
    lib._xmpacc_entry.restype = ctypes.c_int
    lib._xmpacc_entry.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    if profiler is not None:
        profiler.start()
    status = lib._xmpacc_entry(len(argv), c_argv)
    if runtime.param_views.lib is not None:   # what C did with parameters' views since the last call
        runtime.param_views.sync()
    if runtime.device.backend is not None:
        _guarded(runtime.device._xmpacc_device_wait, world)()   # a late kernel failure still ends the job
    flush_c()
    sys.stdout.flush()
    if profiler is not None:  # collective; exit(0) gets here through the exit hook instead
        profiler.finish()
    if os.environ.get("XMPACC_STATS"):  # runtime counters (bytes moved, launches), one line per rank
        import json

        if runtime.replay is not None:
            runtime.replay.fold(runtime.stats)
        runtime.fast_reflect.fold()
        runtime.param_views.fold(runtime.stats)
        runtime.tasks.plans.fold(runtime.stats)
        line = "xmpacc-stats: " + json.dumps({"rank": world.Get_rank(), **runtime.stats}) + "\n"
        os.write(2, line.encode())  # one write: lines of different ranks do not interleave
    del callbacks
    return status & 0xFF
