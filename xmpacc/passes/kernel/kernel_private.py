"""Each thread's private arrays in a kernel (OpenACC ``private``/``firstprivate`` of
subarrays and arrays), for both dialects' kernels (kernel_gen.py).

Where the size is a constant, the thread declares the array itself (registers or local
memory)::

    private(p[0:4]) of double *p          ->  double p[4];
    firstprivate(c[1:3]) of double *c     ->  double c[4]; copied from c[1] on of the device copy

Where it is known only at run time (``private(p[0:n])``, ``private(t)`` of ``double t[m]``)
the kernel cannot declare it: NVRTC's C++ has no variable-length arrays, and a GPU thread
has no heap worth using.  Each thread then takes its slot of a scratch buffer that the
runtime allocates per launch (LAUNCH_SCRATCH: one slot per thread id on a GPU, one slot on
the host backend, whose threads run one after another); the host measures the slot at the
launch::

    kernel: (..., double *_xmpacc_pv_p, long long _xmpacc_pn_p)
            double *p = _xmpacc_pv_p + _XMPACC_SCRATCH_SLOT * _xmpacc_pn_p;

A firstprivate one also takes its first element's index and copies the elements from
there on from the device copy, as the constant case does.  Where the rows have variable
lengths too (``double t[n][m]``), the slot holds elements and kernel_vla.py declares the
name over it, with the row lengths the host measures.

A distributed array in a private or firstprivate clause is, as in a data clause
(XcalableACC.md §1), its node's local block with shadows: each thread's slot holds one
(``local_elems`` of the host descriptor), and the array's parameter is pointed at the
slot before it is rebased, so the body's subscripts (global indices through the
descriptor) stay as they are; a firstprivate one first copies the block from the device
copy (present, or copied in by the construct)::

    double *_xmpacc_pw_w = _xmpacc_pv_w + _XMPACC_SCRATCH_SLOT * _xmpacc_pn_w;
    _xmpacc_copy_bytes(_xmpacc_pw_w, w, _xmpacc_pn_w * sizeof(_xmpacc_pw_w[0]));
    w = _xmpacc_pw_w;
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.directives.exprs import int_value, plus
from xmpacc.kernel_types import Typedefs, variable_length
from xmpacc.passes.common.values import KernelVars, Param
from xmpacc.passes.kernel import kernel_vla
from xmpacc.passes.kernel.kernel_vla import Rows
from xmpacc.passes.kernel.kernels import pointer_to
from xmpacc.runtime.contract import LAUNCH_SCRATCH, LAUNCH_VALUE


@dataclass(frozen=True, slots=True)
class Scratch:
    """A private array of a size known at run time: its slot of the launch's scratch."""

    name: str
    elem: c_ast.Node      # the type of name[0] (an element, or a row of constant lengths)
    count: str            # C, in the host's scope: name[0]s per thread
    first: str | None     # firstprivate: C, the first name[0] copied from the device copy
    rows: Rows | None     # rows of variable lengths (kernel_vla.py): the slot holds elements
    block: str | None = None   # a distributed array's local block: its host descriptor


def private_arrays(kv: KernelVars, lengths: dict[str, str], sections: dict[str, tuple[str, str]],
                   typedefs: Typedefs) -> list[Scratch]:
    """Make the private arrays of ``kv`` each thread's: ``lengths`` of the pointers a
    private clause names by a subarray (elements from 0), ``sections`` (base, length)
    of those a firstprivate clause names so.  Returns those that live in scratch and
    takes them out of ``kv.private`` and ``kv.firstprivate_arrays``."""
    scratch: list[Scratch] = []
    private = []
    for name, decl in kv.private:
        count = lengths.get(name)
        if count is not None and int_value(count) is not None:
            private.append((name, _fixed(decl, int(count))))
        elif count is not None:
            scratch.append(_scratch(name, decl, count, None, typedefs))
        elif variable_length(decl, typedefs.constants):
            scratch.append(_scratch(name, decl, _whole(name), None, typedefs))
        else:
            private.append((name, decl))
    kv.private = private
    firsts = []
    for name, decl, first in kv.firstprivate_arrays:   # C arrays, from their device copy
        if variable_length(decl, typedefs.constants):
            scratch.append(_scratch(name, decl, _whole(name), "0", typedefs))
        else:
            firsts.append((name, decl, first))
    kv.firstprivate_arrays = firsts
    for name, first in kv.private_blocks:
        rep = next(r for r in kv.arrays if r.name == name and r.array is not None)
        desc = rep.array.c_name
        scratch.append(Scratch(name, rep.array.elem_type, f"{desc}.local_elems",
                               "0" if first else None, None, desc))
    for n, rep in enumerate(kv.arrays):   # pointers by a subarray
        if rep.name in sections and rep.array is None:
            base, length = sections[rep.name]
            count = plus(base, length)
            if int_value(count) is not None:
                kv.firstprivate_arrays.append((rep.name, _fixed(rep.decl, int(count)), int(base)))
            else:
                scratch.append(_scratch(rep.name, rep.decl, count, base, typedefs))
            kv.arrays[n] = replace(rep, name=f"_xmpacc_fp_{rep.name}")
    return scratch


