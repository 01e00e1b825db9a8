/* Reductions of arrays reached through pointers, array parameters and variable-length
 * arrays, of rows, elements and sections of 2-D arrays, strided sections, of chars and shorts
 * (four to a compare-and-swap word on the GPU), with && and ||, and of arrays and
 * scalars present on the device (OpenACC 2.7: a compute construct's
 * reduction implies copy, so the reduction of a present array updates its device copy,
 * which reaches the host at the region's end or an update host), of elements of
 * typedef'd types (real, int64_t), and of bools (stdbool.h's and _Bool, one byte each,
 * over the nodes too).  Start values are not the identity.  Every result equals the
 * serial one. */
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 40
#define NB 6
typedef double real;
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

/* a pointer parameter: its section names the reduced elements */
static void count(int *h, int nb, const int *v, int n)
{
    int i;
#pragma acc parallel loop reduction(+: h[0:nb]) copyin(v[0:n])
    for (i = 0; i < n; i++)
        h[v[i] % nb] += 1;
}

/* an array parameter, a section from 1 */
static void weigh(double w[], const int *v, int n)
{
    int i;
#pragma acc parallel loop reduction(max: w[1:4]) copyin(v[0:n])
    for (i = 0; i < n; i++)
        if (v[i] * 0.5 > w[1 + v[i] % 4]) w[1 + v[i] % 4] = v[i] * 0.5;
}

