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
local section, element or variable (or, for a put, a scalar expression); elsewhere it is
reported as not supported yet.

Coarrays on the device (XcalableACC §5a): inside ``#pragma acc host_data use_device(a, b)``
a name of the list is its device address, so a statement naming one moves device memory
(the ``_acc`` calls of coarray_code.py; an element put or get between two arrays goes by
address, as a section does, since host code cannot read a device element).  A coarray
gets a device copy only from ``acc declare create`` / ``copyin`` at file scope (pass
acc_data registers it); another data clause naming one is an error, and so is coarray
syntax in code that runs on the device (``loop ... acc``, OpenACC compute constructs,
``acc routine`` functions).
"""

from __future__ import annotations

import dataclasses

from pycparser import c_ast

from xmpacc.cbuild import array_base, loc_of, map_children, walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives import local_view_ast as lv
from xmpacc.directives.openacc_ast import (
    AccCompute,
    AccDeclare,
    AccHostData,
    AccLoop,
    AccRoutine,
    directive_name,
)
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
from xmpacc.runtime.contract import COARRAY_ON_DEVICE, LOCAL_ON_DEVICE
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
_DEVICE = ("coarray syntax in code that runs on the device: a coarray put or get is a host statement; "
           "write it in host code, inside '#pragma acc host_data use_device(...)' to move device copies "
           "(XcalableACC §5a)")
# the clauses of a file-scope 'acc declare' that give a coarray its device copy
_DEVICE_COPY = ("create", "copyin", "present_or_create", "present_or_copyin")


class _Lowering(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context, routines: set[str]) -> None:
        super().__init__(tree)
        self.ctx = ctx
        self.routines = routines   # the functions of 'acc routine' (their bodies run on the device too)
        self.device = 0        # > 0 inside a statement that an acc directive owns
        self.on_device: frozenset[str] = frozenset()   # the use_device names of enclosing host_data

    # ------------------------------------------------------------ statements
    def _items(self, items: list[c_ast.Node]) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        device_next, use_next = False, frozenset[str]()
        for item in items:
            if isinstance(item, c_ast.Pragma):
                out += self._pragma(item)
                device_next = self._is_device(item)
                host_data = acc_directive(item, self.ctx)
                if isinstance(host_data, AccHostData):
                    use_next |= {ref.name.name for ref in host_data.use_device}
                continue
            self.device += device_next
            outer, self.on_device = self.on_device, self.on_device | use_next
            try:
                out.append(self._statement(item))
            finally:
                self.device -= device_next
                self.on_device = outer
            device_next, use_next = False, frozenset()
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
        if source is None or node.op != "=":
            self._host_value(node)
            return None
        flags = self._flags(source, node.lvalue)
        if section(node.lvalue) is not None or (flags and _plain_local(node.lvalue)):
            is_element(source, self.scope)   # a partial reference is a mistake
            return transfer(source, node.lvalue, False, self.scope, node.coord, flags=flags)
        self._host_value(node)   # element gets into host code
        return None

    def _flags(self, ref: CoRef, other: c_ast.Node) -> int:
        """Which sides of a statement are device copies (the names of ``host_data use_device``)."""
        local = array_base(section(other).array if section(other) is not None else other)
        return (COARRAY_ON_DEVICE if ref.name in self.on_device else 0) | \
            (LOCAL_ON_DEVICE if isinstance(local, c_ast.ID) and local.name in self.on_device else 0)

    def _put(self, node: c_ast.Assignment, target: CoRef) -> c_ast.Node:
        flags = self._flags(target, node.rvalue)
        if flags and node.op == "=" and (section(node.rvalue) is not None or _plain_local(node.rvalue)):
            # by address, also element to element: host code cannot read a device element
            return transfer(target, node.rvalue, True, self.scope, node.coord, flags=flags)
        if flags:
            self._host_value(node.rvalue)
        rhs = self._expression(node.rvalue)
        device = bool(flags & COARRAY_ON_DEVICE)
        if is_element(target, self.scope):
            value = rhs if node.op == "=" else \
                c_ast.BinaryOp(node.op[:-1], get_elem(target, self.scope, device), rhs, node.coord)
            if device:
                return transfer(target, None, True, self.scope, node.coord, value=value, flags=flags)
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
        return transfer(target, None, True, self.scope, node.coord, value=rhs, flags=flags)

    def _host_value(self, node: c_ast.Node) -> None:
        """Host code around coarray syntax must not use a ``use_device`` name (a device address)."""
        if isinstance(node, c_ast.ArrayRef) and is_coindex(node.subscript) or \
                isinstance(node, c_ast.UnaryOp) and node.op == "sizeof":
            return
        if isinstance(node, c_ast.ID) and node.name in self.on_device:
            raise XmpError(loc_of(node), f"'{node.name}' is in use_device here: it is a device address, "
                                         "which host code cannot read or write; move it by a put or get of "
                                         f"its own ('a[i]:[k] = {node.name}[j];')")
        for _, child in node.children():
            self._host_value(child)

    def _no_device_data(self, item: c_ast.Pragma) -> None:
        """A coarray named in a data clause of an OpenACC directive in a function, or in an
        XMP-ACC directive: its device copy comes only from a file-scope 'acc declare'."""
        acc = acc_directive(item, self.ctx)
        if acc is not None:
            for clause in getattr(acc, "data", ()):
                for ref in clause.items if clause.kind != "present" else ():
                    self._not_a_coarray(ref.name, f"'{clause.spelling}' of '{directive_name(acc)}'")
            return
        for d in directives_of(item, self.ctx):
            if isinstance(d, (xd.AccReplicate, xd.AccReplicateSync)):
                for name in _names(d):
                    self._not_a_coarray(name, "'acc replicate'" if isinstance(d, xd.AccReplicate)
                                        else "'acc replicate_sync'")

    def _not_a_coarray(self, name: xd.Name, what: str) -> None:
        found = self.scope.find_c(name.name)
        if name.name in self.ctx.coarrays and found is not None and found[0].parent is None:
            self.ctx.diags.error(name.loc, _device_copy_message(name.name, what))

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
            return get_elem(ref, self.scope, ref.name in self.on_device)
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
    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        routine = node.decl.name in self.routines
        self.device += routine
        try:
            self.generic_visit(node)
        finally:
            self.device -= routine

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
            if not self.device:
                return
            # reported: nothing of it for the device passes to report again
            replaced = c_ast.Constant("int", "0", child.coord)
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


def _device_copy_message(name: str, what: str) -> str:
    return (f"coarray '{name}' in {what}: a coarray gets its device copy only from "
            f"'#pragma acc declare create({name})' (or copyin) at file scope, where it is declared, for "
            "the whole program (XcalableACC §5a)")


def _file_scope_declares(unit: Unit, ctx: Context) -> None:
    """A file-scope 'acc declare' of a coarray: 'create' or 'copyin' of the whole coarray."""
    for item in unit.ast.ext:
        d = acc_directive(item, ctx)
        for clause in d.data if isinstance(d, AccDeclare) else ():
            for ref in clause.items:
                name = ref.name.name
                if name not in ctx.coarrays:
                    continue
                if clause.kind not in _DEVICE_COPY:
                    ctx.diags.error(ref.name.loc, _device_copy_message(name, f"'{clause.spelling}'"))
                elif "extern" in ctx.coarrays[name].decl.storage:
                    # its device copy is registered after the coarray, whose file may start later
                    ctx.diags.error(ref.name.loc, f"coarray '{name}' is declared 'extern' here: put its 'acc "
                                                  f"declare {clause.spelling}' in the file that defines it")
                elif ref.subs:
                    ctx.diags.error(ref.loc, f"a coarray's device copy is the whole coarray: "
                                             f"'{clause.spelling}({ref.name.name})', not a section")


def _routines(unit: Unit, ctx: Context) -> set[str]:
    """The functions an 'acc routine' at file scope names, or stands before."""
    names, items = set(), unit.ast.ext
    for item, after in zip(items, items[1:] + [None], strict=True):
        d = acc_directive(item, ctx)
        if isinstance(d, AccRoutine) and d.name is not None:
            names.add(d.name.name)
        elif isinstance(d, AccRoutine) and isinstance(after, (c_ast.FuncDef, c_ast.Decl)):
            names.add(after.decl.name if isinstance(after, c_ast.FuncDef) else after.name)
    return names


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
    _file_scope_declares(unit, ctx)
    _Lowering(ctx.scopes, ctx, _routines(unit, ctx)).visit(unit.ast)
    for node in walk(unit.ast):
        if isinstance(node, c_ast.FuncCall) and is_coindex(node):
            ctx.diags.error(loc_of(node), "a coindexed reference ('a[i]:[k]') is not supported here yet")
            node.name.name = "_xmpacc_reported"
    return unit
