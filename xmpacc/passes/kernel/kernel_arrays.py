"""Reductions of arrays and array sections on GPU loops (global-view §5: element-wise;
OpenACC 2.7 ``reduction(+: hist[0:N])``), for both dialects' kernels (kernel_gen.py).

A reduction array gets a device temporary of the whole array's shape, which the kernel
names ``_xmpacc_ra_<name>``; every update of an element in the body becomes an atomic
update of the temporary (the ``acc atomic`` macros of runtime/include/xmpacc_kernel.h).
Before each launch the runtime copies the reduced elements of the host array into the
temporary and after the kernel copies them back (runtime/acc_arrays.py), so each element
ends as its value before the loop op every update: for these associative, commutative
operators the same as folding updates reduced from the identity into the host value,
without the fill and the fold.  For an XMP loop the copy-in sees the values that
``_xmpacc_loop_reduce_begin`` left (the identity on every node but the first) and the
XMP reduction over the nodes runs after the launch, as for host loops (on the device copy
where the array is on the device: passes/common/acc_comm.py).

    #pragma acc parallel loop reduction(+: h[2:5])
    for (i = 0; i < N; i++)
      h[2 + v[i] % 5] += 1;
->  host C:  long long _xmpacc_rad_0[5] = {(long long) h, (long long) sizeof(h),
                 (long long) (2) * (long long) sizeof(h[0]), (long long) (5) * (long long) sizeof(h[0]), 0};
             _xmpacc_launch(..., (void *[]){..., (void *) _xmpacc_rad_0},
                 (const long long []){..., 8, <type>, 1});
    kernel:  (..., int *_xmpacc_ra_h)  ...  _XMPACC_ATOMIC_ADD(_xmpacc_ra_h[2 + v[i] % 5], 1);

A pointer reduces the section its clause names (``reduction(+: p[0:n])``); so does a C
array parameter.  Where the reduced elements are present on the device (a data region,
enter data, acc replicate), an OpenACC construct's kernel updates the device copy
instead, as OpenACC 2.7 has it (a compute construct's reduction implies copy: the
original variable is the device copy, whose result stays there until an update or the
region's end); XMP-ACC's ``loop ... acc`` keeps the reference's host semantics (§7.4).  The body
may only update the array's elements, in the forms ``forms`` names for the operator; any
other use of the array there is an error.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of, subscript_chain, to_c, unwind, walk
from xmpacc.diagnostics import InternalError, SourceLoc, XmpError, XmpErrors
from xmpacc.directives import ast as xd
from xmpacc.kernel_types import Typedefs, no_long_double
from xmpacc.passes.common.values import Param
from xmpacc.passes.common.varrefs import declared, shape
from xmpacc.passes.kernel.acc_atomic import Update, atomic_call, update_of
from xmpacc.passes.kernel.kernel_vars import array_like, outer_ids
from xmpacc.passes.kernel.kernels import declaration
from xmpacc.runtime.contract import LAUNCH_ARRED, REDUCTION_OPS
from xmpacc.symbols import Scope

# every operator but XMP's firstmax ...: those need location variables, which only scalars
# have (passes/common/reductions.py and kernel_locations.py report the others)
ARRAY_OPS = ("+", "-", "*", "max", "min", "&", "|", "^", "&&", "||")
_FORMS = {
    "+": "h[e] += v, h[e] -= v, h[e] = h[e] + v, h[e] = v + h[e], h[e] = h[e] - v, h[e]++ and h[e]--",
    "*": "h[e] *= v, h[e] = h[e] * v and h[e] = v * h[e]",
    "max": "h[e] = fmax(h[e], v), h[e] = h[e] > v ? h[e] : v and if (v > h[e]) h[e] = v",
    "min": "h[e] = fmin(h[e], v), h[e] = h[e] < v ? h[e] : v and if (v < h[e]) h[e] = v",
    "&&": "h[e] = h[e] && v and h[e] = v && h[e]",
    "||": "h[e] = h[e] || v and h[e] = v || h[e]",
}
_CALLS = {"fmax": "max", "fmaxf": "max", "fmin": "min", "fminf": "min"}
_MACROS = {"max": "_XMPACC_RMW_MAX", "min": "_XMPACC_RMW_MIN", "&&": "_XMPACC_RMW_LAND",
           "||": "_XMPACC_RMW_LOR"}


@dataclass(frozen=True, slots=True)
class ReducedArray:
    """One reduction array (or section) of a kernel."""

    number: int          # its place among the kernel's: names the host description
    name: str
    op: str              # one of ARRAY_OPS
    rank: int
    param_decl: str      # C: the kernel parameter, e.g. "int (*_xmpacc_ra_h)[4]"
    elem: str            # C: the array's first element, "h[0][0]"
    lo: str              # C: the first reduced element (of the flattened array)
    count: str           # C: the number of reduced elements
    loc: SourceLoc
    whole: str = ""      # C: the bytes from the array's start to its end ("": sizeof the array)
    elem_type: tuple[str, ...] = ()   # the element type's names as written (): a struct or union)

    @property
    def param(self) -> str:
        return f"_xmpacc_ra_{self.name}"

    @property
    def host_desc(self) -> str:
        return f"_xmpacc_rad_{self.number}"


def forms(op: str) -> str:
    """The update forms of ``op`` the body may use, for messages."""
    key = "+" if op == "-" else op
    return _FORMS.get(key, f"h[e] {key}= v and h[e] = h[e] {key} v")


def is_array(ref: xd.VarRef, scope: Scope) -> bool:
    """Is ``ref`` (a name of a reduction clause) an array, a section or a pointer?"""
    return ref.subs is not None or array_like(ref.name.name, scope)


def split(refs: list[tuple[str, xd.VarRef]], scope: Scope) -> tuple[dict[str, str], tuple[ReducedArray, ...]]:
    """The reduction clauses' (operator, name) pairs, first mention first, as the
    scalars' ``name -> operator`` and the reduction arrays, checked."""
    scalars: dict[str, str] = {}
    arrays: list[ReducedArray] = []
    seen: set[str] = set()
    problems: list[XmpError] = []
    for op, ref in refs:
        name = ref.name.name
        if name in seen:
            continue
        seen.add(name)
        if not is_array(ref, scope):
            scalars[name] = op
            continue
        try:
            arrays.append(_reduced(len(arrays), op, ref, scope))
        except XmpError as err:
            problems.append(err)
    if problems:
        raise XmpErrors(problems)
    return scalars, tuple(arrays)


