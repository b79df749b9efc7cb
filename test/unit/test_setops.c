/*
 * test_setops.c
 *		Unit tests of the core: union and intersection (bloom_setops.c).
 */
#include "unit.h"

void
test_setops(void)
{
	uint8_t		abuf[128],
				bbuf[128],
				want[128];
	uint32_t	hashes[100];
	bloom_geometry g;
	size_t		len,
				i;
	int			round;

	group_begin("union and intersection");

	test_begin("word-at-a-time OR and AND equal the byte loop, at odd addresses");
	for (round = 0; round < 400; round++)
	{
		uint8_t    *a = abuf + 1,
				   *b = bbuf + 3;
		bool		is_union = round % 2 == 0;

		len = 2 + rng_next() % 120;
		for (i = 0; i < len; i++)
		{
			a[i] = (uint8_t) rng_next();
			b[i] = (uint8_t) rng_next();
			want[i] = is_union ? a[i] | b[i] : a[i] & b[i];
		}
		want[len - 1] = a[len - 1];		/* the k byte is left alone */
		a[len] = 0x5a;
		if (is_union)
			bloom_union_into(a, b, len);
		else
			bloom_intersect_into(a, b, len);
		check(memcmp(a, want, len) == 0, "%s, len %zu",
			  is_union ? "union" : "intersection", len);
		check(a[len] == 0x5a, "wrote past len %zu", len);
	}
	test_end();

	test_begin("a filter ORed with itself, or ANDed, is unchanged");
	for (i = 0; i < 64; i++)
		abuf[i] = want[i] = (uint8_t) rng_next();
	bloom_union_into(abuf, abuf, 64);
	bloom_intersect_into(abuf, abuf, 64);
	check(memcmp(abuf, want, 64) == 0, "changed");
	test_end();

	test_begin("union of the filters of A and B is the filter of A and B");
	for (i = 0; i < 100; i++)
		hashes[i] = (uint32_t) rng_next();
	/* A = hashes 0..59, B = hashes 40..99: one geometry for all three */
	if (check(bloom_geometry_for(12, 10, &g) == BLOOM_OK &&
			  g.filter_bytes <= sizeof(want), "geometry"))
	{
		memset(abuf, 0, sizeof(abuf));
		memset(bbuf, 0, sizeof(bbuf));
		memset(want, 0, sizeof(want));
		bloom_build_from_hashes(abuf, &g, hashes, 60);
		bloom_build_from_hashes(bbuf, &g, hashes + 40, 60);
		bloom_build_from_hashes(want, &g, hashes, 100);
		bloom_union_into(abuf, bbuf, g.filter_bytes);
		check(memcmp(abuf, want, g.filter_bytes) == 0, "bytes differ");
	}
	test_end();

	test_begin("intersection matches every common key, and only bits of both");
	if (check(bloom_geometry_for(12, 10, &g) == BLOOM_OK, "geometry"))
	{
		uint8_t		x[128];

		memset(abuf, 0, sizeof(abuf));
		memset(bbuf, 0, sizeof(bbuf));
		bloom_build_from_hashes(abuf, &g, hashes, 60);
		bloom_build_from_hashes(bbuf, &g, hashes + 40, 60);
		memcpy(x, abuf, g.filter_bytes);
		bloom_intersect_into(x, bbuf, g.filter_bytes);
		for (i = 40; i < 60; i++)
			check(bloom_may_contain_hash(x, g.filter_bytes, hashes[i]),
				  "common hash %zu missing", i);
		for (i = 0; i < g.filter_bytes; i++)
			check((x[i] & abuf[i]) == x[i] && (x[i] & bbuf[i]) == x[i],
				  "byte %zu has a bit of only one input", i);
	}
	test_end();

	test_begin("same geometry: same length and the same k byte");
	memset(abuf, 0, 16);
	memset(bbuf, 0xff, 16);
	abuf[8] = bbuf[8] = 6;
	check(bloom_same_geometry(abuf, 9, bbuf, 9), "9 bytes, k 6 and 6");
	bbuf[8] = 7;
	check(!bloom_same_geometry(abuf, 9, bbuf, 9), "k 6 and 7");
	bbuf[9] = 6;
	check(!bloom_same_geometry(abuf, 9, bbuf, 10), "9 and 10 bytes");
	test_end();

	group_end();
}
