"""The gmove entries of the contract (global-view §2), sections in ``bcast`` and the
run-time errors of array sections: ``Gmove``, a concern of ``api.Runtime``.

``_xmpacc_gmove`` reads both sides (a distributed array's descriptor, or local data at an
address) and their sections, finds or builds the plan of this node (gmove_plan.py; cached
per call site, both sides' layouts and node set) and runs it:

* collective (no ``in``/``out``): every node of the executing set takes part; one packed
  message per pair of nodes (Isend/Irecv on a communicator of its own), elements that stay
  on a node are copied directly, a contiguous block is sent or received in place;
* ``in`` / ``out``: one-sided MPI-3 RMA on windows over the arrays' local buffers (created
  at ``align`` once the program announced gmove in/out with ``_xmpacc_gmove_rma_init``):
  the nodes of the executing set get or put, the other side runs no code.

``XMPACC_STATS`` counts ``gmove_bytes`` (sent to other nodes), ``gmove_calls`` and
``gmove_plans`` (made; a plan is found again by both sides' layouts, Operand.key).
"""

from __future__ import annotations

import ctypes
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from .acc_gmove_agent import GmoveAgent
from .arrays import DistArray, read_longs
from .contract import GMOVE_IN, GMOVE_OUT, SECERR_SHAPE
from .errors import WINDOW_HINT, RuntimeFailure, where_text
from .gmove_exec import OneSided, Runner, elem_dtype, make_runner, run_collective, run_one_sided
from .gmove_plan import (
    Plan,
    PlanError,
    Side,
    SideDim,
    array_dims,
    collective_plan,
    get_plan,
    put_plan,
    put_writes,
)
from .replay_gmove import GmovePlans
from .sections import (
    Section,
    SectionError,
    Sub,
    check_section,
    error_message,
    local_view,
    numpy_index,
    read_section,
)
from .shared import Shared
from .tasks import Tasks

_PLAN_CACHE = 256          # plans kept per process (least recently used dropped)


@dataclass
class Operand:
    """One side of a gmove at run time."""

    name: str
    side: Side
    array: DistArray | None
    base: int                      # local data: address of its first element

    def view(self) -> np.ndarray:
        """The whole local buffer as a 1-D array of elements."""
        esize = self.side.section.elem_size
        if self.array is not None:
            return self.array.buffer.view(elem_dtype(esize))
        sec = self.side.section
        if not sec.subs:
            raw = (ctypes.c_char * esize).from_address(self.base)
            return np.frombuffer(raw, dtype=elem_dtype(esize))
        return local_view(self.base, sec).reshape(-1).view(elem_dtype(esize))

    def key(self) -> tuple[Any, ...]:
        """What a plan depends on: the side's layout and section (gmove_plan.Side), not
        the array object, so that an array aligned anew at each call of a function (a
        dummy argument's align) finds the plan made for the same layout."""
        return (self.array is not None, self.side)

def fills(dst: Operand, src: Operand) -> bool:
    """Does the gmove fill a section with one value (``a[0:n] = x``)?"""
    return not src.side.section.shape and bool(dst.side.section.shape)


def one_sided(mode: int, dst: Operand, src: Operand) -> str | None:
    """How a gmove moves: ``gmove in`` of a distributed source "in", ``gmove out`` to a
    distributed destination "out" (one-sided); None: collectively, every node taking part."""
    if mode == GMOVE_IN and src.array is not None:
        return "in"
    if mode == GMOVE_OUT and dst.array is not None:
        return "out"
    return None


