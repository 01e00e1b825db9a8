"""A ``for`` loop in an ``acc kernels`` region with no ``acc loop`` above it (XcalableACC
§2): OpenACC leaves it to the compiler to find out whether its iterations are
independent.  This module answers with a test that only says yes when it can prove it;
otherwise the loop runs in order in one GPU thread, as OpenACC compilers do with a
"loop carried dependence" (the result is the serial one either way).

    #pragma acc kernels
    {
      for (i = 0; i < n; i++) a[i] = b[i] + c[i];       independent: one thread per i
      for (i = 0; i < n; i++) s += a[i];                independent, reduction(+:s)
      for (i = 0; i < n; i++) { t = a[i]; b[i] = t*t; } independent, t private
      for (i = 1; i < n; i++) a[i] = a[i-1] + 1;        one thread: a[i-1] is another i's a[i]
    }

The loop is independent when it is a counted loop without break/return/goto that stores
only to named variables, array elements and their members (``ps[i].x``; not through
pointers nor into a structure variable's members), and
- every array it writes is accessed (read and written) only through subscripts that have
  the loop variable itself, alone, at one and the same position (``a[i][k]`` and
  ``a[i][k+1]``: position 0), and is not passed or used by name otherwise;
- a written pointer is ``restrict`` or the only pointer the loop uses (two pointers may
  point to the same data);
- every scalar from outside that it assigns is either updated only by ``s += e``,
  ``s -= e`` (a + reduction) or ``s *= e`` (a * reduction) and read nowhere else in the
  loop, or first assigned by an unconditional ``s = e`` statement of the body not reading
  it (private; OpenACC kernels leave such a scalar's value after the loop undefined).
``--info`` says which, and why not.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast, c_generator

from xmpacc.cbuild import array_base, subscript_chain, unwind, walk
from xmpacc.passes.common.accesses import store_target
from xmpacc.passes.common.canonical import canonical
from xmpacc.passes.kernel.kernel_vars import array_like, loop_locals, outer_ids
from xmpacc.symbols import Scope


@dataclass(frozen=True)
class Verdict:
    """``reason``: why the loop runs in one thread ("" when it is independent)."""

    reason: str
    reductions: tuple[tuple[str, str], ...] = ()   # (variable, operator)
    private: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()   # one thread: the outside scalars it assigns (copy, OpenACC 2.5 kernels)

    @property
    def independent(self) -> bool:
        return not self.reason


_UPDATES = {"+=": "+", "-=": "+", "*=": "*"}


def analyse(fors: list[c_ast.For], scope: Scope, function: c_ast.Node, named: set[str]) -> Verdict:
    """``fors``: the loops whose iterations would run in parallel (``collapse(n)`` of
    them), outermost first; ``function``: the body of the function holding them (a
    private scalar must not be read after the loop, which would want the last
    iteration's value); ``named``: the variables of private and reduction clauses."""
    try:
        variables = [canonical(f).var for f in fors]
    except Exception:   # canonical() reports through XmpError; any shape it rejects is not counted
        return Verdict("it is not a counted loop")
    body = fors[-1].stmt
    whole = fors[0].stmt
    free = {ident.name for ident in outer_ids(body)} - loop_locals(body) - named
    stores = _scalar_stores(body)
    # run in one thread, the whole nest assigns these outside scalars (inner control variables are per thread)
    outside = {ident.name for ident in outer_ids(whole)} - loop_locals(whole) - named
    carried = tuple(sorted(n for n in _scalar_stores(whole) if n in outside and not array_like(n, scope)))
    why = _control_flow(body) or _other_stores(body) or \
        next((w for v in variables if (w := _arrays(body, v, free, scope))), "")
    if why:
        return Verdict(why, carried=carried)
    verdict = _scalars(body, variables, stores, carried, scope, _used_after(fors[0], function))
    return verdict if verdict.independent else Verdict(verdict.reason, carried=carried)


def _control_flow(body: c_ast.Node) -> str:
    for node in _outside_inner_loops(body):
        if isinstance(node, c_ast.Break):
            return "it has a 'break'"
    for node in walk(body):
        if isinstance(node, (c_ast.Return, c_ast.Goto)):
            return f"it has a '{'return' if isinstance(node, c_ast.Return) else 'goto'}'"
    return ""


def _other_stores(body: c_ast.Node) -> str:
    """A store the tests below cannot follow: through a pointer or into a member of a
    structure variable (``*q = ...``, ``p->x = ...``, ``s.x[i] = ...``), not to a named
    variable, an array element or a member of one (``ps[i].x = ...``)."""
    for node in walk(body):
        target = store_target(node)
        if target is None or isinstance(target, c_ast.ID) \
                or isinstance(_stored_element(target), c_ast.ArrayRef):
            continue
        target = array_base(target)
        return f"it stores through '{c_generator.CGenerator().visit(target)}'"
    return ""


def _stored_element(target: c_ast.Node) -> c_ast.Node:
    """The array element a store reaches (``ps[i]`` of ``ps[i].v[k] = ...``: the subscripts
    of the array itself, which the tests below compare), else what it stores through."""
    while True:
        if isinstance(target, c_ast.StructRef) and target.type == ".":
            target = target.name
        elif isinstance(target, c_ast.ArrayRef):
            base = array_base(target)
            if isinstance(base, c_ast.ID):
                return target
            target = base
        else:
            return target


def _outside_inner_loops(node: c_ast.Node) -> list[c_ast.Node]:
    """The nodes of the body that a ``break`` there would leave the loop from."""
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return []
    out = [node]
    for _, child in node.children():
        if not isinstance(child, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            out += _outside_inner_loops(child)
    return out


# ---------------------------------------------------------------- arrays


@dataclass(frozen=True)
class _Access:
    subs: tuple[c_ast.Node, ...]   # outermost first
    written: bool


def _accesses(body: c_ast.Node, arrays: set[str]) -> tuple[dict[str, list[_Access]], str]:
    """Every subscripted access to ``arrays``; a reason when one is used otherwise."""
    out: dict[str, list[_Access]] = {}
    written = {id(_stored_element(t)) for t in map(store_target, walk(body)) if t is not None}
    whole: set[int] = set()   # the ArrayRef chains taken whole, and their base IDs

    def visit(node: c_ast.Node) -> str:
        if isinstance(node, c_ast.ArrayRef) and id(node) not in whole:
            whole.update(id(ref) for ref in subscript_chain(node))
            chain, subs = unwind(node)
            if isinstance(chain, c_ast.ID) and chain.name in arrays:
                whole.add(id(chain))
                out.setdefault(chain.name, []).append(_Access(tuple(subs), id(node) in written))
        elif isinstance(node, c_ast.ID) and node.name in arrays and id(node) not in whole:
            return f"'{node.name}' is used other than through subscripts"
        elif isinstance(node, c_ast.UnaryOp) and node.op == "&" and isinstance(node.expr, c_ast.ArrayRef):
            return "it takes the address of an array element"
        for _, child in node.children():
            why = visit(child)
            if why:
                return why
        return ""

    return out, visit(body)


def _arrays(body: c_ast.Node, var: str, free: set[str], scope: Scope) -> str:
    arrays = {n for n in free if array_like(n, scope)}
    accesses, why = _accesses(body, arrays)
    if why:
        return why
    written = sorted(n for n, acc in accesses.items() if any(a.written for a in acc))
    for name in written:
        if not _same_position(accesses[name], var):
            return (f"'{name}' is written, and not every access to it has '{var}' alone at the same "
                    "subscript (another iteration may use the element)")
    pointers = sorted(n for n in accesses if _is_pointer(n, scope))
    for name in written:
        if name in pointers and len(pointers) > 1 and not _restrict(name, scope):
            other = next(p for p in pointers if p != name)
            return (f"pointers '{name}' and '{other}' may point to the same data (declare them restrict, "
                    "or write '#pragma acc loop independent' above the loop)")
    return ""


def _same_position(accesses: list[_Access], var: str) -> bool:
    width = min(len(a.subs) for a in accesses)
    return any(all(isinstance(a.subs[p], c_ast.ID) and a.subs[p].name == var for a in accesses)
               for p in range(width))


def _decl_type(name: str, scope: Scope) -> c_ast.Node | None:
    found = scope.find_c(name)
    return found[1].type if found is not None else None


def _is_pointer(name: str, scope: Scope) -> bool:
    return scope.find_array(name) is None and isinstance(_decl_type(name, scope), c_ast.PtrDecl)


def _restrict(name: str, scope: Scope) -> bool:
    t = _decl_type(name, scope)
    return isinstance(t, c_ast.PtrDecl) and "restrict" in t.quals


# ---------------------------------------------------------------- scalars


def _used_after(loop: c_ast.For, function: c_ast.Node) -> set[str]:
    """The names that the function mentions after the loop (in source order)."""
    inside = {id(n) for n in walk(loop)}
    end = max((n.coord.line for n in walk(loop) if n.coord is not None and n.coord.file == loop.coord.file),
              default=loop.coord.line)
    return {n.name for n in walk(function) if isinstance(n, c_ast.ID) and id(n) not in inside
            and n.coord is not None and n.coord.file == loop.coord.file and n.coord.line > end}


def _scalar_stores(body: c_ast.Node) -> dict[str, list[c_ast.Node]]:
    """The assignments and increments of every variable the body assigns by name."""
    stores: dict[str, list[c_ast.Node]] = {}
    for node in walk(body):
        target = store_target(node)
        if isinstance(target, c_ast.ID):
            stores.setdefault(target.name, []).append(node)
    return stores


def _scalars(body: c_ast.Node, variables: list[str], stores: dict[str, list[c_ast.Node]],
             carried: tuple[str, ...], scope: Scope, later: set[str]) -> Verdict:
    var = next((v for v in variables if v in stores), None)
    if var is not None:
        return Verdict(f"it assigns its control variable '{var}'")
    reductions: list[tuple[str, str]] = []
    private: list[str] = []
    for name in carried:
        op = _reduction(body, name, stores[name])
        if op is not None:
            reductions.append((name, op))
        elif _assigned_first(body, name) and name not in later:
            private.append(name)
        elif name in later:
            return Verdict(f"the scalar '{name}' is assigned in the loop and used after it "
                           "(declare it in the loop body, or name it in a private clause of "
                           "'#pragma acc loop' above the loop)")
        else:
            return Verdict(f"the scalar '{name}' carries a value from one iteration to the next")
    return Verdict("", tuple(reductions), tuple(private))


def _reads(node: c_ast.Node | None, name: str) -> bool:
    return node is not None and any(isinstance(n, c_ast.ID) and n.name == name for n in walk(node))


def _reduction(body: c_ast.Node, name: str, stores: list[c_ast.Node]) -> str | None:
    """The operator when every store is ``name op= e`` with ``e`` not reading ``name``
    and ``name`` appears nowhere else."""
    ops = {_UPDATES.get(s.op) if isinstance(s, c_ast.Assignment) and not _reads(s.rvalue, name) else None
           for s in stores}
    if len(ops) != 1 or None in ops:
        return None
    uses = sum(1 for n in walk(body) if isinstance(n, c_ast.ID) and n.name == name)
    return ops.pop() if uses == len(stores) else None


def _assigned_first(body: c_ast.Node, name: str) -> bool:
    """``name = e;`` (e not reading name) is the first statement of the body that mentions
    ``name``, at the body's top level (so it runs in every iteration, before any read)."""
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    for item in items:
        if not _reads(item, name):
            continue
        return isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID) \
            and item.lvalue.name == name and not _reads(item.rvalue, name)
    return False
