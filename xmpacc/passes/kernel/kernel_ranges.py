"""The host side of a kernel's launch: this node's schedule of each loop of the thread space,
and the launches over parts of the range that ``margin`` and ``peel_and_wait`` ask for
(global-view §7), for ``loop ... acc`` (gpu.py) and OpenACC nests (acc_loopnest.py).

The kernel is the same for every part: only the schedules it gets by value change, so
a ``margin`` loop is one launch per cell of the rim and ``peel_and_wait`` two passes:

    #pragma xmp loop on t[i] margin(1,1) acc      for (int _xmpacc_cell = 0; _xmpacc_cell < 3;
    for (i = 0; i < N; i++) ...                          _xmpacc_cell++) {
                                                    _xmpacc_range_t _xmpacc_r_i = _xmpacc_range(...);
                                                    _xmpacc_sched_t _xmpacc_s_i = _xmpacc_range_sched(
                                                        &_xmpacc_r_i, (_xmpacc_cell / 1) % 3, ...);
                                                    if (!(<the cell is in the rim>)) continue;
                                                    <the launch> }

``peel_and_wait(id, w)``: the interior (``expand(-w)``), ``wait_async(id)``, then the rim
(``margin(-w)``), as the host loop of loops.py does it.  A loop after a ``reflect ... acc``
that it overlaps (passes/locality/overlap.py) is launched the same way, the join of the
exchange in place of the wait (``overlapped``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from xmpacc import cbuild
from xmpacc.directives import ast as xd
from xmpacc.directives.exprs import negate
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.common.loopsched import (
    DimSched,
    cell_digits,
    dim_widths,
    is_block_cyclic,
    margin_guard,
    sched_text,
)
from xmpacc.passes.common.onrefs import loop_offsets
from xmpacc.passes.common.shadows import OverlapCalls
from xmpacc.symbols import TemplateSym

CELL = "_xmpacc_cell"


@dataclass(frozen=True)
class SchedPass:
    """One pass of launches of a kernel over a part of its loops' range."""

    scheds: str          # host C declaring _xmpacc_s_<var> of every loop
    cells: int = 0       # margin: one launch per cell 0..cells-1 of _xmpacc_cell where guard holds
    guard: str = ""
    before: str = ""     # host C before the pass (peel_and_wait: the wait_async)
    after: str = ""      # host C after it (an overlapped reflect's join)

    def text(self, launch: str) -> str:
        """Host C of the pass around ``launch`` (the launch text of kernels.py)."""
        if not self.cells:
            return f"{self.before}{{{self.scheds}{launch}}}{self.after}"
        return (f"{self.before}for (int {CELL} = 0; {CELL} < {self.cells}; {CELL}++) {{"
                f"{self.scheds}if (!({self.guard})) continue;{launch}}}{self.after}")


def host_text(passes: tuple[SchedPass, ...], launch: str) -> str:
    """The host C of a kernel's launches: the schedules and ``launch`` once, or each pass."""
    if one_launch(passes):
        return passes[0].scheds + launch
    return "".join(p.text(launch) for p in passes)


def one_launch(passes: tuple[SchedPass, ...]) -> bool:
    """A single launch over the whole schedule (no margin, no peel_and_wait)."""
    return len(passes) == 1 and not passes[0].cells and not passes[0].before and not passes[0].after


def scheds(loops: list[CanonicalLoop], xmp: xd.Loop | None, tmpl: TemplateSym | None,
           indices: dict[str, int], cells: dict[str, str] | None = None) -> str:
    """Host C declaring ``_xmpacc_s_<var>`` of every loop: this node's schedule of a loop
    the XMP ``loop`` distributes (``cells``: a margin dimension's segment), the whole range
    of the others."""
    text = ""
    if xmp is not None and tmpl is not None:
        mode, widths = dim_widths(xmp, tmpl)
        offsets = loop_offsets(xmp)
    for lp in loops:
        if lp.var in indices and xmp is not None and tmpl is not None:
            t = indices[lp.var]
            text += sched_text(DimSched(lp.var, t, offsets.get(lp.var), mode, widths.get(t),
                                        (cells or {}).get(lp.var), by_position=is_block_cyclic(tmpl, t)),
                               lp, f"&{tmpl.c_name}.dim[{t}]", kernel=True)
        else:
            text += f"_xmpacc_sched_t _xmpacc_s_{lp.var} = _xmpacc_range_k({lp.init}, {lp.last}, {lp.step});"
    return text


def passes(loops: list[CanonicalLoop], xmp: xd.Loop | None, tmpl: TemplateSym | None,
           indices: dict[str, int]) -> tuple[SchedPass, ...]:
    """The launches of a kernel over its nest: one over the schedules, or the passes of an
    XMP ``loop`` with ``margin`` or ``peel_and_wait``."""
    if xmp is None or tmpl is None:
        return (SchedPass(scheds(loops, xmp, tmpl, indices)),)
    peel = xmp.peel_and_wait
    if peel is not None:
        shrink = tuple(xd.LoopWidth(xd.Expr(negate(w.lower.text), w.lower.loc),
                                    xd.Expr(negate(w.upper.text), w.upper.loc), w.unbound)
                       for w in peel.widths)
        wait = (f"_xmpacc_wait_async({cbuild.where_literal(xmp.loc)}, 1, "
                f"(const long long []){{({peel.async_id.text})}}, 0, 0);")
        return _peeled(loops, dataclasses.replace(xmp, peel_and_wait=None), tmpl, indices, shrink, wait)
    if xmp.margin is not None:
        return (_margin(loops, xmp, tmpl, indices),)
    return (SchedPass(scheds(loops, xmp, tmpl, indices)),)


