"""Distribution index arithmetic (reference §4.7, §5, §6.1) in Python.

The twin of include/xmpacc_dist.h and the oracle its property tests compare against.  The
runtime uses it to fill the ``_xmpacc_tdim_t`` / ``_xmpacc_adim_t`` descriptors.

Vocabulary: ``g``/``glb`` is a template (or array) index as written in the source, ``pos``
the position of an owned template index among its owner's owned indices (0, 1, ...),
``loc`` an index into a local buffer; ``k`` is a node coordinate along the node dimension a
template dimension is distributed onto (0-based).

Pure Python: no mpi4py, CuPy, pycparser or Jinja2 here.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from .cstructs import DIST_BLOCK, DIST_CYCLIC, DIST_GBLOCK, DIST_NONE

KINDS: tuple[str, ...] = ("none", "block", "cyclic", "gblock")
_C_KIND = {"none": DIST_NONE, "block": DIST_BLOCK, "cyclic": DIST_CYCLIC,
           "gblock": DIST_GBLOCK}


OUTSIDE = -1   # the node coordinate of a node outside the node array (ArrayDimLayout)


class DistributionError(ValueError):
    """A distribution or array layout that cannot exist (bad bounds, sizes, shadows...)."""


def _clamp(x: int, lo: int, hi: int) -> int:
    return max(lo, min(x, hi))


@dataclass(frozen=True, slots=True)
class DimDistribution:
    """One template dimension ``lower..upper`` (inclusive) distributed over ``nprocs`` nodes.

    ``kind`` is 'none' ('*': nprocs must be 1, the single node owns everything), 'block'
    (``bsize`` = n of ``block(n)``, 0 for plain block), 'cyclic' (``width`` = w; 1 is plain
    cyclic) or 'gblock' (``gblock`` = W, one size per node).  ``width``, ``bsize`` and
    ``gblock`` are only allowed with their kinds.
    """

    kind: str
    lower: int
    upper: int
    nprocs: int
    width: int = 1
    gblock: tuple[int, ...] = ()
    bsize: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "gblock", tuple(self.gblock))
        for problem in self._problems():
            raise DistributionError(problem)

    def _problems(self) -> list[str]:
        """Every reason this distribution is invalid (empty when it is valid)."""
        out: list[str] = []
        if self.kind not in KINDS:
            out.append(f"unknown distribution kind {self.kind!r} (expected one of {KINDS})")
        if self.lower > self.upper:
            out.append(f"template lower bound {self.lower} > upper bound {self.upper}")
        if self.nprocs < 1:
            out.append(f"node extent must be >= 1, got {self.nprocs}")
        if self.kind == "none" and self.nprocs != 1:
            out.append(f"a '*' dimension is not distributed: nprocs must be 1, "
                       f"got {self.nprocs}")
        if self.kind == "cyclic" and self.width < 1:
            out.append(f"cyclic width must be >= 1, got {self.width}")
        if self.kind != "cyclic" and self.width != 1:
            out.append(f"width {self.width} given for a {self.kind} dimension "
                       f"(only cyclic(w) takes one)")
        out.extend(self._gblock_problems())
        if self.bsize and self.kind != "block":
            out.append(f"block size {self.bsize} given for a {self.kind} dimension")
        elif self.bsize < 0 or (self.bsize and self.extent > self.bsize * self.nprocs):
            # reference decision 6: follow the specification, no overflow to the last node
            out.append(f"block({self.bsize}) on {self.nprocs} node(s) holds at most "
                       f"{max(self.bsize, 0) * self.nprocs} indices but the template extent is "
                       f"{self.extent}")
        return out

    def _gblock_problems(self) -> list[str]:
        if self.kind != "gblock":
            return [f"gblock sizes given for a {self.kind} dimension"] if self.gblock else []
        out: list[str] = []
        if len(self.gblock) != self.nprocs:
            out.append(f"gblock has {len(self.gblock)} sizes for {self.nprocs} nodes")
        if any(w < 0 for w in self.gblock):
            out.append(f"gblock sizes must be >= 0, got {list(self.gblock)}")
        if sum(self.gblock) != self.extent:
            out.append(f"gblock sizes sum to {sum(self.gblock)} but the template extent "
                       f"is {self.extent}")
        return out

    # ---- shape ----

    @property
    def extent(self) -> int:
        """N = upper - lower + 1."""
        return self.upper - self.lower + 1

    @property
    def block_size(self) -> int:
        """block: B = ceil(N / P) (``block(n)``: n); the first nodes get B each, trailing
        ones may get 0."""
        return self.bsize or -(-self.extent // self.nprocs)

    def _gblock_starts(self) -> tuple[int, ...]:
        """S_k = W[0] + ... + W[k-1] for k = 0..P-1."""
        return tuple(accumulate(self.gblock[:-1], initial=0))

    def _check_coord(self, k: int) -> None:
        if not 0 <= k < self.nprocs:
            raise DistributionError(f"node coordinate {k} outside 0..{self.nprocs - 1}")

    def _check_index(self, g: int) -> None:
        if not self.lower <= g <= self.upper:
            raise DistributionError(f"template index {g} outside {self.lower}..{self.upper}")

    # ---- the §5 table ----

    def owner(self, g: int) -> int:
        """Coordinate of the node owning template index g (0 for 'none')."""
        self._check_index(g)
        r = g - self.lower
        if self.kind == "block":
            return r // self.block_size
        if self.kind == "cyclic":
            return (r // self.width) % self.nprocs
        if self.kind == "gblock":
            # the last k with S_k <= r: it skips nodes of size 0, whose S_k repeats
            return bisect_right(self._gblock_starts(), r) - 1
        return 0

    def pos(self, g: int) -> int:
        """Position of g among its owner's owned indices."""
        k, r = self.owner(g), g - self.lower
        if self.kind == "block":
            return r - k * self.block_size
        if self.kind == "cyclic":
            w = self.width
            return w * (r // (w * self.nprocs)) + r % w
        if self.kind == "gblock":
            return r - self._gblock_starts()[k]
        return r

    def glb(self, k: int, pos: int) -> int:
        """Template index at position ``pos`` of node k (inverse of ``pos``)."""
        if not 0 <= pos < self.owned_count(k):
            raise DistributionError(f"position {pos} outside node {k}'s "
                                    f"{self.owned_count(k)} owned indices")
        if self.kind == "cyclic":
            w = self.width
            return self.lower + (pos // w) * w * self.nprocs + k * w + pos % w
        return self.owned_first(k) + pos

    def owned_count(self, k: int) -> int:
        """Number of template indices node k owns."""
        self._check_coord(k)
        if self.kind == "block":
            return _clamp(self.extent - k * self.block_size, 0, self.block_size)
        if self.kind == "gblock":
            return self.gblock[k]
        if self.kind == "none":
            return self.extent
        w, n_blocks = self.width, -(-self.extent // self.width)
        if k >= n_blocks:
            return 0
        mine = (n_blocks - 1 - k) // self.nprocs + 1
        # the last block may be short; it is k's if its number is == k (mod P)
        short = n_blocks * w - self.extent if (n_blocks - 1) % self.nprocs == k else 0
        return mine * w - short

    def owned_first(self, k: int) -> int:
        """Template index at position 0 of node k.

        For a node owning nothing this is still the table's ``glb(k, 0)`` formula
        (block: L + k*B, which may lie past U; gblock: L + S_k; cyclic: L + k*w), so that
        ``pos = g - owned_first`` and ``count_below`` need no special case.
        """
        self._check_coord(k)
        if self.kind == "block":
            return self.lower + k * self.block_size
        if self.kind == "gblock":
            return self.lower + self._gblock_starts()[k]
        if self.kind == "cyclic":
            return self.lower + k * self.width
        return self.lower

    def count_below(self, k: int, g: int) -> int:
        """Number of template indices node k owns that are < g (any integer g)."""
        if self.kind != "cyclic":
            return _clamp(g - self.owned_first(k), 0, self.owned_count(k))
        self._check_coord(k)
        r = _clamp(g, self.lower, self.upper + 1) - self.lower
        w, period = self.width, self.width * self.nprocs
        return (r // period) * w + _clamp(r % period - k * w, 0, w)

    def owned_indices(self, k: int) -> list[int]:
        """Node k's owned template indices, increasing (position order)."""
        return [self.glb(k, p) for p in range(self.owned_count(k))]

    def owns(self, k: int, g: int) -> bool:
        """Whether node k owns g (False outside the template)."""
        return self.lower <= g <= self.upper and self.owner(g) == k

    def schedule(self, k: int, init: int, last: int, step: int) -> list[int]:
        """Node k's iterations of ``for (g = init; step > 0 ? g <= last : g >= last;
        g += step)``, in source order: the reference semantics (§6.1) by brute force."""
        self._check_coord(k)
        if step == 0:
            raise DistributionError("loop step must not be 0")
        stop = last + 1 if step > 0 else last - 1
        return [g for g in range(init, stop, step) if self.owns(k, g)]

    def tdim_fields(self, k: int) -> dict[str, int]:
        """Every field of ``_xmpacc_tdim_t`` for node coordinate k except ``node_dim``
        (the caller's: -1 for 'none').  width: block B, cyclic w, none N, gblock 0."""
        width = {"block": self.block_size, "cyclic": self.width, "none": self.extent,
                 "gblock": 0}[self.kind]
        return {"kind": _C_KIND[self.kind], "lower": self.lower, "upper": self.upper,
                "width": width, "nprocs": self.nprocs, "coord": k,
                "owned_first": self.owned_first(k), "owned_count": self.owned_count(k)}


@dataclass(frozen=True, slots=True)
class ArrayDimLayout:
    """One dimension of an aligned array's local buffer on node ``coord`` (reference §4.7).

    ``dist`` is the template dimension it is aligned with (None: collapsed ``*`` source),
    ``extent`` the declared extent, ``offset`` the align offset c (array index i sits on
    template index i + c), ``shadow_lo``/``shadow_hi`` or ``full_shadow`` the shadow.

    Decisions: a node owning no element of a block/gblock dimension gets no buffer at all
    (lext = 0, shadows included: reflect only exchanges among owning nodes); a cyclic buffer
    is indexed by template position, so lext = position of the last owned element + 1.
    ``coord`` = OUTSIDE (-1): a node that is not in the node array the template is
    distributed onto (a node subset, global-view §6); it owns and holds nothing.
    """

    dist: DimDistribution | None
    extent: int
    offset: int = 0
    shadow_lo: int = 0
    shadow_hi: int = 0
    full_shadow: bool = False
    coord: int = 0

    def __post_init__(self) -> None:
        for problem in self._problems():
            raise DistributionError(problem)

    def _problems(self) -> list[str]:
        """Every reason this layout is invalid (empty when it is valid)."""
        out: list[str] = []
        if self.extent < 1:
            out.append(f"array extent must be >= 1, got {self.extent}")
        if self.shadow_lo < 0 or self.shadow_hi < 0:
            out.append(f"shadow widths must be >= 0, got {self.shadow_lo}:{self.shadow_hi}")
        has_shadow = self.full_shadow or self.shadow_lo != 0 or self.shadow_hi != 0
        if self.full_shadow and (self.shadow_lo or self.shadow_hi):
            out.append("a full shadow takes no lo:hi widths")
        if self.dist is None:
            if self.offset != 0:
                out.append(f"a collapsed dimension has no align offset, got {self.offset}")
            if has_shadow:
                out.append("shadow on a collapsed dimension (it is not distributed)")
            return out
        d = self.dist
        if not 0 <= self.coord < d.nprocs and self.coord != OUTSIDE:
            out.append(f"node coordinate {self.coord} outside 0..{d.nprocs - 1}")
        if has_shadow and (d.kind == "none" or (d.kind == "cyclic" and not self.full_shadow)):
            out.append(f"shadow on a {d.kind} dimension (only block and gblock take one; cyclic "
                       "takes a full shadow)")
        if self.offset < d.lower or self.offset + self.extent - 1 > d.upper:
            out.append(f"aligned array is out of template bound: indices 0..{self.extent - 1}"
                       f" + {self.offset} outside {d.lower}..{d.upper}")
        return out

    @property
    def _outside(self) -> bool:
        return self.dist is not None and self.coord == OUTSIDE

    @property
    def _whole(self) -> bool:
        """The buffer holds the whole extent, indexed by glb."""
        return self.dist is None or self.dist.kind == "none" or self.full_shadow

    @property
    def kind(self) -> int:
        """_XMPACC_DIST_* used to index this dimension (NONE when the buffer is whole)."""
        return DIST_NONE if self._whole else _C_KIND[self.dist.kind]

    def _cyclic_span(self) -> tuple[int, int]:
        """Cyclic: node positions [lo, hi) of the owned template indices c..c+extent-1."""
        k, c = self.coord, self.offset
        return self.dist.count_below(k, c), self.dist.count_below(k, c + self.extent)

    @property
    def owned_count(self) -> int:
        """Number of array indices i in [0, extent) with i + c owned by this node."""
        if self._outside:
            return 0
        if self.dist is None or self.dist.kind == "none":
            return self.extent
        if self.dist.kind == "cyclic":
            lo, hi = self._cyclic_span()
            return hi - lo
        end = self.dist.owned_first(self.coord) + self.dist.owned_count(self.coord)
        return _clamp(end - self.offset, 0, self.extent) - self.owned_first

    @property
    def owned_first(self) -> int:
        """First owned array index.  With none owned: block/gblock, the owned template
        range's start clamped to [0, extent]; cyclic, extent."""
        if self._outside:
            return self.extent
        if self.dist is None or self.dist.kind == "none":
            return 0
        if self.dist.kind == "cyclic":
            lo, hi = self._cyclic_span()
            return self.dist.glb(self.coord, lo) - self.offset if hi > lo else self.extent
        return _clamp(self.dist.owned_first(self.coord) - self.offset, 0, self.extent)

    @property
    def lext(self) -> int:
        """Allocated local extent."""
        if self._outside:
            return 0
        if self._whole:
            return self.extent
        if self.dist.kind == "cyclic":
            return self._cyclic_span()[1] if self.owned_count else 0
        if self.owned_count == 0:
            return 0
        return self.shadow_lo + self.owned_count + self.shadow_hi

    @property
    def gtol(self) -> int:
        """loc = glb - gtol for NONE/block/gblock indexing; 0 when unused (whole, cyclic).
        Always owned_first - shadow_lo for block/gblock, even with nothing owned."""
        if self._outside:
            return 0
        if self._whole or self.dist.kind == "cyclic":
            return 0
        return self.owned_first - self.shadow_lo

    def owned_indices(self) -> list[int]:
        """This node's owned array indices, increasing."""
        if self._outside:
            return []
        if self.dist is not None and self.dist.kind == "cyclic":
            lo, hi = self._cyclic_span()
            return [self.dist.glb(self.coord, p) - self.offset for p in range(lo, hi)]
        return list(range(self.owned_first, self.owned_first + self.owned_count))

    def adim_fields(self) -> dict[str, int]:
        """Every field of ``_xmpacc_adim_t`` except ``tdim`` (the caller's: -1 when
        collapsed) and ``check`` (set by checked runs)."""
        return {"kind": self.kind, "extent": self.extent, "offset": self.offset,
                "shadow_lo": self.shadow_lo, "shadow_hi": self.shadow_hi,
                "full_shadow": int(self.full_shadow), "lext": self.lext, "gtol": self.gtol,
                "owned_first": self.owned_first, "owned_count": self.owned_count}


def local_index(layout: ArrayDimLayout, glb: int) -> int:
    """Local buffer index of array index ``glb`` per the §4.7 table: the oracle of
    ``_xmpacc_loc*``.  Raises DistributionError when the buffer does not hold ``glb``
    (neither owned nor in a shadow slot)."""
    if not 0 <= glb < layout.extent:
        raise DistributionError(f"array index {glb} outside 0..{layout.extent - 1}")
    if layout.kind == DIST_NONE:
        return glb
    d, k, g = layout.dist, layout.coord, glb + layout.offset
    if layout.kind == DIST_CYCLIC:
        if not d.owns(k, g):
            raise DistributionError(f"array index {glb} is not owned by node {k}")
        return d.pos(g)
    first, count = layout.owned_first, layout.owned_count
    if count == 0 or not first - layout.shadow_lo <= glb < first + count + layout.shadow_hi:
        raise DistributionError(f"array index {glb} is neither owned by node {k} nor in "
                                f"its shadow")
    return layout.shadow_lo + (glb - first)


# ---------------------------------------------------------------- vectorised (numpy) forms
# The same formulas over arrays of indices, for plans that touch many elements at once
# (gmove, runtime/gmove_plan.py).  tests/test_distribution.py compares them with the
# scalar methods above.


def owners(d: DimDistribution, g: np.ndarray) -> np.ndarray:
    """Owner coordinates of template indices ``g`` (inside the template)."""
    r = np.asarray(g, dtype=np.int64) - d.lower
    if d.kind == "block":
        return r // d.block_size
    if d.kind == "cyclic":
        return (r // d.width) % d.nprocs
    if d.kind == "gblock":
        return np.searchsorted(np.asarray(d._gblock_starts(), dtype=np.int64), r, side="right") - 1
    return np.zeros_like(r)


def positions(d: DimDistribution, g: np.ndarray) -> np.ndarray:
    """Positions of template indices ``g`` among their owners' owned indices."""
    r = np.asarray(g, dtype=np.int64) - d.lower
    if d.kind == "block":
        return r % d.block_size
    if d.kind == "cyclic":
        w = d.width
        return w * (r // (w * d.nprocs)) + r % w
    if d.kind == "gblock":
        starts = np.asarray(d._gblock_starts(), dtype=np.int64)
        return r - starts[owners(d, g)]
    return r


def owned_array_indices(layout: ArrayDimLayout) -> np.ndarray:
    """``layout.owned_indices()`` as an int64 array, without a Python loop."""
    if layout.dist is not None and layout.dist.kind == "cyclic":
        d, k = layout.dist, layout.coord
        lo, hi = layout._cyclic_span()
        p = np.arange(lo, hi, dtype=np.int64)
        w = d.width
        return d.lower + (p // w) * w * d.nprocs + k * w + p % w - layout.offset
    first = layout.owned_first
    return np.arange(first, first + layout.owned_count, dtype=np.int64)
