"""Reductions with location variables in C after their first call at a site: over the
nodes, and a GPU loop's pick of its own record.

``loop on t[i] reduction(firstmax: v /i/)`` (a pivot search, a residual reported with its
worst point) and the directive ``reduction(max: m /n/)`` entered Python at every call to
combine the nodes' answers.  Here the general path (reductions.py) runs the first call as
always and then hands the glue what it combined (include/xmpacc_locations.h): the
variable, its operator, the location variables' addresses, descriptions and bytes, the
key's length, and the nodes' communicator with the MPI types and operators of the value
and of the nodes' records.  Later calls with the same arguments, under the same executing
nodes and distributions, run in C.

A GPU loop with location variables leaves a record per warp; the replayed launch picks
the node's record in C (``located_records``) where the records are small enough to copy to
the host (LOCATED_STAGE: the kernels of a pivot search or a convergence check); larger ones
are picked on the device by the general path (acc_locations.py).

What stays general: a reduction variable that is a section or not a replayed type, a
location variable that is a section, more than 8 location variables, ``async``, and loops
launched in parts (margin, peel_and_wait).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from .arrays import read_longs
from .collectives import DTYPES, REPLAYED_TYPES, VALUE_OP, mpi_op
from .cstructs import MAXDIM
from .replay import Held, Replay
from .replay_structs import CNodeRef

LOCATIONS = 8   # _XMPACC_LOCATIONS
LOCATION_OPS = range(8, 14)   # max, min, firstmax, firstmin, lastmax, lastmin
LOCATED_FIELDS = 9   # _XMPACC_LOCATED_FIELDS
LOCATED_STAGE = 1 << 18   # bytes of a launch's records the C side copies to the host at most
# the value types C compares (include/xmpacc_locations.h _xmpacc_located_value), by numpy type
_TYPE_CODES = {np.dtype(DTYPES[code]): code for code in sorted(REPLAYED_TYPES, reverse=True)}


class CLocated(ctypes.Structure):
    """_xmpacc_located_t of include/xmpacc_locations.h."""

    _fields_ = [("op", ctypes.c_int), ("type", ctypes.c_int), ("nkey", ctypes.c_int),
                ("nfields", ctypes.c_int), ("records", ctypes.c_longlong), ("keys", ctypes.c_size_t),
                ("partials", ctypes.c_size_t * LOCATED_FIELDS), ("size", ctypes.c_int * LOCATED_FIELDS),
                ("host", ctypes.c_void_p * LOCATED_FIELDS), ("host_key", ctypes.c_void_p),
                ("stage", ctypes.c_void_p)]


def located_records(backend: Any, located: list[Any]) -> tuple[Any, list[Any]] | None:
    """A launch's location records (acc_locations.py LocatedPartials) as the C side picks
    them after a replayed launch (include/xmpacc_locations.h), and what they point into;
    None where they stay general: a loop in parts, a value of a type C does not compare,
    too many fields, or (on a GPU) more bytes of records than LOCATED_STAGE."""
    out = (CLocated * len(located))()
    keep: list[Any] = [out]
    for c, rec in zip(out, located, strict=True):
        host0 = rec.fields[0][0] if rec.fields else None
        if rec.tail is not None or host0 is None or host0.dtype not in _TYPE_CODES \
                or not 0 < len(rec.fields) <= LOCATED_FIELDS:
            return None
        records, nkey = int(rec.keys.shape[0]), int(rec.keys.shape[1])
        c.op, c.type, c.nkey, c.nfields = rec.op, _TYPE_CODES[host0.dtype], nkey, len(rec.fields)
        c.records = records
        c.keys, c.host_key = backend.ptr(rec.keys), int(rec.host_key.ctypes.data)
        nbytes = records * 8 * nkey
        for k, (host, partials) in enumerate(rec.fields):
            c.partials[k], c.size[k], c.host[k] = backend.ptr(partials), host.itemsize, int(host.ctypes.data)
            nbytes += records * host.itemsize
        if backend.name != "host":
            if nbytes > LOCATED_STAGE:
                return None
            stage = np.empty(nbytes, dtype=np.uint8)
            keep.append(stage)
            c.stage = int(stage.ctypes.data)
    return out, keep


class CLocationPlan(ctypes.Structure):
    """_xmpacc_location_plan_t of include/xmpacc_locations.h."""

    _fields_ = [("tmpl", ctypes.c_void_p), ("ndims", ctypes.c_int), ("mask", ctypes.c_int * MAXDIM),
                ("on", CNodeRef), ("data", ctypes.c_void_p), ("var", ctypes.c_longlong * 4),
                ("op", ctypes.c_int), ("elem", ctypes.c_int), ("nloc", ctypes.c_int),
                ("loc", ctypes.c_void_p * LOCATIONS), ("loc_bytes", ctypes.c_longlong * LOCATIONS),
                ("nlocdesc", ctypes.c_int), ("locdesc", ctypes.c_longlong * (LOCATIONS * (4 + MAXDIM))),
                ("nkey", ctypes.c_int), ("exec", ctypes.c_size_t), ("layout", ctypes.c_longlong),
                ("size", ctypes.c_int), ("rank", ctypes.c_int), ("comm", ctypes.c_size_t),
                ("datatype", ctypes.c_size_t), ("value_op", ctypes.c_size_t),
                ("record_type", ctypes.c_size_t), ("record_op", ctypes.c_size_t),
                ("records", ctypes.c_void_p), ("gathered", ctypes.c_void_p),
                ("scratch", ctypes.c_void_p), ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p)]


def _whole(desc_ptr: int) -> tuple[list[int], int] | None:
    """A variable's description {type, elem size, rank, extents..., nsubs, ...} and its bytes,
    where it names the whole variable (no subscripts); None otherwise."""
    rank = read_longs(desc_ptr, 3)[2]
    if not 0 <= rank <= MAXDIM:
        return None
    desc = read_longs(desc_ptr, 4 + rank)
    if desc[3 + rank] != 0:
        return None
    return desc, desc[1] * math.prod(desc[3:3 + rank])


class LocationPlans:
    """The C side's plans of location reductions, by the reduction variable's address (a
    concern of the reductions, made with the replay)."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.plans: dict[int, list[Held]] = {}
        replay.more.append(self.plans)
        replay.bind_setters("_xmpacc_location_plan_set")

    def offer(self, comm: Any, data: int, var: int, op: int, locs: tuple[int, int, int],
              loop: tuple[int, list[int]] | None, on: CNodeRef | None, nkey: int, where: str) -> None:
        """The combination the general path just made over ``comm`` (None: this node is not
        one of the nodes): ``locs`` (count, addresses, descriptions) as the call passed
        them; ``loop`` the loop clause's template and dimensions, or ``on`` the directive's
        on clause."""
        from mpi4py import MPI

        replay = self.replay
        nloc, loc_addrs, loc_descs = locs
        value = _whole(var)
        if not replay.c.allreduce or not replay.c.bcast or not replay.steady(data) or op not in LOCATION_OPS \
                or value is None or value[0][2] != 0 or value[0][0] not in REPLAYED_TYPES \
                or not 0 < nloc <= LOCATIONS:
            return
        addrs = list((ctypes.c_void_p * nloc).from_address(loc_addrs))
        descs = [w for w in (_whole(d or 0) for d in (ctypes.c_void_p * nloc).from_address(loc_descs)) if w]
        if len(descs) != nloc or not all(addrs):
            return
        p = CLocationPlan()
        if loop is not None:
            p.tmpl, p.ndims = loop[0], len(loop[1])
            p.mask[: p.ndims] = loop[1]
        elif on is not None:
            p.on = on
        dtype = np.dtype(DTYPES[value[0][0]])
        p.data, p.op, p.elem, p.nloc, p.nkey = data, op, dtype.itemsize, nloc, nkey
        p.var[:] = value[0]
        flat: list[int] = []
        for k, (desc, nbytes) in enumerate(descs):
            p.loc[k], p.loc_bytes[k] = addrs[k], nbytes
            flat += desc
        p.nlocdesc = len(flat)
        p.locdesc[: len(flat)] = flat
        p.exec, p.layout = replay.c.exec, replay.c.layout
        keep: list[Any] = [comm]
        if comm is not None:
            p.size, p.rank, p.comm = comm.Get_size(), comm.Get_rank(), MPI._handleof(comm)
            p.datatype = MPI._handleof(MPI._typedict[dtype.char])
            p.value_op = MPI._handleof(mpi_op(VALUE_OP.get(op, op), dtype, where))
            p.record_type, p.record_op = MPI._handleof(MPI.LONG_LONG), MPI._handleof(MPI.MAX)
            for name in ("records", "gathered"):
                buf = np.empty(p.size * (2 + nkey), dtype=np.int64)
                keep.append(buf)
                setattr(p, name, int(buf.ctypes.data))
            scratch = np.empty(dtype.itemsize, dtype=np.uint8)
            keep.append(scratch)
            p.scratch = int(scratch.ctypes.data)
        counter = "replayed_loop_location_reductions" if loop is not None else "replayed_location_reductions"
        replay._register(self.plans, data, "_xmpacc_location_plan_set", Held(p, keep, counters=(counter,)))
