"""Node arrays (``nodes p[2][2]``) over MPI processes, and the node sets derived from them.

Node ``p[i0][i1]...`` is the process of rank ``(i0*P1 + i1)*P2 + ...`` (row-major, C
order; reference §3).  Sub-communicators (a line of nodes for reflect, a reduction set, a
task's node set) are split once and cached in ``CommCache``, keyed so that every process
of the parent takes the same decision to split or to reuse.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import RuntimeFailure


@dataclass
class CommCache:
    """Split communicators, by (parent handle, key)."""

    comms: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    # the executing nodes' communicator (the runtime sets it): node-array sub-communicators
    # are split over it, as inside a task only the task's nodes get there
    executing: Callable[[], Any] | None = None

    def split(self, parent: Any, key: tuple[Any, ...], color: int | None, order: int) -> Any:
        """Collective over ``parent`` the first time a key is seen; ``None`` for non-members."""
        from mpi4py import MPI

        full = (parent.py2f(),) + key
        if full not in self.comms:
            self.comms[full] = parent.Split(MPI.UNDEFINED if color is None else color, order)
        comm = self.comms[full]
        return None if comm == MPI.COMM_NULL else comm


@dataclass
class Nodes:
    """A node array: the entire node set, or a subset of another one (global-view §6).

    ``families`` lists the world ranks of the nodes in element order (row-major).  A node
    array declared over the whole job has one family, ``0 .. size-1``; a subset
    ``nodes q[2] = p[0:2]`` has the ranks of ``p[0]``, ``p[1]``; a subset whose reference
    has a ``*`` (``nodes q[*] = p[*][:]``) is a different node array on each value of the
    starred coordinate, so it has one family per value and each node uses the one it is
    in.  A node in none of them is not a member (``coords`` is None).
    """

    name: str
    extents: tuple[int, ...]
    comm: Any            # the world communicator
    rank: int            # this process's world rank
    families: tuple[tuple[int, ...], ...] | None = None   # None: the entire node set

    def __post_init__(self) -> None:
        # computed once: reductions and reflects ask for them at every call
        self._all = self.families or (tuple(range(math.prod(self.extents))),)
        self._family = next((f for f in self._all if self.rank in f), None)
        self._coords = None if self._family is None else \
            tuple(int(c) for c in np.unravel_index(self._family.index(self.rank), self.extents))
        self._key = hash(self._all)

    def all_families(self) -> tuple[tuple[int, ...], ...]:
        return self._all

    @property
    def family(self) -> tuple[int, ...] | None:
        """The world ranks of my node array (None when I am in none of its families)."""
        return self._family

    @property
    def is_member(self) -> bool:
        return self._family is not None

    @property
    def coords(self) -> tuple[int, ...] | None:
        return self._coords

    def rank_of(self, coords: tuple[int, ...], family: tuple[int, ...] | None = None) -> int:
        """World rank of the node at ``coords`` (in my family unless one is given)."""
        fam = family if family is not None else (self.family or self.all_families()[0])
        return fam[int(np.ravel_multi_index(coords, self.extents))]

    def line_key(self, keep: frozenset[int]) -> tuple[int, int] | None:
        """(color, order) that groups the nodes differing only in the dimensions ``keep``;
        None for a node that is not a member."""
        c, fam = self.coords, self.family
        if c is None or fam is None:
            return None
        other = tuple(c[d] for d in range(len(c)) if d not in keep)
        other_ext = tuple(self.extents[d] for d in range(len(c)) if d not in keep)
        color = int(np.ravel_multi_index(other, other_ext)) if other else 0
        color += math.prod(other_ext) * self.all_families().index(fam)
        order = int(np.ravel_multi_index(tuple(c[d] for d in sorted(keep)),
                                         tuple(self.extents[d] for d in sorted(keep)))) if keep else 0
        return color, order

    def sub_comm(self, cache: CommCache, keep: frozenset[int]) -> Any:
        """The nodes that share my coordinates outside ``keep`` (rank = position inside);
        None on a node that is not a member."""
        key = self.line_key(keep)
        parent = self.comm if cache.executing is None else cache.executing()
        return cache.split(parent, ("line", self._key, self.extents, tuple(sorted(keep))),
                           None if key is None else key[0], 0 if key is None else key[1])

    def select(self, ref: list[int] | None, where: str) -> list[int]:
        """World ranks of the nodes a reference denotes, as this node sees it ('*' = mine)."""
        from .nodesets import node_sets

        mine = node_sets(self, ref, where).mine
        return sorted(mine) if mine is not None else []


def resolve_extents(name: str, extents: list[int], nprocs: int, where: str,
                    subset: bool = False) -> tuple[int, ...]:
    """Fill a '*' extent and check that the node array matches the number of processes
    (or, for a subset, the number of nodes it maps onto)."""
    stars = [d for d, e in enumerate(extents) if e == -1]
    if any(e == 0 or e < -1 for e in extents):
        raise RuntimeFailure(where, f"nodes '{name}' has an extent <= 0", collective=True)
    fixed = math.prod(e for e in extents if e != -1)
    if subset and (nprocs % fixed if stars else fixed != nprocs):
        raise RuntimeFailure(where, f"nodes '{name}' has {'a multiple of ' if stars else ''}{fixed} "
                                    f"node(s), but the node set it maps onto has {nprocs}", collective=True)
    if stars:
        if nprocs % fixed != 0:
            raise RuntimeFailure(where, f"nodes '{name}' needs a multiple of {fixed} processes, but the "
                                        f"job has {nprocs} (mpirun -np {nprocs})", collective=True)
        extents = [nprocs // fixed if e == -1 else e for e in extents]
    elif fixed != nprocs:
        # no shape in the message: the runtime only knows C order, which is not how a
        # parenthesised declaration such as p(2,3) reads
        raise RuntimeFailure(where, f"nodes '{name}' has {fixed} nodes, but the job has {nprocs} "
                                    f"process{'es' if nprocs != 1 else ''}; run it with mpirun -np "
                                    f"{fixed}", collective=True)
    return tuple(extents)
