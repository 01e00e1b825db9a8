"""The OpenACC runtime library's calls (openacc.h, OpenACC 2.6 §3), lowered for the library pass.

A routine that can fail at run time, or that waits, is called in its located form, with the
call's line and the text of its first argument for the runtime's messages (the routines
themselves are in runtime/include/xmpacc_openacc.c):

Before:                                        After:
    acc_update_device(a, n * sizeof *a);           _xmpacc_openacc_update_device("f.c:12", "a", a,
                                                                                 n * sizeof *a);
    acc_wait(1);                                   _xmpacc_openacc_wait("f.c:13", "1", 1);

A file that includes openacc.h gives the program its device (the runtime starts one only for
programs with device code), the routines being usable through pointers too.  The data
routines take host memory: a distributed array's device copy is its local block with
shadows, which the data directives handle, so it is refused here.  Kernels may call
acc_on_device only (kernel_vars.py, acc_routine.py).
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.cbuild import loc_of
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.symbols import Scope

PREFIX = "_xmpacc_openacc_"
HEADER = "openacc.h"

# host-memory routines: their first argument is a host address
_DATA = frozenset(["acc_copyin", "acc_present_or_copyin", "acc_pcopyin", "acc_create",
                   "acc_present_or_create", "acc_pcreate", "acc_copyout", "acc_copyout_finalize",
                   "acc_delete", "acc_delete_finalize", "acc_update_device", "acc_update_self"])
LOCATED = _DATA | frozenset(["acc_set_device_type", "acc_set_device_num", "acc_wait", "acc_wait_async",
                             "acc_wait_all", "acc_wait_all_async", "acc_async_wait", "acc_async_wait_all",
                             "acc_malloc", "acc_free", "acc_memcpy_to_device", "acc_memcpy_from_device"])
IN_KERNELS = frozenset(["acc_on_device"])   # xmpacc_kernel.h defines it for kernels
ROUTINES = LOCATED | IN_KERNELS | frozenset([
    "acc_get_num_devices", "acc_get_device_type", "acc_get_device_num", "acc_init", "acc_shutdown",
    "acc_async_test", "acc_async_test_all", "acc_is_present", "acc_deviceptr", "acc_hostptr"])
_HOST_MEMORY = _DATA | frozenset(["acc_is_present", "acc_deviceptr"])


def routine(node: c_ast.Node) -> str | None:
    """The OpenACC routine ``node`` calls, if it is such a call."""
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in ROUTINES:
        return node.name.name
    return None


def device_call_error(name: str) -> str | None:
    """The message for a call of ``name`` in device code, when it is a host-only routine of
    the OpenACC library (in either form), else None."""
    user = "acc_" + name[len(PREFIX):] if name.startswith(PREFIX) else name
    if user in ROUTINES and user not in IN_KERNELS:
        return (f"call of '{user}' in device code: the OpenACC runtime library runs on the host "
                f"(acc_on_device is the routine that device code may call)")
    return None


def uses_device(unit: Unit, ctx: Context) -> None:
    """A unit that includes openacc.h needs the program's device, as device data do."""
    if HEADER in unit.pre.system_includes:
        ctx.device_data = True


def lower(call: c_ast.FuncCall, scope: Scope, unit: Unit) -> c_ast.Node:
    """``call`` (a ``routine``) in its located form where it has one."""
    name = call.name.name   # type: ignore[union-attr]
    args = list(call.args.exprs) if call.args is not None else []
    first = args[0] if args else None
    if name in _HOST_MEMORY and isinstance(first, c_ast.ID) and scope.find_array(first.name) is not None:
        raise XmpError(loc_of(first), f"{name} of the distributed array '{first.name}': the OpenACC data "
                                      f"routines take host memory; use the data directives ('#pragma acc "
                                      f"enter data copyin({first.name})', 'acc update', ...), whose device "
                                      f"copy of it is its local block")
    if name not in LOCATED or HEADER not in unit.pre.system_includes:
        return call   # declared by the program itself: its own function
    what = cbuild.to_c(first) if first is not None else ""
    extra = [c_ast.Constant("string", cbuild.where_literal(loc_of(call))),
             c_ast.Constant("string", cbuild.c_string(what))]
    return c_ast.FuncCall(c_ast.ID(PREFIX + name[len("acc_"):], call.name.coord),
                          c_ast.ExprList(extra + args, call.coord), call.coord)
