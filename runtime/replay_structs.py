"""The C structures of the per-iteration path in C, mirrored in ctypes (replay.py plans
them, include/xmpacc_fast.h and include/xmpacc_replay.h define them; tests/test_replay.py
checks every field's offset against the C compiler's)."""

from __future__ import annotations

import ctypes

MAXDIM = 7
QUEUES = 64
DEFERRED = 16   # deferred results the C side holds
SWITCHES = 8    # async queues begun in C, nested


class CNodeRef(ctypes.Structure):
    """_xmpacc_node_ref_t of include/xmpacc_fast.h: an on or from clause as the call passes it."""

    _fields_ = [("nodes", ctypes.c_void_p), ("n", ctypes.c_int),
                ("longs", ctypes.c_longlong * (1 + 4 * MAXDIM))]


def node_ref(nodes: int, ref: list[int] | None) -> CNodeRef | None:
    """The clause of ``nodes`` (a node array's or template's descriptor; 0: none) with the
    reference's longs (tasks.read_ref; None: the whole), for a plan; None where the
    reference is longer than the C side keeps."""
    out = CNodeRef(nodes)
    if ref is not None:
        if len(ref) > len(out.longs):
            return None
        out.n = len(ref)
        out.longs[: len(ref)] = ref
    return out


class CEvent(ctypes.Structure):
    _fields_ = [("where", ctypes.c_char_p), ("detail", ctypes.c_char_p), ("start", ctypes.c_longlong),
                ("host", ctypes.c_longlong), ("stop", ctypes.c_longlong), ("bytes", ctypes.c_longlong),
                ("entry", ctypes.c_int)]


class CReplay(ctypes.Structure):
    """_xmpacc_replay_t of include/xmpacc_fast.h."""

    _fields_ = [("on", ctypes.c_int), ("profile", ctypes.c_int), ("generation", ctypes.c_longlong),
                ("stream", ctypes.c_void_p), ("pending", ctypes.c_void_p),
                ("launch", ctypes.c_void_p), ("synchronize", ctypes.c_void_p), ("copy2d", ctypes.c_void_p),
                ("group_start", ctypes.c_void_p), ("group_end", ctypes.c_void_p),
                ("send", ctypes.c_void_p), ("recv", ctypes.c_void_p), ("nccl", ctypes.c_void_p),
                ("nqueues", ctypes.c_int), ("queue_id", ctypes.c_longlong * QUEUES),
                ("queue_stream", ctypes.c_void_p * QUEUES),
                ("events", ctypes.POINTER(CEvent)), ("nevents", ctypes.c_longlong),
                ("capacity", ctypes.c_longlong), ("dropped", ctypes.c_longlong),
                ("where", ctypes.c_void_p), ("kernel", ctypes.c_void_p), ("exec", ctypes.c_size_t),
                ("layout", ctypes.c_longlong), ("allreduce", ctypes.c_void_p),
                ("event_record", ctypes.c_void_p), ("stream_wait", ctypes.c_void_p),
                ("event_synchronize", ctypes.c_void_p), ("copy_to_host", ctypes.c_void_p),
                ("defer_next", ctypes.c_int), ("ndeferred", ctypes.c_int),
                ("deferred", ctypes.c_void_p * DEFERRED), ("python_deferred", ctypes.c_int),
                ("queue_depth", ctypes.c_int), ("queue_saved", ctypes.c_void_p * SWITCHES),
                ("queue_switched", ctypes.c_int * SWITCHES), ("dirty", ctypes.c_int),
                ("host_backend", ctypes.c_int), ("barrier", ctypes.c_void_p), ("bcast", ctypes.c_void_p),
                ("byte_type", ctypes.c_size_t), ("barriers", ctypes.c_longlong),
                ("bcasts", ctypes.c_longlong), ("copy_in", ctypes.c_void_p), ("copy_out", ctypes.c_void_p),
                ("copy_in_async", ctypes.c_void_p), ("sync_in_bytes", ctypes.c_longlong),
                ("sync_out_bytes", ctypes.c_longlong), ("queue_event", ctypes.c_void_p * QUEUES),
                ("join_event", ctypes.c_void_p), ("queue_moved_host", ctypes.c_int * QUEUES),
                ("wait_on_host", ctypes.c_int), ("waits_on_device", ctypes.c_longlong),
                ("comm_stream", ctypes.c_void_p), ("comm_ready", ctypes.c_void_p),
                ("comm_done", ctypes.c_void_p), ("overlap_open", ctypes.c_int),
                ("overlapped_reflects", ctypes.c_longlong), ("python_overlaps", ctypes.c_int),
                ("nheld", ctypes.c_int), ("held", ctypes.c_void_p * 8), ("rim", ctypes.c_int),
                ("overlap_min_bytes", ctypes.c_longlong), ("pushed_reflects", ctypes.c_longlong),
                ("launch_ex", ctypes.c_void_p), ("dependent", ctypes.c_int)]


