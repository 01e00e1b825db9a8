/* gmove in and out inside a task (global-view §2): the task's nodes pull elements that
 * other nodes own and push elements into other nodes' blocks with one-sided
 * communication; the other nodes run no gmove.  Runs on 2 or more nodes.
 * Serial meaning: gmove_task_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 24

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template u[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[cyclic(2)] onto p
double a[N], b[N], m[N][3];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with u[i]
#pragma xmp align m[i][*] with u[i]

double loc[N], x;

int main(void)
{
    int i;
    double sb = 0, sm = 0, sl = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = i + 1;
#pragma xmp loop on u[i]
    for (i = 0; i < N; i++) { b[i] = 0; m[i][0] = m[i][1] = m[i][2] = -1; }
    for (i = 0; i < N; i++) loc[i] = 0;

#pragma xmp task on p[0:2]
    {
#pragma xmp gmove in
        loc[:] = a[:];                 /* every element, most of them from other nodes */
        for (i = 0; i < 2; i++) {      /* one call site twice: its cached plan is used */
#pragma xmp gmove in
            x = a[N - 1];              /* an element of the last node */
        }
#pragma xmp gmove out
        b[:] = loc[N-1::-1];           /* local data pushed to every owner of b */
#pragma xmp gmove out
        m[0:6:2][1] = a[0:6];         /* a column of a 2-D array, strided */
#pragma xmp gmove in
        loc[0:3] = m[N-1][:];
#pragma xmp gmove
        loc[3] = a[1];                 /* collective within the task: a[1] is a task node's */
#pragma xmp gmove out
        b[N-3:3] = loc[4];             /* fill from an element of local data */
    }
#pragma xmp barrier
#pragma xmp loop on u[i] reduction(+:sb, sm)
    for (i = 0; i < N; i++) { sb += (i + 1) * b[i]; sm += (i + 1) * (m[i][0] + 2 * m[i][1] + 3 * m[i][2]); }
    for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
    if (xmpc_node_num() == 0) printf("b %.1f m %.1f loc %.1f x %.1f\n", sb, sm, sl, x);
    return 0;
}
