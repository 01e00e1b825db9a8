#!/usr/bin/env bash
# Which Open MPI one-sided settings make MPI windows on this machine?  Host coarrays and
# gmove in/out need MPI_Win_create over the program's memory, post/wait/sync_images/critical
# MPI_Win_allocate (docs/clusters.md).  Prints one line per setting and process count with
# how many ranks made each kind of window.  Run where mpirun and mpi4py are (the device
# machine: after `source tests/device_env.sh`, which sets the result found there).
set -u
ompi_info 2>/dev/null | grep -E "MCA (osc|btl|pml)"
create='import numpy as np; from mpi4py import MPI; w=MPI.Win.Create(np.zeros(16), 8, comm=MPI.COMM_WORLD); w.Free(); print("create-ok")'
alloc='from mpi4py import MPI; w=MPI.Win.Allocate(64, 8, comm=MPI.COMM_WORLD); w.Free(); print("alloc-ok")'
for setting in "" "OMPI_MCA_osc=rdma" "OMPI_MCA_osc=ucx" "OMPI_MCA_osc=sm" "OMPI_MCA_osc=pt2pt" \
               "OMPI_MCA_osc=rdma OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=cma" \
               "OMPI_MCA_osc=sm,rdma OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=cma"; do
  for np in 1 2; do
    made=""
    for code in "$create" "$alloc"; do
      made+="$(env -u OMPI_MCA_osc -u OMPI_MCA_btl -u OMPI_MCA_btl_vader_single_copy_mechanism $setting \
               timeout 20 mpirun -np $np python3 -c "$code" 2>/dev/null | grep -c -- -ok) "
    done
    echo "[$setting] np=$np: ranks that made a window (create, allocate): $made"
  done
done
