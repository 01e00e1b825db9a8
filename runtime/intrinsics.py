"""The collective intrinsics of XMP (global-view §9, XMP ch. 7): ``Intrinsics``, a concern
of ``api.Runtime``.

Every argument is a distributed array's descriptor (``xmp_desc_of``); each intrinsic has
the meaning of its Fortran equivalent on the global arrays, with C's row-major array
element order and 0-based indices, and is collective over the executing node set:

    xmp_gather(x, a, i1..in)   x[k] = a[i1[k]]...[in[k]]          (owners of x ask)
    xmp_scatter(x, a, i1..in)  x[i1[k]]...[in[k]] = a[k]          (owners of a send; of
                                                                   several writes of one
                                                                   element the last wins)
    xmp_pack(v, a, mask)       v[0:count] = a where mask != 0     (rest of v unchanged)
    xmp_unpack(a, v, mask)     a where mask != 0 = v[0:count]     (rest of a unchanged)
    xmp_transpose(dst, src, o) dst[i][j] = src[j][i]              (src is never changed)
    xmp_matmul(c, a, b)        c = a b                            (intrinsic_matmul.py)
    xmp_sort_up/down(d, s)     d = s sorted                       (intrinsic_sort.py)

Index and mask arrays are first moved onto the mapping of the array they index
(``intrinsic_data.move``); pack and unpack rank the selected elements on a row-block
partition of the global element order, so no node ever holds more than its share.
Element types come from the call site (``_XMPACC_TYPE``; 0 when the descriptor was not
written ``xmp_desc_of(name)`` there: sort and matmul then read the type that xmp_desc_of
recorded in the descriptor), sizes from the descriptors.  Arrays on a node array with '*'
in its reference (one node array per row of another) run the intrinsic per node array.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .arrays import read_ints
from .collectives import DTYPES
from .cstructs import CArray
from .dynamic import Dynamic
from .errors import RuntimeFailure, where_text
from .intrinsic_data import Global, Group, Index, Route, deliver, like, move, of_array
from .intrinsic_matmul import matmul
from .intrinsic_sort import sort
from .sections import shape_text
from .shared import Shared

_ROLES = {"gather": ("x", "a"), "scatter": ("x", "a"), "pack": ("v", "a", "mask"),
          "unpack": ("a", "v", "mask"), "matmul": ("c", "a", "b")}


class Intrinsics:
    """xmp_gather ... xmp_sort_down; no state of their own.  ``dynamic`` finds the arrays
    of descriptors (aligned pointers too)."""

    def __init__(self, shared: Shared, dynamic: Dynamic) -> None:
        self.shared, self.dynamic = shared, dynamic
        self.world = shared.world

    # ------------------------------------------------------------------ arguments
    def _intrinsic_args(self, what: str, where: bytes, n: int, descs: int, types: int | None,
                        recorded: bool = False) -> tuple[str, Group, list[Global]]:
        """``recorded``: a descriptor held in a variable (type code 0) takes the element type
        that xmp_desc_of recorded in it (sort and matmul compute on values; the others
        move bytes, and mixing typed and raw arrays there would convert values)."""
        w = where_text(where)
        ptrs = list((ctypes.c_void_p * n).from_address(descs)) if n else []
        codes = read_ints(types, n) if types else [0] * n
        if recorded:
            codes = [CArray.from_address(int(p)).elem_type if c == 0 and p else c
                     for p, c in zip(ptrs, codes, strict=True)]
        comm, family = self._family_comm(what, w, ptrs)
        group = Group.of(comm, self.world)
        roles = _ROLES.get(what, ())
        out = []
        for k, (ptr, code) in enumerate(zip(ptrs, codes, strict=True)):
            role = roles[k] if k < len(roles) else f"i{k - len(roles) + 1}"
            out.append(self._intrinsic_array(what, w, int(ptr or 0), code, k + 1, role, family))
        self.shared.count(f"xmp_{what}")
        return w, group, out

    def _family_comm(self, what: str, w: str, ptrs: list[Any]) -> tuple[Any, tuple[int, ...] | None]:
        """The executing nodes' communicator, or, when the arrays are on a node array with
        '*' in its reference (``nodes row[*] = g[*][:]``: a node array per row), the
        nodes of my one: each such node array runs the intrinsic on its own arrays."""
        arrays = [self.dynamic.find_array(int(p)) for p in ptrs if p]
        sets = {a.template.nodes.all_families() for a in arrays if a is not None}
        if not any(len(s) > 1 for s in sets):
            return self.shared.exec_comm, None
        if len(sets) > 1:
            raise RuntimeFailure(w, f"xmp_{what}: arrays on a node array with '*' in its nodes reference (a "
                                    "different set of nodes on different nodes) together with arrays on "
                                    "other node arrays: not supported yet", collective=self.shared.everyone())
        families = next(iter(sets))
        nodes = next(a for a in arrays if a is not None).template.nodes
        if nodes.family is None:
            raise RuntimeFailure(w, f"xmp_{what}: node {self.world.Get_rank()} executes it but is in none of "
                                    f"the node arrays of '{nodes.name}'")
        color = families.index(nodes.family)
        executing = self.shared.exec_comm
        comm = self.shared.cache.split(executing, ("intrinsic-family", hash(families)), color,
                                       executing.Get_rank())
        return comm, nodes.family

    def _intrinsic_array(self, what: str, w: str, ptr: int, code: int, pos: int, role: str,
                         family: tuple[int, ...] | None = None) -> Global:
        everyone = self.shared.everyone()
        arr = self.dynamic.find_array(ptr) if ptr else None
        if arr is None:
            if ptr in self.dynamic.pointers:
                raise self.dynamic.not_ready(ptr, w, collective=everyone)
            kind = ("a NULL descriptor" if not ptr
                    else "the descriptor of a template" if ptr in self.shared.templates
                    else "the descriptor of a node array" if ptr in self.shared.nodes
                    else "not the descriptor of a distributed array")
            raise RuntimeFailure(w, f"xmp_{what}: argument {pos} ({role}) is {kind}; it takes "
                                    "xmp_desc_of(array) of an aligned array", collective=everyone)
        dtype = np.dtype(DTYPES[code]) if code in DTYPES else None
        return of_array(arr, dtype, w, family)

    def _fail(self, w: str, message: str) -> RuntimeFailure:
        return RuntimeFailure(w, message, collective=self.shared.everyone())

    def _same_shape(self, w: str, what: str, a: Global, b: Global) -> None:
        if a.shape != b.shape:
            raise self._fail(w, f"xmp_{what}: '{a.name}' has shape {shape_text(a.shape)} but '{b.name}' has "
                                f"shape {shape_text(b.shape)}; they must be the same")

    def _same_elements(self, w: str, what: str, a: Global, b: Global) -> None:
        if a.dtype.itemsize != b.dtype.itemsize:
            raise self._fail(w, f"xmp_{what}: elements of '{a.name}' have {a.dtype.itemsize} bytes but those "
                                f"of '{b.name}' {b.dtype.itemsize}; they must be of one type")

    def _integers(self, w: str, what: str, g: Global, role: str) -> None:
        if g.dtype.kind not in "iub":
            raise self._fail(w, f"xmp_{what}: the {role} '{g.name}' must be an array of an integer type")

    def _aligned_copy(self, w: str, src: Global, onto: Global, group: Group) -> Global:
        """``src`` (an index or mask array of ``onto``'s shape) on ``onto``'s mapping."""
        out = like(onto, src.name, src.dtype)
        move(src, out, group, self.world.Get_rank(), w)
        return out

    # ------------------------------------------------------------------ gather / scatter
    def _index_arrays(self, w: str, what: str, array: Global, shaped: Global, idx: list[Global]) -> None:
        if len(idx) != len(array.shape):
            raise self._fail(w, f"xmp_{what}: '{array.name}' has {len(array.shape)} dimension(s) but "
                                f"{len(idx)} index array(s) were given")
        for g in idx:
            self._integers(w, what, g, "index array")
            self._same_shape(w, what, shaped, g)

    def _targets(self, w: str, what: str, array: Global, idx: list[Global], at: np.ndarray,
                 where_in: Index) -> Index:
        """The indices of ``array`` that the (aligned) index arrays give at offsets ``at``;
        a value outside its dimension ends the job naming it."""
        out = []
        for d, g in enumerate(idx):
            v = g.values()[at].astype(np.int64)
            bad = np.flatnonzero((v < 0) | (v >= array.shape[d]))
            if len(bad):
                k = int(bad[0])
                pos = "".join(f"[{int(i[k])}]" for i in where_in)
                raise RuntimeFailure(w, f"xmp_{what}: {g.name}{pos} = {int(v[k])} is outside dimension {d} "
                                        f"of '{array.name}' (0..{array.shape[d] - 1})")
            out.append(v)
        return out

    def _xmpacc_gather(self, where: bytes, n: int, descs: int, types: int | None) -> None:
        w, group, (x, a, *idx) = self._intrinsic_args("gather", where, n, descs, types)
        self._same_elements(w, "gather", x, a)
        self._index_arrays(w, "gather", a, x, idx)
        aligned = [self._aligned_copy(w, g, x, group) for g in idx]
        mine, off = x.held(x.lin(self.world.Get_rank()))
        want = self._targets(w, "gather", a, aligned, off, mine)
        holder = a.source(want, self.world.Get_rank(), group, w)
        dest = group.inverse[a.family[holder]]
        at = a.offsets_at(want, holder[:, None])[:, 0]
        route = Route(group.comm, dest)
        (asked,) = route.send(at)
        (got,) = route.back(a.values()[asked])
        x.values()[off] = got

    def _xmpacc_scatter(self, where: bytes, n: int, descs: int, types: int | None) -> None:
        w, group, (x, a, *idx) = self._intrinsic_args("scatter", where, n, descs, types)
        self._same_elements(w, "scatter", x, a)
        self._index_arrays(w, "scatter", x, a, idx)
        aligned = [self._aligned_copy(w, g, a, group) for g in idx]
        mine, off = a.sent(self.world.Get_rank(), group, w)
        target = self._targets(w, "scatter", x, aligned, off, mine)
        order = np.ravel_multi_index(mine, a.shape) if len(off) else np.zeros(0, dtype=np.int64)
        deliver(x, target, a.values()[off], group, w, order=np.asarray(order, dtype=np.int64))

    # ------------------------------------------------------------------ pack / unpack
    def _selected(self, w: str, what: str, a: Global,
                  mask: Global, group: Group) -> tuple[np.ndarray, np.ndarray]:
        """Row-major numbers and local offsets of the elements of ``a`` this node sends
        (one holder each) whose mask is true."""
        self._integers(w, what, mask, "mask")
        self._same_shape(w, what, a, mask)
        on_a = self._aligned_copy(w, mask, a, group)
        mine, off = a.sent(self.world.Get_rank(), group, w)
        keep = on_a.values()[off] != 0
        lin = np.ravel_multi_index([i[keep] for i in mine], a.shape) if keep.any() else np.zeros(0, np.int64)
        return np.asarray(lin, dtype=np.int64), off[keep]

    def _ranked(self, w: str, what: str, lin: np.ndarray, size: int, v: Global, mask: Global,
                group: Group, *values: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """Selected elements moved to the row blocks of the element order and numbered
        there: (element numbers, their ranks among the selected, the values)."""
        p = group.size
        block = -(-size // p)
        got = Route(group.comm, lin // block).send(lin, *values)
        order = np.argsort(got[0], kind="stable")
        got = [c[order] for c in got]
        count = len(got[0])
        first = group.comm.exscan(count) or 0
        total = group.comm.allreduce(count)
        if total > v.size:
            raise self._fail(w, f"xmp_{what}: '{mask.name}' has {total} true elements but "
                                f"'{v.name}' has only {v.size}")
        return got[0], first + np.arange(count, dtype=np.int64), got[1:]

    def _xmpacc_pack(self, where: bytes, n: int, descs: int, types: int | None) -> None:
        w, group, (v, a, mask) = self._intrinsic_args("pack", where, n, descs, types)
        self._same_elements(w, "pack", v, a)
        lin, off = self._selected(w, "pack", a, mask, group)
        _, rank, (vals,) = self._ranked(w, "pack", lin, a.size, v, mask, group, a.values()[off])
        deliver(v, [rank], vals, group, w)

    def _xmpacc_unpack(self, where: bytes, n: int, descs: int, types: int | None) -> None:
        w, group, (a, v, mask) = self._intrinsic_args("unpack", where, n, descs, types)
        self._same_elements(w, "unpack", a, v)
        lin, _off = self._selected(w, "unpack", a, mask, group)
        lin, rank, _ = self._ranked(w, "unpack", lin, a.size, v, mask, group)
        holder = v.source([rank], self.world.Get_rank(), group, w)
        route = Route(group.comm, group.inverse[v.family[holder]])
        (asked,) = route.send(v.offsets_at([rank], holder[:, None])[:, 0])
        (vals,) = route.back(v.values()[asked])
        idx = list(np.unravel_index(lin, a.shape)) if len(lin) else [np.zeros(0, np.int64) for _ in a.shape]
        deliver(a, [np.asarray(i, dtype=np.int64) for i in idx], vals, group, w)

    # ------------------------------------------------------------------ transpose, matmul, sort
    def _xmpacc_transpose(self, where: bytes, dst_ptr: int, src_ptr: int, opt: int) -> None:
        descs = (ctypes.c_void_p * 2)(dst_ptr, src_ptr)
        w, group, (dst, src) = self._intrinsic_args("transpose", where, 2, ctypes.addressof(descs), None)
        self._same_elements(w, "transpose", dst, src)
        if len(src.shape) != 2 or dst.shape != src.shape[::-1]:
            raise self._fail(w, f"xmp_transpose: '{dst.name}' has shape {shape_text(dst.shape)} but the "
                                f"transpose of '{src.name}' (shape {shape_text(src.shape)}) has shape "
                                f"{shape_text(src.shape[::-1])}")
        if opt not in (0, 1):
            raise self._fail(w, f"xmp_transpose: the option is {opt}; it must be 0 or 1")
        move(src, dst, group, self.world.Get_rank(), w, lambda idx: idx[::-1])

    def _xmpacc_matmul(self, where: bytes, n: int, descs: int, types: int | None) -> None:
        w, group, (c, a, b) = self._intrinsic_args("matmul", where, n, descs, types, recorded=True)
        for g in (a, b):
            self._same_elements(w, "matmul", c, g)
        for g in (c, a, b):
            if g.dtype.kind not in "iufc":
                raise self._fail(w, f"xmp_matmul: the element type of '{g.name}' is not known here (its "
                                    "descriptor did not come from xmp_desc_of) or is not arithmetic")
        if len(a.shape) != 2 or len(b.shape) != 2 or len(c.shape) != 2 or a.shape[1] != b.shape[0] \
                or c.shape != (a.shape[0], b.shape[1]):
            raise self._fail(w, f"xmp_matmul: shapes do not conform: '{c.name}' {shape_text(c.shape)} = "
                                f"'{a.name}' {shape_text(a.shape)} x '{b.name}' {shape_text(b.shape)}")
        matmul(c, a, b, group, self.world.Get_rank(), w)

    def _xmpacc_sort(self, where: bytes, dst_ptr: int, src_ptr: int, code: int, descending: int) -> None:
        what = "sort_down" if descending else "sort_up"
        descs = (ctypes.c_void_p * 2)(dst_ptr, src_ptr)
        if code == 0 and src_ptr:   # src held in a variable: the type its xmp_desc_of recorded
            code = CArray.from_address(src_ptr).elem_type
        codes = (ctypes.c_int * 2)(code, code)
        w, group, (dst, src) = self._intrinsic_args(what, where, 2, ctypes.addressof(descs),
                                                    ctypes.addressof(codes))
        self._same_elements(w, what, dst, src)
        if len(src.shape) != 1 or dst.shape != src.shape:
            raise self._fail(w, f"xmp_{what}: '{dst.name}' {shape_text(dst.shape)} and '{src.name}' "
                                f"{shape_text(src.shape)} must be one-dimensional arrays of one size")
        if src.dtype.kind not in "iuf":
            raise self._fail(w, f"xmp_{what}: the element type of '{src.name}' is not known here "
                                "(its descriptor did not come from xmp_desc_of) or is not an "
                                "integer or floating type")
        sort(dst, src, bool(descending), group, self.world.Get_rank(), w)
