/* xmpacc_push.h: an overlapped reflect ... acc whose exchange its loop's kernel makes itself
 * (runtime/acc_push.py plans it; docs/performance.md, "O3b").
 *
 * Between GPUs of one host with peer access, the fastest halo exchange is no exchange
 * call at all: the kernel of the loop after the reflect stores this node's boundary rows
 * into the neighbours' shadow rows (CUDA IPC pointers, stores over NVLink) and counts
 * them into a flag the neighbour reads; the blocks that read a shadow row wait for that
 * count.  No stream, event or NCCL call is left between two sweeps.
 *
 * The protocol, per site and per call (want = 1, 2, ... counted by the host):
 *   1. grid row 0's blocks tell every neighbour "I have begun call want" (my kernels before
 *      this one are done: nothing of mine still reads my shadow rows), then wait until
 *      every neighbour said the same (its shadow rows are free to write);
 *   2. they store their share of each slab into the neighbour (_XMPACC_PUSH_UNITS shares),
 *      fence, and add the shares they stored to the neighbour's count;
 *   3. a block with a thread whose rows lie outside the loop's interior (positions lo..hi
 *      of the rim loop's schedule) waits until every neighbour's count reaches want * UNITS
 *      (each share counts into every neighbour); where no block's rows do, the grid's last
 *      block waits, so that the shadow is complete when the kernel ends, as after any
 *      reflect.
 * A node whose only rim is its first rows walks the grid's rows in reverse (flip), so
 * that its rim, like any node's last rim, is dispatched last, when the rows have long
 * arrived; a node with two rims waits at the start for the first (a few µs, beside the
 * other blocks).  (Rotating the grid so that both rims ran last, as
 * bench/cuda/overlap_ipc.cu does, cost 0.9 µs a 4096^2 sweep on two H200s, dispatching
 * the second rim second 0.5 µs: docs/performance.md.)  Every wait is bounded (spin_ns)
 * and ends in a trap: a neighbour that never comes is a failed kernel at the loop's
 * line, not a hang. */
#ifndef XMPACC_PUSH_H
#define XMPACC_PUSH_H

#define _XMPACC_PUSH_UNITS 32   /* shares of the slabs; each adds one to each neighbour's count */
#define _XMPACC_PUSH_SLABS 4
#define _XMPACC_PUSH_PEERS 2

/* What a pushing kernel needs besides the call's number: in device memory, written once
 * when runtime/acc_push.py plans the site (mirrored there as PushDesc), so that the
 * kernel's parameter stays small and the pushing code reads it from memory. */
typedef struct {
  int npeers, nslabs;
  int slot[_XMPACC_PUSH_PEERS];         /* my index among neighbour k's neighbours */
  unsigned *mine;                       /* [k]: neighbour k has begun; [2 + k]: its shares here */
  unsigned *theirs[_XMPACC_PUSH_PEERS]; /* neighbour k's flags, mapped here */
  const char *src[_XMPACC_PUSH_SLABS];  /* my boundary rows */
  char *dst[_XMPACC_PUSH_SLABS];        /* the neighbour's shadow rows, mapped here */
  long long bytes[_XMPACC_PUSH_SLABS];
  long long spin_ns;                    /* the longest wait before the trap */
} _xmpacc_push_desc_t;

/* A site's push, in host memory (a static variable of the generated code, mirrored by
 * acc_push.py's PushStruct), passed to the kernel by value at every launch. */
typedef struct {
  int active;                           /* 1: this launch makes the exchange */
  unsigned want;                        /* the site's call number, from 1 */
  long long lo, hi;                     /* the interior: positions in the rim loop's schedule */
  const _xmpacc_push_desc_t *desc;      /* on the device */
  const unsigned *arrived;              /* on the device: the neighbours' counts here (desc's
                                           mine + 2), which the waiting blocks read from the
                                           parameter, not through desc: one load, not three */
  int npeers;                           /* neighbours; 0 until planned (then C numbers the calls) */
  int flip;                             /* the grid's block rows in reverse (_XMPACC_PUSH_GRID_Y) */
  long long generation;                 /* host: the device table's when last checked */
  long long bytes;                      /* host: stored per call (the profile's bytes) */
  const void *array;                    /* host: the array it was planned for (a site in a
                                           function may reflect another array next time) */
} _xmpacc_push_t;

