/* One sweep of bench/spelling/stencil3d.h in the spelling -DSPELLING picks: TO = POINT of FROM
 * at every interior cell.  Included twice, once per direction (SWEEP, FROM and TO defined);
 * no include guard on purpose. */
static void SWEEP(void)
{
    int i, j, k;

#pragma xmp reflect (FROM) acc
#if SPELLING == 1
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop collapse(3)
#elif SPELLING == 2
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop gang
#elif SPELLING == 3
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc kernels loop independent
#elif SPELLING == 4
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop collapse(2) gang vector_length(64)
#elif SPELLING == 5
#pragma xmp loop (k, j, i) on t[k][j][i] acc
#elif SPELLING == 6
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop collapse(3) async
#endif
    for (k = 1; k < N - 1; k++)
#if SPELLING == 2
#pragma acc loop worker
#elif SPELLING == 3
#pragma acc loop independent
#endif
        for (j = 1; j < N - 1; j++)
#if SPELLING == 2 || SPELLING == 4
#pragma acc loop vector
#elif SPELLING == 3
#pragma acc loop independent
#endif
            for (i = 1; i < N - 1; i++)
                TO[k][j][i] = POINT(k, j, i);
#if SPELLING == 6
#pragma acc wait
#endif
}