class CLaunchPlan(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_void_p), ("nparams", ctypes.c_int), ("nthreads", ctypes.c_longlong),
                ("grid2_sched", ctypes.c_int), ("total", ctypes.c_longlong), ("inner", ctypes.c_longlong),
                ("pad", ctypes.c_longlong), ("generation", ctypes.c_longlong), ("args", ctypes.c_void_p),
                ("function", ctypes.c_void_p), ("params", ctypes.c_void_p), ("grid", ctypes.c_uint * 2),
                ("block", ctypes.c_uint * 2), ("threads", ctypes.c_longlong), ("stream", ctypes.c_void_p),
                ("host", ctypes.c_int), ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p),
                ("nresults", ctypes.c_int), ("results", ctypes.c_void_p), ("nscratch", ctypes.c_int),
                ("scratch_at", ctypes.c_void_p), ("scratch_bytes", ctypes.c_void_p),
                ("nlocated", ctypes.c_int), ("located", ctypes.c_void_p)]


class CComputePlan(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("generation", ctypes.c_longlong), ("keys", ctypes.c_void_p),
                ("sizes", ctypes.c_void_p), ("modes", ctypes.c_void_p), ("calls", ctypes.c_longlong),
                ("next", ctypes.c_void_p)]


class CLoopReducePlan(ctypes.Structure):
    _fields_ = [("tmpl", ctypes.c_void_p), ("data", ctypes.c_void_p), ("count", ctypes.c_longlong),
                ("type", ctypes.c_int), ("op", ctypes.c_int), ("ndims", ctypes.c_int),
                ("mask", ctypes.c_int * MAXDIM), ("exec", ctypes.c_size_t), ("layout", ctypes.c_longlong),
                ("size", ctypes.c_int), ("rank", ctypes.c_int), ("comm", ctypes.c_size_t),
                ("datatype", ctypes.c_size_t), ("mpi_op", ctypes.c_size_t), ("scratch", ctypes.c_void_p),
                ("elem", ctypes.c_int), ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p),
                ("on", CNodeRef), ("nvar", ctypes.c_int),
                ("var", ctypes.c_longlong * (4 + 5 * MAXDIM)), ("offset", ctypes.c_longlong)]


class CUpdatePlan(ctypes.Structure):
    _fields_ = [("key", ctypes.c_void_p), ("size", ctypes.c_longlong), ("queue", ctypes.c_longlong),
                ("generation", ctypes.c_longlong), ("direction", ctypes.c_int), ("flags", ctypes.c_int),
                ("host", ctypes.c_void_p), ("device", ctypes.c_size_t), ("nbytes", ctypes.c_longlong),
                ("stream", ctypes.c_void_p), ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p),
                ("nsec", ctypes.c_int), ("section", ctypes.c_int), ("sec", ctypes.c_void_p),
                ("pitch", ctypes.c_longlong), ("width", ctypes.c_longlong), ("height", ctypes.c_longlong),
                ("copies", ctypes.c_longlong), ("stride", ctypes.c_longlong)]


class CBcastPlan(ctypes.Structure):
    _fields_ = [("source", CNodeRef), ("exec", ctypes.c_size_t), ("layout", ctypes.c_longlong),
                ("root", ctypes.c_int), ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p)]


class CSwapPlan(ctypes.Structure):
    _fields_ = [("key", ctypes.c_void_p), ("size", ctypes.c_longlong), ("generation", ctypes.c_longlong),
                ("next", ctypes.c_void_p)]


class CSlabOp(ctypes.Structure):
    _fields_ = [("device", ctypes.c_size_t), ("nbytes", ctypes.c_longlong), ("peer", ctypes.c_int),
                ("send", ctypes.c_int), ("array", ctypes.c_size_t), ("pitch", ctypes.c_longlong),
                ("width", ctypes.c_longlong), ("height", ctypes.c_longlong), ("copies", ctypes.c_longlong),
                ("stride", ctypes.c_longlong)]


class CAccReflectPlan(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("generation", ctypes.c_longlong), ("nrounds", ctypes.c_int),
                ("count", ctypes.c_int * MAXDIM), ("ops", ctypes.POINTER(CSlabOp) * MAXDIM),
                ("mpi", ctypes.c_void_p), ("calls", ctypes.c_longlong), ("bytes", ctypes.c_longlong),
                ("nwidths", ctypes.c_int), ("widths", ctypes.c_void_p), ("next", ctypes.c_void_p)]
