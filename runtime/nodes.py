"""Node arrays (``nodes p[2][2]``) over MPI processes, and the node sets derived from them.

Node ``p[i0][i1]...`` is the process of rank ``(i0*P1 + i1)*P2 + ...`` (row-major, C
order; reference §3).  Sub-communicators (a line of nodes for reflect, a reduction set, a
task's node set) are split once and cached in ``CommCache``, keyed so that every process
of the parent takes the same decision to split or to reuse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .contract import REF_INDEX, REF_STAR, REF_TRIPLET, REF_TRIPLET_TO_END
from .errors import RuntimeFailure


@dataclass
class CommCache:
    """Split communicators, by (parent handle, key)."""

    comms: dict[tuple[Any, ...], Any] = field(default_factory=dict)

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
    """A node array covering the entire node set."""

    name: str
    extents: tuple[int, ...]
    comm: Any            # the world communicator: node linear index == world rank
    rank: int

    @property
    def coords(self) -> tuple[int, ...]:
        return tuple(int(c) for c in np.unravel_index(self.rank, self.extents))

    def rank_of(self, coords: tuple[int, ...]) -> int:
        return int(np.ravel_multi_index(coords, self.extents))

    def line_key(self, keep: frozenset[int]) -> tuple[int, int]:
        """(color, order) that groups the nodes differing only in the dimensions ``keep``."""
        c = self.coords
        other = tuple(c[d] for d in range(len(c)) if d not in keep)
        other_ext = tuple(self.extents[d] for d in range(len(c)) if d not in keep)
        color = int(np.ravel_multi_index(other, other_ext)) if other else 0
        order = int(np.ravel_multi_index(tuple(c[d] for d in sorted(keep)),
                                         tuple(self.extents[d] for d in sorted(keep)))) if keep else 0
        return color, order

    def sub_comm(self, cache: CommCache, keep: frozenset[int]) -> Any:
        """The nodes that share my coordinates outside ``keep`` (rank = position inside)."""
        color, order = self.line_key(keep)
        return cache.split(self.comm, ("line", self.extents, tuple(sorted(keep))), color, order)

    def select(self, ref: list[int] | None, where: str) -> list[int]:
        """World ranks of the nodes a reference denotes, as this node sees it ('*' = mine)."""
        if ref is None:
            return list(range(math.prod(self.extents)))
        ndims, subs = ref[0], ref[1:]
        if ndims != len(self.extents):
            raise RuntimeFailure(where, f"nodes '{self.name}' has {len(self.extents)} dimensions")
        axes = []
        for d in range(ndims):
            kind, a, b, c = subs[4 * d: 4 * d + 4]
            axes.append(self._axis(d, kind, a, b, c, where))
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, ndims)
        return sorted(self.rank_of(tuple(int(x) for x in row)) for row in grid)

    def _axis(self, d: int, kind: int, a: int, b: int, c: int, where: str) -> list[int]:
        n = self.extents[d]
        if kind == REF_STAR:
            return [self.coords[d]]
        if kind == REF_INDEX:
            values = [a]
        elif kind in (REF_TRIPLET, REF_TRIPLET_TO_END):
            last = n - 1 if kind == REF_TRIPLET_TO_END else b
            if c == 0:
                raise RuntimeFailure(where, "node reference with step 0", collective=True)
            values = list(range(a, last + (1 if c > 0 else -1), c))
        else:
            raise RuntimeFailure(where, f"bad node reference kind {kind}")
        bad = [v for v in values if not 0 <= v < n]
        if bad:
            raise RuntimeFailure(where, f"node reference is out of bounds: index {bad[0]} of "
                                        f"dimension {d} of '{self.name}' (valid 0..{n - 1})",
                                 collective=True)
        return values


def resolve_extents(name: str, extents: list[int], nprocs: int, where: str) -> tuple[int, ...]:
    """Fill a '*' extent and check that the node array matches the number of processes."""
    stars = [d for d, e in enumerate(extents) if e == -1]
    if any(e == 0 or e < -1 for e in extents):
        raise RuntimeFailure(where, f"nodes '{name}' has an extent <= 0", collective=True)
    fixed = math.prod(e for e in extents if e != -1)
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
