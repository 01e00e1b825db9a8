/* xmpacc_kernel.h: included first by every generated kernel file (prog.cu).
 *
 * The same kernel source is compiled three ways:
 *   - by NVRTC at run time (cuda backend) and by nvcc (tests): CUDA C++;
 *   - by the host C compiler for the host backend, where each kernel is an ordinary C
 *     function and a generated trampoline calls it once per thread id.
 * This header hides the differences: kernel linkage, the thread id, and the libc
 * constants that user code may name (NVRTC has no libc headers).
 */
#ifndef XMPACC_KERNEL_H
#define XMPACC_KERNEL_H

/* Checked builds skip the host-only test (a kernel's writes still on the device) in kernels. */
#define _XMPACC_IN_KERNEL 1

#include "xmpacc_types.h"
#include "xmpacc_dist.h"
#include "xmpacc_index.h"
#include "xmpacc_loops.h"

/* Split a flat thread index: returns rest % s.count and leaves rest / s.count in *rest.
 * On the GPU a 64-bit integer division costs a hundred instructions; a multiplication by
 * the reciprocal (exact for indices below 2^51) and one correction step do the same. */
_XMPACC_HD static inline long long _xmpacc_divmod(long long *rest, _xmpacc_sched_t s) {
#ifdef __CUDACC__
  long long q = (long long)((double)(*rest) * s.inv_count);
  long long r = *rest - q * s.count;
  if (r < 0) { q -= 1; r += s.count; } else if (r >= s.count) { q += 1; r -= s.count; }
#else
  long long q = *rest / s.count, r = *rest % s.count;
#endif
  *rest = q;
  return r;
}

/* Vector streaming kernels (passes/kernel/stream_vector.py): the 4 floats of one 16-byte
 * block into 4 registers, or from 4 values; the address is 16-byte aligned (the kernel
 * tests it).  On the host backend element by element. */
#ifdef __CUDACC__
#define _XMPACC_LDV4F(p, a, b, c, d) \
  do { float4 _xmpacc_v = __ldg((const float4 *)(p)); a = _xmpacc_v.x; b = _xmpacc_v.y; c = _xmpacc_v.z; \
       d = _xmpacc_v.w; } while (0)
#define _XMPACC_STV4F(p, a, b, c, d) (*(float4 *)(p) = make_float4(a, b, c, d))
#else
#define _XMPACC_LDV4F(p, a, b, c, d) \
  do { const float *_xmpacc_v = (p); a = _xmpacc_v[0]; b = _xmpacc_v[1]; c = _xmpacc_v[2]; \
       d = _xmpacc_v[3]; } while (0)
#define _XMPACC_STV4F(p, a, b, c, d) \
  do { float *_xmpacc_v = (p); _xmpacc_v[0] = a; _xmpacc_v[1] = b; _xmpacc_v[2] = c; _xmpacc_v[3] = d; } while (0)
#endif

/* Vector streaming kernels' 32-bit walk (passes/kernel/stream_walk.py, _rows32): its element
 * indices count from the start of the array's local buffer (descriptor a), and each is one of
 * an element of the buffer or at most `reach` elements past one; an int holds them all where
 * the buffer is that much below 2^31 elements.  Elsewhere the kernel runs the body as written. */
#define _XMPACC_FITS32(a, reach) ((a).local_elems <= 2147483647LL - (reach))

/* Streaming kernels (passes/stream_rows.py): a subscript that moves with the walked rows,
 * or, in checked builds, the original subscript, which is checked at each access. */
#ifdef _XMPACC_CHECK
#define _XMPACC_SO(walked, subscript) (subscript)
#else
#define _XMPACC_SO(walked, subscript) (walked)
#endif

/* Lanes per iteration: the runtime compiles a module per lane count it uses, with
 * _XMPACC_FIXED_LANES defined, so the inner loop's stride is a constant. */
#ifdef _XMPACC_FIXED_LANES
#define _XMPACC_LANES(arg) _XMPACC_FIXED_LANES
#else
#define _XMPACC_LANES(arg) (arg)
#endif

