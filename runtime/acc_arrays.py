"""Reductions of arrays and array sections on GPU loops (passes/kernel/kernel_arrays.py): the
device temporary that a kernel updates atomically, and how it reaches the host array.

Generated code hands the launch, for each reduction array (LAUNCH_ARRED), the address of
a host ``long long [5]``: {the array's address, its size in bytes (to the end of the
section, for a pointer), the reduced section's offset and size in bytes, 1 for XMP-ACC's
``loop ... acc`` (the result goes to the host array even where a device copy holds it)}.
The temporary has the whole array's shape, so the kernel indexes it with the program's
subscripts.  Before each launch the section's host
values go into it; after the kernel they come back.  Each element so ends as its value
before the loop op every update of the loop: for the operators a GPU loop reduces arrays
with (+ * max min & | ^ && ||, associative and commutative) what a fold of the updates,
reduced from the identity, into the host value gives, without the fill and the fold.  The
host waits for the kernel first: never deferred, the program (or the XMP reduction over
the nodes that follows) reads the array at once.

Where the section is present on the device (``present``: a device copy holds it), the
kernel gets the device copy instead, and nothing moves: OpenACC 2.7's reduction implies
copy, and the original variable of a present array is its device copy.  The choice is
made at every launch (the section's bounds, the pointer, may change between them).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .arrays import read_longs
from .collectives import DTYPES
from .errors import RuntimeFailure


@dataclass
class ArrayTemporary:
    """One reduction array of a prepared launch: its host description, its temporary and
    the kernel parameter's value (``holder``: the temporary, or the present device copy)."""

    desc: int          # host address of the long long [5]
    backend: Any
    dtype: Any
    buffer: Any = None         # the temporary, bytes on the backend, grown to the largest array
    holder: Any = field(default_factory=ctypes.c_void_p)
    section: tuple[int, int, int] = (0, 0, 0)   # (host address, offset, bytes) to copy back after the kernel

    def copy_in(self, where: str, present: Callable[[int, int, bool, str], int | None]) -> None:
        """Point the kernel at the device copy holding the section (``present``: its
        device address for host address and bytes, or None), else the section's host
        values into the temporary (read afresh: bounds and pointers may change)."""
        addr, whole, off, n, to_host = read_longs(self.desc, 5)
        esize = self.dtype.itemsize
        if off < 0 or n < 0 or off + n > whole:
            raise RuntimeFailure(where, f"the reduced section [{off // esize}:{n // esize}] is outside its "
                                        f"array of {whole // esize} elements")
        device = present(addr + off, n, bool(to_host), where) if n else None
        if device is not None:
            self.holder.value, self.section = device - off, (0, 0, 0)
            return
        if self.buffer is None or whole > self.buffer.nbytes:
            self.buffer = self.backend.alloc(whole, "reduction array", where)
        self.holder.value, self.section = self.backend.ptr(self.buffer), (addr, off, n)
        if n:
            self.backend.copy_in(self.buffer[off:off + n], addr + off, n)

    @property
    def to_host(self) -> bool:
        """Whether the kernel's result comes back to the host array (not a device copy's)."""
        return self.section[2] > 0

    def copy_out(self) -> None:
        """The section back to the host array; the kernel has finished."""
        addr, off, n = self.section
        if n:
            self.backend.copy_out(self.buffer[off:off + n], addr + off, n)


def temporary(backend: Any, desc: int, type_code: int, where: str) -> ArrayTemporary:
    """The reduction array ``desc`` describes, its temporary made at the first launch
    that needs one."""
    dtype = DTYPES.get(type_code)
    if dtype is None:
        raise RuntimeFailure(where, "unsupported element type of a reduction array in an acc loop")
    return ArrayTemporary(desc, backend, np.dtype(dtype))
