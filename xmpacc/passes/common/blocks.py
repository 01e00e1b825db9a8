"""Rewriting the statements of a block, the loop that the lowering passes share.

A pass walks a block's statements once; a directive usually owns the statement after it
and both become generated code, every other statement is visited and kept:

    { s0; #pragma xmp_3; s1; s2; }   ->   { s0; <lowered directive 3 and s1>; s2; }

The pass gives ``rewrite_block`` a function that, at statement ``i``, returns what replaces
the statements it consumed and how many it consumed (1 or more).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pycparser import c_ast

from xmpacc.context import Context
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AccAtomic, AccCompute, AccData, AccHostData, AccLoop
from xmpacc.passes.common.pragmas import acc_directive, directives_of, is_directive, pragma_id
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


# The directive lines that apply to the statement after them (constructs), of both dialects.
_ACC_CONSTRUCTS = (AccData, AccHostData, AccCompute, AccLoop, AccAtomic)
_XMP_CONSTRUCTS = (xd.Loop, xd.Task, xd.Tasks, xd.Gmove, xd.ArrayDirective, xd.AccReplicate)


def is_construct(node: c_ast.Node, ctx: Context) -> bool:
    """Is ``node`` a directive line that applies to the statement after it (OpenACC data,
    host_data, parallel, kernels, loop, atomic; XMP loop, task, tasks, gmove, array, acc
    replicate)?  Executable lines (update, reflect, barrier ...) and ``acc declare`` are not."""
    d = acc_directive(node, ctx)
    if d is not None:
        return isinstance(d, _ACC_CONSTRUCTS)
    return any(isinstance(x, _XMP_CONSTRUCTS) for x in directives_of(node, ctx))


def construct_statement(items: Sequence[c_ast.Node], i: int,
                        ctx: Context) -> tuple[c_ast.Node | None, int]:
    """The statement that the construct line ``items[i]`` applies to, and the index after it.

    A construct line with its statement is a statement (OpenACC 2.x: a construct applies to
    the structured block after it), so lines stacked without braces apply to the one
    statement after the last, and the inner lines with it are the outer line's statement,
    to any depth, given as one compound statement:

        #pragma acc data copy(x)             #pragma acc data copy(x)
        #pragma acc data copy(y)       ->    { #pragma acc data copy(y)
        #pragma acc parallel loop              #pragma acc parallel loop
        for (...) ...                          for (...) ... }

    (None, i + 1) at the end of the block or before a line that is no construct (C: such
    a line is not a statement)."""
    k = i + 1
    while k < len(items) and is_construct(items[k], ctx):
        k += 1
    if k >= len(items) or is_directive(items[k]):
        return None, i + 1
    if k == i + 1:
        return items[k], k + 1
    return c_ast.Compound(list(items[i + 1:k + 1]), items[i + 1].coord), k + 1


def reported_inside(items: Sequence[c_ast.Node], i: int, ctx: Context) -> bool:
    """Where the construct ``items[i]`` has no statement (construct_statement): is the line
    after it a construct, which has none either and says so?  (One mistake, one message:
    the outer line goes without a message of its own.)"""
    return i + 1 < len(items) and is_construct(items[i + 1], ctx)
