"""What the runtime's concerns share, handed to each of them explicitly by ``api.Runtime``.

The runtime is composed of one object per concern (fast_reflect.py, tasks.py, dynamic.py,
shadows.py, check.py, intrinsics.py, gmove.py, device_memory.py, acc*.py, reductions.py,
coarray*.py), each owning its own state.  What they all use is one ``Shared``: the world communicator,
the descriptor tables by C address, the split communicators, the counters
(``XMPACC_STATS``), the async operations, the stack of executing node sets and the C side
of the per-iteration calls (``replay``).  The runtime makes it over its own tables (the
same dictionaries: nothing is copied), so the runtime and its concerns see one state.

``Device`` is the device side as gmove ... acc and device coarrays need it:
``device_memory.DeviceMemory`` implements it; ``backend`` exists once the launcher has
chosen one (a program with kernels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .arrays import DistArray, Template
from .asyncs import AsyncOps
from .nodes import CommCache, Nodes


@dataclass
class ExecSet:
    """One executing node set (a task's): the communicator of its nodes."""

    comm: Any


@dataclass
class Shared:
    """The state every concern of the runtime reads (module doc)."""

    world: Any
    nodes: dict[int, Nodes]
    templates: dict[int, Template]
    arrays: dict[int, DistArray]
    cache: CommCache
    stats: dict[str, int]
    asyncs: AsyncOps
    exec_stack: list[ExecSet]   # the innermost executing node set last (tasks.py pushes)
    replay: Any = None          # replay.py's Replay once the launcher started it; None in checked runs

    @property
    def exec_comm(self) -> Any:
        """The communicator of the executing node set."""
        return self.exec_stack[-1].comm

    def everyone(self) -> bool:
        """Does every node execute (so that a mistake all of them see is a collective failure)?"""
        return bool(self.exec_comm.Get_size() == self.world.Get_size())

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n


class Device(Protocol):
    """The device side as gmove ... acc and device coarrays use it (module doc)."""

    backend: Any              # device.py's backend (None before the launcher chose one)
    copies: dict[int, Any]    # the present table: DeviceCopy by key
    generation: int           # changes whenever device copies come or go
    present_lock: Any         # held while a copy leaves the table or an agent uses one
    transport: Any            # reflect ... acc's transport once made, else None

    def copy_holding(self, addr: int) -> Any:
        """The device copy whose host data hold the byte at ``addr``, None without one."""

    def device_transport(self) -> Any:
        """The transport of device buffers (made once, collectively, on first use)."""
