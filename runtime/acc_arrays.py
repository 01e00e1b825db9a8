"""Reductions of arrays and array sections on GPU loops (passes/kernel_arrays.py): the
device temporary that a kernel updates atomically, and how it reaches the host array.

Generated code hands the launch, for each reduction array (LAUNCH_ARRED), the address of
a host ``long long [4]``: {the array's address, its size in bytes, the reduced section's
offset and size in bytes}.  The temporary has the whole array's shape, so the kernel
indexes it with the program's subscripts.  Before each launch the section's host values
go into it; after the kernel they come back.  Each element so ends as its value before
the loop op every update of the loop: for the operators a GPU loop reduces arrays with
(+ * max min & | ^, associative and commutative) what a fold of the updates, reduced from
the identity, into the host value gives, without the fill and the fold.  The host waits
for the kernel first: never deferred, the program (or the XMP reduction over the nodes
that follows) reads the array at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .arrays import read_longs
from .collectives import DTYPES
from .errors import RuntimeFailure


@dataclass
class ArrayTemporary:
    """One reduction array of a prepared launch: its host description and temporary."""

    desc: int          # host address of the long long [4]
    buffer: Any        # the temporary, bytes on the backend
    nbytes: int        # the array's size when the launch was prepared
    esize: int         # bytes per element
    section: tuple[int, int, int] = (0, 0, 0)   # (host address, offset, bytes) of the current launch

    def copy_in(self, backend: Any, where: str) -> None:
        """The section's host values into the temporary (read afresh: a section's bounds
        may change between launches of the same prepared launch)."""
        addr, whole, off, n = read_longs(self.desc, 4)
        if whole != self.nbytes:
            raise RuntimeFailure(where, f"a reduction array of this acc loop changed size ({self.nbytes} -> "
                                        f"{whole} bytes): this is a bug in xmpacc")
        if off < 0 or n < 0 or off + n > whole:
            lo, count = off // self.esize, n // self.esize
            raise RuntimeFailure(where, f"the reduced section [{lo}:{count}] is outside its array of "
                                        f"{whole // self.esize} elements")
        self.section = (addr, off, n)
        if n:
            backend.copy_in(self.buffer[off:off + n], addr + off, n)

    def copy_out(self, backend: Any) -> None:
        """The section back to the host array; the kernel has finished."""
        addr, off, n = self.section
        if n:
            backend.copy_out(self.buffer[off:off + n], addr + off, n)


def temporary(backend: Any, desc: int, type_code: int, where: str) -> ArrayTemporary:
    """A fresh temporary for the array ``desc`` describes."""
    dtype = DTYPES.get(type_code)
    if dtype is None:
        raise RuntimeFailure(where, "unsupported element type of a reduction array in an acc loop")
    _addr, whole, _off, _n = read_longs(desc, 4)
    return ArrayTemporary(desc, backend.alloc(whole, "reduction array", where), whole, np.dtype(dtype).itemsize)
