 * Distributed arrays are pointers to this node's local block; directives are calls
 * into the xmpacc runtime (runtime/contract.py lists them). */
#include <stdio.h>
#include <xmp.h>
#include "xmpacc.h"   /* descriptors, index macros, runtime calls (xmpacc_rt.h) */

/* descriptors of the nodes, templates and distributed arrays of this file */

#line 24 "tests/coarray_programs/device_heat.c"
double u[48 + (2 * 2)];
int checks[4];
#line 30 "tests/coarray_programs/device_heat.c"
double unew[48 + (2 * 2)];
#line 34 "tests/coarray_programs/device_heat.c"
static void exchange(int nl, int left, int right)
{
  _xmpacc_sync_all("device_heat.c:36");
  {
    void *_xmpacc_devptr_38_0 = _xmpacc_acc_deviceptr("device_heat.c:38", u, "u");
    double *u = _xmpacc_devptr_38_0;
    {
      {
#line 40 "tests/coarray_programs/device_heat.c"
        long long _xmpacc_v0 = nl + 2;
#line 40 "tests/coarray_programs/device_heat.c"
        _xmpacc_coarray_put_acc((void *) u, "device_heat.c:40", (const long long []){1, left}, (const long long []){1, sizeof(u[0]), 52, 1, _xmpacc_v0, 2, 1}, (void *) u, (const long long []){1, sizeof(u[0]), 52, 1, 2, 2, 1}, 3);
      }
      {
#line 41 "tests/coarray_programs/device_heat.c"
        _xmpacc_coarray_put_acc((void *) u, "device_heat.c:41", (const long long []){1, right}, (const long long []){1, sizeof(u[0]), 52, 1, 0, 2, 1}, (void *) u, (const long long []){1, sizeof(u[0]), 52, 1, nl, 2, 1}, 3);
      }
    }
  }
#line 51 "tests/coarray_programs/device_heat.c"
  _xmpacc_sync_all("device_heat.c:51");
}


#line 54 "tests/coarray_programs/device_heat.c"
static void step(int nl)
{
  int i;
  {
    int _xmpacc_acc_1 = _xmpacc_acc_compute_begin("device_heat.c:57", 2, (const void *[]){u, unew}, (const long long []){(long long) (sizeof(u)), (long long) (sizeof(unew))}, (const char *[]){"u", "unew"}, (const int []){0, 0});
    {
#line 58 "tests/coarray_programs/device_heat.c"
      _xmpacc_sched_t _xmpacc_s_i = _xmpacc_range_k(2, (nl + 2) - 1, 1);
#line 58 "tests/coarray_programs/device_heat.c"
      long long _xmpacc_total = _xmpacc_s_i.count;
#line 58 "tests/coarray_programs/device_heat.c"
      _xmpacc_launch("device_heat.c:57", "_xmpacc_loop_device_heat_c_57", _xmpacc_total, 0, 4, (void *[]){(void *) (&_xmpacc_total), (void *) (&_xmpacc_s_i), (void *) unew, (void *) u}, (const long long []){0, sizeof(long long), 0, 0, sizeof(_xmpacc_sched_t), 0, 1, 2, 0, 1, 1, 0});
    }
#line 58 "tests/coarray_programs/device_heat.c"
    _xmpacc_acc_compute_end(_xmpacc_acc_1);
  }
  {
    int _xmpacc_acc_2 = _xmpacc_acc_compute_begin("device_heat.c:60", 2, (const void *[]){u, unew}, (const long long []){(long long) (sizeof(u)), (long long) (sizeof(unew))}, (const char *[]){"u", "unew"}, (const int []){0, 0});
    {
#line 61 "tests/coarray_programs/device_heat.c"
      _xmpacc_sched_t _xmpacc_s_i = _xmpacc_range_k(2, (nl + 2) - 1, 1);
#line 61 "tests/coarray_programs/device_heat.c"
      long long _xmpacc_total = _xmpacc_s_i.count;
#line 61 "tests/coarray_programs/device_heat.c"
      _xmpacc_launch("device_heat.c:60", "_xmpacc_loop_device_heat_c_60", _xmpacc_total, 0, 4, (void *[]){(void *) (&_xmpacc_total), (void *) (&_xmpacc_s_i), (void *) u, (void *) unew}, (const long long []){0, sizeof(long long), 0, 0, sizeof(_xmpacc_sched_t), 0, 1, 2, 0, 1, 1, 0});
    }
#line 61 "tests/coarray_programs/device_heat.c"
    _xmpacc_acc_compute_end(_xmpacc_acc_2);
  }
}


