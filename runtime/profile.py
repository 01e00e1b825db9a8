"""``XMPACC_PROFILE=1``: time every runtime call of every rank, per directive.

The launcher wraps each entry of the runtime table with ``Profiler.wrap`` (only when the
variable is set: otherwise the table holds exactly what it holds without profiling).  A
call records its entry, its directive's ``where`` ("laplace.c:48"; the entry's name for the
entries without one), start and end (``time.perf_counter_ns``) and the bytes it moved (the
change of the runtime's reflect/replicate_sync byte counters).  Launches are
stream-ordered on a GPU; under the profile each one waits for its kernel (``sync``), so
that a launch's time is the kernel's and not the next copy's; its *host* time is the part
before that wait, what the call costs the host beyond the work it launches.

Calls that the C side replayed (replay.py: launches, compute constructs, reflect, waits)
never enter Python; the C side records each one (``replayed``) and the table shows them as
their own rows, marked ``[C]``.

At the end (``main`` returned, or ``exit(0)``), every rank calls ``finish``: the records
are gathered on rank 0, which prints a table per source line on stderr and writes a
Chrome trace (``xmpacc-profile.json``, or the path given when the value ends in .json) that
Perfetto and chrome://tracing open: one track per rank, kernels, host-device copies and
MPI in their own categories.

    XMPACC_PROFILE=1 mpirun -np 4 ./laplace
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .contract import Entry

ENV = "XMPACC_PROFILE"
DEFAULT_TRACE = "xmpacc-profile.json"
MAX_EVENTS = 200_000          # trace events kept per rank (the table counts every call)
_COUNTERS = ("reflect_bytes", "sync_in_bytes", "sync_out_bytes")
_CATEGORY = {"_xmpacc_launch": "kernel", "_xmpacc_replicate_sync": "copy"} | {
    f"_xmpacc_{name}": "mpi" for name in ("reflect", "reflect_acc", "reduce", "loop_reduce", "bcast",
                                          "barrier", "task_begin", "reduce_acc", "bcast_acc",
                                          "reflect_acc_overlap", "reflect_acc_join", "reflect_acc_rim")}
_DETAIL = {"_xmpacc_launch": 1, "_xmpacc_replicate_sync": 1}   # kernel name, sync direction


def requested() -> str | None:
    """The value of XMPACC_PROFILE when profiling is asked for."""
    value = os.environ.get(ENV, "")
    return value if value not in ("", "0") else None


def _moved(stats: dict[str, int]) -> int:
    return sum(stats.get(counter, 0) for counter in _COUNTERS)


@dataclass(frozen=True)
class InC:
    """The detail of a call the C side replayed (replay.py): the kernel of a launch."""

    kernel: bytes | None = None


def directive(entry: str, detail: Any) -> str:
    """The table's name of a runtime entry: ``_xmpacc_reflect`` -> ``reflect``; `` [C]``
    after the name of a call that ran in C."""
    if isinstance(detail, InC):
        return directive(entry, None) + " [C]"
    name = entry.removeprefix("_xmpacc_")
    if entry == "_xmpacc_launch":
        return "loop acc (kernel)"
    if entry == "_xmpacc_replicate_sync":
        return "replicate_sync " + ("in" if detail == 0 else "out")
    return {"loop_reduce": "loop reduction", "reduce": "reduction", "reflect_acc": "reflect acc",
            "reflect_acc_overlap": "reflect acc (overlapped)", "reflect_acc_join": "reflect acc (join)",
            "reflect_acc_rim": "reflect acc (rim)", "array_release": "release",
            "reduce_acc": "reduction acc", "bcast_acc": "bcast acc",
            "task_begin": "task", "replicate_begin": "replicate", "nodes_init": "nodes",
            "template_init": "template"}.get(name, name)


class Profiler:
    """Per-rank records; ``finish`` is collective."""

    def __init__(self, world: Any, stats: dict[str, int], setting: str,
                 sync: Callable[[], None] | None = None) -> None:
        self.world, self.stats, self.sync = world, stats, sync
        self.trace = setting if setting.endswith(".json") else DEFAULT_TRACE
        # (entry, where, detail, start, host end, stop, bytes)
        self.records: list[tuple[str, Any, Any, int, int, int, int]] = []
        self.origin = time.perf_counter_ns()
        self.finished = False
        self.replayed_dropped: Callable[[], int] = lambda: 0
        self.replayed: Callable[[], list[tuple[str, bytes, bytes | None, int, int, int, int]]] | None = None

    def start(self) -> None:
        """A common time origin: every rank leaves the barrier at about the same moment."""
        self.world.Barrier()
        self.origin = time.perf_counter_ns()

    def wrap(self, entry: Entry, fn: Callable[..., Any]) -> Callable[..., Any]:
        names = [p for _t, p in entry.params]
        at = names.index("where") if "where" in names else None
        detail = _DETAIL.get(entry.name)
        label, records, stats, clock = entry.name, self.records, self.stats, time.perf_counter_ns
        sync = self.sync if entry.name == "_xmpacc_launch" else None
        if entry.name == "_xmpacc_exit_hook":
            return self._exit_hook(fn)

        def call(*args: Any) -> Any:
            before = _moved(stats)
            start = host = clock()
            try:
                result = fn(*args)
                if sync is not None:
                    host = clock()
                    sync()
                return result
            finally:
                stop = clock()
                records.append((label, args[at] if at is not None else None,
                                args[detail] if detail is not None else None, start,
                                host if sync is not None else stop, stop, _moved(stats) - before))
        return call

    def _exit_hook(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(status: int) -> Any:
            if status == 0:      # exit(0): the same collective end as a return from main
                self.finish()
            return fn(status)
        return call

    def finish(self) -> None:
        """Gather every rank's records on rank 0: the table on stderr and the trace file."""
        if self.finished:
            return
        self.finished = True
        end = time.perf_counter_ns()
        dropped = 0
        if self.replayed is not None:
            dropped = self.replayed_dropped()
            self.records += [(entry, where, InC(kernel), start, host, stop, moved)
                             for entry, where, kernel, start, host, stop, moved in self.replayed()]
        mine = (_aggregate(self.records), self._events(end), (end - self.origin) / 1e6, dropped)
        everything = self.world.gather(mine, root=0)
        if everything is None:
            return
        sys.stdout.flush()
        write_trace(self.trace, [events for _t, events, _m, _d in everything])
        lines = table([rows for rows, _e, _m, _d in everything])
        head = (f"xmpacc profile: {len(everything)} rank(s), {everything[0][2]:.1f} ms on rank 0; "
                f"trace in {self.trace}\n")
        lost = sum(d for _r, _e, _m, d in everything)
        if lost:   # the C side's record holds 2**20 calls per rank
            head += f"xmpacc profile: {lost:,} calls that ran in C are not in the table (too many)\n"
        os.write(2, (head + "".join(line + "\n" for line in lines)).encode())

    def _events(self, end: int) -> list[dict[str, Any]]:
        rank, origin = self.world.Get_rank(), self.origin
        events = [{"name": "program", "cat": "other", "ph": "X", "ts": 0.0, "dur": (end - origin) / 1e3,
                   "pid": 0, "tid": rank, "args": {}}]
        for entry, where, detail, start, _host, stop, moved in self.records[:MAX_EVENTS]:
            w = _text(where) or entry
            name = _text(detail.kernel if isinstance(detail, InC) else detail) if entry == "_xmpacc_launch" \
                else f"{directive(entry, detail)} {w}"
            events.append({"name": name, "cat": _CATEGORY.get(entry, "other"), "ph": "X",
                           "ts": (start - origin) / 1e3, "dur": (stop - start) / 1e3, "pid": 0, "tid": rank,
                           "args": {"where": w, "entry": entry, "bytes": moved}})
        return events


