#!/usr/bin/env bash
# Device check of reflect ... acc on a 2-D process grid (non-contiguous column halos
# through NCCL) with several processes per GPU: the checksum must not depend on the grid.
set -u
d=${1:-/tmp/grid2d}; mkdir -p "$d"
xmpacc -O2 bench/laplace_bench.c -DNX=512 -DNY=384 -DITER=20 -o "$d/l1d" 2>/dev/null
xmpacc -O2 bench/laplace_bench.c -DNX=512 -DNY=384 -DITER=20 -DGRID2D -o "$d/l2d" 2>/dev/null
echo "== 1-D, 1 process";  XMPACC_DEVICE=cuda mpirun -np 1 "$d/l1d" | grep checksum
for n in 2 4; do
  echo "== 2-D grid p[*][2], $n processes"; XMPACC_DEVICE=cuda XMPACC_VERBOSE=1 mpirun -np $n "$d/l2d" 2>&1 | grep -vE "^(nodes|iter_ms)"
done
