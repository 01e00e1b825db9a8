"""Lane splitting: may T GPU threads share one iteration of a ``loop ... acc``?

The paper maps one thread to one local iteration.  When an iteration is itself a long
sequential loop (the n-body j-loop, a matrix-vector row), a node with few iterations
cannot fill the GPU.  If the body has the shape

    { <prefix: declarations and assignments of body-local scalars>
      for (j = e1; j op e2; j += s) { <reads; acc += ...; private temporaries> }
      <suffix: anything> }

then T lanes can share the iteration: lane l runs j = e1 + l*s, e1 + (l+T)*s, ...; the
accumulators are combined across lanes with warp shuffles; lane 0 alone runs the suffix.
``analyse`` decides that conservatively and returns the plan (or why not, for --info).

Conditions (all checked):
* the prefix writes only body-local scalars (no arrays, no outside variables);
* the inner loop is canonical and has no break/return/goto;
* in the inner loop, every write is either an accumulator update ``a += e``, ``a -= e``,
  ``a *= e``, ``a = fmax(a, e)``/``fmin`` (a declared in the body, before the loop; e
  does not read any accumulator; one operator per accumulator), or a write of a
  temporary that each inner iteration assigns before it reads it and that the suffix
  does not read;
* accumulators are read in the loop only by their own update.
The summation order changes (each lane sums a strided subset, then the lanes are
combined), so floating-point results may differ in the last bits.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.diagnostics import XmpError
from xmpacc.passes.common.canonical import canonical
from xmpacc.passes.common.values import LanePlan

_UPDATE_OPS = {"+=": "+", "-=": "+", "*=": "*"}
_MINMAX = {"fmax": "max", "fmin": "min", "fmaxf": "max", "fminf": "min"}


class _NotSplittable(Exception):
    pass


def _ids(node: c_ast.Node | None) -> set[str]:
    if node is None:
        return set()
    skip = {id(n.name) for n in walk(node) if isinstance(n, c_ast.FuncCall)}
    skip |= {id(n.field) for n in walk(node) if isinstance(n, c_ast.StructRef)}
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID) and id(n) not in skip}


def _local_scalars(prefix: list[c_ast.Node]) -> set[str]:
    return {d.name for d in prefix if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.TypeDecl)}


def _check_prefix(prefix: list[c_ast.Node], locals_: set[str]) -> None:
    for stmt in prefix:
        if isinstance(stmt, c_ast.Decl):
            continue
        if isinstance(stmt, c_ast.Assignment) and isinstance(stmt.lvalue, c_ast.ID) \
                and stmt.lvalue.name in locals_:
            continue
        raise _NotSplittable("the statements before the inner loop must only set body-local scalars")


def _accumulator_update(node: c_ast.Assignment, locals_: set[str]) -> tuple[str, str] | None:
    """(name, op) when ``node`` is an accumulator update of a body-local scalar."""
    if not isinstance(node.lvalue, c_ast.ID) or node.lvalue.name not in locals_:
        return None
    name = node.lvalue.name
    if node.op in _UPDATE_OPS:
        return name, _UPDATE_OPS[node.op]
    rv = node.rvalue
    if node.op == "=" and isinstance(rv, c_ast.FuncCall) and isinstance(rv.name, c_ast.ID) \
            and rv.name.name in _MINMAX and rv.args and len(rv.args.exprs) == 2:
        a, b = rv.args.exprs
        if isinstance(a, c_ast.ID) and a.name == name and name not in _ids(b):
            return name, _MINMAX[rv.name.name]
    return None


def _find_accumulators(inner: c_ast.For, locals_: set[str]) -> dict[str, str]:
    accs: dict[str, str] = {}
    for node in walk(inner.stmt):
        if isinstance(node, c_ast.Assignment):
            upd = _accumulator_update(node, locals_)
            if upd is not None:
                name, op = upd
                if accs.setdefault(name, op) != op:
                    raise _NotSplittable(f"'{name}' is updated with two different operators")
    return accs


class _PrivateScan:
    """Checks that temporaries are assigned before they are read in every inner iteration."""

    def __init__(self, accs: dict[str, str], candidates: set[str]) -> None:
        self.accs, self.candidates = accs, candidates

    def reads(self, expr: c_ast.Node | None, assigned: set[str]) -> None:
        for name in _ids(expr) & self.candidates:
            if name not in assigned:
                raise _NotSplittable(f"'{name}' is read in the inner loop before it is assigned")

    def stmt(self, node: c_ast.Node | None, assigned: set[str]) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Compound):
            for item in node.block_items or []:
                self.stmt(item, assigned)
        elif isinstance(node, c_ast.Decl):
            self.reads(node.init, assigned)
            assigned.add(node.name)
        elif isinstance(node, c_ast.Assignment):
            self._assignment(node, assigned)
        elif isinstance(node, c_ast.If):
            self.reads(node.cond, assigned)
            self.stmt(node.iftrue, set(assigned))
            self.stmt(node.iffalse, set(assigned))
        elif isinstance(node, c_ast.For):
            self.stmt(node.init, assigned)
            self.reads(node.cond, assigned)
            self.stmt(node.stmt, set(assigned))
            self.reads(node.next, assigned | _ids(node.next))
        elif isinstance(node, (c_ast.Break, c_ast.Return, c_ast.Goto, c_ast.While, c_ast.DoWhile,
                               c_ast.Switch, c_ast.Label)):
            raise _NotSplittable(f"'{type(node).__name__.lower()}' in the inner loop")
        elif isinstance(node, (c_ast.Continue, c_ast.EmptyStatement)):
            return
        else:
            self.reads(node, assigned)

    def _assignment(self, node: c_ast.Assignment, assigned: set[str]) -> None:
        target = node.lvalue
        if not isinstance(target, c_ast.ID):
            raise _NotSplittable("the inner loop writes an array element or a struct member")
        name = target.name
        if name in self.accs:
            if _ids(node.rvalue) & (set(self.accs) - {name}) or \
                    (node.op in _UPDATE_OPS and name in _ids(node.rvalue)):
                raise _NotSplittable(f"the update of '{name}' reads an accumulator")
            self.reads(node.rvalue, assigned)
            return
        if node.op != "=":
            raise _NotSplittable(f"'{name}' is updated in the inner loop but is no accumulator")
        self.reads(node.rvalue, assigned)
        assigned.add(name)


def analyse(body: c_ast.Node) -> tuple[LanePlan | None, str]:
    """The lane-split plan of a kernel body, or None and the reason it is not split."""
    if not isinstance(body, c_ast.Compound):
        return None, "the loop body is a single statement"
    items = body.block_items or []
    fors = [k for k, item in enumerate(items) if isinstance(item, c_ast.For)]
    if len(fors) != 1:
        return None, "the body has no single inner for loop"
    k = fors[0]
    inner = items[k]
    prefix, suffix = items[:k], items[k + 1:]
    locals_ = _local_scalars(prefix)
    try:
        _check_prefix(prefix, locals_)
        loop = canonical(inner)
        accs = _find_accumulators(inner, locals_)
        if not accs:
            raise _NotSplittable("the inner loop updates no accumulator")
        inner_decls = {d.name for d in walk(inner) if isinstance(d, c_ast.Decl) and d.name}
        written = _assigned_in([inner.stmt]) | inner_decls
        outside = written - locals_ - inner_decls - set(accs)
        if outside:
            raise _NotSplittable(f"the inner loop writes '{sorted(outside)[0]}', which is declared "
                                 "outside the body")
        temporaries = written - set(accs) - {loop.var}
        _PrivateScan(accs, temporaries).stmt(inner.stmt, {loop.var})
        suffix_reads = set().union(*(_ids(s) for s in suffix)) if suffix else set()
        leaked = temporaries & _assigned_in([inner]) & suffix_reads   # lane-dependent values
        if leaked:
            raise _NotSplittable(f"'{sorted(leaked)[0]}' is set in the inner loop and read after it")
    except (_NotSplittable, XmpError) as why:
        return None, str(why.message if isinstance(why, XmpError) else why)
    return LanePlan(k, loop, tuple(sorted(accs.items()))), "split"


def _assigned_in(stmts: list[c_ast.Node]) -> set[str]:
    out = set()
    for s in stmts:
        for n in walk(s):
            if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
                out.add(n.lvalue.name)
    return out
