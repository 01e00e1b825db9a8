"""The schedule of one distributed loop of a ``loop`` directive, in all its forms
(reference §6.1, global-view §6, §7), for the host loop pass and the gpu pass.

    loop on t[i]                 _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_t_t.dim[0], a, b, 1);
    loop on t[i+1]               ... = _xmpacc_sched_shift(_xmpacc_schedule(dim, (a) + (1), (b) + (1), 1), 1);
    loop on p[i]                 _xmpacc_tdim_t _xmpacc_nd_i = _xmpacc_nodes_tdim(&_xmpacc_n_p, 0, 0);
                                 ... = _xmpacc_schedule(&_xmpacc_nd_i, a, b, 1);
    loop on t[i] expand(1:2)     _xmpacc_range_t _xmpacc_r_i = _xmpacc_range(dim, a, b, 1, (1), (2), 0);
                                 ... = _xmpacc_schedule_span(a, 1, _xmpacc_r_i.elo, _xmpacc_r_i.ehi);
    loop on t[i] margin(1)       ... = _xmpacc_range_sched(&_xmpacc_r_i, <segment of the cell>, a, 1);

The loop itself keeps its form ``for (i = s.first; i <= s.last; i += s.step)``: every
schedule is already shifted back to the loop variable.  A margin nest runs once per cell
(one segment per dimension with widths) and its body only in the cells that lie in the
expanded or the original range but not in both (xmpacc_loops.h).
"""

from __future__ import annotations

from dataclasses import dataclass

from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.accesses import text_value
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.symbols import NodesSym, TemplateSym


@dataclass(frozen=True, slots=True)
class DimSched:
    """How one distributed loop is scheduled."""

    var: str
    tdim: int                      # template (or node array) dimension
    offset: str | None             # on-ref offset c of t(i+c), C text
    mode: str                      # "plain", "expand" or "margin"
    width: xd.LoopWidth | None     # expand/margin widths of this dimension (None: plain)
    cell: str | None = None        # margin: the C expression of this dimension's segment
    by_position: bool = False      # cyclic(w): the schedule is in positions (is_block_cyclic)


def target_dim(target: TemplateSym | NodesSym, var: str, tdim: int, style: str) -> tuple[str, str]:
    """(declarations, address of the _xmpacc_tdim_t) of one loop dimension."""
    if isinstance(target, TemplateSym):
        return "", f"&{target.c_name}.dim[{tdim}]"
    base = 1 if style == "paren" else 0   # p(i) is 1-based
    name = f"_xmpacc_nd_{var}"
    return f"_xmpacc_tdim_t {name} = _xmpacc_nodes_tdim(&{target.c_name}, {tdim}, {base});", f"&{name}"


@dataclass(frozen=True, slots=True)
class CyclicLoop:
    """A distributed loop of a kernel over a cyclic dimension.  Its rows on this node are
    not consecutive (streaming.py must not slide a window over them), and for cyclic(w)
    (``by_position``) its owned indices are no progression at all: the schedule
    ``_xmpacc_s_<var>`` is in positions and the kernel turns a position into ``var``
    through ``_xmpacc_m_<var>`` (an ``_xmpacc_posmap_t``)."""

    var: str
    by_position: bool              # cyclic(w)
    progression: bool              # by_position and |step| may be > 1: positions off the progression idle


def is_block_cyclic(target: TemplateSym | NodesSym, tdim: int) -> bool:
    """cyclic(w) (w given, even when it is 1 at run time): loops iterate over positions."""
    if not isinstance(target, TemplateSym) or target.distribute is None:
        return False
    f = target.distribute.formats[tdim]
    return f.kind == "cyclic" and f.arg is not None


def cyclic_loops(loops: list[CanonicalLoop], target: TemplateSym | None,
                 indices: dict[str, int]) -> tuple[CyclicLoop, ...]:
    """The loops of a kernel's thread space that ``target`` distributes cyclic or cyclic(w)."""
    if target is None:
        return ()
    out = []
    for lp in loops:
        if lp.var in indices and target.dist_kind(indices[lp.var]) == "cyclic":
            w = is_block_cyclic(target, indices[lp.var])
            out.append(CyclicLoop(lp.var, w, w and text_value(lp.step) not in (1, -1)))
    return tuple(out)


def _nonzero(w: xd.LoopWidth | None) -> bool:
    return w is not None and (w.unbound or w.lower.text.strip() != "0" or w.upper.text.strip() != "0")


