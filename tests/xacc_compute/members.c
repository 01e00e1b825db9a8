/* Aligned structure members (global-view §8) on the device in XcalableACC: data clauses
 * (copy, copyin, create, copyout) naming members, two members of one object, a member
 * reached through a pointer (p->u, the same data as g.u), a member a compute construct
 * copies implicitly, update host/device of a member and of a section of one, reflect and
 * reflect_init/reflect_do ... acc of a member, XMP loop reductions on the device, a scalar
 * member read in a kernel (the object by value), next to a plain distributed array.
 * Every result equals the serial one. */
#include <stdio.h>

#define N 24
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

struct field {
    double u[N];
    int tag[N];
    double h;
};
#pragma xmp align field.u[i] with t[i]
#pragma xmp align field.tag[i] with t[i]
#pragma xmp shadow field.u[1]

struct field f, g;
double w[N];
#pragma xmp align w[i] with t[i]

int main(void)
{
    struct field *pf = &g;
    double s = 0, m = -1, z = 0;
    int cnt = 0, tmax = -1, it;

    f.h = 0.5;
#pragma xmp loop on t[i]
    for (int i = 0; i < N; i++) {
        f.u[i] = i * 0.25;
        f.tag[i] = i % 5;
        g.u[i] = N - i;
        g.tag[i] = 0;
        w[i] = 0;
    }

#pragma acc data copy(f.u) copyin(f.tag) create(g.tag) copy(pf->u, w)
    {
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (int i = 0; i < N; i++) {
            f.u[i] += f.tag[i];
            pf->u[i] *= 2;
            g.tag[i] = f.tag[i] + 1;
        }
#pragma xmp reflect (f.u) acc
#pragma xmp loop on t[i] reduction(+:s)
#pragma acc parallel loop reduction(+:s)
        for (int i = 1; i < N - 1; i++)
            s += f.u[i - 1] - 2 * f.u[i] + f.u[i + 1] + g.tag[i] * f.h;
#pragma acc update host(g.tag)
#pragma xmp loop on t[i] reduction(+:cnt)
        for (int i = 0; i < N; i++)
            cnt += g.tag[i];

        /* a persistent reflect of a member inside a time loop */
#pragma xmp reflect_init (f.u) acc
        for (it = 0; it < 3; it++) {
#pragma xmp reflect_do (f.u) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (int i = 1; i < N - 1; i++)
                w[i] = (f.u[i - 1] + f.u[i + 1]) / 2;
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (int i = 1; i < N - 1; i++)
                f.u[i] = w[i];
        }

        /* the host changes a section, the device gets it back */
#pragma acc update host(f.u)
#pragma xmp loop on t[i]
        for (int i = 4; i < 9; i++)
            f.u[i] = 100 + i;
#pragma acc update device(f.u[4:5])
#pragma xmp loop on t[i] reduction(max:m)
#pragma acc parallel loop reduction(max:m)
        for (int i = 0; i < N; i++)
            if (f.u[i] > m) m = f.u[i];
    }

    /* no data region: the construct copies g.tag in and out itself */
#pragma xmp loop on t[i] reduction(max:tmax)
#pragma acc parallel loop reduction(max:tmax)
    for (int i = 0; i < N; i++) {
        g.tag[i] = g.tag[i] * 3 + (i == 7);
        if (g.tag[i] > tmax) tmax = g.tag[i];
    }
#pragma acc data copyout(f.tag)
    {
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (int i = 0; i < N; i++)
            f.tag[i] = g.tag[i] - i;
    }
#pragma xmp loop on t[i] reduction(+:z, cnt)
    for (int i = 0; i < N; i++) {
        z += f.u[i] * (i + 1) + g.u[i];
        cnt += f.tag[i];
    }
#pragma xmp task on p[0]
    printf("s = %.6f, cnt = %d, m = %.6f, tmax = %d, z = %.6f\n", s, cnt, m, tmax, z);
    return 0;
}
