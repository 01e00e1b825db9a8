#!/usr/bin/env bash
# More processes than GPUs (issue 14's "what the lent kinds allow"): the XMP-ACC and
# XcalableACC samples under mpirun -np N (default 8) on the cuda backend, ranks sharing the
# GPUs round-robin, each output compared with its serial build's.
#   bash tests/gpu_oversubscribed.sh [N]
set -u
n=${1:-8}; out=$(mktemp -d); fails=0
for pair in laplace/laplace_acc:laplace/laplace_serial nbody/nbody_acc:nbody/nbody_serial \
            xacc/laplace_xacc:laplace/laplace_serial xacc/nbody_xacc:nbody/nbody_serial; do
  acc=${pair%%:*}; serial=${pair##*:}
  cc -O2 -w "samples/$serial.c" -lm -o "$out/serial" && "$out/serial" > "$out/expected"
  xmpacc -O2 "samples/$acc.c" -lm -o "$out/prog" || { fails=$((fails + 1)); continue; }
  if XMPACC_DEVICE=cuda XMPACC_VERBOSE=1 mpirun -np "$n" "$out/prog" > "$out/got" 2> "$out/err" \
     && python3 "$(dirname "$0")/compare_output.py" "$out/got" "$out/expected"
  then echo "ok    $acc  np=$n  ($(grep -c 'uses GPU' "$out/err") ranks on $(grep -o 'uses GPU [0-9]*' "$out/err" | sort -u | wc -l) GPUs)"
  else echo "FAIL  $acc  np=$n"; cat "$out/got" "$out/err" | tail -20; fails=$((fails + 1)); fi
done
echo "$fails failure(s)"
[ $fails = 0 ]
