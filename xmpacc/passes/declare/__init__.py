"""Stage declare: the symbol tables of nodes, templates, distributions, aligned arrays and
coarrays, and the checks of each directive's C expressions.

    coarray_decls.py    pass: coarray declarations become plain C and a registration
    declare.py          pass: nodes, template, distribute, align, shadow into the scopes
    directive_exprs.py  pass: the C expressions of every directive, typed and checked
    nocomm.py           pass: no collective directive inside 'task ... nocomm'
    align.py            align of arrays (declare's helper)
    member_align.py     align of structure members (global-view §8)
"""