def dim_widths(loop: xd.Loop, target: TemplateSym | NodesSym) -> tuple[str, dict[int, xd.LoopWidth]]:
    """The mode of the loop and the widths of its dimensions (only those not all zero)."""
    widths, mode = None, "plain"
    if loop.expand is not None:
        widths, mode = loop.expand, "expand"
    elif loop.margin is not None:
        widths, mode = loop.margin, "margin"
    if widths is None:
        return mode, {}
    if len(widths) != len(loop.on.subs):
        raise XmpError(loop.loc, f"'{mode}' gives {len(widths)} width(s) for the {len(loop.on.subs)} "
                                 f"subscript(s) of the on-ref")
    out: dict[int, xd.LoopWidth] = {}
    for t, (sub, w) in enumerate(zip(loop.on.subs, widths, strict=True)):
        if not _nonzero(w):
            continue
        if not isinstance(sub, xd.LoopIndex):
            raise XmpError(w.lower.loc, f"'{mode}' width of a subscript that is not a loop index must be 0")
        if isinstance(target, TemplateSym) and target.dist_kind(t) == "cyclic":
            raise XmpError(w.lower.loc, f"'{mode}' on a cyclic dimension of template "
                                        f"'{target.name}': its widths must be 0 (only block, gblock "
                                        "and '*' dimensions have ranges)")
        out[t] = w
    return mode, out


def sched_text(d: DimSched, lp: CanonicalLoop, dim: str, kernel: bool = False) -> str:
    """The declaration of ``_xmpacc_s_<var>`` (and what it needs) in loop-variable indices."""
    off = d.offset
    init, last = (lp.init, lp.last) if off is None else (f"({lp.init}) + ({off})", f"({lp.last}) + ({off})")
    plain = "_xmpacc_schedule_k" if kernel else "_xmpacc_schedule"
    if kernel and d.by_position:
        return _position_sched(d, init, last, lp.step, dim)
    pre = ""
    if d.mode == "plain" or d.width is None:
        expr = f"{plain}({dim}, {init}, {last}, {lp.step})"
    else:
        w = d.width
        r = f"_xmpacc_r_{d.var}"
        pre = (f"_xmpacc_range_t {r} = _xmpacc_range({dim}, {init}, {last}, {lp.step}, ({w.lower.text}), "
               f"({w.upper.text}), {int(w.unbound)});")
        expr = (f"_xmpacc_schedule_span({init}, {lp.step}, {r}.elo, {r}.ehi)" if d.mode == "expand"
                else f"_xmpacc_range_sched(&{r}, {d.cell}, {init}, {lp.step})")
    if off is not None:
        expr = f"_xmpacc_sched_shift({expr}, {off})"
    text = f"{pre}_xmpacc_sched_t _xmpacc_s_{d.var} = {expr};"
    if kernel and d.mode != "plain" and d.width is not None:
        s = f"_xmpacc_s_{d.var}"
        text += f"{s}.inv_count = {s}.count > 0 ? 1.0 / (double) {s}.count : 0.0;"
    return text


def _position_sched(d: DimSched, init: str, last: str, step: str, dim: str) -> str:
    """A kernel's cyclic(w) loop: positions, and the map back to the loop variable (expand
    and margin widths on cyclic dimensions are 0, dim_widths checked)."""
    return (f"_xmpacc_sched_t _xmpacc_s_{d.var} = _xmpacc_schedule_pos_k({dim}, {init}, {last}, {step});"
            f"_xmpacc_posmap_t _xmpacc_m_{d.var} = _xmpacc_posmap({dim}, {init}, {step}, {d.offset or 0});")


def cell_digits(cell: str, names: list[str]) -> dict[str, str]:
    """margin: each widened dimension's segment (0 below, 1 inside, 2 above the loop's
    range) as the base-3 digit of the cell counter ``cell``, in the order given."""
    return {name: f"({cell} / {3 ** k}) % 3" for k, name in enumerate(names)}


def margin_guard(dims: list[DimSched]) -> str:
    """The condition for the body of a margin nest: the cell lies in exactly one of E', O'."""
    cells = [(f"_xmpacc_r_{d.var}", d.cell) for d in dims if d.width is not None]
    in_e = " && ".join(f"{r}.in_e[{c}]" for r, c in cells)
    in_o = " && ".join(f"{r}.in_o[{c}]" for r, c in cells)
    return f"({in_e}) != ({in_o})"
