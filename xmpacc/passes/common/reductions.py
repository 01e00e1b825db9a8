"""Reductions: the loop clause and the ``reduction`` directive as runtime calls (§6.1, §6.4,
global-view §5).

Loop clause ``reduction(+:s)`` on ``loop on t[i]``:

    _xmpacc_loop_reduce_begin(&_xmpacc_t_t, (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);
    <the distributed nest>
    _xmpacc_loop_reduce(&_xmpacc_t_t, "f.c:9", (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);

``begin`` resets ``s`` to the operator's identity on every node but the first of its
reduction node set, so the initial value is counted once.  Local arrays are reduced
element-wise: ``&s`` becomes ``s`` and the count ``sizeof s / sizeof s[0]``.  A section
(``k[1][:]``) or a variable with location variables (``firstmax: v /i, k[1][:]/``) goes
through the ``_var`` entries with a description of each variable (varrefs.py); a loop's
location variables also get the key of the iteration that set them (locations.py).
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common import varrefs
from xmpacc.passes.common.varrefs import declared, shape, type_names, var_operand
from xmpacc.runtime.contract import REDUCTION_OPS
from xmpacc.symbols import NodesSym, Scope, TemplateSym

_FLOAT_NAMES = {"float", "double"}


def _check_type(var: xd.ReductionVar, op: str, decl: c_ast.Decl) -> None:
    names = type_names(decl)
    name = var.name.name
    if op in ("&", "|", "^") and names & _FLOAT_NAMES:
        raise XmpError(var.name.loc, f"bitwise reduction '{op}' on floating-point variable '{name}'")
    if "_Complex" in names and op not in ("+", "-", "*", "&&", "||"):
        raise XmpError(var.name.loc, f"reduction '{op}' of the complex variable '{name}' (complex values "
                                     "reduce with '+' and '*' only)")


def reduction_operand(var: xd.ReductionVar, op: str, scope: Scope) -> tuple[str, str, str]:
    """(address, element count, type code) C texts for one reduction variable."""
    name = var.name.name
    decl = declared(var.ref, scope, "a reduction variable")
    rank, base_type = shape(decl)
    if isinstance(base_type, c_ast.PtrDecl):
        raise XmpError(var.name.loc, f"'{name}' is a pointer; reduction variables are scalars or arrays")
    _check_type(var, op, decl)
    if rank == 0:
        return f"&{name}", "1", f"_XMPACC_TYPE({name})"
    elem = name + "[0]" * rank
    if varrefs.is_array_param(name, scope):   # a pointer: sizeof would count the pointer's bytes
        rows = f" * ({cbuild.extent_of(name, 1, rank)})" if rank > 1 else ""
        return name, varrefs.outer_extent(var.ref, decl, scope) + rows, f"_XMPACC_TYPE({elem})"
    return name, f"sizeof({name}) / sizeof({elem})", f"_XMPACC_TYPE({elem})"


def _op_code(red: xd.Reduction) -> int:
    if red.op not in REDUCTION_OPS:
        raise XmpError(red.loc, f"reduction '{red.op}' is not supported yet")
    return REDUCTION_OPS[red.op]


def _described(var: xd.ReductionVar, op: str, scope: Scope) -> tuple[str, str, str]:
    """(address, description, location arguments) of a section or located variable."""
    addr, desc = var_operand(var.ref, scope, "a reduction variable")
    _check_type(var, op, declared(var.ref, scope, "a reduction variable"))
    if not var.locations:
        return addr, desc, "0, 0, 0"
    if var.subs is not None or shape(declared(var.ref, scope, "a reduction variable"))[0] != 0:
        raise XmpError(var.name.loc, f"'{var.name.name}' has location variables, so it must be a scalar")
    locs = [var_operand(loc, scope, "a location variable") for loc in var.locations]
    return addr, desc, (f"{len(locs)}, (void *[]){{{', '.join(a for a, _ in locs)}}}, "
                        f"(const void *[]){{{', '.join(d for _, d in locs)}}}")


def loop_reduction_calls(loop: xd.Loop, tmpl: TemplateSym | NodesSym, mask: list[int], scope: Scope,
                         coord: object, keys: dict[str, tuple[str, int]] | None = None
                         ) -> tuple[list[c_ast.Node], list[c_ast.Node]]:
    """Calls before and after the nest; ``keys`` names each located variable's key array
    and its length (locations.py)."""
    before: list[c_ast.Node] = []
    after: list[c_ast.Node] = []
    dims = "(const int []){" + ", ".join(map(str, mask)) + "}"
    where = cbuild.where_literal(loop.loc)
    for red in loop.reductions:
        code = _op_code(red)
        for var in red.variables:
            if var.subs is None and not var.locations:
                addr, count, typ = reduction_operand(var, red.op, scope)
                args = f"{addr}, {count}, {typ}, {code}"
                before += cbuild.stmts(f"_xmpacc_loop_reduce_begin(&{tmpl.c_name}, {dims}, {args});", coord)
                after += cbuild.stmts(f"_xmpacc_loop_reduce(&{tmpl.c_name}, {where}, {dims}, {args});", coord)
                continue
            addr, desc, locs = _described(var, red.op, scope)
            key, depth = (keys or {}).get(var.name.name, ("0", 0))
            before += cbuild.stmts(f"_xmpacc_loop_reduce_var_begin(&{tmpl.c_name}, {dims}, {addr}, {desc}, "
                                   f"{code});", coord)
            after += cbuild.stmts(f"_xmpacc_loop_reduce_var(&{tmpl.c_name}, {where}, {dims}, {addr}, {desc}, "
                                  f"{code}, {locs}, {depth}, {key});", coord)
    return before, after


def reduction_directive_calls(d: xd.ReductionDirective, on: tuple[str, str], scope: Scope,
                              coord: object) -> list[c_ast.Node]:
    code = _op_code(d.reduction)
    where = cbuild.where_literal(d.loc)
    out: list[c_ast.Node] = []
    for var in d.reduction.variables:
        if var.subs is None and not var.locations:
            addr, count, typ = reduction_operand(var, d.reduction.op, scope)
            out += cbuild.stmts(f"_xmpacc_reduce({addr}, {where}, {count}, {typ}, {code}, {on[0]}, {on[1]});",
                                coord)
            continue
        addr, desc, locs = _described(var, d.reduction.op, scope)
        out += cbuild.stmts(f"_xmpacc_reduce_var({where}, {addr}, {desc}, {code}, {on[0]}, {on[1]}, {locs});",
                            coord)
    return out


def check_not_indices(var: xd.ReductionVar, indices: set[str]) -> None:
    """The loop's own indices change between iterations, not in them, so the change that
    keys a record cannot be seen in them: an error where the program asks for that."""
    for k, ref in enumerate((var.ref,) + var.locations):
        name = ref.name.name
        if name in indices:
            what = "a location variable" if k else "the variable of a reduction"
            raise XmpError(ref.name.loc,
                           f"'{name}' is an index of this loop, so it cannot be {what}: the loop, "
                           "not the body, changes it; note the index in a variable of your own, "
                           f"as in 'if (a[{name}] > v) {{ v = a[{name}]; at = {name}; }}' with /at/")
