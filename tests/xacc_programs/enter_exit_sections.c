/* enter/exit data with reference counts, update of global-index sections of a
 * distributed array (owners only), sections of ordinary arrays and pointers, if clauses,
 * async queues and wait, host_data use_device, and block-scope declare. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
#define M 6

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double u[N][M];
#pragma xmp align u[i][*] with t[i]
double v[10];
int flag = 1;

int main(void) {
  int i, j;
  double total = 0, hs = 0;
  double *q = (double *) malloc(8 * sizeof(double));
  for (i = 0; i < 10; i++) v[i] = i;
  for (i = 0; i < 8; i++) q[i] = 1.0 + i;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) u[i][j] = i * 10 + j;

#pragma acc enter data copyin(u) create(v)
#pragma acc enter data copyin(u)
#pragma acc update device(v[2:5]) if(flag)
#pragma acc update device(v) if(flag == 0)
#pragma xmp loop on t[i] acc
  for (i = 0; i < N; i++)
    for (int jj = 0; jj < M; jj++) u[i][jj] = u[i][jj] * 2;
#pragma acc exit data copyout(u)
  /* u is still present (entered twice), its host copy not updated yet: update host of a
   * section with global indices copies the rows each node owns */
#pragma acc update host(u[4:10][1:2]) async(1)
#pragma acc wait(1)
#pragma xmp loop on t[i] reduction(+:total)
  for (i = 4; i < 14; i++)
    for (j = 1; j < 3; j++) total += u[i][j];
#pragma acc exit data copyout(u) delete(v) async(2)
#pragma acc wait
#pragma xmp loop on t[i] reduction(+:total)
  for (i = 0; i < N; i++) total += u[i][M - 1];

  /* ordinary arrays and pointers: sections, host_data, declare */
#pragma acc data copyin(q[0:8]) create(v)
  {
    for (i = 0; i < 10; i++) v[i] = -1;
#pragma acc update device(v)
#pragma acc host_data use_device(q, v)
    {
      hs = (q != 0) + (v != 0);   /* device addresses: not for host code on a GPU */
    }
#pragma acc update self(v[0:3])
  }
  {
    double z[4] = {1, 2, 3, 4};
#pragma acc declare copy(z)
    z[0] = 100;
#pragma acc update device(z[0:1])
#pragma acc update host(z[1:2])
    hs += z[0] + z[1] + z[2] + z[3];
  }
  hs += v[0] + v[1] + v[2] + v[3];
  if (xmpc_node_num() == 0) printf("total = %.1f  hs = %.1f\n", total, hs);
  free(q);
  return 0;
}
