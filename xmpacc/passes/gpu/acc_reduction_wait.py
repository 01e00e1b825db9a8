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

``#pragma acc wait`` (no ``async``, no ``devnum``) is treated alike.  Where only device
work follows it until a statement that could observe the queues (the statements above,
``async`` ones too, ``parallel`` / ``kernels`` regions, ``reflect ... acc``, another ``acc
wait``, declarations and stores into host scalars, none calling a function), the host
does not wait there: ``_xmpacc_acc_wait_on_device`` makes every
stream wait for the queues on the device, and the host's wait (``Waits.owed``, the
``acc wait`` as written) goes before that statement, or after the loop whose body ends
there (a body with an ``acc wait`` at its top level is lowered as if the host owed the
wait from its first statement, so the next iteration's statements up to the host's wait
are device work as well), or after the calls of a function that ends with it
(acc_wait_functions.py).  So an ``async`` sweep with ``acc wait`` after it, the way
XcalableACC's Himeno writes its iteration, keeps the GPU as busy as the synchronous
spelling: the host queues the next iteration while the GPU runs this one.  What the host
could tell apart is only time: a function call (a timer), the end of a block, a jump,
anything else waits first.  ``async`` constructs with reductions defer them the same way,
so their results reach the host at its wait, as OpenACC says.  At run time a queue that
moved host memory since the host last waited for it (``update ... async``) makes the wait
the host's, as written, and ``XMPACC_WAIT_ON_DEVICE=0`` makes every one so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context
from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AccCompute
from xmpacc.facts import InfoFact, WaitFacts
from xmpacc.passes.common.acc_nest import AccNest, nest_of_pragma
from xmpacc.passes.common.blocks import construct_statement
from xmpacc.passes.common.pragmas import acc_directive, pragma_id
from xmpacc.passes.gpu.acc_wait_functions import WaitingFunctions, plain_wait

DEFER = "_xmpacc_acc_defer_reductions();"
_IDENT = re.compile(r"[A-Za-z_]\w*")
_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")


@dataclass
class Waits:
    """What the host has not waited for yet in a block: the deferred reductions of its
    variables ``names`` (``at``: the construct whose wait it owes them) and the host's
    ``acc wait`` (``owed``: its call) that ``_xmpacc_acc_wait_on_device`` stood in for."""

    names: set[str] = field(default_factory=set)
    at: str = ""
    owed: str = ""
    remarks: list[int] = field(default_factory=list)   # ctx.info's remarks of the waits owed

    def __bool__(self) -> bool:
        return bool(self.names or self.owed)

    def owe(self, call: str) -> None:
        """One more wait the host owes: two different ones become a wait for every queue."""
        if self.owed and self.owed != call:
            call = re.sub(r"\(([^,]*),.*\);$", r"(\1, -1, 0);", call)
        self.owed = call

    def settle(self, ctx: Context, place: str) -> str:
        """The host's waits, now (``place``: where, for the remarks); nothing is owed after."""
        text = self.owed + self.settle_names()
        self.owed = ""
        self.tell(ctx, place)
        return text

    def tell(self, ctx: Context, place: str) -> None:
        """The remarks of the waits made on the device say where the host waits."""
        for k in self.remarks:
            ctx.info[k] = InfoFact(ctx.info[k].loc, WaitFacts(place))
        self.remarks = []

    def settle_names(self) -> str:
        """The host's wait for the deferred reductions alone (at the end of a function
        whose callers owe its acc wait: its variables may end with it)."""
        text = wait_call(self.at) if self.names else ""
        self.names = set()
        return text

    def take(self, other: Waits) -> None:
        """What a loop's body still owes after the loop (``carried``)."""
        self.names |= other.names
        if other.names:
            self.at = other.at
        if other.owed:
            self.owe(other.owed)
        self.remarks += other.remarks


def wait_call(where: str) -> str:
    return f"_xmpacc_acc_reductions_wait({where});"


def waits_in_body(loop: c_ast.Node | None, body: c_ast.Compound, items: Sequence[c_ast.Node],
                  functions: WaitingFunctions, ctx: Context) -> bool:
    """Is ``body`` the body of ``loop`` with an ``acc wait`` (or a call to a function that
    owes one) among its statements, whose condition and step call nothing?  Its host
    wait may then move past the back edge, and the body is lowered as if the host owed
    it from its first statement."""
    if not isinstance(loop, (c_ast.For, c_ast.While)) or loop.stmt is not body:
        return False
    heads = [loop.cond, loop.next] if isinstance(loop, c_ast.For) else [loop.cond]
    return all(_leaves_alone(h, set()) for h in heads if h is not None) \
        and any(plain_wait(item, ctx) is not None or functions.called(item) for item in items)


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


