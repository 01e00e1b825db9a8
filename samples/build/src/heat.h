/* The shared declarations of the three-file heat program: the XMP mapping of the
 * distributed arrays lives in the header, next to their extern declarations, so every
 * file sees the same nodes, template and arrays (one object of the whole program). */
#ifndef HEAT_H
#define HEAT_H

#define N 1000        /* points */
#define STEPS 200     /* time steps */

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

extern double u[N], un[N];
#pragma xmp align u[i] with t[i]
#pragma xmp align un[i] with t[i]
#pragma xmp shadow u[1]

void init(void);   /* init.c */
void step(void);   /* step.c: one explicit time step */

#endif
