"""Which aligned arrays have stale shadows where: the data flow behind the "missing
reflect" warning of passes/locality/locality.py (the values are those of passes/locality/shadow_state.py).

An array's shadow is stale from a write of the array (host code, a ``loop``, a
``loop ... acc``, the loop of an OpenACC compute construct paired with ``loop``, a
``gmove`` or ``array`` assignment, whose sections are subscripts here too) or a
``reduce_shadow`` of it, until the next ``reflect`` or ``reflect_do`` of it (host or
``acc``; ``reflect_init`` alone moves nothing); one with ``width(w)`` (the ``reflect_init``'s, for
``reflect_do``) refreshes the shadow within w only, one with ``orthogonal`` not its
corners (shadow_state.py keeps what it did refresh).  With ``async (id)`` the reflect completes
at the ``wait_async`` of that id (or the wait of ``peel_and_wait (id, ...)``, or a call of
``xmp_test_async (id)``, which may have found it complete).  A loop with ``expand``/
``margin`` that writes an array also computes its shadow elements within the widths.
OpenACC data and update directives neither reflect nor write.

``FlowWalker`` carries the ``State`` through one function body, statement by statement:
both branches of an ``if`` (joined), loops until the state stops changing (so a write
late in a time-step loop reaches a read early in the next iteration), ``task`` bodies as
branches.  At each ``loop`` directive it calls ``on_loop``, which checks the loop's reads
against the state; the loop's writes then count.

Conservative, so that a warning is never wrong: a function starts with no stale array
(its caller may have reflected), a call of a function of this file applies that
function's summary (the arrays it may reflect become fresh, also those passed to it when
it reflects a parameter; the async ids it may wait for complete; those it leaves written
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

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pycparser import c_ast

from xmpacc.cbuild import to_c, walk
from xmpacc.context import Context
from xmpacc.directives import ast as xd
from xmpacc.passes.common.acc_nest import nest_of_pragma
from xmpacc.passes.common.accesses import accesses, names_in
from xmpacc.passes.common.blocks import construct_statement
from xmpacc.passes.common.pragmas import directives_of
from xmpacc.passes.locality.shadow_state import (
    Key,
    LoopRange,
    ReflectSpec,
    Stale,
    State,
    async_id,
    join,
    key_of,
    loop_range,
    recomputed,
    reflect_async,
    reflect_spec,
    reflected,
    wait,
    widest,
)
from xmpacc.symbols import ArraySym, Scope, ScopeTree, TemplateSym

OnLoop = Callable[[xd.Loop, c_ast.For, Scope, State], None]
_ROOT_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Summary:
    """What calling a function does to the caller's arrays."""

    reflects: set[Key] = field(default_factory=set)        # file-level arrays it may reflect
    leaves: State = field(default_factory=dict)            # written and not reflected at its end
    waits: set[int | str] = field(default_factory=set)     # async ids it may complete
    reflects_all: bool = False                             # not known yet (recursion)
    reflects_args: bool = False                            # it reflects arrays it is passed


def _root(name: str) -> str:
    """The variable of an array name: ``c`` of ``c.a``, ``s`` of ``s[k].a``."""
    m = _ROOT_NAME.match(name)
    return m.group(0) if m else ""


def _member(sym: ArraySym) -> bool:
    return "." in sym.name or "->" in sym.name


def file_level(sym: ArraySym, scope: Scope) -> bool:
    """Is ``sym`` the same array in every function (file scope, or a member of a file-scope
    object; not one reached through a pointer)?"""
    if not _member(sym):
        return sym.file_scope
    found = scope.find_c(_root(sym.name))
    return found is not None and found[0].parent is None and "->" not in sym.name


