"""Array sections in the C AST (global-view §1), as ``frontend/sections.py`` leaves them.

A section subscript ``[base:length:step]`` reaches the passes as the call
``_xmpacc_triplet(base, length, step)`` inside an ``ArrayRef`` chain, with
``_XMPACC_OMIT`` for an omitted part.  ``section(node)`` reads such a chain back:

    a[0:10][3][:]   ->   CSection(array=ID a, subs=(CTriplet(0, 10, None), Constant 3,
                                                    CTriplet(None, None, None)))

The middle number is a *length*, not an upper bound.  A section that no pass lowered is
reported by the check stage (``passes/check/leftovers.py``) at its place.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.cbuild import unwind, walk
from xmpacc.frontend.sections import OMIT, TRIPLET


@dataclass(frozen=True, slots=True)
class CTriplet:
    """One triplet subscript of a section in C code (None: omitted)."""

    base: c_ast.Node | None
    length: c_ast.Node | None
    step: c_ast.Node | None
    coord: object


Subscript = c_ast.Node | CTriplet


@dataclass(frozen=True, slots=True)
class CSection:
    """``array[sub][sub]...`` with at least one triplet; ``array`` is the base expression
    (an ``ID``, or a ``StructRef`` for an aligned struct member), subs outermost first."""

    array: c_ast.Node
    subs: tuple[Subscript, ...]
    coord: object

    @property
    def rank(self) -> int:
        """Number of triplets: the dimensions of the section's shape."""
        return sum(isinstance(s, CTriplet) for s in self.subs)


def is_triplet_call(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
        and node.name.name == TRIPLET


def triplet(node: c_ast.Node) -> CTriplet | None:
    """The triplet a subscript holds, or None for an ordinary subscript."""
    if not is_triplet_call(node):
        return None
    args = node.args.exprs if node.args is not None else []
    parts = [None if isinstance(a, c_ast.ID) and a.name == OMIT else a for a in args]
    parts += [None] * (3 - len(parts))
    return CTriplet(parts[0], parts[1], parts[2], node.coord)


def section(node: c_ast.Node) -> CSection | None:
    """The section an ``ArrayRef`` chain denotes, or None when it has no triplet."""
    if not isinstance(node, c_ast.ArrayRef):
        return None
    base, written = unwind(node)
    subs: list[Subscript] = [triplet(sub) or sub for sub in written]
    if not any(isinstance(s, CTriplet) for s in subs):
        return None
    return CSection(base, tuple(subs), node.coord)


def triplet_calls(node: c_ast.Node) -> list[c_ast.FuncCall]:
    """Every triplet left in a subtree (for the check of unlowered sections)."""
    return [n for n in walk(node) if is_triplet_call(n)]
