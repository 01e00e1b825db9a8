"""OpenMP lines in host code (XMP + OpenMP hybrids), for the loops pass.

An OpenMP line next to a loop directive (above or below it, acc_nest.py pairs them) goes
directly above the node's own ``for``, inside what the directive generates:

    #pragma xmp loop on t[i] reduction(+:s)    { _xmpacc_loop_reduce_begin(...);
    #pragma omp parallel for reduction(+:s)      { _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(...);
    for (i = 0; i < N; i++)                      #pragma omp parallel for reduction(+:s)
        s += a[i];                                 for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                                                     s += ...;
                                                 }
                                                 _xmpacc_loop_reduce(...); }

so that only the node's iterations run on several threads, and the runtime (schedules,
reductions, communication) is called by one thread, as MPI was initialised for.  The loop
stays an OpenMP canonical loop.  ``collapse(n)`` gets the schedules of the inner loops it
names hoisted above the nest (OpenMP requires their bounds not to depend on the outer
indices); a ``cyclic(w)`` loop, which steps over positions and sets its index in its body,
declares the index there, since the index of a loop that OpenMP splits is private to each
thread.  Code that OpenMP runs on several threads must not call the runtime: an XMP
directive there is an error (``threaded_errors``).
"""

from __future__ import annotations

import re

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of, walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import InternalError, SourceLoc, XmpError
from xmpacc.directives.names import xmp_name
from xmpacc.passes.common.acc_nest import openmp_loc
from xmpacc.passes.common.loopnest import control_var
from xmpacc.passes.common.pragmas import acc_directive, directives_of
from xmpacc.passes.kernel.kernels import declaration
from xmpacc.runtime.contract import BY_NAME
from xmpacc.symbols import Scope

_COLLAPSE = re.compile(r"\bcollapse\s*\(\s*(\d+)\s*\)")
# constructs whose statement runs on a team of threads (not the stand-alone target ones)
_THREADED = re.compile(r"\s*omp\s+(parallel|taskloop|task|teams|target)\b(?!\s+(update|enter|exit)\b)")


def enabled(unit: Unit) -> bool:
    """Is the file compiled with OpenMP (-fopenmp, Omni's -omp)?  Its preprocessor then
    defined _OPENMP (cli.py); without, the host compiler ignores OpenMP lines."""
    return "-fopenmp" in unit.pre.cpp_args


def place(nest: c_ast.Node, pragma: c_ast.Pragma, scope: Scope) -> c_ast.Compound:
    """``nest`` (a loop directive's generated nest) with ``pragma`` directly above the
    node's own outermost ``for``."""
    block = nest if isinstance(nest, c_ast.Compound) else c_ast.Compound([nest], nest.coord)
    found = _outermost(block)
    if found is None:
        raise InternalError("a loop directive's nest without its for: this is a bug in xmpacc")
    items, k = found
    m = _COLLAPSE.search(pragma.string)
    loops, k = _collapsed(items, k, int(m.group(1)) if m else 1)
    for loop in loops:
        _private_index(loop, scope)
    items.insert(k, c_ast.Pragma(pragma.string, pragma.coord))
    return block


def _outermost(node: c_ast.Node) -> tuple[list[c_ast.Node], int] | None:
    """The block holding the nest's outermost loop over the user's iterations (inside the
    cell loop of a ``margin`` nest), and its index there."""
    items = (node.block_items or []) if isinstance(node, c_ast.Compound) else []
    for k, item in enumerate(items):
        if isinstance(item, c_ast.For) and not _declares(item, "_xmpacc_cell_"):
            return items, k
        inner = item.stmt if isinstance(item, c_ast.For) else item
        found = _outermost(inner) if isinstance(inner, c_ast.Compound) else None
        if found is not None:
            return found
    return None


def _declares(loop: c_ast.For, prefix: str) -> bool:
    """Does the loop declare its own control variable, named ``prefix...``?"""
    init = loop.init
    return isinstance(init, c_ast.DeclList) and any((d.name or "").startswith(prefix) for d in init.decls)


def _collapsed(items: list[c_ast.Node], k: int, n: int) -> tuple[list[c_ast.For], int]:
    """The loops of a ``collapse(n)`` from ``items[k]`` down, perfectly nested: the
    schedules the loops pass put between them go before the outermost (where they do not
    use an outer index; else the host compiler says the nest is not perfect).  Returns the
    loops and the outermost one's new index."""
    loops = [items[k]]
    while len(loops) < n:
        body = loops[-1].stmt
        inner = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        if not inner or not isinstance(inner[-1], c_ast.For):
            break
        schedules = inner[:-1]
        outer = {control_var(loop) for loop in loops}
        if not all(isinstance(d, c_ast.Decl) and (d.name or "").startswith("_xmpacc_") for d in schedules) \
                or any(isinstance(x, c_ast.ID) and x.name in outer for d in schedules for x in walk(d)):
            break
        items[k:k] = schedules
        k += len(schedules)
        loops[-1].stmt = inner[-1]
        loops.append(inner[-1])
    return loops, k   # type: ignore[return-value]


def _private_index(loop: c_ast.For, scope: Scope) -> None:
    """A loop over positions (``cyclic(w)``, loopnest._position_for) sets the user's index
    first thing in its body: declared there, each thread has its own."""
    body = loop.stmt
    if not _declares(loop, "_xmpacc_p_") or not isinstance(body, c_ast.Compound) or not body.block_items:
        return
    first = body.block_items[0]
    if not (isinstance(first, c_ast.Assignment) and first.op == "=" and isinstance(first.lvalue, c_ast.ID)):
        return   # declared by the user's for (int i = ...): private already
    found = scope.find_c(first.lvalue.name)
    if found is None:
        return
    decl = cbuild.stmt(f"{declaration(found[1], first.lvalue.name)} = 0;", first.coord)
    decl.init = first.rvalue
    body.block_items[0] = decl


def threads_start(pragma: c_ast.Pragma) -> bool:
    """Does the OpenMP line run its statement on a team of threads?"""
    return _THREADED.match(pragma.string) is not None


def threaded_errors(stmt: c_ast.Node, pragma: c_ast.Pragma, ctx: Context, what: str) -> list[XmpError]:
    """The XMP directives in ``stmt``, which the OpenMP line ``pragma`` runs on several
    threads (``what``: how the message names that code), at most one per line."""
    omp = f"'#pragma {pragma.string.strip()}' (line {openmp_loc(pragma).line})"
    errors: dict[int, XmpError] = {}
    for node in walk(stmt):
        found = _runtime_use(node, ctx)
        if found is not None and found[0].line not in errors:
            errors[found[0].line] = XmpError(found[0], f"{found[1]} inside {what} that {omp} runs on several "
                                                       "threads: the XMP runtime runs on one thread of each "
                                                       "node")
    return list(errors.values())


def _runtime_use(node: c_ast.Node, ctx: Context) -> tuple[SourceLoc, str] | None:
    """(where, what) when ``node`` is an XMP or OpenACC directive or what an earlier pass
    made of one (a call of the runtime)."""
    for d in directives_of(node, ctx):
        return d.loc, f"'{xmp_name(d)}'"
    acc = acc_directive(node, ctx)
    if acc is not None:
        return acc.loc, "an OpenACC directive"
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in BY_NAME:
        return loc_of(node), "an XMP directive"
    return None
