/* The serial meaning of gmove_task.c. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 24

double a[N], b[N], m[N][3], loc[N], x;

int main(void)
{
    int i;
    double sb = 0, sm = 0, sl = 0;
    for (i = 0; i < N; i++) { a[i] = i + 1; b[i] = 0; m[i][0] = m[i][1] = m[i][2] = -1; loc[i] = 0; }
    for (i = 0; i < N; i++) loc[i] = a[i];
    x = a[N - 1];
    for (i = 0; i < N; i++) b[i] = loc[N - 1 - i];
    for (i = 0; i < 6; i++) m[2 * i][1] = a[i];
    for (i = 0; i < 3; i++) loc[i] = m[N - 1][i];
    loc[3] = a[1];
    for (i = 0; i < 3; i++) b[N - 3 + i] = loc[4];
    for (i = 0; i < N; i++) { sb += (i + 1) * b[i]; sm += (i + 1) * (m[i][0] + 2 * m[i][1] + 3 * m[i][2]); }
    for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
    printf("b %.1f m %.1f loc %.1f x %.1f\n", sb, sm, sl, x);
    return 0;
}
