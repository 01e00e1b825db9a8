"""Pass acc_orphans: OpenACC ``loop`` and ``atomic`` lines outside compute constructs
(XcalableACC.md §2; OpenACC 2.x §2.9 orphaned loops, §2.12 atomic).

A compute construct takes the ``loop`` and ``atomic`` lines inside it (acc_loopnest.
strip_inner).  Two places outside one give them a meaning too:

- the body of an ``acc routine seq`` function: its device copy (acc_routine.py) runs in
  one thread of a kernel, so a ``loop`` there is sequential (``seq``, ``auto`` or
  ``independent``; ``gang``, ``worker`` and ``vector`` are an error) and an ``atomic``
  statement is lowered as in a kernel::

      #pragma acc routine seq                 prog.cu:  _XMPACC_ROUTINE void bump(double *h, int k)
      void bump(double *h, int k) {                     { _XMPACC_ATOMIC_ADD(h[k], 1); }
      #pragma acc atomic update               host C:   void bump(double *h, int k)
        h[k] += 1;                                      { h[k] += 1; }
      }

- host code: a node's host code is one thread, so an ``atomic`` statement is the
  statement (its form is checked as in a kernel), and in a routine's host copy the
  ``loop`` line goes.  A ``loop`` anywhere else is outside every compute construct: an
  error at the line.

Runs after acc_compute and gpu, which took the lines inside compute constructs and
XMP-ACC ``loop ... acc`` kernels (an ``atomic`` there is atomic on the device); the device
copies of the routines (``ctx.acc_routines``) keep their lines' directives
(attach.copy_directives).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives.openacc_ast import AccAtomic, AccLoop, directive_name
from xmpacc.passes.common.pragmas import acc_directive
from xmpacc.passes.gpu.acc_loopnest import strip_inner
from xmpacc.passes.kernel import acc_atomic


def run(unit: Unit, ctx: Context) -> Unit:
    for device in ctx.acc_routines.values():
        try:
            _routine_body(device, ctx)
        except XmpError as err:
            ctx.diags.add(err)
    reported = {e.loc for e in ctx.diags.errors}   # by an earlier pass: one mistake, one message
    for item in unit.ast.ext:
        if not isinstance(item, c_ast.FuncDef):
            continue
        routine = item.decl.name if item.decl.name in ctx.acc_routine_defs else None
        for node in list(walk(item.body)):
            if isinstance(node, c_ast.Compound) and node.block_items:
                node.block_items = _host_items(node.block_items, routine, reported, ctx)
    return unit


def _host_items(items: list[c_ast.Node], routine: str | None, reported: set[SourceLoc],
                ctx: Context) -> list[c_ast.Node]:
    """``items`` without the lines that mean their statement in host code; a misplaced
    line stays, reported (leftovers.py does not report it again)."""
    kept: list[c_ast.Node] = []
    for k, item in enumerate(items):
        d = acc_directive(item, ctx)
        if not isinstance(d, (AccAtomic, AccLoop)) or d.loc in reported:
            kept.append(item)
            continue
        try:
            _host_line(d, items[k + 1] if k + 1 < len(items) else None, routine)
        except XmpError as err:
            ctx.diags.add(err)
            kept.append(item)
    return kept


def _host_line(d: AccAtomic | AccLoop, nxt: c_ast.Node | None, routine: str | None) -> None:
    """Checks an atomic or loop line of host code, whose statement ``nxt`` runs as written."""
    if isinstance(d, AccAtomic):
        if nxt is None or isinstance(nxt, c_ast.Pragma):
            raise XmpError(d.loc, f"'{directive_name(d)}' must be followed by a statement")
        acc_atomic.lower(d, copy.deepcopy(nxt))   # its errors: the forms a kernel takes
    elif routine is None:
        raise XmpError(d.loc, "'acc loop' outside an OpenACC compute construct: put the loop inside "
                              "'acc parallel' or 'acc kernels', or write 'acc parallel loop' (in an "
                              "'acc routine seq' function, a loop runs in the calling thread)")
    elif not isinstance(nxt, c_ast.For):
        raise XmpError(d.loc, f"'{directive_name(d)}' must be followed by a for loop")


def _routine_body(device: c_ast.FuncDef, ctx: Context) -> None:
    """The device copy of a routine: its ``loop`` lines checked and dropped, its
    ``atomic`` statements lowered."""
    for node in walk(device.body):
        d = acc_directive(node, ctx)
        if isinstance(d, AccLoop):
            _sequential(d, device.decl.name)
    strip_inner(device.body, ctx)


def _sequential(d: AccLoop, routine: str) -> None:
    """A loop of a seq routine runs in the one thread that called it."""
    level = d.loop.gang or d.loop.worker or d.loop.vector
    if level is not None:
        raise XmpError(level.loc, f"'acc loop {level.level}' in 'acc routine seq' function '{routine}': a "
                                  "seq routine runs in one thread of the kernel that calls it, so its loops "
                                  "are seq (routines with gang, worker or vector parallelism are not "
                                  "supported yet, XcalableACC §5)")
