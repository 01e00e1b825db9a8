"""What each name in a ``loop ... acc`` body becomes on the device (reference §7.4 table).

``classify`` walks the body of the innermost distributed loop and sorts every variable it
names into: computed (distributed control variables), local (declared in the body, or an
inner loop's control variable), private, reduction, device array (aligned or local array,
which must be replicated), device scalar (a replicated scalar, shared by all threads) and
by-value scalar (every other outside scalar, firstprivate semantics).  It reports what a
GPU cannot run: calls of non-device functions, pointers, XMP directives, assignments to
by-value scalars, arrays that are not replicated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from pycparser import c_ast

from xmpacc.cbuild import loc_of, walk
from xmpacc.diagnostics import InternalError, SourceLoc, XmpError, XmpErrors
from xmpacc.passes.common import acc_nest, openacc_calls
from xmpacc.passes.common.accesses import passed_addresses, store_target, stored_variable, uses
from xmpacc.passes.common.values import KernelVars, Replicated
from xmpacc.symbols import Scope

# CUDA math functions callable in a kernel (and in C's math.h for the host backend), and
# acc_on_device (xmpacc_kernel.h).
DEVICE_FUNCTIONS = openacc_calls.IN_KERNELS | frozenset([
    "sqrt", "sqrtf", "cbrt", "cbrtf", "rsqrt", "rsqrtf", "exp", "expf", "exp2", "exp2f", "expm1", "expm1f",
    "log", "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "pow", "powf", "sin", "sinf", "cos",
    "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh",
    "sinhf", "cosh", "coshf", "tanh", "tanhf", "asinh", "acosh", "atanh", "fabs", "fabsf", "abs", "labs",
    "llabs", "fmin", "fminf", "fmax", "fmaxf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc",
    "truncf", "fmod", "fmodf", "remainder", "copysign", "hypot", "hypotf", "erf", "erff", "erfc", "erfcf",
    "tgamma", "lgamma", "fma", "fmaf", "isnan", "isinf", "isfinite", "signbit", "ldexp", "frexp", "modf",
    "nearbyint", "rint", "lrint", "llround", "lround", "asinhf", "acoshf", "atanhf", "remainderf",
    "copysignf", "tgammaf", "lgammaf", "ldexpf", "frexpf", "modff", "nearbyintf", "rintf", "lrintf", "llrint",
    "llrintf", "lroundf", "llroundf", "fdim", "fdimf", "scalbn", "scalbnf", "ilogb", "ilogbf", "logb",
    "logbf", "nextafter", "nextafterf", "exp10", "exp10f", "sincos", "sincosf", "sincospi", "sincospif",
    "sinpi", "sinpif", "cospi", "cospif", "rhypot", "rhypotf", "rcbrt", "rcbrtf", "norm3d", "norm3df",
    "erfinv", "erfinvf", "erfcinv", "erfcinvf", "normcdf", "normcdff",
    "printf"])   # CUDA's device printf: the lines come at the next synchronisation


def array_like(name: str, scope: Scope) -> bool:
    """Is ``name`` an array in a kernel: distributed, a C array or a pointer?"""
    found = scope.find_c(name)
    return scope.find_array(name) is not None or \
        (found is not None and isinstance(found[1].type, (c_ast.ArrayDecl, c_ast.PtrDecl)))


def loop_locals(body: c_ast.Node) -> set[str]:
    """Control variables of inner loops assigned in their init: per thread (the body's
    declarations are handled by C scoping in ``outer_ids``)."""
    names = set()
    for node in walk(body):
        if isinstance(node, c_ast.For):
            init = node.init
            if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
                names.add(init.lvalue.name)
    return names


def outer_ids(body: c_ast.Node) -> list[c_ast.ID]:
    """IDs that denote variables declared outside the body (not called function names,
    struct member names, nor names of the body's own declarations where they are in
    scope: C scoping, so that ``{ double a = 2; }`` in the body hides an outer array
    ``a`` there and only there)."""
    skip: set[int] = set()
    for node in walk(body):
        if isinstance(node, c_ast.FuncCall):
            skip.add(id(node.name))
        elif isinstance(node, c_ast.StructRef):
            skip.add(id(node.field))
    out: list[c_ast.ID] = []
    _free_ids(body, [set()], skip, out)
    return out


def _free_ids(node: c_ast.Node, bound: list[set[str]], skip: set[int], out: list[c_ast.ID]) -> None:
    if isinstance(node, c_ast.ID):
        if id(node) not in skip and not any(node.name in names for names in bound):
            out.append(node)
        return
    opens = isinstance(node, c_ast.Compound) or (isinstance(node, c_ast.For)
                                                 and isinstance(node.init, c_ast.DeclList))
    if opens:
        bound.append(set())
    for _name, child in node.children():
        _free_ids(child, bound, skip, out)
        if isinstance(child, c_ast.Decl) and child.name:
            bound[-1].add(child.name)   # in scope after its declarator (its init sees the outer one)
    if opens:
        bound.pop()


def assigned_names(body: c_ast.Node) -> dict[str, c_ast.Node]:
    out: dict[str, c_ast.Node] = {}
    for node in walk(body):
        target = store_target(node)
        if isinstance(target, c_ast.ID):
            out.setdefault(target.name, node)
    return out


def check_body(body: c_ast.Node, is_xmp_pragma,  # type: ignore[no-untyped-def]
               routines: frozenset[str] = frozenset()) -> None:
    """Constructs a kernel cannot contain (``routines``: 'acc routine seq' functions, callable)."""
    # pointers the body declares point where the body makes them (device data): they may be
    # dereferenced; any other pointer is a host address (classify names it otherwise)
    local = {n.name for n in walk(body) if isinstance(n, c_ast.Decl) and n.name}
    for node in walk(body):
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            name = node.name.name
            library = openacc_calls.device_call_error(name)
            if library is not None:
                raise XmpError(loc_of(node), library)
            if not name.startswith(("_XMPACC_", "_xmpacc_")) and name not in DEVICE_FUNCTIONS \
                    and name not in routines:
                raise XmpError(loc_of(node), f"call of '{name}' in an acc loop: only CUDA math functions "
                                             "can be called on the GPU")
        elif isinstance(node, c_ast.FuncCall):
            raise XmpError(loc_of(node), "calls through function pointers are not allowed in an acc loop")
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*" and not _body_pointer(node.expr, local):
            raise XmpError(loc_of(node), "pointer dereference in an acc loop: the GPU cannot follow "
                                         "host pointers; use a replicated array")
        elif isinstance(node, c_ast.StructRef) and node.type == "->" and not _body_pointer(node.name, local):
            raise XmpError(loc_of(node), "pointer dereference ('->') in an acc loop")
        elif isinstance(node, c_ast.Pragma) and is_xmp_pragma(node):
            raise XmpError(loc_of(node), "XMP directives are not allowed inside an acc loop")
        elif acc_nest.openmp_line(node):
            raise acc_nest.openmp_on_device(node, "inside an acc loop")
        elif isinstance(node, (c_ast.Return, c_ast.Goto)):
            raise XmpError(loc_of(node), f"'{type(node).__name__.lower()}' inside an acc loop")
        elif isinstance(node, c_ast.Decl) and _descriptor_type(node) is not None:
            # a nodes/template/align directive in the body: lowered (localize runs first)
            # into a block-scope descriptor, which is host data the GPU cannot create
            raise XmpError(loc_of(node), f"'{_descriptor_type(node)}' directive inside an acc loop: "
                                         "declare it before the loop")


def _body_pointer(pointer: c_ast.Node, local: set[str]) -> bool:
    """Does ``pointer`` (``p``, ``p + j``, ``&q[i]``) name a variable the body declares?  A
    host pointer in it is an error of classify's, by its name."""
    return any(isinstance(n, c_ast.ID) and n.name in local for n in walk(pointer))


