/* Exit status and arguments of an xmpacc executable, chosen by argv[1]:
 *   echo A B ...   node 0 prints its arguments; exit status 0
 *   return N       every node returns N from main
 *   return1 N      node 1 returns N, the others 0
 *   exit1 N        every node prints a line; after a barrier node 1 calls exit(N)
 *                  while the others wait in a second barrier
 *   print N        every node prints N lines without fflush, then returns 0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmp.h>

#pragma xmp nodes p[*]

int main(int argc, char **argv)
{
    int i, me = xmpc_node_num();
    const char *mode = argc > 1 ? argv[1] : "echo";
    int n = argc > 2 ? atoi(argv[2]) : 0;

    if (strcmp(mode, "echo") == 0) {
#pragma xmp task on p[0]
        {
            printf("argc = %d\n", argc);
            for (i = 1; i < argc; i++)
                printf("argv[%d] = %s\n", i, argv[i]);
        }
        return 0;
    }
    if (strcmp(mode, "return") == 0)
        return n;
    if (strcmp(mode, "return1") == 0)
        return me == 1 ? n : 0;
    if (strcmp(mode, "exit1") == 0) {
        printf("node %d before the barrier\n", me);
#pragma xmp barrier
        if (me == 1)
            exit(n);
#pragma xmp barrier
        printf("node %d after the barrier\n", me);
        return 0;
    }
    if (strcmp(mode, "print") == 0) {
        for (i = 0; i < n; i++)
            printf("node %d line %d\n", me, i);
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", mode);
    return 99;
}
