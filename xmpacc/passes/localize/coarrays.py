"""Pass coarrays: coindexed references and local-view directives become runtime calls
(global-view §11).  Runs first in the localize stage, before the array assignment passes.

Before:                                     After (see coarray_code.py for the calls):
    #pragma xmp sync_all                        _xmpacc_sync_all("f.c:8");
    a[0:5]:[k] = b[0:5];       (put)            { ... _xmpacc_coarray_put((void *) a, ...); }
    b[0:5] = a[0:5]:[k];       (get)            { ... _xmpacc_coarray_get((void *) a, ...); }
    a[i]:[k] += x;             (element put)    { int _xmpacc_v =
                                                      (*(int *) _xmpacc_coarray_get_elem(...)) + (x);
                                                  _xmpacc_coarray_put_elem(...); }
    y = 2 * a[i]:[k];          (element get)    y = 2 * (*(int *) _xmpacc_coarray_get_elem(...));

A coindexed element anywhere in an expression is a get into a temporary of the runtime.
A coindexed section is allowed as one whole side of an assignment whose other side is a
local section, element or variable (or, for a put, a scalar expression); elsewhere, and
inside code that runs on the device (``loop ... acc``, OpenACC compute constructs), it
is reported as not supported yet.
"""

from __future__ import annotations

import dataclasses

from pycparser import c_ast

from xmpacc.cbuild import loc_of, map_children, walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives import local_view_ast as lv
from xmpacc.directives.openacc_ast import AccCompute, AccLoop
from xmpacc.passes.common.coindex import is_coindex
from xmpacc.passes.common.pragmas import acc_directive, directives_of
from xmpacc.passes.localize.coarray_code import (
    CoRef,
    coref,
    directive_calls,
    get_elem,
    is_element,
    put_elem,
    transfer,
)
from xmpacc.scoping import ScopedWalker
from xmpacc.sections import is_triplet_call, section
from xmpacc.symbols import ScopeTree

_LOCAL_VIEW = (lv.SyncAll, lv.SyncMemory, lv.SyncImages, lv.Post, lv.Wait, lv.CoLock, lv.Critical,
               lv.CoarrayDirective)
_STATEMENT_SLOTS = {c_ast.If: ("iftrue", "iffalse"), c_ast.For: ("stmt",), c_ast.While: ("stmt",),
                    c_ast.DoWhile: ("stmt",), c_ast.Label: ("stmt",)}
_EXPRESSIONS = (c_ast.ArrayRef, c_ast.Assignment, c_ast.BinaryOp, c_ast.Cast, c_ast.CompoundLiteral,
                c_ast.ExprList, c_ast.FuncCall, c_ast.ID, c_ast.InitList, c_ast.NamedInitializer,
                c_ast.StructRef, c_ast.TernaryOp, c_ast.UnaryOp)
_DEVICE = "a coarray in code that runs on the device (XcalableACC §5) is not supported yet"


