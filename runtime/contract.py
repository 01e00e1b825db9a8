"""The one contract between generated code and the runtime.

Every runtime entry point that generated C may call is listed here once, with its C
signature.  The compiler renders the C side from this list (``templates/glue.c.j2``: a
table of function pointers and one forwarding function per entry) and the launcher binds
each entry to the Python function of the same name in ``xmpacc.runtime.api``.  A test
checks that both sides agree.  This module imports nothing but the standard library, so
the compiler may import it without pulling in MPI or CUDA.
"""

from __future__ import annotations

from dataclasses import dataclass

# C parameter types, spelled as in C.  Pointers to descriptors travel as ``void *``.
C_TYPES = ("void", "int", "long long", "double", "const char *", "void *", "const void *",
           "const int *", "const long long *", "int *")


@dataclass(frozen=True, slots=True)
class Entry:
    name: str                 # C name, always starting with _xmpacc_
    returns: str
    params: tuple[tuple[str, str], ...]   # (C type, parameter name)
    doc: str

    @property
    def arity(self) -> int:
        return len(self.params)


def _e(name: str, returns: str, params: str, doc: str) -> Entry:
    pairs = []
    for p in filter(None, (s.strip() for s in params.split(","))):
        ctype, pname = p.rsplit(" ", 1)
        while pname.startswith("*"):
            ctype, pname = ctype + " *", pname[1:]
        pairs.append((ctype.replace("  ", " "), pname))
    return Entry(name, returns, tuple(pairs), doc)


# ``where`` is always "file.c:line" of the directive, for run-time error messages.
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
       "frees the local buffer of a block-scope distributed array"),
    _e("_xmpacc_reflect", "void",
       "void *array, const char *where, const long long *widths",
       "reflect directive; widths NULL or (lo, hi, periodic) per dimension"),
    _e("_xmpacc_reflect_acc", "void",
       "void *array, const char *where, const long long *widths",
       "reflect ... acc: the shadow slots of the array's device copy, device to device"),
    _e("_xmpacc_loop_reduce_begin", "void",
       "const void *tmpl, const int *loop_dims, void *data, long long count, int type, int op",
       "reduction clause, before the loop: identity on all but the first node of each set"),
    _e("_xmpacc_loop_reduce", "void",
       "const void *tmpl, const char *where, const int *loop_dims, void *data, long long count, "
       "int type, int op",
       "reduction clause of a loop: combine over the nodes that ran different iterations"),
    _e("_xmpacc_reduce", "void",
       "void *data, const char *where, long long count, int type, int op, const void *on_nodes, "
       "const long long *on_ref",
       "reduction directive over the executing node set or an on-set"),
    _e("_xmpacc_bcast", "void",
       "void *data, const char *where, long long nbytes, const void *from_nodes, "
       "const long long *from_ref, const void *on_nodes, const long long *on_ref",
       "bcast directive"),
    _e("_xmpacc_barrier", "void",
       "const char *where, const void *on_nodes, const long long *on_ref",
       "barrier directive"),
    _e("_xmpacc_async_begin", "void", "long long async_id",
       "the next runtime call belongs to a directive with async (id): it may stay in flight"),
    _e("_xmpacc_async_end", "void", "", "end of the directive that async_begin announced"),
    _e("_xmpacc_wait_async", "void",
       "const char *where, int n, const long long *ids, const void *on_nodes, const long long *on_ref",
       "wait_async directive: complete every operation started under these ids"),
    _e("_xmpacc_test_async", "int", "long long async_id",
       "xmp_test_async(id): 1 if every operation of id is complete (no waiting)"),
    _e("_xmpacc_task_begin", "int",
       "const char *where, const void *nodes, const long long *ref",
       "task directive: 1 if this node runs the task (its node set is pushed)"),
    _e("_xmpacc_task_end", "void", "", "end of a task this node ran (node set popped)"),
    _e("_xmpacc_replicate_begin", "int",
       "const char *where, int n, const void *keys, const long long *sizes, const void *names",
       "acc replicate: device copies of n variables (size -1: aligned array, key = descriptor)"),
    _e("_xmpacc_replicate_end", "void", "int region", "end of an acc replicate region: free its copies"),
    _e("_xmpacc_replicate_sync", "void",
       "const char *where, int direction, const void *key, const char *name",
       "acc replicate_sync: whole local buffer, 0 = in (host to device), 1 = out"),
    _e("_xmpacc_launch", "void",
       "const char *where, const char *kernel, long long total, long long nthreads, int nparams, "
       "const void *args, const long long *kinds",
       "loop ... acc: run the kernel over total iterations (kinds: LAUNCH_* triples per parameter)"),
    _e("_xmpacc_device_wait", "void", "",
       "wait for the kernels launched so far (xmp_wtime does, so timings include them)"),
    _e("_xmpacc_exit_hook", "void", "int status",
       "the program called exit(): end the whole job with that status"),
    _e("_xmpacc_check_fail", "void",
       "const void *array, int what, const long long *globals, const char *file, int line",
       "checked builds (include/xmpacc_check.h): an access of element globals of array broke "
       "rule what (1: not on this node, 2: a kernel's writes are still on the device); ends the job"),
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


def contract_id() -> str:
    """A fingerprint of the entries: an executable built against another contract (an
    older xmpacc) is refused at start-up instead of calling the wrong functions."""
    import hashlib

    text = ";".join(f"{e.returns} {e.name}({','.join(t for t, _ in e.params)})" for e in ENTRIES)
    return hashlib.sha256(text.encode()).hexdigest()[:16]

# Reduction operators and element types, shared by xmpacc.h and the runtime.
REDUCTION_OPS = {"+": 1, "-": 1, "*": 2, "&": 3, "|": 4, "^": 5, "&&": 6, "||": 7, "max": 8, "min": 9}

# Node/template reference encoding in ``const long long *ref``: ref[0] = number of
# subscripts, then four numbers per subscript (kind, a, b, c).
REF_INDEX, REF_TRIPLET, REF_TRIPLET_TO_END, REF_STAR = 0, 1, 2, 3

# Kernel parameter kinds in ``_xmpacc_launch``: three numbers per parameter (kind, a, b).
LAUNCH_VALUE = 0       # a host value; a = its size in bytes
LAUNCH_DEVBUF = 1      # the device copy of a replicated variable (key = host address);
                       # a = LAUNCH_READS | LAUNCH_WRITES: what the kernel does with it
LAUNCH_DEVDESC = 2     # an aligned array's descriptor, by value, its template pointer on the device
LAUNCH_REDUCTION = 3   # per-thread partials; a = type code, b = operator; host var at the address
LAUNCH_LANES = 4       # int: lanes per iteration, chosen by the runtime (1 = the paper's mapping)
LAUNCH_GRID2 = 5       # int: 1 when the runtime launched a 2-D grid; a = number of distributed loops
LAUNCH_READS, LAUNCH_WRITES = 1, 2


if __name__ == "__main__":
    import sys

    sys.stdout.write(c_header())
