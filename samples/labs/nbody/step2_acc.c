/*
 * n-body lab: direct-summation N-body simulation with the force arithmetic of Fig. 6
 * of Lee et al. (2011).  Bodies start on a slightly inclined rotating ring; after
 * TIME_STEP steps the program prints the centre of mass and the moment of inertia.
 * step0_serial.c is the serial program; step1_xmp.c (XcalableMP on CPUs) and
 * step2_acc.c (XcalableMP-ACC) add #pragma xmp lines and nothing else.  LAB.md says
 * what to add at each step and why.
 */
#include <stdio.h>
#include <math.h>

#define N 256            /* number of bodies                      */
#define TIME_STEP 10     /* number of steps                       */
#define G 1.0e-3         /* gravitational constant (model units)  */
#define DT 0.01          /* time step                             */
#define EPSILON 1.0e-2   /* softening: keeps close pairs harmless */

double p_x[N], p_y[N], p_z[N];   /* positions  */
double v_x[N], v_y[N], v_z[N];   /* velocities */
double m[N];                     /* masses     */
#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(BLOCK) onto p
#pragma xmp align [i] with t(i) :: p_x, p_y, p_z, m, v_x, v_y, v_z
#pragma xmp shadow [*] :: p_x, p_y, p_z, m

int main(void)
{
    int i, t;
    double mass = 0.0, c_x = 0.0, c_y = 0.0, c_z = 0.0, inertia = 0.0;

    /* deterministic initial state from the body index */
#pragma xmp loop on t(i)
    for (i = 0; i < N; i++) {
        double th = 0.1 * i, r = 1.0 + 0.002 * i;
        p_x[i] = 2.0 + r * cos(th);
        p_y[i] = 1.0 + r * sin(th);
        p_z[i] = 0.5 + 0.3 * sin(0.7 * i);
        v_x[i] = -0.5 * sin(th);
        v_y[i] = 0.5 * cos(th);
        v_z[i] = 0.1 * cos(1.3 * i);
        m[i] = 1.0 + 0.5 * sin(0.37 * i);
    }
#pragma xmp reflect m

    /* time integration (in step 2 this block is the GPU data region) */
#pragma xmp acc replicate (p_x, p_y, p_z, m, v_x, v_y, v_z)
    {
#pragma xmp acc replicate_sync in (m, v_x, v_y, v_z)
        for (t = 0; t < TIME_STEP; t++) {
            /* forces: new velocities from the old positions of all bodies */
#pragma xmp reflect p_x, p_y, p_z
#pragma xmp acc replicate_sync in (p_x, p_y, p_z)
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
            /* positions: only after all velocities are new */
#pragma xmp loop on t(i) acc
            for (i = 0; i < N; i++) {
                p_x[i] += v_x[i] * DT; p_y[i] += v_y[i] * DT; p_z[i] += v_z[i] * DT;
            }
#pragma xmp acc replicate_sync out (p_x, p_y, p_z)
        }
    }

    /* total mass, mass-weighted position sums, moment of inertia about the origin */
#pragma xmp loop on t(i) reduction(+:mass, c_x, c_y, c_z, inertia)
    for (i = 0; i < N; i++) {
        mass += m[i];
        c_x += m[i] * p_x[i]; c_y += m[i] * p_y[i]; c_z += m[i] * p_z[i];
        inertia += m[i] * (p_x[i] * p_x[i] + p_y[i] * p_y[i] + p_z[i] * p_z[i]);
    }

#pragma xmp task on p(1)
    {
        printf("N = %d, %d steps\n", N, TIME_STEP);
        printf("centre of mass = %.12e %.12e %.12e\n", c_x / mass, c_y / mass, c_z / mass);
        printf("moment of inertia = %.12e\n", inertia);
    }
    return 0;
}
