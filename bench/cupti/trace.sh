#!/usr/bin/env bash
# Run a command under bench/cupti/cupti_trace.c (built here with the CUDA toolkit's CUPTI)
# and print its GPU timeline (bench/cupti/timeline.py):
#   bash bench/cupti/trace.sh DIR [--anchor REGEX] -- COMMAND...
# DIR receives trace-<pid>.csv of every process and timeline.txt.  CUPTI_TRACE_DRIVER=1
# also records the driver API calls (host time).
set -u -o pipefail
dir=${1:?usage: bench/cupti/trace.sh DIR [timeline options] -- COMMAND...}
shift
opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
shift || true
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
rm -f "$dir"/trace-*.csv
# CUPTI's header and library: the toolkit's, or the nvidia-cuda-cupti wheel's
inc= lib=
for d in /usr/local/cuda/include /usr/local/cuda/extras/CUPTI/include \
         $(python3 -c "import nvidia, os; print(' '.join(os.path.join(p, s, 'include') for p in nvidia.__path__ for s in os.listdir(p)))" 2>/dev/null); do
  [ -f "$d/cupti.h" ] && { inc=$d; break; }
done
for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib "${inc%/include}/lib"; do
  ls "$d"/libcupti.so* >/dev/null 2>&1 && { lib=$d; break; }
done
[ -n "$inc" ] && [ -n "$lib" ] || { echo "trace.sh: no CUPTI header or library found" >&2; exit 1; }
so=$dir/libcupti_trace.so
cupti=$(ls "$lib"/libcupti.so* | head -1)
gcc -O2 -shared -fPIC -I"$inc" "$here/cupti_trace.c" "$cupti" -Wl,-rpath,"$lib" -o "$so" || exit 1
CUDA_INJECTION64_PATH=$(cd "$dir" && pwd)/libcupti_trace.so CUPTI_TRACE_DIR=$(cd "$dir" && pwd) "$@"
rc=$?
python3 "$here/timeline.py" "$dir" "${opts[@]}" | tee "$dir/timeline.txt"
exit $rc