class _Lowering(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree)
        self.ctx = ctx
        self.device = 0        # > 0 inside a statement that an acc directive owns

    # ------------------------------------------------------------ statements
    def _items(self, items: list[c_ast.Node]) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        device_next = False
        for item in items:
            if isinstance(item, c_ast.Pragma):
                out += self._pragma(item)
                device_next = self._is_device(item)
                continue
            self.device += device_next
            try:
                out.append(self._statement(item))
            finally:
                self.device -= device_next
            device_next = False
        return out

    def _is_device(self, pragma: c_ast.Pragma) -> bool:
        """Does the statement after ``pragma`` run on the device (a compute construct,
        ``loop ... acc``)?  A data region's body is host code."""
        if isinstance(acc_directive(pragma, self.ctx), (AccCompute, AccLoop)):
            return True
        ds = directives_of(pragma, self.ctx)
        return any(isinstance(d, xd.Loop) and d.acc for d in ds)

    def _pragma(self, item: c_ast.Pragma) -> list[c_ast.Node]:
        self._no_device_data(item)
        ds = directives_of(item, self.ctx)
        if not ds or not all(isinstance(d, _LOCAL_VIEW) for d in ds):
            return [item]
        out: list[c_ast.Node] = []
        for d in ds:
            try:
                out += directive_calls(d, self.scope, self.ctx.coarrays, item.coord)
            except XmpError as err:
                self.ctx.diags.add(err)
        return out

    def _statement(self, node: c_ast.Node | None) -> c_ast.Node | None:
        if node is None:
            return None
        try:
            if isinstance(node, c_ast.Assignment) and self._has_coindex(node):
                lowered = self._assignment(node)
                if lowered is not None:
                    return lowered
            if isinstance(node, _EXPRESSIONS) and self._has_coindex(node):
                return self._expression(node)
        except XmpError as err:
            self.ctx.diags.add(err)
            return c_ast.EmptyStatement(node.coord)   # reported: no later pass looks at it
        self.visit(node)
        return node

    def _has_coindex(self, node: c_ast.Node) -> bool:
        return any(isinstance(n, c_ast.ArrayRef) and is_coindex(n.subscript) for n in walk(node))

    def _assignment(self, node: c_ast.Assignment) -> c_ast.Node | None:
        """A put, a section get, or None (element gets only: the expression walk does them)."""
        self._no_device(node)
        target = coref(node.lvalue, self.scope, self.ctx.coarrays)
        if target is not None:
            return self._put(node, target)
        source = coref(node.rvalue, self.scope, self.ctx.coarrays)
        if source is not None and section(node.lvalue) is not None and node.op == "=":
            is_element(source, self.scope)   # a partial reference is a mistake
            return transfer(source, node.lvalue, False, self.scope, node.coord)
        return None

    def _put(self, node: c_ast.Assignment, target: CoRef) -> c_ast.Node:
        rhs = self._expression(node.rvalue)
        if is_element(target, self.scope):
            value = rhs if node.op == "=" else \
                c_ast.BinaryOp(node.op[:-1], get_elem(target, self.scope), rhs, node.coord)
            return put_elem(target, value, self.scope, node.coord)
        if node.op != "=":
            raise XmpError(loc_of(node), f"'{node.op}' on a coindexed section is not supported yet: "
                                         "get the section into a local array, compute, and put it back")
        if section(rhs) is not None or _plain_local(rhs):
            return transfer(target, rhs, True, self.scope, node.coord)
        if any(section(n) is not None for n in walk(rhs) if isinstance(n, c_ast.ArrayRef)):
            raise XmpError(loc_of(rhs), "a coarray put takes a local section or a scalar value; an "
                                        "expression of sections is not supported yet: compute it into a "
                                        "local array first")
        return transfer(target, None, True, self.scope, node.coord, value=rhs)

    def _no_device_data(self, item: c_ast.Pragma) -> None:
        """A coarray named in an OpenACC or XMP-ACC directive (data clauses, acc replicate)."""
        acc = acc_directive(item, self.ctx)
        ds = [acc] if acc is not None else directives_of(item, self.ctx)
        for d in ds:
            if acc is None and not isinstance(d, (xd.AccReplicate, xd.AccReplicateSync)):
                continue
            for name in _names(d):
                found = self.scope.find_c(name.name)
                co = self.ctx.coarrays.get(name.name)
                if co is not None and found is not None and found[0].parent is None:
                    self.ctx.diags.error(name.loc, f"coarray '{name.name}' in an acc directive: device "
                                                   "copies of coarrays (XcalableACC §5) are not "
                                                   "supported yet")

    # ------------------------------------------------------------ expressions
    def _expression(self, node: c_ast.Node) -> c_ast.Node:
        """``node`` with every coindexed element replaced by a get (XmpError on sections)."""
        ref = coref(node, self.scope, self.ctx.coarrays)
        if ref is not None:
            self._no_device(node)
            if not is_element(ref, self.scope):
                raise XmpError(ref.loc, f"a coindexed section of '{ref.name}' inside an expression is not "
                                        "supported yet: get it into a local array first "
                                        f"('b[0:n] = {ref.name}[0:n]:[k];')")
            return get_elem(ref, self.scope)
        if isinstance(node, c_ast.UnaryOp) and node.op in ("&", "++", "--", "p++", "p--") and \
                coref(node.expr, self.scope, self.ctx.coarrays) is not None:
            what = "the address of" if node.op == "&" else f"'{node.op.lstrip('p')}' on"
            hint = "" if node.op == "&" else f" (write '... {node.op.lstrip('p')[0]}= 1;')"
            raise XmpError(loc_of(node), f"{what} a coindexed reference is not supported yet{hint}")
        if isinstance(node, c_ast.Assignment) \
                and coref(node.lvalue, self.scope, self.ctx.coarrays) is not None:
            raise XmpError(loc_of(node), "a put inside an expression is not supported yet: write it as a "
                                         "statement of its own")
        changed = node.lvalue if isinstance(node, c_ast.Assignment) else \
            node.expr if isinstance(node, c_ast.UnaryOp) and node.op in ("&", "++", "--", "p++", "p--") \
            else None
        if changed is not None and (part := _coindexed_base(changed)) is not None:
            raise XmpError(loc_of(part), "a put to a part of a coindexed element (a member) is not supported "
                                         "yet: get the element, change it, and put it back whole")
        return map_children(node, self._expression)

    def _no_device(self, node: c_ast.Node) -> None:
        if self.device:
            first = next(n for n in walk(node) if isinstance(n, c_ast.ArrayRef) and is_coindex(n.subscript))
            raise XmpError(loc_of(first), _DEVICE)

    # ------------------------------------------------------------ walking
    def visit_Compound(self, node: c_ast.Compound) -> None:
        node.block_items = self._items(node.block_items or [])

    def visit_Case(self, node: c_ast.Case) -> None:
        node.stmts = self._items(node.stmts or [])

    def visit_Default(self, node: c_ast.Default) -> None:
        node.stmts = self._items(node.stmts or [])

    def generic_visit(self, node: c_ast.Node) -> None:
        slots = _STATEMENT_SLOTS.get(type(node), ())
        for slot in slots:
            setattr(node, slot, self._statement(getattr(node, slot)))
        for name, child in node.children():
            if name in slots:
                continue
            if not isinstance(child, _EXPRESSIONS):
                self.visit(child)
            elif self._has_coindex(child):
                self._expressions(node, name, child)

    def _expressions(self, parent: c_ast.Node, name: str, child: c_ast.Node) -> None:
        """Rewrite an expression child of ``parent`` (children() names 'slot' or 'slot[k]')."""
        try:
            replaced = self._expression(child)
        except XmpError as err:
            self.ctx.diags.add(err)
            _silence(child)
            return
        slot, _, index = name.partition("[")
        if index:
            getattr(parent, slot)[int(index[:-1])] = replaced
        else:
            setattr(parent, slot, replaced)


