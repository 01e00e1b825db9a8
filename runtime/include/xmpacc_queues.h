/* xmpacc_queues.h: async(n) on a compute construct, in C.  _xmpacc_acc_queue_begin makes
 * queue n's stream the one the construct's kernels go on and _xmpacc_acc_queue_end puts
 * the one before back; once Python has made the queue's stream (the first begin of each
 * queue, runtime/acc_queues.py), later ones switch _xmpacc_replay.stream here.
 *
 * Python's idea of the current stream (CuPy's) is then behind: `dirty` says so, and the
 * glue's forwarders call Python's _xmpacc_replay_sync before any entry that enters the
 * interpreter, which switches CuPy to the same streams and takes the saved ones over
 * (the matching ends then run in Python).  The host backend has no streams: its queues
 * switch nothing. */
#ifndef XMPACC_QUEUES_H
#define XMPACC_QUEUES_H

#define _XMPACC_ACC_SYNC (-1)

static int _xmpacc_acc_queue_begin_fast(const char *where, long long queue) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  int q = 0, d = r->queue_depth;
  if (!r->on || d == 8) return 0;
  if (queue != _XMPACC_ACC_SYNC && !r->host_backend) {
    while (q < r->nqueues && r->queue_id[q] != queue) q++;
    if (q == r->nqueues) return 0;   /* its stream is made in Python */
  }
  r->queue_switched[d] = queue != _XMPACC_ACC_SYNC && !r->host_backend;
  r->queue_saved[d] = r->stream;
  if (r->queue_switched[d]) {
    r->stream = r->queue_stream[q];
    r->dirty = 1;
  }
  r->queue_depth = d + 1;
  if (r->profile) _xmpacc_replay_record(_XMPACC_EV_QUEUE_BEGIN, where, _xmpacc_now(), 0, 0);
  return 1;
}

static int _xmpacc_acc_queue_end_fast(void) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  int d = r->queue_depth;
  if (!d) return 0;   /* its begin ran in Python, or Python took the queues over */
  r->queue_depth = --d;
  if (r->queue_switched[d]) r->stream = r->queue_saved[d];
  r->dirty = 0;
  for (int k = 0; k < d; k++) r->dirty |= r->queue_switched[k];
  if (r->profile) _xmpacc_replay_record(_XMPACC_EV_QUEUE_END, "", _xmpacc_now(), 0, 0);
  return 1;
}

#endif
