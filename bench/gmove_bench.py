"""gmove between block and cyclic rows of an N x N double array, next to the best
hand-written mpi4py Alltoallv of the same data, in one job.

    python3 bench/gmove_bench.py [--n 4096] [--np 4] [--reps 10]

Builds bench/gmove_bench.c with xmpacc, runs it under ``mpirun -np NP`` with
XMPACC_STATS=1 (time per gmove, the slowest node; bytes moved), then runs this file as
the baseline (``--baseline``) under the same mpirun: rows packed once into a preallocated
send buffer with one vectorised copy, received by Alltoallv straight into the cyclic
array (no unpacking), timed the same way.  Both print a checksum of the result; the
ratio counts only when they agree.  Writes bench/results/gmove-<date>-<host>.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from harness import numbers, sh, stats, tool


def baseline(n: int, reps: int) -> None:
    """The hand-written redistribution (run under mpirun)."""
    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    me, p = comm.Get_rank(), comm.Get_size()
    assert n % (p * p) == 0, "the baseline wants N divisible by P*P"
    rows = n // p                                   # block rows per node
    a = np.empty((rows, n))
    g = np.arange(me * rows, (me + 1) * rows)
    a[...] = g[:, None] + 1e-4 * np.arange(n)[None, :]
    b = np.empty((rows, n))                         # cyclic rows: global row k*p + me at k
    send = np.empty((p, rows // p, n))
    counts = [rows // p * n] * p
    displs = [k * rows // p * n for k in range(p)]

    def block_to_cyclic() -> None:
        # my block row me*rows + l goes to node (me*rows + l) % p = l % p (rows % p == 0)
        np.copyto(send, a.reshape(rows // p, p, n).transpose(1, 0, 2))
        # node r's rows for me are its block rows r*rows + me + p*m: my cyclic positions
        # r*rows/p + m, one contiguous slab per sender
        comm.Alltoallv([send, counts, displs, MPI.DOUBLE], [b, counts, displs, MPI.DOUBLE])

    block_to_cyclic()
    comm.Barrier()
    t0 = MPI.Wtime()
    for _ in range(reps):
        block_to_cyclic()
    comm.Barrier()
    t = comm.allreduce((MPI.Wtime() - t0) / reps, op=MPI.MAX)
    k = np.arange(rows) * p + me                    # global index of my cyclic rows
    part = float(b[np.arange(rows), k].sum() + b[np.arange(rows), n - 1 - k].sum())
    total = comm.allreduce(part)
    if me == 0:
        print(f"block_to_cyclic = {t:.6e}\nchecksum = {total:.10e}\nbytes = {(p - 1) * rows * n * 8 // p}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(HERE / "results"))
    args = ap.parse_args()
    if args.baseline:
        baseline(args.n, args.reps)
        return
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "gmove_bench"
        sh([tool("xmpacc"), "-O2", f"-DN={args.n}", f"-DREPS={args.reps}", str(HERE / "gmove_bench.c"),
            "-o", str(exe)])
        out = sh([tool("mpirun"), "-np", str(args.np), str(exe)], {"XMPACC_STATS": "1"}, timeout=1800)
    mine, counters = numbers(out), stats(out)
    base = numbers(sh([tool("mpirun"), "-np", str(args.np), sys.executable, __file__, "--baseline",
                       f"--n={args.n}", f"--reps={args.reps}"], timeout=1800))
    if abs(mine["checksum"] - base["checksum"]) > 1e-9 * abs(base["checksum"]):
        raise SystemExit(f"checksums differ: xmpacc {mine['checksum']} baseline {base['checksum']}")
    calls = 2 * args.reps + 3
    per_gmove = [s.get("gmove_bytes", 0) / calls for s in counters]
    ratio = mine["block_to_cyclic"] / base["block_to_cyclic"]
    result = {
        "date": datetime.date.today().isoformat(), "host": platform.node(), "cores": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "n": args.n, "np": args.np, "reps": args.reps,
        "xmpacc": {"block_to_cyclic_s": mine["block_to_cyclic"], "cyclic_to_block_s": mine["cyclic_to_block"],
                   "bytes_sent_per_node_per_gmove": per_gmove},
        "baseline_alltoallv": {"block_to_cyclic_s": base["block_to_cyclic"],
                               "bytes_sent_per_node": base["bytes"]},
        "ratio": ratio, "target": 1.5, "met": ratio <= 1.5, "checksum": mine["checksum"],
    }
    print(f"gmove block -> cyclic, {args.n} x {args.n} doubles, {args.np} processes")
    print(f"  xmpacc gmove        {mine['block_to_cyclic'] * 1e3:9.2f} ms  "
          f"({per_gmove[0] / 1e6:.2f} MB sent by node 0; back: {mine['cyclic_to_block'] * 1e3:.2f} ms)")
    print(f"  mpi4py Alltoallv    {base['block_to_cyclic'] * 1e3:9.2f} ms  "
          f"({base['bytes'] / 1e6:.2f} MB sent per node)")
    print(f"  ratio               {ratio:9.2f}  (target <= 1.5: {'met' if ratio <= 1.5 else 'NOT met'})")
    dest = Path(args.out)
    dest.mkdir(parents=True, exist_ok=True)
    name = f"gmove-{result['date']}-{re.sub(r'[^A-Za-z0-9]+', '-', platform.node())}.json"
    (dest / name).write_text(json.dumps(result, indent=2) + "\n")
    print(f"  written to {dest / name}")


if __name__ == "__main__":
    main()