#line 65 "tests/coarray_programs/device_heat.c"
int main(void)
{
  int me = xmpc_this_image();
#line 67 "tests/coarray_programs/device_heat.c"
  int n = xmp_num_images();
  int nl = 48 / n;
#line 68 "tests/coarray_programs/device_heat.c"
  int left = ((me + n) - 1) % n;
#line 68 "tests/coarray_programs/device_heat.c"
  int right = (me + 1) % n;
  double init[48];
#line 69 "tests/coarray_programs/device_heat.c"
  double all[48];
#line 69 "tests/coarray_programs/device_heat.c"
  double last;
#line 69 "tests/coarray_programs/device_heat.c"
  double sum = 0.0;
  int i;
#line 70 "tests/coarray_programs/device_heat.c"
  int k;
#line 70 "tests/coarray_programs/device_heat.c"
  int bad = 0;
#line 70 "tests/coarray_programs/device_heat.c"
  int reported = 0;
#line 72 "tests/coarray_programs/device_heat.c"
  for (i = 0; i < 48; i++)
    init[i] = ((i % 7) * 1.5) + ((i == 10) ? (40.0) : (0.0));

#line 76 "tests/coarray_programs/device_heat.c"
  if (me == 0)
    for (k = 0; k < n; k++)
  {
    {
#line 79 "tests/coarray_programs/device_heat.c"
      void *_xmpacc_devptr_79_0 = _xmpacc_acc_deviceptr("device_heat.c:79", u, "u");
      double *u = _xmpacc_devptr_79_0;
      {
#line 80 "tests/coarray_programs/device_heat.c"
        long long _xmpacc_v0 = k * nl;
#line 80 "tests/coarray_programs/device_heat.c"
        if (nl <= 0)
#line 80 "tests/coarray_programs/device_heat.c"
          _xmpacc_section_error("device_heat.c:80", 1, "u", (const long long []){0, nl}, 0);
#line 80 "tests/coarray_programs/device_heat.c"
        _xmpacc_coarray_put_acc((void *) u, "device_heat.c:80", (const long long []){1, k}, (const long long []){1, sizeof(u[0]), 52, 1, 2, nl, 1}, (void *) init, (const long long []){1, sizeof(init[0]), 48, 1, _xmpacc_v0, nl, 1}, 1);
      }
    }
  }

#line 88 "tests/coarray_programs/device_heat.c"
  for (k = 0; k < 25; k++)
  {
#line 89 "tests/coarray_programs/device_heat.c"
    exchange(nl, left, right);
    step(nl);
  }

#line 92 "tests/coarray_programs/device_heat.c"
  exchange(nl, left, right);
  {
#line 97 "tests/coarray_programs/device_heat.c"
    void *_xmpacc_devptr_97_0 = _xmpacc_acc_deviceptr("device_heat.c:97", u, "u");
    double *u = _xmpacc_devptr_97_0;
#line 97 "tests/coarray_programs/device_heat.c"
    void *_xmpacc_devptr_97_1 = _xmpacc_acc_deviceptr("device_heat.c:97", unew, "unew");
    double *unew = _xmpacc_devptr_97_1;
    {
#line 98 "tests/coarray_programs/device_heat.c"
      _xmpacc_coarray_get_acc((void *) u, "device_heat.c:98", (const long long []){1, left}, (const long long []){1, sizeof(u[0]), 52, 1, nl, 2, 1}, (void *) unew, (const long long []){1, sizeof(unew[0]), 52, 1, 0, 2, 1}, 3);
    }
  }
  {
#line 104 "tests/coarray_programs/device_heat.c"
    _xmpacc_acc_update("device_heat.c:104", 1, u, sizeof(u), "u", 0, 1 | 0, -1);
#line 104 "tests/coarray_programs/device_heat.c"
    _xmpacc_acc_update("device_heat.c:104", 1, unew, sizeof(unew), "unew", 0, 1 | 0, -1);
  }
#line 105 "tests/coarray_programs/device_heat.c"
  for (i = 0; i < 2; i++)
    bad += u[i] != unew[i];

  {
#line 108 "tests/coarray_programs/device_heat.c"
    void *_xmpacc_devptr_108_0 = _xmpacc_acc_deviceptr("device_heat.c:108", checks, "checks");
    int *checks = _xmpacc_devptr_108_0;
    {
#line 109 "tests/coarray_programs/device_heat.c"
      int _xmpacc_v = bad;
#line 109 "tests/coarray_programs/device_heat.c"
      _xmpacc_coarray_put_acc((void *) checks, "device_heat.c:109", (const long long []){1, 0}, (const long long []){1, sizeof(checks[0]), 4, 0, me, 1, 1}, (const void *) (&_xmpacc_v), (const long long []){0, sizeof(int)}, 1);
    }
  }
#line 114 "tests/coarray_programs/device_heat.c"
  _xmpacc_sync_all("device_heat.c:114");
#line 116 "tests/coarray_programs/device_heat.c"
  if (me == 0)
  {
    for (k = 0; k < n; k++)
    {
      {
#line 120 "tests/coarray_programs/device_heat.c"
        void *_xmpacc_devptr_120_0 = _xmpacc_acc_deviceptr("device_heat.c:120", u, "u");
        double *u = _xmpacc_devptr_120_0;
        {
#line 121 "tests/coarray_programs/device_heat.c"
          long long _xmpacc_v0 = k * nl;
#line 121 "tests/coarray_programs/device_heat.c"
          if (nl <= 0)
#line 121 "tests/coarray_programs/device_heat.c"
            _xmpacc_section_error("device_heat.c:121", 1, "u", (const long long []){0, nl}, 0);
#line 121 "tests/coarray_programs/device_heat.c"
          _xmpacc_coarray_get_acc((void *) u, "device_heat.c:121", (const long long []){1, k}, (const long long []){1, sizeof(u[0]), 52, 1, 2, nl, 1}, (void *) all, (const long long []){1, sizeof(all[0]), 48, 1, _xmpacc_v0, nl, 1}, 1);
        }
      }
    }

    {
#line 128 "tests/coarray_programs/device_heat.c"
      void *_xmpacc_devptr_128_0 = _xmpacc_acc_deviceptr("device_heat.c:128", u, "u");
      double *u = _xmpacc_devptr_128_0;
      {
#line 129 "tests/coarray_programs/device_heat.c"
        last = *((double *) _xmpacc_coarray_get_elem_acc((void *) u, "device_heat.c:129", (const long long []){1, n - 1}, (const void *) (&u[(2 + nl) - 1]), (long long) (sizeof(double))));
      }
    }
    {
      _xmpacc_acc_update("device_heat.c:133", 1, checks, sizeof(checks), "checks", 0, 1 | 0, -1);
    }
#line 134 "tests/coarray_programs/device_heat.c"
    for (k = 0; k < n; k++)
      reported += checks[k];

#line 136 "tests/coarray_programs/device_heat.c"
    for (i = 0; i < 48; i++)
      sum += (i + 1) * all[i];

#line 138 "tests/coarray_programs/device_heat.c"
    printf("heat: sum = %.12e, u[10] = %.12f, u[%d] = %.12f (last %.12f)\n", sum, all[10], 48 - 1, all[48 - 1], last);
#line 140 "tests/coarray_programs/device_heat.c"
    printf("halo mismatches: %d\n", reported);
  }
  _xmpacc_sync_all("device_heat.c:142");
  return 0;
}


