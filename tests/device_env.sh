# Sourced at the start of a device-machine command (see docs/testing.md "GPU tests"):
# installs the carried wheels (.whl: pycparser, pycparser-fake-libc, and setuptools, since
# pyproject.toml needs setuptools >= 77 and the image's may be older) into /tmp/site over the
# image's Python (CuPy, mpi4py on Open MPI), then xmpacc from this checkout, built with that
# setuptools; and sets what Open MPI needs as root.  The MPI there is not CUDA-aware;
# NVLink SHARP stays off for NCCL.
_xmpacc_pip() {
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$@" \
    >>/tmp/site-install.log 2>&1
}
: >/tmp/site-install.log
_xmpacc_pip .whl/*.whl || { cat /tmp/site-install.log; return 1 2>/dev/null || exit 1; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
_xmpacc_pip --no-build-isolation . || { cat /tmp/site-install.log; return 1 2>/dev/null || exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0
# MPI_Win_create over a program's memory (host coarrays, gmove in/out) fails there with the
# default one-sided component; osc/rdma over vader with CMA makes it under 2 or more
# processes (none does under one), osc/sm the allocated windows of post/wait (docs/clusters.md)
export OMPI_MCA_osc=sm,rdma OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=cma
