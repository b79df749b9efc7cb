/*
 * gaps_bench.c
 *		Speed of the version 2 state's pieces (make gaps-bench): the radix
 *		sort that drops repeats, the Rice code's encoder and decoder, in MB/s
 *		of 4-byte hashes, for 1,000,000 and 10,000,000 random hashes and for
 *		10,000,000 hashes of 1,000 distinct values.  Each figure is the best
 *		of 5 runs into memory already touched, since page faults are the
 *		allocator's cost, not the code's; the bytes a hash the code takes
 *		are printed too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bloom_gaps.h"
#include "bloom_sort.h"

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void
fill(uint32_t *h, size_t n, uint32_t distinct, uint64_t seed)
{
	uint64_t	x = seed;

	for (size_t i = 0; i < n; i++)
	{
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		h[i] = distinct ? (uint32_t) ((x >> 32) % distinct) * UINT32_C(2654435761) :
			(uint32_t) (x >> 32);
	}
}

static void
run(size_t n, uint32_t distinct)
{
	uint32_t   *h = malloc(n * 4),
			   *scratch = malloc(n * 4),
			   *out = malloc(n * 4),
			   *tmp = malloc(BLOOM_SORT_TMP_MIN * 4);
	double		best_sort = 1e9,
				best_parts = 1e9,
				best_enc = 1e9,
				best_dec = 1e9;
	size_t		d = 0,
				len = 0;
	uint8_t    *code = NULL;

	for (int rep = 0; rep < 5; rep++)
	{
		double		t0,
					t1;
		unsigned	r;
		bloom_status st;

		fill(h, n, distinct, 42);
		/* the parts sort, from h into scratch (both touched before) */
		{
			const uint32_t *parts[1] = {h};
			size_t		lens[1] = {n};

			memset(scratch, 0, n * 4);
			memset(tmp, 0, BLOOM_SORT_TMP_MIN * 4);
			t0 = now();
			d = bloom_sort_unique_parts(parts, lens, 1, scratch, tmp,
										BLOOM_SORT_TMP_MIN, NULL, NULL);
			t1 = now();
			best_parts = t1 - t0 < best_parts ? t1 - t0 : best_parts;
		}
		t0 = now();
		d = bloom_sort_unique_hashes(h, n, scratch);
		t1 = now();
		best_sort = t1 - t0 < best_sort ? t1 - t0 : best_sort;
		r = bloom_gaps_rice_param(d);
		if (code == NULL)
		{
			code = malloc(bloom_gaps_max_bytes(d, r));
			memset(code, 0, bloom_gaps_max_bytes(d, r));
			memset(out, 0, n * 4);
		}
		t0 = now();
		len = bloom_gaps_encode(h, d, r, code);
		t1 = now();
		best_enc = t1 - t0 < best_enc ? t1 - t0 : best_enc;
		t0 = now();
		st = bloom_gaps_decode(code, len, d, r, out);
		t1 = now();
		if (st != BLOOM_OK || memcmp(out, h, d * 4) != 0)
		{
			fprintf(stderr, "gaps_bench: the code did not decode to its hashes\n");
			exit(1);
		}
		best_dec = t1 - t0 < best_dec ? t1 - t0 : best_dec;
	}
	printf("| %zu | %s | %.0f | %.0f | %.0f | %.0f | %.3f |\n", n,
		   distinct ? "1,000 distinct" : "random", n * 4 / best_sort / 1e6,
		   n * 4 / best_parts / 1e6,
		   d * 4 / best_enc / 1e6, d * 4 / best_dec / 1e6, (double) len / d);
	free(code);
	free(out);
	free(scratch);
	free(tmp);
	free(h);
}

int
main(void)
{
	printf("| hashes | kind | sort+unique MB/s | by parts MB/s | encode MB/s | decode MB/s | code bytes a distinct hash |\n");
	printf("|---|---|---|---|---|---|---|\n");
	run(1000000, 0);
	run(10000000, 0);
	run(10000000, 1000);
	return 0;
}
