"""Aligned structure members (global-view §8) in GPU loops, for both dialects' kernels
(kernel_gen.py).

On the host an aligned member ``c.a`` is the object's pointer to its local block next to
its descriptor ``c._xmpacc_a_a`` (members.py, structs.py).  A kernel parameter needs an
identifier, so in the kernel body the member becomes a name of its own, and the launch
passes the member's device copy and descriptor by the host key of the member's data
(its descriptor's address, as for any aligned array):

    #pragma acc data copy(c.a)                 kernel:  _XMPACC_KERNEL k(..., int *_xmpacc_mb1_c_a,
    #pragma xmp loop on t[i]                                  _xmpacc_array_t _xmpacc_mbd1_c_a)
    #pragma acc parallel loop                           _xmpacc_mb1_c_a[_XMPACC_G(_xmpacc_mbd1_c_a, 0, i)]
                                                            = ...
    for (i = 0; i < N; i++) c.a[i] = ...       launch:  ... &c._xmpacc_a_a, &c._xmpacc_a_a ...

The number in the name is the object's length, so that ``c_x.a`` and ``c.x_a`` stay apart.
The object is a variable (``c.a``) or a pointer variable (``p->a``): the host evaluates it
at the launch; ``s[k].a`` is a different array for each ``k`` and stays an error
(kernel_vars.py).
"""

from __future__ import annotations

import copy
import dataclasses

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of
from xmpacc.diagnostics import SourceLoc, XmpError, XmpErrors
from xmpacc.passes.common.values import Replicated
from xmpacc.symbols import ArraySym, Scope, bound_member, descriptor_path


@dataclasses.dataclass(frozen=True)
class Member:
    """An aligned member that a kernel body names, bound to its object."""

    sym: ArraySym        # name "c.a", c_name "c._xmpacc_a_a" (host C)
    param: str           # the kernel's name for its data: _xmpacc_mb1_c_a
    descriptor: str      # and for its descriptor: _xmpacc_mbd1_c_a
    loc: SourceLoc       # its first use in the body

    @property
    def key(self) -> str:
        return f"&{self.sym.c_name}"


def _bind(scope: Scope, node: c_ast.Node, obj: str, sep: str, member: str,
          found: dict[str, Member]) -> Member | None:
    path = f"{obj}{sep}{member}"
    if path not in found:
        sym = bound_member(scope, c_ast.ID(obj), sep == "->", member)
        if sym is None:
            return None
        tag = f"{'p' if sep == '->' else ''}{len(obj)}_{obj}_{member}"
        found[path] = Member(sym, f"_xmpacc_mb{tag}", f"_xmpacc_mbd{tag}", loc_of(node))
    return found[path]


def rename(body: c_ast.Node, scope: Scope) -> tuple[c_ast.Node, list[Member]]:
    """A copy of ``body`` in which every aligned member of a variable (``c.a``, ``p->a``)
    and its descriptor are kernel names; the members, in order of first use."""
    found: dict[str, Member] = {}

    def fix(node: c_ast.Node) -> c_ast.Node | None:
        if isinstance(node, c_ast.StructRef) and isinstance(node.field, c_ast.ID):
            obj, sep = node.name, node.type
            if sep == "." and isinstance(obj, c_ast.ArrayRef) and isinstance(obj.subscript, c_ast.Constant) \
                    and obj.subscript.value == "0":   # p[0].a: kernel_deref.py's p->a
                obj, sep = obj.name, "->"
            m = _bind(scope, node, obj.name, sep, node.field.name, found) \
                if isinstance(obj, c_ast.ID) else None
            return None if m is None else c_ast.ID(m.param, node.coord)
        # the descriptor, one ID "c._xmpacc_a_a" as subscripts.py writes it
        if isinstance(node, c_ast.ID) and (hit := descriptor_path(node.name)) is not None:
            m = _bind(scope, node, *hit, found)
            return None if m is None else c_ast.ID(m.descriptor, node.coord)
        return None

    if not any(isinstance(n, c_ast.StructRef) for n in cbuild.walk(body)):
        return body, []
    body = cbuild.transform(copy.deepcopy(body), fix)
    return body, list(found.values())


def device_arrays(members: list[Member], replicated: list[Replicated]) -> list[Replicated]:
    """The kernel's device arrays of ``members``: their device copies (``replicated``),
    under the kernel's names."""
    out, problems = [], []
    for m in members:
        rep = next((r for r in replicated if r.member and r.key == m.key), None)
        if rep is None:
            name = m.sym.name
            problems.append(XmpError(m.loc, f"array '{name}' is used in an acc loop but has no device copy: "
                                            f"put the loop inside '#pragma acc data copy({name})' or "
                                            f"'#pragma xmp acc replicate ({name})'"))
            continue
        out.append(Replicated(m.param, rep.decl,
                              dataclasses.replace(m.sym, name=m.param, c_name=m.descriptor),
                              rep.key, m.sym.name))
    if problems:
        raise XmpErrors(problems)
    return out