def _reduced(number: int, op: str, ref: xd.VarRef, scope: Scope) -> ReducedArray:
    name, at = ref.name.name, ref.name.loc
    decl = declared(ref, scope, "a reduction variable of a GPU loop")
    found = scope.find_c(name)
    pointer = isinstance(decl.type, c_ast.PtrDecl) or (found is not None and name in found[0].params)
    rank, elem_type = (1, decl.type.type) if pointer else shape(decl)
    if isinstance(elem_type, c_ast.PtrDecl) or (pointer and not isinstance(elem_type, c_ast.TypeDecl)):
        raise XmpError(at, f"'{name}' is an array of pointers; it cannot be a reduction variable")
    if not pointer:
        _check_sized(decl, name, at)
    names = (getattr(elem_type.type, "names", None) or []) if isinstance(elem_type, c_ast.TypeDecl) else []
    if op not in ARRAY_OPS:
        raise InternalError(f"reduction '{op}' of the array '{name}' on a GPU loop")
    elem = name + "[0]" * rank
    if pointer and (ref.subs is None or any(isinstance(sub, xd.SectionTriplet) and sub.length is None
                                            for sub in ref.subs)):
        raise XmpError(at, f"'{name}' is a pointer: name the elements its GPU loop reduces as a section, "
                           f"'{name}[lo:len]'")
    lo, count = _section(ref, name, rank) if ref.subs is not None \
        else ("0", f"sizeof({name}) / sizeof({elem})")
    # a pointer's elements reach as far as the section says
    whole = f"(({lo}) + ({count})) * sizeof({elem})" if pointer else ""
    # the kernel parameter: a pointer to the elements (a pointer, an array parameter), or
    # to the rows of an array; a C array parameter (int h[]) is a pointer
    param = declaration(decl, f"_xmpacc_ra_{name}", drop_outer_dim=not isinstance(decl.type, c_ast.PtrDecl))
    return ReducedArray(number, name, op, rank, param, elem, lo, count, at, whole, tuple(names))


