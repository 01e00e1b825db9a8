"""Pass nocomm (stage declare): collective directives inside ``task ... nocomm`` are errors
(global-view §6).  It runs before the passes that lower loops and communication, while
every directive of the body is still a pragma.

    #pragma xmp task on p[0] nocomm
    {
    #pragma xmp barrier              error: 'barrier' inside a 'task ... nocomm': ...
    }

Nothing in the AST changes.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.directives import ast as xd
from xmpacc.passes.attach import pragma_id
from xmpacc.passes.tasks import check_nocomm_body


def run(unit: Unit, ctx: Context) -> Unit:
    for node in walk(unit.ast):
        if not isinstance(node, c_ast.Compound):
            continue
        items = node.block_items or []
        for k, item in enumerate(items[:-1]):
            if pragma_id(item) is None:
                continue
            if any(isinstance(d, xd.Task) and d.nocomm for d in ctx.directives.get(id(item), [])):
                check_nocomm_body(items[k + 1], ctx)
    return unit
