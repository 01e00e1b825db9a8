"""The gmove entries of the contract (global-view §2), sections in ``bcast`` and the
run-time errors of array sections.  ``GmoveRuntime`` is mixed into ``api.Runtime``.

``_xmpacc_gmove`` reads both sides (a distributed array's descriptor, or local data at an
address) and their sections, finds or builds the plan of this node (gmove_plan.py; cached
per call site, arguments and node set) and runs it:

* collective (no ``in``/``out``): every node of the executing set takes part; one packed
  message per pair of nodes (Isend/Irecv on a communicator of its own), elements that stay
  on a node are copied directly, a contiguous block is sent or received in place;
* ``in`` / ``out``: one-sided MPI-3 RMA on windows over the arrays' local buffers (created
  at ``align`` once the program announced gmove in/out with ``_xmpacc_gmove_rma_init``):
  the nodes of the executing set get or put, the other side runs no code.

``XMPACC_STATS`` counts ``gmove_bytes`` (sent to other nodes) and ``gmove_calls``.
"""

from __future__ import annotations

import ctypes
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .arrays import DistArray, read_longs
from .asyncs import MpiPending
from .contract import GMOVE_IN, GMOVE_OUT, SECERR_SHAPE
from .errors import RuntimeFailure, where_text
from .gmove_plan import Plan, PlanError, Side, SideDim, collective_plan, get_plan, put_plan, put_writes
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

_PLAN_CACHE = 256          # plans kept per process (least recently used dropped)
_TAG = 7301
_DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def elem_dtype(size: int) -> np.dtype:
    return np.dtype(_DTYPES.get(size, f"V{size}"))


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
        return (id(self.array) if self.array is not None else "local", self.side.section)


def runs(off: np.ndarray) -> tuple[int, np.ndarray]:
    """``off`` as pieces of L consecutive offsets: (L, first offset of each piece)."""
    if len(off) < 2:
        return max(len(off), 1), off
    breaks = np.flatnonzero(np.diff(off) != 1) + 1
    lengths = np.diff(np.concatenate(([0], breaks, [len(off)])))
    size = int(np.gcd.reduce(lengths))
    return size, off[::size]


@dataclass
class Transfer:
    """The offsets of one peer in a runnable form: one contiguous block (sent or received
    in place), equal pieces at a constant stride (one strided copy), or any offsets
    (an indexed copy)."""

    peer: int                      # rank in the gmove communicator (or the window's group)
    count: int
    size: int                      # elements per piece
    starts: np.ndarray
    offsets: np.ndarray
    stride: int                    # distance between pieces when constant, else 0

    @classmethod
    def of(cls, peer: int, off: np.ndarray) -> Transfer:
        size, starts = runs(off)
        gaps = np.diff(starts)
        stride = int(gaps[0]) if len(gaps) and (gaps == gaps[0]).all() and gaps[0] > 0 else 0
        return cls(peer, len(off), size, starts, off, stride if len(starts) > 1 else size)

    @property
    def contiguous(self) -> bool:
        return self.size == self.count

    def _pieces(self, view: np.ndarray) -> np.ndarray:
        """The pieces as a 2-D strided view of ``view`` (constant stride only)."""
        item = view.itemsize
        return np.lib.stride_tricks.as_strided(view[self.starts[0]:], shape=(len(self.starts), self.size),
                                               strides=(self.stride * item, item))

    def as_view(self, view: np.ndarray) -> np.ndarray | None:
        """The elements as a (pieces, size) view of ``view``, when they have that form."""
        if self.contiguous:
            return view[self.starts[0]: self.starts[0] + self.count].reshape(1, -1)
        return self._pieces(view) if self.stride else None

    def gather(self, view: np.ndarray, out: np.ndarray) -> None:
        if self.contiguous:
            out[...] = view[self.starts[0]: self.starts[0] + self.count]
        elif self.stride:
            np.copyto(out.reshape(-1, self.size), self._pieces(view))
        else:
            np.take(view, self.offsets, out=out)

    def scatter(self, view: np.ndarray, data: np.ndarray) -> None:
        if self.contiguous:
            view[self.starts[0]: self.starts[0] + self.count] = data
        elif self.stride:
            self._pieces(view)[...] = data.reshape(-1, self.size)
        else:
            view[self.offsets] = data


