#!/usr/bin/env bash
# One benchmark group of bench/run.py as one device command, on the GPUs of the machine:
# its results, plot and log copied into DIR.  Run after `. tests/device_env.sh` (xmpacc
# from this checkout, carried wheels):
#   bash bench/group_device.sh GROUP DIR [run.py options]
# DIR receives GROUP.log, GROUP-<date>-<gpu>-x<n>.json and .png, and GROUP-partial.json
# (what was measured before the job ended, where the group writes one).
set -u -o pipefail
group=${1:?usage: bench/group_device.sh GROUP DIR [options]}
out=${2:-/tmp/$group}
shift 2 || shift || true
work=/tmp/$group-run
mkdir -p "$out" "$work"
python3 bench/run.py --only "$group" --out "$work" "$@" 2>&1 | tee "$out/$group.log"
rc=$?
cp "$work"/"$group"-*.json "$work"/"$group"-*.png "$work"/build/"$group"-partial.json "$out"/ 2>/dev/null
ls -l "$out"
exit "$rc"
