"""The node sets that an ``on``/``from`` reference denotes (global-view §6, reference §3).

A reference comes from generated C as ``{ndims, (kind, a, b, c)...}`` (contract.py's
REF_* kinds) together with a descriptor, which is a node array or a template:

    p[1:2]        nodes p[4]                 -> one set: ranks of p[1], p[2]
    p[*][0]       nodes p[2][2]              -> two sets, {p[0][0]} and {p[1][0]}; a node
                                                sees the one of its own first coordinate
    t(1:4)        t(1:8) block onto p(4)     -> the owners of t(1)..t(4): p(1), p(2)
    t[*][j]       t[block][block] onto p     -> one set per first node coordinate

Every node computes every set (they are disjoint), so that splitting a communicator for
them is decided alike everywhere; ``mine`` is the set this node sees ('*' = its own
coordinate), which it belongs to or not.  Sets keep element order (row-major over the
selected coordinates): that is the node numbering inside a task.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .contract import REF_FROM_START, REF_INDEX, REF_STAR, REF_TRIPLET, REF_TRIPLET_TO_END
from .distribution import owners
from .errors import RuntimeFailure

STAR = None   # an axis that is '*': every value separately


@dataclass(frozen=True, slots=True)
class NodeSets:
    sets: tuple[tuple[int, ...], ...]     # world ranks, disjoint
    mine: tuple[int, ...] | None          # the set this node sees (None: it sees none)

    def member(self, rank: int) -> bool:
        return self.mine is not None and rank in self.mine

    def split_args(self, rank: int) -> tuple[tuple[Any, ...], int | None, int]:
        """(cache key, color, order) for CommCache.split over any parent communicator."""
        if not self.member(rank):
            return ("sets", self.sets), None, 0
        assert self.mine is not None
        return ("sets", self.sets), self.sets.index(self.mine), self.mine.index(rank)


def decode(ref: list[int] | None) -> list[tuple[int, int, int, int]] | None:
    if ref is None:
        return None
    return [tuple(ref[1 + 4 * d: 5 + 4 * d]) for d in range(ref[0])]  # type: ignore[misc]


def _values(kind: int, a: int, b: int, c: int, lo: int, hi: int, what: str, where: str) -> list[int]:
    """The indices one subscript selects in ``lo..hi`` (a triplet's defaults are the bounds)."""
    if kind == REF_INDEX:
        values = [a]
    else:
        start = a if kind in (REF_TRIPLET, REF_TRIPLET_TO_END) else lo
        last = b if kind in (REF_TRIPLET, REF_FROM_START) else hi
        if c == 0:
            raise RuntimeFailure(where, f"{what} reference with step 0", collective=True)
        values = list(range(start, last + (1 if c > 0 else -1), c))
    bad = [v for v in values if not lo <= v <= hi]
    if bad:
        raise RuntimeFailure(where, f"{what} is out of bounds: index {bad[0]} (valid {lo}..{hi})",
                             collective=True)
    return values


def _sets(nodes: Any, axes: list[list[int] | None]) -> NodeSets:
    """One set per family of ``nodes`` and per value of the starred axes."""
    starred = [d for d, ax in enumerate(axes) if ax is STAR]
    my_coords, my_family = nodes.coords, nodes.family
    sets: list[tuple[int, ...]] = []
    mine = None
    for fam in nodes.all_families():
        for values in itertools.product(*(range(nodes.extents[d]) for d in starred)):
            fixed = dict(zip(starred, values, strict=True))
            grid = itertools.product(*([fixed[d]] if ax is STAR else ax for d, ax in enumerate(axes)))
            s = tuple(nodes.rank_of(tuple(c), fam) for c in grid)
            sets.append(s)
            if fam == my_family and my_coords is not None \
                    and all(my_coords[d] == v for d, v in fixed.items()):
                mine = s
    return NodeSets(tuple(sets), mine)


def node_sets(nodes: Any, ref: list[int] | None, where: str) -> NodeSets:
    """The sets a nodes reference denotes (0-based node indices; None: the whole array)."""
    subs = decode(ref)
    if subs is None:
        return _sets(nodes, [list(range(n)) for n in nodes.extents])
    if len(subs) != len(nodes.extents):
        raise RuntimeFailure(where, f"nodes '{nodes.name}' has {len(nodes.extents)} dimensions",
                             collective=True)
    axes: list[list[int] | None] = []
    for d, (kind, a, b, c) in enumerate(subs):
        what = f"node reference of dimension {d} of '{nodes.name}'"
        axes.append(STAR if kind == REF_STAR else
                    _values(kind, a, b, c, 0, nodes.extents[d] - 1, what, where))
    return _sets(nodes, axes)


def template_node_sets(tmpl: Any, ref: list[int] | None, where: str) -> NodeSets:
    """The sets of nodes onto which the referenced template elements are distributed."""
    nodes = tmpl.nodes
    if nodes is None:
        raise RuntimeFailure(where, f"template '{tmpl.name}' is not distributed yet", collective=True)
    subs = decode(ref)
    axes: list[list[int] | None] = [list(range(n)) for n in nodes.extents]
    for t, dist in enumerate(tmpl.dims):
        if subs is None:
            continue
        kind, a, b, c = subs[t]
        nd = tmpl.node_dims[t]
        if kind == REF_STAR:
            if nd >= 0:
                axes[nd] = STAR
            continue
        what = f"template reference of dimension {t} of '{tmpl.name}'"
        values = np.array(_values(kind, a, b, c, dist.lower, dist.upper, what, where), dtype=np.int64)
        if nd >= 0:
            axes[nd] = sorted({int(k) for k in owners(dist, values)})
    return _sets(nodes, axes)