_DESCRIPTOR_TYPES = {"_xmpacc_nodes_t": "nodes", "_xmpacc_template_t": "template", "_xmpacc_array_t": "align"}


def _descriptor_type(decl: c_ast.Decl) -> str | None:
    t = decl.type
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType):
        return _DESCRIPTOR_TYPES.get(t.type.names[-1])
    return None


def _classify_one(ident: c_ast.ID, decl: c_ast.Decl, scope: Scope, replicated: list[Replicated],
                  private: list[str], firstprivate: list[str], reductions: dict[str, str],
                  assigned: dict[str, c_ast.Node], out: KernelVars) -> None:
    name = ident.name
    if isinstance(decl.type, c_ast.FuncDecl):
        raise XmpError(loc_of(ident), f"function '{name}' used as a value in an acc loop")
    distributed = scope.find_array(name) is not None
    if name in private and name not in reductions:   # each thread's own (kernel_gen: private(p[0:4]))
        if not distributed:
            out.private.append((name, decl))
            return
        out.private_blocks.append((name, False))
    elif name in firstprivate and distributed:
        out.private_blocks.append((name, True))
    rep = next((r for r in replicated if r.decl is decl and not r.member), None)
    if rep is not None and isinstance(decl.type, c_ast.PtrDecl) and rep.key == f"&{name}":
        # the pointer variable itself is on the device (its key is its address): one an
        # acc parallel region declares, holding a device address (acc_region.py)
        out.device_scalars.append(rep)
        return
    if isinstance(decl.type, c_ast.PtrDecl) and not distributed and rep is None:
        raise XmpError(loc_of(ident), f"pointer '{name}' used in an acc loop; the GPU cannot follow "
                                      "host pointers: use a replicated array")
    # a pointer with a device copy: p[0:n] in a data clause of an OpenACC construct
    is_array = array_like(name, scope)
    if name in reductions:
        if is_array:   # kernel_arrays.split takes every array and section out of ``reductions``
            raise InternalError(f"array '{name}' among the scalar reductions of an acc loop")
        out.reductions.append((name, decl, reductions[name]))
    elif is_array:
        if rep is None:
            raise XmpError(loc_of(ident), f"array '{name}' is used in an acc loop but has no device "
                                          f"copy: put the loop inside '#pragma xmp acc replicate "
                                          f"({name})' and sync it with 'acc replicate_sync in ({name})'")
        if name in firstprivate and rep.array is None and isinstance(decl.type, c_ast.ArrayDecl):
            out.arrays.append(dataclasses.replace(rep, name=f"_xmpacc_fp_{name}"))
            out.firstprivate_arrays.append((name, decl, 0))
        else:
            out.arrays.append(rep)
    elif rep is not None and name not in firstprivate:
        out.device_scalars.append(rep)
    else:   # firstprivate with a device copy too: each thread's own, of the encountering thread's value
        if name in assigned and name not in firstprivate:
            raise XmpError(loc_of(assigned[name]), f"scalar '{name}' is assigned in the acc loop but is "
                                                   f"neither private nor a reduction variable: add "
                                                   f"private({name}) or reduction(...:{name}), or "
                                                   f"declare it inside the loop body")
        out.by_value.append((name, decl))