def overlapped(loops: list[CanonicalLoop], xmp: xd.Loop, tmpl: TemplateSym, indices: dict[str, int],
               peel: tuple[tuple[int, int], ...], calls: OverlapCalls) -> tuple[SchedPass, ...]:
    """The launches of a loop that overlaps the exchange of the reflect before it: while
    the exchange is in flight (``calls.split``: the runtime exchanges a small block at once,
    where the overlap would cost more than it hides), the iterations whose reads stay in
    the block (shrunk by ``peel``, below and above, per on-ref subscript), then the rim
    behind the exchange, then the join; else one launch over the whole range.  A loop that
    reads no shadow slot is one launch before the join."""
    whole = scheds(loops, xmp, tmpl, indices)
    if not any(lo or hi for lo, hi in peel):
        return (SchedPass(whole, after=calls.join),)
    shrink = tuple(xd.LoopWidth(xd.Expr(str(-lo), xmp.loc), xd.Expr(str(-hi), xmp.loc), False)
                   for lo, hi in peel)
    interior, rim = _peeled(loops, xmp, tmpl, indices, shrink, calls.rim)
    push = push_of(loops, xmp, indices, peel, calls)
    if push is not None:   # the whole launch may make the exchange itself
        whole += _push_interior(loops, xmp, tmpl, indices, shrink, push)
    # the passes' texts follow each other: the braces of the if and its else span them
    return (dataclasses.replace(interior, before=f"if ({calls.split}) {{"),
            dataclasses.replace(rim, after=calls.join + "}"),
            SchedPass(whole, before="else ", after=""))


@dataclass(frozen=True)
class KernelPush:
    """An overlapped loop whose kernel may make the reflect's exchange itself
    (include/xmpacc_push.h): the site's variable, and the loop over the rim's dimension."""

    name: str
    var: str


def push_of(loops: list[CanonicalLoop], xmp: xd.Loop, indices: dict[str, int],
            peel: tuple[tuple[int, int], ...], calls: OverlapCalls) -> KernelPush | None:
    """Where the kernel can wait by its grid's block rows (kernels.add_push): a nest of one
    or two loops whose outermost walks the rim's dimension.  Deeper nests keep the
    exchange stream: their blocks would all wait, which no measurement has priced."""
    if not calls.push or len(loops) > 2:
        return None
    rim = [t for t, (lo, hi) in enumerate(peel) if lo or hi]
    return KernelPush(calls.push, loops[0].var) if rim == [indices.get(loops[0].var)] else None


def _push_interior(loops: list[CanonicalLoop], xmp: xd.Loop, tmpl: TemplateSym, indices: dict[str, int],
                   shrink: tuple[xd.LoopWidth, ...], push: KernelPush) -> str:
    """Host C telling a pushing kernel the interior of its rim loop (the rows that wait
    for no neighbour) as positions in the whole schedule (declared before it), computed
    only when it pushes."""
    interior = scheds(loops, dataclasses.replace(xmp, expand=shrink), tmpl, indices)
    s = f"_xmpacc_s_{push.var}"
    return (f"if ({push.name}.active) {{_xmpacc_sched_t _xmpacc_whole = {s}; {{{interior}"
            f"_xmpacc_push_interior(&{push.name}, &_xmpacc_whole, &{s});}}}}")


def _peeled(loops: list[CanonicalLoop], xmp: xd.Loop, tmpl: TemplateSym, indices: dict[str, int],
            shrink: tuple[xd.LoopWidth, ...], between: str) -> tuple[SchedPass, ...]:
    """The interior (``expand(shrink)``), ``between``, then the rim (``margin(shrink)``)."""
    interior = dataclasses.replace(xmp, expand=shrink)
    rim = dataclasses.replace(xmp, margin=shrink)
    return (SchedPass(scheds(loops, interior, tmpl, indices)),
            dataclasses.replace(_margin(loops, rim, tmpl, indices), before=between))


def _margin(loops: list[CanonicalLoop], xmp: xd.Loop, tmpl: TemplateSym,
            indices: dict[str, int]) -> SchedPass:
    """The rim of the expanded range: three segments per widened dimension (below, inside,
    above), the cells where at least one is outside (loopsched.margin_guard)."""
    _mode, widths = dim_widths(xmp, tmpl)
    cells = cell_digits(CELL, [lp.var for lp in loops if indices.get(lp.var) in widths])
    if not cells:   # every width 0: the whole range, as the host loop (loops.py) runs it
        return SchedPass(scheds(loops, xmp, tmpl, indices))
    dims = [DimSched(v, indices[v], None, "margin", widths[indices[v]], cell) for v, cell in cells.items()]
    return SchedPass(scheds(loops, xmp, tmpl, indices, cells), 3 ** len(dims), margin_guard(dims))
