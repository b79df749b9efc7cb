/*
 * test_sample.c
 *		Unit tests of the core: the sample that tells whether a buffer of
 *		hashes holds repeats (bloom_sample.h).
 */
#include "unit.h"

#include "bloom_sample.h"

/* The hashes of a buffer of n a test samples, at most. */
#define WINDOW		8192

/*
 * MurmurHash3's finalizer: a bijection of 32-bit values, so consecutive
 * inputs give distinct hashes that look uniform.
 */
static uint32_t
fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	h *= 0xc2b2ae35U;
	h ^= h >> 16;
	return h;
}

/* n distinct hashes (n <= WINDOW) from a random start. */
static void
distinct_window(uint32_t *v, size_t n)
{
	uint32_t	start = (uint32_t) rng_next();

	for (size_t i = 0; i < n; i++)
		v[i] = fmix32(start + (uint32_t) i);
}

/* v[0..n-1] in a random order (n > 0). */
static void
shuffle(uint32_t *v, size_t n)
{
	for (size_t i = n - 1; i > 0; i--)
	{
		size_t		j = rng_next() % (i + 1);
		uint32_t	t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

/*
 * n hashes of which ndistinct (at least 1 when n is) are distinct: the
 * rest repeat hashes drawn at random from those, and all are shuffled.
 */
static void
repeating_window(uint32_t *v, size_t n, size_t ndistinct)
{
	if (n == 0)
		return;
	distinct_window(v, ndistinct);
	for (size_t i = ndistinct; i < n; i++)
		v[i] = v[rng_next() % ndistinct];
	shuffle(v, n);
}

/* A finished sample of v[0 .. n - 1], taken in one part. */
static bool
sample_of(bloom_sample *s, const uint32_t *v, size_t n, uint32_t *scratch)
{
	bloom_sample_begin(s, n);
	bloom_sample_add(s, v, n);
	return bloom_sample_finish(s, scratch);
}

/*
 * The sample by its definition: v's hashes below 2K * 2^32 / n, sorted
 * and distinct into want; returns how many, and *nbelow how many fell
 * below, repeats too.
 */
static size_t
reference_sample(const uint32_t *v, size_t n, uint32_t *want, size_t *nbelow)
{
	uint64_t	threshold = (UINT64_C(2048) << 32) / (n > 0 ? n : 1);
	size_t		m = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i] < threshold)
			want[m++] = v[i];
	*nbelow = m;
	return sort_distinct(want, m);
}

