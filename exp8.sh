#!/usr/bin/env bash
source tests/device_env.sh
W=/tmp/e; mkdir -p $W
run() { mpirun -np ${NP:-1} -x XMPACC_DEVICE=cuda "$@" 2>&1 | grep -E "mflops|gosa|iter_ms|checksum|rror" | tr '\n' ' '; echo; }
xmpacc -DSIZE_L -DNN=100 bench/himeno_xacc.c -o $W/him >/dev/null 2>&1 || echo build fail
for r in 1 2; do echo -n "himeno: "; run $W/him; done
xmpacc -DNZ=512 -DNY=512 -DNX=512 -DITER=50 bench/jacobi3d_bench.c -o $W/jac >/dev/null 2>&1 || echo build fail
for r in 1 2; do echo -n "jacobi: "; run $W/jac; done
xmpacc -DNX=8192 -DNY=8192 -DITER=100 bench/laplace_bench.c -o $W/lap >/dev/null 2>&1 || echo build fail
for r in 1 2; do echo -n "laplace: "; run $W/lap; done
xmpacc -DNX=16384 -DNY=16384 -DITER=100 bench/laplace_bench.c -o $W/lap16 >/dev/null 2>&1 || echo build fail
echo -n "laplace 16384: "; run $W/lap16
python3 -P -m pytest -q -m gpu tests/test_streaming.py tests/test_himeno.py tests/test_staging.py tests/test_xacc_compute.py 2>&1 | tail -3