#ifdef __CUDACC__
/* a compound literal (cplx){x, y} as C++'s cplx{x, y} (emit_cu.py KernelGenerator) */
#define _XMPACC_COMPOUND(type, name) name
/* The kernel files of a program's files are one NVRTC module (launcher.py): each file's
 * types and routines in a namespace of its own, so that two files may define the same
 * struct or static routine (from one header), as C's separate files do; the kernels keep
 * their extern "C" names. */
#define _XMPACC_UNIT_BEGIN(unit) namespace _xmpacc_unit_##unit {
#define _XMPACC_UNIT_END }
/* an 'acc routine' function of another file (acc_routine_files.py): declared at global
 * scope, where the defining file's kernel file has an entry calling its own copy */
#define _XMPACC_ROUTINE_EXTERN __device__
#define _XMPACC_GRID_X ((long long)blockIdx.x * blockDim.x + threadIdx.x)
#define _XMPACC_GRID_Y ((long long)blockIdx.y * blockDim.y + threadIdx.y)
/* Programmatic dependent launch (sm_90 on; runtime/replay.py dependent_launch): a launch in
 * C may begin this kernel while the one before it in the stream ends, so that its blocks
 * are in place when that one's last block leaves.  Every kernel's first statement: let the
 * next kernel be launched (it waits here too), then wait until the kernel before this one
 * has ended and its memory is visible; nothing is read or written before.  Both are no-ops
 * for a kernel launched without it. */
#if __CUDA_ARCH__ >= 900
#define _XMPACC_GRID_WAIT() \
  asm volatile("griddepcontrol.launch_dependents;\n\tgriddepcontrol.wait;" ::: "memory")
#else
#define _XMPACC_GRID_WAIT() ((void)0)
#endif
/* 2-D grids: threads before the innermost loop's first iteration, so that a warp's row
 * starts at a multiple of 32 indices (a 128-byte line when the array's rows are aligned):
 * a stencil over 1..N-2 otherwise reads one more sector per warp and row.  The runtime
 * widens the grid by the same amount (device.py grid_pad). */
#define _XMPACC_PAD(s) ((s).step == 1 ? ((s).first & 31) : 0)
#define _XMPACC_RESTRICT __restrict__
#define _XMPACC_KERNEL extern "C" __global__ void
/* streaming kernels: blocks of at most 256 threads, registers for minblocks per SM */
#define _XMPACC_BOUNDS(minblocks) __launch_bounds__(256, minblocks)
/* streaming kernels (passes/streaming.py): the walk is unrolled, so that its sliding
 * window lives in registers, and window rows come through the read-only data path */
#define _XMPACC_UNROLL _Pragma("unroll")
/* a vector kernel's scalar fallback (stream_vector.py): rolled, so that its registers do
 * not add to the vector walk's */
