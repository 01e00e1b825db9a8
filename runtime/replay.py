"""The per-iteration runtime path in C: Python plans once, the glue replays every later call.

A time loop calls the same few entries again and again: a kernel launch per ``loop ...
acc`` or compute construct, the construct's data region, ``reflect ... acc``, ``acc
wait``, the wait of ``xmp_wtime``.  Through the general path each call crosses from C
into Python (a ctypes callback, the argument decoding, a dictionary look-up): 10-70 us,
more than a small kernel.  Here the first call at a site runs in Python as before, and
then ``Replay`` hands its result to the glue as a *plan*, a C structure of
include/xmpacc_replay.h: the kernel's function handle, its parameter array and grid; the
NCCL sends and receives of a reflect with their device addresses (a plan per set of
explicit widths, compared in C with the widths the call passes); the bytes of an ``acc
update``, whole or a section's box (byte_boxes.py, for the section the call passes); the
fact that a construct's data region has nothing to do; a ``reduction``/``bcast ... acc``
on the device copy (replay_collectives.py).  Every later call at that site compares its
arguments with the plan and, when they match, runs it in C (``cuLaunchKernel``,
``ncclSend``/``ncclRecv`` in a group, ``cuStreamSynchronize``) without entering the
interpreter.  Anything the plan was not made for takes the general path, which stays the
reference: the C side only repeats what it did.

The CUDA driver and NCCL are the libraries CuPy already loaded (their symbols are looked
up in this process; nothing is installed or linked for it).  The host backend replays its
kernels through the same plans (the trampolines are called directly) and its device
reflects through MPI persistent requests (fast_reflect.py), so the CPU-only tests run this
code too.

A plan stays valid while the runtime's device-table ``generation`` (device_memory.py) is the one it
was made under: a copy coming or going, a re-alignment or an async queue switching
streams makes the C side fall back, and the next general call plans again.  Checked runs
see every call in Python (no plans); profiled runs replay too, and the C side records
each replayed call for the profile (``events``: profile.py shows them as "in C").
``XMPACC_REPLAY=0`` turns replay off.
"""

from __future__ import annotations

import ctypes
import functools
import os
from dataclasses import dataclass, field
from typing import Any

from .byte_boxes import ByteBox, strided_copies
from .cstructs import CSched
from .fast_reflect import WIDTH_SETS, FastPlan, build_requests, link_chain, mpi_functions
from .reflect import active_step
from .replay_structs import (  # noqa: F401  (the mirrors are also named from here)
    QUEUES,
    CAccReflectPlan,
    CBcastPlan,
    CComputePlan,
    CEvent,
    CLaunchPlan,
    CLoopReducePlan,
    CNodeRef,
    CReplay,
    CSlabOp,
    CSwapPlan,
    CUpdatePlan,
)

# the entry of each profile event, in include/xmpacc_fast.h's enum order
REPLAYED = ("_xmpacc_reflect", "_xmpacc_reflect_acc", "_xmpacc_launch", "_xmpacc_acc_compute_begin",
            "_xmpacc_acc_compute_end", "_xmpacc_device_wait", "_xmpacc_acc_wait", "_xmpacc_reflect_do_acc",
            "_xmpacc_loop_reduce_begin", "_xmpacc_loop_reduce", "_xmpacc_acc_swap_reduced", "_xmpacc_reduce",
            "_xmpacc_acc_defer_reductions", "_xmpacc_acc_reductions_wait", "_xmpacc_acc_reductions_discard",
            "_xmpacc_acc_queue_begin", "_xmpacc_acc_queue_end", "_xmpacc_barrier", "_xmpacc_bcast",
            "_xmpacc_acc_update", "_xmpacc_reflect_orthogonal", "_xmpacc_async_begin", "_xmpacc_async_end",
            "_xmpacc_wait_async", "_xmpacc_test_async", "_xmpacc_acc_wait_on_device",
            "_xmpacc_reflect_orthogonal_acc", "_xmpacc_reduce_acc", "_xmpacc_bcast_acc", "_xmpacc_reduce_var",
            "_xmpacc_reflect_acc_overlap", "_xmpacc_reflect_acc_join", "_xmpacc_gmove",
            "_xmpacc_reflect_acc_rim", "_xmpacc_align_pointer", "_xmpacc_malloc", "_xmpacc_array_release",
            "_xmpacc_task_begin", "_xmpacc_task_end", "_xmpacc_task_nocomm", "_xmpacc_loop_reduce_var_begin",
            "_xmpacc_loop_reduce_var")

