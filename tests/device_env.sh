# Sourced at the start of a device-machine command (see README "GPU tests"): installs
# xmpacc from this checkout plus the carried wheels (.whl: pycparser, pycparser-fake-libc)
# into /tmp/site over the image's Python (CuPy, mpi4py on Open MPI), and sets what Open MPI
# needs as root.  The MPI there is not CUDA-aware; NVLink SHARP stays off for NCCL.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --no-build-isolation --target /tmp/site .whl/*.whl . >/tmp/site-install.log 2>&1 \
  || { cat /tmp/site-install.log; return 1 2>/dev/null || exit 1; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0
