"""The kernel back end that passes acc_compute and gpu share (and host loops' location
bookkeeping reuses): one outlined kernel with its launch, whatever the directive spelling.

    kernel_gen.py    generate(): a loop nest spec in, a Kernel and its host launch out
    kernels.py       parameters, prologue, guard and launch text of a kernel
    kernel_vars.py   what each name of the body becomes on the device
    kernel_*.py      arrays, private copies, members, VLAs, ranges, location reductions
    lanes.py         an inner loop split over the lanes of a warp
    streaming.py, stream_rows.py, stream_walk.py   streaming stencils along one loop
    stream_vector.py                             4 points of the innermost loop per thread (float)
    acc_atomic.py    acc atomic statements in device code
"""
