"""Pass check: every XMP directive must have been lowered by an earlier pass.

A pragma still in the tree is a directive in a place where it has no meaning (an
executable directive at file scope, a declarative one inside an expression statement...)
or one that no pass implements yet; both are reported at the directive.  Likewise an
array section (``a[0:n]``) that no pass lowered is reported at its place.

OpenACC directives (XcalableACC) left in the tree are misplaced (an executable one at
file scope) or reported as not supported yet; an XMP ``loop`` paired with one of them
(``acc_nest``) is part of that construct and is not reported a second time.
"""

from __future__ import annotations

from xmpacc.cbuild import loc_of, walk
from xmpacc.context import Context, Unit
from xmpacc.directives import ast as xd
from xmpacc.directives.names import xmp_name
from xmpacc.directives.openacc_ast import directive_name
from xmpacc.passes.common import acc_nest
from xmpacc.passes.common.pragmas import acc_directive, pragma_id
from xmpacc.sections import triplet_calls


def run(unit: Unit, ctx: Context) -> Unit:
    paired = acc_nest.paired_xmp_loops(unit.ast, ctx)
    reported = {e.loc for e in ctx.diags.errors}  # by an earlier pass: one mistake, one message
    for node in walk(unit.ast):
        acc = acc_directive(node, ctx)
        if acc is not None and acc.loc not in reported:
            if any(node is item for item in unit.ast.ext):   # identity: never compare ASTs
                ctx.diags.error(acc.loc, f"the '{directive_name(acc)}' directive must be inside a function "
                                         "(at file scope: 'acc declare' and 'acc routine')")
            else:
                ctx.diags.error(acc.loc, f"'{directive_name(acc)}' (XcalableACC) is not supported yet")
        if pragma_id(node) is None or id(node) in paired:
            continue
        for d in ctx.directives.get(id(node), []):
            name = xmp_name(d)
            if isinstance(d, (xd.AccReplicate, xd.AccReplicateSync)) or (isinstance(d, xd.Loop) and d.acc):
                ctx.diags.error(d.loc, f"'{name}{' ... acc' if isinstance(d, xd.Loop) else ''}' "
                                       "(XMP-ACC) is not supported yet")
            elif any(node is item for item in unit.ast.ext):  # identity: never compare ASTs
                ctx.diags.error(d.loc, f"the '{name}' directive must be inside a function")
            else:
                ctx.diags.error(d.loc, f"the '{name}' directive is not allowed here")
    for call in triplet_calls(unit.ast):
        ctx.diags.error(loc_of(call), "array section ('[base:length:step]') outside an array "
                                      "assignment statement, gmove or array: not supported yet here")
    ctx.diags.check()
    return unit
