"""``on``/``from`` references as runtime arguments (global-view §6, reference §3).

A reference names a node array or a template; both travel as the address of their
descriptor and the encoded subscripts (contract.py, REF_*), and the runtime tells them
apart by the descriptor (runtime/nodesets.py):

    task on p[1:2]         ->  &_xmpacc_n_p, (const long long []){1, 1, (1), (2), (1)}
    bcast (x) from t(k)    ->  &_xmpacc_t_t, (const long long []){1, 0, (k), 0, 0}
    barrier on t(1:4)      ->  &_xmpacc_t_t, (const long long []){1, 1, (1), (4), (1)}
    reduction ... on t     ->  &_xmpacc_t_t, 0            (every node t is distributed onto)

Node indices are 0-based here (``Ref.node_subs``); template indices stay as written.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import AlreadyReported, XmpError
from xmpacc.directives import ast as xd
from xmpacc.runtime.contract import (
    REF_ALL,
    REF_FROM_START,
    REF_INDEX,
    REF_STAR,
    REF_TRIPLET,
    REF_TRIPLET_TO_END,
)
from xmpacc.symbols import NodesSym, Scope, TemplateSym


def lookup(name: xd.Name, scope: Scope) -> NodesSym | TemplateSym:
    """The node array or template ``name`` denotes here (innermost declaration wins)."""
    s: Scope | None = scope
    while s is not None:
        if name.name in s.nodes:
            return s.nodes[name.name]
        if name.name in s.templates:
            return s.templates[name.name]
        if name.name in s.broken_xmp:
            raise AlreadyReported
        s = s.parent
    raise XmpError(name.loc, f"nodes '{name.name}' is not declared (nor a template of that name)")


def _sub(sub: xd.RefSub, single: bool) -> list[str]:
    if isinstance(sub, xd.Star):
        return [str(REF_STAR), "0", "0", "0"]
    if isinstance(sub, xd.Expr):
        return [str(REF_INDEX), f"({sub.text})", "0", "0"]
    if single:
        raise XmpError(sub.loc, "the source of bcast must be a single node")
    step = f"({sub.step.text})" if sub.step else "1"
    start = f"({sub.start.text})" if sub.start else "0"
    last = f"({sub.last.text})" if sub.last else "0"
    if sub.start is None:
        kind = REF_ALL if sub.last is None else REF_FROM_START
    else:
        kind = REF_TRIPLET_TO_END if sub.last is None else REF_TRIPLET
    return [str(kind), start, last, step]


def encode(subs: tuple[xd.RefSub, ...] | None, single: bool = False) -> str:
    if subs is None:
        return "0"
    parts = [str(len(subs))]
    for sub in subs:
        parts += _sub(sub, single)
    return "(const long long []){" + ", ".join(parts) + "}"


def on_ref(ref: xd.Ref | None, scope: Scope, single: bool = False) -> tuple[str, str]:
    """(descriptor address, encoded reference) C texts; ("0", "0") without a reference
    (the executing node set)."""
    if ref is None:
        return "0", "0"
    sym = lookup(ref.name, scope)
    if isinstance(sym, TemplateSym):
        if sym.distribute is None:
            raise XmpError(ref.name.loc, f"template '{sym.name}' is not distributed")
        if ref.subs is not None and len(ref.subs) != sym.ndims:
            raise XmpError(ref.loc, f"template '{sym.name}' has {sym.ndims} dimension(s) but the "
                                    f"reference gives {len(ref.subs)}")
        return f"&{sym.c_name}", encode(ref.subs, single)
    subs = ref.node_subs()
    if subs is not None and len(subs) != sym.ndims:
        raise XmpError(ref.loc, f"nodes '{sym.name}' has {sym.ndims} dimension(s) but the "
                                f"reference gives {len(subs)}")
    return f"&{sym.c_name}", encode(subs, single)


def loop_indices(loop: xd.Loop) -> list[tuple[str, int]]:
    """(control variable, template dimension) of the distributed loops, on-ref order."""
    where: dict[str, int] = {}
    for t, sub in enumerate(loop.on.subs):
        if isinstance(sub, xd.LoopIndex):
            if sub.name.name in where:
                raise XmpError(sub.name.loc, f"loop index '{sub.name.name}' appears twice in the on-ref")
            where[sub.name.name] = t
    names = [n for n in loop.indices] if loop.indices is not None else None
    if names is None:
        return list(where.items())
    out = []
    for n in names:
        if n.name not in where:
            raise XmpError(n.loc, f"cannot find index '{n.name}' in the on-ref of the loop directive")
        out.append((n.name, where[n.name]))
    return out



def owner_guard(loop: xd.Loop, target: TemplateSym | NodesSym, indices: dict[str, int],
                node: c_ast.Node) -> c_ast.Node:
    """``node`` (a lowered loop: its schedules, iterations and reduction calls) run only on
    the nodes that own the on-ref's subscripts that are not loop indices: in ``loop (j) on
    t[i][j]`` iteration j runs on the owner of t[i][j] (reference §6.1), so a node without
    index i of that dimension runs none.  Its reduction's node set shares that coordinate,
    so the whole set skips the collective together, and keeps the variable's value."""
    if not isinstance(target, TemplateSym):
        return node
    fixed = [f"_xmpacc_tdim_owns(&{target.c_name}.dim[{t}], ({sub.name.name}){_offset(sub)})"
             for t, sub in enumerate(loop.on.subs)
             if isinstance(sub, xd.LoopIndex) and sub.name.name not in indices]
    if not fixed:
        return node
    body = node if isinstance(node, c_ast.Compound) else c_ast.Compound([node], node.coord)
    return c_ast.If(cbuild.expr(" && ".join(fixed), node.coord), body, None, node.coord)


