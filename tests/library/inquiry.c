/* Every mapping inquiry function of xmp.h (global-view §9) on nodes, templates (block,
 * cyclic(w), gblock fixed at run time, a parenthesised 2-D one) and aligned arrays
 * (collapsed dimension, shadows, cyclic, an xmp_malloc'ed pointer); node arrays and templates
 * number their dimensions in Fortran order, as Omni does.  Node 0 prints its
 * own values and, through reductions, what all nodes saw; tests/test_library.py knows
 * what the XMP specification says each must be for any number of nodes. */
#include <stdio.h>
#include <xmp.h>

#define N 23

#pragma xmp nodes p[*]
#pragma xmp nodes q[*][1]
#pragma xmp template t[N]
#pragma xmp template tc(0:N-1)
#pragma xmp template tg[:]
#pragma xmp template tp(0:9, 0:19)
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc(cyclic(2)) onto p
#pragma xmp distribute tg[gblock(*)] onto p
#pragma xmp distribute tp(*, block) onto p
double a[N][4];
#pragma xmp align a[i][*] with t[i]
#pragma xmp shadow a[1:2][0]
int c[N];
#pragma xmp align c[i] with tc(i)
float *g;
#pragma xmp align g[i] with tg[i]
short r[20];
#pragma xmp align r[j] with tp(*, j)

static void show(const char *what, int rc, int value)
{
    if (xmpc_node_num() == 0)
        printf("%s = %d (rc %d)\n", what, rc == 0 ? value : 0, rc);
}

/* the call first, then its result (argument evaluation order is unspecified in C) */
#define SHOW(what, call, value) do { int rc_ = (call); show(what, rc_, (value)); } while (0)

static void nodes_and_templates(void)
{
    int v = 0, w = 0;
    SHOW("nodes_ndims(p)", xmp_nodes_ndims(xmp_desc_of(p), &v), v);
    SHOW("nodes_ndims(q)", xmp_nodes_ndims(xmp_desc_of(q), &v), v);
    SHOW("nodes_size(q,1)", xmp_nodes_size(xmp_desc_of(q), 1, &v), v);
    SHOW("nodes_size(q,2)", xmp_nodes_size(xmp_desc_of(q), 2, &v), v);
    SHOW("nodes_index(p,1)", xmp_nodes_index(xmp_desc_of(p), 1, &v), v);
    SHOW("xmpc_nodes_index(p,1)", xmpc_nodes_index(xmp_desc_of(p), 1, &v), v);
    SHOW("nodes_attr(p)", xmp_nodes_attr(xmp_desc_of(p), &v), v);
    xmp_desc_t dn = xmp_desc_of(p);
    int lb[1], ub[1], st[1];
    SHOW("nodes_equiv(p) is NULL", xmp_nodes_equiv(xmp_desc_of(p), &dn, lb, ub, st), dn == 0);
    int sum = 0;
    xmpc_nodes_index(xmp_desc_of(q), 2, &w);
    sum = w;
#pragma xmp reduction(+:sum)
    SHOW("sum of xmpc_nodes_index(q,2)", 0, sum);
    SHOW("template_fixed(t)", xmp_template_fixed(xmp_desc_of(t), &v), v);
    SHOW("template_fixed(tg) before template_fix", xmp_template_fixed(xmp_desc_of(tg), &v), v);
    SHOW("template_lbound(tg) before template_fix", xmp_template_lbound(xmp_desc_of(tg), 1, &v), v);
    SHOW("template_ndims(tp)", xmp_template_ndims(xmp_desc_of(tp), &v), v);
    SHOW("template_lbound(tc,1)", xmp_template_lbound(xmp_desc_of(tc), 1, &v), v);
    SHOW("template_ubound(tc,1)", xmp_template_ubound(xmp_desc_of(tc), 1, &v), v);
    SHOW("template_ubound(tp,1)", xmp_template_ubound(xmp_desc_of(tp), 1, &v), v);
    SHOW("template_ubound(tp,2)", xmp_template_ubound(xmp_desc_of(tp), 2, &v), v);
    SHOW("dist_format(t,1)", xmp_dist_format(xmp_desc_of(t), 1, &v), v);
    SHOW("dist_format(tc,1)", xmp_dist_format(xmp_desc_of(tc), 1, &v), v);
    SHOW("dist_format(tp,1)", xmp_dist_format(xmp_desc_of(tp), 1, &v), v);
    SHOW("dist_format(tp,2)", xmp_dist_format(xmp_desc_of(tp), 2, &v), v);
    SHOW("dist_blocksize(t,1)", xmp_dist_blocksize(xmp_desc_of(t), 1, &v), v);
    SHOW("dist_blocksize(tc,1)", xmp_dist_blocksize(xmp_desc_of(tc), 1, &v), v);
    SHOW("dist_axis(tp,1)", xmp_dist_axis(xmp_desc_of(tp), 1, &v), v);
    SHOW("dist_axis(tp,2)", xmp_dist_axis(xmp_desc_of(tp), 2, &v), v);
    SHOW("dist_nodes(t) is p", xmp_dist_nodes(xmp_desc_of(t), &dn), dn == xmp_desc_of(p));
    SHOW("dist_gblockmap(t,1)", xmp_dist_gblockmap(xmp_desc_of(t), 1, &v), v);
}