#if !defined(__CUDACC__)
/* host: the interior's positions in the whole schedule of the rim loop, from its schedule
 * over the interior (kernel_ranges.py), one row narrower on each side where it reads the
 * shadow: the rows next to the shadow may share a cache line with it, and a block that
 * read one before the rows arrived could leave its SM's L1 stale.  Where only the low
 * positions leave the interior, the grid's rows go in reverse (flip), so that their
 * blocks, which wait for the rows, are dispatched last, when the rows have long arrived. */
static inline void _xmpacc_push_interior(_xmpacc_push_t *p, const _xmpacc_sched_t *whole,
                                         const _xmpacc_sched_t *in) {
  long long a, b;
  p->lo = 1, p->hi = 0, p->flip = 0;
  if (in->count <= 0 || whole->count <= 0 || whole->step == 0) return;
  a = (in->first - whole->first) / whole->step, b = (in->last - whole->first) / whole->step;
  if (a > b) { long long t = a; a = b; b = t; }
  p->lo = a > 0 ? a + 1 : 0, p->hi = b < whole->count - 1 ? b - 1 : b;
  p->flip = p->lo > 0 && p->hi == whole->count - 1;
}
#endif

#if defined(__CUDACC__)
__device__ __forceinline__ long long _xmpacc_push_clock(void) {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* *f, and every store the neighbour made before it counted into f is visible after it */
__device__ __forceinline__ unsigned _xmpacc_push_acquire(const unsigned *f) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(f) : "memory");
  return v;
}

/* until *f reaches want (modulo 2^32: the counts wrap after 2^27 calls); the bound, from
 * the descriptor, is read only where the first look finds the count short */
__device__ __forceinline__ void _xmpacc_push_spin(const unsigned *f, unsigned want, const long long *bound) {
  long long t0, b;
  if ((int)(_xmpacc_push_acquire(f) - want) >= 0) return;
  t0 = _xmpacc_push_clock(), b = *bound;
  while ((int)(_xmpacc_push_acquire(f) - want) < 0)
    if (_xmpacc_push_clock() - t0 > b) __trap();
}

#define _XMPACC_PUSH_SHARE(T)                                                        \
  do {                                                                               \
    long long n = bytes / (long long)sizeof(T), per = (n + _XMPACC_PUSH_UNITS - 1) / _XMPACC_PUSH_UNITS; \
    long long hi = (u + 1) * per < n ? (u + 1) * per : n;                            \
    for (long long w = u * per + t; w < hi; w += nt) ((T *)dst)[w] = ((const T *)src)[w]; \
  } while (0)

/* share u of one slab, by the widest word its addresses and size allow */
__device__ __forceinline__ void _xmpacc_push_copy(const char *src, char *dst, long long bytes, int u, int t,
                                                  int nt) {
  unsigned long long a = (unsigned long long)src | (unsigned long long)dst | (unsigned long long)bytes;
  if (!(a & 15)) _XMPACC_PUSH_SHARE(uint4);
  else if (!(a & 7)) _XMPACC_PUSH_SHARE(unsigned long long);
  else if (!(a & 3)) _XMPACC_PUSH_SHARE(unsigned);
  else _XMPACC_PUSH_SHARE(char);
}

/* steps 1 and 2, by the blocks of grid row 0; not inlined, so that the sweep's registers
 * stay the sweep's */
