"""Statements of an ``acc parallel`` / ``acc kernels`` region besides its ``acc loop`` nests
(XcalableACC.md §2; OpenACC 2.x §2.5.1: outside loops, gangs run the code redundantly),
for pass acc_compute.

Before:                                      After (in order, inside the construct's data region):
    #pragma acc parallel copy(a, c)
    {
      int n = 8;                                 int n = 8;                 (host: scalars only)
      x = 2 * x;                                 x = 2 * x;                 (host, on a copy of x)
      a[0] = x;                                  <kernel of one thread: a[0] = x;>
    #pragma acc loop
      for (i = 1; i < n; i++) c[i] = a[0] * i;   <kernel of the loop>
      for (k = 0; k < 3; k++) c[k] += 1;         <kernel of one thread: the for loop>
    }

Every gang computes the same values, so one thread computes them here: a statement that
touches device data (an array, or a scalar of a data clause or an enclosing data region)
runs as a kernel of one thread, in order with the loop kernels; a statement on scalars
only runs on the host, where its scalars are firstprivate: an outside scalar that such a
statement assigns is a copy for the whole construct (``{ T _xmpacc_fp_x = x; { T x =
_xmpacc_fp_x; ... } }``), so its host value is unchanged afterwards, as in OpenACC.

A scalar that a device statement assigns (``m = a[5];``), or that the region declares with
an initializer reading device data (``double z = a[3];``), lives on the device for the
construct (``adopted``): later statements and loops read the value the kernel wrote.  An
outside one is copied in (``parallel``: firstprivate, the host value stays) or copied in
and out (``kernels``: OpenACC 2.5's implicit copy); a declared one is declared before the
construct and assigned by a kernel of one thread where it stood.  Statements that touch
an adopted scalar are device statements in turn.

An array the region declares (gang-shared in OpenACC) is likewise one device array for
the construct, declared before it with its initializer and copied in.

An array whose initializer reads device data (``double w[2] = {a[0], a[1]};``) is zeros
there, and a kernel of one thread assigns the elements the initializer names, where the
declaration stood.

A scalar the region declares without an initializer and a device statement assigns later
(``double z; z = a[3];``) is adopted the same way.  A pointer the region declares
(``double *row = a + k * n;``) points into device data: it lives on the device like an
adopted scalar, its initializer runs as a kernel of one thread, and the loops reach the
elements through it (kernel_vars: a device scalar that holds a pointer).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc.cbuild import loc_of, walk
from xmpacc.context import Context
from xmpacc.diagnostics import XmpError
from xmpacc.directives.openacc_ast import AccCompute, directive_name
from xmpacc.passes.gpu import acc_loopnest
from xmpacc.passes.kernel.kernel_vars import assigned_names
from xmpacc.symbols import Scope


def _declared(node: c_ast.Node) -> set[str]:
    """Names declared in ``node``, and the control variables of its for loops (private to
    the thread that runs them)."""
    names = {n.name for n in walk(node) if isinstance(n, c_ast.Decl) and n.name}
    for n in walk(node):
        if isinstance(n, c_ast.For) and isinstance(n.init, c_ast.Assignment) \
                and isinstance(n.init.lvalue, c_ast.ID):
            names.add(n.init.lvalue.name)
    return names


def _element_stores(ref: c_ast.Node, init: c_ast.Node, t: c_ast.Node) -> list[c_ast.Node] | None:
    """``ref[k] = value;`` for each element a positional, fully braced initializer of an
    array of type ``t`` names; None for other forms."""
    if not isinstance(t, c_ast.ArrayDecl):
        return None if isinstance(init, c_ast.InitList) else [c_ast.Assignment("=", ref, init, init.coord)]
    if not isinstance(init, c_ast.InitList):
        return None
    out: list[c_ast.Node] = []
    for k, value in enumerate(init.exprs):
        if isinstance(value, c_ast.NamedInitializer):
            return None
        element = c_ast.ArrayRef(copy.deepcopy(ref), c_ast.Constant("int", str(k)), value.coord)
        inner = _element_stores(element, value, t.type)
        if inner is None:
            return None
        out += inner
    return out


class Region:
    """The statements of one region, classified with the scope of its body."""

    def __init__(self, d: AccCompute, scope: Scope, on_device: set[int], ctx: Context) -> None:
        self.d, self.scope, self.ctx = d, scope, ctx
        self.on_device = on_device      # id() of the declarations of scalars with a device copy
        self.shadowed: dict[str, c_ast.Decl] = {}   # outside scalars the host statements assign
        self.adopted: list[tuple[c_ast.Decl, bool]] = []   # (scalar, declared in the region) on the device

    def adopt(self, statements: list[c_ast.Node]) -> None:
        """Find the scalars that live on the device for the construct (see above), until
        no statement adds one: the region's statements other than its loop nests."""
        grew = True
        while grew:
            grew = False
            for stmt in statements:
                for decl, local in self._assigned_on_device(stmt):
                    if id(decl) not in self.on_device:
                        self.on_device.add(id(decl))
                        self.adopted.append((decl, local))
                        grew = True

    def _assigned_on_device(self, stmt: c_ast.Node) -> list[tuple[c_ast.Decl, bool]]:
        if isinstance(stmt, c_ast.Decl):
            # a pointer the region declares points into device data (where else could a
            # gang's pointer point?): it lives on the device, as the region's arrays do
            device = isinstance(stmt.type, (c_ast.ArrayDecl, c_ast.PtrDecl)) or \
                isinstance(stmt.type, c_ast.TypeDecl) and stmt.init is not None and self._is_device(stmt.init)
            return [(stmt, True)] if device else []
        if not self._is_device(stmt):
            return []
        local = _declared(stmt)
        out = []
        for name in assigned_names(stmt):
            found = self.scope.find_c(name)
            if found is not None and name not in local and isinstance(found[1].type, c_ast.TypeDecl):
                out.append((found[1], found[0] is self.scope))   # declared in the region, or outside
        return out

    def _is_device(self, node: c_ast.Node) -> bool:
        """Does ``node`` read or write device data (an array, a device scalar)?"""
        local = _declared(node)
        for ident in (n for n in walk(node) if isinstance(n, c_ast.ID)):
            if ident.name in local:
                continue
            found = self.scope.find_c(ident.name)
            if found is None or isinstance(found[1].type, c_ast.FuncDecl):
                continue
            decl = found[1]
            if self.scope.find_array(ident.name) is not None or id(decl) in self.on_device or \
                    isinstance(decl.type, (c_ast.ArrayDecl, c_ast.PtrDecl)):
                return True
        return False

    def step(self, stmt: c_ast.Node) -> acc_loopnest.AccLoopNest | c_ast.Node:
        """A statement as a kernel of one thread, or as host code."""
        if isinstance(stmt, c_ast.Decl):
            return self._declaration(stmt)
        if not self._is_device(stmt):
            self._shadow(stmt)
            return stmt
        return self._kernel(stmt)   # the outside scalars it assigns are adopted (on the device)

    def _declaration(self, decl: c_ast.Decl) -> acc_loopnest.AccLoopNest | c_ast.Node:
        if isinstance(decl.type, c_ast.ArrayDecl):
            return self._array(decl)
        if id(decl) not in self.on_device:
            return decl
        # declared before the construct (wrap), assigned here by a kernel of one thread
        init, decl.init = decl.init, None
        if init is None:   # assigned by a later statement
            return c_ast.EmptyStatement(decl.coord)
        return self._kernel(c_ast.Assignment("=", c_ast.ID(decl.name, decl.coord), init, decl.coord))

    def _array(self, decl: c_ast.Decl) -> c_ast.Node:
        """An array the region declares: gang-shared in OpenACC, and every gang computes the
        same values, so one device array for the construct (declared before it, with its
        initializer, copied in; acc_compute._adopted_data)."""
        t = decl.type
        while isinstance(t, c_ast.ArrayDecl):
            if not isinstance(t.dim, c_ast.Constant):
                raise XmpError(loc_of(decl), f"an array declared in '{directive_name(self.d)}' needs "
                                             "constant extents (its device copy is made "
                                             "before the construct)")
            t = t.type
        if decl.init is None or not self._is_device(decl.init):
            return c_ast.EmptyStatement(decl.coord)
        # an initializer reading device data: zeros before the construct, then a kernel of
        # one thread assigns the elements it names ({a[0], a[1]}: loc[0] = a[0]; ...)
        ref: c_ast.Node = c_ast.ID(decl.name, decl.coord)
        stores = _element_stores(ref, decl.init, decl.type)
        if stores is None:
            raise XmpError(loc_of(decl), f"an array declared in '{directive_name(self.d)}' with an "
                                         "initializer that reads device data names its elements in order, in "
                                         "braces for each dimension (no designators, no braces left out)")
        decl.init = c_ast.InitList([c_ast.Constant("int", "0")], decl.coord)
        return self._kernel(c_ast.Compound(stores, decl.coord))

    def _shadow(self, stmt: c_ast.Node) -> None:
        local = _declared(stmt)
        for name in assigned_names(stmt):
            found = self.scope.find_c(name)
            if found is None or name in local or name in self.shadowed:
                continue
            scope, decl = found
            if scope is not self.scope and isinstance(decl.type, c_ast.TypeDecl):
                self.shadowed[name] = decl

    def _kernel(self, stmt: c_ast.Node) -> acc_loopnest.AccLoopNest:
        """``stmt`` as the body of a nest of no loops (``seq``): one thread runs it."""
        return acc_loopnest.implicit(stmt, self.d, self.scope, self.ctx, "seq")

    def wrap(self, items: list[c_ast.Node], coord: object) -> list[c_ast.Node]:
        """``items`` with the assigned outside scalars as copies (firstprivate), after the
        adopted scalars the region declares (their device copies are made before it)."""
        outer: list[c_ast.Node] = [decl for decl, local in self.adopted if local]
        if not self.shadowed:
            return outer + items
        inner: list[c_ast.Node] = []
        for name, decl in self.shadowed.items():
            outer.append(_redeclare(decl, f"_xmpacc_fp_{name}", c_ast.ID(name, coord)))
            inner.append(_redeclare(decl, name, c_ast.ID(f"_xmpacc_fp_{name}", coord)))
        return outer + [c_ast.Compound(inner + items, coord)]


def _redeclare(decl: c_ast.Decl, name: str, init: c_ast.Node) -> c_ast.Decl:
    d = copy.deepcopy(decl)
    d.name, d.init, d.storage, d.funcspec = name, init, [], []
    t = d.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = name
    return d