# the C side's tables of device reflect plans (include/xmpacc_replay.h): reflect_do ... acc,
# reflect ... acc with the declared or explicit widths, the same orthogonal
REFLECT_DO, REFLECT, REFLECT_WIDTHS, ORTHOGONAL, ORTHOGONAL_WIDTHS = range(5)
PLANS_PER_SITE = 4   # plans kept per launch or compute site (replay.py _register)
UNSTEADY = 16        # plans dropped unused in a row after which a site gets no more


def reflect_kind(orthogonal: bool, widths: bytes | None) -> int:
    """The C table of a ``reflect ... acc`` (not reflect_do): orthogonal or not, explicit
    widths or the declared ones."""
    return (ORTHOGONAL if orthogonal else REFLECT) + (widths is not None)


@dataclass
class Held:
    """A plan and what its pointers point into (kept alive while the plan is registered)."""

    c: Any
    keep: list[Any] = field(default_factory=list)
    received: int = 0      # reflect: bytes received per call (sent: the plan's own ``bytes``)
    widths: bytes | None = None   # reflect: explicit widths, as the call passes them
    # more counters of its replayed calls than its kind's (a plan of another module: all of them)
    counters: tuple[str, ...] = ()
    bytes_counter: str = ""   # and one of the bytes they moved (the plan's ``bytes`` per call)


def _symbol(lib: Any, name: str) -> int:
    return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value or 0


@functools.cache
def driver() -> ctypes.CDLL:
    """libcuda, which CuPy loaded (OSError where there is none): the runtime's one handle
    on the driver's functions that CuPy does not wrap."""
    return ctypes.CDLL("libcuda.so.1")


# the glue's field -> the driver function it calls
_DRIVER = (("launch", "cuLaunchKernel"), ("synchronize", "cuStreamSynchronize"),
           ("copy2d", "cuMemcpy2DAsync_v2"), ("event_record", "cuEventRecord"),
           ("stream_wait", "cuStreamWaitEvent"), ("event_synchronize", "cuEventSynchronize"),
           ("copy_to_host", "cuMemcpyDtoHAsync_v2"), ("copy_in", "cuMemcpyHtoD_v2"),
           ("copy_out", "cuMemcpyDtoH_v2"), ("copy_in_async", "cuMemcpyHtoDAsync_v2"))


def bind_driver(lib: Any) -> bool:
    """The CUDA driver's functions that the glue calls (from libcuda, which CuPy loaded:
    nothing is linked for them), set once; False without them.  cuLaunchKernelEx, which a
    driver older than CUDA 12 lacks, is 0 there (launches are then plain)."""
    try:
        c = CReplay.in_dll(lib, "_xmpacc_replay")
        if c.launch:
            return True
        found = [_symbol(driver(), name) for _, name in _DRIVER]
    except (OSError, AttributeError, ValueError):   # no driver, or a library without the glue
        return False
    for (name, _), ptr in zip(_DRIVER, found, strict=True):
        setattr(c, name, ptr)
    c.launch_ex = _symbol(driver(), "cuLaunchKernelEx") if hasattr(driver(), "cuLaunchKernelEx") else 0
    return True


def dependent_launch() -> bool:
    """XMPACC_DEPENDENT_LAUNCH (default on): launches in C let a loop's kernel begin while
    the kernel before it in the stream ends (programmatic dependent launch, sm_90 and
    later); its threads wait for that kernel's memory first thing (_XMPACC_GRID_WAIT)."""
    return os.environ.get("XMPACC_DEPENDENT_LAUNCH", "1") != "0"


def priority_stream() -> int:
    """A non-blocking stream of the current context's highest priority, from the driver
    (the exchange stream of overlapped reflects, include/xmpacc_replay.h); 0 where the
    driver is missing or refuses.  It lives as long as the process."""
    try:
        cuda = driver()
        least, greatest, stream = ctypes.c_int(), ctypes.c_int(), ctypes.c_void_p()
        if cuda.cuCtxGetStreamPriorityRange(ctypes.byref(least), ctypes.byref(greatest)) \
                or cuda.cuStreamCreateWithPriority(ctypes.byref(stream), 1, greatest):   # 1: non-blocking
            return 0
    except (OSError, AttributeError):
        return 0
    return stream.value or 0


