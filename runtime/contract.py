"""The one contract between generated code and the runtime.

Every runtime entry point that generated C may call is listed here once, with its C
signature.  The compiler renders the C side from this list (``templates/glue.c.j2``: a
table of function pointers and one forwarding function per entry) and the launcher binds
each entry to the Python method of the same name on the runtime (``xmpacc.runtime.api``)
or on the one concern of it that implements it (``Runtime.entries()``).  A test checks
that both sides agree.  This module imports nothing but the standard library, so
the compiler may import it without pulling in MPI or CUDA.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

# C parameter types, spelled as in C.  Pointers to descriptors travel as ``void *``.
C_TYPES = ("void", "int", "long long", "double", "const char *", "void *", "const void *",
           "const int *", "const long long *", "int *")


@dataclass(frozen=True, slots=True)
class Entry:
    name: str                 # C name, always starting with _xmpacc_
    returns: str
    params: tuple[tuple[str, str], ...]   # (C type, parameter name)
    doc: str
    # a glue function tried first (include/xmpacc_fast.h): nonzero means it did the call; an
    # entry that returns a value gets it through one more argument, a pointer to the result
    fast: str = ""

    @property
    def arity(self) -> int:
        return len(self.params)


def _e(name: str, returns: str, params: str, doc: str, fast: str = "") -> Entry:
    pairs = []
    for p in filter(None, (s.strip() for s in params.split(","))):
        ctype, pname = p.rsplit(" ", 1)
        while pname.startswith("*"):
            ctype, pname = ctype + " *", pname[1:]
        pairs.append((ctype.replace("  ", " "), pname))
    return Entry(name, returns, tuple(pairs), doc, fast)


# ``where`` is always "file.c:line" of the directive, for run-time error messages.
# A table, one row per runtime entry: its rows look alike to `duplicates`, each names its own call.
ENTRIES: tuple[Entry, ...] = (
    _e("_xmpacc_nodes_init", "void",
       "void *nodes, const char *where, const char *name, int ndims, const int *extents",
       "nodes directive: extents in C order, -1 for '*'"),
    _e("_xmpacc_template_init", "void",
       "void *tmpl, const char *where, const char *name, int ndims, const long long *bounds",
       "template directive: (lower, upper) pairs in C order"),
    _e("_xmpacc_distribute", "void",
       "void *tmpl, const char *where, const void *nodes, const int *kinds, "
       "const long long *widths, const void *gblock_maps",
       "distribute directive: kind and cyclic width per dimension; gblock maps as int*[]"),
    _e("_xmpacc_align", "void *",
       "void *array, const char *where, const char *name, const void *tmpl, long long elem_size, "
       "int ndims, const long long *extents, const int *tdims, const long long *offsets, "
       "const long long *shadows",
       "align (+ shadow): allocates the local buffer and returns it; shadows (lo, hi) pairs, "
       "(-1, -1) = full shadow"),
    _e("_xmpacc_array_release", "void", "void *array",
       "frees the local buffer of a block-scope distributed array",
       fast="_xmpacc_array_release_fast"),
    _e("_xmpacc_reflect", "void",
       "void *array, const char *where, const long long *widths",
       "reflect directive; widths NULL or (lo, hi, periodic) per dimension",
       fast="_xmpacc_reflect_fast"),
    _e("_xmpacc_reflect_acc", "void",
       "void *array, const char *where, const long long *widths",
       "reflect ... acc: the shadow slots of the array's device copy, device to device",
       fast="_xmpacc_reflect_acc_fast"),
    _e("_xmpacc_reflect_orthogonal", "void",
       "void *array, const char *where, const long long *widths",
       "reflect ... orthogonal: no corner exchange",
       fast="_xmpacc_reflect_orthogonal_fast"),
    _e("_xmpacc_reflect_init", "void",
       "void *array, const char *where, const long long *widths, int orthogonal",
       "reflect_init: plan the reflect once (persistent requests) for reflect_do"),
    _e("_xmpacc_reflect_do", "void", "void *array, const char *where",
       "reflect_do: run the reflect that reflect_init planned"),
    _e("_xmpacc_reduce_shadow", "void",
       "void *array, const char *where, const long long *widths, int type",
       "reduce_shadow: owners add their neighbours' shadow copies (type: element type code)"),
    _e("_xmpacc_loop_reduce_begin", "void",
       "const void *tmpl, const int *loop_dims, void *data, long long count, int type, int op",
       "reduction clause, before the loop: identity on all but the first node of each set",
       fast="_xmpacc_loop_reduce_begin_fast"),
    _e("_xmpacc_loop_reduce", "void",
       "const void *tmpl, const char *where, const int *loop_dims, void *data, long long count, "
       "int type, int op",
       "reduction clause of a loop: combine over the nodes that ran different iterations",
       fast="_xmpacc_loop_reduce_fast"),
    _e("_xmpacc_reduce", "void",
       "void *data, const char *where, long long count, int type, int op, const void *on_nodes, "
       "const long long *on_ref",
       "reduction directive over the executing node set or an on-set",
       fast="_xmpacc_reduce_fast"),
    _e("_xmpacc_loop_reduce_var_begin", "void",
       "const void *tmpl, const int *loop_dims, void *data, const long long *var, int op",
       "reduction clause of a section, before the loop (var: passes/common/varrefs.py)",
       fast="_xmpacc_loop_reduce_var_begin_fast"),
    _e("_xmpacc_loop_reduce_var", "void",
       "const void *tmpl, const char *where, const int *loop_dims, void *data, const long long *var, "
       "int op, int nloc, const void *loc_addrs, const void *loc_vars, int nkey, const long long *key",
       "reduction clause of a section, or with location variables (key: the iteration that set them)",
       fast="_xmpacc_loop_reduce_var_fast"),
    _e("_xmpacc_reduce_var", "void",
       "const char *where, void *data, const long long *var, int op, const void *on_nodes, "
       "const long long *on_ref, int nloc, const void *loc_addrs, const void *loc_vars",
       "reduction directive of a section, or max/min/first*/last* with location variables",
       fast="_xmpacc_reduce_var_fast"),
    _e("_xmpacc_bcast", "void",
       "void *data, const char *where, long long nbytes, const void *from_nodes, "
       "const long long *from_ref, const void *on_nodes, const long long *on_ref",
       "bcast directive",
       fast="_xmpacc_bcast_fast"),
    _e("_xmpacc_barrier", "void",
       "const char *where, const void *on_nodes, const long long *on_ref",
       "barrier directive",
       fast="_xmpacc_barrier_fast"),
    _e("_xmpacc_async_begin", "void", "long long async_id",
       "the next runtime call belongs to a directive with async (id): it may stay in flight",
       fast="_xmpacc_async_begin_fast"),
    _e("_xmpacc_async_end", "void", "", "end of the directive that async_begin announced",
       fast="_xmpacc_async_end_fast"),
    _e("_xmpacc_wait_async", "void",
       "const char *where, int n, const long long *ids, const void *on_nodes, const long long *on_ref",
       "wait_async directive: complete every operation started under these ids",
       fast="_xmpacc_wait_async_fast"),
    _e("_xmpacc_test_async", "int", "long long async_id",
       "xmp_test_async(id): 1 if every operation of id is complete (no waiting)",
       fast="_xmpacc_test_async_fast"),
    _e("_xmpacc_task_begin", "int",
       "const char *where, const void *nodes, const long long *ref",
       "task directive: 1 if this node runs the task (its node set is pushed)",
       fast="_xmpacc_task_begin_fast"),
    _e("_xmpacc_task_end", "void", "", "end of a task this node ran (node set popped)",
       fast="_xmpacc_task_end_fast"),
    _e("_xmpacc_task_nocomm", "int",
       "const char *where, const void *nodes, const long long *ref",
       "task ... nocomm: 1 if this node is in the set (no node set is created)",
       fast="_xmpacc_task_nocomm_fast"),
    _e("_xmpacc_tasks_begin", "int",
       "const char *where, int n, const void *descs, const void *refs, const void *wheres",
       "tasks construct: the n on-refs (descriptors, refs, task lines); my task or -1"),
    _e("_xmpacc_tasks_enter", "int", "int mine, int k",
       "task k of the innermost tasks: 1 if this node runs it (its node set is pushed)"),
    _e("_xmpacc_tasks_end", "void", "", "end of a tasks construct"),
    _e("_xmpacc_nodes_subset", "void",
       "void *nodes, const char *where, const char *name, int ndims, const int *extents, "
       "const void *parent, const long long *ref",
       "nodes q[...] = p[...] (parent = 0: '= *', the executing node set)"),
    _e("_xmpacc_replicate_begin", "int",
       "const char *where, int n, const void *keys, const long long *sizes, const void *names",
       "acc replicate: device copies of n variables (size -1: aligned array, key = descriptor)"),
    _e("_xmpacc_replicate_end", "void", "int region", "end of an acc replicate region: free its copies"),
    _e("_xmpacc_replicate_sync", "void",
       "const char *where, int direction, const void *key, const char *name",
       "acc replicate_sync: whole local buffer, 0 = in (host to device), 1 = out"),
    # ---- XcalableACC data directives (acc_data.py): kinds ACC_*, sizes -1 aligned / -2 pointer
    _e("_xmpacc_acc_data_begin", "int",
       "const char *where, int n, const void *keys, const long long *sizes, const void *names, "
       "const long long *kinds, const void *secs, int cond",
       "acc data: attach n variables to the present table (secs: NULL or a section each); 0 if !cond"),
    _e("_xmpacc_acc_data_end", "void", "int region",
       "end of an acc data region: copyout and detach its variables"),
    _e("_xmpacc_acc_enter_data", "void",
       "const char *where, int n, const void *keys, const long long *sizes, const void *names, "
       "const long long *kinds, const void *secs, int cond, long long queue",
       "acc enter data (and acc declare): dynamic references; queue: ACC_SYNC or an async queue"),
    _e("_xmpacc_acc_exit_data", "void",
       "const char *where, int n, const void *keys, const long long *sizes, const void *names, "
       "const long long *kinds, const void *secs, int flags",
       "acc exit data: flags 1 = the if condition holds, 2 = finalize"),
    _e("_xmpacc_acc_update", "void",
       "const char *where, int direction, const void *key, long long size, const char *name, "
       "const long long *sec, int flags, long long queue",
       "acc update: direction 0 = device, 1 = host/self; flags 1 = if holds, 2 = if_present",
       fast="_xmpacc_acc_update_fast"),
    _e("_xmpacc_acc_wait", "void", "const char *where, int n, const long long *queues",
       "acc wait (n = -1: every queue) and the wait clause",
       fast="_xmpacc_acc_wait_fast"),
    _e("_xmpacc_acc_wait_on_device", "void", "const char *where, int n, const long long *queues",
       "an acc wait followed by device work only: every stream waits for the queues on the device, "
       "the host goes on (the compiler put the host's wait later)",
       fast="_xmpacc_acc_wait_on_device_fast"),
    _e("_xmpacc_acc_wait_devnum", "void",
       "const char *where, long long devnum, int n, const long long *queues",
       "wait(devnum: d : queues): the queues of device d of this node"),
    _e("_xmpacc_acc_deviceptr", "void *", "const char *where, const void *key, const char *name",
       "host_data use_device: the device address of a present variable"),
    _e("_xmpacc_acc_swap", "void", "const char *where, const void *key, long long size, const char *name",
       "bcast/reduction ... acc: exchange a variable's host and device copies (twice around it)"),
    _e("_xmpacc_acc_swap_reduced", "void",
       "const char *where, const void *key, long long size, const char *name, int required",
       "an XMP loop's reduction with an OpenACC construct: the swap where the variable is on the device",
       fast="_xmpacc_acc_swap_reduced_fast"),
    # ---- the OpenACC runtime library (openacc.h: include/xmpacc_openacc.c, acc_api.py); its
    # copyin, create, copyout and delete routines are the enter/exit data entries above
    _e("_xmpacc_acclib_num_devices", "int", "int type", "acc_get_num_devices(type) (acc_device_t)"),
    _e("_xmpacc_acclib_device_type", "int", "", "acc_get_device_type()"),
    _e("_xmpacc_acclib_device_num", "int", "int type",
       "acc_get_device_num(type): -1 for no device of the type"),
    _e("_xmpacc_acclib_set_device", "void", "const char *where, const char *call, int num, int type",
       "acc_set_device_num(num, type) / acc_set_device_type (num -1): this process's device, else an error"),
    _e("_xmpacc_acclib_async_test", "int", "int n, const long long *queues",
       "acc_async_test (n = -1: every queue): 1 if nothing is in flight on the queues"),
    _e("_xmpacc_acclib_update", "void",
       "const char *where, int direction, const char *name, const void *host, long long bytes",
       "acc_update_device (direction 0) / acc_update_self (1): the bytes, which a present copy must hold"),
    _e("_xmpacc_acclib_is_present", "int", "const void *host, long long bytes",
       "acc_is_present: 1 if the bytes at host lie in one device copy of the present table"),
    _e("_xmpacc_acclib_deviceptr", "void *", "const void *host",
       "acc_deviceptr: the device address of a present host byte, NULL if absent"),
    _e("_xmpacc_acclib_hostptr", "void *", "const void *dev",
       "acc_hostptr: the host address of a byte of a device copy, NULL for other addresses"),
    _e("_xmpacc_acclib_malloc", "void *", "const char *where, long long bytes",
       "acc_malloc: a device block outside the present table"),
    _e("_xmpacc_acclib_free", "void", "const char *where, const char *name, void *dev",
       "acc_free: a block acc_malloc returned, else a run-time error"),
    _e("_xmpacc_acclib_memcpy", "void",
       "const char *where, int direction, void *dst, const void *src, long long bytes",
       "acc_memcpy_to_device (direction 0) / acc_memcpy_from_device (1); "
       "the device side must be device memory"),
    _e("_xmpacc_bcast_acc", "void",
       "void *data, const char *where, long long nbytes, const void *from_nodes, "
       "const long long *from_ref, const void *on_nodes, const long long *on_ref, const char *name",
       "bcast ... acc of whole variables and elements: on their device copies (NCCL between GPUs)",
       fast="_xmpacc_bcast_acc_fast"),
    _e("_xmpacc_reduce_acc", "void",
       "void *data, const char *where, long long count, int type, int op, const void *on_nodes, "
       "const long long *on_ref, const char *name",
       "reduction ... acc of whole variables and elements: on their device copies (NCCL for + * max min)",
       fast="_xmpacc_reduce_acc_fast"),
    _e("_xmpacc_reflect_init_acc", "void",
       "void *array, const char *where, const long long *widths, int orthogonal",
       "reflect_init ... acc: plan the device copy's shadow exchange once"),
    _e("_xmpacc_reflect_orthogonal_acc", "void", "void *array, const char *where, const long long *widths",
       "reflect ... orthogonal acc: the device copy's shadow slots, no corner exchange",
       fast="_xmpacc_reflect_orthogonal_acc_fast"),
    _e("_xmpacc_reflect_do_acc", "void", "void *array, const char *where",
       "reflect_do ... acc: replay the plan of reflect_init ... acc on the device copy",
       fast="_xmpacc_reflect_do_acc_fast"),
    _e("_xmpacc_reflect_acc_overlap", "void",
       "void *array, const char *where, const long long *widths, int orthogonal, void *push",
       "reflect ... acc whose exchange the next loop's interior overlaps (_xmpacc_reflect_acc_join ends it), "
       "or (push: the site's _xmpacc_push_t, else null) its loop's kernel makes (include/xmpacc_push.h)",
       fast="_xmpacc_reflect_acc_overlap_fast"),
    _e("_xmpacc_reflect_acc_split", "int", "const char *where",
       "before an overlapped reflect's loop: 1 while an exchange is in flight (interior, rim, "
       "join), 0 when every one was made at once (one launch over the whole range)",
       fast="_xmpacc_reflect_acc_split_fast"),
    _e("_xmpacc_reflect_acc_rim", "void", "const char *where",
       "after the interior of an overlapped reflect's loop: the rim's launches follow the exchanges",
       fast="_xmpacc_reflect_acc_rim_fast"),
    _e("_xmpacc_reflect_acc_join", "void", "const char *where",
       "after an overlapped reflect's loop: later device work waits for its exchanges",
       fast="_xmpacc_reflect_acc_join_fast"),
    _e("_xmpacc_launch", "void",
       "const char *where, const char *kernel, long long total, long long nthreads, int nparams, "
       "const void *args, const long long *kinds",
       "loop ... acc: run the kernel over total iterations (kinds: LAUNCH_* triples per parameter)",
       fast="_xmpacc_launch_fast"),
    _e("_xmpacc_acc_compute_begin", "int",
       "const char *where, int n, const void *keys, const long long *sizes, const void *names, "
       "const int *modes",
       "the implicit data region of an OpenACC compute construct (modes: DATA_*, present_or semantics)",
       fast="_xmpacc_acc_compute_begin_fast"),
    _e("_xmpacc_acc_queue_begin", "void", "const char *where, long long queue",
       "async(n) on a compute construct: its kernels go on queue n (ACC_SYNC: the default queue)",
       fast="_xmpacc_acc_queue_begin_fast"),
    _e("_xmpacc_acc_queue_end", "void", "",
       "after the kernels of a compute construct: back to the queue before",
       fast="_xmpacc_acc_queue_end_fast"),
    _e("_xmpacc_acc_compute_end", "void", "int region",
       "end of a compute construct's data region: copy out and free what its begin made",
       fast="_xmpacc_acc_compute_end_fast"),
    _e("_xmpacc_acc_defer_reductions", "void", "",
       "the next launch's reductions reach their host variables at _xmpacc_acc_reductions_wait",
       fast="_xmpacc_acc_defer_reductions_fast"),
    _e("_xmpacc_acc_reductions_wait", "void", "const char *where",
       "wait for deferred reductions, combine them into their variables, "
       "run the reductions deferred after them",
       fast="_xmpacc_acc_reductions_wait_fast"),
    _e("_xmpacc_acc_reductions_discard", "void", "const void *data",
       "the host stores into this variable before it reads it: its deferred reduction result is not needed",
       fast="_xmpacc_acc_reductions_discard_fast"),
    _e("_xmpacc_replay_sync", "void", "",
       "before the glue enters Python: take over what the C side switched (include/xmpacc_queues.h)"),
    _e("_xmpacc_tasks_sync", "void", "",
       "before the glue enters Python: the tasks C entered become Python's (include/xmpacc_task_plans.h)"),
    _e("_xmpacc_params_sync", "void", "",
       "before the glue enters Python: the aligned parameters' views C made or released "
       "(include/xmpacc_params.h)"),
    _e("_xmpacc_device_wait", "void", "",
       "wait for the kernels launched so far (xmp_wtime does, so timings include them)",
       fast="_xmpacc_device_wait_fast"),
    _e("_xmpacc_section_error", "void",
       "const char *where, int what, const char *name, const long long *a, const long long *b",
       "a run-time error of an array section (SECERR_*): shapes, length, step, non-local element"),
    _e("_xmpacc_bcast_section", "void",
       "void *base, const char *where, const long long *sec, const void *from_nodes, "
       "const long long *from_ref, const void *on_nodes, const long long *on_ref",
       "bcast of a section of a local array (sec: see SEC_* below)"),
    _e("_xmpacc_gmove", "void",
       "const char *where, int mode, const void *lhs_array, void *lhs_base, const long long *lhs_sec, "
       "const void *rhs_array, void *rhs_base, const long long *rhs_sec",
       "gmove: lhs = rhs; an array is its descriptor, or NULL and a local base address; "
       "mode GMOVE_*",
       fast="_xmpacc_gmove_fast"),
    _e("_xmpacc_gmove_acc", "void",
       "const char *where, int flags, const void *lhs_array, void *lhs_base, const long long *lhs_sec, "
       "const void *rhs_array, void *rhs_base, const long long *rhs_sec, const char *lhs_name, "
       "const char *rhs_name",
       "gmove acc (XcalableACC): lhs = rhs between the device copies of both sides; "
       "flags GMOVE_ACC_HOST_SOURCE: rhs is a host value (a constant); GMOVE_ACC_IN, GMOVE_ACC_OUT: "
       "gmove in/out"),
    _e("_xmpacc_gmove_rma_init", "void", "",
       "the program has gmove in/out: distributed arrays get MPI windows (collective)"),
    _e("_xmpacc_gmove_agent_init", "void", "const char *where",
       "the program has gmove in/out acc: every node starts its gmove agent (collective; "
       "where: the first such gmove)"),
    _e("_xmpacc_exit_hook", "void", "int status",
       "the program called exit(): end the whole job with that status"),
    # ---- dynamic global data, block-scope descriptors, library (global-view §4, §8, §9)
    _e("_xmpacc_nodes_release", "void", "void *nodes",
       "end of the block of a block-scope nodes directive"),
    _e("_xmpacc_template_release", "void", "void *tmpl",
       "end of the block of a block-scope template directive"),
    _e("_xmpacc_template_fix", "void",
       "void *tmpl, const char *where, const long long *bounds, const void *gblock_maps",
       "template_fix: bounds NULL or (lower, upper) pairs; gblock maps NULL or int*[] (NULL entries)"),
    _e("_xmpacc_align_pointer", "void",
       "void *array, const char *where, const char *name, const void *tmpl, long long elem_size, "
       "int ndims, const int *tdims, const long long *offsets, const long long *shadows",
       "align of a pointer or parameter: the mapping only; _xmpacc_malloc gives it its block",
       fast="_xmpacc_align_pointer_fast"),
    _e("_xmpacc_malloc", "void *",
       "void *array, const char *where, int n, const long long *extents, void *base",
       "xmp_malloc (base NULL: allocate the local block) or an aligned parameter (base: the caller's)",
       fast="_xmpacc_malloc_fast"),
    _e("_xmpacc_free", "void", "void *base, const char *where",
       "xmp_free(p): release the block xmp_malloc returned"),
    _e("_xmpacc_forget_block", "void", "void *base",
       "free(p) in the program while xmp_malloc blocks live: forget p's array if p is one (C frees it)"),
    _e("_xmpacc_not_ready", "long long", "const void *desc, const char *where",
       "report a template not fixed yet or an aligned pointer not allocated yet (does not return)"),
    _e("_xmpacc_release_range", "void", "void *base, long long nbytes",
       "end of a block-scope object with aligned members: release the descriptors inside it"),
    _e("_xmpacc_gblock_map", "int", "const void *tmpl, int tdim, int *map",
       "xmp_dist_gblockmap: the gblock sizes of a template dimension; -1 if it is no gblock"),
    _e("_xmpacc_mpi_comm", "long long", "", "xmp_get_mpi_comm(): the executing node set's MPI_Comm"),
    _e("_xmpacc_mpi_thread_level", "int", "", "the MPI thread level the runtime initialised"),
    # ---- collective intrinsics (global-view §9; runtime/intrinsics.py).  descs: n descriptors
    # as void *[] (x, a, i1..in / v, a, mask / a, v, mask / c, a, b); types: _XMPACC_TYPE
    # of each one's elements, 0 where the call site does not know them
    _e("_xmpacc_gather", "void", "const char *where, int n, const void *descs, const int *types",
       "xmp_gather(x, a, i1, ..., in): x[k] = a[i1[k]]...[in[k]]"),
    _e("_xmpacc_scatter", "void", "const char *where, int n, const void *descs, const int *types",
       "xmp_scatter(x, a, i1, ..., in): x[i1[k]]...[in[k]] = a[k]"),
    _e("_xmpacc_pack", "void", "const char *where, int n, const void *descs, const int *types",
       "xmp_pack(v, a, mask): the elements of a where mask != 0, in row-major order, into v"),
    _e("_xmpacc_unpack", "void", "const char *where, int n, const void *descs, const int *types",
       "xmp_unpack(a, v, mask): the elements of a where mask != 0 get v's, in row-major order"),
    _e("_xmpacc_matmul", "void", "const char *where, int n, const void *descs, const int *types",
       "xmp_matmul(c, a, b): c = a b"),
    _e("_xmpacc_transpose", "void", "const char *where, const void *dst, const void *src, int opt",
       "xmp_transpose(dst, src, opt): dst[i][j] = src[j][i]"),
    _e("_xmpacc_sort", "void",
       "const char *where, const void *dst, const void *src, int type, int descending",
       "xmp_sort_up / xmp_sort_down(dst, src): dst = src sorted (type: _XMPACC_TYPE of the elements)"),
    _e("_xmpacc_check_fail", "void",
       "const void *array, int what, const long long *globals, const char *file, int line",
       "checked builds (include/xmpacc_check.h): an access of element globals of array broke "
       "rule what (1: not on this node, 2: a kernel's writes are still on the device); ends the job"),
)

# Local view (coarrays, global-view §11; runtime/coarray.py).  ``image`` is
# {number of coindices, coindex...} in C order; element operations name the element by its
# address in this image's copy (the same offset in every image).
ENTRIES += (
    _e("_xmpacc_coarray_init", "void",
       "void *coarray, const char *where, const char *name, long long nbytes, long long elem_size, "
       "int ncodims, const long long *codims",
       "a file-scope coarray: an MPI window over its storage (collective); codims -1 for '*'"),
    _e("_xmpacc_local_view_init", "void", "",
       "the control window of post/wait, sync_images and critical (collective, once)"),
    _e("_xmpacc_coarray_put", "void",
       "void *coarray, const char *where, const long long *image, const long long *remote_sec, "
       "const void *local, const long long *local_sec",
       "a[sec]:[k] = b[sec] (a local section, or a scalar for every element)"),
    _e("_xmpacc_coarray_get", "void",
       "void *coarray, const char *where, const long long *image, const long long *remote_sec, "
       "const void *local, const long long *local_sec",
       "b[sec] = a[sec]:[k]"),
    _e("_xmpacc_coarray_put_elem", "void",
       "void *coarray, const char *where, const long long *image, const void *elem, "
       "const void *value, long long nbytes",
       "a[i]:[k] = value"),
    _e("_xmpacc_coarray_get_elem", "void *",
       "void *coarray, const char *where, const long long *image, const void *elem, long long nbytes",
       "a[i]:[k] in an expression: the address of a copy of the element (valid for a while)"),
    _e("_xmpacc_sync_all", "void", "const char *where", "sync_all directive"),
    _e("_xmpacc_sync_memory", "void", "const char *where", "sync_memory directive"),
    _e("_xmpacc_sync_images", "void", "const char *where, int n, const long long *images",
       "sync_images directive; n = -1: every image"),
    _e("_xmpacc_sync_image_list", "void", "const char *where, int n, const int *images",
       "xmp_sync_images(n, images, status) and xmp_sync_image: a list of the user's ints"),
    _e("_xmpacc_post", "void", "const char *where, const void *nodes, const long long *ref, long long tag",
       "post (p[k], tag)"),
    _e("_xmpacc_wait", "void",
       "const char *where, const void *nodes, const long long *ref, int has_tag, long long tag",
       "wait [(p[k] [, tag])]; nodes NULL: a post from any node"),
    _e("_xmpacc_coarray_lock", "void",
       "void *coarray, const char *where, const long long *image, const void *elem, int release",
       "lock / unlock (l:[k]) on an xmp_lock_t coarray element"),
    _e("_xmpacc_critical", "void", "const char *where, int end", "critical / end critical"),
)

# Coarrays on the device (XcalableACC §5a; runtime/coarray_device.py).  Inside ``host_data
# use_device`` a name of the list is its device address; ``flags`` say which sides are
# device copies: COARRAY_ON_DEVICE (the coarray's, on this image and image k) and
# LOCAL_ON_DEVICE (the local side's).
ENTRIES += (
    _e("_xmpacc_coarray_device_init", "void", "void *coarray, const char *where",
       "acc declare create/copyin of a coarray at file scope: its device copy is a coarray "
       "too (collective, after the declare's enter data)"),
    _e("_xmpacc_coarray_put_acc", "void",
       "void *coarray, const char *where, const long long *image, const long long *remote_sec, "
       "const void *local, const long long *local_sec, long long flags",
       "a[sec]:[k] = b[sec] with device copies (flags)"),
    _e("_xmpacc_coarray_get_acc", "void",
       "void *coarray, const char *where, const long long *image, const long long *remote_sec, "
       "const void *local, const long long *local_sec, long long flags",
       "b[sec] = a[sec]:[k] with device copies (flags)"),
    _e("_xmpacc_coarray_get_elem_acc", "void *",
       "void *coarray, const char *where, const long long *image, const void *elem, long long nbytes",
       "a[i]:[k] of a's device copy, in an expression: the address of a host copy of the element"),
)

BY_NAME = {e.name: e for e in ENTRIES}

HEADER = "xmpacc_rt.h"   # include/xmpacc_rt.h: the prototypes of ENTRIES, rendered by c_header()


def prototype(e: Entry) -> str:
    params = ", ".join(f"{t} {n}" for t, n in e.params) or "void"
    return f"{e.returns} {e.name}({params})"


def c_header() -> str:
    """The text of include/xmpacc_rt.h.  It is checked in (generated host C includes it
    through xmpacc.h, and separately compiled objects need it without the compiler), and
    tests/test_contract.py checks that it is what this function renders; after changing
    ENTRIES, rewrite it with ``python -m xmpacc.runtime.contract > runtime/include/xmpacc_rt.h``."""
    lines = ["/* xmpacc_rt.h: the runtime calls that generated host C may make.",
             " * Generated from runtime/contract.py (python -m xmpacc.runtime.contract); do not edit. */",
             "#ifndef XMPACC_RT_H", "#define XMPACC_RT_H", ""]
    lines += [f"{prototype(e)};" for e in ENTRIES]
    lines += ["", "#endif", ""]
    return "\n".join(lines)


@functools.cache
def contract_id() -> str:
    """A fingerprint of the entries and of the C side's headers (include/*.h: the plans'
    structures, which this Python writes and the program's glue reads): an executable
    built against another contract (another xmpacc) is refused at start-up instead of
    calling the wrong functions or reading plans of another layout."""
    return fingerprint(ENTRIES, Path(__file__).parent / "include")


def fingerprint(entries: tuple[Entry, ...], include: Path) -> str:
    """contract_id's digest of ``entries`` and of the headers in ``include``."""
    import hashlib

    text = ";".join(f"{e.returns} {e.name}({','.join(t for t, _ in e.params)})" for e in entries)
    digest = hashlib.sha256(text.encode())
    for header in sorted(include.glob("*.h")):
        digest.update(header.name.encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()[:16]

# Reduction operators and element types, shared by xmpacc.h and the runtime.
REDUCTION_OPS = {"+": 1, "-": 1, "*": 2, "&": 3, "|": 4, "^": 5, "&&": 6, "||": 7, "max": 8, "min": 9,
                 "firstmax": 10, "firstmin": 11, "lastmax": 12, "lastmin": 13}

# Node/template reference encoding in ``const long long *ref``: ref[0] = number of
# subscripts, then four numbers per subscript (kind, a, b, c): an index a; a triplet a:b:c;
# a:(last index):c; '*'; (first index):b:c; (first):(last):c.  The descriptor beside it is
# a node array or a template (runtime/nodesets.py).
REF_INDEX, REF_TRIPLET, REF_TRIPLET_TO_END, REF_STAR = 0, 1, 2, 3
REF_FROM_START, REF_ALL = 4, 5

# Sections in ``const long long *sec`` (runtime/sections.py): sec[0] = number of
# subscripts, sec[1] = element size, then five numbers per subscript: the dimension's
# extent (-1: unknown), SEC_INDEX or SEC_TRIPLET, base, length, step (lengths resolved).
SEC_INDEX, SEC_TRIPLET = 0, 1
# ``_xmpacc_section_error``'s ``what``: a and b are {n, values...} or {dimension, value}.
SECERR_SHAPE, SECERR_LENGTH, SECERR_STEP, SECERR_NOT_LOCAL = 0, 1, 2, 3
# ``_xmpacc_gmove``'s mode: without in/out, in, out.
GMOVE_COLLECTIVE, GMOVE_IN, GMOVE_OUT = 0, 1, 2
GMOVE_ACC_HOST_SOURCE, GMOVE_ACC_IN, GMOVE_ACC_OUT = 1, 2, 4   # flags of _xmpacc_gmove_acc

# Kernel parameter kinds in ``_xmpacc_launch``: three numbers per parameter (kind, a, b).
LAUNCH_VALUE = 0       # a host value; a = its size in bytes
LAUNCH_DEVBUF = 1      # the device copy of a replicated variable (key = host address);
                       # a = LAUNCH_READS | LAUNCH_WRITES: what the kernel does with it
LAUNCH_DEVDESC = 2     # an aligned array's descriptor, by value, its template pointer on the device
LAUNCH_REDUCTION = 3   # per-thread partials; a = type code, b = operator (+ the flags below);
                       # host var at the address
REDUCTION_TO_HOST = 512      # in a LAUNCH_REDUCTION's b: the result goes to the host variable even
                             # where it has a device copy (XMP-ACC, reference §7.4: host semantics)
LAUNCH_LANES = 4       # int: lanes per iteration, chosen by the runtime (1 = the paper's mapping)
LAUNCH_GRID2 = 5       # int: 1 when the runtime launched a 2-D grid; a = number of distributed loops,
                       # b = threads per block along y that the compiler asks for (kernels.block_rows)
LAUNCH_LOCATED = 6     # a reduction with location variables: per-warp keys (a = numbers per key, key[0]
                       # = changed, b = operator); the host key array at the address; the fields follow
LOCATED_IN_PARTS = 1024     # in a LAUNCH_LOCATED's b: the loop launches its kernel once per part (margin
                            # cells, peel_and_wait's passes); the host key array goes on with the launches so
                            # far and each watched variable's value before the loop (a word each), from which
                            # every launch starts (runtime/acc_locations.py)
LAUNCH_LOCFIELD = 7    # per-warp partials of its value, then of each location variable; a = type code
LAUNCH_ARRED = 8       # a reduction array's device temporary, of the whole array's shape; at the address the
                       # host's long long [4]: {array address, its bytes, reduced section's offset and bytes};
                       # a = element type code, b = operator (runtime/acc_arrays.py)
LAUNCH_SCRATCH = 9     # each thread's private array of a size known at run time
                       # (passes/kernel/kernel_private.py): the bytes per thread at the address; a slot per
                       # thread id (one on the host backend)
LAUNCH_PUSH = 10       # the site's _xmpacc_push_t by value (include/xmpacc_push.h, runtime/acc_push.py); a =
                       # its size; while active the kernel is launched even with no iterations here (it
                       # still exchanges)
LAUNCH_READS, LAUNCH_WRITES = 1, 2

# ``flags`` of _xmpacc_coarray_put_acc / _get_acc: which sides are device copies.
COARRAY_ON_DEVICE, LOCAL_ON_DEVICE = 1, 2

# Data clause kinds of the XcalableACC data entries (the present_or_ forms are the plain ones,
# OpenACC 2.5).
ACC_COPY, ACC_COPYIN, ACC_COPYOUT, ACC_CREATE, ACC_PRESENT, ACC_DELETE, ACC_DEVICEPTR = 0, 1, 2, 3, 4, 5, 6
# Activity queues (XcalableACC §3): no async clause, and ``async`` without a queue number.
ACC_SYNC, ACC_ASYNC_NOVAL = -1, -2
# Data clause modes of ``_xmpacc_acc_compute_begin`` (every one with present_or semantics).
DATA_PRESENT, DATA_COPY, DATA_COPYIN, DATA_COPYOUT, DATA_CREATE = 0, 1, 2, 3, 4


if __name__ == "__main__":
    import sys

    sys.stdout.write(c_header())
