#!/usr/bin/env bash
# Device run of the spelling benchmark (issue 31, goals Y1-Y4) in one command, on one GPU:
# python3 bench/run.py --only spelling (every spelling of bench/spelling/, the copy bandwidth
# and the hand-written kernels), its results, plot and log copied into DIR.  Run after
# `. tests/device_env.sh` (xmpacc from this checkout, carried wheels):
#   bash bench/spelling_device.sh DIR            DIR receives spelling.log, the results
#   bash bench/spelling_device.sh DIR --quick    spelling-<date>-<gpu>-x<n>.json and .png,
#                                                and spelling-partial.json (what was measured
#                                                before the job ended, should it be stopped)
set -u -o pipefail
out=${1:-/tmp/spelling}
shift || true
work=/tmp/spelling-run
mkdir -p "$out" "$work"
python3 bench/run.py --only spelling --out "$work" "$@" 2>&1 | tee "$out/spelling.log"
rc=$?
cp "$work"/spelling-*.json "$work"/spelling-*.png "$work"/build/spelling-partial.json "$out"/ 2>/dev/null
ls -l "$out"
exit "$rc"
