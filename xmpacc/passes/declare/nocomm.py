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
from xmpacc.directives.names import COLLECTIVES, xmp_name
from xmpacc.passes.common.pragmas import directives_of, pragma_id


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


def _collective(d: xd.Directive) -> str | None:
    if isinstance(d, xd.Task):
        return None if d.nocomm else "task"
    if isinstance(d, xd.Loop) and d.reductions:
        return "loop with a reduction clause"
    return xmp_name(d) if type(d) in COLLECTIVES else None



def check_nocomm_body(body: c_ast.Node, ctx: Context) -> None:
    """Report every collective directive inside the body of a ``task ... nocomm``."""
    for node in walk(body):
        for d in directives_of(node, ctx):
            name = _collective(d)
            if name is not None:
                ctx.diags.error(d.loc, f"'{name}' inside a 'task ... nocomm': the task has no node set "
                                       "to communicate in (remove 'nocomm')")
