#!/usr/bin/env bash
# Where a pushed sweep's time goes (docs/performance.md, "O3b: the push, built"):
# bench/laplace_bench.c at 4096^2 on two GPUs with parts of include/xmpacc_push.h taken out,
# each variant built against its own copy of the installed header (the program carries its
# fingerprint) and run twice; checksums are wrong where the exchange is gone.  After
# `. tests/device_env.sh`:
#   bash bench/push_variants.sh DIR
# (The rotation variants of that section's jobs A-C ran on the earlier forms of the header.)
set -u
out=${1:?DIR}
mkdir -p "$out"
H=$(python3 -P -c "import xmpacc.runtime, os; print(os.path.dirname(xmpacc.runtime.__file__))")/include/xmpacc_push.h
cp "$H" "$out/xmpacc_push.h.orig"
variant() {   # name
  cp "$out/xmpacc_push.h.orig" "$H"
  python3 - "$H" "$1" <<'PY'
import sys
path, what = sys.argv[1], sys.argv[2]
s = open(path).read()
edits = {
    "nospin": [("if (threadIdx.x == 0 && threadIdx.y == 0) _xmpacc_push_arrivals(p);", "")],
    "nowait": [("  if (need) {\n    if (threadIdx.x == 0 && threadIdx.y == 0) _xmpacc_push_arrivals(p);\n"
                "    __syncthreads();\n  }", "")],
    "nothing": [("do { if ((p).active && blockIdx.y == 0) _xmpacc_push_out((p).desc, (p).want); } while (0)",
                 "((void)(p))"),
                ("do { if ((p).active) _xmpacc_push_wait(p, grid2, count, rows, need); } while (0)", "((void)(p))")],
}
for old, new in edits.get(what, []):
    assert old in s, (what, old)
    s = s.replace(old, new)
open(path, "w").write(s)
PY
  xmpacc -DNX=4096 -DNY=4096 -DITER=2000 bench/laplace_bench.c -o "$out/v_$1" || return
  for _ in 1 2; do
    printf '%-8s ' "$1"
    CUPY_CACHE_DIR=/tmp/push-variants-$1 mpirun -np 2 "$out/v_$1" 2>&1 | grep -E "iter_ms|checksum" | tr '\n' ' '
    echo
  done
}
variant push
printf '1 GPU    '; CUPY_CACHE_DIR=/tmp/push-variants-push mpirun -np 1 "$out/v_push" 2>&1 | grep iter_ms
variant nospin
variant nowait
variant nothing
cp "$out/xmpacc_push.h.orig" "$H"
rm -f "$out"/v_*
