#!/usr/bin/env bash
# The streaming knobs (XMPACC_STREAM_VECTOR, _INDEX32, _WHOLE, _MINBLOCKS, _WALK at compile time) on the
# 3-D 512^3 sweep of bench/spelling/jacobi3d_spell.c (7-point, the default) or
# stencil27_spell.c (`bash bench/stream_knobs.sh stencil27`), spelling 1, fp32 and fp64,
# one run each on the cuda backend, in one job: how bench/results/stream-knobs-*.txt were
# measured (their earlier versions: the variants named there).  Run from the repository
# root on a GPU machine after `source tests/device_env.sh`.
R=$(pwd); nest=${1:-jacobi3d}; mkdir -p /tmp/knobs-$nest && cd /tmp/knobs-$nest; S=$R/bench/spelling/${nest}_spell.c
# f_i64 / d_i64: the vector walk in 64 bits (XMPACC_STREAM_INDEX32=0); fp64 keeps one point per
# thread, which the knob does not change (d_i64 is a control of d_def)
VARIANTS=(
  "f_def:REAL=float:"
  "f_near0:REAL=float:XMPACC_STREAM_NEAR=0"
  "f_scalar:REAL=float:XMPACC_STREAM_VECTOR=0"
  "f_i64:REAL=float:XMPACC_STREAM_INDEX32=0"
  "f_w4:REAL=float:XMPACC_STREAM_WALK=4"
  "f_mb0:REAL=float:XMPACC_STREAM_MINBLOCKS=0"
  "f_mb8:REAL=float:XMPACC_STREAM_MINBLOCKS=8"
  "d_def:REAL=double:"
  "d_near0:REAL=double:XMPACC_STREAM_NEAR=0"
  "d_scalar:REAL=double:XMPACC_STREAM_VECTOR=0"
  "d_i64:REAL=double:XMPACC_STREAM_INDEX32=0"
  "d_w4:REAL=double:XMPACC_STREAM_WALK=4"
  "d_mb0:REAL=double:XMPACC_STREAM_MINBLOCKS=0"
  "d_mb8:REAL=double:XMPACC_STREAM_MINBLOCKS=8"
)
# the 27-point sweep: 9 windows of reads, or (one point a thread) the cell's window and two windows
# of plane sums (stream_planes.py; XMPACC_STREAM_PLANE_SUMS=0: the reads); how many blocks per SM
# its registers allow decides its speed.  fp32 takes the vector walk, which keeps the reads
[ "$nest" = stencil27 ] && VARIANTS=(
  "d_def:REAL=double:" "d_nosums:REAL=double:XMPACC_STREAM_PLANE_SUMS=0"
  "d_mb3:REAL=double:XMPACC_STREAM_MINBLOCKS=3" "d_mb4:REAL=double:XMPACC_STREAM_MINBLOCKS=4"
  "d_mb5:REAL=double:XMPACC_STREAM_MINBLOCKS=5" "d_mb6:REAL=double:XMPACC_STREAM_MINBLOCKS=6"
  "f_def:REAL=float:" "f_scalar:REAL=float:XMPACC_STREAM_VECTOR=0"
  "f_scalar_mb6:REAL=float:XMPACC_STREAM_VECTOR=0 XMPACC_STREAM_MINBLOCKS=6"
)
for v in "${VARIANTS[@]}"; do
  n=${v%%:*}; rest=${v#*:}; d=${rest%%:*}; e=${rest#*:}
  (env $e xmpacc -O2 -xacc -DSPELLING=1 -D$d -DN=512 -DITER=50 $S -o j_$n >/dev/null 2>&1 || echo build-fail $n) &
done; wait
for v in "${VARIANTS[@]}"; do n=${v%%:*}; echo "$n $(XMPACC_DEVICE=cuda mpirun -np 1 ./j_$n 2>&1 | grep -E 'iter_ms|checksum|rror' | tr '\n' ' ')"; done
# the hand-written kernels of the same nest in the same job (bench/baselines.py: the best of its walks
# and block shapes is the spelling group's bar); HAND=0 leaves them out
if [ "${HAND:-1}" = 1 ] && [ "$nest" = stencil27 ]; then
  for real in double float; do
    echo "hand_$real $(mpirun -np 1 python3 $R/bench/baselines.py stencil27 --nz 512 --ny 512 --nx 512 --iter 50 --real $real \
      | python3 -c 'import json, sys; b = min((json.loads(l) for l in sys.stdin if l.startswith("{")), key=lambda r: r["iter_ms"]); print("iter_ms =", b["iter_ms"], "checksum =", b["checksum"], "(" + b["variant"] + ")")')"
  done
fi
