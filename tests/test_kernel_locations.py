"""Reductions with location variables on GPU loops, below the programs
(tests/acc_programs/acc_locations.c and tests/xacc_compute/locations.c run them whole):

* the warp combine of the generated epilogue (kernel_locations.epilogue) with its CUDA
  butterfly shuffles emulated by 32 host threads in lockstep (``__shfl_xor_sync``): lane 0
  must end with the record that sequential order picks, for every kind;
* the runtime's pick among the per-warp records (runtime/acc_locations.py).
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO
from pycparser import c_ast, c_parser

from xmpacc.passes.common.values import KernelVars
from xmpacc.passes.kernel.kernel_locations import Located, epilogue
from xmpacc.runtime.acc_locations import LocatedPartials, pick
from xmpacc.runtime.contract import REDUCTION_OPS

KINDS = ("firstmax", "firstmin", "lastmax", "lastmin")

_HARNESS = """\
#include <barrier>
#include <cstdio>
#include <cstring>
#include <thread>
#include "xmpacc_kernel.h"
#undef _XMPACC_WARP_STEPS
#undef _XMPACC_SHFL_XOR
#undef _XMPACC_PARTIAL_SLOT
/* the CUDA definitions of xmpacc_kernel.h, shuffles by 32 threads in lockstep */
#define _XMPACC_WARP_STEPS for (int _xmpacc_o = 16; _xmpacc_o > 0; _xmpacc_o /= 2)
#define _XMPACC_SHFL_XOR(x) shfl_xor((x), _xmpacc_o)
#define _XMPACC_PARTIAL_SLOT(gid) (((gid) & 31) == 0 ? ((gid) >> 5) : -1LL)
static std::barrier<> sync_point(32);
static unsigned long long slots[32];
static thread_local int lane;
template <typename T> T shfl_xor(T x, int o) {
  unsigned long long bits = 0;
  std::memcpy(&bits, &x, sizeof x);
  slots[lane] = bits;
  sync_point.arrive_and_wait();
  bits = slots[lane ^ o];
  sync_point.arrive_and_wait();
  T r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}