class FlowWalker:
    """Carries the state through the statements of one function."""

    def __init__(self, ctx: Context, tree: ScopeTree, on_loop: OnLoop,
                 summary_of: Callable[[str], Summary | None]) -> None:
        self.ctx, self.tree, self.on_loop, self.summary_of = ctx, tree, on_loop, summary_of
        self.reflected: set[Key] = set()      # every array this function may reflect
        self.file_level: set[Key] = set()     # the keys of file-level arrays met
        self.waited: set[int | str] = set()   # every async id it may wait for
        self.reflects_args = False
        self.inits = [d for ds in ctx.directives.values() for d in ds if isinstance(d, xd.ReflectInit)]

    def stmt(self, node: c_ast.Node | None, scope: Scope, state: State) -> State:
        if node is None:
            return state
        scope = self.tree.by_node.get(id(node), scope)
        if isinstance(node, c_ast.Compound):
            return self._items(node.block_items or [], scope, state)
        if isinstance(node, c_ast.If):
            state = self._expr(node.cond, scope, state)
            return join(self.stmt(node.iftrue, scope, state), self.stmt(node.iffalse, scope, state))
        if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            return self._loop(node, scope, state)
        if isinstance(node, c_ast.Switch):
            return self._switch(node, scope, self._expr(node.cond, scope, state))
        if isinstance(node, (c_ast.Case, c_ast.Default)):
            return self._items(node.stmts or [], scope, state)
        if isinstance(node, c_ast.Label):
            return self.stmt(node.stmt, scope, state)
        if isinstance(node, c_ast.Pragma):   # a directive alone as a statement
            return self._items([node], scope, state) if self.ctx.directives.get(id(node)) else state
        return self._expr(node, scope, state)

    def _switch(self, node: c_ast.Switch, scope: Scope, state: State) -> State:
        """Each case entered from the switch (or falling through from the case before), left
        by its last ``break`` or at the end; without ``default`` the switch may run no case.
        A body of other shape joins more states (never fewer): each case then also falls
        through.  A ``break`` before a case's last statement (``if (c) break;``) is not
        followed: the state there does not join the switch's, so a stale shadow reached
        only through it is not reported."""
        body = node.stmt
        cases = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        if not cases or not all(isinstance(c, (c_ast.Case, c_ast.Default)) for c in cases):
            return join(state, self.stmt(body, scope, state))
        exits = [] if any(isinstance(c, c_ast.Default) for c in cases) else [state]
        fall: State | None = None
        for case in cases:
            stmts = case.stmts or []
            last = stmts[-1] if stmts else None
            if len(stmts) == 1 and isinstance(last, c_ast.Compound):   # a block (case_blocks.py)
                last = (last.block_items or [None])[-1]
            # the statements as they are: stmt() gives a block its own scope
            out = self._items(stmts, scope, state if fall is None else join(state, fall))
            fall = None if isinstance(last, (c_ast.Break, c_ast.Return)) else out
            if isinstance(last, c_ast.Break):
                exits.append(out)
        if fall is not None:
            exits.append(fall)
        # every case returns: what follows is not reached from here
        return functools.reduce(join, exits) if exits else state

    def _items(self, items: Sequence[c_ast.Node], scope: Scope, state: State) -> State:
        used: set[int] = set()   # statements a directive took (the loop of a nest, a task body)
        for k, item in enumerate(items):
            if k in used:
                continue
            ds = directives_of(item, self.ctx)
            if not ds:
                state = self.stmt(item, scope, state)
            for d in ds:
                if isinstance(d, xd.Loop):
                    state = self._xmp_loop(d, items, k, scope, state, used)
                elif isinstance(d, xd.Task):
                    # not every node runs it (with the constructs stacked on the task, if any)
                    body, end = construct_statement(items, k, self.ctx)
                    state = join(state, self.stmt(body, scope, state))
                    used.update(range(k + 1, end))
                else:
                    handler = _HANDLERS.get(type(d))
                    state = handler(self, d, scope, state) if handler else state
        return state

    def _xmp_loop(self, d: xd.Loop, items: Sequence[c_ast.Node], k: int, scope: Scope, state: State,
                  used: set[int]) -> State:
        """A ``loop`` directive above its ``for`` (an OpenACC loop construct or an OpenMP line
        may stand between them): check the reads, then the writes count."""
        nest = nest_of_pragma(items, k, self.ctx)
        if nest is None or nest.xmp is not d:
            return state
        used.add(next(j for j in range(k + 1, len(items)) if items[j] is nest.loop))
        if d.peel_and_wait is not None:   # the rim, which reads the shadow, runs after the wait
            state = self._wait(state, [d.peel_and_wait.async_id.text])
        self.on_loop(d, nest.loop, scope, state)
        tmpl = scope.find_template(d.on.template.name)
        rng = loop_range(d, tmpl.ndims) if tmpl is not None and tmpl.ndims == len(d.on.subs) else None
        if rng is None and (d.expand is not None or d.margin is not None):
            return self._calls(nest.loop, scope, state)   # widths not constant: it may recompute any
        return self._expr(nest.loop, scope, state, (tmpl, rng) if rng and rng.clause else None)

    def reflect(self, d: xd.Reflect | xd.ReflectDo, scope: Scope, state: State) -> State:
        out = dict(state)
        for name in d.arrays:
            sym = scope.find_array(name.name)
            if sym is None:
                continue
            key = self._key(sym, scope)
            self.reflected.add(key)
            self.reflects_args |= key not in self.file_level and (sym.is_param or _member(sym))
            spec = self._spec(d, name.name, tuple(dim.full_shadow for dim in sym.dims))
            if d.async_id is not None:
                out = reflect_async(out, key, d.async_id, spec)
            else:
                out = reflected(out, key, spec)
        return out

    def _spec(self, d: xd.Reflect | xd.ReflectDo, name: str, full: tuple[bool, ...]) -> ReflectSpec:
        """What ``d`` refreshes of the array ``name``: a ``reflect_do`` runs the width of the
        ``reflect_init`` of the array (the widest, if several set one up)."""
        if isinstance(d, xd.Reflect):
            spec = reflect_spec(d.widths, d.orthogonal, full)
            text = f"reflect ({name}){spec.text}"
        else:
            inits = [i for i in self.inits if name in {n.name for n in i.arrays}]
            specs = [reflect_spec(i.widths, i.orthogonal, full) for i in inits]
            spec = widest(specs)
            text = f"reflect_do ({name})"
        if d.async_id is not None:
            text += f" async ({d.async_id.text})"
        return replace(spec, loc=d.loc, text=text)

    def reduce_shadow(self, d: xd.ReduceShadow, scope: Scope, state: State) -> State:
        """The owners added their neighbours' shadow copies: their values changed."""
        out = dict(state)
        for name in d.arrays:
            sym = scope.find_array(name.name)
            if sym is not None:
                out[self._key(sym, scope)] = Stale(d.loc, "changed by reduce_shadow")
        return out

    def wait_async(self, d: xd.WaitAsync, scope: Scope, state: State) -> State:
        return self._wait(state, [e.text for e in d.ids])

    def _wait(self, state: State, texts: list[str]) -> State:
        ids = {async_id(t) for t in texts}
        self.waited |= ids
        return wait(state, ids)

    def _key(self, sym: ArraySym, scope: Scope) -> Key:
        key = key_of(sym)
        if file_level(sym, scope):
            self.file_level.add(key)
        return key

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
            new_head = join(head, out)
            if new_head == head:
                return out
            head = new_head
        return join(head, out)

    def _expr(self, node: c_ast.Node | None, scope: Scope, state: State,
              recompute: tuple[TemplateSym | None, LoopRange] | None = None) -> State:
        """Writes in a statement without directives (or in the loop of one), and calls.
        ``recompute``: the loop's template and its expand/margin range."""
        if node is None:
            return state
        out = self._calls(node, scope, state)
        tmpl, rng = recompute if recompute is not None else (None, None)
        for acc in accesses(node, self.tree, scope):
            if not acc.writes:
                continue
            key = self._key(acc.sym, scope)
            if tmpl is not None and rng is not None and acc.sym.template.decl is tmpl.decl:
                widths = tuple(rng.widths[dim.tdim] if dim.tdim >= 0 else (0, 0) for dim in acc.sym.dims)
                out = recomputed(out, key, acc.loc, widths, str(rng.clause))
            else:
                out[key] = Stale(acc.loc)
        return out

    def _calls(self, node: c_ast.Node, scope: Scope, state: State) -> State:
        out = dict(state)
        for call in walk(node):
            if not isinstance(call, c_ast.FuncCall) or not isinstance(call.name, c_ast.ID):
                continue
            if call.name.name == "xmp_test_async" and call.args is not None and call.args.exprs:
                out = self._wait(out, [to_c(call.args.exprs[0])])   # it may have found it complete
            summary = self.summary_of(call.name.name)
            if summary is not None:
                out = self._apply(summary, call, out)
        return out

    def _apply(self, summary: Summary, call: c_ast.FuncCall, state: State) -> State:
        if summary.reflects_all:
            return {}
        passed = names_in(call.args) if summary.reflects_args else set()
        out = {k: v for k, v in state.items() if k not in summary.reflects and _root(k[1]) not in passed}
        self.reflected |= summary.reflects
        self.file_level |= summary.reflects | set(summary.leaves)
        self.waited |= summary.waits
        return join(wait(out, summary.waits), summary.leaves)


# the directives that change the state without taking a statement (reflect_init: nothing)
_HANDLERS: dict[type, Callable[[FlowWalker, Any, Scope, State], State]] = {
    xd.Reflect: FlowWalker.reflect,
    xd.ReflectDo: FlowWalker.reflect,
    xd.ReduceShadow: FlowWalker.reduce_shadow,
    xd.WaitAsync: FlowWalker.wait_async,
}
