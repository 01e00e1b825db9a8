"""Array assignments on local arrays as loops (global-view §1), for pass assign and for the
statements that gmove and array own (passes gmove, array): ``lower_assignment`` lowers a
whole statement, ``lower_rhs``, ``needs_temp`` and ``with_temp`` the pieces.

    a[0:5] = 2.0 * b[5:5] + x;   ->   for (long long _xmpacc_i0 = 0; _xmpacc_i0 < 5; _xmpacc_i0++)
                                        a[_xmpacc_i0] = 2.0 * b[5 + _xmpacc_i0] + x;
"""


from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import array_base, loc_of, map_children, walk
from xmpacc.diagnostics import XmpError
from xmpacc.section_code import Hoister, Operand, SubCode, conform, const, element, operand_of, resolve, shape
from xmpacc.sections import CTriplet, is_triplet_call, section
from xmpacc.symbols import Scope

MATH = frozenset(
    f + suffix for suffix in ("", "f", "l") for f in (
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
        "exp2", "expm1", "log", "log10", "log2", "log1p", "pow", "sqrt", "cbrt", "fabs",
        "floor", "ceil", "round", "trunc", "fmod", "fmin", "fmax", "hypot", "erf", "erfc"))



MATH_INT = frozenset({"abs", "labs", "llabs"})



def ivars(rank: int) -> list[str]:
    return [f"_xmpacc_i{q}" for q in range(rank)]



def is_array_assignment(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Assignment) and section(node.lvalue) is not None



@dataclass
class Rhs:
    """The right-hand side with each section replaced by the element of iteration ivars."""

    expr: c_ast.Node
    operands: list[tuple[Operand, list[SubCode]]]



def distributed_message(name: str) -> str:
    return (f"a section of the distributed array '{name}' is only allowed in a statement after "
            f"'#pragma xmp gmove' (copy between nodes) or '#pragma xmp array on ...' (each owner "
            f"computes its elements)")



