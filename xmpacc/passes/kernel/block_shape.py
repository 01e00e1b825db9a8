"""The thread block of a kernel when the program gives its size.

A program sizes its blocks with OpenACC's ``vector_length(n)`` / ``num_workers(n)`` (or
``vector(n)`` / ``worker(n)`` on a loop) or with XMP-ACC's ``num_threads(x, y, z)``.
These are hints about the mapping, not about the result, and users write them for other
compilers (``vector_length(64)`` is what PGI/NVHPC users put on a Himeno sweep).  Before,
a given size meant one thread per iteration in 1-D blocks of that size, without the
streaming walk: 3-4x slower than the same loop written without it.  Now a size is
*honoured as the block's shape* and the kernel keeps its plan (streaming, row indices):

* the vector length (``num_threads``' first value) is the block's width along the
  innermost loop, the workers (its second and third values) its rows; without workers,
  the rows the compiler picks for the nest (kernels.block_rows: 4 for a 3-D stencil,
  whose neighbouring rows then share a block's L1) -- so ``vector_length(64)`` on a 3-D
  stencil is the 64 x 4 block that the plain spelling gets;
* a width that is not a whole number of warps (below 32, or not a multiple of 32) or a
  block over 1,024 threads is overridden with the default block, with a warning at the
  directive (``-Werror`` makes it an error): a partial warp idles lanes on every load,
  which is the cliff the size would cause, and no GPU runs a block over 1,024 threads;
* a size known only at run time is honoured as a 1-D block of that many threads;
* ``num_gangs`` is not a block size: the grid follows from the iterations (one thread per
  iteration or per walk), so it is ignored and ``--info`` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from xmpacc.passes.common.accesses import text_value

MAX_BLOCK = 1024   # threads per block on every CUDA GPU since compute capability 2.0


@dataclass(frozen=True, slots=True)
class BlockRequest:
    """Block sizes as the program gives them (C expression texts)."""

    width: str | None       # threads along the innermost loop: vector_length, num_threads' x
    rows: str | None        # threads along the next loop: num_workers, num_threads' y (* z)
    text: str               # the clauses as written, for --info
    gangs: str | None = None   # num_gangs: ignored (the grid follows from the iterations)


@dataclass(frozen=True, slots=True)
class BlockShape:
    """What the launch asks for: threads per block (C text, "0": the runtime's default)
    and rows along y (runtime/device.py makes the block ``threads / rows`` wide)."""

    threads: str
    rows: int
    remark: str             # --info: how the request was honoured, or why not
    overridden: bool = False   # the request was not honoured: a warning at the directive


def shape(request: BlockRequest | None, default_rows: int) -> BlockShape:
    """The block of a kernel whose nest would get ``default_rows`` rows unasked
    (kernels.block_rows); threads "0" leave the count to the kernel's plan and the runtime."""
    if request is None or (request.width is None and request.rows is None):
        remark = f"num_gangs({request.gangs}) ignored: the grid follows from the iterations" \
            if request is not None and request.gangs else ""
        return BlockShape("0", default_rows, remark)
    rows = text_value(request.rows) if request.rows is not None else default_rows
    width = text_value(request.width) if request.width is not None else \
        max(32, 256 // max(rows or 1, 1) // 32 * 32)   # workers alone: about 256 threads
    if width is None or rows is None:   # known at run time: that many threads, one row
        count = " * ".join(f"({t})" for t in (request.width, request.rows) if t is not None)
        return BlockShape(count, 1, f"blocks of {request.text} threads")
    if request.rows is None and width * rows > MAX_BLOCK:   # the compiler's rows give way
        rows = max(1, MAX_BLOCK // width)
    if width < 32 or width % 32 or rows < 1 or width * rows > MAX_BLOCK:
        why = (f"a width of {width} is not a whole number of 32-thread warps" if width < 32 or width % 32
               else f"{width} x {rows} threads are more than a block holds" if rows >= 1
               else f"{rows} rows")
        return BlockShape("0", default_rows, f"{request.text} overridden ({why}): the default block", True)
    return BlockShape(str(width * rows), rows, f"blocks of {width} x {rows} threads ({request.text})")
