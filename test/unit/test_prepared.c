/*
 * test_prepared.c
 *		Unit tests of the core: prepared geometry: the reciprocal, build and probe.
 */
#include "unit.h"

/* Check the reciprocal of d against % on edge and random dividends. */
static void
check_fastmod_divisor(uint64_t d, unsigned nrandom)
{
	uint64_t	m = bloom_fastmod_reciprocal(d);
	uint32_t	edges[] = {0, 1, 2, 3, UINT32_MAX, UINT32_MAX - 1,
		UINT32_C(0x80000000), UINT32_C(0x7fffffff)};
	uint64_t	q;
	unsigned	i;

#define CHECK_ONE(a) \
	do { \
		uint32_t	a_ = (uint32_t) (a); \
		uint32_t	got_ = bloom_fastmod(a_, m, d); \
		if (!check(got_ == a_ % d, "%" PRIu32 " %% %" PRIu64 ": got %" PRIu32 ", want %" PRIu64, \
				   a_, d, got_, a_ % d)) \
			return; \
	} while (0)

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		CHECK_ONE(edges[i]);
	/* around multiples of d, where a wrong reciprocal shows first */
	for (i = 0; i < 64; i++)
	{
		q = rng_next() % ((UINT64_C(1) << 32) / d + 1);
		if (q * d > UINT32_MAX)
			continue;
		CHECK_ONE(q * d);
		if (q * d > 0)
			CHECK_ONE(q * d - 1);
		if (q * d + 1 <= UINT32_MAX)
			CHECK_ONE(q * d + 1);
		if (q * d + d - 1 <= UINT32_MAX)
			CHECK_ONE(q * d + d - 1);
	}
	if (d <= UINT32_MAX)
	{
		CHECK_ONE(d - 1);
		CHECK_ONE(d);
		if (d < UINT32_MAX)
			CHECK_ONE(d + 1);
	}
	for (i = 0; i < nrandom; i++)
		CHECK_ONE(rng_next());
#undef CHECK_ONE
}

