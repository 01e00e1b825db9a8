/* Run-time mistakes with dynamic global data (global-view §4, §10); argv[1] picks one. */
#include <stdio.h>
#include <string.h>
#include <xmp.h>

#pragma xmp nodes p[*]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
#pragma xmp template g[:]
#pragma xmp distribute g[gblock(*)] onto p
double *a;
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]
double *b;
#pragma xmp align b[i] with g[i]

int main(int argc, char **argv)
{
    int i, n = 12, map[16] = {0};
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "loop-before-fix")) {
#pragma xmp loop on t[i]
        for (i = 0; i < n; i++)
            ;
    }
    if (!strcmp(what, "malloc-before-fix"))
        a = (double *) xmp_malloc(xmp_desc_of(a), n);
#pragma xmp template_fix t[n]
    if (!strcmp(what, "access-before-malloc") && xmpc_node_num() == 0)
        a[1] = 1.0;
    if (!strcmp(what, "fix-twice")) {
#pragma xmp template_fix t[n]
    }
    if (!strcmp(what, "reflect-before-malloc")) {
#pragma xmp reflect (a)
    }
    map[0] = n + (strcmp(what, "gblock-sum") ? 0 : 1);
    if (!strcmp(what, "free-twice")) {
        a = (double *) xmp_malloc(xmp_desc_of(a), n);
        double *keep = a;
        xmp_free(a);
        xmp_free(keep);
    }
#pragma xmp template_fix [gblock(map)] g[n]
    printf("no error\n");
    return 0;
}