def loaded_library(part: str) -> str | None:
    """The path of a shared library this process has loaded whose name contains ``part``
    (NCCL comes with CuPy's wheel: its path is where CuPy found it)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) >= 6 and part in fields[-1].rsplit("/", 1)[-1]:
                    return fields[-1]
    except OSError:
        return None
    return None


class Replay:
    """The C side's state (``_xmpacc_replay`` of the glue) and the plans registered there."""

    def __init__(self, lib: Any, profile: bool) -> None:
        self.lib = lib
        self.c = CReplay.in_dll(lib, "_xmpacc_replay")
        self.bind_setters("_xmpacc_launch_plan_set", "_xmpacc_compute_plan_set",
                          "_xmpacc_loop_reduce_plan_set", "_xmpacc_swap_plan_set", "_xmpacc_update_plan_set",
                          "_xmpacc_bcast_plan_set")
        fn = lib._xmpacc_acc_reflect_set
        fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p], ctypes.c_int
        self.launches: dict[int, list[Held]] = {}     # where -> its plans, the newest first
        self.computes: dict[int, list[Held]] = {}
        self.reductions: dict[int, list[Held]] = {}   # the variable's address -> its plans
        self.swaps: dict[int, list[Held]] = {}
        self.updates: dict[int, list[Held]] = {}      # where -> its plans
        self.bcasts: dict[int, list[Held]] = {}       # where -> its plans (from clauses)
        self.more: list[dict[int, list[Held]]] = []   # other modules' tables (replay_collectives.py)
        self.unused: dict[int, int] = {}              # site -> plans dropped unused in a row
        self._bind_mpi()
        # (descriptor, kind) -> its plans, one per set of widths, the newest first
        self.reflects: dict[tuple[int, int], list[Held]] = {}
        self.nccl_comm: Any = None
        self.events_keep: Any = None
        self.counted: dict[str, int] = {}   # replayed calls of dropped plans, not yet in the counters
        self.pending_texts: dict[Any, Any] = {}   # where -> its C string, for ``pending``
        self.known: dict[int, Any] = {}   # a replayed launch's result record (address) -> its object
        self.take_over: Any = None        # deferred.py: Python takes the C side's deferred results
        if profile:
            self.events_keep = (CEvent * (1 << 20))()
            self.c.events = ctypes.cast(self.events_keep, ctypes.POINTER(CEvent))
            self.c.capacity = len(self.events_keep)
            self.c.profile = 1
        self.c.on = 1

    def bind_setters(self, *names: str) -> None:
        """The C side's plan tables' setters (_XMPACC_PLAN_TABLE): (key, plan) -> ok."""
        for name in names:
            fn = getattr(self.lib, name)
            fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int

    def _bind_mpi(self) -> None:
        """MPI_Allreduce (loop reductions), MPI_Startall and MPI_Waitall (the host backend's
        device reflects), MPI_Barrier and MPI_Bcast of the MPI library mpi4py loaded."""
        from mpi4py import MPI

        calls = mpi_functions("MPI_Allreduce", "MPI_Startall", "MPI_Waitall", "MPI_Barrier", "MPI_Bcast")
        self.c.allreduce = calls[0] if calls else None
        self.requests: tuple[int, ...] | None = calls[1:3] if calls else None
        if calls:
            self.c.barrier, self.c.bcast = calls[3:]
            self.c.byte_type = MPI._handleof(MPI.BYTE)

    def set_exec(self, comm: Any) -> None:
        """The executing node set changed (task, end of task): loop reductions' plans
        name the communicators split from it."""
        from mpi4py import MPI

        self.c.exec = MPI._handleof(comm)

    def layout_changed(self) -> None:
        """A template was distributed (again): the loops' node sets may differ."""
        self.c.layout += 1

    # ------------------------------------------------------------ the device
    def bind_cuda(self, backend: Any) -> None:
        """The driver's functions (bind_driver) and the current stream."""
        if not bind_driver(self.lib):
            self.c.on = 0   # no driver symbols: the general path only
            return
        self.c.stream = backend.cupy.cuda.get_current_stream().ptr or None
        self.c.dependent = int(dependent_launch() and int(backend.props.get("major", 0)) >= 9
                               and bool(self.c.launch_ex))

    def bind_nccl(self, transport: Any) -> bool:
        """NCCL's point-to-point functions and the world communicator (once)."""
        if self.nccl_comm is transport:
            return True
        path = loaded_library("libnccl")
        comm = getattr(transport.comm, "comm", None)
        if path is None or not isinstance(comm, int):
            return False
        try:
            nccl = ctypes.CDLL(path)
            names = ("ncclGroupStart", "ncclGroupEnd", "ncclSend", "ncclRecv")
            self.c.group_start, self.c.group_end, self.c.send, self.c.recv = (_symbol(nccl, n) for n in names)
        except (OSError, AttributeError):
            return False
        self.c.nccl = comm
        self.nccl_comm = transport
        return True

    def set_stream(self, ptr: int) -> None:
        self.c.stream = ptr or None

    def set_exchange_stream(self, stream: int, ready: int, done: int) -> None:
        """The stream of overlapped reflects' exchanges and its two events (acc_comm.py)."""
        self.c.comm_stream, self.c.comm_ready, self.c.comm_done = stream, ready, done

    def overlap_open(self) -> bool:
        """An overlapped reflect's exchange C started and has not joined yet."""
        return bool(self.c.overlap_open)

    def overlap_closed(self) -> None:
        self.c.overlap_open = 0

    def hold_overlaps(self, held: bool) -> None:
        """Python holds overlapped exchanges until the join: C's join hands it over."""
        self.c.python_overlaps = int(held)

    def add_queue(self, queue: int, ptr: int, event: int, join_event: int) -> None:
        """A new async queue's stream, and its event for acc waits on the device (the
        compute stream's ``join_event``, made with the first queue)."""
        n = self.c.nqueues
        if n < QUEUES:
            self.c.queue_id[n], self.c.queue_stream[n], self.c.queue_event[n] = queue, ptr, event
            self.c.join_event = join_event
            self.c.nqueues = n + 1
        else:
            self.c.on = 0   # more queues than the table holds: acc wait must see them all

    def queue_moved_host(self, queue: int, moved: bool) -> None:
        """Queue ``queue``'s work since the host last waited for it moves host memory
        (an async update: its acc wait blocks the host), or, after such a wait, no more."""
        for k in range(self.c.nqueues):
            if self.c.queue_id[k] == queue:
                self.c.queue_moved_host[k] = int(moved)

    def moved_host(self, queue: int) -> bool:
        return any(self.c.queue_id[k] == queue and self.c.queue_moved_host[k] for k in range(self.c.nqueues))

    @property
    def pending(self) -> bytes | None:
        return ctypes.string_at(self.c.pending) if self.c.pending else None

    def set_pending(self, where: Any) -> None:
        """Python launches mark the stream busy the same way as replayed ones."""
        if where is None:
            self.c.pending = None
        else:
            text = self.pending_texts.get(where)   # one buffer per site: no allocation per launch
            if text is None:
                text = self.pending_texts[where] = ctypes.create_string_buffer(
                    where.encode() if isinstance(where, str) else where)
            self.c.pending = ctypes.addressof(text)

    def set_generation(self, value: int) -> None:
        self.c.generation = value

    # ------------------------------------------------------------ plans
    def offer_launch(self, backend: Any, name: str, where_text: str, prepared: Any, info: Any, total: int,
                     nthreads: int, nparams: int, args: int, inner: tuple[int, int],
                     located: tuple[Any, list[Any]] | None = None) -> None:
        """A launch the general path just made, for the C side to repeat (acc.py); ``located``:
        its location records' C structures and what they point into (replay_locations.py)."""
        where = self.c.where or 0
        if not where or not self.steady(where):
            return
        launch_fn, stream = backend.handle(name, where_text, prepared.lanes), backend.stream_ptr()
        args_copy = (ctypes.c_void_p * max(nparams, 1))()
        ctypes.memmove(args_copy, args, 8 * nparams)
        p = CLaunchPlan()
        p.kernel, p.nparams, p.nthreads, p.total = self.c.kernel, nparams, nthreads, total
        p.grid2_sched = info.grid2_sched if info.grid2_sched is not None else -1
        p.inner, p.pad = inner
        p.generation, p.args, p.function = self.c.generation, ctypes.addressof(args_copy), launch_fn
        p.params = ctypes.addressof(prepared.params)
        shape = prepared.shape
        p.grid[0], p.grid[1] = shape.grid
        p.block[0], p.block[1] = shape.block, shape.rows
        p.threads, p.stream, p.host = shape.threads, stream or None, int(backend.name == "host")
        results = (ctypes.c_void_p * max(len(prepared.reductions), 1))(
            *(ctypes.addressof(r.c) for r in prepared.reductions))
        p.nresults, p.results = len(prepared.reductions), ctypes.addressof(results)
        # private arrays: their buffers (in prepared.params) serve these sizes only
        at = (ctypes.c_int * max(len(info.scratch), 1))(*info.scratch)
        sizes = (ctypes.c_longlong * max(len(info.scratch), 1))(
            *(ctypes.c_longlong.from_address(args_copy[i]).value for i in info.scratch))
        p.nscratch = len(info.scratch)
        p.scratch_at, p.scratch_bytes = ctypes.addressof(at), ctypes.addressof(sizes)
        held = Held(p, [args_copy, prepared, results, at, sizes])
        if located is not None:
            p.nlocated, p.located = len(located[0]), ctypes.addressof(located[0])
            held.keep.append(located)
        if self._register(self.launches, where, "_xmpacc_launch_plan_set", held):
            # a replayed launch may defer these records: deferred.py maps them back
            self.known.update((ctypes.addressof(r.c), r) for r in prepared.reductions)

    def compute_site(self, n: int, keys: int, sizes: int, modes: int) -> tuple[int, int, list[Any]] | None:
        """The site and clause of the compute construct being begun, for ``offer_compute``
        at its end (copied now: the clause's arrays belong to the caller); None where no
        plan will be made."""
        where = self.c.where or 0
        if not where or not self.steady(where):
            return None
        return where, n, [ctypes.create_string_buffer(ctypes.string_at(a, w * n) if n else b"", max(w * n, 1))
                          for a, w in ((keys, 8), (sizes, 8), (modes, 4))]

    def offer_compute(self, where: int, n: int, raw: list[Any]) -> None:
        """A compute construct whose data region found everything present (acc_compute.py)."""
        p = CComputePlan(n, self.c.generation, *(ctypes.addressof(b) for b in raw))
        self._register(self.computes, where, "_xmpacc_compute_plan_set", Held(p, raw))

    def offer_loop_reduce(self, tmpl: int, loop_dims: list[int], data: int, count: int, type_code: int,
                          op: int, comm: Any, dtype: Any, mpi_op: Any, on: CNodeRef | None = None,
                          section: tuple[list[int], int] | None = None) -> None:
        """A loop reduction, or a reduction directive (``on``: its on clause, node_ref;
        ``section``: a section's description as the call passes it, and the byte offset of
        its contiguous elements), the general path just made (reductions.py), for the C side."""
        from mpi4py import MPI

        if not self.c.allreduce or not self.steady(data):
            return
        p = CLoopReducePlan(tmpl, data, count, type_code, op, len(loop_dims))
        if on is not None:
            p.on = on
        if section is not None:
            var, p.offset = section
            p.nvar = len(var)
            p.var[: len(var)] = var
        p.mask[: len(loop_dims)] = loop_dims
        p.exec, p.layout, p.elem = self.c.exec, self.c.layout, dtype.itemsize
        scratch = ctypes.create_string_buffer(max(count * dtype.itemsize, 1))
        p.scratch = ctypes.addressof(scratch)
        if comm is not None:
            p.size, p.rank = comm.Get_size(), comm.Get_rank()
            p.comm, p.mpi_op = MPI._handleof(comm), MPI._handleof(mpi_op)
            p.datatype = MPI._handleof(MPI._typedict[dtype.char])
        self._register(self.reductions, data, "_xmpacc_loop_reduce_plan_set", Held(p, [scratch, comm]))

    def offer_update(self, key: int, size: int, direction: int, flags: int, queue: int, host: int,
                     device: int, nbytes: int, stream: int,
                     sec: tuple[bytes, ByteBox | None] | None = None) -> None:
        """An acc update the general path just made (acc_data.py): of a whole present
        variable of ``nbytes`` at ``host`` and ``device``, or (``sec``: the section as the
        call passed it, and its box of bytes, None for a whole distributed array) of a
        section, which the C side replays when the call passes the same section."""
        where = self.c.where or 0
        if not where or not self.steady(where):   # (a site whose sections change at every call)
            return
        raw, box = sec if sec is not None else (b"", None)
        p = CUpdatePlan(key, size, queue, self.c.generation, direction, flags, host, device, nbytes,
                        stream or None)
        held = Held(p)
        if raw:
            text = ctypes.create_string_buffer(raw, len(raw))
            held.keep.append(text)
            p.nsec, p.sec = len(raw) // 8, ctypes.addressof(text)
        if box is not None:
            p.section, p.host, p.device, p.nbytes = 1, host + box.offset, device + box.offset, box.nbytes
            for name in ("pitch", "width", "height", "copies", "stride"):
                setattr(p, name, getattr(box, name))
            held.counters = ("replayed_section_updates",)
        self._register(self.updates, where, "_xmpacc_update_plan_set", held)

    def offer_bcast(self, source: CNodeRef, root: int) -> None:
        """A bcast with a from clause (``source``, replay_structs.node_ref) over the executing
        nodes (api.py): its source's rank, for the C side to use while the call passes the
        same reference."""
        where = self.c.where or 0
        if not where or not self.steady(where) or not self.c.bcast:
            return
        p = CBcastPlan(source, self.c.exec, self.c.layout, root)
        self._register(self.bcasts, where, "_xmpacc_bcast_plan_set", Held(p))

    def offer_swap(self, key: int, size: int) -> None:
        """A swap around a loop reduction that found no device copy of the variable."""
        where = self.c.where or 0
        if where and self.steady(where):
            self._register(self.swaps, where, "_xmpacc_swap_plan_set",
                           Held(CSwapPlan(key, size, self.c.generation)))

    def offer_reflect(self, ptr: int, kinds: tuple[int, bytes | None], built: tuple[int, Any, Any],
                      keep: list[Any], moved: tuple[int, int]) -> None:
        """A device reflect as rounds of NCCL operations, or (host backend) MPI requests
        (``built``: base, rounds, mpi), first in the chain of its array and kind (``kinds``:
        the kind and the explicit widths): one plan per set of widths, WIDTH_SETS kept,
        compared with the call's in C."""
        (kind, widths), (base, ops, mpi), (sent, received) = kinds, built, moved
        p = CAccReflectPlan()
        p.base, p.generation, p.bytes = base, self.c.generation, sent
        counters = (("replayed_reflects_orthogonal",) if kind in (ORTHOGONAL, ORTHOGONAL_WIDTHS) else ()) \
            + (("replayed_reflects_widths",) if widths is not None else ())
        held = Held(p, list(keep), received, widths, counters)
        if widths is not None:
            raw = ctypes.create_string_buffer(widths, max(len(widths), 1))
            held.keep.append(raw)
            p.nwidths, p.widths = len(widths) // 8, ctypes.addressof(raw)
        if mpi is not None:
            p.mpi = ctypes.addressof(mpi.c)
            held.keep.append(mpi)
        else:
            p.nrounds = len(ops)
            for k, round_ops in enumerate(ops):
                arr = (CSlabOp * max(len(round_ops), 1))(*round_ops)
                held.keep.append(arr)
                p.count[k], p.ops[k] = len(round_ops), ctypes.cast(arr, ctypes.POINTER(CSlabOp))
        old = self.reflects.pop((ptr, kind), [])
        # a plan for the same widths, or made under another device table, is never found again
        chain = [held] + [h for h in old if h.widths != widths and h.c.generation == self.c.generation]
        dropped = [h for h in old if h not in chain] + chain[WIDTH_SETS:]
        chain = chain[:WIDTH_SETS]
        link_chain(chain)
        if self.lib._xmpacc_acc_reflect_set(ptr, kind, ctypes.addressof(p)):
            self.reflects[(ptr, kind)] = chain
        else:   # the table is full: none of the array's plans of this kind stays
            self.lib._xmpacc_acc_reflect_set(ptr, kind, None)
            dropped += chain
        for h in dropped:
            self._drop_reflect(h)

    def _register(self, table: dict[int, list[Held]], key: int, setter: str, held: Held) -> bool:
        """``held`` first in the site's chain of plans (one ``where`` can serve two call
        sites: a macro or an inline function expanded twice, with the same line), which
        keeps the PLANS_PER_SITE most recent.  A site whose plans keep being dropped unused
        (its arguments change at every call) gets no more: planning would only add to its
        general path."""
        chain = [held] + table.get(key, [])
        for dropped in chain[PLANS_PER_SITE:]:
            used = getattr(dropped.c, "calls", 1)
            self.unused[key] = 0 if used else self.unused.get(key, 0) + 1
            self.folded(dropped)
            self._forget_results(dropped)
            self._free_requests(dropped)
        chain = chain[:PLANS_PER_SITE]
        link_chain(chain)
        if getattr(self.lib, setter)(key, ctypes.addressof(held.c)):
            table[key] = chain
            return True
        getattr(self.lib, setter)(key, None)   # the table is full: none of the site's plans stays
        table.pop(key, None)
        for dropped in chain[1:]:
            self._forget_results(dropped)
        for dropped in chain:
            self._free_requests(dropped)
        return False

    def _forget_results(self, held: Held) -> None:
        """A launch plan goes: the C side may still hold its records as deferred results,
        which Python takes over first (``take_over``: deferred.py), so that they outlive
        the plan."""
        if not isinstance(held.c, CLaunchPlan) or not held.c.nresults:
            return
        if self.c.ndeferred and self.take_over is not None:
            self.take_over()
        for r in held.keep[1].reductions:
            self.known.pop(ctypes.addressof(r.c), None)

    def steady(self, key: int) -> bool:
        """Is a plan for this site worth making (see ``_register``)?"""
        return self.unused.get(key, 0) < UNSTEADY

    def forget_reflect(self, ptr: int, kinds: tuple[int, ...] = tuple(range(ORTHOGONAL_WIDTHS + 1))) -> None:
        for kind in kinds:
            chain = self.reflects.pop((ptr, kind), [])
            if chain:
                self.lib._xmpacc_acc_reflect_set(ptr, kind, None)
            for held in chain:
                self._drop_reflect(held)

    def _drop_reflect(self, held: Held) -> None:
        """A device reflect plan the C side no longer finds: its calls counted, its MPI
        requests (host backend) freed; it is blocking, so none is in flight."""
        self.folded(held)
        self._free_requests(held)

    @staticmethod
    def _free_requests(held: Held) -> None:
        """The MPI persistent requests a plan holds (FastPlan: a host-backend reflect's, a
        gmove's); plans are blocking, so none is in flight when one goes."""
        for k in held.keep:
            if isinstance(k, FastPlan):
                k.free()

    def has_reflect(self, ptr: int, kind: int, widths: bytes | None) -> bool:
        return any(h.widths == widths and h.c.generation == self.c.generation
                   for h in self.reflects.get((ptr, kind), []))

    # ------------------------------------------------------------ counters
    def folded(self, held: Held) -> None:
        """Count a plan's replayed calls so far (into ``counted``, which ``fold`` adds to
        the runtime counters)."""
        if isinstance(held.c, CSwapPlan):   # nothing to count: it does nothing
            return
        calls, held.c.calls = held.c.calls, 0
        if not calls:
            return
        if isinstance(held.c, CLaunchPlan):
            _add(self.counted, "kernel_launches", calls)
            _add(self.counted, "replayed_launches", calls)
        elif isinstance(held.c, CUpdatePlan):
            _add(self.counted, "replayed_updates", calls)
        elif isinstance(held.c, CLoopReducePlan):   # a directive's has no template
            _add(self.counted, "replayed_loop_reductions" if held.c.tmpl else "replayed_reductions", calls)
        elif isinstance(held.c, CAccReflectPlan):
            _add(self.counted, "reflect_bytes", calls * held.c.bytes)
            _add(self.counted, "reflect_shadow_bytes", calls * held.received)
            _add(self.counted, "replayed_reflects", calls)
        elif isinstance(held.c, CComputePlan):
            _add(self.counted, "replayed_computes", calls)
        for name in held.counters:
            _add(self.counted, name, calls)
        if held.bytes_counter:
            _add(self.counted, held.bytes_counter, calls * held.c.bytes)

    def fold(self, stats: dict[str, int]) -> None:
        """The runtime counters (XMPACC_STATS) with what the C side did."""
        for chain in (*self.launches.values(), *self.computes.values(), *self.reductions.values(),
                      *self.updates.values(), *self.reflects.values(), *self.bcasts.values(),
                      *(chain for table in self.more for chain in table.values())):
            for held in chain:
                self.folded(held)
        for key, field_name in (("replayed_barriers", "barriers"), ("replayed_bcasts", "bcasts"),
                                ("sync_in_bytes", "sync_in_bytes"), ("sync_out_bytes", "sync_out_bytes"),
                                ("acc_waits_on_device", "waits_on_device"),
                                ("overlapped_reflects", "overlapped_reflects"),
                                ("pushed_reflects", "pushed_reflects")):
            _add(self.counted, key, getattr(self.c, field_name))
            setattr(self.c, field_name, 0)
        for key, n in self.counted.items():
            if n:
                _add(stats, key, n)
        self.counted = {}

    def events(self) -> list[tuple[str, bytes, bytes | None, int, int, int, int]]:
        """Profiled runs: (entry, where, kernel, start, host end, stop, bytes) of each
        replayed call."""
        out = []
        for k in range(self.c.nevents):
            e = self.c.events[k]
            out.append((REPLAYED[e.entry], e.where or b"", e.detail, e.start, e.host or e.stop, e.stop,
                        e.bytes))
        return out