def check_elements(arrays: tuple[ReducedArray, ...], typedefs: Typedefs) -> None:
    """The element types of the reduction arrays, seen through the file's typedefs
    (``real``, ``int64_t``, ``bool``): integers, bools and floating point but long double
    (atomicAdd and the compare-and-swap loops of runtime/include/xmpacc_kernel.h take them,
    bools, chars and shorts through the 4 bytes that hold them)."""
    for ra in arrays:
        names = set(typedefs.arithmetic(list(ra.elem_type)) or [])
        shown = " ".join(ra.elem_type) or "a struct or union"
        if not names:
            raise XmpError(ra.loc,
                           f"'{ra.name}' has elements of type '{shown}': reductions take arithmetic types")
        if {"long", "double"} <= names:
            raise no_long_double(f"'{ra.name}'", "a GPU loop's reduction", ra.loc)
        if ra.op in ("&", "|", "^") and names & {"float", "double"}:
            raise XmpError(ra.loc, f"bitwise reduction '{ra.op}' on floating-point variable '{ra.name}'")


def _check_sized(decl: c_ast.Decl, name: str, at: SourceLoc) -> None:
    """The host measures the array with sizeof (rows of variable length too: the kernel
    takes them as kernel_vla.py says)."""
    if isinstance(decl.type, c_ast.ArrayDecl) and decl.type.dim is None:
        raise XmpError(at, f"'{name}' has no size here; name the elements its GPU loop reduces as a section, "
                           f"'{name}[lo:len]'")


def _section(ref: xd.VarRef, name: str, rank: int) -> tuple[str, str]:
    """(first element, count) in the flattened array of the elements from the first to
    the last that a subscripted reduction names (indices and ``[lo:len:step]`` triplets in
    any dimensions): ``h[2:5]``, ``g[1:2][:]``, ``g[3]`` (a row), ``g[3][0:4]``, ``h[7]``,
    also ``h[0:4:2]`` or ``g[0:4][1:2]``, whose elements do not lie together.  The runtime
    moves that whole range (acc_arrays.py); the elements between the named ones come back
    as they went, since the body updates only named ones (any other use is an error), and
    an XMP loop's reduction combines the named ones alone."""
    subs = ref.subs or ()
    if len(subs) > rank:
        raise XmpError(ref.loc, f"'{name}' has {rank} dimension{'s' if rank > 1 else ''}, the reduction "
                                f"names {len(subs)} subscripts")
    first: list[str] = []
    spans: list[str] = []   # how far each triplet's last element lies from its first
    empty: list[str] = []   # a triplet's length, which may be 0
    run = ""   # the count where the last subscript is a triplet of step 1 (its elements lie together)
    for d, sub in enumerate(subs):
        times = "" if d == rank - 1 else f" * ({cbuild.extent_of(name, d + 1, rank)})"
        if not isinstance(sub, xd.SectionTriplet):   # one index
            first.append(f"({sub.text}){times}")
            continue
        step = f"({sub.step.text})" if sub.step is not None else "1"
        lo = f"({sub.base.text})" if sub.base is not None else "0"
        extent = f"({cbuild.extent_of(name, d, d + 1)})"
        length = f"({sub.length.text})" if sub.length is not None else \
            (f"({extent} - {lo})" if step == "1" else f"(({extent} - {lo} + {step} - 1) / {step})")
        first.append(f"{lo}{times}")
        spans.append(f"({length} - 1) * {step}{times}")
        empty.append(f"{length} <= 0")
        run = f"{length}{times}" if step == "1" and d == len(subs) - 1 else ""
    # each index tuple names a block of the dimensions after the subscripted ones
    block = f"({cbuild.extent_of(name, len(subs), rank)})"
    lo_text = " + ".join(first) or "0"
    if not spans:   # indices only: an element, or the rows they name
        return lo_text, block
    if len(spans) == 1 and run:   # h[2:5], g[3][0:4]
        return lo_text, run
    return lo_text, f"({' || '.join(empty)} ? 0 : {' + '.join(spans)} + {block})"