@dataclass
class Runner:
    """A plan bound to a communicator: what ``run_collective`` needs, built once."""

    plan: Plan
    sends: list[Transfer]
    recvs: list[Transfer]
    self_src: Transfer | None      # elements that stay on this node
    self_dst: Transfer | None
    nbytes: int
    arrays: tuple[Any, Any]        # weak references to the distributed arrays
    busy: bool = False
    buffers: dict[str, list[np.ndarray]] = field(default_factory=dict)


def _weak(arr: DistArray | None) -> Any:
    return weakref.ref(arr) if arr is not None else None


class GmoveRuntime:
    """gmove, bcast of sections and section errors (mixed into ``api.Runtime``)."""

    world: Any
    stats: dict[str, int]

    # ------------------------------------------------------------------ state
    def _gmove_state(self) -> dict[str, Any]:
        state = self.__dict__.get("_gmove")
        if state is None:
            state = self.__dict__["_gmove"] = {"plans": OrderedDict(), "comms": {}, "rma": False,
                                               "windows": {}}
        return state

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
        comm = self._on_set(on_nodes, on_ref, w)   # type: ignore[attr-defined]
        if comm is None:
            return
        section = read_section(sec)
        try:
            check_section(section, "the section")
        except SectionError as e:
            raise RuntimeFailure(w, f"bcast: {e}", collective=self._everyone()) from None
        root = self._bcast_root(comm, from_nodes, from_ref, w)   # type: ignore[attr-defined]
        part = local_view(base, section)[numpy_index(section)]
        data = np.ascontiguousarray(part)
        comm.Bcast(data.reshape(-1), root=root)
        if comm.Get_rank() != root:
            part[...] = data

    # ------------------------------------------------------------------ gmove
    def _xmpacc_gmove_rma_init(self) -> None:
        state = self._gmove_state()
        if state["rma"]:
            return
        state["rma"] = True
        import atexit

        atexit.register(self._gmove_free_windows)   # before mpi4py finalizes MPI (LIFO)
        for arr in list(self.arrays.values()):   # type: ignore[attr-defined]
            self._gmove_attach(arr, self.world)

    def _gmove_free_windows(self) -> None:
        """Free the windows (collective; every node ends here in the same order)."""
        from mpi4py import MPI

        windows = self._gmove_state()["windows"]
        if not MPI.Is_finalized():
            for _ref, win, _ranks in windows.values():
                win.Free()
        windows.clear()

    def _gmove_attach(self, arr: DistArray, comm: Any = None) -> None:
        """A window over a new array's buffer, when the program uses gmove in/out."""
        state = self._gmove_state()
        if not state["rma"]:
            return
        from mpi4py import MPI

        comm = comm if comm is not None else self.exec_comm   # type: ignore[attr-defined]
        win = MPI.Win.Create(arr.buffer if arr.buffer.nbytes else MPI.BOTTOM, 1, comm=comm)
        group = comm.Get_group()
        worlds = MPI.Group.Translate_ranks(group, list(range(comm.Get_size())), self.world.Get_group())
        group.Free()
        state["windows"][id(arr)] = (weakref.ref(arr), win, {w: k for k, w in enumerate(worlds)})

    def _gmove_detach(self, arr: DistArray) -> None:
        entry = self._gmove_state()["windows"].pop(id(arr), None)
        if entry is not None:
            entry[1].Free()

    def _xmpacc_gmove(self, where: bytes, mode: int, lhs_array: int | None, lhs_base: int | None,
                      lhs_sec: int, rhs_array: int | None, rhs_base: int | None, rhs_sec: int) -> None:
        w = where_text(where)
        self.stats["gmove_calls"] = self.stats.get("gmove_calls", 0) + 1
        dst = self._gmove_operand(lhs_array, lhs_base, lhs_sec, w, "left")
        src = self._gmove_operand(rhs_array, rhs_base, rhs_sec, w, "right")
        if dst.side.section.elem_size != src.side.section.elem_size:
            raise RuntimeFailure(w, f"gmove: elements of '{dst.name}' have {dst.side.section.elem_size} bytes "
                                    f"but those of '{src.name}' {src.side.section.elem_size}", collective=self._everyone())
        if not src.side.section.shape and dst.side.section.shape:
            self._gmove_fill(w, mode, dst, src)
        else:
            self._gmove_move(w, mode, dst, src)

    def _gmove_fill(self, w: str, mode: int, dst: Operand, src: Operand) -> None:
        """``a[0:n] = x`` (or an element): every executing node gets the value, then each
        owner fills its part."""
        esize = src.side.section.elem_size
        value = np.zeros(esize, dtype=np.uint8)
        scalar = Operand("(value)", Side((), Section(esize, (), ()), None), None, value.ctypes.data)
        if src.array is not None:
            self._gmove_move(w, mode if mode == GMOVE_IN else 0, scalar, src, keep=value)
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

    def _gmove_move(self, w: str, mode: int, dst: Operand, src: Operand, keep: Any = None) -> None:
        if mode == GMOVE_IN and src.array is not None:
            self._gmove_one_sided(w, "in", dst, src)
        elif mode == GMOVE_OUT and dst.array is not None:
            self._gmove_one_sided(w, "out", dst, src)
        else:
            self._gmove_collective(w, dst, src, keep)

    def _gmove_operand(self, arr_ptr: int | None, base: int | None, sec_ptr: int, w: str, which: str) -> Operand:
        sec = read_section(sec_ptr)
        if not arr_ptr:
            op = Operand(f"the {which}-hand side", Side(tuple(SideDim(max(e, 1)) for e in sec.extents), sec, None),
                         None, int(base or 0))
            self._gmove_check(op, w)
            return op
        arr = self.arrays.get(arr_ptr)   # type: ignore[attr-defined]
        if arr is None:
            raise RuntimeFailure(w, "gmove of a distributed array whose align has not run")
        tmpl = arr.template
        dims = []
        for k, lay in enumerate(arr.layouts):
            t = arr.tdims[k]
            nd = tmpl.node_dims[t] if t >= 0 else -1
            dims.append(SideDim(lay.extent, lay.dist, nd, lay.offset, lay.shadow_lo, lay.shadow_hi, lay.full_shadow))
        if len(sec.subs) != len(dims):
            raise RuntimeFailure(w, f"gmove: '{arr.name}' has {len(dims)} dimensions but {len(sec.subs)} subscripts")
        sec = Section(arr.elem_size, tuple(lay.extent for lay in arr.layouts), sec.subs)
        op = Operand(arr.name, Side(tuple(dims), sec, tmpl.nodes.extents), arr, 0)
        self._gmove_check(op, w)
        return op

    def _gmove_check(self, op: Operand, w: str) -> None:
        try:
            check_section(op.side.section, op.name)
        except SectionError as e:
            raise RuntimeFailure(w, f"gmove: {e}", collective=self._everyone()) from None

    # ------------------------------------------------------------------ plans
    def _plan(self, w: str, how: str, build: Any) -> Plan:
        """Planning errors: wrong sections are seen by every node alike; an element held
        only outside the executing set is seen by some nodes, which end the job."""
        try:
            return build()
        except PlanError as e:
            raise RuntimeFailure(w, f"gmove{how}: {e}") from None
        except SectionError as e:
            raise RuntimeFailure(w, f"gmove{how}: {e}", collective=self._everyone()) from None

    def _everyone(self) -> bool:
        return self.exec_comm.Get_size() == self.world.Get_size()   # type: ignore[attr-defined]

    def _check_complete(self, w: str, how: str, comm: Any, moved: dict[int, np.ndarray], dst: Operand,
                        members: list[int]) -> None:
        """Every destination element (each copy) gets a value, once: one sum over the nodes
        when the plan is made, so that data outside the executing node set is reported."""
        total = comm.allreduce(sum(len(v) for v in moved.values()))
        want = put_writes(dst.side, members)
        if total != want:
            raise RuntimeFailure(w, f"gmove{how}: only {total} of the {want} destination elements have a "
                                    "source in the executing node set (outside a task, every node "
                                    "executes; inside one, use 'gmove in' to read and 'gmove out' to "
                                    "write data of other nodes)", collective=self._everyone())

    def _participants(self, comm: Any) -> list[int]:
        from mpi4py import MPI

        group = comm.Get_group()
        ranks = MPI.Group.Translate_ranks(group, list(range(comm.Get_size())), self.world.Get_group())
        group.Free()
        return list(ranks)

    def _cached(self, key: tuple[Any, ...], dst: Operand, src: Operand, build: Any) -> Any:
        plans: OrderedDict = self._gmove_state()["plans"]
        entry = plans.get(key)
        if entry is not None and entry.arrays[0] is not None and entry.arrays[0]() is not dst.array:
            entry = None
        if entry is not None and entry.arrays[1] is not None and entry.arrays[1]() is not src.array:
            entry = None
        if entry is None:
            entry = build()
            plans[key] = entry
            while len(plans) > _PLAN_CACHE:
                plans.popitem(last=False)
        plans.move_to_end(key)
        return entry

    def _gmove_comm(self) -> Any:
        comm = self.exec_comm   # type: ignore[attr-defined]
        comms = self._gmove_state()["comms"]
        key = comm.py2f()
        if key not in comms:
            comms[key] = (comm.Dup(), self._participants(comm))
        return comms[key]

    def _gmove_collective(self, w: str, dst: Operand, src: Operand, keep: Any) -> None:
        comm, members = self._gmove_comm()
        me = self.world.Get_rank()
        key = (w, "collective", dst.key(), src.key(), comm.py2f())

        def build() -> Runner:
            plan = self._plan(w, "", lambda: collective_plan(dst.side, src.side, me, members, self.world.Get_size()))
            runner = _runner(plan, members, me, dst.side.section.elem_size, (_weak(dst.array), _weak(src.array)), w)
            self._check_complete(w, "", comm, plan.recvs, dst, members)
            return runner

        runner = self._cached(key, dst, src, build)
        run_collective(runner, comm, dst.view(), src.view(), dst.array is not None and dst.array is src.array,
                       self.stats, self.asyncs, keep)   # type: ignore[attr-defined]

    def _gmove_one_sided(self, w: str, how: str, dst: Operand, src: Operand) -> None:
        remote = src if how == "in" else dst
        entry = self._gmove_state()["windows"].get(id(remote.array))
        if entry is None or entry[0]() is not remote.array:
            raise RuntimeFailure(w, f"gmove {how}: '{remote.name}' has no MPI window (this is a bug in xmpacc)")
        _ref, win, win_ranks = entry
        me, world = self.world.Get_rank(), self.world.Get_size()
        members = self._participants(self.exec_comm)   # type: ignore[attr-defined]
        key = (w, how, dst.key(), src.key(), tuple(members))

        def build() -> Plan:
            if how == "in":
                plan = self._plan(w, " in", lambda: get_plan(dst.side, src.side, me, world))
            else:
                plan = self._plan(w, " out", lambda: put_plan(dst.side, src.side, me, members, world))
            self._check_complete(w, f" {how}", self.exec_comm, plan.recvs if how == "in" else plan.sends,  # type: ignore[attr-defined]
                                 dst, members)
            return plan

        plan = self._cached(key, dst, src, build)
        run_one_sided(plan, how, win, win_ranks, dst.view(), src.view(), me, src.side.section.elem_size,
                      self.stats, w)


