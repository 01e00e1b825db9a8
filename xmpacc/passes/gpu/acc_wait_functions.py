"""The functions whose callers owe their ``acc wait`` (acc_reduction_wait.py, acc_compute.py).

A ``void`` function with an ``acc wait`` among its statements (a sweep of a time loop that
ends with ``acc wait``) is lowered as if the host owed the wait from its first statement,
and its last ``acc wait`` may be made on the device: a call to it, as a statement of a
block, is then device work for its caller, which owes the wait after it.  A ``static``
one called only so is that function.  Any other (another file, a function pointer or an
expression may call it) is *wrapped*: its body becomes a static copy,
``_xmpacc_owed_<name>``, that the statement calls of this file call, and the function as
written calls that copy and waits on the host, as it did:

    void sweep(void) { ...; #pragma acc wait }        static void _xmpacc_owed_sweep(void) { ... }
    for (...) sweep();                          ->    void sweep(void) { _xmpacc_owed_sweep(); <host wait> }
                                                      for (...) { _xmpacc_owed_sweep(); }
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import walk
from xmpacc.context import Context
from xmpacc.directives.openacc_ast import AccWait, WaitClause
from xmpacc.passes.common.acc_clauses import wait_clause_call
from xmpacc.passes.common.pragmas import acc_directive

_OWED = "_xmpacc_owed_"


def every_queue_wait(node: c_ast.Node) -> str:
    """The host's wait for every queue, for the line of ``node``."""
    return wait_clause_call(WaitClause((), cbuild.loc_of(node)), cbuild.where_literal(node.coord))


def plain_wait(item: c_ast.Node, ctx: Context) -> AccWait | None:
    """``#pragma acc wait [(queues)]``: the host's wait, which may move (no async, devnum)."""
    d = acc_directive(item, ctx)
    return d if isinstance(d, AccWait) and d.async_ is None and d.devnum is None else None


@dataclass(frozen=True)
class WaitingFunctions:
    """``uses``: each one's identifiers (a caller's deferred variables it must not read), by
    the name its statement calls use; ``bodies``: the names of their definitions;
    ``wrapped``: the functions wrapped -> their copy's name."""

    uses: dict[str, frozenset[str]] = field(default_factory=dict)
    bodies: frozenset[str] = frozenset()
    wrapped: dict[str, str] = field(default_factory=dict)

    def called(self, item: c_ast.Node) -> str | None:
        """The function of a call statement ``f(...);`` to one of them, else None."""
        name = item.name if isinstance(item, c_ast.FuncCall) else None
        return name.name if isinstance(name, c_ast.ID) and name.name in self.uses else None


def waiting_functions(ast: c_ast.FileAST, ctx: Context) -> WaitingFunctions:
    """Find them, make their statement calls statements of blocks (``for (...) f();``), and
    point the statement calls of the wrapped ones at their copies."""
    candidates = {f.decl.name: f for f in ast.ext or [] if isinstance(f, c_ast.FuncDef) and _plain(f)
                  and any(plain_wait(item, ctx) is not None for item in f.body.block_items or [])}
    if not candidates:   # the usual unit: nothing to find in its statements
        return WaitingFunctions()
    for node in walk(ast):   # for (...) f();  ->  for (...) { f(); }: a block of the loop
        for attr in ("stmt", "iftrue", "iffalse"):
            body = getattr(node, attr, None) if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile,
                                                                  c_ast.If)) else None
            if isinstance(body, c_ast.FuncCall) and isinstance(body.name, c_ast.ID) \
                    and body.name.name in candidates:
                setattr(node, attr, c_ast.Compound([body], body.coord))
    statement_calls = [item.name for node in walk(ast) if isinstance(node, c_ast.Compound)
                       for item in node.block_items or []
                       if isinstance(item, c_ast.FuncCall) and isinstance(item.name, c_ast.ID)
                       and item.name.name in candidates]
    called = {id(n) for n in statement_calls}
    other_uses = {n.name for n in walk(ast) if isinstance(n, c_ast.ID) and n.name in candidates
                  and id(n) not in called}   # its address, or a call whose value is used
    wrapped = {name: _OWED + name for name, f in candidates.items()
               if "static" not in f.decl.storage or name in other_uses}
    for n in statement_calls:
        n.name = wrapped.get(n.name, n.name)
    return WaitingFunctions({wrapped.get(name, name): frozenset(n.name for n in walk(f.body)
                                                                if isinstance(n, c_ast.ID))
                             for name, f in candidates.items()},
                            frozenset(candidates), wrapped)


def wrap(ast: c_ast.FileAST, functions: WaitingFunctions) -> None:
    """After lowering: each wrapped function's definition becomes its static copy, declared
    before the first declaration of the name, and the name's definition calls it and waits
    for every queue on the host."""
    for name, owed in functions.wrapped.items():
        ext = ast.ext
        k = next(k for k, f in enumerate(ext) if isinstance(f, c_ast.FuncDef) and f.decl.name == name)
        fd = ext[k]
        written = copy.deepcopy(fd.decl)
        fd.decl.name = fd.decl.type.type.declname = owed
        fd.decl.storage = ["static"]
        params = fd.decl.type.args.params if fd.decl.type.args is not None else []
        args = ", ".join(p.name for p in params if isinstance(p, c_ast.Decl) and p.name)
        body = cbuild.stmts(f"{owed}({args});" + every_queue_wait(fd), fd.coord)
        ext.insert(k + 1, c_ast.FuncDef(written, None, c_ast.Compound(body, fd.coord), fd.coord))
        first = next((j for j, d in enumerate(ext) if isinstance(d, c_ast.Decl) and d.name == name), k)
        proto = c_ast.Decl(owed, [], [], ["static"], [], copy.deepcopy(fd.decl.type), None, None, fd.coord)
        ext.insert(first + 1 if first < k else k, proto)


def _plain(f: c_ast.FuncDef) -> bool:
    """A ``void`` function of named parameters (no ``...``, no K&R list), not ``main``
    nor ``inline``, whose return type is a plain ``void``."""
    t = f.decl.type
    if not (isinstance(t, c_ast.FuncDecl) and isinstance(t.type, c_ast.TypeDecl)
            and isinstance(t.type.type, c_ast.IdentifierType) and t.type.type.names == ["void"]):
        return False
    params = t.args.params if t.args is not None else []
    return f.decl.name != "main" and "inline" not in f.decl.funcspec and f.param_decls is None \
        and not any(isinstance(p, c_ast.EllipsisParam) for p in params)
