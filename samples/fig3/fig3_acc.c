/*
 * fig3_acc.c - Fig. 3 of Lee et al. (2011), "Sample Code of XcalableMP-ACC", made
 * complete.  The paper uses nodes p(4); here p(*) so that any process count works:
 *     mpirun -np 3 ./fig3_acc        (1024 elements -> 342, 342, 340)
 * Each node's GPU computes b[i] for the node's block of b; a has a full shadow, so
 * every node (and its GPU) holds the whole of a after the reflect.
 */
#include <stdio.h>

#define N 1024

#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(BLOCK) onto p
/* the paper's order: align and shadow come before the declarations they describe */
#pragma xmp align [i] with t(i) :: a, b
/* full shadow: every node allocates all N elements of a */
#pragma xmp shadow a[*]
int a[N], b[N];

int main(void) {
  int i, x = 0;
  long s = 0;
#pragma xmp loop on t(i)
  for (i = 0; i < N; i++)
    a[i] = i;
  /* gather the whole of a on every node (host memory) */
#pragma xmp reflect a
  /* GPU copies of a (all N elements) and b (the local block) for this block only */
#pragma xmp acc replicate (a, b)
  {
    /* host -> GPU: a including its shadow */
#pragma xmp acc replicate_sync in (a)
    /* one GPU thread per local i; x is passed by value */
#pragma xmp loop on t(i) acc
    for (i = 0; i < N; i++) {
      b[i] = x;
      for (int j = 0; j < N; j++)
        b[i] += a[j];
    }
    /* GPU -> host: the local block of b */
#pragma xmp acc replicate_sync out (b)
  }
  /* checksum on the host: local partial sums, added over all nodes */
#pragma xmp loop on t(i) reduction(+:s)
  for (i = 0; i < N; i++)
    s += b[i];
  /* b[0] belongs to p(1), which also does the printing */
#pragma xmp task on p(1)
  {
    printf("b[0] = %d\n", b[0]);
    printf("sum of b = %ld\n", s);
  }
  return 0;
}
