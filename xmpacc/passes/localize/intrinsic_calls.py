"""The collective intrinsics of xmp.h (global-view §9), lowered for the library pass.

Before:                                   After:
    xmp_gather(xmp_desc_of(x),                _xmpacc_gather("f.c:12", 3,
               xmp_desc_of(a),                    (const void *[]){(void *) &_xmpacc_a_x,
               xmp_desc_of(i));                                    (void *) &_xmpacc_a_a,
                                                                   (void *) &_xmpacc_a_i},
                                                  (const int []){_XMPACC_TYPE((double) 0), ...});
    xmp_transpose(xmp_desc_of(b),             _xmpacc_transpose("f.c:13", (void *) &_xmpacc_a_b,
                  xmp_desc_of(a), 0);             (void *) &_xmpacc_a_a, 0);
    xmp_sort_down(xmp_desc_of(d),             _xmpacc_sort("f.c:14", (void *) &_xmpacc_a_d,
                  xmp_desc_of(s));                (void *) &_xmpacc_a_s, _XMPACC_TYPE((int) 0), 1);

Each descriptor argument written ``xmp_desc_of(name)`` is checked here against the
array's declaration (an aligned array, its rank, its element type), so that mistakes are
reported at the argument; the element type travels to the runtime as a type code.  A
descriptor held in a variable has type code 0 here: the runtime reads the type that
``xmp_desc_of`` recorded in the descriptor when it was evaluated (library.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of
from xmpacc.diagnostics import XmpError
from xmpacc.passes.common.descriptors import elem_type_name
from xmpacc.symbols import ArraySym, Scope


@dataclass(frozen=True)
class Spec:
    entry: str
    roles: tuple[str, ...]       # descriptor arguments; "i" repeats (index arrays)


SPECS = {
    "xmp_gather": Spec("_xmpacc_gather", ("x", "a", "i")),
    "xmp_scatter": Spec("_xmpacc_scatter", ("x", "a", "i")),
    "xmp_pack": Spec("_xmpacc_pack", ("v", "a", "mask")),
    "xmp_unpack": Spec("_xmpacc_unpack", ("a", "v", "mask")),
    "xmp_matmul": Spec("_xmpacc_matmul", ("c", "a", "b")),
    "xmp_transpose": Spec("_xmpacc_transpose", ("dst", "src")),
    "xmp_sort_up": Spec("_xmpacc_sort", ("dst", "src")),
    "xmp_sort_down": Spec("_xmpacc_sort", ("dst", "src")),
}

_NOT_INTEGER = frozenset({"float", "double", "_Complex", "struct", "union"})
_NOT_SORTABLE = frozenset({"_Complex", "struct", "union"})


@dataclass
class Arg:
    node: c_ast.Node             # the lowered argument
    sym: ArraySym | None         # the array, when written xmp_desc_of(name)
    ctype: str | None            # its element type as C text
    loc: object


def _args(call: c_ast.FuncCall) -> list[c_ast.Node]:
    return list(call.args.exprs) if call.args is not None else []


def _type_words(ctype: str | None) -> set[str] | None:
    return set(ctype.split()) if ctype is not None else None


def type_code(sym: ArraySym | None) -> c_ast.Node:
    if sym is None:
        return c_ast.Constant("int", "0")
    node = cbuild.expr("_XMPACC_TYPE((int) 0)")
    t = sym.elem_type
    node.args.exprs[0].to_type = c_ast.Typename(None, t.quals, None,
                                                c_ast.TypeDecl(None, t.quals, None, t.type))
    return node


def lower(call: c_ast.FuncCall, scope: Scope, described: object, visit: object) -> c_ast.Node:
    """The runtime call of one intrinsic call; ``described`` resolves xmp_desc_of's
    argument, ``visit`` lowers any other argument expression."""
    name = call.name.name
    spec = SPECS[name]
    raw = _args(call)
    ndesc = len(raw) - 1 if name == "xmp_transpose" else len(raw)
    _check_count(name, spec, raw, call)
    args = [_descriptor(name, spec, k, a, scope, described, visit) for k, a in enumerate(raw[:ndesc])]
    _check_arrays(name, args, call)
    where = cbuild.where_literal(loc_of(call))
    if name == "xmp_transpose":
        new = cbuild.expr(f"{spec.entry}({where}, 0, 0, 0)", call.coord)
        new.args.exprs[1:] = [args[0].node, args[1].node, visit(raw[2])]
        return new
    if spec.entry == "_xmpacc_sort":
        new = cbuild.expr(f"{spec.entry}({where}, 0, 0, 0, {int(name == 'xmp_sort_down')})", call.coord)
        new.args.exprs[1:4] = [args[0].node, args[1].node, type_code(args[1].sym)]
        return new
    slots = ", ".join("0" for _ in args)
    new = cbuild.expr(f"{spec.entry}({where}, {len(args)}, (const void *[]){{{slots}}}, "
                      f"(const int []){{{slots}}})", call.coord)
    new.args.exprs[2].init.exprs = [a.node for a in args]
    new.args.exprs[3].init.exprs = [type_code(a.sym) for a in args]
    return new


def _check_count(name: str, spec: Spec, raw: list[c_ast.Node], call: c_ast.FuncCall) -> None:
    if spec.roles[-1] == "i":
        if len(raw) < 3:
            raise XmpError(loc_of(call), f"{name} takes x, a and one index array per dimension of the "
                                         "indexed array (xmp_desc_of each)")
        return
    want = len(spec.roles) + (1 if name == "xmp_transpose" else 0)
    if len(raw) != want:
        what = ", ".join(spec.roles) + (", opt" if name == "xmp_transpose" else "")
        raise XmpError(loc_of(call), f"{name} takes {want} arguments ({what}); {len(raw)} given")


def _descriptor(name: str, spec: Spec, k: int, node: c_ast.Node, scope: Scope, described: object,
                visit: object) -> Arg:
    role = spec.roles[min(k, len(spec.roles) - 1)]
    loc = loc_of(node)
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name == "xmp_desc_of" \
            and node.args is not None and len(node.args.exprs) == 1:
        inner = node.args.exprs[0]
        addr, sym = described(inner, scope)   # type: ignore[operator]
        if sym is None and addr != "0":
            raise XmpError(loc_of(inner), f"{name}: argument {k + 1} ({role}) must be a distributed array; "
                                          f"'{cbuild.to_c(inner)}' is a template or a node array")
        return Arg(cbuild.expr(f"(void *) {addr}", node.coord), sym,
                   elem_type_name(sym) if sym else None, loc)
    return Arg(visit(node), None, None, loc)   # type: ignore[operator]


def _rank(a: Arg, want: int, name: str, what: str) -> None:
    if a.sym is not None and a.sym.ndims != want:
        raise XmpError(a.loc, f"{name}: {what} '{a.sym.name}' has {a.sym.ndims} dimension(s); "
                              f"it must have {want}")


def _same_type(name: str, a: Arg, b: Arg) -> None:
    if a.ctype is not None and b.ctype is not None and a.ctype != b.ctype:
        raise XmpError(b.loc, f"{name}: '{b.sym.name}' has elements of type {b.ctype} but '{a.sym.name}' "   # type: ignore[union-attr]
                              f"of type {a.ctype}; they must be of one type")


def _integer(name: str, a: Arg, what: str) -> None:
    words = _type_words(a.ctype)
    if words is not None and words & _NOT_INTEGER:
        raise XmpError(a.loc, f"{name}: the {what} '{a.sym.name}' has elements of type {a.ctype}; it must be "   # type: ignore[union-attr]
                              "of an integer type")


def _check_arrays(name: str, args: list[Arg], call: c_ast.FuncCall) -> None:
    """Ranks and element types known from the declarations (the runtime checks extents)."""
    if name in ("xmp_gather", "xmp_scatter"):
        x, a, idx = args[0], args[1], args[2:]
        _same_type(name, x, a)
        indexed, shaped = (a, x) if name == "xmp_gather" else (x, a)
        if indexed.sym is not None and len(idx) != indexed.sym.ndims:
            raise XmpError(loc_of(call), f"{name}: '{indexed.sym.name}' has {indexed.sym.ndims} dimension(s) "
                                         f"but {len(idx)} index array(s) are given")
        for i in idx:
            _integer(name, i, "index array")
            if shaped.sym is not None:
                _rank(i, shaped.sym.ndims, name, "the index array")
    elif name in ("xmp_pack", "xmp_unpack"):
        a, v = (args[1], args[0]) if name == "xmp_pack" else (args[0], args[1])
        _same_type(name, a, v)
        _rank(v, 1, name, "the vector")
        _integer(name, args[2], "mask")
        if a.sym is not None:
            _rank(args[2], a.sym.ndims, name, "the mask")
    elif name == "xmp_matmul":
        for a in args:
            _rank(a, 2, name, "the matrix")
            _same_type(name, args[0], a)
    elif name == "xmp_transpose":
        for a in args:
            _rank(a, 2, name, "the matrix")
        _same_type(name, args[0], args[1])
    else:
        for a in args:
            _rank(a, 1, name, "the array")
        _same_type(name, args[0], args[1])
        words = _type_words(args[1].ctype)
        if words is not None and words & _NOT_SORTABLE:
            raise XmpError(args[1].loc, f"{name}: '{args[1].sym.name}' has elements of type {args[1].ctype}; "   # type: ignore[union-attr]
                                        "it sorts integer and floating-point arrays")
