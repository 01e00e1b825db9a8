"""Pass localize (library): the xmp.h calls that need the compiler (global-view §4, §9).

Before:                                        After:
    xmp_desc_of(a)                                 ((void *) &_xmpacc_a_a)        (also templates,
                                                                                   nodes, c.a)
    a = (double *) xmp_malloc(xmp_desc_of(a), n, m);
                                                   a = _xmpacc_malloc(((void *) &_xmpacc_a_a), "f.c:9",
                                                           2, (const long long []){(n), (m)}, 0);
    xmp_free(a);                                   _xmpacc_free(a, "f.c:12");
    MPI_Init(&argc, &argv);                        _xmpacc_mpi_init(&argc, &argv);
    MPI_Finalize();                                _xmpacc_mpi_finalize();
    xmp_gather(xmp_desc_of(x), ...);               _xmpacc_gather("f.c:14", 3, ...)  (intrinsic_calls.py)
    acc_wait(1);                                   _xmpacc_openacc_wait("f.c:15", "1", 1)  (openacc_calls.py)

``xmp_desc_of`` is an operator on names, so it is resolved here with C scoping: an aligned
array (or structure member), else a template, else a node array.  ``xmp_malloc`` takes one
extent per array dimension; the cast around it is dropped so that ``double (*a)[M]``, which
becomes ``double *a``, still assigns.  The runtime owns MPI (initialised before ``main``,
finalised after it), so the program's own MPI_Init/MPI_Finalize succeed and do nothing.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of, map_children
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.passes.common import openacc_calls
from xmpacc.passes.localize import intrinsic_calls
from xmpacc.scoping import ScopedWalker
from xmpacc.symbols import ArraySym, Scope, ScopeTree, bound_member

MPI_CALLS = {"MPI_Init": "_xmpacc_mpi_init", "MPI_Init_thread": "_xmpacc_mpi_init_thread",
             "MPI_Finalize": "_xmpacc_mpi_finalize"}


def _called(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name == name


def _args(call: c_ast.FuncCall) -> list[c_ast.Node]:
    return list(call.args.exprs) if call.args is not None else []


def described(arg: c_ast.Node, scope: Scope) -> tuple[str, ArraySym | None]:
    """(descriptor address as C text, the array if it is one) of ``xmp_desc_of(arg)``."""
    if isinstance(arg, c_ast.StructRef) and isinstance(arg.field, c_ast.ID):
        sym = bound_member(scope, arg.name, arg.type == "->", arg.field.name)
        if sym is None and scope.is_broken_array(cbuild.to_c(arg).replace(" ", "")):
            return "0", None   # its align was in error (reported)
        if sym is None:
            raise XmpError(loc_of(arg),
                           f"xmp_desc_of: '{cbuild.to_c(arg)}' is not an aligned structure member")
        return f"&{sym.c_name}", sym
    if not isinstance(arg, c_ast.ID):
        raise XmpError(loc_of(arg), "xmp_desc_of takes the name of a distributed array, a template or a "
                                    "node array")
    sym = scope.find_array(arg.name)
    if sym is not None:
        return f"&{sym.c_name}", sym
    if scope.find_c(arg.name) is None or scope.find_template(arg.name) or scope.find_nodes(arg.name):
        tmpl, nodes = scope.find_template(arg.name), scope.find_nodes(arg.name)
        if tmpl is not None:
            return f"&{tmpl.c_name}", None
        if nodes is not None:
            return f"&{nodes.c_name}", None
    if scope.is_broken(arg.name) or scope.is_broken_array(arg.name):
        return "0", None
    what = "not declared" if scope.find_c(arg.name) is None else "not a distributed array"
    raise XmpError(loc_of(arg), f"xmp_desc_of: '{arg.name}' is {what}; it takes an aligned array, a "
                                "template or a node array")


class _Library(ScopedWalker):
    def __init__(self, tree: ScopeTree, unit: Unit, ctx: Context) -> None:
        super().__init__(tree)
        self.unit, self.ctx = unit, ctx

    def generic_visit(self, node: c_ast.Node) -> None:
        map_children(node, self._replace)

    def _replace(self, node: c_ast.Node) -> c_ast.Node:
        try:
            if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                    and node.name.name in intrinsic_calls.SPECS:   # before xmp_desc_of is lowered
                return intrinsic_calls.lower(node, self.scope, described, self._replace)
            if _called(node, "xmp_malloc"):
                _check_target(node, self.scope)
        except XmpError as err:
            self.ctx.diags.add(err)
            return node
        self.visit(node)   # inner calls first: xmp_malloc(xmp_desc_of(a), ...)
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name.startswith("xmp_") and node.args is not None:
            # a library function (xmp_array_ndims(xmp_desc_of(a), ...)) needs no element type
            node.args.exprs = [_untyped(a) for a in node.args.exprs]
        try:
            if isinstance(node, c_ast.Assignment) and isinstance(node.rvalue, c_ast.Cast) \
                    and _called(node.rvalue.expr, "_xmpacc_malloc"):
                node.rvalue = node.rvalue.expr   # void * assigns to the aligned pointer
            if _called(node, "xmp_desc_of"):
                return self._desc_of(node)
            if _called(node, "xmp_malloc"):
                return self._malloc(node)
            if _called(node, "xmp_free") and len(_args(node)) == 1:   # with the line, for its messages
                return c_ast.FuncCall(c_ast.ID("_xmpacc_free", node.coord), c_ast.ExprList(
                    [_args(node)[0], c_ast.Constant("string", cbuild.where_literal(loc_of(node)))]),
                                      node.coord)
            if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                    and node.name.name in MPI_CALLS:
                node.name = c_ast.ID(MPI_CALLS[node.name.name], node.name.coord)
            if openacc_calls.routine(node):
                return openacc_calls.lower(node, self.scope, self.unit)  # type: ignore[arg-type]
        except XmpError as err:
            self.ctx.diags.add(err)
        return node

    def _desc_of(self, call: c_ast.FuncCall) -> c_ast.Node:
        args = _args(call)
        if len(args) != 1:
            raise XmpError(loc_of(call), "xmp_desc_of takes one name")
        addr, sym = described(args[0], self.scope)
        if sym is None:
            return cbuild.expr(f"(void *) {addr}", call.coord)
        # an array's descriptor records its element type for a later xmp_sort_up(d, ...)
        new = cbuild.expr(f"_xmpacc_typed_desc({addr}, 0)", call.coord)
        new.args.exprs[1] = intrinsic_calls.type_code(sym)
        return new

    def _malloc(self, call: c_ast.FuncCall) -> c_ast.Node:
        args = _args(call)
        if len(args) < 2:
            raise XmpError(loc_of(call), "xmp_malloc takes a descriptor and one extent per array dimension")
        desc, extents = args[0], args[1:]
        target = _desc_of_arg(desc)
        if target is not None:
            _check_malloc(target, len(extents), self.scope, call)
        text = (f"_xmpacc_malloc(_xmpacc_d, {cbuild.where_literal(loc_of(call))}, {len(extents)}, "
                f"(const long long []){{{', '.join('_xmpacc_e' for _ in extents)}}}, 0)")
        new = cbuild.expr(text, call.coord)
        new.args.exprs[0] = desc
        new.args.exprs[3].init.exprs = list(extents)
        return new


def _check_target(call: c_ast.FuncCall, scope: Scope) -> None:
    """``xmp_malloc(xmp_desc_of(b), ...)`` of a pointer ``b`` that no align names."""
    args = _args(call)
    inner = _args(args[0]) if args and _called(args[0], "xmp_desc_of") else []
    if len(inner) == 1 and isinstance(inner[0], c_ast.ID):
        name = inner[0].name
        if scope.find_c(name) is not None and scope.find_array(name) is None \
                and not scope.is_broken_array(name):
            raise XmpError(loc_of(call), f"xmp_malloc of '{name}', which is not aligned: add '#pragma xmp "
                                         f"align {name}[i] with t[i]' after its declaration")


def _untyped(desc: c_ast.Node) -> c_ast.Node:
    """``(void *) &d`` for ``_xmpacc_typed_desc(&d, type)``: xmp_malloc needs no type."""
    if isinstance(desc, c_ast.FuncCall) and isinstance(desc.name, c_ast.ID) \
            and desc.name.name == "_xmpacc_typed_desc":
        return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.PtrDecl([], c_ast.TypeDecl(
            None, [], None, c_ast.IdentifierType(["void"])))), desc.args.exprs[0], desc.coord)
    return desc


def _desc_of_arg(desc: c_ast.Node) -> c_ast.Node | None:
    """``a`` when the descriptor argument is (already lowered) ``xmp_desc_of(a)``."""
    if isinstance(desc, c_ast.Cast) and isinstance(desc.expr, c_ast.UnaryOp) and desc.expr.op == "&":
        return desc.expr.expr
    return None


def _check_malloc(desc: c_ast.Node, count: int, scope: Scope, call: c_ast.FuncCall) -> None:
    """xmp_malloc(xmp_desc_of(x), ...): x must be an aligned pointer of that rank."""
    if not isinstance(desc, (c_ast.ID, c_ast.StructRef)):
        return
    text = cbuild.to_c(desc)
    if not text.startswith("_xmpacc_a_") and "._xmpacc_a_" not in text and "->_xmpacc_a_" not in text:
        raise XmpError(loc_of(call), "xmp_malloc allocates aligned pointers; this descriptor is a "
                                     "template or node array")
    sym = next((s for s in _arrays_in_scope(scope) if s.c_name == text), None)
    if sym is None:
        return
    if not sym.is_pointer:
        raise XmpError(loc_of(call), f"xmp_malloc of '{sym.name}', which is not an aligned pointer (its "
                                     "local block exists already; declare it 'T *name' to allocate it)")
    if count != sym.ndims:
        raise XmpError(loc_of(call), f"xmp_malloc gives {count} extent(s) for the {sym.ndims}-dimensional "
                                     f"array '{sym.name}'")


def _arrays_in_scope(scope: Scope) -> list[ArraySym]:
    out: list[ArraySym] = []
    s: Scope | None = scope
    while s is not None:
        out += s.arrays.values()
        s = s.parent
    return out


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    walker = _Library(ctx.scopes, unit, ctx)
    walker.visit(unit.ast)
    openacc_calls.uses_device(unit, ctx)
    return unit
