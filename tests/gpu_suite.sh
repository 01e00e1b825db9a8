#!/usr/bin/env bash
# The GPU tests in two halves of about five minutes each on the lent machines (the whole
# suite takes 7.5 minutes on one H200 and more than the 10 of one device call on two), each
# with its failures' tracebacks.  Run after `source tests/device_env.sh`:
#   bash tests/gpu_suite.sh a|b|all [pytest options]
# a: the compute-construct, XcalableACC and spelling tests; b: the others.  Workers:
# XMPACC_GPU_WORKERS, by default all cores but two with one GPU, a quarter of them with
# more (two ranks on two GPUs talk through NCCL, whose proxy threads spin: docs/testing.md).
# The out-of-device-memory test, which fills a GPU, is left out.
set -u
part=${1:-all}
shift || true
half_a=(tests/test_xacc_compute.py tests/test_xacc.py tests/test_spelling.py)
case $part in
  a) files=("${half_a[@]}") ;;
  b) mapfile -t files < <(grep -l "pytest.mark.gpu\|needs a CUDA GPU\|needs a GPU" tests/test_*.py \
                          | grep -v -x -F -e "${half_a[0]}" -e "${half_a[1]}" -e "${half_a[2]}") ;;
  all) files=(tests/) ;;
  *) echo "usage: $0 a|b|all [pytest options]" >&2; exit 64 ;;
esac
cores=$(nproc)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$gpus" -gt 1 ]; then default=$(( cores / 4 )); else default=$(( cores - 2 )); fi
workers=${XMPACC_GPU_WORKERS:-$(( default > 2 ? default : 2 ))}
exec python3 -P -m pytest -q -m gpu -n "$workers" -p no:cacheprovider -rfEs --tb=short \
  --deselect tests/test_gpu.py::test_out_of_device_memory_names_array_and_bytes "$@" "${files[@]}"