def _add(stats: dict[str, int], key: str, n: int) -> None:
    stats[key] = stats.get(key, 0) + n


def grid2_shape(args: int, info: Any) -> tuple[int, int]:
    """The innermost schedule's (count, padding) a 2-D grid was shaped for (0, 0 without)."""
    if info.grid2_sched is None:
        return 0, 0
    addr = ctypes.c_void_p.from_address(args + 8 * info.grid2_sched).value or 0
    s = CSched.from_address(addr)
    return s.count, (s.first & 31 if s.step == 1 else 0)


def slab_op(device: int, nbytes: int, peer: int, send: bool, part: Any) -> CSlabOp | None:
    """One NCCL operation of a device reflect; ``part`` is the slab's view in the array
    when it goes through a stage (None when ``device`` is the slab itself)."""
    op = CSlabOp(device, nbytes, peer, int(send))
    if part is not None:
        copies = strided_copies(tuple(int(n) for n in part.shape), tuple(int(s) for s in part.strides))
        if copies is None:
            return None
        op.array = int(part.data.ptr)
        op.pitch, op.width, op.height, op.copies, op.stride = copies
        if op.width * op.height * op.copies != nbytes:
            return None
    return op


def offer_device_reflect(replay: Replay, ptr: int, kind: tuple[int, bytes | None], steps: list[Any] | None,
                         arr: Any, view: Any, transport: Any) -> None:
    """After a general blocking ``reflect ... acc`` of ``arr`` (``kind``: its table and
    explicit widths as the call passed them, or None; ``steps``: its plan, reflect.py):
    its exchanges for the C side, on the device copy's byte view ``view``: NCCL
    operations (the transport's own slab plans: the same buffers and stages) or, on the
    host backend, MPI persistent requests; a full shadow's all-gather is such an exchange
    too (transport.py ``gather_pairs``).  The staged transport and slabs that are no box
    (full shadows of cyclic dimensions) stay general."""
    if transport.name not in ("mpi", "nccl") or transport.name == "mpi" and not replay.requests:
        return
    if steps is None:
        return
    steps = [s for s in steps if active_step(s)]
    base = int(arr.buffer.ctypes.data)
    if transport.name == "mpi":
        built = build_requests(view, int(view.ctypes.data), steps, replay.requests)
        if built is not None:
            replay.offer_reflect(ptr, kind, (base, None, built), [], (built.sent, built.received))
        return
    if steps and not replay.bind_nccl(transport):
        return
    rounds, sent, received = [], 0, 0
    for _kind, comm, sends, recvs in steps:
        plan = transport.slab_plans.find(view, transport.address(view), sends, recvs)
        if plan.selected:
            return
        ranks = transport.world_ranks_of(comm)
        ops = []
        for send, messages, slabs in ((True, sends, plan.sends), (False, recvs, plan.recvs)):
            for (peer, _tag, _region), s in zip(messages, slabs, strict=True):
                staged = s.stage is not None
                op = slab_op(int(s.stage.data.ptr) if staged else s.device, s.nbytes, ranks[peer], send,
                             view[s.region] if staged else None)
                if op is None:
                    return
                ops.append(op)
                sent, received = (sent + s.nbytes, received) if send else (sent, received + s.nbytes)
        rounds.append(ops)
    replay.offer_reflect(ptr, kind, (base, rounds, None), [view], (sent, received))
