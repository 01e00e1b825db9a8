"""Stage locality: reads and writes in a ``loop`` that may leave the node's block, found
before localize rewrites the subscripts.  Nothing in the AST changes.

    locality.py          the pass
    findings.py          where one subscript may fall (LoopInfo, Finding)
    locality_messages.py the words and the fix of each finding
    reflect_flow.py      which shadows are fresh where (the reflect data flow)
    shadow_state.py      the values of that data flow
"""
