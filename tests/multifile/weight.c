/* weight.c: a plain C helper (no directives): compiled as it is. */
double weight(int i, int j)
{
    return 1.0 + 0.01 * i - 0.02 * j;
}