def _offset(sub: xd.LoopIndex) -> str:
    return f" + ({sub.offset.text})" if sub.offset else ""


def loop_offsets(loop: xd.Loop) -> dict[str, str | None]:
    """The on-ref offset of each loop index: ``t(i+1)`` gives {'i': '1'}."""
    return {sub.name.name: sub.offset.text if sub.offset else None
            for sub in loop.on.subs if isinstance(sub, xd.LoopIndex)}



def loop_target(loop: xd.Loop, scope: Scope) -> TemplateSym | NodesSym:
    """The template, or node array, of a loop's on-ref, checked."""
    try:
        sym = lookup(loop.on.template, scope)
    except XmpError:
        raise XmpError(loop.on.template.loc, f"template '{loop.on.template.name}' is not declared") from None
    if isinstance(sym, TemplateSym):
        return loop_template(loop, scope)
    if len(loop.on.subs) != sym.ndims:
        raise XmpError(loop.on.loc, f"nodes '{sym.name}' has {sym.ndims} dimension(s) but the "
                                    f"on-ref gives {len(loop.on.subs)}")
    return sym



def loop_template(loop: xd.Loop, scope: Scope) -> TemplateSym:
    """The distributed template of a loop's on-ref, checked (shared with the gpu pass)."""
    tmpl = scope.find_template(loop.on.template.name)
    if scope.is_broken(loop.on.template.name):
        raise AlreadyReported
    if tmpl is None:
        name = loop.on.template.name
        if scope.find_nodes(name) is not None:
            raise XmpError(loop.on.template.loc, "'loop ... acc' on a node array is not supported yet")
        raise XmpError(loop.on.template.loc, f"template '{name}' is not declared")
    if tmpl.distribute is None:
        raise XmpError(loop.on.template.loc, f"template '{tmpl.name}' is not distributed")
    if len(loop.on.subs) != tmpl.ndims:
        raise XmpError(loop.on.loc, f"template '{tmpl.name}' has {tmpl.ndims} dimension(s) but the "
                                    f"on-ref gives {len(loop.on.subs)}")
    return tmpl