static long long _xmpacc_lkp_0[3];
static double _xmpacc_lvp_0_0[1];
static int _xmpacc_lvp_0_1[1];
/* one case per run, from stdin: 32 flags, 32 first keys, 32 second keys, 32 values */
static long long flag_in[32], key1_in[32], key2_in[32];
static double v_in[32];
static void thread_of(int me) {
  lane = me;
  long long _xmpacc_gid = me;
  long long _xmpacc_lk_0[3] = {flag_in[me], key1_in[me], key2_in[me]};
  double v = v_in[me];
  int idx = me;
%(epilogue)s
}
int main() {
  for (long long *in : {flag_in, key1_in, key2_in})
    for (int t = 0; t < 32; t++)
      if (std::scanf("%%lld", &in[t]) != 1) return 2;
  for (int t = 0; t < 32; t++)
    if (std::scanf("%%lf", &v_in[t]) != 1) return 2;
  std::thread threads[32];
  for (int t = 0; t < 32; t++) threads[t] = std::thread(thread_of, t);
  for (auto &t : threads) t.join();
  std::printf("%%lld %%lld %%lld %%g %%d\\n", _xmpacc_lkp_0[0], _xmpacc_lkp_0[1], _xmpacc_lkp_0[2],
              _xmpacc_lvp_0_0[0], _xmpacc_lvp_0_1[0]);
  return 0;
}
"""


def _decls(text: str) -> dict[str, c_ast.Decl]:
    return {d.name: d for d in c_parser.CParser().parse(text).ext}


def _expected(op: str, flags: list[int], keys: list[tuple[int, int]], values: list[float]) -> str:
    """Sequential order's pick: the best value among the changed lanes, then the first
    (last) key; no changed lane: lane 0's own record."""
    changed = [k for k in range(32) if flags[k]]
    if not changed:
        return f"0 {keys[0][0]} {keys[0][1]} {values[0]:g} 0"
    best = (max if op.endswith("max") else min)(values[k] for k in changed)
    tied = [k for k in changed if values[k] == best]
    win = (max if op.startswith("last") else min)(tied, key=lambda k: keys[k])
    return f"1 {keys[win][0]} {keys[win][1]} {values[win]:g} {win}"


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
@pytest.mark.parametrize("op", KINDS)
def test_warp_combine_keeps_the_record_sequential_order_picks(op: str, tmp_path: Path) -> None:
    kv = KernelVars(by_value=list(_decls("double v; int idx;").items()))
    located = Located(0, "v", op, ("idx",), ("(i - 0) / 1", "(j - 0) / 1"))
    lines = "\n".join("  " + line for line in epilogue((located,), kv))
    src, exe = tmp_path / "warp.cpp", tmp_path / "warp"   # one build; each case is its input
    src.write_text(_HARNESS % {"epilogue": lines})
    r = subprocess.run(["g++", "-std=c++20", "-pthread", "-I", str(REPO / "runtime" / "include"),
                        str(src), "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rng = random.Random(op)
    for case in range(6):
        flags = [int(rng.random() < (0.0 if case == 0 else 0.6)) for _ in range(32)]
        keys = rng.sample([(a, b) for a in range(8) for b in range(8)], 32)   # distinct iterations
        values = [float(rng.randrange(3)) for _ in range(32)]                 # many ties
        data = [*flags, *(k[0] for k in keys), *(k[1] for k in keys), *values]
        out = subprocess.run([str(exe)], input=" ".join(map(str, data)), capture_output=True, text=True,
                             check=True, timeout=30).stdout
        assert out.strip() == _expected(op, flags, keys, values), (case, flags, keys, values)


def _records(op: str, flags: list[int], keys: list[tuple[int, ...]], values: list[float],
             locs: list[int]) -> tuple[LocatedPartials, np.ndarray, np.ndarray, np.ndarray]:
    host_v, host_loc = np.array([-5.0]), np.array([-1], dtype=np.int32)
    host_key = np.zeros(len(keys[0]) + 1, dtype=np.int64)
    rec = LocatedPartials(np.array([[f, *k] for f, k in zip(flags, keys, strict=True)], dtype=np.int64),
                          host_key, REDUCTION_OPS[op],
                          [(host_v, np.array(values)), (host_loc, np.array(locs, np.int32))])
    return rec, host_v, host_loc, host_key


@pytest.mark.parametrize("op,value,loc,key", [
    ("firstmax", 7.0, 20, [1, 0, 3]), ("lastmax", 7.0, 40, [1, 2, 0]),
    ("firstmin", 1.0, 30, [1, 0, 5]), ("lastmin", 1.0, 50, [1, 1, 1]),
])
def test_pick_among_warp_records(op: str, value: float, loc: int, key: list[int]) -> None:
    """Unchanged records lose whatever they hold; ties go by the key, lexicographically."""
    flags = [0, 1, 1, 1, 1, 1]
    keys = [(0, 0), (0, 3), (0, 5), (1, 1), (2, 0), (0, 4)]
    values = [99.0, 7.0, 1.0, 1.0, 7.0, 4.0]
    rec, host_v, host_loc, host_key = _records(op, flags, keys, values, [10, 20, 30, 50, 40, 60])
    pick(rec, np)
    assert (host_v[0], host_loc[0], list(host_key)) == (value, loc, key)


def test_pick_without_a_change_leaves_everything() -> None:
    rec, host_v, host_loc, host_key = _records("firstmax", [0, 0], [(0, 1), (0, 2)], [3.0, 4.0], [1, 2])
    pick(rec, np)
    assert (host_v[0], host_loc[0], list(host_key)) == (-5.0, -1, [0, 0, 0])
