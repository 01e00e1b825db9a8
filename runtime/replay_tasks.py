"""``task on`` (and ``task ... nocomm``) in C after its first call at a site.

A task in a time loop (NPB CG prints its residual in ``task on p(1, 1)`` and reduces a node
row's bounds in ``task on p(1, :)`` every iteration) entered Python at its start and at its
end: 30-40 µs each time on the development VM.  Here the general path
(tasks.py) runs the first call at a site and hands the glue its answer
(include/xmpacc_task_plans.h): whether this node runs the body and, where it does, the
task's communicator and this node's number and count in it.  Later calls with the same
nodes and reference, under the same executing set, distributions and node sets, answer
in C; a task entered there is Python's only if a call enters Python inside it
(``_xmpacc_tasks_sync``: Python pushes its node set then, as its own ``task_begin`` does).
"""

from __future__ import annotations

import ctypes
from typing import Any

from .replay_structs import CNodeRef, node_ref

DEPTH = 16   # _XMPACC_TASK_DEPTH
PLANS_PER_SITE = 4


class CTaskPlan(ctypes.Structure):
    """_xmpacc_task_plan_t of include/xmpacc_task_plans.h."""


CTaskPlan._fields_ = [
    ("on", CNodeRef), ("parent", ctypes.c_size_t), ("layout", ctypes.c_longlong),
    ("generation", ctypes.c_longlong), ("member", ctypes.c_int), ("exec", ctypes.c_size_t),
    ("exec_rank", ctypes.c_int), ("exec_size", ctypes.c_int), ("calls", ctypes.c_longlong),
    ("next", ctypes.POINTER(CTaskPlan))]


class CTaskEntered(ctypes.Structure):
    _fields_ = [("plan", ctypes.POINTER(CTaskPlan)), ("exec", ctypes.c_size_t), ("exec_rank", ctypes.c_int),
                ("exec_size", ctypes.c_int)]


class TaskPlans:
    """The plans by site, with the communicators of the tasks they enter."""

    def __init__(self) -> None:
        self.lib: Any = None
        self.sites: dict[int, list[tuple[CTaskPlan, Any]]] = {}
        self.folded = 0

    def start(self, lib: Any, replay: Any) -> None:
        """The launcher hands over the program (replay on)."""
        self.lib, self.replay = lib, replay
        self.where = ctypes.c_void_p.in_dll(lib, "_xmpacc_task_where")
        self.depth = ctypes.c_int.in_dll(lib, "_xmpacc_task_depth")
        self.entered = (CTaskEntered * DEPTH).in_dll(lib, "_xmpacc_task_entered")
        self.generation = ctypes.c_longlong.in_dll(lib, "_xmpacc_param_generation")

    def offer(self, nodes: int, ref: list[int] | None, parent: Any, comm: Any,
              member: bool | None = None) -> None:
        """The general path answered the task at the site C last saw: ``comm`` None where
        this node skips the body; a ``nocomm`` task gives ``member`` and no communicator."""
        if self.lib is None or not self.where.value:
            return
        from mpi4py import MPI

        on = node_ref(nodes, ref)
        if on is None:
            return
        c = CTaskPlan(on)
        c.parent, c.layout, c.generation = MPI._handleof(parent), self.replay.c.layout, self.generation.value
        c.member = int(comm is not None if member is None else member)
        if comm is not None:
            c.exec, c.exec_rank, c.exec_size = MPI._handleof(comm), comm.Get_rank(), comm.Get_size()
        site = int(self.where.value)
        old = self.sites.get(site, [])
        chain = [(p, m) for p, m in old if bytes(p.on) != bytes(on)][-(PLANS_PER_SITE - 1):]
        self.folded += sum(p.calls for p, _ in old if not any(p is q for q, _ in chain))
        chain.append((c, comm))
        self.sites[site] = chain
        for (a, _), (b, _) in zip(chain, chain[1:], strict=False):
            a.next = ctypes.pointer(b)
        chain[-1][0].next = ctypes.POINTER(CTaskPlan)()
        self.lib._xmpacc_task_plan_set(ctypes.c_void_p(site), ctypes.byref(chain[0][0]))

    def taken_over(self) -> list[Any]:
        """The communicators of the tasks C entered and Python has not seen, outermost
        first; C forgets them (their ends are Python's now)."""
        comms = []
        for k in range(self.depth.value):
            plan = ctypes.addressof(self.entered[k].plan.contents)
            comm = next(m for chain in self.sites.values() for p, m in chain if ctypes.addressof(p) == plan)
            comms.append(comm)
        self.depth.value = 0
        return comms

    def fold(self, stats: dict[str, int]) -> None:
        calls = self.folded + sum(p.calls for chain in self.sites.values() for p, _ in chain)
        if calls:
            stats["replayed_tasks"] = calls