# ------------------------------------------------------------------ the kernel body


def rewrite(body: c_ast.Node, arrays: tuple[ReducedArray, ...]) -> c_ast.Node:
    """A copy of ``body`` with every update of a reduction array's element an atomic
    update of its temporary; any other use of the array is an error."""
    if not arrays:
        return body
    body = copy.deepcopy(body)
    by_name = {ra.name: ra for ra in arrays}
    statements = _statement_ids(body)

    def fix(node: c_ast.Node) -> c_ast.Node | None:
        if id(node) not in statements:
            return None
        return _atomic(node, by_name)

    body = cbuild.transform(body, fix)
    for ident in outer_ids(body):
        ra = by_name.get(ident.name)
        if ra is not None:
            raise XmpError(loc_of(ident), f"'{ra.name}' is a reduction array of this GPU loop: the loop may "
                                          f"only update its elements, as in {forms(ra.op)} (a statement "
                                          f"each; v must not use '{ra.name}')")
    return body


def _statement_ids(body: c_ast.Node) -> set[int]:
    """The nodes that are whole statements (an update used as a value is no reduction)."""
    out = {id(body)}
    for node in walk(body):
        if isinstance(node, c_ast.Compound):
            out.update(id(item) for item in node.block_items or [])
        elif isinstance(node, c_ast.If):
            out.update(id(b) for b in (node.iftrue, node.iffalse) if b is not None)
        elif isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Label)):
            out.add(id(node.stmt))
        elif isinstance(node, (c_ast.Case, c_ast.Default)):
            out.update(id(s) for s in node.stmts or [])
    return out


def _element(target: c_ast.Node, by_name: dict[str, ReducedArray]) -> ReducedArray | None:
    """The reduction array whose element (all subscripts given) ``target`` is."""
    target, subs = unwind(target)
    ra = by_name.get(target.name) if isinstance(target, c_ast.ID) else None
    return ra if ra is not None and len(subs) == ra.rank else None


def _renamed(target: c_ast.Node, ra: ReducedArray) -> c_ast.Node:
    """``h[e]`` as ``_xmpacc_ra_h[e]`` (the subscripts stay: the temporary has h's shape)."""
    innermost = subscript_chain(target)[-1]
    innermost.name = c_ast.ID(ra.param, innermost.name.coord)
    return target


def _atomic(stmt: c_ast.Node, by_name: dict[str, ReducedArray]) -> c_ast.Node | None:
    """The atomic form of an update statement of a reduction array's element, else None."""
    u = update_of(stmt)
    if u is not None:
        ra = _element(u.target, by_name)
        if ra is None or not _fits(u, ra.op):
            return None
        commutes = u.op != "-"
        u = Update(_renamed(u.target, ra), u.op, u.value, u.reverse and not commutes)
        return atomic_call(u, None, stmt.coord)
    found = _folded(stmt)
    if found is None:
        return None
    target, value, op = found
    ra = _element(target, by_name)
    if ra is None or ra.op != op:
        return None
    return c_ast.FuncCall(c_ast.ID(_MACROS[op], stmt.coord),
                          c_ast.ExprList([_renamed(target, ra), value,
                                          c_ast.Constant("int", "0")]), stmt.coord)


def _fits(u: Update, op: str) -> bool:
    """Is the update ``u`` one of the reduction operator's?"""
    if op in ("+", "-"):
        return u.op == "+" or (u.op == "-" and not u.reverse)
    return u.op == op and op in ("*", "&", "|", "^")


