"""Pass gmove: ``#pragma xmp gmove`` and the assignment after it become one runtime call
(global-view §2).

Before:                               After:
    #pragma xmp gmove                     _xmpacc_gmove("f.c:20", 0,
    b[0:N][2] = a[2][0:N];                  &_xmpacc_a_b, 0,
                                            (const long long []){2, sizeof(*b), 100, 1, 0, 100, 1, ...},
                                            &_xmpacc_a_a, 0, (const long long []){2, sizeof(*a), ...});
    #pragma xmp gmove acc                 _xmpacc_gmove_acc("f.c:21", 0, 0, (void *) v, ...,
    v[0:4] = a[2:4];                                        &_xmpacc_a_a, 0, ..., "v", "a");
                                          (the device copies of both sides, local ones too)
    #pragma xmp gmove in async (1)        _xmpacc_async_begin(1);
    x = a[i];                             _xmpacc_gmove("f.c:22", 1, 0, (void *) &x,
                                                        (const long long []){0, sizeof(x)}, &_xmpacc_a_a, 0,
                                                        (const long long []){1, sizeof(*a), 100, 0, i, 1, 1});
                                          _xmpacc_async_end();

A distributed side travels as its descriptor, a local one as its address; sections as in
``section_code.encode``.  Between local data only, the statement is an ordinary array
assignment (pass assign).  Shapes and element types are checked here when they are
known; the runtime checks the rest and plans the copy (runtime/gmove.py).  ``in``/``out``
make the file's start-up code announce one-sided communication: windows on the arrays,
or, with ``acc``, the gmove agent that serves other nodes on the device copies
(``_xmpacc_gmove_agent_init("f.c:30")``, runtime/acc_gmove_agent.py).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc import cbuild, facts
from xmpacc.cbuild import loc_of
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, SourceLoc, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.blocks import BlockLowering, Lowered, owned_statement
from xmpacc.passes.common.pragmas import directives_of
from xmpacc.passes.localize.assignments import lower_assignment, pointer_decl
from xmpacc.runtime.contract import (
    GMOVE_ACC_HOST_SOURCE,
    GMOVE_ACC_IN,
    GMOVE_ACC_OUT,
    GMOVE_COLLECTIVE,
    GMOVE_IN,
    GMOVE_OUT,
)
from xmpacc.section_code import (
    Hoister,
    Operand,
    SubCode,
    base_address,
    encode,
    is_simple,
    operand_of,
    resolve,
    shape,
    whole,
    written,
)
from xmpacc.symbols import Scope, ScopeTree

_MODES = {"collective": GMOVE_COLLECTIVE, "in": GMOVE_IN, "out": GMOVE_OUT}
_ACC_MODES = {"collective": 0, "in": GMOVE_ACC_IN, "out": GMOVE_ACC_OUT}
RMA_INIT = "_xmpacc_gmove_rma_init();"
AGENT_INIT = "_xmpacc_gmove_agent_init({where});"


def _side(node: c_ast.Node, scope: Scope, which: str) -> Operand:
    """A variable, element or section: anything else (arithmetic, calls) is an error."""
    op = operand_of(node, scope, members=True) \
        if isinstance(node, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)) \
        else None
    if op is None:
        raise XmpError(loc_of(node), f"the {which}-hand side of a gmove must be a variable, an array "
                                     "element or an array section (no arithmetic, no calls)")
    if not op.subs and op.is_array:
        op = whole(op)
    return op


def _constant(node: c_ast.Node, lhs: Operand) -> tuple[c_ast.Decl, Operand] | None:
    """``a[0:n] = 3.5``: the constant goes through a variable of the element type."""
    if not is_simple(node) or isinstance(node, c_ast.ID):
        return None
    decl = pointer_decl("_xmpacc_c", lhs.elem, copy.deepcopy(node))
    decl.type = decl.type.type   # the element type itself, not a pointer to it
    op = Operand(c_ast.ID("_xmpacc_c", node.coord), "_xmpacc_c", decl, None, (), (), lhs.elem, loc_of(node))
    return decl, op


def _check_shapes(lhs: Operand, lshape: list[SubCode], rhs: Operand, rshape: list[SubCode]) -> None:
    """Compile-time conformance (the runtime checks what is not known here)."""
    if not rshape and lshape:
        return  # a[0:n] = x: fill
    if len(lshape) != len(rshape):
        raise XmpError(rhs.loc, f"shapes do not conform: '{lhs.name}' has {len(lshape)} dimension(s) "
                                f"but '{rhs.name}' has {len(rshape)}")
    for a, b in zip(lshape, rshape, strict=True):
        if a.const_length is not None and b.const_length is not None and a.const_length != b.const_length:
            shown = ["[" + "][".join(cbuild.to_c(s.length) for s in sh) + "]" for sh in (lshape, rshape)]
            raise XmpError(b.loc, f"shapes do not conform: '{lhs.name}' has shape {shown[0]} but "
                                  f"'{rhs.name}' has shape {shown[1]}")


def _args(op: Operand, subs: list[SubCode], h: Hoister) -> str:
    sec = encode(op, subs, h)
    if op.sym is not None:
        return f"&{op.sym.c_name}, 0, {sec}"
    return f"0, {base_address(op)}, {sec}"


def _kind(op: Operand) -> str:
    return "distributed" if op.sym is not None else "local" if op.is_array else "scalar"


def lower_gmove(d: xd.Gmove, stmt: c_ast.Node, scope: Scope) -> tuple[list[c_ast.Node], facts.GmoveFacts]:
    if not isinstance(stmt, c_ast.Assignment) or stmt.op != "=":
        raise XmpError(d.loc, "the statement after gmove must be an assignment 'lhs = rhs;'")
    lhs = _side(stmt.lvalue, scope, "left")
    constant = _constant(stmt.rvalue, lhs)
    rhs = constant[1] if constant else _side(stmt.rvalue, scope, "right")
    if lhs.basic_type and rhs.basic_type and lhs.elem_type != rhs.elem_type:
        raise XmpError(loc_of(stmt), f"gmove: the element types differ ('{lhs.elem_type}' and "
                                     f"'{rhs.elem_type}'); gmove copies elements as they are")
    h = Hoister(cbuild.where_literal(d.loc), stmt.coord)
    if constant:
        h.decls.append(constant[0])
    lsubs, rsubs = resolve(lhs, h), resolve(rhs, h)
    _check_shapes(lhs, shape(lsubs), rhs, shape(rsubs))
    info = facts.GmoveFacts(written(stmt), _kind(lhs), _kind(rhs), d.mode,
                            d.async_id.text if d.async_id is not None else None, d.acc)
    if lhs.sym is None and rhs.sym is None and not d.acc:   # local = local: a plain copy
        if not lsubs or lhs.rank == 0:
            return [stmt], info
        return [lower_assignment(stmt, scope)], info
    if d.acc:   # the device copies of both sides (a constant stays a host value)
        flags = (GMOVE_ACC_HOST_SOURCE if constant else 0) | _ACC_MODES[d.mode]
        names = f"{cbuild.c_string(lhs.name)}, {cbuild.c_string(rhs.name if not constant else '(constant)')}"
        call = cbuild.stmts(f"_xmpacc_gmove_acc({h.where}, {flags}, {_args(lhs, lsubs, h)}, "
                            f"{_args(rhs, rsubs, h)}, {names});", stmt.coord)
    else:
        call = cbuild.stmts(f"_xmpacc_gmove({h.where}, {_MODES[d.mode]}, {_args(lhs, lsubs, h)}, "
                            f"{_args(rhs, rsubs, h)});", stmt.coord)
    if d.async_id is not None:
        call = cbuild.stmts(f"_xmpacc_async_begin({d.async_id.text});", stmt.coord) + call + \
            cbuild.stmts("_xmpacc_async_end();", stmt.coord)
    return ([c_ast.Compound(h.decls + call, stmt.coord)] if h.decls else call), info


class _GmoveLowering(BlockLowering):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree, ctx)
        self.one_sided = False
        self.agent_at: SourceLoc | None = None   # the first gmove in/out acc
        self.in_loop = 0

    def lower_at(self, items: list[c_ast.Node], i: int) -> Lowered:
        item = items[i]
        ds = directives_of(item, self.ctx)
        gmove = next((d for d in ds if isinstance(d, xd.Gmove)), None)
        if gmove is None:
            loop = any(isinstance(d, xd.Loop) for d in ds)
            owned = items[i + 1] if loop and i + 1 < len(items) else None   # a loop's body counts as in_loop
            self.in_loop += loop
            self.visit(owned if owned is not None else item)
            self.in_loop -= loop
            return ([item] if owned is None else [item, owned]), (1 if owned is None else 2)
        stmt = owned_statement(items, i)
        return self._lower(gmove, stmt), (1 if stmt is None else 2)

    def _lower(self, d: xd.Gmove, stmt: c_ast.Node | None) -> list[c_ast.Node]:
        try:
            if stmt is None:
                raise XmpError(d.loc, "the statement after gmove must be an assignment 'lhs = rhs;'")
            lowered, info = lower_gmove(d, stmt, self.scope)
            if self.in_loop and lowered != [stmt] and any(
                    "_xmpacc_gmove" in cbuild.to_c(n) for n in lowered):
                raise XmpError(d.loc, "'gmove' of distributed data inside the body of a loop directive "
                                      "is not supported yet")
            if d.mode != "collective" and d.acc:
                self.agent_at = self.agent_at or d.loc
            self.one_sided |= d.mode != "collective" and not d.acc
            self.ctx.info.append(facts.InfoFact(d.loc, info))
            return lowered
        except XmpError as err:
            self.ctx.diags.add(err)
        except AlreadyReported:
            pass
        return []


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    lowering = _GmoveLowering(ctx.scopes, ctx)
    lowering.visit(unit.ast)
    if lowering.one_sided:
        ctx.init_stmts[:0] = cbuild.stmts(RMA_INIT)
    if lowering.agent_at is not None:
        ctx.init_stmts[:0] = cbuild.stmts(AGENT_INIT.format(where=cbuild.where_literal(lowering.agent_at)))
    return unit
