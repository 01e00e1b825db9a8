/* xmpacc_fast.h: reflect's C fast path, part of the program's glue (templates/glue.c.j2).
 *
 * The runtime (runtime/fast_reflect.py) binds the steps of an array's reflect to MPI
 * persistent requests on the array's buffer and registers them here, keyed by the
 * descriptor's address.  _xmpacc_reflect then starts and completes them itself, one
 * MPI_Startall + MPI_Waitall per step (dimensions one after the other, so that corners
 * arrive), through the MPI library's own functions, and never enters Python.  Anything
 * else (explicit widths, inside async, a buffer other than the one the requests were
 * bound to, an MPI error) returns 0 and the call takes the general path. */
#ifndef XMPACC_FAST_H
#define XMPACC_FAST_H

#include <stdint.h>
#include "xmpacc_types.h"

typedef struct _xmpacc_fast_reflect {
  const void *base;                    /* the buffer the requests were bound to */
  int nrounds;                         /* steps, in order */
  int count[_XMPACC_MAXDIM];           /* requests of each step */
  void *requests[_XMPACC_MAXDIM];      /* MPI_Request arrays, in the MPI's handle size */
  void *statuses;                      /* room for the statuses of the largest step */
  int (*startall)(int, void *);        /* MPI_Startall, MPI_Waitall */
  int (*waitall)(int, void *, void *);
  long long calls;                     /* for XMPACC_STATS; the runtime reads and clears it */
} _xmpacc_fast_reflect_t;

#define _XMPACC_FAST_SLOTS 256
static struct { const void *array; _xmpacc_fast_reflect_t *plan; } _xmpacc_fast_table[_XMPACC_FAST_SLOTS];
int _xmpacc_fast_paused;               /* set by the runtime inside async (id) */

static unsigned _xmpacc_fast_slot(const void *array) {
  return (unsigned)(((uintptr_t)array >> 3) * 2654435761u) % _XMPACC_FAST_SLOTS;
}

/* Register (plan) or drop (NULL) the fast path of a descriptor; 0 when the table is full. */
int _xmpacc_fast_reflect_set(const void *array, _xmpacc_fast_reflect_t *plan) {
  unsigned h = _xmpacc_fast_slot(array);
  for (unsigned k = 0; k < _XMPACC_FAST_SLOTS; k++) {
    unsigned s = (h + k) % _XMPACC_FAST_SLOTS;
    if (_xmpacc_fast_table[s].array == array || (!_xmpacc_fast_table[s].array && plan)) {
      _xmpacc_fast_table[s].array = array;   /* a dropped entry stays as a tombstone */
      _xmpacc_fast_table[s].plan = plan;
      return 1;
    }
    if (!_xmpacc_fast_table[s].array) return !plan;
  }
  return 0;
}

static int _xmpacc_reflect_fast(void *array, const char *where, const long long *widths) {
  _xmpacc_fast_reflect_t *plan = 0;
  unsigned h = _xmpacc_fast_slot(array);
  (void)where;
  if (widths || _xmpacc_fast_paused) return 0;
  for (unsigned k = 0; k < _XMPACC_FAST_SLOTS; k++) {
    unsigned s = (h + k) % _XMPACC_FAST_SLOTS;
    if (_xmpacc_fast_table[s].array == array) {
      plan = _xmpacc_fast_table[s].plan;
      break;
    }
    if (!_xmpacc_fast_table[s].array) return 0;
  }
  if (!plan || plan->base != ((const _xmpacc_array_t *)array)->base) return 0;
  for (int r = 0; r < plan->nrounds; r++)
    if (plan->count[r] && (plan->startall(plan->count[r], plan->requests[r]) ||
                           plan->waitall(plan->count[r], plan->requests[r], plan->statuses)))
      return 0;
  plan->calls++;
  return 1;
}

#endif
