"""Stage loops: ``#pragma xmp loop`` on the host gets this node's bounds.

    loops.py       the pass
    locations.py   reductions with location variables of host loops
    hoist.py       loop-invariant descriptor reads out of the loop, for the C compiler
    openmp.py      OpenMP lines next to a loop directive, and what may not run on threads
"""
