/*
 * test_kmv.c
 *		Unit tests of the core: the K minimum values sketch (bloom_kmv.h).
 */
#include "unit.h"

/* n random hashes, sorted and distinct, from [0, range) (range > 0). */
static size_t
random_distinct(uint32_t *v, size_t n, uint64_t range)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t) (rng_next() % range);
	return sort_distinct(v, n);
}

void
test_kmv(void)
{
	static const size_t sizes[] = {0, 1, 2, 500, BLOOM_KMV_SIZE - 1, BLOOM_KMV_SIZE,
	BLOOM_KMV_SIZE + 1, 3000};
	size_t		nsizes = sizeof(sizes) / sizeof(sizes[0]);
	uint32_t   *a = malloc(4000 * sizeof(uint32_t));
	uint32_t   *b = malloc(4000 * sizeof(uint32_t));
	uint32_t   *both = malloc(8000 * sizeof(uint32_t));
	uint32_t	out[BLOOM_KMV_SIZE];

	group_begin("K minimum values sketch");

	/*
	 * The merge is the K smallest of the union, repeats once: against
	 * sorting the union, for sizes around K and ranges that make the two
	 * share few hashes or most of them.
	 */
	for (size_t i = 0; i < nsizes; i++)
		for (size_t j = 0; j < nsizes; j++)
			for (int narrow = 0; narrow < 2; narrow++)
			{
				uint64_t	range = narrow ? 2500 : UINT64_C(1) << 32;
				size_t		na = random_distinct(a, sizes[i], range);
				size_t		nb = random_distinct(b, sizes[j], range);
				size_t		nboth,
							want,
							got;

				test_begin("merge of %zu and %zu hashes from a range of %" PRIu64,
						   sizes[i], sizes[j], range);
				memcpy(both, a, na * sizeof(uint32_t));
				memcpy(both + na, b, nb * sizeof(uint32_t));
				nboth = sort_distinct(both, na + nb);
				want = nboth < BLOOM_KMV_SIZE ? nboth : BLOOM_KMV_SIZE;
				got = bloom_kmv_merge(a, na, b, nb, out);
				if (check(got == want, "%zu hashes, want %zu", got, want))
					check(memcmp(out, both, got * sizeof(uint32_t)) == 0,
						  "not the smallest distinct hashes of the union");
				test_end();
			}

	/* a set of fewer than K distinct hashes is counted exactly */
	test_begin("a sketch that is not full counts its hashes");
	check(bloom_kmv_estimate(a, 0) == 0.0, "empty: %g", bloom_kmv_estimate(a, 0));
	check(bloom_kmv_estimate(a, BLOOM_KMV_SIZE - 1) == BLOOM_KMV_SIZE - 1,
		  "K - 1 hashes: %g", bloom_kmv_estimate(a, BLOOM_KMV_SIZE - 1));
	test_end();

	/*
	 * n distinct random hashes, n far above K: the sketch's estimate is
	 * within 10% (the error is about 3%; the keys are fixed by the seed, so
	 * the outcome is too), and the sketch of two halves merged is the
	 * sketch of the whole.
	 */
	{
		static const size_t counts[] = {5000, 100000, 2000000};

		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		{
			size_t		n = counts[c];
			uint32_t   *all = malloc(n * sizeof(uint32_t));
			uint32_t	half_a[BLOOM_KMV_SIZE],
						half_b[BLOOM_KMV_SIZE];
			size_t		nd,
						na = 0,
						nb = 0;
			double		est;

			nd = random_distinct(all, n, UINT64_C(1) << 32);
			test_begin("estimate of %zu distinct hashes", nd);
			est = bloom_kmv_estimate(all, nd < BLOOM_KMV_SIZE ? nd : BLOOM_KMV_SIZE);
			check(est > 0.9 * nd && est < 1.1 * nd, "estimated %.0f", est);
			test_end();

			test_begin("the sketches of two halves of %zu hashes merged", nd);
			/* the halves: odd and even positions of the sorted hashes */
			for (size_t i = 0; i < nd && (na < BLOOM_KMV_SIZE || nb < BLOOM_KMV_SIZE); i++)
			{
				if (i % 2 == 0 && na < BLOOM_KMV_SIZE)
					half_a[na++] = all[i];
				else if (i % 2 == 1 && nb < BLOOM_KMV_SIZE)
					half_b[nb++] = all[i];
			}
			check(bloom_kmv_merge(half_a, na, half_b, nb, out) == BLOOM_KMV_SIZE &&
				  memcmp(out, all, BLOOM_KMV_SIZE * sizeof(uint32_t)) == 0,
				  "not the sketch of the whole");
			test_end();
			free(all);
		}
	}

	free(a);
	free(b);
	free(both);
	group_end();
}
