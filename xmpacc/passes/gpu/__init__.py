"""Stage gpu: XcalableACC (OpenACC constructs and data) and XMP-ACC (``loop ... acc``,
``acc replicate``) on the kernel back end (passes/kernel/).

    acc_routine.py   pass: acc routine functions and their device copies
    acc_compute.py   pass: parallel / kernels constructs become kernels
    acc_data.py      pass: data regions, enter/exit data, update, wait, host_data
    gpu.py           pass: XMP-ACC loop ... acc, acc replicate, replicate_sync
    acc_orphans.py   pass: acc loop and atomic lines outside compute constructs
    the rest         their helpers (nests, regions, kernels regions, deferred reductions)
"""