def _folded(stmt: c_ast.Node) -> tuple[c_ast.Node, c_ast.Node, str] | None:
    """(x, v, "max" or "min") of ``x = fmax(x, v)``, ``x = x > v ? x : v`` and
    ``if (v > x) x = v;`` (either operand order, < > <= >=); (x, v, "&&" or "||") of
    ``x = x && v`` (either operand order)."""
    if isinstance(stmt, c_ast.If) and stmt.iffalse is None:
        inner = stmt.iftrue
        if isinstance(inner, c_ast.Compound) and len(inner.block_items or []) == 1:
            inner = inner.block_items[0]
        if not (isinstance(inner, c_ast.Assignment) and inner.op == "="):
            return None
        x, v = inner.lvalue, inner.rvalue
        above = _compares(stmt.cond, v, x)   # true when v is above x
        return (x, v, "max" if above else "min") if above is not None else None
    if not (isinstance(stmt, c_ast.Assignment) and stmt.op == "="):
        return None
    x, rhs = stmt.lvalue, stmt.rvalue
    if isinstance(rhs, c_ast.BinaryOp) and rhs.op in ("&&", "||"):
        for a, b in ((rhs.left, rhs.right), (rhs.right, rhs.left)):
            if to_c(a) == to_c(x) and to_c(x) not in to_c(b):
                return x, b, rhs.op
        return None
    if isinstance(rhs, c_ast.FuncCall) and isinstance(rhs.name, c_ast.ID) and rhs.name.name in _CALLS \
            and rhs.args is not None and len(rhs.args.exprs) == 2:
        a, b = rhs.args.exprs
        if to_c(a) == to_c(x):
            return x, b, _CALLS[rhs.name.name]
        if to_c(b) == to_c(x):
            return x, a, _CALLS[rhs.name.name]
        return None
    if isinstance(rhs, c_ast.TernaryOp):
        for v in (rhs.iftrue, rhs.iffalse):
            other = rhs.iffalse if v is rhs.iftrue else rhs.iftrue
            if to_c(other) != to_c(x):
                continue
            above = _compares(rhs.cond, v, x)   # true when v is above x
            if above is not None and v is rhs.iftrue:
                return x, v, "max" if above else "min"
            if above is not None:   # picks x when v is above it
                return x, v, "min" if above else "max"
    return None


def _compares(cond: c_ast.Node, v: c_ast.Node, x: c_ast.Node) -> bool | None:
    """For ``cond`` comparing v with x: True when it holds for v above x, False for v
    below x, None for anything else."""
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in ("<", ">", "<=", ">="):
        return None
    left, right, vt, xt = to_c(cond.left), to_c(cond.right), to_c(v), to_c(x)
    greater = cond.op in (">", ">=")
    if (left, right) == (vt, xt):
        return greater
    if (left, right) == (xt, vt):
        return not greater
    return None


# ------------------------------------------------------------------ kernel and launch


def params(arrays: tuple[ReducedArray, ...]) -> list[Param]:
    """The temporaries; the runtime finds each one's host description at the address."""
    return [Param(ra.param, ra.param_decl, ra.host_desc, LAUNCH_ARRED, f"_XMPACC_TYPE({ra.elem})",
                  str(REDUCTION_OPS[ra.op])) for ra in arrays]


def host_decls(arrays: tuple[ReducedArray, ...], to_host: bool) -> str:
    """Host C before a launch: {address, bytes from it to the array's end, section offset,
    section bytes, 1 for XMP-ACC (to the host array)} of each."""
    out = []
    for ra in arrays:
        size = f"(long long) sizeof({ra.elem})"
        whole = f"(long long) ({ra.whole})" if ra.whole else f"(long long) sizeof({ra.name})"
        out.append(f"long long {ra.host_desc}[5] = {{(long long) {ra.name}, {whole}, "
                   f"(long long) ({ra.lo}) * {size}, (long long) ({ra.count}) * {size}, {int(to_host)}}};")
    return " ".join(out)