def lower_rhs(rhs: c_ast.Node, scope: Scope, h: Hoister, left: str, lshape: list[SubCode],
              allow_distributed: bool) -> Rhs:
    """Replace the sections of ``rhs`` by elements; check each against the lhs shape."""
    operands: list[tuple[Operand, list[SubCode]]] = []
    for node in walk(rhs):
        if isinstance(node, c_ast.Assignment) or \
                (isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--")):
            raise XmpError(loc_of(node), "the right-hand side of an array assignment must not "
                                         "assign (no '=', '++' or '--')")

    def replace(node: c_ast.Node) -> c_ast.Node:
        sec = section(node) if isinstance(node, c_ast.ArrayRef) else None
        if sec is not None:
            op = operand_of(node, scope)
            if op is None:
                raise XmpError(loc_of(node), "only sections of named arrays are supported")
            if op.sym is not None and not allow_distributed:
                raise XmpError(op.loc, distributed_message(op.name))
            subs = resolve(op, h)
            conform(left, lshape, op.name, shape(subs), op.loc, h)
            operands.append((op, subs))
            return element(op, subs, ivars(len(lshape)))
        return map_children(node, replace)

    return Rhs(replace(copy.deepcopy(rhs)), operands)



def needs_temp(lhs: Operand, lsubs: list[SubCode], rhs: c_ast.Node, scope: Scope) -> bool:
    """May the right-hand side read an element the statement writes (global-view §1)?"""
    for node in walk(rhs):
        if isinstance(node, c_ast.FuncCall) and not is_triplet_call(node):
            name = node.name.name if isinstance(node.name, c_ast.ID) else None
            if name not in MATH and name not in MATH_INT:
                return True
        if isinstance(node, c_ast.ArrayRef) and _is_pointer_ref(node, scope):
            return True
    if lhs.extents and lhs.extents[0] is None and any(isinstance(n, c_ast.ArrayRef) for n in walk(rhs)):
        return True  # the lhs is a pointer: any array on the right may be the same memory
    return not _disjoint_uses(lhs, lsubs, rhs, scope)



def _is_pointer_ref(node: c_ast.ArrayRef, scope: Scope) -> bool:
    root = array_base(node)
    if not isinstance(root, c_ast.ID):
        return True
    found = scope.find_c(root.name)
    return found is None or isinstance(found[1].type, c_ast.PtrDecl)



def _disjoint_uses(lhs: Operand, lsubs: list[SubCode], rhs: c_ast.Node, scope: Scope) -> bool:
    """True when every use of the lhs array on the right provably touches other elements."""
    mentions = sum(1 for n in walk(rhs) if isinstance(n, c_ast.ID) and n.name == lhs.name)
    uses = []
    for ref in (n for n in walk(rhs) if isinstance(n, c_ast.ArrayRef) and _outermost(n, rhs)):
        op = operand_of(ref, scope)
        if op is not None and op.name == lhs.name:
            uses.append((_same_subscripts(lhs.subs, op.subs), _ranges(op.subs, None)))
    if len(uses) != mentions:
        return False  # the array is used other than through subscripts
    mine = _ranges(lhs.subs, lsubs)
    return all(same or any(a is not None and b is not None and (a[1] < b[0] or b[1] < a[0])
                           for a, b in zip(mine, other, strict=False)) for same, other in uses)



def _same_subscripts(a: tuple, b: tuple) -> bool:
    """Do two references touch the same element in every iteration (``c[:] = 2 * c[:]``)?"""
    def text(x: c_ast.Node | None) -> str | None:
        return None if x is None else cbuild.to_c(x)

    def key(sub: object) -> tuple:
        if isinstance(sub, CTriplet):
            return ("t", text(sub.base), text(sub.length), text(sub.step))
        return ("i", text(sub))  # type: ignore[arg-type]
    return len(a) == len(b) and all(key(x) == key(y) for x, y in zip(a, b, strict=True))



def _outermost(ref: c_ast.ArrayRef, rhs: c_ast.Node) -> bool:
    return not any(isinstance(n, c_ast.ArrayRef) and n.name is ref for n in walk(rhs))



def _ranges(subs: tuple, resolved: list[SubCode] | None) -> list[tuple[int, int] | None]:
    """Per dimension, the constant [min, max] of the indices a reference touches."""
    out: list[tuple[int, int] | None] = []
    for k, sub in enumerate(subs):
        if resolved is not None:
            r = resolved[k]
            b, n, s = const(r.base), const(r.length), const(r.step)
        elif isinstance(sub, CTriplet):
            b = const(sub.base) if sub.base is not None else 0
            n, s = const(sub.length), const(sub.step) if sub.step is not None else 1
        else:
            b, n, s = const(sub), 1, 1
        if b is None or n is None or s is None:
            out.append(None)
        else:
            last = b + (n - 1) * s
            out.append((min(b, last), max(b, last)))
    return out



def pointer_decl(name: str, elem: c_ast.Node, init: c_ast.Node | None) -> c_ast.Decl:
    """``T *name = init;`` for an element type given as a declaration node."""
    t = copy.deepcopy(elem)
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname, inner.quals = name, []
    return c_ast.Decl(name, [], None, [], [], c_ast.PtrDecl([], t), init, None)



def with_temp(lhs_elem: c_ast.Node, op: str, rhs_elem: c_ast.Node, elem: c_ast.Node, count: str,
              nest: Callable[[c_ast.Node], c_ast.Node], coord: object,
              store_nest: Callable[[c_ast.Node], c_ast.Node] | None = None) -> list[c_ast.Node]:
    """Two passes over the same iterations: the values into a temporary, then the stores
    (``store_nest``: the same loops without the first pass's checks)."""
    tmp, k = c_ast.ID("_xmpacc_tmp"), "_xmpacc_k"
    value = rhs_elem if op == "=" else c_ast.BinaryOp(op[:-1], copy.deepcopy(lhs_elem), rhs_elem)
    alloc = cbuild.expr(f"__builtin_malloc(({count}) * sizeof(*_xmpacc_tmp) + 1)")
    out: list[c_ast.Node] = [pointer_decl(tmp.name, elem, alloc)]
    out += cbuild.stmts(f"long long {k} = 0;", coord)
    fill = c_ast.Assignment("=", c_ast.ArrayRef(tmp, cbuild.expr(f"{k}++")), value)
    out.append(nest(fill))
    out += cbuild.stmts(f"{k} = 0;", coord)
    store = c_ast.Assignment("=", lhs_elem, c_ast.ArrayRef(copy.deepcopy(tmp), cbuild.expr(f"{k}++")))
    out.append((store_nest or nest)(store))
    out += cbuild.stmts("__builtin_free(_xmpacc_tmp);", coord)
    for node in out:
        cbuild.set_coord(node, coord)
    return out



def local_nest(lshape: list[SubCode], coord: object) -> Callable[[c_ast.Node], c_ast.Node]:
    """A function wrapping a body in the row-major loop nest over ``lshape``."""
    def nest(body: c_ast.Node) -> c_ast.Node:
        for q in reversed(range(len(lshape))):
            v, n = f"_xmpacc_i{q}", cbuild.to_c(lshape[q].length)
            loop = cbuild.stmt(f"for (long long {v} = 0; {v} < {n}; {v}++) ;", coord)
            loop.stmt = body
            body = loop
        return body
    return nest



def lower_assignment(stmt: c_ast.Assignment, scope: Scope) -> c_ast.Compound:
    """The loops of a local array assignment statement (see the module docstring)."""
    h = Hoister(cbuild.where_literal(loc_of(stmt)), stmt.coord)
    lhs = operand_of(stmt.lvalue, scope)
    if lhs is None:
        raise XmpError(loc_of(stmt.lvalue), "only sections of named arrays are supported")
    if lhs.sym is not None:
        raise XmpError(lhs.loc, distributed_message(lhs.name))
    lsubs = resolve(lhs, h)
    lshape = shape(lsubs)
    rhs = lower_rhs(stmt.rvalue, scope, h, lhs.name, lshape, allow_distributed=False)
    lhs_elem = element(lhs, lsubs, ivars(len(lshape)))
    nest = local_nest(lshape, stmt.coord)
    if needs_temp(lhs, lsubs, stmt.rvalue, scope):
        count = " * ".join(f"({cbuild.to_c(s.length)})" for s in lshape)
        body = with_temp(lhs_elem, stmt.op, rhs.expr, lhs.elem, count, nest, stmt.coord)
    else:
        body = [nest(c_ast.Assignment(stmt.op, lhs_elem, rhs.expr, stmt.coord))]
    items = h.decls + h.checks + body
    for item in items:
        cbuild.set_coord(item, stmt.coord)
    return c_ast.Compound(items, stmt.coord)