def params(scratch: list[Scratch]) -> list[Param]:
    """Per array: the scratch (the bytes per thread at its address: the runtime allocates a
    slot per thread, and a launch of another size another buffer), its elements per
    thread, for a firstprivate one the first element copied, for rows of variable lengths
    their extents.  Counted in the slot's units: name[0]s, or elements for such rows."""
    out = []
    for s in scratch:
        unit = f" * {kernel_vla.elements(s.rows)}" if s.rows is not None else ""
        count = f"(long long) ({s.count}){unit}"
        size = f"{s.block}.elem_size" if s.block is not None else f"(long long) sizeof({s.name}[0])"
        out.append(Param(_buffer(s), pointer_to(_slot_type(s), _buffer(s)),
                         f"&(long long){{(long long) ({s.count}) * {size}}}", LAUNCH_SCRATCH))
        out.append(_value(f"_xmpacc_pn_{s.name}", count))
        if s.first is not None and s.block is None:
            out.append(_value(f"_xmpacc_pb_{s.name}", f"(long long) ({s.first}){unit}"))
        if s.rows is not None:
            out += kernel_vla.extent_params(s.rows)
    return out


def prologue(scratch: list[Scratch]) -> list[str]:
    """Each thread's pointer to its slot; a firstprivate one's elements from the device
    copy; rows of variable lengths declared again over the slot (kernel_vla.py)."""
    out = []
    for s in scratch:
        if s.block is not None:
            continue
        n = f"_xmpacc_pn_{s.name}"
        to = kernel_vla.flat(s.rows) if s.rows is not None else s.name
        out.append(f"{pointer_to(_slot_type(s), to)} = {_buffer(s)} + _XMPACC_SCRATCH_SLOT * {n};")
        if s.first is not None:
            b = f"_xmpacc_pb_{s.name}"
            source = f"_xmpacc_fp_{s.name}"
            if s.rows is not None:   # the device copy's parameter is its elements' address too
                source = kernel_vla.flat(replace(s.rows, name=source))
            out.append(f"_xmpacc_copy_bytes({to} + {b}, {source} + {b}, ({n} - {b}) * sizeof({to}[0]));")
        if s.rows is not None:
            out += kernel_vla.prologue([s.rows])
    return out


def block_prologue(scratch: list[Scratch]) -> list[str]:
    """Each private distributed array's parameter pointed at the thread's slot, a
    firstprivate one's block copied there first; before kernels.rebase_prologue moves
    the parameter back by the block's offset."""
    out = []
    for s in scratch:
        if s.block is None:
            continue
        n, slot = f"_xmpacc_pn_{s.name}", f"_xmpacc_pw_{s.name}"
        out.append(f"{pointer_to(s.elem, slot)} = {_buffer(s)} + _XMPACC_SCRATCH_SLOT * {n};")
        if s.first is not None:
            out.append(f"_xmpacc_copy_bytes({slot}, {s.name}, {n} * sizeof({slot}[0]));")
        out.append(f"{s.name} = {slot};")
    return out


def _scratch(name: str, decl: c_ast.Decl, count: str, first: str | None, typedefs: Typedefs) -> Scratch:
    return Scratch(name, decl.type.type, count, first, kernel_vla.rows(name, name, decl, typedefs.constants))


def _whole(name: str) -> str:
    """A variable-length array's name[0]s (its first dimension, as declared)."""
    return cbuild.extent_of(name, 0, 1)


def _slot_type(s: Scratch) -> c_ast.Node:
    """What the slot's pointer points to: name[0], or the element under rows of variable lengths."""
    return s.rows.elem if s.rows is not None else s.elem


def _fixed(decl: c_ast.Decl, length: int) -> c_ast.Decl:
    """A pointer privatised by a subarray: the thread's array of ``length`` elements."""
    pointee = copy.deepcopy(decl.type.type)
    array = c_ast.ArrayDecl(pointee, c_ast.Constant("int", str(length)), [])
    return c_ast.Decl(decl.name, [], [], [], [], array, None, None)


def _buffer(s: Scratch) -> str:
    return f"_xmpacc_pv_{s.name}"


def _value(name: str, host: str) -> Param:
    return Param(name, f"long long {name}", f"&(long long){{{host}}}", LAUNCH_VALUE, "sizeof(long long)")