def may_pass(items: Sequence[c_ast.Node], i: int, nest: AccNest | None, waits: Waits,
             functions: WaitingFunctions, ctx: Context) -> bool:
    """Can the statement starting at ``items[i]`` (``nest``: the loop nest it begins, if
    any) run before the host has the values of ``waits.names`` and has waited for the
    queues (``waits.owed``)?"""
    names = waits.names
    item = items[i]
    called = functions.called(item)
    if called is not None:
        return not (functions.uses[called] & names) and _leaves_alone(item.args or c_ast.ExprList([]), names)
    if nest is not None:
        acc = nest.acc
        return isinstance(acc, AccCompute) and acc.loop is not None and not (_names_in(nest) & names) \
            and not _host_calls(nest)
    if plain_wait(item, ctx) is not None:
        return True
    region = acc_directive(item, ctx)
    if isinstance(region, AccCompute) and region.loop is None:
        return _device_region(items, i, region, names, ctx)
    if pragma_id(item) is None:
        return bool(waits.owed) and (_host_store(item, names)
                                     or isinstance(item, c_ast.Decl) and _leaves_alone(item, names))
    found = ctx.directives.get(id(item), [])
    if len(found) != 1:
        return False
    return _reduction_of(found[0], names) or _device_reflect(found[0])


def passes_next(items: Sequence[c_ast.Node], i: int, waits: Waits, carries: bool,
                functions: WaitingFunctions, ctx: Context) -> bool:
    """May the host pass the ``acc wait`` at ``items[i]`` (``carries``: its block's host
    wait moves past the loop's back edge, or to the function's callers)?"""
    if i + 1 == len(items):
        return carries
    owing = Waits(set(waits.names), waits.at, "_xmpacc_acc_wait")
    return may_pass(items, i + 1, nest_of_pragma(items, i + 1, ctx), owing, functions, ctx)


def _host_store(item: c_ast.Node, names: set[str]) -> bool:
    """``x = e;``, ``x op= e;``, ``x++;`` of a plain variable, calling nothing and using
    none of ``names``: host work that nothing the device does touches."""
    if isinstance(item, c_ast.Assignment):
        target = item.lvalue
    elif isinstance(item, c_ast.UnaryOp) and item.op in ("++", "--", "p++", "p--"):
        target = item.expr
    else:
        return False
    return isinstance(target, c_ast.ID) and _leaves_alone(item, names)


def _device_region(items: Sequence[c_ast.Node], i: int, d: AccCompute, names: set[str], ctx: Context) -> bool:
    """A ``parallel`` / ``kernels`` region (its statement after ``items[i]``) whose host part
    calls nothing: its loops run on the device, but the statements between them, the
    loops' heads and the clauses run on the host (acc_region.py)."""
    body, _ = construct_statement(items, i, ctx)
    if body is None or any(isinstance(n, c_ast.ID) and n.name in names for n in walk(body)):
        return False
    if any(_CALL.search(text) for text in _texts(d)):
        return False
    # the clauses (``if(gosa > eps)``, ``copyin(gosa)``, an inner ``reduction(+:gosa)``) as
    # the nest's are checked (_names_in): the host evaluates them
    inner = [acc_directive(n, ctx) for n in walk(body) if isinstance(n, c_ast.Pragma)]
    if any(set(_directive_names(x)) & names for x in (d, *inner) if x is not None):
        return False
    for stmt in (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]:
        if isinstance(stmt, c_ast.For):
            heads = [h for h in (stmt.init, stmt.cond, stmt.next) if h is not None]
            if any(isinstance(n, c_ast.FuncCall) for h in heads for n in walk(h)):
                return False
        elif pragma_id(stmt) is None and not _leaves_alone(stmt, names):
            return False
    return True


def _device_reflect(d: object) -> bool:
    return isinstance(d, xd.Reflect) and d.acc and d.async_id is None \
        and not any(_CALL.search(text) for text in _texts(d))


def _host_calls(nest: AccNest) -> bool:
    """Does the host call a function to start the nest (its loops' heads, its clauses)?
    The loop bodies run on the device."""
    heads: list[c_ast.Node] = []
    loop: c_ast.Node | None = nest.loop
    while isinstance(loop, c_ast.For):
        heads += [h for h in (loop.init, loop.cond, loop.next) if h is not None]
        body = loop.stmt
        if isinstance(body, c_ast.Compound) and len(body.block_items or []) == 1:
            body = body.block_items[0]
        loop = body
    if any(isinstance(n, c_ast.FuncCall) for h in heads for n in walk(h)):
        return True
    return any(_CALL.search(text) for d in (nest.acc, nest.xmp) if d is not None for text in _texts(d))


def _texts(d: object) -> Iterator[str]:
    """The strings of a directive object (names, expression texts), locations left out."""
    for part in xd.parts(d, lambda v: isinstance(v, (str, SourceLoc))):
        if isinstance(part, str):
            yield part


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
