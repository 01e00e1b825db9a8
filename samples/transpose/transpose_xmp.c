/* transpose_serial.c on distributed arrays: the rows are worked on in row blocks, one
 * gmove redistributes the matrix to column blocks (an all-to-all exchange), the columns
 * are worked on there, an array directive scales each node's part in place, and a
 * column-by-column gmove transposes.  Only node 0 prints. */
#include <stdio.h>
#include <xmp.h>

#define N 64
#define M 48

#pragma xmp nodes p[*]
#pragma xmp template tr[N][M]
#pragma xmp template tc[N][M]
#pragma xmp template tt[M][N]
#pragma xmp distribute tr[block][*] onto p
#pragma xmp distribute tc[*][block] onto p
#pragma xmp distribute tt[block][*] onto p
double a[N][M], c[N][M], t[M][N];
#pragma xmp align a[i][j] with tr[i][j]
#pragma xmp align c[i][j] with tc[i][j]
#pragma xmp align t[i][j] with tt[i][j]

int main(void)
{
    int i, j;
    double sum = 0.0, corner;

#pragma xmp loop (i) on tr[i][*]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            a[i][j] = ((i * 7 + j * 3) % 17) * 0.5 - 2.0;

    /* along the rows: running sums (each node has whole rows) */
#pragma xmp loop (i) on tr[i][*]
    for (i = 0; i < N; i++)
        for (j = 1; j < M; j++)
            a[i][j] += a[i][j - 1];

    /* the columns become the unit of work: row blocks -> column blocks */
#pragma xmp gmove
    c[:][:] = a[:][:];

    /* along the columns: smoothing (each node has whole columns) */
#pragma xmp loop (j) on tc[*][j]
    for (j = 0; j < M; j++)
        for (i = 1; i < N; i++)
            c[i][j] = 0.5 * c[i][j] + 0.5 * c[i - 1][j];

    /* every node scales its own columns: no communication */
#pragma xmp array on tc[:][:]
    c[:][:] = 0.25 * c[:][:] + 1.0;

    /* transpose: column j of c becomes row j of t */
    for (j = 0; j < M; j++) {
#pragma xmp gmove
        t[j][:] = c[:][j];
    }

#pragma xmp loop (j) on tt[j][*] reduction(+:sum)
    for (j = 0; j < M; j++)
        for (i = 0; i < N; i++)
            sum += (j + 1) * (i + 2) * t[j][i];
#pragma xmp gmove
    corner = t[M - 1][N - 1];
    if (xmpc_node_num() == 0) {
        printf("checksum = %.10e\n", sum);
        printf("t[%d][%d] = %.10e\n", M - 1, N - 1, corner);
    }
    return 0;
}
