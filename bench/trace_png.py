"""Render an xmpacc Chrome trace (XMPACC_PROFILE) as a PNG timeline, one row per rank.

    python3 bench/trace_png.py trace.json [out.png]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# "other" (the whole program, declarations) first, so the events inside it stay visible
COLORS = {"other": "lightgray", "kernel": "tab:blue", "copy": "tab:orange", "mpi": "tab:green"}


def main() -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    src = Path(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else src.with_suffix(".png")
    events = [e for e in json.loads(src.read_text())["traceEvents"]
              if e.get("ph") == "X" and e.get("cat") in COLORS]
    t0 = min(e["ts"] for e in events)
    ranks = sorted({e["tid"] for e in events})
    fig, ax = plt.subplots(figsize=(14, 1.2 + 0.9 * len(ranks)))
    for cat, color in COLORS.items():
        for r in ranks:
            spans = [((e["ts"] - t0) / 1e3, max(e["dur"] / 1e3, 0.02))
                     for e in events if e["tid"] == r and e["cat"] == cat]
            ax.broken_barh(spans, (r - 0.35, 0.7), color=color, label=cat if r == ranks[0] else None)
    ax.set_yticks(ranks, [f"rank {r}" for r in ranks])
    ax.set_xlabel("ms since the first event")
    ax.set_title(f"xmpacc profile trace: {src.name} (kernels, host-device copies, MPI)")
    ax.legend(loc="upper right", ncols=4)
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
