"""Pass locality: reads and writes inside ``loop`` that may leave the node's block.

A ``loop on t[i]`` runs iteration i on the node that owns t[i] (``loop on t[i+1]``: the
owner of t[i+1]); an aligned array element is in that node's memory when it is owned or
in a declared shadow, and a shadow slot holds the neighbour's value only after a
``reflect``.  For each access of an aligned array or structure member in a loop (host
``loop``, ``loop ... acc``, a ``loop`` paired with an OpenACC loop construct) and each
distributed dimension:

* subscript ``i + c`` where i is the index the loop maps to that template dimension:
  local when c plus the align offset minus the on-ref offset is 0, else that far from
  the iteration's element; ``expand(w)`` (negative: shrink) and ``margin(w)`` move the
  iterations up to w beyond the block, so the element may be further out (or, for
  ``expand(-1)`` and ``a[i - 1]``, never leave the block); beyond the block it is inside
  the shadow (block, gblock) or outside it (always outside for cyclic);
* a constant, another distributed index of the loop, or the control variable of an inner
  loop whose bounds do not depend on the loop's indices: may be anywhere, unless the
  dimension has a full shadow;
* anything else, a dimension that is not distributed or has a full shadow, a template
  other than the loop's, a node array (``loop on p[i]``), widths that are not constants:
  nothing is said (no warning is ever wrong).

Reads outside block + shadow are warnings; a write certainly outside it (``i + c``
beyond the shadow) is an error, one that only may be (``a[0]``, ``a[j]``) a warning
(``-Werror`` makes it an error); a write into a shadow slot is a warning (Omni runs it)
unless ``expand``/``margin`` puts iterations there or a ``reduce_shadow`` of the array
adds the slots to their owners.  A read inside a shadow is checked against the data
flow of reflect_flow.py: the array written (or changed by ``reduce_shadow``, or with its
asynchronous reflect not waited for) and not reflected since is a warning that names the
missing ``reflect`` or ``wait_async``, or the ``width``/``orthogonal`` reflect that
refreshed too little of it.
Nothing in the AST changes.

    #pragma xmp loop on t[i]                       (a aligned with t, no shadow)
    for (i = 1; i < N - 1; i++)
      b[i] = a[i - 1] + a[i + 1];
    -> warning: a[i - 1] may be on another node: ... add '#pragma xmp shadow a[1]' and
       '#pragma xmp reflect (a)' before the loop
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import ast as xd
from xmpacc.passes.common.accesses import Access, accesses
from xmpacc.passes.locality import locality_messages as msg
from xmpacc.passes.locality.findings import Finding, LoopInfo, classify, loop_info, stray_write
from xmpacc.passes.locality.reflect_flow import FlowWalker, Summary
from xmpacc.passes.locality.shadow_state import Key, State, key_of
from xmpacc.symbols import Scope


class _Locality:
    def __init__(self, unit: Unit, ctx: Context) -> None:
        assert ctx.scopes is not None
        self.unit, self.ctx, self.tree = unit, ctx, ctx.scopes
        self.functions = {f.decl.name: f for f in unit.ast.ext if isinstance(f, c_ast.FuncDef)}
        self.summaries: dict[str, Summary] = {}
        self.reported: dict[tuple[SourceLoc, str], tuple[str, str]] = {}
        # writes into shadow slots of these are meant to be added to their owners
        self.reduced = {n.name for ds in ctx.directives.values() for d in ds
                        if isinstance(d, xd.ReduceShadow) for n in d.arrays}

    def function(self, fn: c_ast.FuncDef) -> None:
        FlowWalker(self.ctx, self.tree, self.check_loop, self.summary).stmt(fn.body, self.tree.root, {})

    def summary(self, name: str) -> Summary | None:
        fn = self.functions.get(name)
        if fn is None:
            return None
        if name not in self.summaries:
            self.summaries[name] = Summary(reflects_all=True)   # recursion: it may reflect anything
            walker = FlowWalker(self.ctx, self.tree, lambda *a: None, self.summary)
            end = walker.stmt(fn.body, self.tree.root, {})
            self.summaries[name] = Summary(walker.reflected & walker.file_level,
                                           {k: v for k, v in end.items() if k in walker.file_level},
                                           walker.waited, reflects_args=walker.reflects_args)
        return self.summaries[name]

    def check_loop(self, d: xd.Loop, node: c_ast.For, scope: Scope, state: State) -> None:
        info = loop_info(d, node, scope)
        if info is None:
            return
        found = [(acc, classify(acc, info)) for acc in accesses(node, self.tree, scope)]
        for acc, findings in found:
            self._locality(acc, findings, info, found)
        stale: dict[Key, tuple[Access, dict[int, tuple[int, int]]]] = {}
        for acc, findings in found:
            shadow = {f.dim: (f.below, f.above) for f in findings if f.kind == "shadow"}
            entry = state.get(key_of(acc.sym))
            if acc.reads and shadow and entry is not None and not entry.covers(shadow):
                stale.setdefault(key_of(acc.sym), (acc, shadow))
        for key, (acc, shadow) in stale.items():
            # one per access: inside a loop the last pass, with the loop's whole state, wins
            self.reported[(acc.loc, "stale")] = ("warning", msg.stale_shadow(acc, state[key], d.loc, shadow))

    def _locality(self, acc: Access, findings: list[Finding], info: LoopInfo,
                  found: list[tuple[Access, list[Finding]]]) -> None:
        outside = [f for f in findings if f.kind in ("outside", "anywhere")]
        if outside:
            same = [a for a, _f in found if key_of(a.sym) == key_of(acc.sym)]
            # a write certainly outside (the iteration's own element plus a constant beyond
            # the shadow) cannot be right: an error; one that only may be (a constant
            # subscript, another loop's index) is right when the program keeps it on its
            # owner by means the analysis does not see, as Omni compiles it: a warning
            # (-Werror makes it an error)
            certain = [f for f in outside if f.kind == "outside"]
            first = certain[0] if acc.writes and certain else outside[0]
            self._say("error" if acc.writes and certain else "warning", acc.loc,
                      msg.outside(acc, first, info, same, lambda a: classify(a, info)))
        elif acc.writes and acc.sym.name not in self.reduced and \
                any(stray_write(acc, f, info) for f in findings):
            self._say("warning", acc.loc, msg.writes_shadow(acc, info))

    def _say(self, severity: str, loc: SourceLoc, text: str) -> None:
        self.reported.setdefault((loc, text), (severity, text))

    def flush(self) -> None:
        for (loc, _t), (severity, text) in sorted(self.reported.items(), key=lambda kv: (kv[0][0].line,
                                                                                         kv[0][0].col)):
            (self.ctx.diags.error if severity == "error" else self.ctx.diags.warning)(loc, text)


def run(unit: Unit, ctx: Context) -> Unit:
    checker = _Locality(unit, ctx)
    for fn in checker.functions.values():
        checker.function(fn)
    checker.flush()
    return unit
