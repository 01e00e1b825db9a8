"""Rewriting the statements of a block, the loop that the lowering passes share.

A pass walks a block's statements once; a directive usually owns the statement after it
and both become generated code, every other statement is visited and kept:

    { s0; #pragma xmp_3; s1; s2; }   ->   { s0; <lowered directive 3 and s1>; s2; }

The pass gives ``rewrite_block`` a function that, at statement ``i``, returns what replaces
the statements it consumed and how many it consumed (1 or more).
"""

from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from xmpacc.context import Context
from xmpacc.passes.common.pragmas import pragma_id
from xmpacc.scoping import ScopedWalker
from xmpacc.symbols import ScopeTree

Lowered = tuple[list[c_ast.Node], int]   # the replacement, and how many statements it replaces


def rewrite_block(node: c_ast.Compound, lower_at: Callable[[list[c_ast.Node], int], Lowered]) -> None:
    node.block_items = rewrite_items(list(node.block_items or []), lower_at)


def rewrite_items(items: list[c_ast.Node],
                  lower_at: Callable[[list[c_ast.Node], int], Lowered]) -> list[c_ast.Node]:
    """The statements that replace ``items`` (``rewrite_block`` without storing them)."""
    out: list[c_ast.Node] = []
    i = 0
    while i < len(items):
        replacement, used = lower_at(items, i)   # used >= 1
        out += replacement
        i += used
    return out


class BlockLowering(ScopedWalker):
    """A walk over a unit's scopes that rewrites every block with ``lower_at``: the shape
    of passes array, gmove, loops, comm and acc_data (and, with more state, gpu and
    acc_compute, which override ``visit_Compound``).  Subclasses alike in shape (their own
    counter in ``__init__``, then ``lower_at`` taking ``items[i]``) are this pattern, not
    a job written twice."""

    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree)
        self.ctx = ctx

    def visit_Compound(self, node: c_ast.Compound) -> None:
        rewrite_block(node, self.lower_at)

    def lower_at(self, items: list[c_ast.Node], i: int) -> Lowered:
        """What replaces ``items[i]`` (and the statements it owns), and how many it replaces."""
        raise NotImplementedError


def owned_statement(items: list[c_ast.Node], i: int) -> c_ast.Node | None:
    """The statement after ``items[i]`` that an XMP directive there owns: None at the end of
    the block and before another XMP directive."""
    return items[i + 1] if i + 1 < len(items) and pragma_id(items[i + 1]) is None else None