int main(void)
{
    int i, k, nb = NB;
    int v[N], *ph = malloc(NB * sizeof(int)), vla[nb], dh[NB], eh[NB], sh[NB];
    double w[6] = {9, 1, 1, 1, 1, 9};
    int g[4][5], e[8], st[9] = {5, 1, 5, 2, 5, 3, 5, 4, 5}, blk[4][5];
    unsigned char bytes[7] = {250, 0, 1, 2, 3, 4, 5};
    short halves[5] = {-300, 0, 7, 0, 9};
    int all[3] = {1, 1, 1}, any[3] = {0, 0, 0};
    double ps = 1.5, after[4];
    long pm = -1;
    real tw[3] = {0.5, 100.0, -1.0};
    int64_t big[2] = {4000000000LL, -7};
    bool seen[5] = {false, false, true, false, false}, flip[3] = {true, false, false}, hit[4] = {false};
    _Bool fine[3] = {1, 1, 0};

    for (i = 0; i < N; i++) v[i] = (i * 7) % 11;
    for (k = 0; k < NB; k++) {
        ph[k] = k;
        vla[k] = 10 * k;
        dh[k] = 100;
        eh[k] = -k;
        sh[k] = 0;
    }
    for (k = 0; k < 20; k++) g[k / 5][k % 5] = blk[k / 5][k % 5] = k;
    for (k = 0; k < 8; k++) e[k] = -k;

    /* a malloc'd pointer's section, a pointer parameter, an array parameter */
#pragma acc parallel loop reduction(+: ph[0:NB]) copyin(v)
    for (i = 0; i < N; i++)
        ph[v[i] % NB] += v[i];
    count(ph, NB, v, N);
    weigh(w, v, N);

    /* elements of typedef'd types */
#pragma acc parallel loop reduction(max: tw) copyin(v)
    for (i = 0; i < N; i++)
        tw[i % 3] = tw[i % 3] > 0.25 * v[i] ? tw[i % 3] : 0.25 * v[i];
#pragma acc parallel loop reduction(+: big) copyin(v)
    for (i = 0; i < N; i++)
        big[i % 2] += (int64_t)v[i] * 1000000000LL;

    /* bools: neighbours share a word, as chars do; += of a bool makes it true */
#pragma acc parallel loop reduction(||: seen) reduction(&&: fine) reduction(^: flip) copyin(v)
    for (i = 0; i < N; i++) {
        seen[v[i] % 5] = seen[v[i] % 5] || v[i] > 8;
        fine[i % 3] = fine[i % 3] && v[i] < 10;
        flip[i % 3] ^= v[i] % 2;
    }
#pragma xmp loop on t[i] reduction(+: hit)
#pragma acc parallel loop copyin(v)
    for (i = 0; i < N; i++)
        hit[i % 4] += v[i] == 3 + i % 4;

    /* a variable-length array, whole */
#pragma acc parallel loop reduction(+: vla) copyin(v)
    for (i = 0; i < N; i++)
        vla[v[i] % nb]++;

    /* rows, a row, part of a row, an element */
#pragma acc parallel loop reduction(+: g[1:2][:]) copyin(v)
    for (i = 0; i < N; i++)
        g[1 + i % 2][v[i] % 5] += 1;
#pragma acc parallel loop reduction(max: g[3]) copyin(v)
    for (i = 0; i < N; i++)
        if (v[i] * 3 > g[3][i % 5]) g[3][i % 5] = v[i] * 3;
#pragma acc parallel loop reduction(+: g[0][1:3], e[7]) copyin(v)
    for (i = 0; i < N; i++) {
        g[0][1 + v[i] % 3] += 2;
        e[7] += v[i];
    }

    /* chars and shorts: neighbours share a 4-byte word; an unsigned char wraps */
#pragma acc parallel loop reduction(+: bytes, halves[1:3]) copyin(v)
    for (i = 0; i < N; i++) {
        bytes[v[i] % 7] += 3;
        halves[1 + i % 3] -= v[i];
    }
#pragma acc parallel loop reduction(max: bytes[1:6]) copyin(v)
    for (i = 0; i < N; i++)
        if (v[i] * 2 > bytes[1 + i % 6]) bytes[1 + i % 6] = v[i] * 2;

    /* logical and, or: every element true while all its updates are */
#pragma acc parallel loop reduction(&&: all) reduction(||: any) copyin(v)
    for (i = 0; i < N; i++) {
        all[i % 3] = all[i % 3] && v[i] > i % 3 - 1;
        any[i % 3] = v[i] * (i % 3) > 15 || any[i % 3];
    }

    /* present in a data region: two constructs add into the device copy, which the
     * region's end copies out */
#pragma acc data copy(dh) copyin(v)
    {
#pragma acc parallel loop reduction(+: dh)
        for (i = 0; i < N; i++)
            dh[v[i] % NB] += 1;
#pragma acc parallel loop reduction(+: dh[1:3])
        for (i = 0; i < N; i++)
            dh[1 + v[i] % 3] += 2;
    }

    /* present through the construct's own copy clause */
#pragma acc parallel loop reduction(+: eh) copy(eh) copyin(v)
    for (i = 0; i < N; i++)
        eh[v[i] % NB] -= 1;

    /* present through enter data of a pointer's section, then update host */
#pragma acc enter data copyin(ph[0:NB])
#pragma acc parallel loop reduction(+: ph[0:NB])
    for (i = 0; i < N; i++)
        ph[i % NB] += 1000;
#pragma acc update host(ph[0:NB])
#pragma acc exit data delete(ph[0:NB])

    /* present scalars: the reduction goes to the device copy, which the next kernel
     * reads and the region's end copies out */
#pragma acc data copy(ps) copyin(v) copyout(after)
    {
#pragma acc parallel loop reduction(+: ps)
        for (i = 0; i < N; i++)
            ps += 0.5 * v[i];
#pragma acc parallel loop
        for (k = 0; k < 4; k++)
            after[k] = ps * k;
    }
#pragma acc enter data copyin(pm, v)
#pragma acc parallel loop reduction(max: pm)
    for (i = 0; i < N; i++)
        if (v[i] * (long) i > pm) pm = v[i] * (long) i;
#pragma acc update host(pm)
#pragma acc exit data delete(pm, v)

    /* an XMP loop: each node's iterations into its device copy, then over the nodes on
     * the device */
#pragma acc data copy(sh)
    {
#pragma xmp loop on t[i]
#pragma acc parallel loop reduction(+: sh)
        for (i = 0; i < N; i++)
            sh[i % NB] += i;
#pragma xmp reduction (+: sh) acc
    }

    /* sections whose elements do not lie together (a step, a block of a 2-D array), over
     * the nodes with an XMP loop, into a temporary and into a device copy; the elements
     * between the named ones stay as they were */
#pragma xmp loop on t[i] reduction(+: st[1:4:2], blk[1:2][2:3])
#pragma acc parallel loop copyin(v)
    for (i = 0; i < N; i++) {
        st[1 + 2 * (i % 4)] += v[i];
        blk[1 + i % 2][2 + i % 3] += 1;
    }
#pragma acc data copy(st)
    {
#pragma acc parallel loop reduction(max: st[0:3:3]) copyin(v)
        for (i = 0; i < N; i++)
            if (v[i] * 4 > st[3 * (i % 3)]) st[3 * (i % 3)] = v[i] * 4;
    }

    if (xmpc_node_num() == 0) {
        printf("strided");
        for (k = 0; k < 9; k++) printf(" %d", st[k]);
        printf("\nblock");
        for (k = 0; k < 20; k++) printf(" %d", blk[k / 5][k % 5]);
        printf("\npointer");
        for (k = 0; k < NB; k++) printf(" %d", ph[k]);
        printf("\nmax %g %g %g %g %g %g\nvla", w[0], w[1], w[2], w[3], w[4], w[5]);
        for (k = 0; k < NB; k++) printf(" %d", vla[k]);
        printf("\ndata");
        for (k = 0; k < NB; k++) printf(" %d", dh[k]);
        printf("\ncopy");
        for (k = 0; k < NB; k++) printf(" %d", eh[k]);
        printf("\n2-D");
        for (k = 0; k < 20; k++) printf(" %d", g[k / 5][k % 5]);
        printf("\nelement %d %d\nbytes", e[6], e[7]);
        for (k = 0; k < 7; k++) printf(" %d", bytes[k]);
        printf("\nhalves");
        for (k = 0; k < 5; k++) printf(" %d", halves[k]);
        printf("\nlogical %d %d %d  %d %d %d", all[0], all[1], all[2], any[0], any[1], any[2]);
        printf("\nscalars %g %g %g %ld", ps, after[1], after[3], pm);
        printf("\ntypedefs %g %g %g %lld %lld", tw[0], tw[1], tw[2], (long long)big[0], (long long)big[1]);
        printf("\nbools");
        for (k = 0; k < 5; k++) printf(" %d", seen[k]);
        printf(" %d %d %d %d %d %d", fine[0], fine[1], fine[2], flip[0], flip[1], flip[2]);
        for (k = 0; k < 4; k++) printf(" %d", hit[k]);
        printf("\nnodes");
        for (k = 0; k < NB; k++) printf(" %d", sh[k]);
        printf("\n");
    }
    free(ph);
    return 0;
}
