"""Stage localize: declarations become local blocks and runtime calls, and every access of
a distributed array a local subscript; the statements the global view gives a meaning
(array assignments, gmove, array, coarray references, the XMP library) become code.

    coarrays.py      pass: coindexed references and local-view directives
    lower_decls.py   pass: declarative directives as runtime calls, arrays as local blocks
    members.py       pass: aligned structure members of each object
    dynamic.py       pass: template_fix and templates fixed at run time
    library.py       pass: calls of the XMP library and intrinsics
    array.py         pass: the array directive
    gmove.py         pass: gmove
    assign.py        pass: array assignments on local arrays
    subscripts.py    pass: global subscripts become local ones
    assignments.py, coarray_code.py, intrinsic_calls.py   their helpers
"""
