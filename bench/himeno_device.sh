#!/usr/bin/env bash
# Device run of the Himeno benchmark (issue 11, goals H1-H3), in one command:
#   1. the hand-written kernels (every variant, both data flows) against the NumPy
#      reference at size S, on every process grid the machine's GPUs allow;
#   2. python3 bench/run.py --only himeno (size L, 1, 2, 4 GPUs as present).
# Run after `. tests/device_env.sh` (xmpacc from this checkout, carried wheels):
#   bash bench/himeno_device.sh DIR     DIR receives checks.jsonl, checks.log and the
#                                       results himeno-<date>-<gpu>-x<n>.json / .png
set -u
out=${1:-/tmp/himeno}; work=/tmp/himeno-run
mkdir -p "$out" "$work"
gpus=$(python3 -c "import cupy; print(cupy.cuda.runtime.getDeviceCount())")
: > "$out/checks.jsonl"
for g in 1x1 2x1 1x2 2x2 4x1; do
  n=$(( ${g%x*} * ${g#*x} ))
  [ "$n" -le "$gpus" ] || continue
  echo "== hand-written kernels vs NumPy reference, grid $g" | tee -a "$out/checks.log"
  mpirun -np "$n" python3 bench/himeno_hand.py check --size S --iter 5 --grid "$g" \
    >> "$out/checks.jsonl" 2>> "$out/checks.log" || echo "(exit $?)" | tee -a "$out/checks.log"
done
python3 - "$out/checks.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
bad = [r for r in rows if not r["ok"]]
print(f"checks: {len(rows)} runs, {len(bad)} wrong; largest |p - ref| = "
      f"{max((r['max_abs_err_p'] for r in rows), default=float('nan')):.3g}")
for r in bad:
    print("WRONG", json.dumps(r))
PY
python3 bench/run.py --only himeno --out "$work" && cp "$work"/himeno-*.json "$work"/himeno-*.png "$out"/ 2>/dev/null
ls -l "$out"
