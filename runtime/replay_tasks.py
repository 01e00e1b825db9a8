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
from dataclasses import dataclass
from typing import Any

from .fast_reflect import link_chain
from .replay_structs import CNodeRef, node_ref

DEPTH = 16   # _XMPACC_TASK_DEPTH
PLANS_PER_SITE = 4


class CTaskPlan(ctypes.Structure):
    """_xmpacc_task_plan_t of include/xmpacc_task_plans.h."""


CTaskPlan._fields_ = [
    ("on", CNodeRef), ("parent", ctypes.c_size_t), ("layout", ctypes.c_longlong),
    ("generation", ctypes.c_longlong), ("member", ctypes.c_int), ("exec", ctypes.c_size_t),
    ("exec_rank", ctypes.c_int), ("exec_size", ctypes.c_int), ("calls", ctypes.c_longlong),
    ("next", ctypes.c_void_p)]


class CTaskEntered(ctypes.Structure):
    _fields_ = [("plan", ctypes.c_void_p), ("exec", ctypes.c_size_t), ("exec_rank", ctypes.c_int),
                ("exec_size", ctypes.c_int)]


@dataclass
class TaskPlan:
    """A plan and the communicator of the task it enters (None: this node skips it, or
    nocomm)."""

    c: CTaskPlan
    comm: Any


class TaskPlans:
    """The plans by site, with the communicators of the tasks they enter."""

    def __init__(self) -> None:
        self.lib: Any = None
        self.sites: dict[int, list[TaskPlan]] = {}
        self.comms: dict[int, Any] = {}   # a plan's C address -> its communicator
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
        chain = [p for p in old if bytes(p.c.on) != bytes(on)][-(PLANS_PER_SITE - 1):]
        for p in old:
            if not any(p is q for q in chain):
                self.folded += p.c.calls
                del self.comms[ctypes.addressof(p.c)]
        chain.append(TaskPlan(c, comm))
        self.comms[ctypes.addressof(c)] = comm
        self.sites[site] = chain
        link_chain(chain)
        self.lib._xmpacc_task_plan_set(ctypes.c_void_p(site), ctypes.byref(chain[0].c))

    def taken_over(self) -> list[Any]:
        """The communicators of the tasks C entered and Python has not seen, outermost
        first; C forgets them (their ends are Python's now)."""
        comms = [self.comms[self.entered[k].plan] for k in range(self.depth.value)]
        self.depth.value = 0
        return comms

    def fold(self, stats: dict[str, int]) -> None:
        calls = self.folded + sum(p.c.calls for chain in self.sites.values() for p in chain)
        if calls:
            stats["replayed_tasks"] = calls