void
test_sample(void)
{
	uint32_t   *v = malloc(WINDOW * sizeof(uint32_t));
	uint32_t   *want = malloc(WINDOW * sizeof(uint32_t));
	uint32_t   *scratch = malloc(BLOOM_SAMPLE_MAX * sizeof(uint32_t));
	bloom_sample *s = malloc(sizeof(bloom_sample));
	bloom_sample *parts = malloc(sizeof(bloom_sample));

	group_begin("a buffer's sample");

	check(BLOOM_SAMPLE_TARGET == 2048, "the target is %d, the reference's 2048",
		  BLOOM_SAMPLE_TARGET);

	/*
	 * The sample is the hashes below the threshold, sorted and distinct,
	 * whether the buffer comes in one part or several, of any length.
	 */
	{
		static const size_t lengths[] = {0, 1, 1000, 2047, 2048, 2049, 5000, WINDOW};

		for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++)
		{
			size_t		n = lengths[l];
			size_t		nbelow,
						nwant,
						at = 0;

			test_begin("the sample of %zu hashes, with repeats, in one part and in parts", n);
			repeating_window(v, n, n - n / 5);
			nwant = reference_sample(v, n, want, &nbelow);
			if (check(sample_of(s, v, n, scratch), "overflowed") &&
				check(s->nbelow == nbelow && s->ndistinct == nwant,
					  "%zu below, %zu distinct; want %zu and %zu",
					  s->nbelow, s->ndistinct, nbelow, nwant))
				check(memcmp(s->hashes, want, nwant * sizeof(uint32_t)) == 0,
					  "not the distinct hashes below the threshold, in order");
			bloom_sample_begin(parts, n);
			for (size_t len = 1; at < n; len = len * 3 + 1)
			{
				size_t		take = len < n - at ? len : n - at;

				bloom_sample_add(parts, v + at, take);
				at += take;
			}
			if (check(bloom_sample_finish(parts, scratch), "overflowed in parts"))
				check(parts->nbelow == nbelow && parts->ndistinct == nwant &&
					  memcmp(parts->hashes, want, nwant * sizeof(uint32_t)) == 0,
					  "in parts: %zu below, %zu distinct", parts->nbelow, parts->ndistinct);
			test_end();
		}
	}

	/*
	 * Distinct hashes are judged distinct in every window, and their
	 * sample starts with their K smallest hashes.
	 */
	{
		const int	windows = 2000;
		int			misjudged = 0,
					not_smallest = 0;

		test_begin("%d windows of %d distinct hashes judged distinct", windows, WINDOW);
		for (int w = 0; w < windows; w++)
		{
			distinct_window(v, WINDOW);
			if (!sample_of(s, v, WINDOW, scratch) || !bloom_sample_mostly_distinct(s))
			{
				misjudged++;
				continue;
			}
			if (w % 100 == 0)
			{
				memcpy(want, v, WINDOW * sizeof(uint32_t));
				qsort(want, WINDOW, sizeof(uint32_t), cmp_u32);
				if (memcmp(s->hashes, want, BLOOM_KMV_SIZE * sizeof(uint32_t)) != 0)
					not_smallest++;
			}
		}
		check(misjudged == 0, "%d of them judged to repeat", misjudged);
		check(not_smallest == 0, "%d samples did not start with their window's K smallest hashes",
			  not_smallest);
		test_end();
	}

	/*
	 * Distinct hashes whose smallest lie sparse, as they now and then do:
	 * the first K of the sample spread over 0.6 of the threshold, the next
	 * K over the rest.  The distinct count estimated from the K smallest
	 * (bloom_kmv.h) is then about 0.83 of the length, and a rule that set
	 * it against the length would sort this buffer; the share of distinct
	 * hashes in the sample is 1.
	 */
	{
		uint64_t	threshold = (UINT64_C(2048) << 32) / WINDOW;
		uint64_t	low = threshold * 6 / 10;
		size_t		n = 0;
		double		estimate;

		test_begin("distinct hashes whose smallest lie sparse judged distinct");
		for (size_t i = 0; i < BLOOM_KMV_SIZE; i++)
			v[n++] = (uint32_t) (i * low / BLOOM_KMV_SIZE);
		for (size_t i = 0; i < BLOOM_KMV_SIZE; i++)
			v[n++] = (uint32_t) (low + i * (threshold - low) / BLOOM_KMV_SIZE);
		for (size_t i = 0; n < WINDOW; i++)
			v[n++] = (uint32_t) (threshold + i * ((UINT64_C(1) << 32) - threshold) /
								 (WINDOW - 2 * BLOOM_KMV_SIZE));
		shuffle(v, WINDOW);
		if (check(sample_of(s, v, WINDOW, scratch), "overflowed") &&
			check(s->ndistinct == 2 * BLOOM_KMV_SIZE, "%zu distinct hashes in the sample",
				  s->ndistinct))
		{
			estimate = bloom_kmv_estimate(s->hashes, BLOOM_KMV_SIZE);
			check(estimate < 0.9 * WINDOW, "the case is not one an estimate misjudges: %.0f",
				  estimate);
			check(bloom_sample_mostly_distinct(s), "judged to repeat");
		}
		test_end();
	}

	/*
	 * Repeats: judged by the share of distinct hashes, kept at 97%, sorted
	 * at 80% and 50%, in every window.
	 */
	{
		static const double shares[] = {0.97, 0.8, 0.5};

		for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++)
		{
			const int	windows = 500;
			bool		want_distinct = shares[i] >= 0.9;
			int			wrong = 0;

			test_begin("%d windows, %.0f%% of their hashes distinct, judged %s", windows,
					   100 * shares[i], want_distinct ? "distinct" : "to repeat");
			for (int w = 0; w < windows; w++)
			{
				repeating_window(v, WINDOW, (size_t) (shares[i] * WINDOW));
				if (!sample_of(s, v, WINDOW, scratch) ||
					bloom_sample_mostly_distinct(s) != want_distinct)
					wrong++;
			}
			check(wrong == 0, "%d judged otherwise", wrong);
			test_end();
		}
	}

	/* too few to hold the K smallest: sorted, as a buffer of few keys */
	test_begin("fewer than K distinct hashes are judged to repeat");
	distinct_window(v, BLOOM_KMV_SIZE - 1);
	check(sample_of(s, v, BLOOM_KMV_SIZE - 1, scratch) && !bloom_sample_mostly_distinct(s),
		  "K - 1 distinct hashes judged distinct");
	/* (their sample overflows when one of the 10 falls below the threshold) */
	repeating_window(v, WINDOW, 10);
	(void) sample_of(s, v, WINDOW, scratch);
	check(!bloom_sample_mostly_distinct(s), "10 hashes repeated judged distinct");
	test_end();

	/* far from uniform: more than BLOOM_SAMPLE_MAX below the threshold */
	test_begin("hashes all below the threshold overflow the sample");
	for (size_t i = 0; i < WINDOW; i++)
		v[i] = (uint32_t) i;
	check(!sample_of(s, v, WINDOW, scratch), "%zu hashes below the threshold kept",
		  s->nbelow);
	check(s->overflowed && !bloom_sample_mostly_distinct(s), "judged distinct");
	test_end();

	free(v);
	free(want);
	free(scratch);
	free(s);
	free(parts);
	group_end();
}
