"""Pass overlap: which ``reflect ... acc`` can run while the next loop's interior computes.

A time loop written the plain way exchanges the halo, then sweeps:

    #pragma xmp reflect (u) acc
    #pragma xmp loop (i, j) on t[i][j] acc
    for (i = 1; i < N - 1; i++) for (j = 1; j < M - 1; j++)
      unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);

On GPUs the exchange's latency (about 12 µs with NCCL on one host) then adds to every
sweep.  Where the loop cannot see the difference, the gpu pass launches the iterations
that read no shadow slot first, while the exchange runs on a stream of its own, and the
rim behind the exchange on that stream (``kernel_ranges.overlapped``,
``include/xmpacc_replay.h``), as a user of ``reflect ... async`` with ``peel_and_wait``
would write it by hand (global-view §7).  Whether to split the loop is the runtime's
choice at each call: a block smaller than ``XMPACC_OVERLAP_BYTES`` (16 MiB) is exchanged
at once and its loop is one launch, since its interior takes less time than the exchange
and the two extra launches cost.
The loop cannot see the difference when

* the reflect is ``acc`` without ``async``, and directly after it the loop is
  ``loop ... acc`` or an XMP ``loop`` with a combined OpenACC construct (``parallel
  loop``, ``kernels loop``; either line first), with no reduction, ``expand``, ``margin``,
  ``peel_and_wait``, ``async``, ``wait`` or ``if``;
* the loop writes no reflected array, takes no address of one, and reads each only as
  ``a[i + c]...`` in every dimension aligned with a distributed (block or gblock)
  template dimension, ``i`` the index the loop maps to that dimension, ``c`` and the
  align offset constants, through the loop's own template;
* no reflected array is an aligned structure member (``c.v``: not analysed here);
* every subscript of the loop's on-ref is one of its indices, ``*`` or ``:``, so that
  every node that ran the reflect runs the loop and its join (``loop (j) on t[i][j]``
  runs on the owners of row i only: owner_guard).

The peel of a template dimension is how far those reads reach beyond the iteration's own
element (below, above): the interior is the node's block shrunk by it, the rim one launch
below and one above.  A loop that reads no shadow slot at all overlaps the whole exchange;
one that reads shadows along two or more dimensions (a 2-D process grid) does not
overlap, since its rim of four or more thin launches costs more host time than it hides.
The pass runs unless ``XMPACC_REFLECT_OVERLAP=0`` at compile time.  Nothing in the AST
changes: the decisions go to ``ctx.reflect_overlaps``.
"""

from __future__ import annotations

import os

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AccCompute
from xmpacc.passes.common import acc_nest
from xmpacc.passes.common.accesses import ADDRESS, accesses, affine, text_value
from xmpacc.passes.common.pragmas import directives_of
from xmpacc.passes.common.values import ReflectOverlap
from xmpacc.passes.locality.findings import STAR, LoopInfo, loop_info
from xmpacc.scoping import ScopedWalker
from xmpacc.symbols import ArraySym, ScopeTree

ENV = "XMPACC_REFLECT_OVERLAP"


class _Finder(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree)
        self.ctx = ctx

    def visit_Compound(self, node: c_ast.Compound) -> None:
        items = list(node.block_items or [])
        for i in range(len(items) - 2):
            found = self._overlap(items, i)
            if found is not None:
                self.ctx.reflect_overlaps[id(items[i])] = found
        self.generic_visit(node)

    def _overlap(self, items: list[c_ast.Node], i: int) -> ReflectOverlap | None:
        reflect = _one(directives_of(items[i], self.ctx), xd.Reflect)
        nest = acc_nest.nest_of_pragma(items, i + 1, self.ctx)
        if not isinstance(reflect, xd.Reflect) or nest is None or nest.pragmas[0] is not items[i + 1]:
            return None
        loop = nest.xmp
        if not reflect.acc or reflect.async_id is not None or loop is None or loop.reductions \
                or loop.expand is not None or loop.margin is not None or loop.peel_and_wait is not None \
                or nest.omp is not None or not _plain_construct(nest):
            return None
        info = loop_info(loop, nest.loop, self.scope)
        if info is None or not all(isinstance(s, (xd.Star, xd.Colon))
                                   or (isinstance(s, xd.LoopIndex) and s.name.name in info.indices)
                                   for s in loop.on.subs):
            return None   # loop (j) on t[i][j]: nodes without row i skip the loop, and its join
        peel = [[0, 0] for _ in loop.on.subs]
        for name in reflect.arrays:
            if "." in name.name or "->" in name.name:
                return None   # an aligned member (c.v, p->v): its uses are not counted here
            sym = self.scope.find_array(name.name)
            if sym is None or sym.template is not info.tmpl or not _reach(sym, nest.loop, info, peel, self):
                return None
        if sum(1 for lo, hi in peel if lo or hi) > 1:
            return None   # a rim of 2 x dims strips, each a launch: more host time than it hides
        return ReflectOverlap(id(items[i + 1]), tuple((lo, hi) for lo, hi in peel))


def _plain_construct(nest: acc_nest.AccNest) -> bool:
    """XMP-ACC's ``loop ... acc``, or XcalableACC's XMP ``loop`` with a combined construct
    (``parallel loop``, ``kernels loop``, either line first) without ``async``, ``if`` or a
    reduction at any level: launches whose only order is the program's."""
    if nest.acc is None:
        return nest.xmp is not None and nest.xmp.acc is not None
    c = nest.acc
    if not isinstance(c, AccCompute) or c.loop is None or c.async_ is not None or c.if_ is not None \
            or c.wait is not None or c.reductions or c.loop.reductions:
        return False
    return not any(inner.directive.loop.reductions for inner in nest.inner)


def _one(found: list[xd.Directive], kind: type) -> xd.Directive | None:
    return found[0] if len(found) == 1 and isinstance(found[0], kind) else None


def _reach(sym: ArraySym, nest: c_ast.For, info: LoopInfo, peel: list[list[int]], finder: _Finder) -> bool:
    """Widen ``peel`` by how far the loop's reads of ``sym`` reach; False when the loop
    could see the exchange (a write, an address, a subscript that is not ``i + c``)."""
    mine = [a for a in accesses(nest, finder.tree, finder.scope) if a.sym.c_name == sym.c_name]
    uses = sum(1 for n in walk(nest) if isinstance(n, c_ast.ID) and n.name == sym.name)
    if uses != len(mine) or any(a.writes or a.role == ADDRESS for a in mine):
        return False   # passed on, aliased or written: its halo must be there before the loop
    for k, dim in enumerate(sym.dims):
        kind = info.tmpl.dist_kind(dim.tdim) if dim.tdim >= 0 else "none"
        if kind == "none":
            if not dim.full_shadow and dim.shadow_lo == "0" and dim.shadow_hi == "0":
                continue
            return False   # a shadow along an undistributed dimension: periodic copies here
        governing, offset = info.governing.get(dim.tdim, (STAR, 0)), text_value(dim.offset)
        if kind not in ("block", "gblock") or governing[0] == STAR or offset is None or dim.full_shadow:
            return False
        for a in mine:
            sub = affine(a.subs[k])
            if sub is None or sub.var != governing[0]:
                return False
            reach = sub.const + offset - governing[1]   # from the iteration's own template element
            lo, hi = peel[dim.tdim]
            peel[dim.tdim] = [max(lo, -reach), max(hi, reach)]
    return True


def run(unit: Unit, ctx: Context) -> Unit:
    if os.environ.get(ENV, "1") != "0":
        assert ctx.scopes is not None
        _Finder(ctx.scopes, ctx).visit(unit.ast)
    return unit