def _text(value: Any) -> str | None:
    return value.decode(errors="replace") if isinstance(value, bytes) else None


def _aggregate(records: list[tuple[str, Any, Any, int, int, int, int]]) -> dict[tuple[str, str], list[int]]:
    """(where, directive) -> [calls, total ns, bytes, host ns] of one rank."""
    rows: dict[tuple[str, str], list[int]] = {}
    for entry, where, detail, start, host, stop, moved in records:
        row = rows.setdefault((_text(where) or entry, directive(entry, detail)), [0, 0, 0, 0])
        row[0] += 1
        row[1] += stop - start
        row[2] += moved
        row[3] += host - start
    return rows


def table(per_rank: list[dict[tuple[str, str], list[int]]]) -> list[str]:
    """One line per (source line, directive), the most expensive first; calls, time and
    bytes are summed over the ranks, min/max are the ranks' own totals."""
    keys = {k for rows in per_rank for k in rows}
    w0 = max([len("source line")] + [len(k[0]) for k in keys])
    w1 = max([len("directive")] + [len(k[1]) for k in keys])
    lines = []
    for key in keys:
        rows = [r.get(key, [0, 0, 0, 0]) for r in per_rank]
        calls, total, moved, host = (sum(r[i] for r in rows) for i in range(4))
        totals = [r[1] / 1e6 for r in rows]
        text = (f"{key[0]:<{w0}}  {key[1]:<{w1}}  {calls:>8}  {total / 1e6:>10.3f}  "
                f"{total / 1e3 / max(calls, 1):>10.1f}  {host / 1e3 / max(calls, 1):>10.2f}  "
                f"{min(totals):>10.3f} / {max(totals):<10.3f}  {moved:>14,}")
        lines.append((-total, key, text))
    head = f"{'source line':<{w0}}  {'directive':<{w1}}  {'calls':>8}  {'total ms':>10}  {'mean us':>10}  " \
           f"{'host us':>10}  {'min/max over ranks (ms)':>23}  {'bytes':>14}"
    return [head] + [text for _t, _k, text in sorted(lines)]


def write_trace(path: str, per_rank: list[list[dict[str, Any]]]) -> None:
    """Chrome trace event format: complete events ('X'), one thread per rank."""
    meta: list[dict[str, Any]] = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "xmpacc"}}]
    for rank in range(len(per_rank)):
        meta.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": rank,
                     "args": {"name": f"rank {rank}"}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": rank,
                     "args": {"sort_index": rank}})
    events = meta + [e for rank_events in per_rank for e in rank_events]
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f, separators=(",", ":"))
    os.replace(tmp, path)
