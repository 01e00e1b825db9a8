"""Read the GPU timelines bench/cupti/cupti_trace.c wrote (one CSV per process) and say where
a steady loop's time goes, per process:

    python3 bench/cupti/timeline.py DIR [--anchor REGEX] [--show N]

The anchor kernels (by default the generated loop kernels, ``_xmpacc_loop``) on the stream
that runs most of them mark the iterations: iteration k runs from the start of the k-th
anchor there to the start of the next.  Over the steady iterations (the middle 80 %) the
report gives the period, the anchor's own time and the gap after it, and for every other
activity (kernel, copy, driver call) by name and stream: how many per iteration, when it
starts and how long it takes, relative to the iteration's start; then N iterations in full.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def short(name: str) -> str:
    """A kernel's name without its C++ parameter list, at most 60 characters."""
    return re.sub(r"\(.*", "", name)[:60]


def load(path: Path) -> list[dict]:
    with path.open() as f:
        rows = [r for r in csv.DictReader(f)]
    for r in rows:
        r["start"], r["end"] = int(r["start_ns"]) / 1e3, int(r["end_ns"]) / 1e3   # us
        r["name"] = short(r["name"])
    return sorted(rows, key=lambda r: r["start"])


def report(path: Path, anchor: str, show: int) -> None:
    rows = load(path)
    gpu = [r for r in rows if r["kind"] != "driver"]
    anchors = [r for r in gpu if r["kind"] == "kernel" and re.search(anchor, r["name"])]
    if not anchors:
        print(f"{path.name}: no kernel matches {anchor!r}")
        return
    streams = defaultdict(list)
    for r in anchors:
        streams[r["stream"]].append(r)
    # the stream where the anchors take the most time (an overlapped sweep's rim launches the
    # same kernel on the exchange stream, more often and shorter)
    main_stream, marks = max(streams.items(), key=lambda kv: sum(r["end"] - r["start"] for r in kv[1]))
    lo, hi = len(marks) // 10, len(marks) - len(marks) // 10 - 1
    steady = range(lo, hi)
    period = [marks[k + 1]["start"] - marks[k]["start"] for k in steady]
    own = [marks[k]["end"] - marks[k]["start"] for k in steady]
    gap = [marks[k + 1]["start"] - marks[k]["end"] for k in steady]
    print(f"== {path.name}: {len(marks)} anchors on stream {main_stream}, {len(steady)} steady iterations")
    print(f"   period {statistics.median(period):8.2f} us (mean {statistics.fmean(period):.2f}), "
          f"anchor {statistics.median(own):8.2f} us, gap after it {statistics.median(gap):6.2f} us "
          "(medians)")
    # every activity by (kind, name, stream): its offsets from the start of its iteration
    classes: dict[tuple[str, str, str], list[tuple[float, float]]] = defaultdict(list)
    k = lo
    for r in rows:
        if r["start"] < marks[lo]["start"] or r["start"] >= marks[hi]["start"]:
            continue
        while r["start"] >= marks[k + 1]["start"]:
            k += 1
        classes[(r["kind"], r["name"], r["stream"])].append((r["start"] - marks[k]["start"],
                                                              r["end"] - r["start"]))
    print(f"   {'kind':7} {'stream':>7} {'per it':>6} {'start +us':>10} {'takes us':>9}  name")
    def first_start(kv: tuple[tuple[str, str, str], list[tuple[float, float]]]) -> float:
        return statistics.median(x[0] for x in kv[1])

    for (kind, name, stream), v in sorted(classes.items(), key=first_start):
        starts, takes = statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)
        print(f"   {kind:7} {stream:>7} {len(v) / len(steady):6.2f} {starts:10.2f} {takes:9.2f}  {name}")
    mid = (lo + hi) // 2
    for k in range(mid, min(mid + show, hi)):
        t0 = marks[k]["start"]
        print(f"   -- iteration {k} (period {marks[k + 1]['start'] - t0:.2f} us)")
        for r in rows:
            if t0 <= r["start"] < marks[k + 1]["start"]:
                print(f"      {r['start'] - t0:8.2f} {r['end'] - r['start']:8.2f}  {r['kind']:7} "
                      f"s{r['stream']:>6}  {r['name']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--anchor", default=r"_xmpacc_loop")
    ap.add_argument("--show", type=int, default=2, help="iterations printed in full")
    args = ap.parse_args()
    files = sorted(args.dir.glob("trace-*.csv"))
    if not files:
        print(f"timeline: no trace-*.csv in {args.dir}", file=sys.stderr)
        return 1
    for f in files:
        report(f, args.anchor, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