__device__ __noinline__ void _xmpacc_push_out(const _xmpacc_push_desc_t *d, unsigned want) {
  int t = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y, np = d->npeers;
  unsigned units = 0;
  if (blockIdx.x >= _XMPACC_PUSH_UNITS) return;   /* (the whole block) no share left for it */
  if (t == 0) {
    for (int k = 0; k < np; k++) ((volatile unsigned *)d->theirs[k])[d->slot[k]] = want;
    __threadfence_system();
    for (int k = 0; k < np; k++) _xmpacc_push_spin(d->mine + k, want, &d->spin_ns);
  }
  __syncthreads();
  for (int u = blockIdx.x; u < _XMPACC_PUSH_UNITS; u += gridDim.x) {
    units++;
    for (int s = 0; s < d->nslabs; s++) _xmpacc_push_copy(d->src[s], d->dst[s], d->bytes[s], u, t, nt);
  }
  __threadfence_system();
  __syncthreads();
  if (t == 0 && units)
    for (int k = 0; k < np; k++) atomicAdd_system(d->theirs[k] + 2 + d->slot[k], units);
}

/* step 3 for thread 0 of a block that waits (inlined: a call here, with the thread's
 * indices live, made the sweep spill at 32 registers).  At the end of the grid this wait
 * is the kernel's last block's critical path: one acquiring load of a count whose address
 * is a parameter, where it read the descriptor three loads deep before. */
__device__ __forceinline__ void _xmpacc_push_arrivals(const _xmpacc_push_t &p) {
  for (int k = 0; k < p.npeers; k++)
    _xmpacc_push_spin(p.arrived + k, p.want * _XMPACC_PUSH_UNITS, &p.desc->spin_ns);
}

/* the block's row of the grid in the loop's order (flip: reversed; the pushing blocks,
 * blockIdx.y 0, are dispatched first either way) */
__device__ __forceinline__ long long _xmpacc_push_row(const _xmpacc_push_t &p) {
  return p.active && p.flip ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
}

/* whether positions [pos, pos + rows) (those before count) leave the interior */
__device__ __forceinline__ int _xmpacc_push_outside(const _xmpacc_push_t &p, long long count, long long pos,
                                                    long long rows) {
  long long last = pos + rows - 1 < count - 1 ? pos + rows - 1 : count - 1;
  return pos < count && (pos < p.lo || last > p.hi);
}

/* Step 3.  grid2 (a 2-D grid over a nest of two loops, the rim's loop outermost): the
 * block's rows are known from its index, so only the rim's blocks meet a barrier; else
 * every block asks its threads (need: this thread's rows reach the shadow). */
__device__ __forceinline__ void _xmpacc_push_wait(const _xmpacc_push_t &p, int grid2, long long count,
                                                  long long rows, int need) {
  /* the grid's last block waits where no other block does (no position leaves the
   * interior), so that the shadow is complete when the kernel ends, as after any reflect */
  int last = blockIdx.x == gridDim.x - 1 && blockIdx.y == gridDim.y - 1
             && (count <= 0 || (p.lo <= 0 && p.hi >= count - 1));
  if (grid2)
    need = last || _xmpacc_push_outside(p, count, _xmpacc_push_row(p) * blockDim.y * rows,
                                        (long long)blockDim.y * rows);
  else
    need = __syncthreads_or(need || last);
  if (need) {
    if (threadIdx.x == 0 && threadIdx.y == 0) _xmpacc_push_arrivals(p);
    __syncthreads();
  }
}

/* steps 1 and 2 first thing in the kernel (nothing of the thread's is live across the call) */
#define _XMPACC_PUSH_OUT(p) \
  do { if ((p).active && blockIdx.y == 0) _xmpacc_push_out((p).desc, (p).want); } while (0)
#define _XMPACC_PUSH(p, grid2, count, rows, need) \
  do { if ((p).active) _xmpacc_push_wait(p, grid2, count, rows, need); } while (0)
/* a pushing kernel's _XMPACC_GRID_Y */
#define _XMPACC_PUSH_GRID_Y(p) (_xmpacc_push_row(p) * blockDim.y + threadIdx.y)
#else   /* the host backend never pushes (acc_push.py) */
#define _XMPACC_PUSH_OUT(p) ((void)(p))
#define _XMPACC_PUSH(p, grid2, count, rows, need) ((void)(p))
#define _xmpacc_push_outside(p, count, pos, rows) 0
#define _XMPACC_PUSH_GRID_Y(p) _XMPACC_GRID_Y
#endif

#endif
