#!/usr/bin/env bash
# The overlapped reflect of bench/laplace_bench.c at 4096^2 (and the exchange at 1024^2) on
# two GPUs under NCCL's settings that decide how much of the GPU its exchange takes while the
# interior runs: channels (NCCL_MAX_NCHANNELS: blocks that poll during the exchange), the
# protocol, and copies by the copy engine (NCCL_P2P_USE_CUDA_MEMCPY).  Three runs of each, in
# one job; the 1-GPU sweep first (the efficiency's numerator).  Run from the repository root
# on a two-GPU machine after `source tests/device_env.sh`:  bash bench/overlap_nccl.sh
R=$(pwd); mkdir -p /tmp/overlap-nccl && cd /tmp/overlap-nccl || exit 1
for n in 4096 1024; do
  it=$(( n == 4096 ? 1000 : 4000 ))
  xmpacc -O2 -DNX=$n -DNY=$n -DITER=$it "$R/bench/laplace_bench.c" -o lap$n || exit 1
done
run() {  # label procs size env...
  local label=$1 np=$2 n=$3; shift 3
  for k in 1 2 3; do
    echo "$label n=$n np=$np $(env XMPACC_DEVICE=cuda "$@" mpirun -np "$np" ./lap$n 2>&1 | grep -E 'iter_ms|rror' | tr '\n' ' ')"
  done
}
run "1 GPU" 1 4096
for n in 4096 1024; do
  run "default" 2 $n
  run "channels 1" 2 $n NCCL_MAX_NCHANNELS=1
  run "channels 2" 2 $n NCCL_MAX_NCHANNELS=2
  run "protocol LL" 2 $n NCCL_PROTO=LL
  run "protocol Simple" 2 $n NCCL_PROTO=Simple
  run "copy engine" 2 $n NCCL_P2P_USE_CUDA_MEMCPY=1
  run "not overlapped" 2 $n XMPACC_OVERLAP_BYTES=999999999999
done
