#!/usr/bin/env bash
# O3b's forms side by side in one job (docs/performance.md, "O3b: the tail and dependent
# launch"): bench/laplace_bench.c on one GPU and on two with the push, built by an earlier
# xmpacc (OLD: a source tree, installed apart) and by this one, with and without
# programmatic dependent launch (XMPACC_DEPENDENT_LAUNCH=0), this one with the grid's
# rows never reversed (the push header's flip taken out, in a copy of the install), and
# this one's transport (XMPACC_PUSH=0); runs alternate, every checksum printed.  After
# `. tests/device_env.sh` (this tree in /tmp/site):
#   bash bench/o3b_check.sh DIR [OLD] [SIZES] [ITER]
set -u
out=${1:?DIR}; old=${2:-}; sizes=${3:-4096}; iters=${4:-2000}
mkdir -p "$out"
xmp() { python3 -P -c "import sys; from xmpacc.cli import main; sys.exit(main())" "$@"; }
if [ -n "$old" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-build-isolation --target "$out/site-old" "$old" \
    >"$out/old-install.log" 2>&1 || { cat "$out/old-install.log"; exit 1; }
fi
# the same install without the flip: _xmpacc_push_interior never reverses the rows
rm -rf "$out/site-noflip" && cp -r /tmp/site "$out/site-noflip"
H=$(find "$out/site-noflip" -name xmpacc_push.h -path '*runtime/include*')
sed -i 's/  p->flip = p->lo > 0 \&\& p->hi == whole->count - 1;/  p->flip = 0;/' "$H"
grep -q "p->flip = 0;" "$H" || { echo "o3b_check: the flip is not where expected"; exit 1; }
build() {   # tree-label site n
  PYTHONPATH=$2:/tmp/site xmp -DNX=$3 -DNY=$3 -DITER=$iters bench/laplace_bench.c -o "$out/lb-$1-$3"
}
for n in $sizes; do
  build new /tmp/site "$n" || exit 1
  build noflip "$out/site-noflip" "$n" || exit 1
  [ -n "$old" ] && { build old "$out/site-old" "$n" || exit 1; }
done
run() {   # label tree np env...
  local label=$1 tree=$2 np=$3 site=/tmp/site; shift 3
  [ "$tree" = old ] && site=$out/site-old
  [ "$tree" = noflip ] && site=$out/site-noflip
  printf '%-30s ' "$label"
  env PYTHONPATH="$site:/tmp/site" CUPY_CACHE_DIR="/tmp/o3b-cache-$tree" "$@" XMPACC_STATS=1 \
    mpirun -np "$np" "$out/lb-$tree-$n" 2>&1 \
    | awk '/iter_ms|checksum/{printf "%s ", $0}
           /"rank": 0/{if (match($0, /"pushed_reflects": [0-9]+/)) printf "%s ", substr($0, RSTART, RLENGTH)}
           /rror/{print; exit}
           END{print ""}'
}
for n in $sizes; do
  echo "== ${n}^2, $iters sweeps"
  for rep in 1 2; do
    [ -n "$old" ] && { run "old 1 GPU" old 1; run "old 2 GPUs push" old 2; }
    run "new 1 GPU" new 1
    run "new 2 GPUs push" new 2
    run "new 1 GPU, no dependent" new 1 XMPACC_DEPENDENT_LAUNCH=0
    run "new 2 GPUs push, no dependent" new 2 XMPACC_DEPENDENT_LAUNCH=0
    run "noflip 2 GPUs push" noflip 2
    run "new 2 GPUs XMPACC_PUSH=0" new 2 XMPACC_PUSH=0
  done
done
