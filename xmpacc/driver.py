"""The compiler's stages, in order.  Each is a function; ``--stop-after`` shows any of them.

    preprocess -> parse -> attach -> declare -> locality -> localize -> gpu -> loops -> comm
    -> check -> entry -> emit -> build

locality only looks (at the source's subscripts, so before localize rewrites them).
gpu runs before loops and comm so that it still sees every directive inside an acc loop
(they are errors there) and owns ``loop ... acc`` before the host loop pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xmpacc.context import Context, Unit
from xmpacc.frontend.cparse import parse_c
from xmpacc.frontend.preprocess import preprocess
from xmpacc.passes import (
    acc_compute,
    acc_routine,
    array,
    assign,
    attach,
    comm,
    declare,
    dynamic,
    entry,
    gmove,
    gpu,
    leftovers,
    library,
    locality,
    loops,
    lower_decls,
    members,
    nocomm,
    subscripts,
)

Pass = Callable[[Unit, Context], Unit]

# The transformation passes, in order, by stage name.
PASSES: tuple[tuple[str, tuple[Pass, ...]], ...] = (
    ("attach", (attach.run,)),
    ("declare", (declare.run, nocomm.run)),
    ("locality", (locality.run,)),
    ("localize", (lower_decls.run, members.run, dynamic.run, library.run, array.run, gmove.run, assign.run,
                  subscripts.run)),
    ("gpu", (acc_routine.run, acc_compute.run, gpu.run)),
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
    for name, passes in PASSES:
        if options.stop_after in ("preprocess", "parse"):
            break
        for run in passes:
            unit = run(unit, ctx)
        if options.stop_after == name:
            break
    ctx.diags.check()  # mistakes found by any stage that ran, all at once
    return unit, ctx
