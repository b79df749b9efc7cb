/*
 * test_geometry.c
 *		Unit tests of the core: a filter's geometry: bits, bytes and k for every size.
 */
#include "unit.h"

/* Compare bloom_geometry_for with the rules for one (n, bpk). */
static void
check_geometry(uint64_t n, int64_t bpk)
{
	bloom_geometry want,
				got;
	bloom_status st = bloom_geometry_for(n, bpk, &got);

	if (!ref_geometry(n, bpk, &want))
	{
		check(st == BLOOM_ERR_SIZE_OVERFLOW,
			  "n=%" PRIu64 " bpk=%" PRId64 ": expected %s, got %s", n, bpk,
			  status_name(BLOOM_ERR_SIZE_OVERFLOW), status_name(st));
		return;
	}
	if (!check(st == BLOOM_OK, "n=%" PRIu64 " bpk=%" PRId64 ": %s", n, bpk,
			   status_name(st)))
		return;
	check(got.bits == want.bits && got.filter_bytes == want.filter_bytes &&
		  got.k == want.k,
		  "n=%" PRIu64 " bpk=%" PRId64 ": expected bits=%" PRIu64 " bytes=%"
		  PRIu64 " k=%u, got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u",
		  n, bpk, want.bits, want.filter_bytes, want.k,
		  got.bits, got.filter_bytes, got.k);
}

