/* gmove (global-view §2) between block, cyclic, cyclic(3), offset and 2-D arrays of
 * different templates, on any number of nodes: every form of the table, strides,
 * negative steps, scalar subscripts that change the rank, an overlapping copy within one
 * array, local data and scalars on either side.  Each result is checked with a loop
 * reduction (no gmove involved).  Serial meaning: gmove_1d_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 23
#define M 5

#pragma xmp nodes p[*]
#pragma xmp template t1[N]
#pragma xmp template t2[N]
#pragma xmp template t3[N]
#pragma xmp template t5[N + 5]
#pragma xmp distribute t1[block] onto p
#pragma xmp distribute t2[cyclic] onto p
#pragma xmp distribute t3[cyclic(3)] onto p
#pragma xmp distribute t5[block] onto p
double a[N], b[N], c[N], o[N], m[N][M], mt[M][N];
#pragma xmp align a[i] with t1[i]
#pragma xmp align b[i] with t2[i]
#pragma xmp align c[i] with t3[i]
#pragma xmp align o[i] with t5[i + 3]
#pragma xmp align m[i][*] with t1[i]
#pragma xmp align mt[*][j] with t2[j]
#pragma xmp shadow a[2]

double loc[N], loc2[N], x, y;

static void show(const char *label, double s)
{
    if (xmpc_node_num() == 0) printf("%-12s %.1f\n", label, s);
}

/* weighted sums by loop reductions: each result is checked without gmove */
static void sum_a(const char *label) { double s = 0; int i;
#pragma xmp loop on t1[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * a[i];
    show(label, s); }
static void sum_b(const char *label) { double s = 0; int i;
#pragma xmp loop on t2[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * b[i];
    show(label, s); }
static void sum_c(const char *label) { double s = 0; int i;
#pragma xmp loop on t3[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * c[i];
    show(label, s); }
static void sum_o(const char *label) { double s = 0; int i;
#pragma xmp loop on t5[i] reduction(+:s)
    for (i = 3; i < N + 3; i++) s += (i - 2) * o[i - 3];
    show(label, s); }

int main(void)
{
    int i, j, n = N - 1;
    double s;
#pragma xmp loop on t1[i]
    for (i = 0; i < N; i++) { a[i] = i + 1; for (j = 0; j < M; j++) m[i][j] = 100 * i + j; }
#pragma xmp loop on t2[i]
    for (i = 0; i < N; i++) { b[i] = 0; for (j = 0; j < M; j++) mt[j][i] = 0; }
#pragma xmp loop on t3[i]
    for (i = 0; i < N; i++) c[i] = 0;
#pragma xmp loop on t5[i]
    for (i = 3; i < N + 3; i++) o[i - 3] = 0;
    for (i = 0; i < N; i++) { loc[i] = 0; loc2[i] = 1000 + i; }

#pragma xmp gmove
    b[:] = a[:];                          /* block -> cyclic */
    sum_b("b=a");
#pragma xmp gmove
    c[0:20] = b[3:20];                    /* cyclic -> cyclic(3), shifted */
    sum_c("c=b");
#pragma xmp gmove
    o[1:N-1] = c[N-1:N-1:-1];             /* reversed into an offset array */
    sum_o("o=c rev");
#pragma xmp gmove
    a[0:12:2] = o[1:12];                  /* strided destination */
    sum_a("a strided");
#pragma xmp gmove
    a[1:n] = a[0:n];                      /* overlap within one array, run-time length */
    sum_a("a shifted");
#pragma xmp gmove
    loc[:] = c[:];                        /* local <- distributed: every node gets all */
#pragma xmp gmove
    x = b[7];                             /* scalar <- element */
#pragma xmp gmove
    y = m[4][3];
    s = 0;
    for (i = 0; i < N; i++) s += (i + 1) * loc[i];
    if (xmpc_node_num() == 0) printf("%-12s %.1f %.1f %.1f\n", "loc x y", s, x, y);
#pragma xmp gmove
    c[3:5] = x;                           /* fill from a scalar */
    sum_c("c fill");
#pragma xmp gmove
    b[2:6] = m[1][0];                     /* fill from a distributed element */
    sum_b("b fill");
#pragma xmp gmove
    b[:] = loc2[:];                       /* distributed <- local: owners copy */
    sum_b("b=loc2");
#pragma xmp gmove
    m[:][2] = b[:];                       /* a column of a 2-D array from a 1-D one */
#pragma xmp gmove
    mt[3][:] = m[:][1];                   /* a row from a column, other distribution */
#pragma xmp gmove
    mt[0:2][5:4] = m[10:2][1:4];          /* a 2-D block, transposed layouts */
#pragma xmp gmove
    loc[0:M] = mt[:][N-1];
#pragma xmp gmove
    loc2[0:5] = loc[1:5];                 /* local <- local: a plain copy */
    s = 0;
#pragma xmp loop on t1[i] reduction(+:s)
    for (i = 0; i < N; i++) for (j = 0; j < M; j++) s += (i + 1) * (j + 2) * m[i][j];
    if (xmpc_node_num() == 0) printf("%-12s %.1f\n", "m", s);
    s = 0;
#pragma xmp loop on t2[i] reduction(+:s)
    for (i = 0; i < N; i++) for (j = 0; j < M; j++) s += (i + 1) * (j + 2) * mt[j][i];
    if (xmpc_node_num() == 0) printf("%-12s %.1f\n", "mt", s);
    s = 0;
    for (i = 0; i < N; i++) s += (i + 1) * (loc[i] + 2 * loc2[i]);
    if (xmpc_node_num() == 0) printf("%-12s %.1f\n", "loc loc2", s);

    /* bcast of a section: only its elements move */
    for (i = 0; i < N; i++) loc[i] = 100 * xmpc_node_num() + i;
#pragma xmp bcast (loc[2:3:2]) from p[0]
    j = loc[2] != 2 || loc[4] != 4 || loc[6] != 6 || loc[3] != 100 * xmpc_node_num() + 3
        || loc[7] != 100 * xmpc_node_num() + 7;
#pragma xmp reduction (max:j)
    if (xmpc_node_num() == 0) printf("bcast section wrong: %d\n", j);
    return 0;
}
