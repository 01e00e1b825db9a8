"""The directives that stand above a ``for`` nest in XcalableACC (§2), found in one place.

An XMP ``loop`` and an OpenACC compute or loop construct may stand in either order
directly above the same ``for``; ``acc loop`` lines inside the nest map its inner loops:

    #pragma xmp loop on t[i]                   #pragma acc parallel loop collapse(2)
    #pragma acc parallel loop collapse(2)      #pragma xmp loop on t[i]
    for (i = 0; i < N; i++)                    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) ...            {
                                               #pragma acc loop vector reduction(+:s)
                                                   for (j = 0; j < M; j++) ...
                                               }

Both give ``AccNest(loop=<for i>, xmp=Loop(on t[i]), acc=AccCompute(parallel, loop=...))``;
the right one also ``inner=(InnerLoop(AccLoop(vector ...), <for j>),)``.  The passes ask
this module instead of looking at neighbouring pragmas themselves: the XMP ``loop`` and
gpu passes leave a loop with an OpenACC construct alone (``has_acc_construct``), the check
stage reports the OpenACC directive and not its XMP partner, and the later XcalableACC
passes get the whole nest from ``nest_at``.  Nothing here changes the tree.

An OpenMP line (``#pragma omp parallel for``, XMP + OpenMP hybrids) may stand there too, in
any order with the others: ``AccNest.omp``.  The host loop pass puts it above the node's
own ``for`` (each node's iterations split over its threads); with an OpenACC construct or
``loop ... acc`` the nest runs on the GPU, where it is an error (``openmp_on_device``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.cbuild import loc_of, walk
from xmpacc.context import Context
from xmpacc.diagnostics import SourceLoc, XmpError, source_line
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AccCompute, AccDirective, AccLoop
from xmpacc.passes.common.pragmas import acc_directive, pragma_id
from xmpacc.passes.common.values import ReflectOverlap

AccLoopConstruct = AccCompute | AccLoop


@dataclass(frozen=True, eq=False)
class InnerLoop:
    """An ``acc loop`` line inside a nest and the ``for`` it stands above."""

    pragma: c_ast.Pragma
    directive: AccLoop
    loop: c_ast.For


@dataclass(frozen=True, eq=False)
class AccNest:
    """A ``for`` and the XMP ``loop`` / OpenACC construct / OpenMP line directly above it
    (any may be None, not all); ``pragmas`` are their pragma nodes in source order."""

    loop: c_ast.For
    xmp: xd.Loop | None
    xmp_pragma: c_ast.Pragma | None
    acc: AccLoopConstruct | None
    acc_pragma: c_ast.Pragma | None
    pragmas: tuple[c_ast.Pragma, ...]
    inner: tuple[InnerLoop, ...]   # the acc loop lines inside the nest, outermost first
    omp: c_ast.Pragma | None = None


def xmp_loop(node: c_ast.Node, ctx: Context) -> xd.Loop | None:
    """The XMP ``loop`` directive of a pragma node, else None."""
    if pragma_id(node) is None:
        return None
    return next((d for d in ctx.directives.get(id(node), []) if isinstance(d, xd.Loop)), None)


_OPENMP = re.compile(r"\s*omp\b")


def openmp_line(node: c_ast.Node) -> bool:
    """Is the node an OpenMP line (``#pragma omp ...``)?  The front end keeps them as they
    are; the host compiler reads them (with -fopenmp) or ignores them."""
    return isinstance(node, c_ast.Pragma) and _OPENMP.match(node.string) is not None


def openmp_loc(pragma: c_ast.Pragma) -> SourceLoc:
    """Where the ``omp`` of an OpenMP line is (pycparser's column of a pragma is not)."""
    loc = loc_of(pragma)
    m = re.match(r"\s*#\s*pragma\s+", source_line(loc) or "")
    return SourceLoc(loc.file, loc.line, m.end() + 1 if m else 1)


def openmp_on_device(pragma: c_ast.Pragma, where: str) -> XmpError:
    """The error for an OpenMP line in code that runs on the GPU (``where``: the construct)."""
    return XmpError(openmp_loc(pragma), f"'#pragma {pragma.string.strip()}' {where}, which runs on the GPU: "
                                    "OpenMP splits host loops over threads (next to a loop directive "
                                    "without acc)")


def acc_loop_construct(node: c_ast.Node, ctx: Context) -> AccLoopConstruct | None:
    """The OpenACC ``parallel loop``/``kernels loop`` or ``loop`` of a pragma node, else None.
    A ``parallel`` or ``kernels`` without ``loop`` applies to its statement, whatever it is
    (blocks.construct_statement): a ``for`` there is no loop construct's, and an XMP
    ``loop`` above it does not pair with it."""
    d = acc_directive(node, ctx)
    return d if isinstance(d, AccLoop) or isinstance(d, AccCompute) and d.loop is not None else None


def nest_at(items: Sequence[c_ast.Node], k: int, ctx: Context) -> AccNest | None:
    """The nest of the ``for`` at ``items[k]`` (a block's items), None when neither an XMP
    ``loop`` nor an OpenACC loop construct stands directly above it (an OpenMP line alone
    is the host compiler's)."""
    node = items[k]
    if not isinstance(node, c_ast.For):
        return None
    xmp: tuple[c_ast.Pragma, xd.Loop] | None = None
    acc: tuple[c_ast.Pragma, AccLoopConstruct] | None = None
    omp: c_ast.Pragma | None = None
    pragmas: list[c_ast.Pragma] = []
    for j in (k - 1, k - 2, k - 3):  # at most one of each kind, in any order
        if j < 0:
            break
        x, a = xmp_loop(items[j], ctx), acc_loop_construct(items[j], ctx)
        if x is not None and xmp is None:
            xmp = (items[j], x)
        elif a is not None and acc is None:
            acc = (items[j], a)
        elif openmp_line(items[j]) and omp is None:
            omp = items[j]
        else:
            break
        pragmas.insert(0, items[j])
    if xmp is None and acc is None:
        return None   # a plain OpenMP loop: the host compiler's
    return AccNest(node, xmp[1] if xmp else None, xmp[0] if xmp else None,
                   acc[1] if acc else None, acc[0] if acc else None,
                   tuple(pragmas), inner_loops(node, ctx), omp)


def nest_of_pragma(items: Sequence[c_ast.Node], i: int, ctx: Context) -> AccNest | None:
    """The nest that the pragma ``items[i]`` stands above, if it is one of its directives."""
    for k in (i + 1, i + 2, i + 3):
        if k < len(items) and isinstance(items[k], c_ast.For):
            nest = nest_at(items, k, ctx)
            return nest if nest is not None and any(p is items[i] for p in nest.pragmas) else None
    return None


def overlapped_nest(items: Sequence[c_ast.Node], i: int,
                    ctx: Context) -> tuple[xd.Reflect, AccNest, ReflectOverlap] | None:
    """The reflect ... acc at ``items[i]`` whose exchange the nest after it overlaps
    (passes/locality/overlap.py decided), with that nest: the gpu pass lowers those of
    ``loop ... acc``, acc_compute.py those of combined OpenACC constructs."""
    found = ctx.reflect_overlaps.get(id(items[i]))
    if found is None or i + 1 >= len(items) or id(items[i + 1]) != found.loop:
        return None
    nest = nest_of_pragma(items, i + 1, ctx)
    reflect = next((d for d in ctx.directives.get(id(items[i]), []) if isinstance(d, xd.Reflect)), None)
    return None if nest is None or reflect is None else (reflect, nest, found)


def has_acc_construct(items: Sequence[c_ast.Node], i: int, ctx: Context) -> bool:
    """Is the XMP ``loop`` at ``items[i]`` paired with an OpenACC construct (XcalableACC)?"""
    nest = nest_of_pragma(items, i, ctx)
    return nest is not None and nest.acc is not None


def inner_loops(loop: c_ast.For, ctx: Context) -> tuple[InnerLoop, ...]:
    """The ``acc loop`` lines anywhere inside ``loop``'s body with the ``for`` below each."""
    found: list[InnerLoop] = []
    for node in walk(loop.stmt):
        items = (node.block_items or []) if isinstance(node, c_ast.Compound) else []
        for j in range(1, len(items)):
            d = acc_directive(items[j - 1], ctx)
            if isinstance(d, AccLoop) and isinstance(items[j], c_ast.For):
                found.append(InnerLoop(items[j - 1], d, items[j]))
    return tuple(found)


def paired_xmp_loops(root: c_ast.Node, ctx: Context) -> set[int]:
    """``id`` of every XMP ``loop`` pragma under ``root`` paired with an OpenACC construct."""
    paired: set[int] = set()
    for node in walk(root):
        items = (node.block_items or []) if isinstance(node, c_ast.Compound) else []
        for k in range(len(items)):
            nest = nest_at(items, k, ctx)
            if nest is not None and nest.xmp_pragma is not None and nest.acc is not None:
                paired.add(id(nest.xmp_pragma))
    return paired


def first_acc_directive(root: c_ast.Node, ctx: Context) -> AccDirective | None:
    """The first OpenACC directive under ``root`` (to reject them where they cannot be)."""
    return next((d for node in walk(root) if (d := acc_directive(node, ctx)) is not None), None)
