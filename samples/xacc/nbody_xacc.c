/*
 * nbody_xacc.c - the N-body simulation of nbody_serial.c in XcalableACC (nbody_acc.c is
 * the same program in the XMP-ACC dialect of Lee et al.).  Each node computes its block
 * of bodies on its GPU; the positions of all bodies go GPU to GPU every step
 * (reflect ... acc of the full shadows).  The force and the position update are two
 * loops (two kernels), so that every velocity is new before any position moves.
 * Any process count:
 *     mpirun -np 4 ./nbody_xacc
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

/* any number of nodes p(1)..p(P) (the paper's parenthesised syntax) */
#pragma xmp nodes p(*)
/* one template index per body (N is expanded in the directive) */
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(BLOCK) onto p
/* body i of every array lives on the owner of t(i); one align for seven arrays */
#pragma xmp align [i] with t(i) :: p_x, p_y, p_z, m, v_x, v_y, v_z
/* full shadow: the force on one body needs the positions and masses of all bodies */
#pragma xmp shadow [*] :: p_x, p_y, p_z, m

int main(void)
{
    int i, t;
    double ke = 0.0, mass = 0.0, c_x = 0.0, c_y = 0.0, c_z = 0.0;

    /* deterministic initial state; each node initialises its own bodies */
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

    /* the masses never change: gather all of them once */
#pragma xmp reflect m

    /* device copies of the seven arrays (with the full shadows) for the whole run;
       positions and velocities come back to the host at the end of the region */
#pragma acc data copyin(m) copy(p_x, p_y, p_z, v_x, v_y, v_z)
    {
        for (t = 0; t < TIME_STEP; t++) {
            /* all positions, on every GPU */
#pragma xmp reflect (p_x, p_y, p_z) acc
            /* forces: new velocities from the old positions of all bodies;
               one GPU thread per local body (template t, not the step counter t) */
#pragma xmp loop on t(i)
#pragma acc parallel loop
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
#pragma xmp loop on t(i)
#pragma acc parallel loop
            for (i = 0; i < N; i++) {
                p_x[i] += v_x[i] * DT; p_y[i] += v_y[i] * DT; p_z[i] += v_z[i] * DT;
            }
        }
    }

    /* kinetic energy, total mass and mass-weighted position sums */
#pragma xmp loop on t(i) reduction(+:ke, mass, c_x, c_y, c_z)
    for (i = 0; i < N; i++) {
        ke += 0.5 * m[i] * (v_x[i] * v_x[i] + v_y[i] * v_y[i] + v_z[i] * v_z[i]);
        mass += m[i];
        c_x += m[i] * p_x[i]; c_y += m[i] * p_y[i]; c_z += m[i] * p_z[i];
    }

    /* the sums are reduced, so equal on all nodes: print once */
#pragma xmp task on p(1)
    {
        printf("N = %d, %d steps\n", N, TIME_STEP);
        printf("kinetic energy = %.12e\n", ke);
        printf("centre of mass = %.12e %.12e %.12e\n", c_x / mass, c_y / mass, c_z / mass);
    }
    return 0;
}
