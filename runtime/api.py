"""The runtime side of every entry in ``contract.py``: one method per entry, same name, on
the runtime or on one of the concerns it is composed of.

Generated C calls ``_xmpacc_reflect(&_xmpacc_a_u, "laplace.c:40", 0)``; the glue forwards
it to ``Runtime._xmpacc_reflect(array_address, b"laplace.c:40", 0)``, and
``_xmpacc_gmove(...)`` to ``runtime.gmove._xmpacc_gmove(...)``: ``Runtime.entries()`` finds
each entry on the one object that implements it (``concerns()``), and the launcher binds
that.  Descriptors are identified by their C address: re-initialising the same block-scope
descriptor replaces the old object, so nothing accumulates when a function runs many times.

Each concern owns its state and gets what it shares with the others explicitly: ``Shared``
(the world, the descriptor tables, the split communicators, the counters, the executing
node sets, the C side of the per-iteration calls; shared.py), and the concerns it uses
(or, where it needs one thing of another, that method).  The device side is one of them,
``DeviceMemory`` (the backend and the present table; device_memory.py), which the acc
concerns, gmove ... acc and the device coarrays are given.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .acc import Kernels
from .acc_api import AccApi
from .acc_collectives import AccCollectives
from .acc_comm import AccComm
from .acc_compute import AccCompute
from .acc_data import AccData
from .acc_gmove import AccGmove
from .acc_queues import Queues
from .acc_replicate import Replicate
from .arrays import DistArray, Template, make_array, read_ints, read_longs
from .asyncs import AsyncOps
from .check import Checks
from .coarray import Coarrays
from .collectives import bcast_bytes
from .contract import ENTRIES
from .cstructs import DESC_ARRAY, DESC_NODES, DESC_TEMPLATE, CArray, CNodes, CTemplate
from .device_memory import DeviceMemory
from .dynamic import Dynamic, check_bounds, set_bounds
from .errors import ABORT_DRAIN_S, InternalError, RuntimeFailure, where_text
from .fast_reflect import FastReflect
from .gmove import Gmove
from .intrinsics import Intrinsics
from .linkage import Seen, declared_again
from .nodes import CommCache, Nodes, resolve_extents
from .reductions import Reductions
from .reflect import Width, reflect
from .replay_params import ParamViews
from .replay_structs import node_ref
from .shadows import Shadows
from .shared import ExecSet, Shared
from .tasks import Tasks, read_ref


def _formats(kinds: list[int], widths: list[int]) -> str:
    names = {2100: "*", 2101: "block", 2102: "cyclic", 2103: "gblock"}
    return "[" + "][".join(names.get(k, "?") + (f"({w})" if k == 2102 and w != 1 else "")
                           for k, w in zip(kinds, widths, strict=True)) + "]"


@dataclass
class Runtime:
    """State of one process's runtime: MPI, descriptors by address, the executing set, and
    the concerns composed in ``__post_init__``."""

    world: Any
    exec_info: Any                      # the C struct _xmpacc_exec
    nodes: dict[int, Nodes] = field(default_factory=dict)
    templates: dict[int, Template] = field(default_factory=dict)
    arrays: dict[int, DistArray] = field(default_factory=dict)
    cache: CommCache = field(default_factory=CommCache)
    stats: dict[str, int] = field(default_factory=dict)
    asyncs: AsyncOps = field(default_factory=AsyncOps)
    declared: Seen = field(default_factory=dict)    # shared nodes/templates (linkage.py)
    # the concerns (made in __post_init__)
    shared: Shared = field(init=False, repr=False)
    fast_reflect: FastReflect = field(init=False, repr=False)
    tasks: Tasks = field(init=False, repr=False)
    dynamic: Dynamic = field(init=False, repr=False)
    param_views: ParamViews = field(init=False, repr=False)
    shadows: Shadows = field(init=False, repr=False)
    checks: Checks = field(init=False, repr=False)
    intrinsics: Intrinsics = field(init=False, repr=False)
    gmove: Gmove = field(init=False, repr=False)
    device: DeviceMemory = field(init=False, repr=False)
    queues: Queues = field(init=False, repr=False)
    replicate: Replicate = field(init=False, repr=False)
    kernels: Kernels = field(init=False, repr=False)
    acc_data: AccData = field(init=False, repr=False)
    acc_compute: AccCompute = field(init=False, repr=False)
    acc_api: AccApi = field(init=False, repr=False)
    acc_comm: AccComm = field(init=False, repr=False)
    acc_collectives: AccCollectives = field(init=False, repr=False)
    reductions: Reductions = field(init=False, repr=False)
    acc_gmove: AccGmove = field(init=False, repr=False)
    coarrays: Coarrays = field(init=False, repr=False)

    def __post_init__(self) -> None:
        shared = self.shared = Shared(self.world, self.nodes, self.templates, self.arrays, self.cache,
                                      self.stats, self.asyncs, [ExecSet(self.world)])
        self.cache.executing = lambda: self.exec_comm
        fast = self.fast_reflect = FastReflect(shared)
        self.tasks = Tasks(shared, self._publish)
        self.dynamic = Dynamic(shared, fast.forget, self._layout_changed)
        self.param_views = ParamViews(self.dynamic, self._release)
        self.shadows = Shadows(shared, fast.offer)
        self.checks = Checks(shared)
        self.intrinsics = Intrinsics(shared, self.dynamic)
        self.gmove = Gmove(shared, self.tasks)
        device = self.device = DeviceMemory(shared)
        self.queues = Queues(shared, device)
        self.replicate, self.kernels = self._device_code(device)
        deferred = self.kernels.deferred
        self.acc_data = AccData(shared, device, self.queues)
        self.acc_compute = AccCompute(shared, device, self.acc_data, self.queues)
        self.acc_api = AccApi(shared, device, self.queues)
        self.acc_comm = AccComm(shared, device, self._reflect_args)
        self.acc_collectives = AccCollectives(shared, device, self.tasks, deferred)
        self.reductions = Reductions(shared, self.tasks, deferred, self.acc_collectives.reduce_pending,
                                     self.kernels._xmpacc_acc_reductions_wait)
        self.acc_gmove = AccGmove(shared, self.gmove, device)
        self.coarrays = Coarrays(shared, self.tasks.node_sets, device, self.acc_gmove)
        self._publish()

    def _device_code(self, device: DeviceMemory) -> tuple[Replicate, Kernels]:
        """``acc replicate`` and the launches (checked runs check them: checked_run.py)."""
        return Replicate(self.shared, device), Kernels(self.shared, device)

    # ----------------------------------------------------------------- the concerns
    def concerns(self) -> tuple[Any, ...]:
        """The objects besides the runtime itself that implement contract entries."""
        return (self.tasks, self.dynamic, self.shadows, self.checks, self.intrinsics, self.gmove,
                self.device, self.queues, self.replicate, self.kernels, self.acc_data, self.acc_compute,
                self.acc_api, self.acc_comm, self.acc_collectives, self.reductions, self.acc_gmove,
                self.coarrays, self.coarrays.sync)

    def entries(self) -> dict[str, Callable[..., Any]]:
        """Every entry of ``contract.py``, bound to the one object that implements it (the
        runtime or a concern): what the launcher puts in the C table."""
        table: dict[str, Callable[..., Any]] = {}
        for owner in (self, *self.concerns()):
            for e in ENTRIES:
                fn = getattr(owner, e.name, None)
                if fn is None:
                    continue
                if e.name in table:
                    raise InternalError(f"{e.name} is implemented twice: by {type(owner).__name__} and by "
                                        f"{type(getattr(table[e.name], '__self__', None)).__name__}")
                table[e.name] = fn
        missing = [e.name for e in ENTRIES if e.name not in table]
        if missing:
            raise InternalError(f"no implementation of {', '.join(missing)}")
        return table

    # ----------------------------------------------------------------- helpers
    @property
    def exec_comm(self) -> Any:
        return self.shared.exec_comm

    @property
    def replay(self) -> Any:
        """The per-iteration calls in C (replay.py), once the launcher started them; None
        before and in checked runs."""
        return self.shared.replay

    @replay.setter
    def replay(self, replay: Any) -> None:
        self.shared.replay = replay

    def _publish(self) -> None:
        info = self.exec_info
        info.world_rank, info.world_size = self.world.Get_rank(), self.world.Get_size()
        info.exec_rank, info.exec_size = self.exec_comm.Get_rank(), self.exec_comm.Get_size()
        if self.replay is not None:
            self.replay.set_exec(self.exec_comm)

    def _layout_changed(self) -> None:
        if self.replay is not None:   # the loops' node sets may change: no C plan holds
            self.replay.layout_changed()
        self.param_views.changed()

    def _nodes(self, ptr: int, where: str) -> Nodes:
        if ptr not in self.nodes:
            raise RuntimeFailure(where, "nodes used before its 'nodes' directive ran")
        return self.nodes[ptr]

    # ----------------------------------------------------------------- declarations
    def _xmpacc_nodes_init(self, ptr: int, where: bytes, name: bytes, ndims: int, extents: int) -> None:
        w, n = where_text(where), name.decode()
        raw = read_ints(extents, ndims)
        if declared_again(self.declared, ptr, "nodes", CNodes.from_address(ptr).id != 0, f"nodes '{n}'",
                          (n + "".join(f"[{'*' if e < 0 else e}]" for e in raw),), w):
            return
        ext = resolve_extents(n, raw, self.world.Get_size(), w)
        nodes = Nodes(n, ext, self.world, self.world.Get_rank())
        self.nodes[ptr] = nodes
        c = CNodes.from_address(ptr)
        c.id, c.ndims, c.size, c.is_member = DESC_NODES, ndims, self.world.Get_size(), 1
        for d in range(ndims):
            c.extent[d], c.coord[d] = ext[d], nodes.coords[d]
        self.dynamic.count_descriptors(layout=True)

    def _xmpacc_template_init(self, ptr: int, where: bytes, name: bytes,
                              ndims: int, bounds: int | None) -> None:
        """bounds NULL: an unfixed template (``t[:]``), fixed by template_fix."""
        pairs = None
        if bounds:
            b = read_longs(bounds, 2 * ndims)
            pairs = [(b[2 * d], b[2 * d + 1]) for d in range(ndims)]
        shape = "".join(f"[{lo}:{hi}]" for lo, hi in pairs) if pairs is not None else "[:]" * ndims
        if declared_again(self.declared, ptr, "template", CTemplate.from_address(ptr).id != 0,
                          f"template '{name.decode()}'", (name.decode() + shape,), where_text(where)):
            return
        if pairs is not None:
            check_bounds(name.decode(), pairs, where_text(where))
        self.templates[ptr] = Template(name.decode(), pairs)
        c = CTemplate.from_address(ptr)
        c.id, c.ndims, c.distributed = DESC_TEMPLATE, ndims, 0
        set_bounds(c, pairs)
        self.dynamic.count_descriptors(layout=True)

    def _xmpacc_distribute(self, ptr: int, where: bytes, nodes_ptr: int, kinds: int, widths: int,
                           maps: int) -> None:
        w = where_text(where)
        tmpl = self.templates.get(ptr)
        if tmpl is None:
            raise RuntimeFailure(w, "template distributed before its 'template' directive ran")
        self._layout_changed()
        nodes = self._nodes(nodes_ptr, w)
        nd = CTemplate.from_address(ptr).ndims
        kind_list, width_list = read_ints(kinds, nd), read_longs(widths, nd)
        map_ptrs = list((ctypes.c_void_p * nd).from_address(maps))
        gblocks, next_dim = [], 0
        for t in range(nd):
            if kind_list[t] == 2103:   # gblock(*): no map until template_fix
                gblocks.append(tuple(read_ints(map_ptrs[t], nodes.extents[next_dim]))
                               if map_ptrs[t] else None)
            else:
                gblocks.append(())
            next_dim += kind_list[t] != 2100
        c = CTemplate.from_address(ptr)
        if declared_again(self.declared, ptr, "distribute", c.distributed != 0 or tmpl.pending is not None,
                          f"the distribution of template '{tmpl.name}'",
                          (f"onto {nodes.name}", _formats(kind_list, width_list)), w):
            return
        c.nodes = ctypes.cast(nodes_ptr, ctypes.POINTER(CNodes))
        if not self.dynamic.defer_distribute(tmpl, nodes, kind_list, width_list, gblocks):
            tmpl.distribute(nodes, kind_list, width_list, gblocks, w, c)

    def _xmpacc_align(self, ptr: int, where: bytes, name: bytes, tmpl_ptr: int, elem_size: int,
                      ndims: int, extents: int, tdims: int, offsets: int, shadows: int) -> int:
        w = where_text(where)
        tmpl = self.templates.get(tmpl_ptr)
        if tmpl is None or tmpl.nodes is None:
            raise RuntimeFailure(w,
                                 f"array '{name.decode()}' aligned with a template that is not distributed")
        c = CArray.from_address(ptr)
        arr = make_array(name.decode(), tmpl, elem_size, read_longs(extents, ndims), read_ints(tdims, ndims),
                         read_longs(offsets, ndims), read_longs(shadows, 2 * ndims), w, c)
        c.id = DESC_ARRAY
        c.tmpl = ctypes.cast(tmpl_ptr, ctypes.POINTER(CTemplate))
        self.fast_reflect.forget(ptr)
        if self.replay is not None:
            self.replay.forget_reflect(ptr)
        self.arrays[ptr] = arr
        self.gmove.attach(ptr, arr)
        self.dynamic.count_descriptors()
        return int(c.base or 0)

    def _xmpacc_params_sync(self) -> None:
        self.param_views.sync()

    def _xmpacc_array_release(self, ptr: int) -> None:
        self._release(ptr)

    def _release(self, ptr: int, write: bool = True) -> None:
        """A block's array goes at its end (``write``: its descriptor says so; not for a
        parameter's descriptor C released, whose function has returned: replay_params.py)."""
        arr = self.arrays.get(ptr)
        if arr is not None:
            if arr.persistent is not None:
                arr.persistent.free()
            self.gmove.detach(arr)
        if self.replay is not None:
            self.replay.forget_reflect(ptr)
        self.dynamic.release_array(ptr, write)

    # ----------------------------------------------------------------- communication
    def _reflect_args(self, ptr: int, where: bytes,
                      widths: int | None) -> tuple[Any, list[Width] | None, str]:
        w = where_text(where)
        arr = self.dynamic.find_array(ptr)
        if arr is None:
            if ptr in self.dynamic.pointers:
                raise self.dynamic.not_ready(ptr, w, collective=True)
            raise RuntimeFailure(w, "reflect of an array whose align has not run")
        ws = None
        if widths:
            raw = read_longs(widths, 3 * len(arr.layouts))
            ws = [Width(raw[3 * d], raw[3 * d + 1], bool(raw[3 * d + 2])) for d in range(len(arr.layouts))]
        return arr, ws, w

    def _xmpacc_reflect(self, ptr: int, where: bytes, widths: int | None) -> None:
        arr, ws, w = self._reflect_args(ptr, where, widths)
        reflect(arr, ws, self.cache, w, self.stats, asyncs=self.asyncs)
        # later calls: C only (fast_reflect.py), for these widths as the call passes them
        self.fast_reflect.offer(ptr, arr, ws, widths)

    def _xmpacc_bcast(self, data: int, where: bytes, nbytes: int, from_nodes: int | None,
                      from_ref: int | None, on_nodes: int | None, on_ref: int | None) -> None:
        w = where_text(where)
        comm = self.tasks.on_set(on_nodes, on_ref, w)
        if comm is None:
            return
        root = self.tasks.bcast_root(comm, from_nodes, from_ref, w)
        pending = bcast_bytes(comm, data, nbytes, root, start=self.asyncs.active)
        if pending is not None:
            self.asyncs.add(pending)
        elif from_nodes and not on_nodes and not self.asyncs.active and self.shared.replay is not None:
            # later calls with this reference: C (xmpacc_replay.h), from this root
            source = node_ref(from_nodes, read_ref(from_ref))
            if source is not None:
                self.shared.replay.offer_bcast(source, root)

    def _xmpacc_barrier(self, where: bytes, on_nodes: int | None, on_ref: int | None) -> None:
        comm = self.tasks.on_set(on_nodes, on_ref, where_text(where))
        if comm is not None:
            comm.Barrier()

    # ----------------------------------------------------------------- async (global-view §7)
    def _xmpacc_async_begin(self, async_id: int) -> None:
        self.asyncs.begin(async_id)
        self.fast_reflect.pause(True)

    def _xmpacc_async_end(self) -> None:
        self.asyncs.end()
        self.fast_reflect.pause(self.asyncs.active)

    def _xmpacc_wait_async(self, where: bytes, n: int, ids: int, on_nodes: int | None,
                           on_ref: int | None) -> None:
        if self.tasks.on_set(on_nodes, on_ref, where_text(where)) is not None:
            self.asyncs.wait(read_longs(ids, n))

    def _xmpacc_test_async(self, async_id: int) -> int:
        return int(self.asyncs.test(async_id))

    def _xmpacc_exit_hook(self, status: int) -> None:
        """exit(status) in the program: 0 ends this process normally, others the whole job."""
        if status == 0:
            self.device._xmpacc_device_wait()
        sys.stdout.flush()
        sys.stderr.flush()
        from mpi4py import MPI

        if MPI.Is_finalized():
            return
        if status == 0:
            self.free_windows()
            MPI.Finalize()
            return
        # as launcher._fail: a CI run lost another node's "node 2 before the barrier" of
        # tests/programs/job_control.c, which was in mpirun's pipe already
        time.sleep(ABORT_DRAIN_S)
        self.world.Abort(status)
        os._exit(status & 0xFF or 1)

    def free_windows(self) -> None:
        """Free the MPI windows and stop the gmove agent (collective): before MPI_Finalize,
        at a normal end and when every node stops at the same error (launcher._fail)."""
        self.gmove.free_windows()
        self.coarrays.free_windows()
        self.acc_gmove.stop_agent()
