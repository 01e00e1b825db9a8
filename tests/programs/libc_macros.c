/* libc macros keep their real values through xmpacc: pycparser-fake-libc defines some
 * with wrong ones (RAND_MAX 32767, PRId64 "d"), which must not reach the generated C.
 * The program prints the same as its plain cc build, on any number of nodes. */
#include <assert.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16

double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]

int main(void)
{
    int i;
    double s = 0.0, nan_value = NAN;
    int64_t big = INT64_MAX;

#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++) {
        a[i] = M_PI * i;
        s += a[i];
    }
    assert(s > 0.0);
#pragma xmp task on p[0]
    {
        printf("RAND_MAX = %d\n", RAND_MAX);
        printf("INT64_MAX = %" PRId64 "\n", big);
        printf("INT64_MIN = %" PRIi64 "\n", (int64_t)INT64_MIN);
        printf("UINT64_MAX = %" PRIu64 " = 0x%" PRIx64 "\n", (uint64_t)UINT64_MAX,
               (uint64_t)UINT64_MAX);
        printf("INT_MAX = %d  INT_MIN = %d  LONG_MAX = %ld\n", INT_MAX, INT_MIN, LONG_MAX);
        printf("M_PI = %.17g\n", M_PI);
        printf("DBL_EPSILON = %.17g  DBL_MAX = %.17g\n", DBL_EPSILON, DBL_MAX);
        printf("EXIT_FAILURE = %d  EXIT_SUCCESS = %d\n", EXIT_FAILURE, EXIT_SUCCESS);
        printf("isnan = %d %d  isinf = %d\n", isnan(nan_value) != 0, isnan(s) != 0,
               isinf(HUGE_VAL) != 0);
        printf("sum = %.10f\n", s);
    }
    return 0;
}
