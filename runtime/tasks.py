"""Node sets at run time (global-view §6): on-sets of nodes or template references, node
subsets (``nodes q[2] = p[0:2]``, ``nodes q = *``), ``task`` (with and without
``nocomm``) and ``tasks``.  ``Tasks`` is the concern of ``api.Runtime`` that owns them.

A task pushes its node set on the executing-set stack (``xmp_node_num()`` and the
collectives then describe it); ``tasks`` evaluates all its on-refs at its entry, checks
that they are disjoint and splits the executing set once for all of them, so that its
tasks run concurrently:

    int g = _xmpacc_tasks_begin("f.c:9", 2, descs, refs, wheres, nocomm);  -> my task or -1
    { int t = _xmpacc_tasks_enter(g, 0); if (t) { ... } }   (t: pushed; popped at scope end)
    { int t = _xmpacc_tasks_enter(g, 1); if (t) { ... } }
    _xmpacc_tasks_end();                                      (cleanup of g)
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .arrays import read_ints, read_longs
from .cstructs import DESC_NODES, CNodes
from .errors import RuntimeFailure, where_text
from .nodes import Nodes, resolve_extents
from .nodesets import NodeSets, node_sets, template_node_sets
from .replay_tasks import TaskPlans
from .shared import ExecSet, Shared


def read_ref(ptr: int | None) -> list[int] | None:
    """Decode a reference ``{ndims, (kind, a, b, c)...}`` (None: the whole array)."""
    if not ptr:
        return None
    n = read_longs(ptr, 1)[0]
    return read_longs(ptr, 1 + 4 * n)


@dataclass
class TaskGroup:
    """A ``tasks`` construct this node is inside: its task and that task's communicator."""

    mine: int
    comm: Any


