/* n-body benchmark: the paper's Fig. 6 arithmetic with XMP-ACC directives.
 *   -DN=65536 -DSTEPS=10       problem size and timed steps (one untimed warm-up step)
 *   -DHOST_PATH                the paper's data path: replicate_sync out, host reflect,
 *                              replicate_sync in (default: reflect ... acc on the device)
 * Prints the mean step time and checksums that bench/baselines.py reproduces. */
#include <stdio.h>
#include <math.h>
#include <xmp.h>

#ifndef N
#define N 65536
#endif
#ifndef STEPS
#define STEPS 10
#endif
#define G 1.0e-3
#define DT 0.01
#define EPSILON 1.0e-2

double p_x[N], p_y[N], p_z[N], v_x[N], v_y[N], v_z[N], m[N];

#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(BLOCK) onto p
#pragma xmp align [i] with t(i) :: p_x, p_y, p_z, m, v_x, v_y, v_z
#pragma xmp shadow [*] :: p_x, p_y, p_z, m
/* file scope: the device copies live for the whole program, so step() sees them */
#pragma xmp acc replicate (p_x, p_y, p_z, m, v_x, v_y, v_z)

static void step(void)
{
    int i;
#pragma xmp loop on t(i) acc
    for (i = 0; i < N; i++) {
        double x_i, y_i, z_i, x_j, y_j, z_j, dx, dy, dz, r2, r, a;
        double acc_x = 0, acc_y = 0, acc_z = 0;
        x_i = p_x[i]; y_i = p_y[i]; z_i = p_z[i];
        for (int j = 0; j < N; j++)
            if (i != j) {
                x_j = p_x[j]; y_j = p_y[j]; z_j = p_z[j];
                dx = x_j - x_i; dy = y_j - y_i; dz = z_j - z_i;
                r2 = (dx * dx) + (dy * dy) + (dz * dz) + EPSILON;
                r = sqrt(r2); a = G * m[j] / r2;
                acc_x += a * (x_j - x_i) / r;
                acc_y += a * (y_j - y_i) / r;
                acc_z += a * (z_j - z_i) / r;
            }
        v_x[i] += acc_x * DT; v_y[i] += acc_y * DT; v_z[i] += acc_z * DT;
    }
#pragma xmp loop on t(i) acc
    for (i = 0; i < N; i++) {
        p_x[i] += v_x[i] * DT; p_y[i] += v_y[i] * DT; p_z[i] += v_z[i] * DT;
    }
}

int main(void)
{
    int i, s;
    double t0 = 0.0, t1, ke = 0.0, sx = 0.0;

#pragma xmp loop on t(i)
    for (i = 0; i < N; i++) {
        double th = 0.1 * i, r = 1.0 + 0.002 * (i % 1000);
        p_x[i] = 2.0 + r * cos(th); p_y[i] = 1.0 + r * sin(th); p_z[i] = 0.5 + 0.3 * sin(0.7 * i);
        v_x[i] = -0.5 * sin(th); v_y[i] = 0.5 * cos(th); v_z[i] = 0.1 * cos(1.3 * i);
        m[i] = 1.0 + 0.5 * sin(0.37 * i);
    }
#pragma xmp reflect p_x, p_y, p_z, m

    {
#pragma xmp acc replicate_sync in (p_x, p_y, p_z, m, v_x, v_y, v_z)
        for (s = 0; s <= STEPS; s++) {
            if (s == 1) {
#pragma xmp barrier
                t0 = xmp_wtime();
            }
#ifdef HOST_PATH
#pragma xmp acc replicate_sync out (p_x, p_y, p_z)
#pragma xmp reflect p_x, p_y, p_z
#pragma xmp acc replicate_sync in (p_x, p_y, p_z)
#else
#pragma xmp reflect (p_x, p_y, p_z) acc
#endif
            step();
        }
#pragma xmp barrier
        t1 = xmp_wtime();
#pragma xmp acc replicate_sync out (p_x, v_x, v_y, v_z)
    }
#pragma xmp loop on t(i) reduction(+:ke, sx)
    for (i = 0; i < N; i++) {
        ke += 0.5 * m[i] * (v_x[i] * v_x[i] + v_y[i] * v_y[i] + v_z[i] * v_z[i]);
        sx += p_x[i];
    }
#pragma xmp task on p(1)
    {
        printf("nodes = %d N = %d steps = %d\n", xmp_all_num_nodes(), N, STEPS);
        printf("step_ms = %.6f\n", 1e3 * (t1 - t0) / STEPS);
        printf("kinetic = %.15e\nsum_x = %.15e\n", ke, sx);
    }
    return 0;
}