void
test_geometry(void)
{
	static const uint64_t ns[] = {
		0, 1, 7, 8, 9, 63, 64, 65, 1000, UINT64_C(1) << 31,
		(UINT64_C(1) << 32) - 1, UINT64_C(1) << 32, (UINT64_C(1) << 32) + 1,
		(UINT64_C(1) << 61) - 1, UINT64_C(1) << 61, UINT64_C(1) << 63,
		UINT64_MAX / 3, UINT64_MAX - 7, UINT64_MAX - 6, UINT64_MAX,
	};
	static const int64_t bpks[] = {
		0, 1, 2, 3, 7, 8, 9, 10, 30, 43, 44, 45, 100, INT32_MAX,
		INT64_C(1) << 32, INT64_C(1) << 61, INT64_MAX,
	};
	bloom_geometry g;
	size_t		i,
				j;
	uint64_t	n;
	int64_t		bpk;
	unsigned	prev;

	group_begin("geometry");

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
	{
		test_begin("bpk 0, n=%" PRIu64 ": 64 bits, k=1", ns[i]);
		if (check(bloom_geometry_for(ns[i], 0, &g) == BLOOM_OK, "not OK"))
			check(g.bits == 64 && g.filter_bytes == 9 && g.k == 1,
				  "got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits,
				  g.filter_bytes, g.k);
		test_end();
	}

	for (i = 0; i < sizeof(bpks) / sizeof(bpks[0]); i++)
	{
		test_begin("n=0, bpk=%" PRId64 ": 64 bits", bpks[i]);
		if (check(bloom_geometry_for(0, bpks[i], &g) == BLOOM_OK, "not OK"))
			check(g.bits == 64 && g.filter_bytes == 9 &&
				  g.k == ref_k(bpks[i]),
				  "got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits,
				  g.filter_bytes, g.k);
		test_end();
	}

	/* all the ways n * bpk can fall short of, hit or pass a byte boundary */
	test_begin("rounding sweep n=0..300, bpk=0..40");
	for (n = 0; n <= 300; n++)
		for (bpk = 0; bpk <= 40; bpk++)
			check_geometry(n, bpk);
	test_end();

	test_begin("n * bpk not a multiple of 8 rounds up: n=7, bpk=10");
	if (check(bloom_geometry_for(7, 10, &g) == BLOOM_OK, "not OK"))
		check(g.bits == 72 && g.filter_bytes == 10,
			  "70 bits: expected 72 bits in 10 bytes, got %" PRIu64
			  " bits in %" PRIu64 " bytes", g.bits, g.filter_bytes);
	test_end();

	test_begin("large n and bpk against 128-bit arithmetic");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(bpks) / sizeof(bpks[0]); j++)
			check_geometry(ns[i], bpks[j]);
	test_end();

	test_begin("k for bpk 0..100 is clamp(floor(bpk * 0.69), 1, 30)");
	for (bpk = 0; bpk <= 100; bpk++)
	{
		unsigned	k = ref_k(bpk);

		check(bloom_k_for_bits_per_key(bpk) == k &&
			  bloom_geometry_for(5, bpk, &g) == BLOOM_OK && g.k == k,
			  "bpk=%" PRId64 ": expected k=%u, got %u (geometry %u)", bpk,
			  k, bloom_k_for_bits_per_key(bpk), g.k);
	}
	test_end();

	test_begin("k is monotone in bpk and ends at 30");
	prev = 0;
	for (bpk = 0; bpk <= 1000; bpk++)
	{
		unsigned	k = bloom_k_for_bits_per_key(bpk);

		check(k >= prev && k >= 1 && k <= 30, "bpk=%" PRId64 ": k=%u after %u",
			  bpk, k, prev);
		prev = k;
	}
	check(bloom_k_for_bits_per_key(INT64_MAX) == 30, "k(INT64_MAX)=%u",
		  bloom_k_for_bits_per_key(INT64_MAX));
	test_end();

	expect_status(bloom_geometry_for(UINT64_MAX, 2, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n=UINT64_MAX, bpk=2 overflows");
	expect_status(bloom_geometry_for(3, INT64_MAX, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n=3, bpk=INT64_MAX overflows");
	expect_status(bloom_geometry_for(UINT64_C(1) << 32, INT64_C(1) << 32, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n * bpk = 2^64 overflows");
	expect_status(bloom_geometry_for(UINT64_MAX, INT64_MAX, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n=UINT64_MAX, bpk=INT64_MAX overflows");

	/*
	 * n * bpk fits, but rounding up to whole bytes reaches 2^64 bits, which
	 * bloom_geometry.bits cannot hold.
	 */
	expect_status(bloom_geometry_for(UINT64_MAX, 1, &g),
				  BLOOM_ERR_SIZE_OVERFLOW,
				  "n * bpk = 2^64 - 1 rounds up to 2^64 bits: overflows");
	expect_status(bloom_geometry_for(UINT64_MAX / 3, 3, &g),
				  BLOOM_ERR_SIZE_OVERFLOW,
				  "n=(2^64-1)/3, bpk=3 rounds up to 2^64 bits: overflows");
	expect_status(bloom_geometry_for(UINT64_MAX - 6, 1, &g),
				  BLOOM_ERR_SIZE_OVERFLOW,
				  "n * bpk = 2^64 - 7 rounds up to 2^64 bits: overflows");

	test_begin("largest size that fits: n=2^61-1, bpk=8 gives 2^64-8 bits");
	if (check(bloom_geometry_for((UINT64_C(1) << 61) - 1, 8, &g) == BLOOM_OK,
			  "not OK"))
		check(g.bits == UINT64_MAX - 7 && g.filter_bytes == UINT64_C(1) << 61 &&
			  g.k == 5,
			  "got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits,
			  g.filter_bytes, g.k);
	test_end();

	test_begin("largest size that fits: n=2^64-8, bpk=1");
	if (check(bloom_geometry_for(UINT64_MAX - 7, 1, &g) == BLOOM_OK, "not OK"))
		check(g.bits == UINT64_MAX - 7 && g.filter_bytes == UINT64_C(1) << 61,
			  "got bits=%" PRIu64 " bytes=%" PRIu64, g.bits, g.filter_bytes);
	test_end();

	expect_status(bloom_geometry_for(0, -1, &g),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bpk=-1, n=0");
	expect_status(bloom_geometry_for(5, -1, &g),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bpk=-1, n=5");
	expect_status(bloom_geometry_for(UINT64_MAX, INT64_MIN, &g),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bpk=INT64_MIN, n=UINT64_MAX");

	group_end();
}
