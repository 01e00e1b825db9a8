#!/usr/bin/env bash
# The streaming knobs (XMPACC_STREAM_WHOLE, _MINBLOCKS, _WALK at compile time) on the 3-D
# 7-point 512^3 sweep of bench/spelling/jacobi3d_spell.c (spelling 1), fp32 and fp64, one run
# each on the cuda backend: how bench/results/stream-knobs-*.txt was measured.  Run from
# the repository root on a GPU machine after `source tests/device_env.sh`.
R=$(pwd); mkdir -p /tmp/fp32b && cd /tmp/fp32b; S=$R/bench/spelling/jacobi3d_spell.c
for v in "f_def:REAL=float:" "f_whole_mb0:REAL=float:XMPACC_STREAM_WHOLE=1 XMPACC_STREAM_MINBLOCKS=0" "f_whole_mb4:REAL=float:XMPACC_STREAM_WHOLE=1 XMPACC_STREAM_MINBLOCKS=4" "f_whole_mb0_w4:REAL=float:XMPACC_STREAM_WHOLE=1 XMPACC_STREAM_MINBLOCKS=0 XMPACC_STREAM_WALK=4" "d_def:REAL=double:" "d_whole_mb0:REAL=double:XMPACC_STREAM_WHOLE=1 XMPACC_STREAM_MINBLOCKS=0" "d_whole_mb4:REAL=double:XMPACC_STREAM_WHOLE=1 XMPACC_STREAM_MINBLOCKS=4"; do
  n=${v%%:*}; rest=${v#*:}; d=${rest%%:*}; e=${rest#*:}
  (env $e xmpacc -O2 -xacc -DSPELLING=1 -D$d -DN=512 -DITER=50 $S -o j_$n >/dev/null 2>&1 || echo build-fail $n) &
done; wait
for n in f_def f_whole_mb0 f_whole_mb4 f_whole_mb0_w4 d_def d_whole_mb0 d_whole_mb4; do echo "$n $(XMPACC_DEVICE=cuda mpirun -np 1 ./j_$n 2>&1 | grep -E 'iter_ms' | tr '\n' ' ')"; done