class Gmove:
    """gmove, bcast of sections and section errors.  It owns the plans (per call site), the
    gmove communicators, the windows of gmove in/out and, once ``gmove ... acc`` started
    it (acc_gmove.py), this node's agent; ``tasks`` gives the on-sets of bcast."""

    def __init__(self, shared: Shared, tasks: Tasks) -> None:
        self.shared, self.tasks = shared, tasks
        self.world, self.stats = shared.world, shared.stats
        self.plans: OrderedDict[tuple[Any, ...], Any] = OrderedDict()   # least recently used first
        self.comms: dict[int, tuple[Any, list[int]]] = {}   # executing comm (py2f) -> (its Dup, members)
        self.rma = False    # the program has gmove in/out: every array gets a window
        self.windows: dict[int, tuple[Any, Any, Any]] = {}   # id(array) -> (weak ref, window, ranks)
        self.agent: GmoveAgent | None = None   # gmove in/out ... acc, device coarrays (acc_gmove.py)
        self.in_c: GmovePlans | None = None   # the C side's plans (replay_gmove.py), made at first use

    # ------------------------------------------------------------------ errors
    def _xmpacc_section_error(self, where: bytes, what: int, name: bytes, a: int, b: int | None) -> None:
        n = read_longs(a, 1)[0]
        if what == SECERR_SHAPE:
            left = read_longs(a, 1 + n)[1:]
            m = read_longs(b, 1)[0]
            values, other = left, read_longs(b, 1 + m)[1:]
        else:
            values, other = read_longs(a, 1 + n)[1:] if what == 3 else read_longs(a, 2), []
        raise RuntimeFailure(where_text(where), error_message(what, name.decode(), values, other))

    # ------------------------------------------------------------------ bcast (a[0:5])
    def _xmpacc_bcast_section(self, base: int, where: bytes, sec: int, from_nodes: int | None,
                              from_ref: int | None, on_nodes: int | None, on_ref: int | None) -> None:
        w = where_text(where)
        comm = self.tasks.on_set(on_nodes, on_ref, w)
        if comm is None:
            return
        section = read_section(sec)
        try:
            check_section(section, "the section")
        except SectionError as e:
            raise RuntimeFailure(w, f"bcast: {e}", collective=self.shared.everyone()) from None
        root = self.tasks.bcast_root(comm, from_nodes, from_ref, w)
        part = local_view(base, section)[numpy_index(section)]
        data = np.ascontiguousarray(part)
        comm.Bcast(data.reshape(-1), root=root)
        if comm.Get_rank() != root:
            part[...] = data

    # ------------------------------------------------------------------ gmove
    def _xmpacc_gmove_rma_init(self) -> None:
        if self.rma:
            return
        self.rma = True
        import atexit

        atexit.register(self.free_windows)   # before mpi4py finalizes MPI (LIFO)
        self._attach_all()

    def _attach_all(self) -> None:
        """The arrays aligned before gmove in/out or the agent was announced (collectively,
        at start-up) get their windows and agent keys now."""
        for ptr, arr in list(self.shared.arrays.items()):
            self.attach(ptr, arr, self.world)

    def use_agent(self, agent: GmoveAgent) -> None:
        """This node's agent, just started (acc_gmove.py): it serves every array."""
        self.agent = agent
        self._attach_all()

    def free_windows(self) -> None:
        """Free the windows (collective; every node ends here in the same order)."""
        from mpi4py import MPI

        if not MPI.Is_finalized():
            for _ref, win, _ranks in self.windows.values():
                if win is not None:
                    win.Free()
        self.windows.clear()

    def attach(self, ptr: int, arr: DistArray, comm: Any = None) -> None:
        """A new array (aligned collectively on ``comm``) when the program has one-sided
        gmoves: a window over its buffer (gmove in/out), its key for the agent (... acc)."""
        if not self.rma and self.agent is None:
            return
        from mpi4py import MPI

        comm = comm if comm is not None else self.shared.exec_comm
        worlds = self.participants(comm)
        if self.agent is not None:
            self.agent.register(arr, ptr, worlds)
        if self.rma:
            try:
                win = MPI.Win.Create(arr.buffer if arr.buffer.nbytes else MPI.BOTTOM, 1, comm=comm)
                ranks: Any = {w: k for k, w in enumerate(worlds)}
            except MPI.Exception as e:   # an MPI without one-sided support: said at a gmove in/out
                win, ranks = None, e.Get_error_string()
            self.windows[id(arr)] = (weakref.ref(arr), win, ranks)

    def detach(self, arr: DistArray) -> None:
        if self.agent is not None:
            self.agent.forget(arr)
        entry = self.windows.pop(id(arr), None)
        if entry is not None and entry[1] is not None:
            entry[1].Free()

    def _xmpacc_gmove(self, where: bytes, mode: int, lhs_array: int | None, lhs_base: int | None,
                      lhs_sec: int, rhs_array: int | None, rhs_base: int | None, rhs_sec: int) -> None:
        w, dst, src = self.sides(where, (lhs_array, lhs_base, lhs_sec), (rhs_array, rhs_base, rhs_sec))
        if fills(dst, src):
            self._gmove_fill(w, mode, dst, src)
        else:
            # as the call passed it: what a plan for the C side is checked against
            call = (where, (mode, lhs_array, lhs_base, lhs_sec, rhs_array, rhs_base, rhs_sec))
            self._gmove_move(w, mode, dst, src, call=call)

    def sides(self, where: bytes, lhs: tuple[int | None, int | None, int],
                     rhs: tuple[int | None, int | None, int],
                     names: tuple[bytes, bytes] | None = None) -> tuple[str, Operand, Operand]:
        """The statement's place and both sides of a gmove (or ``gmove ... acc``: ``names``
        as the program writes them), read and checked: elements of one size."""
        w = where_text(where)
        self.stats["gmove_calls"] = self.stats.get("gmove_calls", 0) + 1
        dst = self._gmove_operand(*lhs, w, "left")
        src = self._gmove_operand(*rhs, w, "right")
        if names is not None:
            dst.name, src.name = names[0].decode(), names[1].decode()
        if dst.side.section.elem_size != src.side.section.elem_size:
            raise RuntimeFailure(w, f"gmove: elements of '{dst.name}' have {dst.side.section.elem_size} "
                                    f"bytes but those of '{src.name}' {src.side.section.elem_size}",
                                 collective=self.shared.everyone())
        return w, dst, src

    def _gmove_fill(self, w: str, mode: int, dst: Operand, src: Operand) -> None:
        """``a[0:n] = x`` (or an element): every executing node gets the value, then each
        owner fills its part."""
        esize = src.side.section.elem_size
        value = np.zeros(esize, dtype=np.uint8)
        scalar = Operand("(value)", Side((), Section(esize, (), ()), None), None, value.ctypes.data)
        if src.array is not None:
            self._gmove_move(w, mode if mode == GMOVE_IN else 0, scalar, src, keep=value)
        else:
            sec = src.side.section
            if sec.subs:   # an element of a local array
                value[...] = local_view(src.base, sec)[numpy_index(sec)].reshape(-1)
            else:
                value[...] = np.frombuffer((ctypes.c_char * esize).from_address(src.base), dtype=np.uint8)
        self._gmove_broadcast(w, mode, dst, value, esize)

    def _gmove_broadcast(self, w: str, mode: int, dst: Operand, value: np.ndarray, esize: int) -> None:
        """Each holder of a destination element (or, ``out``, the participant responsible
        for it) writes ``value`` there."""
        ndim = len(dst.side.section.shape)
        shape = dst.side.section.shape
        # a local source of the destination's shape whose elements all sit at one address:
        # strides 0, written as extents 1 and steps 0 over a one-element buffer
        src = Operand("(value)", Side(tuple(SideDim(1) for _ in range(ndim)),
                                      Section(esize, (1,) * ndim, tuple(Sub(True, 0, n, 0) for n in shape)),
                                      None), None, value.ctypes.data)
        self._gmove_move(w, GMOVE_OUT if mode == GMOVE_OUT else 0, dst, src, keep=value)

    def _gmove_move(self, w: str, mode: int, dst: Operand, src: Operand, keep: Any = None,
                    call: tuple[bytes, tuple[Any, ...]] | None = None) -> None:
        """``call``: the statement's where and arguments, for a plan of the C side
        (replay_gmove.py); None for the moves of a fill, which stay general."""
        how = one_sided(mode, dst, src)
        if how is not None:
            self._gmove_one_sided(w, how, dst, src)
        else:
            self._gmove_collective(w, dst, src, keep, call)

    def _gmove_operand(self, arr_ptr: int | None, base: int | None,
                       sec_ptr: int, w: str, which: str) -> Operand:
        sec = read_section(sec_ptr)
        if not arr_ptr:
            op = Operand(f"the {which}-hand side",
                         Side(tuple(SideDim(max(e, 1)) for e in sec.extents), sec, None),
                         None, int(base or 0))
            self._gmove_check(op, w)
            return op
        arr = self.shared.arrays.get(arr_ptr)
        if arr is None:
            raise RuntimeFailure(w, "gmove of a distributed array whose align has not run")
        tmpl = arr.template
        families = tmpl.nodes.all_families()
        ranks = families[0]
        if len(families) != 1:
            # '*' in the nodes reference (nodes row[2] = g[*][:]): one node array, so one
            # copy of the array, per family; each family moves its own copy (_gmove_comm)
            ranks = tmpl.nodes.family
            if ranks is None:
                raise RuntimeFailure(w, f"gmove of '{arr.name}': node {self.world.Get_rank()} executes it "
                                        f"but is in none of the node arrays of '{tmpl.nodes.name}'")
        dims = array_dims(arr)
        if len(sec.subs) != len(dims):
            raise RuntimeFailure(w, f"gmove: '{arr.name}' has {len(dims)} dimensions "
                                    f"but {len(sec.subs)} subscripts")
        sec = Section(arr.elem_size, tuple(lay.extent for lay in arr.layouts), sec.subs)
        op = Operand(arr.name, Side(tuple(dims), sec, tmpl.nodes.extents, ranks), arr, 0)
        self._gmove_check(op, w)
        return op

    def _gmove_check(self, op: Operand, w: str) -> None:
        try:
            check_section(op.side.section, op.name)
        except SectionError as e:
            raise RuntimeFailure(w, f"gmove: {e}", collective=self.shared.everyone()) from None

    # ------------------------------------------------------------------ plans
    def plan(self, w: str, how: str, build: Any) -> Plan:
        """Planning errors: wrong sections are seen by every node alike; an element held
        only outside the executing set is seen by some nodes, which end the job."""
        try:
            return build()
        except PlanError as e:
            raise RuntimeFailure(w, f"gmove{how}: {e}") from None
        except SectionError as e:
            raise RuntimeFailure(w, f"gmove{how}: {e}", collective=self.shared.everyone()) from None

    def check_complete(self, w: str, how: str, comm: Any, moved: dict[int, np.ndarray], dst: Operand,
                        members: list[int]) -> None:
        """Every destination element (each copy) gets a value, once: one sum over the nodes
        when the plan is made, so that data outside the executing node set is reported."""
        total = comm.allreduce(sum(len(v) for v in moved.values()))
        want = put_writes(dst.side, members)
        if total != want:
            raise RuntimeFailure(w, f"gmove{how}: only {total} of the {want} destination elements have a "
                                    "source in the executing node set (outside a task, every node "
                                    "executes; inside one, use 'gmove in' to read and 'gmove out' to "
                                    "write data of other nodes)", collective=self.shared.everyone())

    def participants(self, comm: Any) -> list[int]:
        from mpi4py import MPI

        group = comm.Get_group()
        ranks = MPI.Group.Translate_ranks(group, list(range(comm.Get_size())), self.world.Get_group())
        group.Free()
        return list(ranks)

    def cached(self, key: tuple[Any, ...], build: Any) -> Any:
        """The plan of ``key`` (the site, the kind and both sides' layouts: every node
        finds or builds it alike, and building is collective), the newest _PLAN_CACHE kept."""
        plans = self.plans
        entry = plans.get(key)
        if entry is None:
            entry = build()
            plans[key] = entry
            self.stats["gmove_plans"] = self.stats.get("gmove_plans", 0) + 1
            while len(plans) > _PLAN_CACHE:
                plans.popitem(last=False)
        plans.move_to_end(key)
        return entry

    def communicator(self, w: str, *ops: Operand) -> tuple[Any, list[int]]:
        """The gmove's communicator and its members' world ranks: the executing nodes, or,
        for arrays on a node array with '*' in its reference, those of my family (the
        others move their own copies at the same time)."""
        comm = self.shared.exec_comm
        sets = {op.array.template.nodes.all_families() for op in ops if op.array is not None}
        family_sets = [f for f in sets if len(f) > 1]
        if family_sets:
            if len(sets) > 1:
                raise RuntimeFailure(w, "gmove between an array on a node array with '*' in its nodes "
                                        "reference (a different set of nodes on different nodes) and an "
                                        "array on another node array: not supported yet",
                                     collective=self.shared.everyone())
            families = family_sets[0]
            nodes = next(op.array for op in ops if op.array is not None).template.nodes
            comm = self.shared.cache.split(comm, ("gmove-family", hash(families)),
                                           families.index(nodes.family), comm.Get_rank())
        key = comm.py2f()
        if key not in self.comms:
            self.comms[key] = (comm.Dup(), self.participants(comm))
        return self.comms[key]

    def _gmove_collective(self, w: str, dst: Operand, src: Operand, keep: Any,
                          call: tuple[bytes, tuple[Any, ...]] | None) -> None:
        comm, members = self.communicator(w, dst, src)
        me = self.world.Get_rank()
        key = (w, "collective", dst.key(), src.key(), comm.py2f())

        def build() -> Runner:
            plan = self.plan(w, "", lambda: collective_plan(dst.side, src.side, me, members,
                                                            self.world.Get_size()))
            runner = make_runner(plan, members, me, dst.side.section.elem_size, w)
            self.check_complete(w, "", comm, plan.recvs, dst, members)
            return runner

        runner = self.cached(key, build)
        same = dst.array is not None and dst.array is src.array
        dst_view, src_view = dst.view(), src.view()
        run_collective(runner, comm, dst_view, src_view, same, self.stats, self.shared.asyncs, keep)
        replay = self.shared.replay
        if call is not None and replay is not None and not self.shared.asyncs.current:
            if self.in_c is None:   # later calls of this site in C (replay_gmove.py)
                self.in_c = GmovePlans(replay)
            self.in_c.offer(*call, runner, comm, dst_view, src_view, same)

    def _gmove_one_sided(self, w: str, how: str, dst: Operand, src: Operand) -> None:
        remote = src if how == "in" else dst
        entry = self.windows.get(id(remote.array))
        if entry is None or entry[0]() is not remote.array:
            raise RuntimeFailure(w,
                                 f"gmove {how}: '{remote.name}' has no MPI window (this is a bug in xmpacc)")
        _ref, win, win_ranks = entry
        if win is None:
            raise RuntimeFailure(w, f"gmove {how}: this MPI library could not make a window over "
                                    f"'{remote.name}' (MPI_Win_create: {win_ranks}); gmove in/out needs MPI "
                                    "one-sided communication" + WINDOW_HINT)
        plan = self.one_sided_plan(w, how, dst, src, how, OneSided).plan
        run_one_sided(plan, how, win, win_ranks, dst.view(), src.view(), self.world.Get_rank(),
                      src.side.section.elem_size, self.stats, w)

    def one_sided_plan(self, w: str, how: str, dst: Operand, src: Operand, kind: str, make: Any) -> Any:
        """``make(plan)`` for the plan of a gmove in/out (per peer: my offsets and
        the peer's), cached per call site as ``kind``; its completeness is checked once,
        collectively."""
        me, world = self.world.Get_rank(), self.world.Get_size()
        comm, members = self.communicator(w, dst, src)

        def build() -> Any:
            if how == "in":
                plan = self.plan(w, " in", lambda: get_plan(dst.side, src.side, me, world))
            else:
                plan = self.plan(w, " out", lambda: put_plan(dst.side, src.side, me, members, world))
            self.check_complete(w, f" {how}", comm, plan.recvs if how == "in" else plan.sends, dst, members)
            return make(plan)

        return self.cached((w, kind, dst.key(), src.key(), tuple(members)), build)