def _rank(name: str, scope: Scope) -> int:
    """Dimensions of a variable as a kernel body subscripts it: pointer levels count as
    ones, and a distributed array's references are linear (one subscript) there."""
    if scope.find_array(name) is not None:
        return 1
    found = scope.find_c(name)
    t, n = (found[1].type, 0) if found is not None else (None, 0)
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        t, n = t.type, n + 1
    return n


def _reads_only(routines: Mapping[str, c_ast.FuncDef] | None, callee: str, k: int) -> bool:
    """Is argument ``k`` of ``callee`` a pointer-to-const (or const array) parameter?"""
    fn = (routines or {}).get(callee)
    args = fn.decl.type.args if fn is not None else None
    if args is None or k >= len(args.params) or not isinstance(args.params[k], c_ast.Decl):
        return False
    t = args.params[k].type
    if not isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        return False
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        t = t.type
    return "const" in getattr(t, "quals", [])


def classify(body: c_ast.Node, control: list[str], scope: Scope, replicated: list[Replicated],
             private: list[str], firstprivate: list[str], reductions: dict[str, str],
             where: SourceLoc, device_pointers: tuple[str, ...] | list[str] = (),
             routines: Mapping[str, c_ast.FuncDef] | None = None) -> KernelVars:
    """``device_pointers``: pointers of a deviceptr clause, which hold device addresses
    already: the kernel takes their values (by_value); ``routines``: the acc routine
    functions the body may call, whose pointer-to-const parameters only read."""
    out = KernelVars(computed=list(control))
    for node in walk(body):
        target = store_target(node)
        if isinstance(target, (c_ast.ArrayRef, c_ast.StructRef)):   # a[i] = , v[i].c[k].re =
            stored = stored_variable(target)
            out.written_arrays.add(stored.name if stored is not None else "")
    out.read_vars, out.written_vars = uses(body)
    # an element's address passed to a routine (add(&r[i], ...)): it may store through it
    passed = passed_addresses(body, lambda name: _rank(name, scope), lambda f, k: _reads_only(routines, f, k))
    out.written_arrays |= passed
    out.written_vars |= passed
    local = loop_locals(body)
    assigned = assigned_names(body)
    seen: set[str] = set(control) | (local - set(firstprivate))
    problems: list[XmpError] = []
    referenced = outer_ids(body)
    # an inner loop's control variable declared outside: per thread (a firstprivate one, as a
    # location variable of kernel_locations.py is, starts from the value before the loop)
    for name in sorted(local - set(control) - set(private) - set(firstprivate)):
        found = scope.find_c(name)
        if found is not None and any(i.name == name for i in referenced):
            out.private.append((name, found[1]))
    for ident in referenced:
        name = ident.name
        if "." in name or "->" in name:   # the descriptor member of an object (structs.py)
            at = loc_of(ident) if getattr(ident.coord, "line", 0) else where
            problems.append(XmpError(at, f"aligned structure member '{name.replace('_xmpacc_a_', '')}' in an "
                                         "acc loop: not supported yet"))
            seen.add(name)
            continue
        if name in seen or name.startswith("_xmpacc_"):
            continue
        seen.add(name)
        found = scope.find_c(name)
        if found is None:
            continue  # an enumerator or a libc constant: the kernel file knows it
        if name in device_pointers:
            out.by_value.append((name, found[1]))
            continue
        try:
            _classify_one(ident, found[1], scope, replicated, private, firstprivate,
                          reductions, assigned, out)
        except XmpError as err:  # report every variable's problem, not just the first
            problems.append(err)
    for name, first in out.private_blocks:   # the threads' copies are written, not the device copy
        out.written_vars.discard(name)
        if not first:
            out.read_vars.discard(name)
    for name in private:
        if name not in [p for p, _ in out.private] and scope.find_c(name) is None:
            problems.append(XmpError(where, f"private variable '{name}' is not declared"))
    if problems:
        raise XmpErrors(problems)
    return out
