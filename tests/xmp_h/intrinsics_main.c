/* The collective intrinsics called as functions from a file without directives
 * (intrinsics_lib.c), on distributed arrays of this file: each result is compared with
 * the same call that xmpacc lowers here (bad: elements that differ) and summed (weight
 * k + 1 for element k) for tests/test_xmp_h.py to check.  Also xmp_malloc/xmp_free. */
#include <stdio.h>
#include <xmp.h>

#define N 12
#define M 4

void lib_sort(xmp_desc_t dst, xmp_desc_t src, int down);
void lib_gather(xmp_desc_t x, xmp_desc_t a, xmp_desc_t i);
void lib_scatter(xmp_desc_t x, xmp_desc_t a, xmp_desc_t i);
void lib_pack(xmp_desc_t v, xmp_desc_t a, xmp_desc_t mask);
void lib_unpack(xmp_desc_t a, xmp_desc_t v, xmp_desc_t mask);
void lib_transpose(xmp_desc_t dst, xmp_desc_t src);
void lib_matmul(xmp_desc_t c, xmp_desc_t a, xmp_desc_t b);
void *lib_malloc(xmp_desc_t d, int n);
void lib_free(void *p);

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp template tm[M]
#pragma xmp distribute tm[cyclic] onto p
int a[N], r1[N], r2[N], idx[N], mask[N];
double x[M][M], y[M][M], z1[M][M], z2[M][M];
int *w;
#pragma xmp align a[i] with t[i]
#pragma xmp align r1[i] with t[i]
#pragma xmp align r2[i] with t[i]
#pragma xmp align idx[i] with t[i]
#pragma xmp align mask[i] with t[i]
#pragma xmp align x[i][*] with tm[i]
#pragma xmp align y[i][*] with tm[i]
#pragma xmp align z1[i][*] with tm[i]
#pragma xmp align z2[i][*] with tm[i]
#pragma xmp align w[i] with t[i]

static void clear(int value)
{
    int k;
#pragma xmp loop (k) on t[k]
    for (k = 0; k < N; k++)
        r1[k] = r2[k] = value;
}

static void compare(const char *what)
{
    long sum = 0, bad = 0;
    int k;
#pragma xmp loop (k) on t[k] reduction (+:sum, bad)
    for (k = 0; k < N; k++) {
        sum += (k + 1L) * r1[k];
        bad += r1[k] != r2[k];
    }
    if (xmp_node_num() == 1)
        printf("%s %ld bad %ld\n", what, sum, bad);
}

static void compare_2d(const char *what)
{
    double sum = 0;
    long bad = 0;
    int i, j;
#pragma xmp loop (i) on tm[i] reduction (+:sum, bad)
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++) {
            sum += (i * M + j + 1.0) * z1[i][j];
            bad += z1[i][j] != z2[i][j];
        }
    if (xmp_node_num() == 1)
        printf("%s %.1f bad %ld\n", what, sum, bad);
}

int main(void)
{
    int k, i, j;
    long sum = 0;

#pragma xmp loop (k) on t[k]
    for (k = 0; k < N; k++) {
        a[k] = (k * 7 + 3) % 13;
        idx[k] = (k * 5 + 1) % N;
        mask[k] = a[k] % 3 == 0;
    }
#pragma xmp loop (i) on tm[i]
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++) {
            x[i][j] = i - 2.0 * j;
            y[i][j] = 0.5 * i + j;
        }

    clear(0);
    lib_sort(xmp_desc_of(r1), xmp_desc_of(a), 0);
    xmp_sort_up(xmp_desc_of(r2), xmp_desc_of(a));
    compare("sort_up");
    lib_sort(xmp_desc_of(r1), xmp_desc_of(a), 1);
    xmp_sort_down(xmp_desc_of(r2), xmp_desc_of(a));
    compare("sort_down");
    lib_gather(xmp_desc_of(r1), xmp_desc_of(a), xmp_desc_of(idx));
    xmp_gather(xmp_desc_of(r2), xmp_desc_of(a), xmp_desc_of(idx));
    compare("gather");
    lib_scatter(xmp_desc_of(r1), xmp_desc_of(a), xmp_desc_of(idx));
    xmp_scatter(xmp_desc_of(r2), xmp_desc_of(a), xmp_desc_of(idx));
    compare("scatter");
    clear(0);
    lib_pack(xmp_desc_of(r1), xmp_desc_of(a), xmp_desc_of(mask));
    xmp_pack(xmp_desc_of(r2), xmp_desc_of(a), xmp_desc_of(mask));
    compare("pack");
    clear(-1);
    lib_unpack(xmp_desc_of(r1), xmp_desc_of(a), xmp_desc_of(mask));
    xmp_unpack(xmp_desc_of(r2), xmp_desc_of(a), xmp_desc_of(mask));
    compare("unpack");
    lib_transpose(xmp_desc_of(z1), xmp_desc_of(x));
    xmp_transpose(xmp_desc_of(z2), xmp_desc_of(x), 0);
    compare_2d("transpose");
    lib_matmul(xmp_desc_of(z1), xmp_desc_of(x), xmp_desc_of(y));
    xmp_matmul(xmp_desc_of(z2), xmp_desc_of(x), xmp_desc_of(y));
    compare_2d("matmul");

    w = (int *) lib_malloc(xmp_desc_of(w), N);
#pragma xmp loop (k) on t[k] reduction (+:sum)
    for (k = 0; k < N; k++) {
        w[k] = 2 * a[k];
        sum += (k + 1L) * w[k];
    }
    if (xmp_node_num() == 1)
        printf("malloc %ld\n", sum);
    lib_free(w);
    return 0;
}