def _names(obj: object) -> list[xd.Name]:
    """Every name a directive object holds (its fields, recursively)."""
    if isinstance(obj, xd.Name):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [n for x in obj for n in _names(x)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [n for f in dataclasses.fields(obj) for n in _names(getattr(obj, f.name))]
    return []


def _coindexed_base(node: c_ast.Node) -> c_ast.Node | None:
    """The coindexed reference that ``node`` (``p[1]:[k].x``, ``q[0]:[k].v[2]``) is a part of."""
    while isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
        if isinstance(node, c_ast.ArrayRef) and is_coindex(node.subscript):
            return node
        node = node.name
    return None


def _plain_local(node: c_ast.Node) -> bool:
    """A local array element or variable (not a coindexed or computed value)."""
    return isinstance(node, c_ast.ArrayRef) and not any(
        isinstance(n, c_ast.ArrayRef) and is_coindex(n.subscript) for n in walk(node))


def _silence(node: c_ast.Node) -> None:
    """Coindexed references and sections already reported: not again by a later pass."""
    for n in walk(node):
        if isinstance(n, c_ast.FuncCall) and (is_coindex(n) or is_triplet_call(n)):
            n.name.name, n.args = "_xmpacc_reported", None


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _Lowering(ctx.scopes, ctx).visit(unit.ast)
    for node in walk(unit.ast):
        if isinstance(node, c_ast.FuncCall) and is_coindex(node):
            ctx.diags.error(loc_of(node), "a coindexed reference ('a[i]:[k]') is not supported here yet")
            node.name.name = "_xmpacc_reported"
    return unit