def _runner(plan: Plan, members: list[int], me: int, esize: int, arrays: tuple[Any, Any], w: str) -> Runner:
    rank_of = {r: k for k, r in enumerate(members)}
    outside = sorted(set(plan.sends) - set(rank_of))
    if outside:
        raise RuntimeFailure(w, f"gmove: node {outside[0]} holds destination elements but is not in the "
                                "executing node set (use 'gmove out' inside a task)")
    sends = [Transfer.of(rank_of[p], off) for p, off in sorted(plan.sends.items()) if p != me]
    recvs = [Transfer.of(rank_of[p], off) for p, off in sorted(plan.recvs.items()) if p != me]
    nbytes = sum(t.count for t in sends) * esize
    stay = me in plan.sends and len(plan.sends[me]) > 0
    return Runner(plan, sends, recvs, Transfer.of(me, plan.sends[me]) if stay else None,
                  Transfer.of(me, plan.recvs[me]) if stay else None, nbytes, arrays)


def _buffers(runner: Runner, dtype: np.dtype) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Message buffers: the runner's own, or fresh ones while an async use holds them."""
    if runner.busy or not runner.buffers:
        bufs = {"send": [np.empty(t.count, dtype) for t in runner.sends],
                "recv": [np.empty(t.count, dtype) for t in runner.recvs]}
        if runner.busy:
            return bufs["send"], bufs["recv"]
        runner.buffers = bufs
    return runner.buffers["send"], runner.buffers["recv"]


