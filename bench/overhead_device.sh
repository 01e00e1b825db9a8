#!/usr/bin/env bash
# Device run of the overhead benchmark (issue 32, goals O1-O3) in one command: python3
# bench/run.py --only overhead (Laplace 256^2, 1024^2, 4096^2 with xmpacc and with the
# hand-written CUDA C + NCCL of bench/cuda/, on 1 GPU and, where the machine has two, on 2;
# bench/launch_bench.c next to bench/cuda/launch_cuda.cu, cuLaunchKernel in hand-written C,
# and the CuPy driver launch), its results and log copied into DIR.
# Run after `. tests/device_env.sh` (xmpacc from this checkout, carried wheels):
#   bash bench/overhead_device.sh DIR     DIR receives overhead.log and the results
#                                         overhead-<date>-<gpu>-x<n>.json
set -u -o pipefail
out=${1:-/tmp/overhead}
shift || true
work=/tmp/overhead-run
mkdir -p "$out" "$work"
python3 bench/run.py --only overhead --out "$work" "$@" 2>&1 | tee "$out/overhead.log"
rc=$?
cp "$work"/overhead-*.json "$out"/ 2>/dev/null
ls -l "$out"
exit "$rc"
