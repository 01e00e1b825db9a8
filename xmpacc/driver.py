"""The compiler's stages, in order.  Each is a function; ``--stop-after`` shows any of them.

    preprocess -> parse -> attach -> declare -> locality -> localize -> gpu -> loops -> comm
    -> check -> entry -> emit -> build

This list is also the map of the tree: the front end is ``frontend/`` (preprocess, parse)
and ``directives/`` (the directive parsers that attach calls), each stage below is the
package ``passes/<stage>/`` that holds its passes and their helpers, ``passes/common/`` and
``passes/kernel/`` are what several stages share (helpers and value types; the kernel back
end), and emit and build are ``emit.py``, ``emit_cu.py`` and ``build.py``.

locality only looks (at the source's subscripts, so before localize rewrites them).
gpu runs before loops and comm so that it still sees every directive inside an acc loop
(they are errors there) and owns ``loop ... acc`` before the host loop pass.  The declare
stage also checks the C expressions of every directive (``directive_exprs``), once the
symbol tables exist and before any pass embeds those expressions in generated code.

The passes recurse over the tree; the CLI runs them on a thread with a large stack
(``deepstack.py``), and a tree deeper than even that is the user's located error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pycparser import c_ast

from xmpacc.cbuild import USER_TYPEDEFS, walk
from xmpacc.context import Context, Unit
from xmpacc.deepstack import nesting_error
from xmpacc.diagnostics import SourceLoc
from xmpacc.frontend.cparse import parse_c
from xmpacc.frontend.preprocess import preprocess
from xmpacc.passes.attach import attach, case_blocks
from xmpacc.passes.check import leftovers
from xmpacc.passes.comm import comm
from xmpacc.passes.declare import coarray_decls, declare, directive_exprs, nocomm
from xmpacc.passes.entry import entry
from xmpacc.passes.gpu import acc_compute, acc_data, acc_orphans, acc_routine, gpu
from xmpacc.passes.locality import locality, overlap
from xmpacc.passes.localize import (
    array,
    assign,
    coarrays,
    dynamic,
    gmove,
    library,
    lower_decls,
    members,
    subscripts,
)
from xmpacc.passes.loops import loops

Pass = Callable[[Unit, Context], Unit]
T = TypeVar("T")

# The transformation passes, in order, by stage name (the package passes/<stage>/ holds them).
PASSES: tuple[tuple[str, tuple[Pass, ...]], ...] = (
    ("attach", (case_blocks.run, attach.run)),
    ("declare", (coarray_decls.run, declare.run, directive_exprs.run, nocomm.run)),
    ("locality", (locality.run, overlap.run)),
    ("localize", (coarrays.run, lower_decls.run, members.run, dynamic.run, library.run, array.run,
                  gmove.run, assign.run, subscripts.run)),
    ("gpu", (acc_routine.run, acc_compute.run, acc_data.run, gpu.run, acc_orphans.run)),
    ("loops", (loops.run,)),
    ("comm", (comm.run,)),
    ("check", (leftovers.run,)),
    ("entry", (entry.run,)),
)
STAGES = ("preprocess", "parse") + tuple(name for name, _ in PASSES) + ("emit", "build")


@dataclass
class Options:
    cc: str = "cc"
    cpp_args: list[str] = field(default_factory=list)
    verbose: bool = False
    stop_after: str | None = None


def translate(path: str, options: Options) -> tuple[Unit, Context]:
    """Run the front end and every pass on one XMP source file."""
    pre = preprocess(path, options.cpp_args, options.cc, options.verbose)
    unit = Unit(path, pre, parse_c(pre.text, path))
    ctx = Context()
    typedefs = USER_TYPEDEFS.set(frozenset(n.name for n in walk(unit.ast) if isinstance(n, c_ast.Typedef)))
    try:
        for name, passes in PASSES:
            if options.stop_after in ("preprocess", "parse"):
                break
            for run in passes:
                unit = run_guarded(run, unit, ctx)
            if options.stop_after == name:
                break
    finally:
        USER_TYPEDEFS.reset(typedefs)
    ctx.diags.check()  # mistakes found by any stage that ran, all at once
    return unit, ctx


def run_guarded(run: Callable[[Unit, Context], T], unit: Unit, ctx: Context) -> T:
    """``run(unit, ctx)``; a tree too deep even for deepstack's recursion limit is the
    user's error at its deepest node, not a crash."""
    try:
        return run(unit, ctx)
    except RecursionError:
        raise nesting_error(unit.ast, SourceLoc(unit.path, 1, 1)) from None
