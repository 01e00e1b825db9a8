"""The C text of a streaming kernel's walk (passes/streaming.py decides what streams).

Given a StreamPlan: the lines after the kernel's prologue (this thread's first row, the
window's first rows), the walk's ``for`` header, the lines before the body in each step
(the next row, the window's one new row) and after it (the window moves down), and the
host's thread count for the launch (one thread per ``walk`` rows of the outer loop).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xmpacc.passes.canonical import CanonicalLoop

if TYPE_CHECKING:
    from xmpacc.passes.streaming import StreamPlan, Window


@dataclass(frozen=True)
class WalkCode:
    """C lines of a streaming kernel around its body (templates/kernels.cu.j2)."""

    prologue: list[str]      # after kernels.prologue: the first row, the window's first rows
    loop: str                # the walk's for header
    head: list[str]          # in the walk, before the body: next row, the window's new row
    tail: list[str]          # after the body: the window moves down one row


def code(p: StreamPlan) -> WalkCode:
    s, v, t = f"_xmpacc_s_{p.var}", p.var, p.ctype
    pro = [f"long long _xmpacc_p0 = _xmpacc_rest * {p.walk};   /* this thread's first row */",
           f"{v} = ({t}) ({s}.first + _xmpacc_p0 * {s}.step);"]
    head = [f"if (_xmpacc_w > 0) {{ if (_xmpacc_p0 + _xmpacc_w >= {s}.count) break; "
            f"{v} = ({t}) ({s}.first + (_xmpacc_p0 + _xmpacc_w) * {s}.step); }}"]
    tail = []
    for g, w in enumerate(p.windows):
        regs = [w.reg(g, k) for k in range(w.hi - w.lo + 1)]
        pro.append(f"{w.ctype} {', '.join(regs)};")
        pro += [f"{regs[k]} = {_load(w, v, w.lo + k)};" for k in range(len(regs) - 1)]
        head.append(f"{regs[-1]} = {_load(w, v, w.hi)};")
        tail += [f"{regs[k]} = {regs[k + 1]};" for k in range(len(regs) - 1)]
    loop = f"for (int _xmpacc_w = 0; _xmpacc_w < {p.walk}; _xmpacc_w++)"
    return WalkCode(pro, loop, head, tail)


def _load(w: Window, var: str, offset: int) -> str:
    row = var if offset == 0 else f"{var} + {offset}" if offset > 0 else f"{var} - {-offset}"
    element = w.load.replace("_xmpacc_ROW", f"({row})")
    return f"_XMPACC_LDG(&{element})" if w.ldg else element


def launch_total(loops: list[CanonicalLoop], p: StreamPlan) -> str:
    """Threads of a streaming launch: one per ``walk`` rows of the outer loop."""
    outer = f"((_xmpacc_s_{loops[0].var}.count + {p.walk} - 1) / {p.walk})"
    return " * ".join([outer] + [f"_xmpacc_s_{lp.var}.count" for lp in loops[1:]])
