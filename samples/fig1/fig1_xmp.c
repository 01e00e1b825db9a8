/*
 * fig1_xmp.c - Fig. 1 of Lee et al. (2011), "Data Parallelization in Global View
 * Model", made complete.  The directives are exactly those of the figure, in the
 * paper's parenthesised syntax.  nodes p(4) fixes the node count: run with
 *     mpirun -np 4 ./fig1_xmp
 * The 22 rows are split 6, 6, 6, 4 over p(1)..p(4).
 */
#include <stdio.h>

#define YMAX 22   /* rows    */
#define XMAX 13   /* columns */

int array[YMAX][XMAX];

/* four nodes p(1)..p(4) (parenthesised syntax: numbered from 1) */
#pragma xmp nodes p(4)
/* template indices 0..YMAX-1, one per row (YMAX is expanded in the directive) */
#pragma xmp template t(0:YMAX-1)
/* contiguous blocks of rows per node */
#pragma xmp distribute t(BLOCK) onto p
/* row i lives on the owner of t(i); '*': each row is kept whole */
#pragma xmp align array[i][*] with t(i)

int func(int i, int j)
{
    return (i + 1) * (j + 2) % 11 + i - j;
}

int main(void) {
  int i,j,res = 0;
  /* each node runs the rows it owns and sums them into its own res */
#pragma xmp loop on t(i)
  for(i = 0; i < YMAX; i++) {
    for(j = 0; j < XMAX; j++) {
        array[i][j] = func(i,j);
        res += array[i][j];
    }
  }
  /* add the four partial sums; every node gets the total */
#pragma xmp reduction (+:res)
  /* print once, on the first node */
#pragma xmp task on p(1)
  {
    printf("res = %d\n", res);
  }
  return 0;
}
