"""The partials kernel: a launch's partial results (one per warp) reduced to one value on
the GPU, behind the kernel (include/xmpacc_results.h launches it, from the general path
and the replayed one alike).

One launch: each block of 256 threads folds a grid-stride share of the partials, writes
its value, and the last block to finish (a counter; ``__threadfence`` orders the writes)
folds the blocks' values into ``out`` and resets the counter for the next launch.  The
grid is fixed per partial count and GPU, so the order of the operations, and a floating
sum's rounding, is the same at every launch.  A kernel per variable type and operator,
compiled on first use (NVRTC; CuPy keeps the binary on disk).
"""

from __future__ import annotations

from typing import Any

import numpy as np

BLOCK = 256

# _XMPACC_TYPE code -> C type (the codes of include/xmpacc.h that the C side reduces)
CTYPES = {2: "signed char", 3: "signed char", 4: "unsigned char", 5: "short", 6: "unsigned short",
          7: "int", 8: "unsigned int", 9: "long long", 10: "unsigned long long", 11: "long long",
          12: "unsigned long long", 13: "float", 14: "double"}

# XMP operator -> a op b (a, b of type T); max and min keep a NaN, as CuPy's do
_OPS = {1: "a + b", 2: "a * b", 3: "a & b", 4: "a | b", 5: "a ^ b", 6: "a && b", 7: "a || b",
        8: "(b > a || b != b) ? b : a", 9: "(b < a || b != b) ? b : a"}

_SOURCE = """
typedef {ctype} T;
static __device__ __forceinline__ T op(T a, T b) {{ return (T)({expr}); }}
static __device__ __forceinline__ T load(T x) {{ return {load}; }}

/* the block's values folded into s[0] (every thread's a in s first) */
static __device__ __forceinline__ void block_fold(T *s, T a)
{{
  s[threadIdx.x] = a;
  __syncthreads();
  for (int w = {block} / 2; w > 0; w >>= 1) {{
    if (threadIdx.x < w) s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }}
}}

extern "C" __global__ void _xmpacc_partials(const T *in, long long n, T *blocks, unsigned int *done,
                                            T *out)
{{
  __shared__ T s[{block}];
  __shared__ bool last;
  T a = (T)({identity});
  const long long stride = (long long)gridDim.x * {block};
  for (long long i = (long long)blockIdx.x * {block} + threadIdx.x; i < n; i += stride)
    a = op(a, load(in[i]));
  block_fold(s, a);
  if (threadIdx.x == 0) {{
    blocks[blockIdx.x] = s[0];
    __threadfence();
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }}
  __syncthreads();
  if (!last) return;
  a = (T)({identity});
  for (unsigned i = threadIdx.x; i < gridDim.x; i += {block})
    a = op(a, ((volatile T *)blocks)[i]);
  block_fold(s, a);
  if (threadIdx.x == 0) {{
    *out = s[0];
    *done = 0;
  }}
}}
"""


def identity(type_code: int, op: int) -> str:
    """The C literal that leaves ``op(a, identity) == a`` (max: the type's lowest, ...)."""
    if op in (1, 4, 5, 7):
        return "0"
    if op in (2, 6):
        return "1"
    if op == 3:
        return "~(T)0"
    if type_code in (13, 14):
        inf = "__int_as_float(0x7f800000)" if type_code == 13 else \
            "__longlong_as_double(0x7ff0000000000000LL)"
        return f"-{inf}" if op == 8 else inf
    info = np.iinfo(_INTS[type_code])
    value = int(info.min if op == 8 else info.max)
    if value == -(1 << 63):
        return "(-9223372036854775807LL - 1)"   # the literal 9223372036854775808 would not fit
    return f"{value}{'ULL' if value >= 1 << 63 else 'LL'}"


_INTS = {2: np.int8, 3: np.int8, 4: np.uint8, 5: np.int16, 6: np.uint16, 7: np.int32, 8: np.uint32,
         9: np.int64, 10: np.uint64, 11: np.int64, 12: np.uint64}


def source(type_code: int, op: int) -> str:
    """The partials kernel for one variable type and operator (&& and ||: on partial != 0)."""
    return _SOURCE.format(ctype=CTYPES[type_code], expr=_OPS[op], identity=identity(type_code, op),
                          load="(T)(x != 0)" if op in (6, 7) else "x", block=BLOCK)


def grid(count: int, sms: int) -> int:
    """Blocks for ``count`` partials: two per SM at most (enough to stream them)."""
    return max(1, min(-(-count // BLOCK), 2 * sms))


_KERNELS: dict[tuple[int, int], Any] = {}


def kernel(cupy: Any, type_code: int, op: int) -> int:
    """The CUfunction of the partials kernel (compiled once per type and operator)."""
    fn = _KERNELS.get((type_code, op))
    if fn is None:
        fn = _KERNELS[(type_code, op)] = cupy.RawKernel(source(type_code, op), "_xmpacc_partials")
    return int(fn.kernel.ptr)