static void _xmpacc_init_device_heat_c(void)
{
#line 24 "tests/coarray_programs/device_heat.c"
  _xmpacc_coarray_init((void *) u, "device_heat.c:24", "u", (long long) (sizeof(u)), (long long) (sizeof(u[0])), 1, (const long long []){-1});
  _xmpacc_coarray_init((void *) checks, "device_heat.c:25", "checks", (long long) (sizeof(checks)), (long long) (sizeof(checks[0])), 1, (const long long []){-1});
  _xmpacc_local_view_init();
  {
#line 31 "tests/coarray_programs/device_heat.c"
    _xmpacc_acc_enter_data("device_heat.c:31", 3, (const void *[]){u, checks, unew}, (const long long []){sizeof(u), sizeof(checks), sizeof(unew)}, (const char *[]){"u", "checks", "unew"}, (const long long []){3, 3, 3}, (const void *[]){0, 0, 0}, 1, -1);
#line 31 "tests/coarray_programs/device_heat.c"
    _xmpacc_coarray_device_init((void *) u, "device_heat.c:31");
#line 31 "tests/coarray_programs/device_heat.c"
    _xmpacc_coarray_device_init((void *) checks, "device_heat.c:31");
  }
}




/* this file's record for the link step and the runtime: start-up function, kernels */
#include "heat.record.h"
