"""xmp_matmul (global-view §9): c = a b for distributed two-dimensional arrays.

a, b and c are first moved onto row blocks over the executing node set (``row_blocks``:
node r holds rows of a and c of one block and one block of the rows of b).  Node r then
computes its rows of c as the sum over the blocks s of a[rows_r][cols_s] b[rows_s][:],
passing the blocks of b around a ring of the nodes, P steps of one message each, and
the row blocks of c go to c's own mapping.  Each node holds a P-th of each matrix plus
one block of b in flight: nothing is replicated.
"""

from __future__ import annotations

import numpy as np

from .intrinsic_data import Global, Group, move, row_blocks


def matmul(c: Global, a: Global, b: Global, group: Group, me_world: int, where: str) -> None:
    n, m = a.shape
    q = b.shape[1]
    ra = row_blocks(a.name, a.shape, group, a.dtype)
    rb = row_blocks(b.name, b.shape, group, b.dtype)
    rc = row_blocks(c.name, c.shape, group, c.dtype)
    move(a, ra, group, me_world, where)
    move(b, rb, group, me_world, where)
    p, me = group.size, group.me
    dist = rb.dims[0].dist
    assert dist is not None
    rows_a = ra.values().reshape(-1, m)
    acc = np.zeros((len(rows_a), q), dtype=c.dtype)
    block = rb.values().reshape(-1, q)
    for step in range(p):
        s = (me + step) % p
        first, count = dist.owned_first(s), dist.owned_count(s)
        if count and len(rows_a):
            acc += rows_a[:, first:first + count] @ block
        if step + 1 < p:
            nxt = dist.owned_count((s + 1) % p)
            incoming = np.empty((nxt, q), dtype=b.dtype)
            group.comm.Sendrecv(np.ascontiguousarray(block).view(np.uint8).reshape(-1), dest=(me - 1) % p,
                                recvbuf=incoming.view(np.uint8).reshape(-1), source=(me + 1) % p)
            block = incoming
    rc.values()[:] = acc.reshape(-1).astype(c.dtype)
    move(rc, c, group, me_world, where)