void
test_prepared(void)
{
	static const size_t lens[] = {0, 1, 2, 3, 9, 10, 17, 64, 65, 1001, 4097};
	uint64_t	d;
	unsigned	i,
				j,
				shift;

	group_begin("prepared geometry");

	test_begin("fastmod equals %% for edge divisors: 1, 2^32 - 1, 2^32, powers of two and their neighbours");
	for (shift = 0; shift <= 32; shift++)
	{
		d = UINT64_C(1) << shift;
		check_fastmod_divisor(d, 2000);
		if (d > 1)
			check_fastmod_divisor(d - 1, 2000);
		if (d < (UINT64_C(1) << 32))
			check_fastmod_divisor(d + 1, 2000);
	}
	for (d = 1; d <= 1000; d++)
		check_fastmod_divisor(d, 200);
	check_fastmod_divisor(UINT32_MAX, 100000);
	check_fastmod_divisor(UINT32_MAX - 7, 100000);
	test_end();

	test_begin("fastmod equals %% for random divisors of every size");
	for (i = 0; i < 3000; i++)
	{
		/* a random bit length, then a random divisor of that length */
		shift = 1 + (unsigned) (rng_next() % 32);
		d = rng_next() & ((UINT64_C(1) << shift) - 1);
		if (d == 0)
			d = 1;
		check_fastmod_divisor(d, 300);
	}
	test_end();

	test_begin("bloom_prepare uses h itself from 2^32 bits on, as h %% bits does");
	{
		uint64_t	big[] = {UINT64_C(1) << 32, (UINT64_C(1) << 32) + 8,
			UINT64_C(1) << 40, UINT64_MAX - 7};
		bloom_prepared p;

		for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		{
			bloom_prepare(&p, big[i], 6);
			for (j = 0; j < 1000; j++)
			{
				uint32_t	h = (uint32_t) rng_next();

				check(bloom_prepared_bitpos(&p, h) == h % big[i],
					  "bits %" PRIu64 ", h %" PRIu32, big[i], h);
			}
			check(bloom_prepared_bitpos(&p, UINT32_MAX) == UINT32_MAX,
				  "bits %" PRIu64 ", h 2^32 - 1", big[i]);
		}
	}
	test_end();

	test_begin("prepared probe equals KeyMayMatch restated, any bytes, k 0..31 and 255, short filters");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
	{
		size_t		len = lens[i];
		uint8_t    *f = xcalloc(len + 1);
		unsigned	round;

		for (round = 0; round < 40; round++)
		{
			bloom_prepared p;
			size_t		b;
			unsigned	density = (unsigned) (rng_next() % 4);

			/* from sparse to nearly full, so both answers occur */
			for (b = 0; b < len; b++)
			{
				uint8_t		x = (uint8_t) rng_next();

				for (j = 0; j < density; j++)
					x |= (uint8_t) rng_next();
				f[b] = x;
			}
			if (len > 0)
				f[len - 1] = round < 32 ? (uint8_t) round : (uint8_t) (round == 32 ? 255 : 1 + rng_next() % 30);
			bloom_prepare_probe(&p, f, len);
			for (j = 0; j < 500; j++)
			{
				uint32_t	h = (uint32_t) rng_next();

				check(bloom_prepared_may_contain(&p, f, h) == ref_may_match_hash(h, f, len),
					  "len %zu, k byte %u, hash %08" PRIx32, len,
					  len > 0 ? f[len - 1] : 0, h);
				check(bloom_may_contain_hash(f, len, h) == ref_may_match_hash(h, f, len),
					  "bloom_may_contain_hash: len %zu, hash %08" PRIx32, len, h);
			}
		}
		free(f);
	}
	test_end();

	test_begin("batched set with prefetch equals setting each hash with the division");
	{
		static const size_t counts[] = {0, 1, 63, 64, 65, 129, 5000};
		static const uint64_t nbits[] = {8, 64, 72, 1000, 8192, 100003 * 8};
		static const unsigned ks[] = {1, 2, 6, 13, 30, 31, 40};
		uint32_t   *hashes = xcalloc(5000 * sizeof(uint32_t));
		size_t		c,
					b,
					kk;

		for (c = 0; c < 5000; c++)
			hashes[c] = (uint32_t) rng_next();
		for (b = 0; b < sizeof(nbits) / sizeof(nbits[0]); b++)
		{
			size_t		bytes = (size_t) ((nbits[b] + 7) / 8);
			uint8_t    *got = xcalloc(bytes);
			uint8_t    *want = xcalloc(bytes);

			for (kk = 0; kk < sizeof(ks) / sizeof(ks[0]); kk++)
				for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
				{
					bloom_prepared p;
					size_t		h;

					memset(got, 0, bytes);
					memset(want, 0, bytes);
					bloom_prepare(&p, nbits[b], ks[kk]);
					bloom_prepared_set_hashes(&p, got, hashes, counts[c]);
					for (h = 0; h < counts[c]; h++)
						ref_add_hash(want, nbits[b], ks[kk], hashes[h]);
					check(memcmp(got, want, bytes) == 0,
						  "%" PRIu64 " bits, k %u, %zu hashes", nbits[b], ks[kk], counts[c]);
					/* the one-hash entry point, too */
					memset(got, 0, bytes);
					for (h = 0; h < counts[c]; h++)
						bloom_set_hash(got, nbits[b], ks[kk], hashes[h]);
					check(memcmp(got, want, bytes) == 0,
						  "bloom_set_hash: %" PRIu64 " bits, k %u, %zu hashes", nbits[b], ks[kk], counts[c]);
				}
			free(got);
			free(want);
		}
		free(hashes);
	}
	test_end();

	test_begin("buffered set (large arrays, scratch) equals setting each hash with the division");
	{
		static const unsigned ks[] = {1, 6, 13, 30, 31};
		uint64_t	nbits = (UINT64_C(1) << 25) + 24;	/* just large enough */
		size_t		bytes = (size_t) (nbits / 8);
		size_t		full = bloom_set_scratch_size(nbits);
		size_t		scratch_sizes[5];
		/* in words from the (16-byte aligned) area: buckets cut lines anywhere */
		static const size_t scratch_offsets[5] = {0, 0, 0, 0, 3};
		size_t		nh = 200000,
					kk,
					sc,
					h;
		uint32_t   *hashes = xcalloc(nh * sizeof(uint32_t));
		uint32_t   *scratch = xcalloc((full > 0 ? full : 1) * sizeof(uint32_t) + 64);
		uint8_t    *got = xcalloc(bytes);
		uint8_t    *want = xcalloc(bytes);

		check(full > 0, "no scratch wanted for %" PRIu64 " bits", nbits);
		check(bloom_set_scratch_size(1u << 20) == 0, "scratch wanted for a small array");
		scratch_sizes[0] = full;	/* as the final function uses it */
		scratch_sizes[1] = 20000;	/* buckets of ~1000: flushed often */
		scratch_sizes[2] = 1000;	/* too small: the unbuffered path */
		scratch_sizes[3] = 0;
		scratch_sizes[4] = 20011;	/* odd buckets from an odd start */
		for (h = 0; h < nh; h++)
			hashes[h] = (uint32_t) rng_next();
		for (kk = 0; kk < sizeof(ks) / sizeof(ks[0]); kk++)
		{
			bloom_prepared p;

			memset(want, 0, bytes);
			for (h = 0; h < nh; h++)
				ref_add_hash(want, nbits, ks[kk], hashes[h]);
			bloom_prepare(&p, nbits, ks[kk]);
			for (sc = 0; sc < 5; sc++)
			{
				memset(got, 0, bytes);
				/* in two calls, each with buckets of its own */
				bloom_prepared_set_hashes_buffered(&p, got, hashes, nh / 3,
												   scratch_sizes[sc] ? scratch + scratch_offsets[sc] : NULL,
												   scratch_sizes[sc]);
				bloom_prepared_set_hashes_buffered(&p, got, hashes + nh / 3, nh - nh / 3,
												   scratch_sizes[sc] ? scratch + scratch_offsets[sc] : NULL,
												   scratch_sizes[sc]);
				check(memcmp(got, want, bytes) == 0, "k %u, scratch %zu words from word %zu",
					  ks[kk], scratch_sizes[sc], scratch_offsets[sc]);
			}
		}
		free(hashes);
		free(scratch);
		free(got);
		free(want);
	}
	test_end();

	test_begin("buffered set in parts: nothing set before a bucket is full, the same bits at the finish");
	{
		uint64_t	nbits = UINT64_C(1) << 28;	/* 32 MB: 128 regions */
		size_t		bytes = (size_t) (nbits / 8);
		size_t		full = bloom_set_scratch_size(nbits);
		/* room for about 1,100 positions a region: many rounds */
		size_t		small = 128 * 1100;
		static const size_t parts[] = {1, 2, 7, 128, 1000, 4321};
		size_t		nh = 100000;
		uint32_t   *hashes = xcalloc(nh * sizeof(uint32_t));
		uint32_t   *scratch = xcalloc(full * sizeof(uint32_t));
		uint8_t    *got = xcalloc(bytes);
		uint8_t    *want = xcalloc(bytes);
		bloom_buffered_set *set = xcalloc(sizeof(bloom_buffered_set));
		bloom_prepared p;

		for (size_t h = 0; h < nh; h++)
		{
			hashes[h] = (uint32_t) rng_next();
			ref_add_hash(want, nbits, 6, hashes[h]);
		}
		bloom_prepare(&p, nbits, 6);
		for (int pass = 0; pass < 2; pass++)
		{
			size_t		room = pass == 0 ? full : small;
			size_t		h = 0;
			bool		untouched = true;

			memset(got, 0, bytes);
			if (!check(bloom_buffered_set_start(set, &p, got, scratch, room),
					   "no buckets with %zu words", room))
				continue;
			for (size_t i = 0; h < nh; i++)
			{
				size_t		len = parts[i % (sizeof(parts) / sizeof(parts[0]))];

				if (len > nh - h)
					len = nh - h;
				bloom_buffered_set_hashes(set, hashes + h, len);
				h += len;
			}
			/* 600,000 positions, about 4,700 a region: full buckets hold 32,768 */
			for (size_t b = 0; b < bytes && pass == 0 && untouched; b++)
				untouched = got[b] == 0;
			check(untouched, "bits set before any bucket was full");
			bloom_buffered_set_finish(set);
			check(memcmp(got, want, bytes) == 0, "%zu words of scratch: different bits", room);
		}
		free(set);
		free(want);
		free(got);
		free(scratch);
		free(hashes);
	}
	test_end();

	test_begin("buffered set beyond 2^32 bits touches only the first 2^32 bits, like the division");
	{
		/* 2^32 + 64 bits, reserved but never touched beyond the set bits */
		uint64_t	nbits = (UINT64_C(1) << 32) + 64;
		size_t		bytes = (size_t) (nbits / 8);
		size_t		full = bloom_set_scratch_size(nbits);
		uint32_t   *scratch = xcalloc(full * sizeof(uint32_t));
		uint32_t	hashes[3000];
		uint8_t    *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
							   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		bloom_prepared p;
		size_t		h,
					w;
		bool		clean = true;

		if (map == MAP_FAILED)
			fail("mmap of %zu bytes failed", bytes);
		else
		{
			for (h = 0; h < 3000; h++)
				hashes[h] = (uint32_t) rng_next();
			hashes[0] = UINT32_MAX;
			bloom_prepare(&p, nbits, 6);
			bloom_prepared_set_hashes_buffered(&p, map, hashes, 3000, scratch, full);
			/* every bit the division sets is set; clear it, then all is zero */
			for (h = 0; h < 3000; h++)
			{
				uint32_t	x = hashes[h],
							delta = ref_delta(x);
				unsigned	j;

				for (j = 0; j < 6; j++, x += delta)
					check(map[(x % nbits) / 8] & (1u << ((x % nbits) % 8)),
						  "hash %zu probe %u not set", h, j);
			}
			for (h = 0; h < 3000; h++)
			{
				uint32_t	x = hashes[h],
							delta = ref_delta(x);
				unsigned	j;

				for (j = 0; j < 6; j++, x += delta)
					map[(x % nbits) / 8] = 0;
			}
			for (w = 0; w < bytes / 8 && clean; w++)
				clean = ((const uint64_t *) map)[w] == 0;
			check(clean, "a bit other than the probes' was set (word %zu)", w - 1);
			munmap(map, bytes);
		}
		free(scratch);
	}
	test_end();

	test_begin("bloom_advise_huge_pages changes no byte");
	{
		size_t		len = BLOOM_HUGE_PAGES_MIN_BYTES + 12345;
		uint8_t    *buf = xcalloc(len);
		size_t		b;

		for (b = 0; b < len; b++)
			buf[b] = (uint8_t) (b * 7);
		bloom_advise_huge_pages(buf, len);
		bloom_advise_huge_pages(buf + 1, 100);
		for (b = 0; b < len; b++)
			if (!check(buf[b] == (uint8_t) (b * 7), "byte %zu changed", b))
				break;
		free(buf);
	}
	test_end();

	/*
	 * Buckets by region sized by the region's share of the positions: a
	 * position is a 32-bit value modulo the bit count, so in a filter of
	 * 10^9 bits the positions below 2^32 mod 10^9 (294,967,296) are each
	 * reached by 5 values and the others by 4.  The buckets of the first
	 * regions are 5/4 the size of the last full ones, and random hashes
	 * fill them together: more than 0.92 of all their room is used when
	 * the first is full, where buckets of one size could use at most 0.86.
	 * Bits past 2^32 are reached by no position: 2^32 evenly.
	 */
	{
		static const uint64_t bit_counts[] = {UINT64_C(1000000000), UINT64_C(1) << 33};

		for (int b = 0; b < 2; b++)
		{
			bloom_prepared p;
			bloom_bucket_writer *w = xcalloc(sizeof(bloom_bucket_writer));
			unsigned	shift;
			size_t		nregions,
						total,
						used = 0,
						smallest = SIZE_MAX,
						taken;
			uint32_t   *buckets;
			uint32_t	hashes[4096];
			bool		full = false;

			test_begin("buckets of a filter of %" PRIu64 " bits sized by their share of positions",
					   bit_counts[b]);
			bloom_prepare(&p, bit_counts[b], 6);
			shift = bloom_region_shift(p.mod_d, BLOOM_BUCKET_REGIONS_MAX);
			nregions = bloom_region_count(p.mod_d, shift);
			total = nregions * 8192;
			buckets = xcalloc(total * sizeof(uint32_t));
			bloom_bucket_writer_start(w, buckets, total, nregions, shift, p.mod_d);
			for (size_t r = 0; r < nregions; r++)
			{
				size_t		len = (size_t) (bloom_bucket_start(w, r + 1) - bloom_bucket_start(w, r));

				smallest = len < smallest ? len : smallest;
			}
			check(bloom_bucket_start(w, 0) == buckets &&
				  (size_t) (bloom_bucket_start(w, nregions) - buckets) <= total &&
				  smallest >= 30, "the buckets overrun their room or hold less than a hash's positions");
			if (b == 0)
			{
				double		ratio = (double) (bloom_bucket_start(w, 1) - bloom_bucket_start(w, 0)) /
					(double) (bloom_bucket_start(w, nregions - 1) - bloom_bucket_start(w, nregions - 2));

				check(ratio > 1.24 && ratio < 1.26, "first bucket / last full one: %.3f, not 5/4", ratio);
			}
			else
				check(bloom_bucket_start(w, 1) - bloom_bucket_start(w, 0) ==
					  bloom_bucket_start(w, nregions) - bloom_bucket_start(w, nregions - 1),
					  "2^32 positions in equal regions, buckets of different sizes");
			while (!full)
			{
				for (size_t i = 0; i < 4096; i++)
					hashes[i] = (uint32_t) rng_next();
				taken = bloom_bucket_positions(&p, shift, w, hashes, 0, 4096);
				full = taken < 4096;
			}
			bloom_bucket_writer_flush(w);
			for (size_t r = 0; r < nregions; r++)
				used += bloom_bucket_length(w, r);
			check((double) used / (double) total > 0.92, "%.3f of the room used when the first bucket filled",
				  (double) used / (double) total);
			free(buckets);
			free(w);
			test_end();
		}
	}

	group_end();
}
