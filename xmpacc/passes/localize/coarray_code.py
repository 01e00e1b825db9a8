"""C code of coarray accesses and local-view directives (global-view §11), for the pass
``coarrays``.  Every builder returns pycparser nodes of runtime calls (``contract.py``):

    x = a[i]:[k] + 1;       x = (*(int *) _xmpacc_coarray_get_elem((void *) a, "f.c:9",
                                  (const long long []){1, (k)}, (const void *) &a[i],
                                  (long long) sizeof(int))) + 1;
    a[i]:[k] = v;           { int _xmpacc_v = v; _xmpacc_coarray_put_elem(..., (const void *) &a[i],
                                                   (const void *) &_xmpacc_v, (long long) sizeof(int)); }
    a[0:5]:[k] = b[2:5];    _xmpacc_coarray_put((void *) a, "f.c:9", {1, (k)}, <a's section>,
                                                (void *) b, <b's section>);
    #pragma xmp sync_all    _xmpacc_sync_all("f.c:9");

The element of a coindexed reference travels as its address in this image's copy: the
runtime turns it into the same offset in the target image's copy.  Inside ``host_data
use_device(a, b)`` (XcalableACC §5a) a name of the list is its device address, so the
calls of a statement naming one are the ``_acc`` entries with flags saying which sides are
device copies (``COARRAY_ON_DEVICE``: the coarray's, ``LOCAL_ON_DEVICE``: the local one's):

    a[0:5]:[k] = b[2:5];    _xmpacc_coarray_put_acc((void *) a, ..., (void *) b, <b's section>, 3);
    x = a[i]:[k];           x = (*(int *) _xmpacc_coarray_get_elem_acc((void *) a, ...));
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast
from pycparser.c_parser import Coord

from xmpacc import cbuild
from xmpacc.cbuild import array_base, loc_of
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives import ast as xd
from xmpacc.directives import local_view_ast as lv
from xmpacc.frontend.coarrays import COINDEX, STAR
from xmpacc.passes.common import onrefs
from xmpacc.passes.common.coindex import Coarray, coarray_of, coindex_args, is_coindex
from xmpacc.runtime.contract import LOCAL_ON_DEVICE
from xmpacc.section_code import (
    Hoister,
    Operand,
    base_address,
    conform,
    const,
    encode,
    operand_of,
    resolve,
    shape,
    whole,
    written,
)
from xmpacc.sections import section
from xmpacc.symbols import Scope, TemplateSym


@dataclass
class CoRef:
    """A coindexed reference ``a[...]:[k...]`` of the C code, resolved."""

    coarray: Coarray
    local: c_ast.Node          # the reference without its image: a[...] (or s)
    image: list[c_ast.Node]
    loc: SourceLoc

    @property
    def name(self) -> str:
        return self.coarray.name


def coref(node: c_ast.Node, scope: Scope, coarrays: dict[str, Coarray]) -> CoRef | None:
    """The coindexed reference ``node`` is (None: it is none); mistakes are XmpErrors."""
    if not (isinstance(node, c_ast.ArrayRef) and is_coindex(node.subscript)):
        return None
    root = array_base(node.name)
    loc = loc_of(node)
    if not isinstance(root, c_ast.ID):
        raise XmpError(loc, "a coindexed reference must name a coarray ('a[i]:[k]'); structure members "
                            "and pointers are not supported yet")
    co = coarray_of(root.name, scope, coarrays)
    if co is None:
        raise XmpError(loc_of(root), f"'{root.name}' is not a coarray: declare it as '{root.name}[...]:[*]'")
    image = coindex_args(node.subscript)
    if len(image) != len(co.codims):
        raise XmpError(loc, f"coarray '{co.name}' has {len(co.codims)} codimension(s) but {len(image)} "
                            f"image index(es) are given")
    for k in image:
        if isinstance(k, c_ast.ID) and k.name == STAR:
            raise XmpError(loc, "'*' is not an image index: name one image ('a[i]:[k]')")
        if (v := const(k)) is not None and v < 0:
            raise XmpError(loc, f"image index {v} of coarray '{co.name}' is negative (images are 0-based)")
    return CoRef(co, node.name, image, loc)


def _image(ref: CoRef) -> str:
    return "(const long long []){" + ", ".join([str(len(ref.image))]
                                               + [f"({cbuild.to_c(k)})" for k in ref.image]) + "}"


def _operand(ref: CoRef, scope: Scope) -> Operand:
    op = operand_of(ref.local, scope)
    if op is None:  # pragma: no cover - coref checked the root
        raise XmpError(ref.loc, f"bad reference to coarray '{ref.name}'")
    if op.is_array and not op.subs:
        return whole(op)    # 'a:[k]' is the whole array
    return op


def is_element(ref: CoRef, scope: Scope) -> bool:
    op = _operand(ref, scope)
    if section(op.node) is None and op.rank == 0 and len(op.subs) != len(op.extents):
        raise XmpError(ref.loc, f"'{written(ref.local)}:[...]' names part of coarray '{ref.name}': "
                                f"give every subscript, or a section ('{ref.name}[0:n]:[k]')")
    return op.rank == 0


def _args(ref: CoRef, op: Operand) -> str:
    """coarray base, where, image, element address (C text)."""
    base = f"(void *) {ref.name}" if op.is_array else f"(void *) &{ref.name}"
    return f"{base}, {cbuild.where_literal(ref.loc)}, {_image(ref)}, (const void *) &{cbuild.to_c(ref.local)}"


def get_elem(ref: CoRef, scope: Scope, device: bool = False) -> c_ast.Node:
    """The value of a coindexed element, as an expression (``device``: of the coarray's
    device copy on that image)."""
    op = _operand(ref, scope)
    t = op.elem_type
    entry = "_xmpacc_coarray_get_elem_acc" if device else "_xmpacc_coarray_get_elem"
    node = cbuild.expr(f"(*({t} *) {entry}({_args(ref, op)}, (long long) sizeof({t})))")
    _locate(node, ref.loc)
    return node


def put_elem(ref: CoRef, value: c_ast.Node, scope: Scope, coord: object) -> c_ast.Compound:
    op = _operand(ref, scope)
    t = op.elem_type
    items = cbuild.stmts(f"{t} _xmpacc_v; _xmpacc_coarray_put_elem({_args(ref, op)}, "
                         f"(const void *) &_xmpacc_v, (long long) sizeof({t}));", coord)
    items[0].init = value
    _locate(items[1], ref.loc)
    return c_ast.Compound(items, coord)


def _locate(node: c_ast.Node, loc: SourceLoc) -> None:
    """Generated code at the reference's place (for #line and the C compiler's messages)."""
    coord = Coord(loc.file, loc.line, loc.col)
    for n in cbuild.walk(node):
        if n.coord is None or getattr(n.coord, "file", None) in (None, ""):
            n.coord = coord


def transfer(ref: CoRef, local: c_ast.Node | None, put: bool, scope: Scope, coord: object,
             value: c_ast.Node | None = None, flags: int = 0) -> c_ast.Compound:
    """A section put (``a[s]:[k] = local``) or get (``local = a[s]:[k]``); ``value``: a scalar
    expression put into every element (``local`` None); ``flags``: which sides are device
    copies (``host_data use_device``), 0 for none."""
    h = Hoister(cbuild.where_literal(ref.loc), coord)
    remote = _operand(ref, scope)
    rsubs = resolve(remote, h)
    items: list[c_ast.Node] = []
    if local is None:
        flags &= ~LOCAL_ON_DEVICE   # the value is a host temporary
        decl = cbuild.stmt(f"{remote.elem_type} _xmpacc_v;", coord)
        decl.init = value
        items.append(decl)
        local_base, local_sec = ("(const void *) &_xmpacc_v",
                                 f"(const long long []){{0, sizeof({remote.elem_type})}}")
    else:
        mine = operand_of(local, scope)
        if mine is None:
            raise XmpError(loc_of(local), f"the other side of a coarray {'put' if put else 'get'} must be "
                                          "a variable, an element or a section of a local array")
        if mine.sym is not None:
            raise XmpError(mine.loc, f"'{mine.name}' is distributed: a coarray put/get with a distributed "
                                     "array is not supported yet; use a local array")
        lsubs = resolve(mine, h) if mine.subs else []
        if shape(lsubs) and shape(rsubs):
            conform(written(ref.local), shape(rsubs), mine.name, shape(lsubs), mine.loc, h)
        elif shape(lsubs) and put:
            raise XmpError(mine.loc, f"shapes do not conform: a section of '{mine.name}' cannot be "
                                     f"put into the element '{written(ref.local)}' of coarray '{ref.name}'")
        local_base, local_sec = base_address(mine), encode(mine, lsubs, h)
    op = remote
    base = f"(void *) {ref.name}" if op.is_array else f"(void *) &{ref.name}"
    call = ("_xmpacc_coarray_put" if put else "_xmpacc_coarray_get") + ("_acc" if flags else "")
    last = f", {flags}" if flags else ""
    items += cbuild.stmts(f"{call}({base}, {h.where}, {_image(ref)}, {encode(remote, rsubs, h)}, "
                          f"{local_base}, {local_sec}{last});", coord)
    body = h.decls + h.checks + items
    for item in body:
        cbuild.set_coord(item, coord)
    return c_ast.Compound(body, coord)


# ---------------------------------------------------------------- directives


def directive_calls(d: object, scope: Scope, coarrays: dict[str, Coarray], coord: object) -> list[c_ast.Node]:
    where = cbuild.where_literal(d.loc)  # type: ignore[attr-defined]
    if isinstance(d, lv.SyncAll):
        return cbuild.stmts(f"_xmpacc_sync_all({where});", coord)
    if isinstance(d, lv.SyncMemory):
        return cbuild.stmts(f"_xmpacc_sync_memory({where});", coord)
    if isinstance(d, lv.SyncImages):
        if d.images is None:
            return cbuild.stmts(f"_xmpacc_sync_images({where}, -1, 0);", coord)
        images = ", ".join(f"({e.text})" for e in d.images)
        return cbuild.stmts(f"_xmpacc_sync_images({where}, {len(d.images)}, "
                            f"(const long long []){{{images}}});", coord)
    if isinstance(d, lv.Post):
        nodes, ref = _node(d.node, scope, "post")
        return cbuild.stmts(f"_xmpacc_post({where}, {nodes}, {ref}, (long long) ({d.tag.text}));", coord)
    if isinstance(d, lv.Wait):
        nodes, ref = _node(d.node, scope, "wait") if d.node is not None else ("0", "0")
        tag = f"1, (long long) ({d.tag.text})" if d.tag is not None else "0, 0"
        return cbuild.stmts(f"_xmpacc_wait({where}, {nodes}, {ref}, {tag});", coord)
    if isinstance(d, lv.Critical):
        return cbuild.stmts(f"_xmpacc_critical({where}, {int(d.end)});", coord)
    if isinstance(d, lv.CoLock):
        return [_lock(d, scope, coarrays, coord)]
    if isinstance(d, lv.CoarrayDirective):
        raise XmpError(d.loc, "the 'coarray' directive in a function is not supported yet: put it at "
                              "file scope, after the declaration")
    raise XmpError(d.loc, "this local-view directive is not supported yet")  # type: ignore[attr-defined]


def _node(ref: xd.Ref, scope: Scope, what: str) -> tuple[str, str]:
    sym = onrefs.lookup(ref.name, scope)
    if isinstance(sym, TemplateSym):
        raise XmpError(ref.loc, f"'{what}' needs a node reference ('p[k]'), not template '{sym.name}'")
    return onrefs.on_ref(ref, scope, single=True)


def _lock(d: lv.CoLock, scope: Scope, coarrays: dict[str, Coarray], coord: object) -> c_ast.Node:
    """lock / unlock (l[i]:[k]): the directive's reference read back as C, then checked."""
    t = d.target
    at = Coord(t.loc.file, t.loc.line, t.loc.col)
    node: c_ast.Node = c_ast.ID(t.name.name, Coord(t.name.loc.file, t.name.loc.line, t.name.loc.col))
    for sub in t.subs:
        node = c_ast.ArrayRef(node, cbuild.expr(sub.text, at), at)
    image = c_ast.ExprList([cbuild.expr(k.text, at) for k in t.image])
    ref = coref(c_ast.ArrayRef(node, c_ast.FuncCall(c_ast.ID(COINDEX), image, at), at), scope, coarrays)
    assert ref is not None
    ref.loc = t.loc
    op = _operand(ref, scope)
    if op.elem_type != "xmp_lock_t":
        raise XmpError(t.name.loc,
                       f"'{t.name.name}' is not a coarray of xmp_lock_t (it holds {op.elem_type})")
    if not is_element(ref, scope):
        raise XmpError(t.loc, f"'lock' and 'unlock' take one lock, not a section of '{t.name.name}'")
    return cbuild.stmt(f"_xmpacc_coarray_lock({_args(ref, op)}, {int(d.release)});", coord)