#define _XMPACC_ROLLED _Pragma("unroll 1")
#define _XMPACC_LDG(p) __ldg(p)
#define _XMPACC_ROUTINE static __device__   /* acc routine seq (acc_routine.py) */
/* one thread per iteration; the grid spills into y only beyond its x limit */
#define _XMPACC_TID \
  (((long long)blockIdx.y * gridDim.x + blockIdx.x) * ((long long)blockDim.x * blockDim.y * blockDim.z) \
   + ((long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x)
#define _XMPACC_INF __longlong_as_double(0x7ff0000000000000ULL)   /* identity of min */
/* Combine an accumulator over the lanes that share one iteration (lanes.py): lanes are
 * consecutive threads of one warp, so butterfly shuffles stay inside the group. */
#define _XMPACC_LANES_SHUFFLE(v, lanes, combine)                                   \
  for (int _xmpacc_o = (lanes) / 2; _xmpacc_o > 0; _xmpacc_o /= 2) {               \
    auto _xmpacc_w = __shfl_xor_sync(0xffffffffu, (v), _xmpacc_o);                \
    combine;                                                                        \
  }
#define _XMPACC_LANES_SUM(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) += _xmpacc_w)
/* acc atomic update of x += v (acc_loopnest.py): atomicAdd of x's type; 64-bit integers
 * add as unsigned (two's complement). */
__device__ inline void _xmpacc_atomic_add_t(int *p, int v) { atomicAdd(p, v); }
__device__ inline void _xmpacc_atomic_add_t(unsigned *p, unsigned v) { atomicAdd(p, v); }
__device__ inline void _xmpacc_atomic_add_t(float *p, float v) { atomicAdd(p, v); }
__device__ inline void _xmpacc_atomic_add_t(double *p, double v) { atomicAdd(p, v); }
__device__ inline void _xmpacc_atomic_add_t(long long *p, long long v) {
  atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
__device__ inline void _xmpacc_atomic_add_t(unsigned long long *p, unsigned long long v) { atomicAdd(p, v); }
__device__ inline void _xmpacc_atomic_add_t(long *p, long v) {
  atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
__device__ inline void _xmpacc_atomic_add_t(unsigned long *p, unsigned long v) {
  atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
/* acc atomic update/capture of the other forms (acc_atomic.py): a compare-and-swap loop
 * over the 4 or 8 bytes of x (of the aligned 4 bytes that hold a char or short x, the
 * other bytes kept); yields x's old value, or with fetch_new the stored one. */
template <typename T> struct _xmpacc_noref { typedef T type; };
template <typename T> struct _xmpacc_noref<T &> { typedef T type; };
template <int N> struct _xmpacc_word;
template <> struct _xmpacc_word<1> { typedef unsigned char type; };
template <> struct _xmpacc_word<2> { typedef unsigned short type; };
template <> struct _xmpacc_word<4> { typedef unsigned int type; };
template <> struct _xmpacc_word<8> { typedef unsigned long long type; };
template <typename T, typename U, typename F>
__device__ inline T _xmpacc_atomic_rmw(T *p, U b, F f, int fetch_new) {
  typedef typename _xmpacc_word<sizeof(T)>::type W;
  union Bits { W w; T t; } cur, next;
  if constexpr (sizeof(T) < 4) {
    unsigned int *wp = (unsigned int *)((unsigned long long)p & ~3ull);
    unsigned int shift = 8 * (unsigned int)((unsigned long long)p & 3);
    unsigned int mask = (unsigned int)(W)~(W)0 << shift;
    unsigned int old = *(volatile unsigned int *)wp, assumed;
    do {
      assumed = old;
      cur.w = (W)((assumed & mask) >> shift);
      next.t = f(cur.t, b);
      old = atomicCAS(wp, assumed, (assumed & ~mask) | ((unsigned int)next.w << shift));
    } while (assumed != old);
  } else {
    W *wp = (W *)p;
    W old = *(volatile W *)wp, assumed;
    do {
      assumed = old;
      cur.w = assumed;
      next.t = f(cur.t, b);
      old = atomicCAS(wp, assumed, next.w);
    } while (assumed != old);
  }
  return fetch_new ? next.t : cur.t;
}
template <typename T, typename U> __device__ inline void _xmpacc_atomic_add(T *p, U v) {
  if constexpr (sizeof(T) < 4)   /* no atomicAdd of chars and shorts */
    _xmpacc_atomic_rmw(p, v, [](T a, U b) { return (T)(a + b); }, 0);
  else
    _xmpacc_atomic_add_t(p, (T)v);
}
#define _XMPACC_ATOMIC_ADD(x, v) _xmpacc_atomic_add(&(x), (v))
#define _XMPACC_T(x) typename _xmpacc_noref<decltype(x)>::type
#define _XMPACC_ATOMIC_RMW(x, e, expr, fetch_new) \
  _xmpacc_atomic_rmw(&(x), (e), [](_XMPACC_T(x) _a, _XMPACC_T(e) _b) { return (_XMPACC_T(x))(expr); }, fetch_new)
#define _XMPACC_RMW_SWAP(x, e) _XMPACC_ATOMIC_RMW(x, e, _b, 0)
#define _XMPACC_LANES_PROD(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) *= _xmpacc_w)
#define _XMPACC_LANES_MAX(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) = _xmpacc_w > (v) ? _xmpacc_w : (v))
#define _XMPACC_LANES_MIN(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) = _xmpacc_w < (v) ? _xmpacc_w : (v))
#define _XMPACC_LANES_AND(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) &= _xmpacc_w)
#define _XMPACC_LANES_OR(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) |= _xmpacc_w)
#define _XMPACC_LANES_XOR(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) ^= _xmpacc_w)
#define _XMPACC_LANES_LAND(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) = (v) && _xmpacc_w)
#define _XMPACC_LANES_LOR(v, lanes) _XMPACC_LANES_SHUFFLE(v, lanes, (v) = (v) || _xmpacc_w)
/* Reduction clause: each warp combines its threads' values, lane 0 writes one partial
 * (the runtime allocates one per warp of the grid and reduces them). */
#define _XMPACC_PARTIAL(v, combine, buf)                         \
  do {                                                           \
    combine(v, 32);                                              \
    if ((_xmpacc_gid & 31) == 0) (buf)[_xmpacc_gid >> 5] = (v);  \
  } while (0)
/* Reductions with location variables (kernel_locations.py): each warp picks its best
 * thread's record by butterfly shuffles, one field at a time, as _XMPACC_LANES_SHUFFLE
 * does, so every lane ends with it; lane 0 writes it at the slot _XMPACC_PARTIAL uses. */
#define _XMPACC_WARP_STEPS for (int _xmpacc_o = 16; _xmpacc_o > 0; _xmpacc_o /= 2)
#define _XMPACC_SHFL_XOR(x) __shfl_xor_sync(0xffffffffu, (x), _xmpacc_o)
#define _XMPACC_PARTIAL_SLOT(gid) (((gid) & 31) == 0 ? ((gid) >> 5) : -1LL)
/* an acc routine's parameter of variable-length rows (kernel_vla.routine_parameter) */
#define _XMPACC_ROWS_PARAM(T, D, name, c_decl) _xmpacc_vla<T, D> name
/* each thread's slot of a private array's scratch (kernel_private.py, LAUNCH_SCRATCH) */
#define _XMPACC_SCRATCH_SLOT _xmpacc_gid
/* A C array of variable-length rows in a kernel (kernel_vla.py): what C writes as
 * double (*a)[m][k], held as the elements' address and the D row extents.  a[i] is row i:
 * another such pointer, or past the last extent the row's first element, so a[i][j][l],
 * &a[i][j] and a[i] as a pointer mean what they mean in C. */
template <typename T, int D> struct _xmpacc_vla {
  T *p;
  long long x[D];
  __device__ _xmpacc_vla() {}
  template <typename... L> __device__ _xmpacc_vla(T *q, L... e) : p(q), x{(long long) e...} {}
  /* rows of constant lengths, passed to a routine's parameter of variable-length rows */
  template <decltype(sizeof(0)) N> __device__ _xmpacc_vla(T (*q)[N]) : p(q[0]), x{(long long) N} {}
  template <decltype(sizeof(0)) N, decltype(sizeof(0)) M>
  __device__ _xmpacc_vla(T (*q)[N][M]) : p(q[0][0]), x{(long long) N, (long long) M} {}
  __device__ auto operator[](long long i) const {
    long long row = 1;
    for (int k = 0; k < D; k++) row *= x[k];
    if constexpr (D == 1) {
      return p + i * row;
    } else {
      _xmpacc_vla<T, D - 1> r;
      r.p = p + i * row;
      for (int k = 1; k < D; k++) r.x[k - 1] = x[k];
      return r;
    }
  }
  __device__ auto operator*() const { return (*this)[0]; }
};
#ifdef __CUDACC_RTC__
/* <stdint.h> and <stddef.h> names that kernels and the program's own types use (LP64
 * Linux, as the host compiler sees them; kernel_types.py STANDARD).  size_t and ptrdiff_t
 * as the language makes them: C++ allows a typedef repeated for the same type, and NVRTC
 * may have its own. */
typedef decltype(sizeof(0)) size_t;
typedef decltype((char *) 0 - (char *) 0) ptrdiff_t;
typedef long intptr_t, int64_t;
typedef unsigned long uintptr_t, uint64_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
/* C's <math.h> under C++: in C, sqrt, exp, pow, fmax ... are double functions whatever
 * their arguments (sqrt(i) of an int, sqrt(x) of a float, fmax(f, 2.0)); NVRTC overloads
 * them for float (a float result, another value) and finds int arguments ambiguous.  Each
 * macro converts the arguments as a C compiler does (the host backend and the serial build
 * agree); a macro does not expand inside itself, so it calls NVRTC's double function.
 * The float functions (sqrtf ...) stay as they are. */
#define _XMPACC_C1(x) ((double) (x))
#define sqrt(x) sqrt(_XMPACC_C1(x))
#define cbrt(x) cbrt(_XMPACC_C1(x))
#define exp(x) exp(_XMPACC_C1(x))
#define exp2(x) exp2(_XMPACC_C1(x))
#define expm1(x) expm1(_XMPACC_C1(x))
#define log(x) log(_XMPACC_C1(x))
#define log2(x) log2(_XMPACC_C1(x))
#define log10(x) log10(_XMPACC_C1(x))
#define log1p(x) log1p(_XMPACC_C1(x))
#define sin(x) sin(_XMPACC_C1(x))
#define cos(x) cos(_XMPACC_C1(x))
#define tan(x) tan(_XMPACC_C1(x))
#define asin(x) asin(_XMPACC_C1(x))
#define acos(x) acos(_XMPACC_C1(x))
#define atan(x) atan(_XMPACC_C1(x))
#define sinh(x) sinh(_XMPACC_C1(x))
#define cosh(x) cosh(_XMPACC_C1(x))
#define tanh(x) tanh(_XMPACC_C1(x))
#define asinh(x) asinh(_XMPACC_C1(x))
#define acosh(x) acosh(_XMPACC_C1(x))
#define atanh(x) atanh(_XMPACC_C1(x))
#define fabs(x) fabs(_XMPACC_C1(x))
#define floor(x) floor(_XMPACC_C1(x))
#define ceil(x) ceil(_XMPACC_C1(x))
#define trunc(x) trunc(_XMPACC_C1(x))
#define round(x) round(_XMPACC_C1(x))
#define rint(x) rint(_XMPACC_C1(x))
#define nearbyint(x) nearbyint(_XMPACC_C1(x))
#define erf(x) erf(_XMPACC_C1(x))
#define erfc(x) erfc(_XMPACC_C1(x))
#define tgamma(x) tgamma(_XMPACC_C1(x))
#define lgamma(x) lgamma(_XMPACC_C1(x))
#define pow(x, y) pow(_XMPACC_C1(x), _XMPACC_C1(y))
#define fmod(x, y) fmod(_XMPACC_C1(x), _XMPACC_C1(y))
#define atan2(x, y) atan2(_XMPACC_C1(x), _XMPACC_C1(y))
#define hypot(x, y) hypot(_XMPACC_C1(x), _XMPACC_C1(y))
#define fmin(x, y) fmin(_XMPACC_C1(x), _XMPACC_C1(y))
#define fmax(x, y) fmax(_XMPACC_C1(x), _XMPACC_C1(y))
#define fdim(x, y) fdim(_XMPACC_C1(x), _XMPACC_C1(y))
#define copysign(x, y) copysign(_XMPACC_C1(x), _XMPACC_C1(y))
#define remainder(x, y) remainder(_XMPACC_C1(x), _XMPACC_C1(y))
#define nextafter(x, y) nextafter(_XMPACC_C1(x), _XMPACC_C1(y))
#define fma(x, y, z) fma(_XMPACC_C1(x), _XMPACC_C1(y), _XMPACC_C1(z))
#define frexp(x, e) frexp(_XMPACC_C1(x), e)
#define ldexp(x, e) ldexp(_XMPACC_C1(x), e)
#define modf(x, p) modf(_XMPACC_C1(x), p)
#define scalbn(x, n) scalbn(_XMPACC_C1(x), n)
#define ilogb(x) ilogb(_XMPACC_C1(x))
#define logb(x) logb(_XMPACC_C1(x))
#define lround(x) lround(_XMPACC_C1(x))
#define llround(x) llround(_XMPACC_C1(x))
#define lrint(x) lrint(_XMPACC_C1(x))
#define llrint(x) llrint(_XMPACC_C1(x))
/* C words NVRTC's C++ lacks or spells otherwise */
#define restrict __restrict__
#define _Bool bool
#define _Static_assert static_assert
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#define NAN __int_as_float(0x7fc00000)
#define INFINITY __int_as_float(0x7f800000)
#define HUGE_VALF __int_as_float(0x7f800000)
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define UINT_MAX 4294967295U
#define LONG_MIN (-LONG_MAX - 1L)
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MAX 9223372036854775807LL
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define ULLONG_MAX 18446744073709551615ULL
#define INT8_MIN (-128)
#define INT8_MAX 127
#define UINT8_MAX 255
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define UINT16_MAX 65535
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define UINT32_MAX 4294967295U
#define INT64_MIN (-9223372036854775807L - 1)
#define INT64_MAX 9223372036854775807L
#define UINT64_MAX 18446744073709551615UL
#define SIZE_MAX 18446744073709551615UL
#define FLT_MIN 1.17549435e-38F
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#define LONG_MAX 9223372036854775807L
#define DBL_MAX 1.7976931348623157e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-16
#define FLT_MAX 3.40282347e+38F
#define FLT_EPSILON 1.19209290e-07F
#else
#include <stddef.h>
#include <stdint.h>
#endif
#else
#define _XMPACC_COMPOUND(type, name) (type)
#define _XMPACC_UNIT_BEGIN(unit)
#define _XMPACC_UNIT_END
#define _XMPACC_ROUTINE_EXTERN extern   /* the program's host function */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <float.h>
#define _XMPACC_KERNEL void
#define _XMPACC_BOUNDS(minblocks)
#define _XMPACC_ROUTINE static
#define _XMPACC_RESTRICT restrict
#define _XMPACC_UNROLL
#define _XMPACC_ROLLED
#define _XMPACC_LDG(p) (*(p))
#define _XMPACC_GRID_X 0LL   /* the host backend never launches a 2-D grid */
#define _XMPACC_GRID_Y 0LL
#define _XMPACC_GRID_WAIT() ((void)0)
#define _XMPACC_PAD(s) 0
#define _XMPACC_INF HUGE_VAL
/* the host backend runs every kernel with one lane per iteration */
#define _XMPACC_LANES_SUM(v, lanes) ((void)0)
#define _XMPACC_ATOMIC_ADD(x, v) ((x) += (v))   /* threads run one after the other */
#define _XMPACC_ATOMIC_RMW(x, e, expr, fetch_new) \
  __extension__({ __typeof__(x) _a = (x), _c; __typeof__(e) _b = (e); _c = (x) = (__typeof__(x))(expr); \
                  (fetch_new) ? _c : _a; })
#define _XMPACC_RMW_SWAP(x, e) _XMPACC_ATOMIC_RMW(x, e, _b, 0)
#define _XMPACC_LANES_PROD(v, lanes) ((void)0)
#define _XMPACC_LANES_MAX(v, lanes) ((void)0)
#define _XMPACC_LANES_MIN(v, lanes) ((void)0)
#define _XMPACC_PARTIAL(v, combine, buf) ((buf)[_xmpacc_gid] = (v))   /* one per thread */
/* one record per thread: no warp to combine over (the loop body never runs) */
#define _XMPACC_WARP_STEPS for (int _xmpacc_o = 0; _xmpacc_o > 0; _xmpacc_o = 0)
#define _XMPACC_SHFL_XOR(x) (x)
#define _XMPACC_PARTIAL_SLOT(gid) (gid)
#define _XMPACC_SCRATCH_SLOT 0LL   /* threads run one after another: one slot serves them all */
#define _XMPACC_ROWS_PARAM(T, D, name, c_decl) c_decl
extern long long _xmpacc_host_tid;   /* set by the trampolines of the host backend */
#define _XMPACC_TID _xmpacc_host_tid
#endif

#include "xmpacc_push.h"   /* after _XMPACC_GRID_Y: an overlapped reflect made by its kernel */

/* acc_on_device (openacc.h), the one routine of the OpenACC library that device code may
 * call.  Kernels run on the device, also on the host backend, which stands in for a GPU
 * (acc_api.py): there too a kernel is not on the host, so that it computes what it does on
 * a GPU.  The kernel file does not include openacc.h (its prototypes are host code). */
enum { acc_device_none = 0, acc_device_default = 1, acc_device_host = 2, acc_device_not_host = 3,
       acc_device_nvidia = 4 };
_XMPACC_HD static inline int acc_on_device(int t) { return t == acc_device_not_host || t == acc_device_nvidia; }

/* firstprivate(a) of a C array (kernels.prologue): each thread's copy starts from the
 * device copy of the construct's start value. */
_XMPACC_HD static inline void _xmpacc_copy_bytes(void *to, const void *from, unsigned long n) {
  unsigned char *p = (unsigned char *)to;
  const unsigned char *q = (const unsigned char *)from;
  for (unsigned long k = 0; k < n; k++) p[k] = q[k];
}

/* Reductions with location variables (kernel_locations.py).  Did an iteration change a
 * watched variable?  Bytes, as on the host (locations.py): a NaN that stays is no change. */
_XMPACC_HD static inline int _xmpacc_differ(const void *a, const void *b, unsigned long n) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  for (unsigned long k = 0; k < n; k++)
    if (p[k] != q[k]) return 1;
  return 0;
}
/* _xmpacc_loc_better, which compares two records: xmpacc_loops.h (host loops use it too) */

/* x = x op e and x = e op x (acc_atomic.py) */
#define _XMPACC_RMW_ADD(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a + _b, f)
#define _XMPACC_RMW_RADD(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b + _a, f)
#define _XMPACC_RMW_SUB(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a - _b, f)
#define _XMPACC_RMW_RSUB(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b - _a, f)
#define _XMPACC_RMW_MUL(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a * _b, f)
#define _XMPACC_RMW_RMUL(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b * _a, f)
#define _XMPACC_RMW_DIV(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a / _b, f)
#define _XMPACC_RMW_RDIV(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b / _a, f)
#define _XMPACC_RMW_AND(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a & _b, f)
#define _XMPACC_RMW_RAND(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b & _a, f)
#define _XMPACC_RMW_OR(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a | _b, f)
#define _XMPACC_RMW_ROR(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b | _a, f)
#define _XMPACC_RMW_XOR(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a ^ _b, f)
#define _XMPACC_RMW_RXOR(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b ^ _a, f)
#define _XMPACC_RMW_SHL(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a << _b, f)
#define _XMPACC_RMW_RSHL(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b << _a, f)
#define _XMPACC_RMW_SHR(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a >> _b, f)
#define _XMPACC_RMW_RSHR(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b >> _a, f)
/* x = max(x, e) and x = min(x, e): updates of a reduction array (kernel_arrays.py) */
#define _XMPACC_RMW_MAX(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b > _a ? _b : _a, f)
#define _XMPACC_RMW_MIN(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _b < _a ? _b : _a, f)
#define _XMPACC_RMW_LAND(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a && _b, f)   /* reduction(&&: h) */
#define _XMPACC_RMW_LOR(x, e, f) _XMPACC_ATOMIC_RMW(x, e, _a || _b, f)

#ifdef __CUDACC_RTC__
/* Last, after the header's own C++: C identifiers that are C++ keywords (a variable
 * 'new', a member 'class') get other names in the kernel file, consistently, so kernels
 * compile as the host backend's C does; 'register', gone from C++17, means nothing.
 * (typename, decltype and namespace stay: the header's macros expand to them in kernels.) */
#define new _xmpacc_kw_new
#define delete _xmpacc_kw_delete
#define class _xmpacc_kw_class
#define this _xmpacc_kw_this
#define operator _xmpacc_kw_operator
#define template _xmpacc_kw_template
#define private _xmpacc_kw_private
#define public _xmpacc_kw_public
#define protected _xmpacc_kw_protected
#define virtual _xmpacc_kw_virtual
#define friend _xmpacc_kw_friend
#define using _xmpacc_kw_using
#define try _xmpacc_kw_try
#define catch _xmpacc_kw_catch
#define throw _xmpacc_kw_throw
#define explicit _xmpacc_kw_explicit
#define mutable _xmpacc_kw_mutable
#define export _xmpacc_kw_export
#define typeid _xmpacc_kw_typeid
#define noexcept _xmpacc_kw_noexcept
#define concept _xmpacc_kw_concept
#define requires _xmpacc_kw_requires
#define static_cast _xmpacc_kw_static_cast
#define const_cast _xmpacc_kw_const_cast
#define dynamic_cast _xmpacc_kw_dynamic_cast
#define reinterpret_cast _xmpacc_kw_reinterpret_cast
#define register
#endif
#endif
