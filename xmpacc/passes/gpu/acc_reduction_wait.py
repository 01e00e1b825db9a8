"""Where the host waits for the reductions of a compute construct (acc_compute.py uses it).

A ``parallel loop`` / ``kernels loop`` with ``reduction(op:s)`` on host scalars leaves its
result on the device (``_xmpacc_acc_defer_reductions`` before its launch) and the host
waits for it (``_xmpacc_acc_reductions_wait``) only before the first statement after it
that may use ``s``.  The statements it may pass, in the same block:

* another combined compute construct that does not name ``s`` (in its loops or clauses)
  and is not async: its kernel is queued behind the first one;
* ``#pragma xmp reduction (op: s ...)`` of those variables alone (no ``on``, ``async``,
  locations or sections): the runtime runs it after the wait, in order (reductions.py).

Anything else, and the end of the block, gets the wait before it.  Himeno's iteration

    #pragma acc parallel loop ... reduction(+:gosa)   sweep
    #pragma xmp reduction (+:gosa)
    #pragma acc parallel loop ...                      copy wrk2 -> p
    }                                                  <- the wait: the copy is queued first

then keeps the GPU busy while the host combines gosa and reduces it over the nodes (an
H200 idled about 100 us per iteration at each wait after the sweep).  A variable whose
address the function takes anywhere is never deferred: a pointer could read it.

The wait at the end of a loop body moves past the back edge (``carried``) where the body
begins by storing into every waiting variable (``gosa = 0.0f``) and nothing on the way
there reads one: the stores discard the results (``_xmpacc_acc_reductions_discard``
before them), and the wait goes after the loop, in the enclosing block.  Then the host
never waits inside Himeno's time loop: with the XMP reduction on the device
(acc_collectives.py), it queues the next iteration's reflect and sweep while the GPU
still runs this one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context
from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AccCompute
from xmpacc.passes.common.acc_nest import AccNest
from xmpacc.passes.common.pragmas import pragma_id

DEFER = "_xmpacc_acc_defer_reductions();"
_IDENT = re.compile(r"[A-Za-z_]\w*")


def wait_call(where: str) -> str:
    return f"_xmpacc_acc_reductions_wait({where});"


def discard_calls(names: set[str]) -> str:
    return "".join(f"_xmpacc_acc_reductions_discard(&{name});" for name in sorted(names))


def carried(loop: c_ast.Node | None, body: c_ast.Compound,
            items: Sequence[c_ast.Node], names: set[str]) -> bool:
    """May the wait for ``names`` at the end of ``body`` (its statements: ``items``) move
    past the back edge of ``loop``: is ``body`` the loop's body, do its condition and step
    leave the variables alone, and do its first statements store into each of them?"""
    if not isinstance(loop, (c_ast.For, c_ast.While)) or loop.stmt is not body:
        return False
    heads = [loop.cond, loop.next] if isinstance(loop, c_ast.For) else [loop.cond]
    if not all(_leaves_alone(h, names) for h in heads if h is not None):
        return False
    stored: set[str] = set()
    for item in items:
        if stored >= names:
            break
        if not (isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID)
                and item.lvalue.name in names and _leaves_alone(item.rvalue, names)):
            return False
        stored.add(item.lvalue.name)
    return stored >= names


def _leaves_alone(expr: c_ast.Node, names: set[str]) -> bool:
    """Neither names one of ``names`` nor calls a function (which could read a global)."""
    return not any(isinstance(n, c_ast.FuncCall) or isinstance(n, c_ast.ID) and n.name in names
                   for n in walk(expr))


def may_pass(items: Sequence[c_ast.Node], i: int, nest: AccNest | None,
             names: set[str], ctx: Context) -> bool:
    """Can the statement starting at ``items[i]`` (``nest``: the loop nest it begins, if
    any) run before the host has the values of ``names``?"""
    if nest is not None:
        acc = nest.acc
        return isinstance(acc, AccCompute) and acc.loop is not None and acc.async_ is None \
            and not (_names_in(nest) & names)
    if pragma_id(items[i]) is None:
        return False
    found = ctx.directives.get(id(items[i]), [])
    return len(found) == 1 and _reduction_of(found[0], names)


def _reduction_of(d: object, names: set[str]) -> bool:
    if not isinstance(d, xd.ReductionDirective) or d.on is not None or d.async_id is not None or d.acc:
        return False
    return all(not v.locations and v.subs is None and v.name.name in names for v in d.reduction.variables)


def _names_in(nest: AccNest) -> set[str]:
    """Every identifier of the nest: its loops, and its directives' clauses."""
    found = {n.name for n in walk(nest.loop) if isinstance(n, c_ast.ID)}
    for d in (nest.acc, nest.xmp, *(inner.directive for inner in nest.inner)):
        found |= set(_directive_names(d))
    return found


def _directive_names(value: object) -> Iterator[str]:
    """Names in a directive object and its C expressions (locations left out)."""
    for part in xd.parts(value, lambda v: isinstance(v, (str, c_ast.Node, SourceLoc))):
        if isinstance(part, str):   # Name.name, Expr.text: every identifier in the text
            yield from _IDENT.findall(part)
        elif isinstance(part, c_ast.Node):
            yield from (n.name for n in walk(part) if isinstance(n, c_ast.ID))
