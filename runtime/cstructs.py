"""ctypes mirrors of include/xmpacc_types.h.

The runtime fills these descriptors and hands their addresses to generated code, which only
reads them.  ``layout_mismatches`` compiles a small C program that prints the C sizes and
offsets and compares them with the ctypes layouts; a test runs it.
"""

from __future__ import annotations

import ctypes
import subprocess
import tempfile
from collections.abc import Mapping
from ctypes import POINTER, Structure, c_double, c_int, c_longlong, c_void_p
from pathlib import Path

INCLUDE_DIR = Path(__file__).resolve().parent / "include"

# #defines of xmpacc_types.h (values follow xmp.h's XMP_* constants)
MAXDIM = 7
DIST_NONE = 2100
DIST_BLOCK = 2101
DIST_CYCLIC = 2102
DIST_GBLOCK = 2103
DESC_NODES = 0x4E4F      # the id of an initialised descriptor says what it describes
DESC_TEMPLATE = 0x544D
DESC_ARRAY = 0x4152

_DIMS = c_int * MAXDIM


# ctypes mirrors of the C structs of xmpacc_types.h, field by field (alike in shape, not in meaning;
# layout_mismatches() checks them against the C compiler).
class CNodes(Structure):
    """_xmpacc_nodes_t"""

    _fields_ = [
        ("id", c_int),
        ("ndims", c_int),
        ("size", c_int),
        ("is_member", c_int),
        ("extent", _DIMS),
        ("coord", _DIMS),
    ]


class CTDim(Structure):
    """_xmpacc_tdim_t: one template dimension as seen from this node."""

    _fields_ = [
        ("kind", c_int),
        ("node_dim", c_int),
        ("lower", c_longlong),
        ("upper", c_longlong),
        ("width", c_longlong),
        ("nprocs", c_longlong),
        ("coord", c_longlong),
        ("owned_first", c_longlong),
        ("owned_count", c_longlong),
    ]


class CTemplate(Structure):
    """_xmpacc_template_t"""

    _fields_ = [
        ("id", c_int),
        ("ndims", c_int),
        ("distributed", c_int),
        ("fixed", c_int),
        ("nodes", POINTER(CNodes)),
        ("dim", CTDim * MAXDIM),
    ]


class CADim(Structure):
    """_xmpacc_adim_t: one dimension of an aligned array's local buffer."""

    _fields_ = [
        ("tdim", c_int),
        ("kind", c_int),
        ("extent", c_longlong),
        ("offset", c_longlong),
        ("shadow_lo", c_longlong),
        ("shadow_hi", c_longlong),
        ("full_shadow", c_int),
        ("check", c_int),
        ("lext", c_longlong),
        ("gtol", c_longlong),
        ("owned_first", c_longlong),
        ("owned_count", c_longlong),
    ]


class CArray(Structure):
    """_xmpacc_array_t"""

    _fields_ = [
        ("id", c_int),
        ("ndims", c_int),
        ("elem_size", c_longlong),
        ("base", c_void_p),
        ("local_elems", c_longlong),
        ("tmpl", POINTER(CTemplate)),
        ("dim", CADim * MAXDIM),
        ("elem_type", c_int),
    ]


class CSched(Structure):
    """_xmpacc_sched_t"""

    _fields_ = [
        ("first", c_longlong),
        ("last", c_longlong),
        ("step", c_longlong),
        ("count", c_longlong),
        ("inv_count", c_double),
    ]


# C typedef name -> mirror, for the layout check
C_STRUCTS: tuple[tuple[str, type[Structure]], ...] = (
    ("_xmpacc_nodes_t", CNodes),
    ("_xmpacc_tdim_t", CTDim),
    ("_xmpacc_template_t", CTemplate),
    ("_xmpacc_adim_t", CADim),
    ("_xmpacc_array_t", CArray),
    ("_xmpacc_sched_t", CSched),
)

C_MACROS: tuple[tuple[str, int], ...] = (
    ("_XMPACC_MAXDIM", MAXDIM),
    ("_XMPACC_DIST_NONE", DIST_NONE),
    ("_XMPACC_DIST_BLOCK", DIST_BLOCK),
    ("_XMPACC_DIST_CYCLIC", DIST_CYCLIC),
    ("_XMPACC_DIST_GBLOCK", DIST_GBLOCK),
    ("_XMPACC_DESC_NODES", DESC_NODES),
    ("_XMPACC_DESC_TEMPLATE", DESC_TEMPLATE),
    ("_XMPACC_DESC_ARRAY", DESC_ARRAY),
)


def set_fields(obj: Structure, values: Mapping[str, int]) -> Structure:
    """Assign ``values`` (field name -> value) to ``obj``; unknown names raise KeyError.

    Returns ``obj`` so that ``set_fields(CTDim(), dist.tdim_fields(k))`` reads as one step.
    """
    names = {name for name, *_ in obj._fields_}
    for name, value in values.items():
        if name not in names:
            raise KeyError(f"{type(obj).__name__} has no field {name!r}")
        setattr(obj, name, value)
    return obj


def _python_layout() -> dict[str, int]:
    """'struct' -> sizeof and 'struct.field' -> offset as ctypes lays them out."""
    out: dict[str, int] = {}
    for cname, cls in C_STRUCTS:
        out[cname] = ctypes.sizeof(cls)
        for name, *_ in cls._fields_:
            out[f"{cname}.{name}"] = getattr(cls, name).offset
    out.update(C_MACROS)
    return out


def _layout_program() -> str:
    """C source printing the same keys as ``_python_layout`` from the real header."""
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "xmpacc_types.h"',
             "int main(void) {"]
    for cname, cls in C_STRUCTS:
        lines.append(f'  printf("{cname} %zu\\n", sizeof({cname}));')
        for name, *_ in cls._fields_:
            lines.append(f'  printf("{cname}.{name} %zu\\n", offsetof({cname}, {name}));')
    for macro, _ in C_MACROS:
        lines.append(f'  printf("{macro} %lld\\n", (long long){macro});')
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def layout_mismatches(cc: str = "cc", include_dir: Path = INCLUDE_DIR) -> list[str]:
    """Compile and run a C program printing every size, offset and macro of the mirrored
    header; return one line per disagreement with the ctypes mirrors (empty: all agree)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "layout.c", Path(tmp) / "layout"
        src.write_text(_layout_program())
        subprocess.run([cc, "-std=c99", "-I", str(include_dir), str(src), "-o", str(exe)],
                       check=True, capture_output=True, text=True)
        printed = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    c_layout = {key: int(val) for key, val in (ln.split() for ln in printed.splitlines())}
    py_layout = _python_layout()
    return [f"{key}: C {c_layout.get(key)} ctypes {py_layout.get(key)}"
            for key in sorted(set(c_layout) | set(py_layout))
            if c_layout.get(key) != py_layout.get(key)]
