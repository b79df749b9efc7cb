/*
 * test_gaps.c
 *		Unit tests of the core: gap-coded hash sets (bloom_gaps.c).
 */
#include "unit.h"

/*
 * Decode the n hashes of a code with a reader, in parts of 1, 2, 3, 5, 8 ...
 * hashes (one of every few sizes up to 4096, then again): a reader stops at
 * any bit of a hash's code, the fast way's or the careful way's.
 */
static bloom_status
decode_in_parts(const uint8_t *code, size_t len, uint64_t n, unsigned r,
				uint32_t *out)
{
	static const uint64_t parts[] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 4096};
	bloom_gaps_reader reader;
	uint64_t	done = 0;

	bloom_gaps_reader_init(&reader, code, len, r);
	for (size_t p = 0; done < n; p = (p + 1) % (sizeof(parts) / sizeof(parts[0])))
	{
		uint64_t	part = n - done < parts[p] ? n - done : parts[p];
		bloom_status st = bloom_gaps_reader_take(&reader, part, out + done);

		if (st != BLOOM_OK)
			return st;
		done += part;
	}
	return bloom_gaps_reader_end(&reader);
}

/*
 * Encode, check the size bound, decode at once and in parts, compare;
 * returns the code size.
 */
static size_t
gaps_round_trip(const uint32_t *hashes, uint64_t n, unsigned r, const char *what)
{
	uint64_t	max = bloom_gaps_max_bytes(n, r);
	uint8_t    *code = malloc(max + 1);
	uint32_t   *back = malloc((n + 1) * sizeof(uint32_t));
	size_t		len;
	bloom_status st;

	len = bloom_gaps_encode(hashes, n, r, code);
	check(len <= max, "%s: %zu bytes, bound %llu", what, len, (unsigned long long) max);
	st = bloom_gaps_decode(code, len, n, r, back);
	if (check(st == BLOOM_OK, "%s (r %u): decode %s", what, r, status_name(st)))
		check(n == 0 || memcmp(back, hashes, n * sizeof(uint32_t)) == 0,
			  "%s (r %u): decoded differently", what, r);
	memset(back, 0, (n + 1) * sizeof(uint32_t));
	st = decode_in_parts(code, len, n, r, back);
	if (check(st == BLOOM_OK, "%s (r %u): decode in parts %s", what, r, status_name(st)))
		check(n == 0 || memcmp(back, hashes, n * sizeof(uint32_t)) == 0,
			  "%s (r %u): decoded in parts differently", what, r);
	/* in parts as at once: one hash short, the code has bits left over */
	if (n > 0)
		check(decode_in_parts(code, len, n - 1, r, back) == BLOOM_ERR_GAPS_CODE,
			  "%s (r %u): in parts, %llu of %llu hashes make a whole code", what, r,
			  (unsigned long long) (n - 1), (unsigned long long) n);
	/* checked without its hashes: the same answers */
	st = bloom_gaps_check(code, len, n, r);
	check(st == BLOOM_OK, "%s (r %u): check %s", what, r, status_name(st));
	if (n > 0)
		check(bloom_gaps_check(code, len, n - 1, r) == BLOOM_ERR_GAPS_CODE &&
			  bloom_gaps_check(code, len, n + 1, r) == BLOOM_ERR_GAPS_CODE,
			  "%s (r %u): checked as %llu or %llu hashes", what, r,
			  (unsigned long long) (n - 1), (unsigned long long) (n + 1));
	free(back);
	free(code);
	return len;
}

