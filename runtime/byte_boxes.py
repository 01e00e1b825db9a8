"""Boxes of bytes as 2-D copies: the slabs a device reflect packs (replay.py) and the
sections an ``acc update`` moves (acc_data.py), for the C side to copy without numpy.

A box of a row-major array is its shape and strides in bytes (the last stride 1, the
element's bytes); ``strided_copies`` folds it into at most ``copies`` 2-D copies of
``height`` rows of ``width`` bytes, the form of ``cuMemcpy2DAsync`` (and of a loop of
``memcpy`` on the host backend).

Pure Python plus numpy: no MPI, no CUDA here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


def strided_copies(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, int, int, int, int] | None:
    """A byte box of a row-major array (shape and strides in bytes, the last stride 1) as
    ``copies`` 2-D copies of ``height`` rows of ``width`` bytes ``pitch`` apart, the copies
    ``stride`` apart: (pitch, width, height, copies, stride); None when the box needs more."""
    dims = [(n, s) for n, s in zip(shape[:-1], strides[:-1], strict=True) if n != 1]
    dims.append((shape[-1], strides[-1]))
    if dims[-1][1] != 1 and dims[-1][0] != 1:
        return None
    dims[-1] = (dims[-1][0], 1)
    merged = [dims[-1]]
    for n, s in reversed(dims[:-1]):
        inner_n, inner_s = merged[0]
        if s == inner_n * inner_s:
            merged[0] = (n * inner_n, inner_s)
        else:
            merged.insert(0, (n, s))
    if len(merged) == 1:
        return 0, merged[0][0], 1, 1, 0
    if len(merged) == 2:
        return merged[0][1], merged[1][0], merged[0][0], 1, 0
    if len(merged) == 3 and merged[0][0] <= 64:
        return merged[1][1], merged[2][0], merged[1][0], merged[0][0], merged[0][1]
    return None


@dataclass(frozen=True, slots=True)
class ByteBox:
    """The bytes of a section at the same offsets in a variable and in its device copy:
    from ``offset``, ``copies`` 2-D copies of ``height`` rows of ``width`` bytes ``pitch``
    apart (at least ``width``: the driver checks it even for one row), the copies
    ``stride`` apart."""

    offset: int
    pitch: int
    width: int
    height: int
    copies: int
    stride: int

    @property
    def nbytes(self) -> int:
        return self.width * self.height * self.copies


def section_box(host: np.ndarray, index: tuple[Any, ...]) -> ByteBox | None:
    """The box of ``host[index]`` (a byte view of shape (extents..., element size) and the
    index acc_data.py moves a section with: integers and slices, or ``np.ix_`` arrays of a
    distributed array's owned elements) relative to ``host``'s first byte; None when it is
    empty or not a box of at most 64 2-D copies.  The order of the bytes does not matter
    (the same offsets on both sides), so a negative step is taken forwards."""
    basic = tuple(_as_slice(i) if isinstance(i, np.ndarray) else i for i in index)
    if any(i is None for i in basic):
        return None
    part = host[basic]
    if part.size == 0:
        return None
    part = part[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in part.strides)]
    copies = strided_copies(tuple(int(n) for n in part.shape), tuple(int(s) for s in part.strides))
    if copies is None:
        return None
    pitch, width, height, count, stride = copies
    offset = int(part.__array_interface__["data"][0]) - int(host.__array_interface__["data"][0])
    box = ByteBox(offset, max(pitch, width), width, height, count, stride)
    return box if box.nbytes == part.size else None


def _as_slice(indices: np.ndarray) -> slice | None:
    """The indices of one dimension (ascending or descending by one step) as a slice."""
    flat = indices.reshape(-1)
    if flat.size == 0:
        return None
    lo, hi = int(flat.min()), int(flat.max())
    step = int(flat[1] - flat[0]) if flat.size > 1 else 1
    step = abs(step)
    if step == 0 or (hi - lo) % step or (hi - lo) // step + 1 != flat.size \
            or not np.array_equal(np.sort(flat), np.arange(lo, hi + 1, step)):
        return None
    return slice(lo, hi + 1, step)
