/* field.h: the distributed arrays of a program split over several files (main.c defines
 * them, init.c and relax.c use them).  As with any C global, the header declares them
 * extern and one file defines them; their align and shadow come with the declaration.
 * The nodes and the template declared here are one object of the whole program. */
#ifndef FIELD_H
#define FIELD_H

#define NX 26
#define NY 13

#pragma xmp nodes p[*]
#pragma xmp template t[NX][NY]
#pragma xmp distribute t[block][*] onto p

extern double u[NX][NY], unew[NX][NY];
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
#pragma xmp shadow u[1][0]

void init_field(void);          /* init.c */
double relax(int sweeps);       /* relax.c: the largest change of the last sweep */
double weight(int i, int j);    /* weight.c: plain C, no directives */

#endif
