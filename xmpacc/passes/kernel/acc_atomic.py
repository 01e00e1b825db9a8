"""``#pragma acc atomic`` inside OpenACC kernels (XcalableACC.md §2, OpenACC 2.x §2.12):
the statement after it as the kernel runs it (acc_loopnest.strip_inner calls ``lower``).

Before:                                  After:
    #pragma acc atomic update
    hist[b] += 1;                            _XMPACC_ATOMIC_ADD(hist[b], 1);
    #pragma acc atomic
    m[k] = m[k] * f;                         _XMPACC_RMW_MUL(m[k], f, 0);
    #pragma acc atomic capture
    slot = n[0]++;                           slot = _XMPACC_RMW_ADD(n[0], 1, 0);
    #pragma acc atomic capture
    { v = x; x = e; }                        v = _XMPACC_RMW_SWAP(x, e);
    #pragma acc atomic capture
    { x = e - x; v = x; }                    v = _XMPACC_RMW_RSUB(x, e, 1);

``_XMPACC_RMW_<OP>(x, e, new)`` stores ``x op e`` and yields the old value of x (new = 0)
or the stored one (new = 1); ``_XMPACC_RMW_R<OP>`` stores ``e op x``;
``_XMPACC_RMW_SWAP(x, e)`` stores e and yields the old value.  On GPUs they are
compare-and-swap loops over 4- or 8-byte elements (runtime/include/xmpacc_kernel.h),
the plain update by ``+``/``-`` stays one atomicAdd; on the host backend, where threads
run one after the other, they are the plain statements.  ``read`` and ``write`` of one
scalar are single accesses already.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.cbuild import to_c
from xmpacc.diagnostics import XmpError
from xmpacc.directives.openacc_ast import AccAtomic

# C operator -> the name part of its macro
_OPS = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", "&": "AND", "|": "OR", "^": "XOR",
        "<<": "SHL", ">>": "SHR"}
_FORMS = "x++, x--, ++x, --x, x op= e, x = x op e and x = e op x (op one of + * - / & ^ | << >>)"


@dataclass
class Update:
    """``x = x op e`` (``reverse``: ``x = e op x``) as the parts of its macro."""

    target: c_ast.Node
    op: str
    value: c_ast.Node
    reverse: bool = False
    prefix: bool = True      # ++x / x op= e yield the new value; x++ the old one (capture)


def update_of(stmt: c_ast.Node) -> Update | None:
    if isinstance(stmt, c_ast.UnaryOp) and stmt.op in ("++", "p++", "--", "p--"):
        return Update(stmt.expr, "+" if "+" in stmt.op else "-", c_ast.Constant("int", "1"),
                      prefix=not stmt.op.startswith("p"))
    if isinstance(stmt, c_ast.Assignment) and stmt.op[:-1] in _OPS and stmt.op.endswith("="):
        return Update(stmt.lvalue, stmt.op[:-1], stmt.rvalue)
    if isinstance(stmt, c_ast.Assignment) and stmt.op == "=" and isinstance(stmt.rvalue, c_ast.BinaryOp) \
            and stmt.rvalue.op in _OPS:
        x, rhs = to_c(stmt.lvalue), stmt.rvalue
        if to_c(rhs.left) == x and not _mentions(rhs.right, x):
            return Update(stmt.lvalue, rhs.op, rhs.right)
        if to_c(rhs.right) == x and not _mentions(rhs.left, x):
            return Update(stmt.lvalue, rhs.op, rhs.left, reverse=True)
    return None


def _mentions(node: c_ast.Node, x: str) -> bool:
    """Does ``node`` contain the expression ``x`` (OpenACC: e must not access x)?"""
    if to_c(node) == x:
        return True
    return any(_mentions(child, x) for _, child in node.children())


def atomic_call(u: Update, fetch_new: bool | None, coord: object) -> c_ast.FuncCall:
    """The macro of ``u``; ``fetch_new`` None: a plain update (its value unused)."""
    if fetch_new is None and u.op in "+-" and not u.reverse:   # one atomicAdd
        value = u.value if u.op == "+" else c_ast.UnaryOp("-", u.value)
        return c_ast.FuncCall(c_ast.ID("_XMPACC_ATOMIC_ADD", coord), c_ast.ExprList([u.target, value]), coord)
    name = f"_XMPACC_RMW_{'R' if u.reverse else ''}{_OPS[u.op]}"
    flag = c_ast.Constant("int", "1" if fetch_new else "0")
    return c_ast.FuncCall(c_ast.ID(name, coord), c_ast.ExprList([u.target, u.value, flag]), coord)


def _capture_block(block: c_ast.Compound) -> c_ast.Node | None:
    """``{v = x; update}`` (old value), ``{update; v = x;}`` (new value) or
    ``{v = x; x = e;}`` (a swap)."""
    items = block.block_items or []
    if len(items) != 2 or not all(isinstance(s, (c_ast.Assignment, c_ast.UnaryOp)) for s in items):
        return None
    first, second = items
    if _is_read(first):
        u = update_of(second)
        if u is not None and to_c(u.target) == to_c(first.rvalue):
            return c_ast.Assignment("=", first.lvalue, atomic_call(u, False, first.coord), first.coord)
        if isinstance(second, c_ast.Assignment) and second.op == "=" and \
                to_c(second.lvalue) == to_c(first.rvalue) and not _mentions(second.rvalue,
                                                                            to_c(first.rvalue)):
            swap = c_ast.FuncCall(c_ast.ID("_XMPACC_RMW_SWAP", first.coord),
                                  c_ast.ExprList([second.lvalue, second.rvalue]), first.coord)
            return c_ast.Assignment("=", first.lvalue, swap, first.coord)
    if _is_read(second):
        u = update_of(first)
        if u is not None and to_c(u.target) == to_c(second.rvalue):
            return c_ast.Assignment("=", second.lvalue, atomic_call(u, True, second.coord), second.coord)
    return None


def _is_read(stmt: c_ast.Node) -> bool:
    """``v = x`` with x a variable, an element or a member."""
    return isinstance(stmt, c_ast.Assignment) and stmt.op == "=" and \
        isinstance(stmt.rvalue, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef))


def _capture(d: AccAtomic, stmt: c_ast.Node) -> c_ast.Node:
    if isinstance(stmt, c_ast.Compound):
        out = _capture_block(stmt)
        if out is None:
            raise XmpError(d.loc, "this is not a form of 'acc atomic capture': OpenACC's are {v = x; x op= "
                                  "e;}, {x op= e; v = x;} and {v = x; x = e;}, with any update form in place "
                                  "of x op= e and e not naming x")
        return out
    if isinstance(stmt, c_ast.Assignment) and stmt.op == "=":
        u = update_of(stmt.rvalue)
        if u is not None:
            return c_ast.Assignment("=", stmt.lvalue, atomic_call(u, u.prefix, stmt.coord), stmt.coord)
    raise XmpError(d.loc, f"this is not a form of 'acc atomic capture': OpenACC's are v = u, with u one of "
                          f"{_FORMS}, e not naming x")


def lower(d: AccAtomic, stmt: c_ast.Node) -> c_ast.Node:
    """``acc atomic`` + its statement as the kernel runs it."""
    if d.kind == "capture":
        return _capture(d, stmt)
    if d.kind in ("read", "write"):
        if not isinstance(stmt, c_ast.Assignment) or stmt.op != "=":
            raise XmpError(d.loc, f"'acc atomic {d.kind}' must be followed by an assignment 'x = e;'")
        return stmt
    u = update_of(stmt)
    if u is None:
        raise XmpError(d.loc, f"this is not a form of 'acc atomic update': OpenACC's are {_FORMS}, e not "
                              "naming x")
    return atomic_call(u, None, stmt.coord)
