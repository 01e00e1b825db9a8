/*
 * fig1_serial.c - the serial program behind Fig. 1 of Lee et al. (2011):
 * fill a 2-D array from a function of the indices and sum all its elements.
 */
#include <stdio.h>

#define YMAX 22   /* rows    */
#define XMAX 13   /* columns */

int array[YMAX][XMAX];

int func(int i, int j)
{
    return (i + 1) * (j + 2) % 11 + i - j;
}

int main(void) {
  int i,j,res = 0;
  for(i = 0; i < YMAX; i++) {
    for(j = 0; j < XMAX; j++) {
        array[i][j] = func(i,j);
        res += array[i][j];
    }
  }
  {
    printf("res = %d\n", res);
  }
  return 0;
}
