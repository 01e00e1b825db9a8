/* xmp.h: the XcalableMP library, as Omni's xmp.h is to its programs: <mpi.h> (MPI_Wtime,
 * MPI_Get_processor_name ... compile and link in a file that includes xmp.h; xmpacc
 * compiles such a file against the MPI that mpi4py uses, mpi_flags.py) and every
 * function of the XMP C API (xmpacc_api.h, with xmp_get_mpi_comm()). */
#ifndef XMP_H
#define XMP_H

#include <mpi.h>
#include "xmpacc_api.h"

#endif
