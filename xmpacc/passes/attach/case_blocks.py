"""Pass case_blocks: the statements of a ``case`` (or ``default``) that hold a directive
become one block.

Before:  Case(1, stmts=[Assignment(s = 1), Pragma('xmp_7'), Break])
After:   Case(1, stmts=[Compound([Assignment(s = 1), Pragma('xmp_7'), Break])])

pycparser gives the statements after a ``case`` label as a list that is no block, and the
passes rewrite directives in blocks (passes/common/blocks.py): a directive in that list
was reported as misplaced.  A block of the same statements means the same in C (``break``
leaves the switch from inside it), except for a declaration, whose scope would end with
the block while a later case may use it: such a case is left as it is.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit


def run(unit: Unit, ctx: Context) -> Unit:
    for node in walk(unit.ast):
        if isinstance(node, (c_ast.Case, c_ast.Default)) and node.stmts \
                and any(isinstance(s, c_ast.Pragma) for s in node.stmts) \
                and not any(isinstance(s, c_ast.Decl) for s in node.stmts):
            node.stmts = [c_ast.Compound(list(node.stmts), node.stmts[0].coord)]
    return unit
