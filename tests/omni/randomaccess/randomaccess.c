/* A RandomAccess (GUPS) kernel in XcalableMP's local view, shaped like the HPC Challenge
 * benchmark's coarray ports (our own program, not a copy).  The table T of TSIZE 64-bit
 * words is split in equal blocks over the images, image k holding T[k * L .. k * L + L-1]
 * as its coarray T[0 .. L-1] (L = TSIZE / images).  Every image draws its share of the
 * NUPDATE updates from a 64-bit LFSR (x -> 2x mod the polynomial POLY over GF(2)), started
 * where the one sequence of all updates reaches its share, so the set of updates does not
 * depend on the number of images.  The updates go in rounds of CHUNK: bucketed by owner,
 * each bucket put into the owner's inbox (a section put into a coarray), its length into
 * the owner's counts, xmp_sync_all(NULL), and every owner XORs what it received into its
 * block.  XOR commutes, so the final table is the same however the updates were grouped:
 * its checksum is printed; running the updates a second time must give back the initial
 * table (the verification pass, errors = 0).  make serial builds the same file with cc:
 * one image, the communication in the #else branches. */
#include <stdio.h>
#include <string.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#define COARRAY :[*]
#else
#include <time.h>
#define COARRAY
#endif

typedef unsigned long long u64;

#define LOGTSIZE 14
#define TSIZE (1ULL << LOGTSIZE)      /* words in the whole table */
#define NUPDATE (4 * TSIZE)           /* updates, as HPCC: four per word */
#define CHUNK 1024                    /* updates an image draws per round */
#define MAXIMAGES 16
#define POLY 0x0000000000000007ULL

#pragma xmp nodes p[*]

u64 T[TSIZE]COARRAY;                  /* this image's block: its first L words */
u64 inbox[MAXIMAGES][CHUNK]COARRAY;   /* inbox[s]: what image s sent this round */
int incount[MAXIMAGES]COARRAY;        /* incount[s]: how many */
u64 partial COARRAY;                  /* this image's part of the checksum */

static u64 bucket[MAXIMAGES][CHUNK];
static int nbucket[MAXIMAGES];

static u64 step(u64 x)
{
    return (x << 1) ^ ((x >> 63) ? POLY : 0);
}

/* a * b mod POLY (carry-less, Horner over the bits of b) */
static u64 mulmod(u64 a, u64 b)
{
    u64 r = 0;
    int i;
    for (i = 63; i >= 0; i--) {
        r = step(r);
        if ((b >> i) & 1)
            r ^= a;
    }
    return r;
}

/* The LFSR's value n steps after 1: x^n mod POLY, by squaring. */
static u64 starts(u64 n)
{
    u64 r = 1, x = 2;
    while (n > 0) {
        if (n & 1)
            r = mulmod(r, x);
        x = mulmod(x, x);
        n >>= 1;
    }
    return r;
}

static double now(void)
{
#ifdef _XCALABLEMP
    return xmp_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* All updates once: this image's share in rounds of CHUNK. */
static void update(int me, int nimages, u64 mine, u64 L)
{
    u64 ran = starts(mine * me), done;
    int k, s, i;

    for (done = 0; done < mine; done += CHUNK) {
        for (k = 0; k < nimages; k++)
            nbucket[k] = 0;
        for (i = 0; i < CHUNK; i++) {
            ran = step(ran);
            k = (int)((ran & (TSIZE - 1)) / L);
            bucket[k][nbucket[k]++] = ran;
        }
        for (k = 0; k < nimages; k++) {
#ifdef _XCALABLEMP
            if (nbucket[k] > 0)
                inbox[me][0:nbucket[k]]:[k] = bucket[k][0:nbucket[k]];
            incount[me]:[k] = nbucket[k];
#else
            memcpy(inbox[me], bucket[k], nbucket[k] * sizeof(u64));
            incount[me] = nbucket[k];
#endif
        }
#ifdef _XCALABLEMP
        xmp_sync_all(NULL);
#endif
        for (s = 0; s < nimages; s++)
            for (i = 0; i < incount[s]; i++)
                T[(inbox[s][i] & (TSIZE - 1)) - (u64)me * L] ^= inbox[s][i];
        /* nobody puts into an inbox before its owner has emptied it */
#ifdef _XCALABLEMP
        xmp_sync_all(NULL);
#endif
    }
}

int main(void)
{
    int me = 0, nimages = 1, k;
    u64 L, mine, i, checksum = 0, x = 0;
    long errors = 0;
    double t0, t1;

#ifdef _XCALABLEMP
    me = xmpc_this_image();
    nimages = xmp_num_images();
#endif
    if (nimages > MAXIMAGES || TSIZE % nimages != 0 || (NUPDATE / nimages) % CHUNK != 0) {
        if (me == 0)
            fprintf(stderr, "randomaccess: %d images do not divide the table\n", nimages);
        return 1;
    }
    L = TSIZE / nimages;
    mine = NUPDATE / nimages;
    for (i = 0; i < L; i++)
        T[i] = (u64)me * L + i;
#ifdef _XCALABLEMP
    xmp_sync_all(NULL);
#endif

    t0 = now();
    update(me, nimages, mine, L);
    t1 = now();

    /* the checksum: sum over the whole table of (index + 1) * T[index], mod 2^64, added up
     * by image 0 from the images' parts; and the XOR of the table, by a reduction */
    partial = 0;
    for (i = 0; i < L; i++) {
        partial += ((u64)me * L + i + 1) * T[i];
        x ^= T[i];
    }
#pragma xmp reduction (^:x)
#ifdef _XCALABLEMP
    xmp_sync_all(NULL);
#endif
    if (me == 0) {
        for (k = 0; k < nimages; k++)
#ifdef _XCALABLEMP
            checksum += partial:[k];
#else
            checksum += partial;
#endif
    }

    /* verification: the same updates again undo the first ones */
    update(me, nimages, mine, L);
    for (i = 0; i < L; i++)
        if (T[i] != (u64)me * L + i)
            errors++;
#pragma xmp reduction (+:errors)

    if (me == 0) {
        printf("RandomAccess: table 2^%d words, %llu updates\n", LOGTSIZE, (u64)NUPDATE);
        printf("checksum = %016llx xor = %016llx\n", checksum, x);
        printf("errors = %ld\n", errors);
        printf("%s\n", errors == 0 ? "PASSED" : "FAILED");
        fprintf(stderr, "%d images: %.6f GUP/s\n", nimages, 1e-9 * NUPDATE / (t1 - t0));
    }
    return 0;
}
