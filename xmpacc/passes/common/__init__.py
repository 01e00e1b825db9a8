"""What passes of several stages share: helpers and value types, never a pass.

    values.py        Kernel, Param, KernelVars, Replicated, LanePlan (passed between stages)
    describe.py      what --info reports of a directive (facts.py values from the passes' symbols)
    pragmas.py       the directives of a pragma node (pragma_id, directives_of, acc_directive)
    blocks.py        rewriting a block's statements (BlockLowering, rewrite_block)
    canonical.py     canonical for loops; loopnest.py, loopsched.py: distributed loop nests
    onrefs.py        on-refs and the loop directive's indices and template
    descriptors.py   the runtime calls that declare nodes, templates and aligned arrays
    shadows.py, reductions.py, acc_comm.py, acc_clauses.py   communication and OpenACC clauses
    accesses.py, varrefs.py, coindex.py, acc_nest.py, openacc_calls.py   analysis helpers
"""
