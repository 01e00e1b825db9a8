"""Which aligned arrays have stale shadows where: the data flow behind the "missing
reflect" warning of passes/locality.py.

An array's shadow is stale from a write of the array (host code, a ``loop``, a
``loop ... acc``) until the next ``reflect`` or ``reflect_do`` of it (host or ``acc``).  ``FlowWalker``
carries the set of stale arrays through one function body, statement by statement: both
branches of an ``if`` (union), loops until the set stops growing (so a write late in a
time-step loop reaches a read early in the next iteration), ``task`` bodies as branches.
At each ``loop`` directive it calls ``on_loop``, which checks the loop's reads against
the set; the loop's writes then join it.

Conservative, so that a warning is never wrong: a function starts with no stale array
(its caller may have reflected), a call of a function of this file applies that
function's summary (the arrays it may reflect become fresh; those it leaves written
become stale), calls of other functions change nothing, and a loop is taken to run at
least once.

    for (step = 0; step < 10; step++) {     state at the loop head: {} then {a}
    #pragma xmp loop on t[i]
      for (...) b[i] = a[i - 1];            on_loop: reads a's shadow while a is stale
    #pragma xmp loop on t[i]
      for (...) a[i] = b[i];                state: {a} (written at this line)
    }
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context
from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import ast as xd
from xmpacc.passes.accesses import accesses
from xmpacc.passes.attach import pragma_id
from xmpacc.symbols import Scope, ScopeTree

# id(ArraySym) -> a write that made its shadow stale
State = dict[int, SourceLoc]
OnLoop = Callable[[xd.Loop, c_ast.For, Scope, State], None]


@dataclass
class Summary:
    """What calling a function does to file-scope arrays."""

    reflects: set[int] = field(default_factory=set)   # may reflect: fresh after the call
    leaves: State = field(default_factory=dict)       # written and not reflected at its end


def _union(a: State, b: State) -> State:
    out = dict(a)
    for k, v in b.items():
        out.setdefault(k, v)
    return out


class FlowWalker:
    """Carries the stale set through the statements of one function."""

    def __init__(self, ctx: Context, tree: ScopeTree, on_loop: OnLoop,
                 summary_of: Callable[[str], Summary | None]) -> None:
        self.ctx, self.tree, self.on_loop, self.summary_of = ctx, tree, on_loop, summary_of
        self.reflected: set[int] = set()   # every array this function may reflect

    def stmt(self, node: c_ast.Node | None, scope: Scope, state: State) -> State:
        if node is None:
            return state
        scope = self.tree.by_node.get(id(node), scope)
        if isinstance(node, c_ast.Compound):
            return self._items(node.block_items or [], scope, state)
        if isinstance(node, c_ast.If):
            state = self._expr(node.cond, scope, state)
            return _union(self.stmt(node.iftrue, scope, state), self.stmt(node.iffalse, scope, state))
        if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            return self._loop(node, scope, state)
        if isinstance(node, c_ast.Switch):
            state = self._expr(node.cond, scope, state)
            return _union(state, self.stmt(node.stmt, scope, state))
        if isinstance(node, (c_ast.Case, c_ast.Default)):
            return self._items(node.stmts or [], scope, state)
        if isinstance(node, c_ast.Label):
            return self.stmt(node.stmt, scope, state)
        if isinstance(node, c_ast.Pragma):   # a directive alone as a statement
            return self._items([node], scope, state) if self.ctx.directives.get(id(node)) else state
        return self._expr(node, scope, state)

    def _items(self, items: list[c_ast.Node], scope: Scope, state: State) -> State:
        i = 0
        while i < len(items):
            item, nxt = items[i], items[i + 1] if i + 1 < len(items) else None
            i += 1
            ds = self.ctx.directives.get(id(item), []) if pragma_id(item) is not None else []
            if not ds:
                state = self.stmt(item, scope, state)
                continue
            for d in ds:
                if isinstance(d, (xd.Reflect, xd.ReflectDo)):   # reflect_do runs a planned reflect
                    state = self._reflect(d, scope, state)
                elif isinstance(d, xd.Loop) and isinstance(nxt, c_ast.For):
                    self.on_loop(d, nxt, scope, state)      # checks the reads
                    state = self._expr(nxt, scope, state)   # then the loop's writes count
                    i += 1
                elif isinstance(d, xd.Task) and nxt is not None and pragma_id(nxt) is None:
                    state = _union(state, self.stmt(nxt, scope, state))   # not every node runs it
                    i += 1
        return state

    def _reflect(self, d: xd.Reflect | xd.ReflectDo, scope: Scope, state: State) -> State:
        out = dict(state)
        for name in d.arrays:
            sym = scope.find_array(name.name)
            if sym is not None:
                out.pop(id(sym), None)
                self.reflected.add(id(sym))
        return out

    def _loop(self, node: c_ast.For | c_ast.While | c_ast.DoWhile, scope: Scope, state: State) -> State:
        """Iterate to the fixed point of the loop head; the state after the loop is the
        body's (the loop is taken to run at least once)."""
        if isinstance(node, c_ast.For):
            state = self.stmt(node.init, scope, state)
        head = state
        for _ in range(64):
            out = self.stmt(node.stmt, scope, head)
            if isinstance(node, c_ast.For):
                out = self._expr(node.next, scope, out)
            out = self._expr(node.cond, scope, out)
            new_head = _union(head, out)
            if new_head.keys() == head.keys():
                return out
            head = new_head
        return _union(head, out)

    def _expr(self, node: c_ast.Node | None, scope: Scope, state: State) -> State:
        """Writes in a statement without directives, and calls of this file's functions."""
        if node is None:
            return state
        out = dict(state)
        for call in _calls(node):
            summary = self.summary_of(call)
            if summary is not None:
                for key in summary.reflects:
                    out.pop(key, None)
                self.reflected |= summary.reflects
                out = _union(out, summary.leaves)
        for acc in accesses(node, self.tree, scope):
            if acc.writes:
                out[id(acc.sym)] = acc.loc
        return out


def _calls(node: c_ast.Node) -> list[str]:
    return [n.name.name for n in walk(node) if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)]
