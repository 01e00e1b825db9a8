#!/usr/bin/env bash
# Device run of the XMP-ACC samples on the cuda backend under mpirun -np 1, 2 and 4, each
# next to its serial build's output (used for the closing notes; tests/test_gpu.py checks).
set -u
out=${1:-/tmp/gpu_samples}
mkdir -p "$out"
for pair in nbody/nbody_acc:nbody/nbody_serial fig3/fig3_acc:fig3/fig3_serial laplace/laplace_acc:laplace/laplace_serial; do
  acc=${pair%%:*}; serial=${pair##*:}
  cc -O2 -w "samples/$serial.c" -lm -o "$out/serial" && echo "== $ ./$(basename $serial)" && "$out/serial"
  echo "== $ xmpacc -O2 samples/$acc.c -o $(basename $acc)"
  xmpacc -O2 "samples/$acc.c" -o "$out/$(basename $acc)" || continue
  for n in 1 2 4; do
    echo "== $ XMPACC_DEVICE=cuda XMPACC_VERBOSE=1 mpirun -np $n ./$(basename $acc)"
    XMPACC_DEVICE=cuda XMPACC_VERBOSE=1 mpirun -np "$n" "$out/$(basename $acc)" 2>&1
    echo "(exit $?)"
  done
done
