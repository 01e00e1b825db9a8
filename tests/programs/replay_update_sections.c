/* acc update of array sections in a time loop (runtime/replay.py: a section replays in C
 * when the call passes the section of a plan): a 1-D section whose bounds take two values
 * by turns, updated to the device on an async queue and waited for; the whole array as a
 * section; a strided 2-D section both ways; the upper half of an array; a section whose start
 * changes at every step (more than a site's plans: planned again, never replayed); rows of
 * a block-distributed array and of a cyclic one (each node moves the elements it owns).
 * With an argument the last step's section of a runs past the array: the general path's
 * error, at that line.  Built without xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 32
#define R 8
#define C 10
#define G 24
#define STEPS 8

double g[G][C], h[G];
#pragma xmp nodes p[*]
#pragma xmp template t[G][C]
#pragma xmp template tc[G]
#pragma xmp distribute t[block][*] onto p
#pragma xmp distribute tc[cyclic] onto p
#pragma xmp align g[i][j] with t[i][j]
#pragma xmp align h[i] with tc[i]

int main(int argc, char **argv)
{
    int i, j, k, lo, len, first;
    double a[N], b[R][C], c[N], s = 0.0, sg = 0.0;
    (void)argv;
    for (i = 0; i < N; i++)
        a[i] = c[i] = 0.25 * i;
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++)
            b[i][j] = i + 0.1 * j;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < G; i++)
        for (j = 0; j < C; j++)
            g[i][j] = 0.5 * i + j;
#pragma xmp loop on tc[i]
    for (i = 0; i < G; i++)
        h[i] = 1.0 + i;
#pragma acc data copy(a, b, c, g, h)
    {
        for (k = 0; k < STEPS; k++) {
            lo = 2 * (k % 2);
            len = argc > 1 && k == STEPS - 1 ? N : 6 + k % 2;
            for (i = lo; i < lo + 6 + k % 2; i++)
                a[i] += k;
#pragma acc update device(a[lo:len]) async(3)
#pragma acc wait(3)
#pragma acc parallel loop
            for (i = 0; i < N; i++)
                a[i] = 0.5 * a[i] + 1.0;
#pragma acc update host(a[0:N])
            s += a[lo] + a[N - 1];
            for (i = 1; i < 4; i++)
                for (j = 2; j < 6; j++)
                    b[i][j] += 0.01 * k;
#pragma acc update device(b[1:3][2:4])
#pragma acc parallel loop collapse(2)
            for (i = 0; i < R; i++)
                for (j = 0; j < C; j++)
                    b[i][j] = 0.9 * b[i][j];
#pragma acc update host(b[1:3][2:4])
            s += b[1][2] + b[3][5];
#pragma acc parallel loop
            for (i = 0; i < N; i++)
                c[i] = c[i] + i * 0.5;
#pragma acc update host(c[N / 2:N / 2])
            first = k % (N - 4);
#pragma acc update host(c[first:3])
            for (i = N / 2; i < N; i++)
                s += c[i];
            s += c[first + 1];
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 0; i < G; i++)
                for (j = 0; j < C; j++)
                    g[i][j] = 0.75 * g[i][j] + 0.1;
#pragma acc update host(g[2:G - 4][1:C - 2])
#pragma xmp loop on tc[i]
#pragma acc parallel loop
            for (i = 0; i < G; i++)
                h[i] = h[i] * 1.5 - 0.25;
#pragma acc update host(h[1:G - 2])
#pragma xmp loop (i, j) on t[i][j] reduction(+:sg)
            for (i = 2; i < G - 2; i++)
                for (j = 1; j < C - 1; j++)
                    sg += g[i][j];
#pragma xmp loop on tc[i] reduction(+:sg)
            for (i = 1; i < G - 1; i++)
                sg += h[i];
        }
    }
#ifdef _XCALABLEMP
    if (xmp_node_num() != 1)
        return 0;
#endif
    printf("s %.10e sg %.10e\n", s, sg);
    return 0;
}
