/* Included by both files: the same struct, enum and static routine in each file's kernels
 * (one NVRTC module for the program: each file's in a namespace of its own), and routines
 * of parts.c that main.c's kernels call, one of them on structures. */
#define N 32
typedef struct { double re, im; } cplx;
enum part { REAL, IMAG };
struct scale { double by; int every; };
#pragma acc routine seq
static double pick(cplx c, enum part p) { return p == REAL ? c.re : c.im; }
double sum_parts(cplx *z, int n);
/* defined in parts.c, called by the kernels of both files */
#pragma acc routine seq
double weight(double x, int k);
#pragma acc routine seq
cplx scaled(cplx c, struct scale s, int k);