void
test_gaps(void)
{
	static const uint64_t sizes[] = {0, 1, 2, 3, 10, 1000, 100000};
	uint32_t   *hashes = malloc(1000000 * sizeof(uint32_t));
	uint32_t   *back = malloc(1000001 * sizeof(uint32_t));
	uint8_t    *code;
	uint64_t	n,
				i;
	size_t		len,
				s;
	unsigned	r;
	int			round;

	group_begin("gap-coded hash sets");

	test_begin("sort and drop repeats: qsort's answer, for any input");
	{
		uint32_t   *want = malloc(200000 * sizeof(uint32_t));
		uint32_t   *scratch = malloc(200000 * sizeof(uint32_t));
		static const size_t counts[] = {0, 1, 2, 3, 100, 2047, 2048, 2049, 200000};

		for (s = 0; s < sizeof(counts) / sizeof(counts[0]); s++)
			for (round = 0; round < 5; round++)
			{
				size_t		c = counts[s],
							got,
							m = 0;

				for (i = 0; i < c; i++)
				{
					/* random, few distinct, all equal, ascending, descending */
					uint32_t	v = (uint32_t) rng_next();

					hashes[i] = round == 0 ? v : round == 1 ? v % 97 : round == 2 ? 7u :
						round == 3 ? (uint32_t) (i * 3) : (uint32_t) (UINT32_MAX - i);
					want[i] = hashes[i];
				}
				qsort(want, c, sizeof(uint32_t), cmp_u32);
				for (i = 0; i < c; i++)
					if (m == 0 || want[i] != want[m - 1])
						want[m++] = want[i];
				got = bloom_sort_unique_hashes(hashes, c, scratch);
				check(got == m && (m == 0 || memcmp(hashes, want, m * sizeof(uint32_t)) == 0),
					  "%zu hashes, kind %d: %zu distinct, want %zu", c, round, got, m);
			}
		free(scratch);
		free(want);
	}
	test_end();

	test_begin("sort parts and drop repeats, through a small tmp: qsort's answer");
	{
		static const size_t counts[] = {0, 1, 100, 8193, 70000, 200000, 3000000};
		size_t		most = 3000000;
		uint32_t   *in = malloc(most * sizeof(uint32_t));
		uint32_t   *want = malloc(most * sizeof(uint32_t));
		uint32_t   *out = malloc(most * sizeof(uint32_t));
		uint32_t   *tmp = malloc(most * sizeof(uint32_t));

		for (s = 0; s < sizeof(counts) / sizeof(counts[0]); s++)
			for (round = 0; round < 7; round++)
			{
				size_t		c = counts[s],
							got,
							m = 0;
				const uint32_t *parts[5];
				size_t		lens[5];
				size_t		nparts = 1 + (size_t) (rng_next() % 5),
							at = 0;

				for (i = 0; i < c; i++)
				{
					/*
					 * random, few distinct, all equal, ascending, descending
					 * (all of these but random fall in one top-bits bucket,
					 * larger than tmp from 200000 on), low 16 bits zero, and
					 * every value twice
					 */
					uint32_t	v = (uint32_t) rng_next();

					in[i] = round == 0 ? v : round == 1 ? v % 97 : round == 2 ? 7u :
						round == 3 ? (uint32_t) (i * 3) :
						round == 4 ? (uint32_t) (UINT32_MAX - i) :
						round == 5 ? v & 0xffff0000u : (uint32_t) (i / 2) * 2654435761u;
					want[i] = in[i];
				}
				qsort(want, c, sizeof(uint32_t), cmp_u32);
				for (i = 0; i < c; i++)
					if (m == 0 || want[i] != want[m - 1])
						want[m++] = want[i];
				/* cut at random places; the last part may be empty */
				for (size_t p = 0; p < nparts; p++)
				{
					size_t		len = p + 1 < nparts ? (size_t) (rng_next() % (c - at + 1)) : c - at;

					parts[p] = in + at;
					lens[p] = len;
					at += len;
				}
				for (int big = 0; big <= 1; big++)
				{
					memset(out, 0xa5, c * sizeof(uint32_t));
					got = bloom_sort_unique_parts(parts, lens, nparts, out, tmp,
												  big ? most : BLOOM_SORT_TMP_MIN,
												  NULL, NULL);
					check(got == m && (m == 0 || memcmp(out, want, m * sizeof(uint32_t)) == 0),
						  "%zu hashes in %zu parts, kind %d, tmp %s: %zu distinct, want %zu",
						  c, nparts, round, big ? "large" : "small", got, m);
				}
			}
		free(tmp);
		free(out);
		free(want);
		free(in);
	}
	test_end();

	test_begin("sort parts: go_on asked before every 2^20 hashes of each pass, and a no stops it");
	{
		size_t		total = 5 * BLOOM_SORT_ASK_EVERY + 12345,
					want,
					got;
		uint32_t   *in = malloc(total * sizeof(uint32_t));
		uint32_t   *out = malloc(total * sizeof(uint32_t));
		uint32_t   *plain = malloc(total * sizeof(uint32_t));
		uint32_t   *tmp = malloc(BLOOM_SORT_TMP_MIN * sizeof(uint32_t));
		/* a large part, a small one between, and the rest */
		const uint32_t *parts[3] = {in, in + total / 3, in + total / 3 + 7};
		size_t		lens[3] = {total / 3, 7, total - total / 3 - 7};
		counted_asks asks = {0, 0};
		unsigned	all_asks;
		unsigned	no_at[3];

		for (i = 0; i < total; i++)
			in[i] = (uint32_t) rng_next();
		want = bloom_sort_unique_parts(parts, lens, 3, plain, tmp, BLOOM_SORT_TMP_MIN,
									   NULL, NULL);
		got = bloom_sort_unique_parts(parts, lens, 3, out, tmp, BLOOM_SORT_TMP_MIN,
									  count_ask, &asks);
		check(got == want && memcmp(out, plain, want * sizeof(uint32_t)) == 0,
			  "asked and never told no: %zu distinct, want %zu", got, want);
		/* the count, the scatter and the buckets each take every hash */
		all_asks = asks.calls;
		check(all_asks >= 3 * total / BLOOM_SORT_ASK_EVERY - 1 &&
			  all_asks <= 3 * total / BLOOM_SORT_ASK_EVERY + 3,
			  "%u asks for 3 passes over %zu hashes", all_asks, total);
		/* a no in the count, in the scatter and at the last ask (a bucket) */
		no_at[0] = 2;
		no_at[1] = all_asks / 2;
		no_at[2] = all_asks;
		for (size_t k = 0; k < 3; k++)
		{
			asks.calls = 0;
			asks.no_at = no_at[k];
			got = bloom_sort_unique_parts(parts, lens, 3, out, tmp, BLOOM_SORT_TMP_MIN,
										  count_ask, &asks);
			check(got == BLOOM_SORT_STOPPED && asks.calls == no_at[k],
				  "no at ask %u of %u: returned %zu after %u asks", no_at[k], all_asks,
				  got, asks.calls);
		}
		free(tmp);
		free(plain);
		free(out);
		free(in);
	}
	test_end();

	test_begin("random sets round-trip, at the chosen parameter and at 23..31");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		n = random_hash_set(hashes, sizes[s]);
		gaps_round_trip(hashes, n, bloom_gaps_rice_param(n), "random set");
		/* small parameters code 2^32 >> r unary bits: kept to 1 MB */
		if (n <= 1000)
			for (r = 23; r < 32; r++)
				gaps_round_trip(hashes, n, r, "random set, r 23..31");
	}
	test_end();

	/*
	 * The decoder takes a hash at once when its whole code is in its 64-bit
	 * buffer, and else the careful way; the encoder puts a short code at
	 * once, a long unary run in pieces.  Gaps of every length mixed, so
	 * that both ways alternate at every bit position, for every parameter.
	 */
	test_begin("unary runs short and long mixed: both ways of each direction, every r");
	for (r = 0; r < 32; r++)
	{
		uint64_t	h = 0;

		n = 0;
		for (int tries = 0; tries < 3000; tries++)
		{
			uint64_t	pick = rng_next() % 8,
						q = pick < 5 ? rng_next() % 4 :
				pick < 7 ? 20 + rng_next() % 50 : 60 + rng_next() % 400;
			uint64_t	gap = (q << r) | (rng_next() & (((uint64_t) 1 << r) - 1));

			if (h + gap > UINT32_MAX)
				continue;		/* large r: only the short runs fit */
			hashes[n++] = (uint32_t) (h + gap);
			h += gap + 1;
		}
		gaps_round_trip(hashes, n, r, "mixed unary runs");
	}
	test_end();

	test_begin("the extremes: 0, 2^32 - 1, dense runs, both ends");
	hashes[0] = 0;
	gaps_round_trip(hashes, 1, 0, "{0}");
	hashes[0] = UINT32_MAX;
	gaps_round_trip(hashes, 1, 0, "{2^32 - 1}, r 0");
	gaps_round_trip(hashes, 1, 31, "{2^32 - 1}, r 31");
	for (i = 0; i < 5000; i++)
		hashes[i] = (uint32_t) (UINT32_MAX - 4999 + i);
	gaps_round_trip(hashes, 5000, bloom_gaps_rice_param(5000), "the top 5000 values");
	for (i = 0; i < 5000; i++)
		hashes[i] = (uint32_t) i;
	for (r = 0; r < 32; r++)
		gaps_round_trip(hashes, 5000, r, "0..4999, every r");
	hashes[0] = 0;
	hashes[1] = UINT32_MAX;
	gaps_round_trip(hashes, 2, 31, "{0, 2^32 - 1}, r 31");
	test_end();

	/* 10^6 random hashes: gaps of about 4295, entropy about 13.5 bits */
	test_begin("size: 10^6 random hashes in at most 1.8 bytes each");
	n = random_hash_set(hashes, 1000000);
	len = gaps_round_trip(hashes, n, bloom_gaps_rice_param(n), "10^6 hashes");
	check((double) len / (double) n <= 1.8, "%.3f bytes a hash", (double) len / (double) n);
	test_end();

	/* each expect_status is a test of its own */
	n = random_hash_set(hashes, 1000);
	r = bloom_gaps_rice_param(n);
	code = malloc(bloom_gaps_max_bytes(n + 1, r) + 8);
	len = bloom_gaps_encode(hashes, n, r, code);
	expect_status(bloom_gaps_decode(code, len, n + 1, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: one hash more than coded");
	expect_status(bloom_gaps_decode(code, len, n - 1, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: one hash fewer than coded (bits left over)");
	expect_status(bloom_gaps_decode(code, len - 1, n, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: the last byte missing");
	code[len] = 0;
	expect_status(bloom_gaps_decode(code, len + 1, n, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: a zero byte after the code");
	expect_status(bloom_gaps_decode(code, len, n, 32, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: parameter 32");

	/* {2^32 - 1} at r 31 (q = 1), then a gap of 0 appended by hand */
	test_begin("{2^32 - 1} at r 31 is 5 bytes");
	hashes[0] = UINT32_MAX;
	len = bloom_gaps_encode(hashes, 1, 31, code);
	check(len == 5, "%zu bytes", len);
	test_end();
	code[4] |= 0x02;			/* bit 33: a unary stop bit, q = 0 */
	memset(code + 5, 0, 4);
	expect_status(bloom_gaps_decode(code, 9, 2, 31, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: a hash after 2^32 - 1");

	/*
	 * {5} at r 4, by the layout: q = 0 is a lone 1 bit, then 5's four low
	 * bits: 1 | 0101 << 1 = 0x0b, and 3 padding bits.
	 */
	test_begin("{5} at r 4 is the byte 0x0b");
	hashes[0] = 5;
	len = bloom_gaps_encode(hashes, 1, 4, code);
	check(len == 1 && code[0] == 0x0b, "%zu bytes, %02x", len, code[0]);
	test_end();
	code[0] |= 0x80;
	expect_status(bloom_gaps_decode(code, 1, 1, 4, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: a padding bit set");

	test_begin("damaged codes: never accepted unless they are some set's code");
	n = random_hash_set(hashes, 300);
	r = bloom_gaps_rice_param(n);
	for (round = 0; round < 3000; round++)
	{
		uint8_t    *again;
		uint64_t	want = n + (uint64_t) (rng_next() % 3) - 1;
		size_t		cut;
		bloom_status st;

		len = bloom_gaps_encode(hashes, n, r, code);
		code[rng_next() % len] ^= (uint8_t) (1u << (rng_next() % 8));
		cut = len - (size_t) (rng_next() % 2);
		st = bloom_gaps_decode(code, cut, want, r, back);
		check(bloom_gaps_check(code, cut, want, r) == st,
			  "round %d: checked otherwise than decoded", round);
		if (st != BLOOM_OK)
			continue;
		again = malloc(bloom_gaps_max_bytes(want, r));
		check(bloom_gaps_encode(back, want, r, again) == cut &&
			  memcmp(again, code, cut) == 0, "round %d: accepted a non-canonical code", round);
		for (i = 1; i < want; i++)
			check(back[i] > back[i - 1], "round %d: not increasing", round);
		free(again);
	}
	test_end();

	free(code);
	free(back);
	free(hashes);
	group_end();
}
