/* Compiled by plain cc and linked into a program (tests/test_conformance.py): it frees a
 * block that xmp_malloc returned, as a library of the application may. */
#include <stdlib.h>

void release(double *p)
{
    free(p);
}