static void arrays(void)
{
    int v = 0, owned = 0, k;
    size_t size = 0;
    void *addr = 0;
    xmp_desc_t dt = 0;
    SHOW("align_axis(a,1)", xmp_align_axis(xmp_desc_of(a), 1, &v), v);
    SHOW("align_axis(a,2)", xmp_align_axis(xmp_desc_of(a), 2, &v), v);
    SHOW("align_axis(r,1)", xmp_align_axis(xmp_desc_of(r), 1, &v), v);
    SHOW("align_offset(a,1)", xmp_align_offset(xmp_desc_of(a), 1, &v), v);
    SHOW("align_replicated(r,1)", xmp_align_replicated(xmp_desc_of(r), 1, &v), v);
    SHOW("align_replicated(r,2)", xmp_align_replicated(xmp_desc_of(r), 2, &v), v);
    SHOW("align_template(a) is t", xmp_align_template(xmp_desc_of(a), &dt), dt == xmp_desc_of(t));
    SHOW("array_ndims(a)", xmp_array_ndims(xmp_desc_of(a), &v), v);
    SHOW("array_lbound(a,1)", xmp_array_lbound(xmp_desc_of(a), 1, &v), v);
    SHOW("array_ubound(a,1)", xmp_array_ubound(xmp_desc_of(a), 1, &v), v);
    SHOW("array_ubound(a,2)", xmp_array_ubound(xmp_desc_of(a), 2, &v), v);
    SHOW("array_lshadow(a,1)", xmp_array_lshadow(xmp_desc_of(a), 1, &v), v);
    SHOW("array_ushadow(a,1)", xmp_array_ushadow(xmp_desc_of(a), 1, &v), v);
    SHOW("array_lshadow(a,2)", xmp_array_lshadow(xmp_desc_of(a), 2, &v), v);
    SHOW("array_lsize(a,1)", xmp_array_lsize(xmp_desc_of(a), 1, &v), v);
    SHOW("array_lsize(a,2)", xmp_array_lsize(xmp_desc_of(a), 2, &v), v);
    SHOW("array_gtol(a,1,0)", xmp_array_gtol(xmp_desc_of(a), 1, 0, &v), v);
    SHOW("array_gtol(c,1,3)", xmp_array_gtol(xmp_desc_of(c), 1, 3, &v), v);
    SHOW("array_lda(a)", xmp_array_lda(xmp_desc_of(a), &v), v);
    SHOW("array_laddr(a) is a", xmp_array_laddr(xmp_desc_of(a), &addr), addr == (void *)a);
    SHOW("array_type_size(a)", xmp_array_type_size(xmp_desc_of(a), &size), (int)size);
    SHOW("array_type_size(r)", xmp_array_type_size(xmp_desc_of(r), &size), (int)size);
    /* every owned index of c, through gtol: the local positions 0, 1, ... of this node */
    int bad = 0;
    xmp_array_lsize(xmp_desc_of(c), 1, &owned);
    int next = 0;
    for (k = 0; k < N; k++) {
        int l;
        if (xmp_array_gtol(xmp_desc_of(c), 1, k, &l) == 0)
            bad += l != next++;
    }
    bad += next != owned;
#pragma xmp reduction(+:owned, bad)
    SHOW("sum of array_lsize(c,1)", 0, owned);
    SHOW("gtol mismatches", 0, bad);
}

static void errors(void)
{
    int v = 0;
    SHOW("array_ndims(NULL)", xmp_array_ndims(0, &v), v);
    SHOW("nodes_ndims(template)", xmp_nodes_ndims(xmp_desc_of(t), &v), v);
    SHOW("template_ndims(array)", xmp_template_ndims(xmp_desc_of(a), &v), v);
    SHOW("array_lbound(a,3)", xmp_array_lbound(xmp_desc_of(a), 3, &v), v);
    SHOW("array_lbound(a,0)", xmp_array_lbound(xmp_desc_of(a), 0, &v), v);
    SHOW("nodes_size(p,2)", xmp_nodes_size(xmp_desc_of(p), 2, &v), v);
    SHOW("array_gtol(a,1,N)", xmp_array_gtol(xmp_desc_of(a), 1, N, &v), v);
    SHOW("array_ndims(g) before xmp_malloc", xmp_array_ndims(xmp_desc_of(g), &v), v);
}

int main(void)
{
    int map[64], k, np = xmp_num_nodes(), v = 0;
    nodes_and_templates();
    arrays();
    errors();
    for (k = 0; k < np; k++)
        map[k] = k < np - 1 ? 2 : N - 2 * (np - 1);
#pragma xmp template_fix [gblock(map)] tg[N]
    g = (float *) xmp_malloc(xmp_desc_of(g), N);
    SHOW("template_fixed(tg)", xmp_template_fixed(xmp_desc_of(tg), &v), v);
    SHOW("template_ubound(tg,1)", xmp_template_ubound(xmp_desc_of(tg), 1, &v), v);
    SHOW("dist_format(tg,1)", xmp_dist_format(xmp_desc_of(tg), 1, &v), v);
    int got[64];
    SHOW("dist_gblockmap(tg,1)", xmp_dist_gblockmap(xmp_desc_of(tg), 1, got), got[np - 1]);
    SHOW("array_ndims(g)", xmp_array_ndims(xmp_desc_of(g), &v), v);
    SHOW("array_lsize(g,1)", xmp_array_lsize(xmp_desc_of(g), 1, &v), v);
    size_t size = 0;
    SHOW("array_type_size(g)", xmp_array_type_size(xmp_desc_of(g), &size), (int)size);
    xmp_free(g);
    SHOW("array_ndims(g) after xmp_free", xmp_array_ndims(xmp_desc_of(g), &v), v);
    return 0;
}