class Tasks:
    """Node sets, the executing node set and the task entries.  ``publish`` tells the C
    side (``_xmpacc_exec``) that the executing node set changed."""

    def __init__(self, shared: Shared, publish: Callable[[], None]) -> None:
        self.shared = shared
        self.world, self.cache = shared.world, shared.cache
        self.exec_stack = shared.exec_stack
        self.publish = publish
        self.task_groups: list[TaskGroup] = []
        self.exec_members: dict[int, tuple[int, ...]] = {}
        self.plans = TaskPlans()   # task on in C from its second call (replay_tasks.py)

    # ----------------------------------------------------------------- node sets
    def node_sets(self, desc: int, ref: int | None, where: str) -> NodeSets:
        """The sets a reference denotes; ``desc`` is a node array or a template."""
        templates, nodes = self.shared.templates, self.shared.nodes
        if desc in templates:
            return template_node_sets(templates[desc], read_ref(ref), where)
        if desc not in nodes:
            raise RuntimeFailure(where, "nodes used before its 'nodes' directive ran")
        return node_sets(nodes[desc], read_ref(ref), where)

    def on_set(self, nodes_ptr: int | None, ref_ptr: int | None, where: str) -> Any | None:
        """The communicator of an on-set (the executing set without an on clause); None
        on a node outside the on-set, which skips the directive (reference §6.4-6.6).
        The reference names nodes or a template (global-view §6)."""
        if not nodes_ptr:
            return self.shared.exec_comm
        key, color, order = self.node_sets(nodes_ptr, ref_ptr, where).split_args(self.world.Get_rank())
        return self.cache.split(self.shared.exec_comm, ("on",) + key, color, order)

    def bcast_root(self, comm: Any, from_nodes: int | None, from_ref: int | None, where: str) -> int:
        """The rank in ``comm`` of bcast's source node (0 without a from clause)."""
        if not from_nodes:
            return 0
        sources = self.node_sets(from_nodes, from_ref, where).mine or ()
        if len(sources) != 1:
            raise RuntimeFailure(where, "the source of bcast must be exactly one node", collective=True)
        members = comm.allgather(self.world.Get_rank())
        if sources[0] not in members:
            raise RuntimeFailure(where, "the source of bcast is not in its 'on' node set", collective=True)
        return members.index(sources[0])

    def executing_members(self) -> tuple[int, ...]:
        """World ranks of the executing node set, in its order (collective once per set)."""
        comm = self.exec_stack[-1].comm
        key = comm.py2f()
        if key not in self.exec_members:
            self.exec_members[key] = tuple(comm.allgather(self.world.Get_rank()))
        return self.exec_members[key]

    def _check_inside(self, sets: NodeSets, where: str) -> None:
        """A task's node set must lie inside the executing node set (reference §6.7).  A
        reference without '*' denotes the same set everywhere, so every node finds the
        mistake; with '*' each node checks its own set."""
        members = set(self.executing_members())
        outside = sorted(r for r in sets.mine or () if r not in members)
        if outside:
            raise RuntimeFailure(where, f"the node set of the task contains node {outside[0]} (0-based, "
                                        "entire node set), which is not in the executing node set",
                                 collective=len(sets.sets) == 1)

    def _push(self, comm: Any) -> None:
        self.exec_stack.append(ExecSet(comm))
        self.publish()

    # ----------------------------------------------------------------- nodes q[...] = ...
    def _xmpacc_nodes_subset(self, ptr: int, where: bytes, name: bytes, ndims: int, extents: int,
                             parent: int | None, ref: int | None) -> None:
        w, n = where_text(where), name.decode()
        if parent:
            sets = self.node_sets(parent, ref, w)
            families = sets.sets
        else:   # '= *': the executing node set
            families = (self.executing_members(),)
        sizes = {len(f) for f in families}
        if len(sizes) != 1:
            raise RuntimeFailure(w, f"nodes '{n}' maps onto node sets of different sizes {sorted(sizes)}",
                                 collective=True)
        size = sizes.pop()
        ext = resolve_extents(n, read_ints(extents, ndims), size, w, subset=True)
        nodes = Nodes(n, ext, self.world, self.world.Get_rank(), tuple(families))
        self.shared.nodes[ptr] = nodes
        c = CNodes.from_address(ptr)
        c.id, c.ndims, c.size, c.is_member = DESC_NODES, ndims, math.prod(ext), int(nodes.is_member)
        coords = nodes.coords
        for d in range(ndims):
            c.extent[d], c.coord[d] = ext[d], coords[d] if coords is not None else -1

    # ----------------------------------------------------------------- task
    def _xmpacc_task_begin(self, where: bytes, desc: int, ref: int | None) -> int:
        w = where_text(where)
        sets = self.node_sets(desc, ref, w)
        self._check_inside(sets, w)
        key, color, order = sets.split_args(self.world.Get_rank())
        parent = self.exec_stack[-1].comm
        comm = self.cache.split(parent, ("task",) + key, color, order)
        self.plans.offer(desc, read_ref(ref), parent, comm)
        if comm is None:
            return 0
        self._push(comm)
        return 1

    def _xmpacc_tasks_sync(self) -> None:
        """Before a call enters Python: the tasks C entered are pushed as this concern's."""
        for comm in self.plans.taken_over():
            self._push(comm)

    def _xmpacc_task_nocomm(self, where: bytes, desc: int, ref: int | None) -> int:
        """task ... nocomm: run the body on the selected nodes, without a new node set."""
        member = self.node_sets(desc, ref, where_text(where)).member(self.world.Get_rank())
        self.plans.offer(desc, read_ref(ref), self.exec_stack[-1].comm, None, member=member)
        return int(member)

    def _xmpacc_task_end(self) -> None:
        if len(self.exec_stack) > 1:
            self.exec_stack.pop()
            self.publish()

    # ----------------------------------------------------------------- tasks
    def _xmpacc_tasks_begin(self, where: bytes, n: int, descs: int, refs: int, wheres: int) -> int:
        w = where_text(where)
        desc_list = list((ctypes.c_void_p * n).from_address(descs))
        ref_list = list((ctypes.c_void_p * n).from_address(refs))
        task_wheres = [where_text(x) for x in (ctypes.c_char_p * n).from_address(wheres)]
        sets = [self.node_sets(desc_list[k] or 0, ref_list[k], task_wheres[k]) for k in range(n)]
        for k in range(n):
            self._check_inside(sets[k], task_wheres[k])
        self._check_disjoint(sets, task_wheres, w)
        me = self.world.Get_rank()
        mine = next((k for k in range(n) if sets[k].member(me)), -1)
        order = sets[mine].mine.index(me) if mine >= 0 else 0   # type: ignore[union-attr]
        key = ("tasks", tuple(s.sets for s in sets))
        comm = self.cache.split(self.exec_stack[-1].comm, key, mine if mine >= 0 else None, order)
        self.task_groups.append(TaskGroup(mine, comm))
        return mine

    def _check_disjoint(self, sets: list[NodeSets], wheres: list[str], where: str) -> None:
        """Overlapping task node sets are an error on every node (decided collectively)."""
        from mpi4py import MPI

        comm = self.exec_stack[-1].comm
        n, big = len(sets), len(sets) ** 2
        pair, node = big, -1
        for i in range(n):
            for j in range(i + 1, n):
                common = set(sets[i].mine or ()) & set(sets[j].mine or ())
                if common and i * n + j < pair:
                    pair, node = i * n + j, min(common)
        pair = comm.allreduce(pair, op=MPI.MIN)
        if pair == big:
            return
        node = comm.allreduce(node if node >= 0 else 1 << 30, op=MPI.MIN)
        i, j = divmod(pair, n)
        raise RuntimeFailure(where, f"the node sets of the tasks at {wheres[i]} and {wheres[j]} are not "
                                    f"disjoint: both contain node {node} (0-based, entire node set)",
                             collective=True)

    def _xmpacc_tasks_enter(self, mine: int, k: int) -> int:
        """1 (the task's node set pushed) when this node runs task ``k`` of the innermost tasks."""
        if mine != k or not self.task_groups or self.task_groups[-1].comm is None:
            return 0
        self._push(self.task_groups[-1].comm)
        return 1

    def _xmpacc_tasks_end(self) -> None:
        if self.task_groups:
            self.task_groups.pop()
