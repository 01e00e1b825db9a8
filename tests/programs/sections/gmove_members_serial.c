/* The serial meaning of gmove_members.c. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 12

struct field {
    int id;
    double a[N];
};
struct field c, s[2];
double b[N], loc[N];

static void sums(const char *label, struct field *q)
{
    double sc = 0, s0 = 0, s1 = 0, sq = 0, sb = 0, sl = 0;
    int i;
    for (i = 0; i < N; i++) {
        sc += (i + 1) * c.a[i]; s0 += (i + 1) * s[0].a[i]; s1 += (i + 1) * s[1].a[i];
        sq += (i + 1) * q->a[i]; sb += (i + 1) * b[i]; sl += (i + 1) * loc[i];
    }
    printf("%-6s c %.1f s0 %.1f s1 %.1f q %.1f b %.1f loc %.1f\n", label, sc, s0, s1, sq, sb, sl);
}

int main(void)
{
    int i;
    struct field *q = &s[1];
    for (i = 0; i < N; i++) { c.a[i] = 2 * i + 1; s[0].a[i] = 0; s[1].a[i] = -i; b[i] = 100 + i; loc[i] = 0; }
    sums("start", q);
    for (i = 0; i < N; i++) s[0].a[i] = b[i];
    for (i = 0; i < N / 2; i++) b[i] = c.a[1 + 2 * i];
    for (i = 0; i < 5; i++) q->a[2 + i] = c.a[N - 5 + i];
    for (i = 0; i < N; i++) loc[i] = s[0].a[i];
    c.a[3] = loc[7];
    for (i = 0; i < 3; i++) s[1].a[i] = 9.5;
    sums("moved", q);
    return 0;
}
