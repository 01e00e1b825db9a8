"""Reductions, broadcasts and barriers on host data given by address (reference §6.2-6.6)."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .errors import RuntimeFailure

# the reductions the C side replays (replay.py: loop reductions and the reduction
# directive; replay_collectives.py: reduction ... acc through MPI): + * & | ^ max min of
# the integer and floating types (the logical operators work on 0/1 copies; bool, long
# double and complex stay general)
REPLAYED_OPS = frozenset((1, 2, 3, 4, 5, 8, 9))
REPLAYED_TYPES = frozenset(range(2, 15))

# _XMPACC_TYPE codes (xmpacc.h) -> numpy dtypes
DTYPES = {1: np.bool_, 2: np.int8, 3: np.int8, 4: np.uint8, 5: np.int16, 6: np.uint16,
          7: np.int32, 8: np.uint32, 9: np.int64, 10: np.uint64, 11: np.int64, 12: np.uint64,
          13: np.float32, 14: np.float64, 15: np.longdouble, 16: np.complex64, 17: np.complex128,
          18: np.clongdouble}
OP_NAMES = {1: "+", 2: "*", 3: "&", 4: "|", 5: "^", 6: "&&", 7: "||", 8: "max", 9: "min",
            10: "firstmax", 11: "firstmin", 12: "lastmax", 13: "lastmin"}
# The location kinds reduce their value as max or min (global-view §5).
VALUE_OP = {10: 8, 11: 9, 12: 8, 13: 9}
# Identity a non-first node starts from, for the operators that are not idempotent.
RESET_IDENTITY = {1: 0, 2: 1, 5: 0}


def view(ptr: int, count: int, type_code: int, where: str) -> np.ndarray:
    """The C variable at ``ptr`` as a numpy array (no copy).  Views are kept per address,
    count and type: a reduction inside a time loop names the same variable every time, and
    building the ctypes and numpy objects cost more than a one-node reduction itself."""
    key = (ptr, count, type_code)
    found = _VIEWS.get(key)
    if found is not None:
        return found
    dtype = DTYPES.get(type_code)
    if dtype is None:
        raise RuntimeFailure(where, "reduction of this type is not supported (use an integer or "
                                    "floating-point scalar or array)", collective=True)
    size = count * np.dtype(dtype).itemsize
    raw = (ctypes.c_char * size).from_address(ptr)
    if len(_VIEWS) > 4096:
        _VIEWS.clear()
    found = _VIEWS[key] = np.frombuffer(raw, dtype=dtype, count=count)
    return found


_VIEWS: dict[tuple[int, int, int], np.ndarray] = {}


def mpi_op(op: int, dtype: Any, where: str) -> Any:
    from mpi4py import MPI

    if op in (3, 4, 5) and np.issubdtype(dtype, np.inexact):
        raise RuntimeFailure(where, f"bitwise reduction '{OP_NAMES[op]}' of a floating-point value",
                             collective=True)
    if op in (8, 9) and np.issubdtype(dtype, np.complexfloating):
        raise RuntimeFailure(where, f"reduction '{OP_NAMES[op]}' of a complex value", collective=True)
    return {1: MPI.SUM, 2: MPI.PROD, 3: MPI.BAND, 4: MPI.BOR, 5: MPI.BXOR, 6: MPI.LAND,
            7: MPI.LOR, 8: MPI.MAX, 9: MPI.MIN}[op]


def _work(data: np.ndarray, op: int) -> np.ndarray:
    """A contiguous copy that MPI can reduce: logical operators work on 0/1 ints (MPI has
    no LAND on floating point), _Bool as int."""
    if op in (6, 7):
        return (data != 0).astype(np.int32)
    return data.astype(np.int32) if data.dtype == np.bool_ else np.ascontiguousarray(data).copy()


def allreduce(comm: Any, data: np.ndarray, op: int, where: str) -> None:
    from mpi4py import MPI

    if comm.Get_size() == 1:
        if op in (6, 7):  # logical results are 0/1 even on one node
            data[...] = data != 0
        return
    work = _work(data, op)
    comm.Allreduce(MPI.IN_PLACE, work, op=mpi_op(op, data.dtype, where))
    data[...] = work


def allreduce_start(comm: Any, data: np.ndarray, op: int, where: str) -> Any:
    """The non-blocking allreduce (``reduction ... async``): a Pending (asyncs.py) that
    writes the result into ``data`` when it completes."""
    from mpi4py import MPI

    from .asyncs import MpiPending

    work = _work(data, op)
    if comm.Get_size() == 1:
        return MpiPending([], lambda: data.__setitem__(Ellipsis, work))
    request = comm.Iallreduce(MPI.IN_PLACE, work, op=mpi_op(op, data.dtype, where))
    return MpiPending([request], lambda: data.__setitem__(Ellipsis, work), keep=work)


def reset_to_identity(data: np.ndarray, op: int) -> None:
    if op in RESET_IDENTITY:
        data[...] = RESET_IDENTITY[op]


def bcast_bytes(comm: Any, ptr: int, nbytes: int, root: int, start: bool = False) -> Any:
    """Broadcast ``nbytes`` at ``ptr``; with ``start`` a non-blocking Ibcast, returned as a
    Pending (``bcast ... async``)."""
    raw = (ctypes.c_char * nbytes).from_address(ptr)
    buf = np.frombuffer(raw, dtype=np.uint8)
    if not start:
        comm.Bcast(buf, root=root)
        return None
    from .asyncs import MpiPending

    return MpiPending([comm.Ibcast(buf, root=root)], keep=buf)
