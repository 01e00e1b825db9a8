"""Draw the performance goals of bench/results/ as one SVG bar chart, at build time.

    bench/results/<run>.json  ->  docs/_generated/goals.svg   (performance.md shows it)

Each bar is a goal's margin, scaled so that 1 is the target and longer is better: the
measured value over the target for a ">=" goal, the target over the measured value for a
"<=" goal.  Green bars meet their target, red ones do not; the measured value and the
target are written beside each bar.  Plain SVG text, no plotting library: the docs build
needs nothing beyond the ``docs`` extra.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from pathlib import Path

from sphinx.application import Sphinx

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results"
OUT = REPO / "docs" / "_generated" / "goals.svg"

# The runs the performance page cites, and for each goal shown: its key in the file's
# "goals", the label on the chart and the direction of its target.
RUNS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("all-2026-11-30-NVIDIA-H200-x2.json", (   # every group in one job (bench/run.py --merge)
        ("P1", "P1 n-body 64k, 1 GPU / hand", "<="),
        ("P2", "P2 n-body 64k, 1 GPU / 2 GPUs", ">="),
        ("P3", "P3 n-body 16k throughput / hand", ">="),
        ("L1", "L1 Laplace 8192², 1 GPU / fused", "<="),
        ("L2", "L2 Laplace 8192², 2 GPUs / NCCL hand", "<="),
        ("C1", "C1 reflect bytes / shadow bytes", "<="),
        ("S1-8192", "S1 Laplace 8192², of copy bandwidth", ">="),
        ("S1-16384", "S1 Laplace 16384², of copy bandwidth", ">="),
        ("S2", "S2 Jacobi 512³, of copy bandwidth", ">="),
        ("S3", "S3 Laplace 16384², 2 GPUs / hand", "<="),
        ("C3", "C3 staged reflect / hand staged", "<="),
        ("H1", "H1 Himeno L, 1 GPU / hand", ">="),
        ("H2", "H2 Himeno L, of bandwidth bound", ">="),
        ("H3", "H3 Himeno L, 1 → 2 GPUs / hand's", ">="),
        ("Y1", "Y1 every spelling / fastest", ">="),
        ("Y2", "Y2 7-point 512³, every spelling, of copy", ">="),
        ("Y3", "Y3 Himeno as users write it / hand", ">="),
        ("Y4", "Y4 async / sync", ">="),
        ("O1", "O1 Laplace 256², 1 GPU / CUDA C", "<="),
        ("O2", "O2 host µs per launch beyond the driver", "<="),
        ("O3a", "O3a Laplace 1024², 2 GPUs / CUDA C + NCCL", "<="),
        ("O3b", "O3b Laplace 4096², 1 → 2 GPUs efficiency", ">="),
    )),
    ("himeno-2026-11-28-NVIDIA-H200-x4.json", (
        ("H3", "H3 Himeno L, 1 → 4 GPUs efficiency (11-28)", ">="),
    )),
    ("cpu-vm.json", (
        ("CPU1", "CPU1 host step / hand C + MPI", "<="),
    )),
)
GMOVE = "gmove-2026-11-23-vm.json"   # no "goals" table: ratio, target, met at the top

ROW, LEFT, BAR, RIGHT, TOP = 24, 290, 300, 170, 30
SCALE_MAX = 2.0   # margins beyond are drawn to the edge, with the value written


@dataclass(frozen=True)
class Goal:
    label: str
    value: float
    target: float
    direction: str
    met: bool

    @property
    def margin(self) -> float:
        if self.direction == ">=":
            return self.value / self.target
        return self.target / self.value if self.value > 0 else SCALE_MAX


def read_goals() -> list[Goal]:
    goals = []
    for name, shown in RUNS:
        table = json.loads((RESULTS / name).read_text())["goals"]
        for key, label, direction in shown:
            g = table[key]
            goals.append(Goal(label, float(g["value"]), float(g["target"]), direction, bool(g["met"])))
    gmove = json.loads((RESULTS / GMOVE).read_text())
    goals.append(Goal("gmove block → cyclic / Alltoallv", float(gmove["ratio"]), float(gmove["target"]),
                      "<=", bool(gmove["met"])))
    return goals


def svg(goals: list[Goal]) -> str:
    width, height = LEFT + BAR + RIGHT, TOP + ROW * len(goals) + 30
    x1 = LEFT + BAR / SCALE_MAX
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="{LEFT}" y="16" font-weight="bold">margin over the target '
           '(1 = target, longer is better)</text>']
    for tick in (0.5, 1.0, 1.5, 2.0):
        x = LEFT + BAR * tick / SCALE_MAX
        out.append(f'<line x1="{x}" y1="{TOP - 6}" x2="{x}" y2="{height - 24}" stroke="#ddd"/>')
        out.append(f'<text x="{x}" y="{height - 10}" text-anchor="middle">{tick:g}</text>')
    for i, g in enumerate(goals):
        y = TOP + i * ROW
        length = BAR * min(g.margin, SCALE_MAX) / SCALE_MAX
        colour = "#3a8f3a" if g.met else "#c0392b"
        out.append(f'<text x="{LEFT - 8}" y="{y + 15}" text-anchor="end">{escape(g.label)}</text>')
        out.append(f'<rect x="{LEFT}" y="{y + 4}" width="{length:.1f}" height="{ROW - 8}" fill="{colour}"/>')
        note = f'{g.value:.4g} ({g.direction} {g.target:g}){"" if g.met else ", missed"}'
        out.append(f'<text x="{LEFT + BAR + 8}" y="{y + 15}">{escape(note)}</text>')
    out.append(f'<line x1="{x1}" y1="{TOP - 6}" x2="{x1}" y2="{height - 24}" stroke="#333" '
               'stroke-width="1.5"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def generate(app: Sphinx | None = None) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = svg(read_goals())
    if not OUT.exists() or OUT.read_text() != text:
        OUT.write_text(text)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
