"""What a checked run says about a bad access (the contract entry ``_xmpacc_check_fail``).

The checked subscripts of include/xmpacc_check.h call ``_xmpacc_check_fail(array, what,
globals, file, line)`` on the host; the CUDA backend reads the same facts from the
kernel's ``_xmpacc_violation`` after a launch (checked_run.py).  Both end the job with one
message at the line of the access:

    heat.c:42: error: u[50] is not on node 1 (owner: node 2); shadow u[1] + reflect (u) would bring it
"""

from __future__ import annotations

import os

from .arrays import DistArray, read_longs
from .cstructs import DIST_BLOCK, DIST_GBLOCK, CArray
from .distribution import ArrayDimLayout, DistributionError, local_index
from .errors import RuntimeFailure
from .shared import Shared

NOT_LOCAL, DEVICE_NEWER = 1, 2     # ``what`` (xmpacc_check.h: _XMPACC_CHECK_*)


def element(arr: DistArray, g: list[int]) -> str:
    return arr.name + "".join(f"[{x}]" for x in g)


def holds(lay: ArrayDimLayout, g: int) -> bool:
    """Does the node's buffer hold index g of this dimension (owned or a shadow slot)?  The
    rule of ``_xmpacc_check_dim`` (include/xmpacc_check.h): ``local_index`` for indices of
    the array, and the shadow slots beyond the ends of a block dimension too (periodic)."""
    if lay.kind in (DIST_BLOCK, DIST_GBLOCK):
        return lay.owned_count > 0 and \
            lay.owned_first - lay.shadow_lo <= g < lay.owned_first + lay.owned_count + lay.shadow_hi
    try:
        local_index(lay, g)
        return True
    except DistributionError:
        return False


def _declared(arr: DistArray, d: int) -> str:
    lay = arr.layouts[d]
    if lay.full_shadow:
        return "*"
    return str(lay.shadow_lo) if lay.shadow_lo == lay.shadow_hi else f"{lay.shadow_lo}:{lay.shadow_hi}"


def not_local(arr: DistArray, g: list[int], me: int) -> str:
    """``u[50] is not on node 1 (owner: node 2)`` and the shadow that would bring it."""
    text = element(arr, g)
    failing = [d for d in range(len(g)) if not holds(arr.layouts[d], g[d])]
    for d in failing:
        lay = arr.layouts[d]
        if not 0 <= g[d] < lay.extent:
            where = f"'{arr.name}'" if len(g) == 1 else f"dimension {d} of '{arr.name}'"
            return f"{text} is outside the array: {where} has {lay.extent} elements (0..{lay.extent - 1})"
    nodes = arr.template.nodes
    assert nodes is not None
    coords = list(nodes.coords)
    widths = [_declared(arr, d) for d in range(len(g))]
    cyclic = False
    for d in failing:
        lay, nd = arr.layouts[d], arr.template.node_dims[arr.tdims[d]]
        assert lay.dist is not None
        owner, mine = lay.dist.owner(g[d] + lay.offset), coords[nd]
        coords[nd] = owner
        cyclic |= lay.dist.kind == "cyclic"
        first, last = lay.owned_first, lay.owned_first + lay.owned_count - 1
        distance = first - g[d] if g[d] < first else g[d] - last
        if abs(owner - mine) == 1 and 0 < 2 * distance <= lay.owned_count:   # a neighbour's edge
            widths[d] = str(max(distance, lay.shadow_lo, lay.shadow_hi))
        else:
            widths[d] = "*"
    message = f"{text} is not on node {me} (owner: node {nodes.rank_of(tuple(coords))})"
    if cyclic:
        return message + f"; '{arr.name}' is cyclic-distributed there, and cyclic dimensions take no shadow"
    shadow = arr.name + "".join(f"[{w}]" for w in widths)
    return message + f"; shadow {shadow} + reflect ({arr.name}) would bring it"


def device_newer(arr: DistArray, g: list[int], kernel: str | None, freed: bool) -> str:
    name = arr.name
    by = f"a kernel ({kernel})" if kernel else "a kernel"
    gone = " and its device copy was freed at the end of the acc replicate region" if freed else ""
    return (f"the host accesses {element(arr, g)}, but {by} wrote '{name}' on the device after the last "
            f"acc replicate_sync out ({name}){gone}: the host copy is stale; add "
            f"'#pragma xmp acc replicate_sync out ({name})' after that loop")


class Checks:
    """The contract entry of checked builds (a concern of ``api.Runtime``; an unchecked
    build never calls it) and what a checked run knows of its arrays, which only
    checked_run.py fills: ``ids`` maps descriptor ids to descriptor addresses (a kernel
    reports through a copy of the descriptor, whose id is all that identifies the array),
    ``device_writer`` the kernel that last wrote an aligned array's device copy after its
    host copy, ``freed_newer`` those of them whose device copy is gone."""

    def __init__(self, shared: Shared) -> None:
        self.arrays, self.world = shared.arrays, shared.world
        self.ids: dict[int, int] = {}
        self.device_writer: dict[int, str] = {}      # aligned array key -> kernel loop
        self.freed_newer: set[int] = set()           # ... whose device copy is gone

    def _checked_array(self, array: int) -> tuple[int, DistArray]:
        desc = CArray.from_address(array)
        key = self.ids.get(desc.id, array)
        arr = self.arrays.get(key)
        if arr is None and desc.base:
            # a copy of a descriptor (host loops hoist one, hoist.py) in a program that
            # gave no ids (a -fcheck object in an unchecked program): the block it describes
            key = next((k for k in self.arrays if CArray.from_address(k).base == desc.base), key)
            arr = self.arrays.get(key)
        if arr is None:
            raise RuntimeFailure("?", "checked access of an array the runtime does not know")
        return key, arr

    def access_failure(self, key: int, arr: DistArray, what: int, g: list[int], where: str) -> RuntimeFailure:
        if what == DEVICE_NEWER:
            writer = self.device_writer.get(key)
            freed = key in self.freed_newer
            return RuntimeFailure(where, device_newer(arr, g, writer, freed))
        err = RuntimeFailure(where, not_local(arr, g, self.world.Get_rank()))
        err.names_node = True
        return err

    def _xmpacc_check_fail(self, array: int, what: int, globals_: int, file: bytes, line: int) -> None:
        key, arr = self._checked_array(array)
        g = read_longs(globals_, len(arr.layouts))
        where = f"{os.path.basename(file.decode(errors='replace'))}:{line}"
        raise self.access_failure(key, arr, what, g, where)
