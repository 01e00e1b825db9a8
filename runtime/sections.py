"""Array sections as generated code hands them to the runtime (global-view §1).

``const long long *sec`` is ``{ndims, elem_size, then per subscript: extent (-1: unknown),
kind (SEC_INDEX / SEC_TRIPLET), base, length, step}`` with omitted lengths already
resolved by ``_xmpacc_sec_len`` (include/xmpacc_sections.h).  ``read_section`` decodes it
and checks it; ``numpy_index`` gives the index of a local array's view that selects it.

Pure Python plus numpy: no MPI here.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from .contract import SEC_TRIPLET, SECERR_LENGTH, SECERR_NOT_LOCAL, SECERR_SHAPE, SECERR_STEP


class SectionError(ValueError):
    """A section that cannot be (length <= 0, step 0, out of bounds, shapes differ)."""


@dataclass(frozen=True, slots=True)
class Sub:
    """One subscript: an index (``triplet`` False, only ``base`` counts) or a triplet."""

    triplet: bool
    base: int
    length: int
    step: int

    @property
    def last(self) -> int:
        return self.base + (self.length - 1) * self.step

    def text(self) -> str:
        if not self.triplet:
            return str(self.base)
        return f"{self.base}:{self.length}" + (f":{self.step}" if self.step != 1 else "")


@dataclass(frozen=True, slots=True)
class Section:
    elem_size: int
    extents: tuple[int, ...]     # -1: unknown (the first dimension of a pointer)
    subs: tuple[Sub, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(s.length for s in self.subs if s.triplet)

    def text(self, name: str) -> str:
        return name + "".join(f"[{s.text()}]" for s in self.subs)


def read_section(ptr: int) -> Section:
    head = list((ctypes.c_longlong * 2).from_address(ptr))
    n = head[0]
    raw = list((ctypes.c_longlong * (2 + 5 * n)).from_address(ptr))[2:]
    extents, subs = [], []
    for k in range(n):
        ext, kind, base, length, step = raw[5 * k: 5 * k + 5]
        extents.append(ext)
        subs.append(Sub(kind == SEC_TRIPLET, base, length, step))
    return Section(head[1], tuple(extents), tuple(subs))


def raw_section(ptr: int) -> bytes:
    """The section's long longs as generated code passes them (the C side compares them)."""
    n = ctypes.c_longlong.from_address(ptr).value
    return ctypes.string_at(ptr, 8 * (2 + 5 * n))


def check_section(sec: Section, name: str) -> None:
    """Lengths > 0, steps != 0 and every index inside its dimension, or SectionError."""
    for k, (s, ext) in enumerate(zip(sec.subs, sec.extents, strict=True)):
        if s.triplet and s.length <= 0:
            raise SectionError(f"the length of dimension {k} of {sec.text(name)} is {s.length}; "
                               "it must be > 0")
        if s.triplet and s.step == 0:
            raise SectionError(f"the step of dimension {k} of {sec.text(name)} is 0")
        for index in ((s.base, s.last) if s.triplet else (s.base,)):
            if index < 0 or (ext >= 0 and index >= ext):
                bound = f"0..{ext - 1}" if ext >= 0 else ">= 0"
                raise SectionError(f"{sec.text(name)} reaches index {index}, out of bounds of "
                                   f"dimension {k} ({bound})")


def shape_text(shape: tuple[int, ...] | list[int]) -> str:
    return "[" + "][".join(map(str, shape)) + "]" if shape else "[] (a scalar)"


def numpy_index(sec: Section) -> tuple[object, ...]:
    """The index of an ``(extents..., elem_size)`` view that selects the section."""
    out: list[object] = []
    for s in sec.subs:
        if not s.triplet:
            out.append(s.base)
        elif s.step > 0:
            out.append(slice(s.base, s.last + 1, s.step))
        else:
            out.append(slice(s.base, s.last - 1 if s.last > 0 else None, s.step))
    return tuple(out)


def local_view(base: int, sec: Section) -> np.ndarray:
    """The local array at ``base`` as bytes of shape ``(extents..., elem_size)``; an
    unknown first extent is taken just large enough for the section."""
    extents = list(sec.extents)
    if extents and extents[0] < 0:
        s = sec.subs[0]
        extents[0] = max(s.base, s.last) + 1 if s.triplet else s.base + 1
    nbytes = int(np.prod(extents, dtype=np.int64)) * sec.elem_size
    raw = (ctypes.c_char * max(nbytes, 1)).from_address(base)
    return np.frombuffer(raw, dtype=np.uint8, count=nbytes).reshape(tuple(extents) + (sec.elem_size,))


def error_message(what: int, name: str, a: list[int], b: list[int]) -> str:
    """The text of ``_xmpacc_section_error`` (codes SECERR_* of contract.py)."""
    if what == SECERR_SHAPE:
        left, right = name.split(" = ", 1) if " = " in name else (name, "?")
        return (f"shapes do not conform: '{left}' has shape {shape_text(a)} but '{right}' has "
                f"shape {shape_text(b)}")
    if what == SECERR_LENGTH:
        return f"the length of dimension {a[0]} of a section of '{name}' is {a[1]}; it must be > 0"
    if what == SECERR_STEP:
        return f"the step of dimension {a[0]} of a section of '{name}' is 0"
    if what == SECERR_NOT_LOCAL:
        index = "".join(f"[{i}]" for i in a)
        return (f"'{name}{index}' is not in this node's part of '{name}' (owned elements and "
                f"shadow): align the arrays of an 'array' directive with its template")
    return f"bad section of '{name}'"
