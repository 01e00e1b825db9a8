#!/usr/bin/env bash
# One job for bench/cuda/overlap_ipc.cu (issue 32, O3b): the hand-written variants under one
# and two processes at 4096^2 and 1024^2, and bench/laplace_bench.c built by xmpacc at the
# same sizes, so that each figure has its baselines from the same machine and job.
#   bash bench/cuda/overlap_ipc.sh OUTDIR        (a machine with two GPUs, one host)
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
exe=$(bash "$here/build.sh" "$out" overlap | tail -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for size in 4096:2000 1024:4000; do
  n=${size%:*} iter=${size#*:}
  for np in 1 2; do timeout 120 mpirun -np "$np" "$exe" "$n" "$n" "$iter"; done
  xmpacc -O2 -DNX="$n" -DNY="$n" -DITER="$iter" "$here/../laplace_bench.c" -o "$out/laplace_$n"
  for np in 1 2 1 2; do
    echo "xmpacc laplace_bench.c $n^2, $np process(es): $(timeout 120 mpirun -np "$np" "$out/laplace_$n" | grep -E 'iter_ms|checksum' | tr '\n' ' ')"
  done
done
