#!/usr/bin/env bash
# The pushed halo exchange (runtime/acc_push.py, include/xmpacc_push.h) next to the
# transport's, in one job: bench/laplace_bench.c at 1024^2 and 4096^2 on one GPU, on two with
# the push (the default) and on two with XMPACC_PUSH=0 (NCCL on the exchange stream, as
# before), three runs each, alternating; every checksum printed.  After `. tests/device_env.sh`:
#   bash bench/push_check.sh DIR [ITER]
set -u
out=${1:?DIR}; iters=${2:-2000}
mkdir -p "$out/push-build"
for n in 1024 4096; do
  xmpacc -DNX=$n -DNY=$n -DITER=$iters bench/laplace_bench.c -o "$out/push-build/lb$n" || exit 1
done
run() {   # label np env...
  local label=$1 np=$2; shift 2
  printf '%-28s ' "$label"
  env "$@" XMPACC_STATS=1 mpirun -np "$np" "$out/push-build/lb$n" 2>&1 \
    | awk '/iter_ms|checksum/{printf "%s ", $0}
           /"rank": 0/{if (match($0, /"pushed_reflects": [0-9]+/)) printf "%s ", substr($0, RSTART, RLENGTH)}
           END{print ""}'
}
for n in 1024 4096; do
  echo "== ${n}^2, $iters sweeps"
  for rep in 1 2 3; do
    run "1 GPU" 1
    run "2 GPUs push" 2
    run "2 GPUs XMPACC_PUSH=0" 2 XMPACC_PUSH=0
  done
done
