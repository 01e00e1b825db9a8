/* Aligned structure members (global-view §8) in XMP-ACC: acc replicate and
 * acc replicate_sync of members (two members of one object, a member reached through a
 * pointer), loop ... acc over them, reflect ... acc and reflect_init/reflect_do ... acc of
 * a member, a loop reduction on the device, a plain array beside them.  Every result
 * equals the serial one. */
#include <stdio.h>

#define N 20
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

typedef struct {
    float v[N];
    int k[N];
} grid_t;
#pragma xmp align grid_t.v[i] with t[i]
#pragma xmp align grid_t.k[i] with t[i]
#pragma xmp shadow grid_t.v[1:2]

grid_t a, b;
float w[N];
#pragma xmp align w[i] with t[i]

int main(void)
{
    grid_t *pb = &b;
    float s = 0, top = -1;
    int it;

#pragma xmp loop on t[i]
    for (int i = 0; i < N; i++) {
        a.v[i] = i % 7;
        a.k[i] = i % 3;
        b.v[i] = 0;
        w[i] = 0;
    }
#pragma xmp acc replicate (a.v, a.k, pb->v, w)
    {
#pragma xmp acc replicate_sync in (a.v, a.k, pb->v, w)
#pragma xmp reflect (a.v) acc
#pragma xmp loop on t[i] acc
        for (int i = 1; i < N - 2; i++)
            pb->v[i] = a.v[i - 1] + a.v[i + 2] * a.k[i];
#pragma xmp reflect_init (pb->v) acc
        for (it = 0; it < 4; it++) {
#pragma xmp reflect_do (pb->v) acc
#pragma xmp loop on t[i] acc
            for (int i = 1; i < N - 2; i++)
                w[i] = (pb->v[i - 1] + pb->v[i + 1] + pb->v[i + 2]) / 4;
#pragma xmp loop on t[i] acc
            for (int i = 1; i < N - 2; i++)
                pb->v[i] = w[i] + a.k[i];
        }
#pragma xmp loop on t[i] reduction(+:s) acc
        for (int i = 0; i < N; i++)
            s += pb->v[i] * (i % 4);
#pragma xmp loop on t[i] reduction(max:top) acc
        for (int i = 0; i < N; i++)
            if (pb->v[i] > top) top = pb->v[i];
#pragma xmp acc replicate_sync out (pb->v)
    }
    double z = 0;
#pragma xmp loop on t[i] reduction(+:z)
    for (int i = 0; i < N; i++)
        z += b.v[i] * (i + 1);
#pragma xmp task on p[0]
    printf("s = %.4f, top = %.4f, z = %.4f\n", s, top, z);
    return 0;
}