def _stay(src_t: Transfer, dst_t: Transfer | None, src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """The elements that stay on this node: copied at once when both sides are blocks of
    the same shape (numpy copes with overlap), else gathered for a later scatter."""
    a, b = src_t.as_view(src), dst_t.as_view(dst) if dst_t is not None else None
    if a is not None and b is not None and a.size == b.size:
        b[...] = a.reshape(b.shape)
        return None
    out = np.empty(src_t.count, dst.dtype)
    src_t.gather(src, out)
    return out


def run_collective(runner: Runner, comm: Any, dst: np.ndarray, src: np.ndarray, same: bool,
                   stats: dict[str, int], asyncs: Any, keep: Any = None) -> None:
    """Every read of the source happens before any message can land in the destination,
    so ``gmove a[1:n] = a[0:n]`` is well defined."""
    from mpi4py import MPI

    send_bufs, recv_bufs = _buffers(runner, dst.dtype)
    outgoing = []
    for t, buf in zip(runner.sends, send_bufs):
        if t.contiguous and not same:
            outgoing.append(src[t.starts[0]: t.starts[0] + t.count])
        else:
            t.gather(src, buf)
            outgoing.append(buf)
    local = None
    if runner.self_src is not None:
        local = _stay(runner.self_src, runner.self_dst, src, dst)
    requests, unpack = [], []
    for t, buf in zip(runner.recvs, recv_bufs):
        target = dst[t.starts[0]: t.starts[0] + t.count] if t.contiguous else buf
        requests.append(comm.Irecv([target.view(np.uint8), MPI.BYTE], source=t.peer, tag=_TAG))
        if not t.contiguous:
            unpack.append((t, buf))
    for t, data in zip(runner.sends, outgoing):
        requests.append(comm.Isend([np.ascontiguousarray(data).view(np.uint8), MPI.BYTE], dest=t.peer, tag=_TAG))
    if local is not None and runner.self_dst is not None:
        runner.self_dst.scatter(dst, local)
    stats["gmove_bytes"] = stats.get("gmove_bytes", 0) + runner.nbytes

    def finish() -> None:
        for t, buf in unpack:
            t.scatter(dst, buf)
        runner.busy = False

    runner.busy = True
    asyncs.add(MpiPending(requests, finish, keep=(outgoing, recv_bufs, keep)))


def run_one_sided(plan: Plan, how: str, win: Any, win_ranks: dict[int, int], dst: np.ndarray,
                  src: np.ndarray, me: int, esize: int, stats: dict[str, int], w: str) -> None:
    """gmove in: Get from each holder; gmove out: Put to each holder (MPI passive target)."""
    from mpi4py import MPI

    if me in plan.recvs and me in plan.sends:
        dst[plan.recvs[me]] = src[plan.sends[me]]
    moved = 0
    for peer, theirs in sorted(plan.remote.items()):
        if peer not in win_ranks:
            raise RuntimeFailure(w, f"gmove {how}: node {peer} holds data of the array but was not "
                                    "among the nodes that aligned it")
        size, starts = runs(theirs)
        target = MPI.BYTE.Create_indexed_block(size * esize, [int(s) * esize for s in starts]).Commit()
        mine = plan.recvs[peer] if how == "in" else plan.sends[peer]
        buf = np.empty(len(mine), dtype=dst.dtype)
        rank = win_ranks[peer]
        win.Lock(rank, MPI.LOCK_SHARED)
        if how == "in":
            win.Get([buf.view(np.uint8), MPI.BYTE], rank, (0, 1, target))
        else:
            np.take(src, mine, out=buf)
            win.Put([buf.view(np.uint8), MPI.BYTE], rank, (0, 1, target))
        win.Unlock(rank)
        if how == "in":
            dst[mine] = buf
        target.Free()
        moved += buf.nbytes
    stats["gmove_bytes"] = stats.get("gmove_bytes", 0) + moved
