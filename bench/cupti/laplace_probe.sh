#!/usr/bin/env bash
# Where O3b's time goes (bench/overhead_goals.py): bench/laplace_bench.c at 4096^2 on 1 and
# 2 GPUs (overlapped, and built without the overlap), and at 2048 x 4096 on 1 GPU (one GPU's
# share of the 2-GPU run with no exchange: the floor of a 2-GPU sweep), timed plainly and
# then traced (bench/cupti/trace.sh).  Run after `. tests/device_env.sh`:
#   bash bench/cupti/laplace_probe.sh DIR [ITER]
set -u
out=${1:-/tmp/probe}
iter=${2:-1000}
repo=$(cd "$(dirname "$0")/../.." && pwd)
w=/tmp/probe-build
mkdir -p "$out" "$w"
export XMPACC_DEVICE=cuda
b() { (cd "$w" && xmpacc -O2 "$@") || exit 1; }
b -DNX=4096 -DNY=4096 -DITER="$iter" "$repo/bench/laplace_bench.c" -o lap4096 &
b -DNX=2048 -DNY=4096 -DITER="$iter" "$repo/bench/laplace_bench.c" -o lap2048 &
XMPACC_REFLECT_OVERLAP=0 b -DNX=4096 -DNY=4096 -DITER="$iter" "$repo/bench/laplace_bench.c" -o lap4096_first &
wait
runs=("1 lap4096" "2 lap4096" "1 lap2048" "2 lap4096_first")
for r in "${runs[@]}"; do
  set -- $r
  for k in 1 2 3; do
    echo "== $2 on $1 GPU(s), run $k: $(mpirun -np "$1" "$w/$2" | grep iter_ms)"
  done
done
for r in "${runs[@]}"; do
  set -- $r
  echo "== trace: $2 on $1 GPU(s)"
  bash "$repo/bench/cupti/trace.sh" "$out/$2-np$1" --show 1 -- mpirun -np "$1" "$w/$2" | grep -v "^nodes\|^checksum"
done
