"""Pass attach: parse the text of every ``#pragma xmp_<id>`` into directive objects.

Before:  Pragma('xmp_3')          + RawDirective(3, "loop on t(i) reduction(+:s)")
After:   ctx.directives[id(pragma)] = [Loop(on=OnTemplate(t, (i,)), reductions=(...))]

Every directive of the file is parsed, so all syntax errors are reported in one run.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.directives.parser import parse_directive


def pragma_id(node: c_ast.Node) -> int | None:
    """The directive id of an XMP pragma node, None for other pragmas."""
    if isinstance(node, c_ast.Pragma) and node.string.startswith("xmp_"):
        return int(node.string[4:])
    return None


def run(unit: Unit, ctx: Context) -> Unit:
    for node in walk(unit.ast):
        ident = pragma_id(node)
        if ident is None:
            continue
        raw = unit.pre.directives[ident]
        try:
            ctx.directives[id(node)] = parse_directive(raw.text, raw.locs)
        except XmpError as err:
            ctx.diags.add(err)
    ctx.diags.check()
    return unit
