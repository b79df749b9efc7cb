/*
 * test_stats.c
 *		Unit tests of the core: bit counts, estimates and sizing (bloom_stats.c).
 */
#include "unit.h"

void
test_popcount(void)
{
	uint8_t		buf[200];
	size_t		off,
				len,
				pos;

	group_begin("bit counts");

	test_begin("random bytes at every alignment: the same count as bit by bit");
	rng_bytes(buf, sizeof(buf));
	for (off = 0; off < 8; off++)
		for (len = 0; off + len <= 150; len++)
			check(bloom_popcount(buf + off, len) ==
				  ref_popcount(buf + off, len),
				  "offset %zu, len %zu: %" PRIu64 ", want %" PRIu64, off, len,
				  bloom_popcount(buf + off, len),
				  ref_popcount(buf + off, len));
	test_end();

	test_begin("all ones: 8 bits a byte");
	memset(buf, 0xff, sizeof(buf));
	for (off = 0; off < 8; off++)
		for (len = 0; off + len <= sizeof(buf); len++)
			check(bloom_popcount(buf + off, len) == 8 * len,
				  "offset %zu, len %zu", off, len);
	test_end();

	test_begin("one bit set anywhere counts once; bytes outside len never");
	for (pos = 0; pos < 8 * 40; pos++)
	{
		memset(buf, 0, sizeof(buf));
		buf[pos / 8 + 1] = (uint8_t) (1u << (pos % 8));
		buf[0] = buf[41] = 0xff;	/* just outside [1, 41) */
		check(bloom_popcount(buf + 1, 40) == 1, "bit %zu", pos);
	}
	test_end();

	group_end();
}

/*
 * The estimate's spread when each key's k positions are independent and
 * uniform (the estimator's own assumption), by the delta method: with
 * t = k n / m, the count of set bits X has variance about
 * m e^-t (1 - (1 + t) e^-t), and d(estimate)/dX = e^t / k.
 */
static double
estimate_sd(uint64_t m, unsigned k, uint64_t n)
{
	double		t = (double) k * n / m;
	double		var_x = m * exp(-t) * (1 - (1 + t) * exp(-t));

	return sqrt(var_x) * exp(t) / k;
}

void
test_filter_stats(void)
{
	uint8_t		f[12501];
	bloom_stats st;
	size_t		len,
				i;
	int			round;

	group_begin("filter stats");

	test_begin("no bit set: no keys, no false positives");
	memset(f, 0, 9);
	f[8] = 6;
	bloom_stats_of(f, 9, &st);
	check(st.filter_bytes == 9 && st.bits == 64 && st.k == 6 &&
		  st.bits_set == 0, "bytes %" PRIu64 " bits %" PRIu64 " k %u set %"
		  PRIu64, st.filter_bytes, st.bits, st.k, st.bits_set);
	check(st.fill_ratio == 0 && st.false_positive_rate == 0, "fill %g fpr %g",
		  st.fill_ratio, st.false_positive_rate);
	check(st.estimated_keys == 0 && !signbit(st.estimated_keys),
		  "estimate %g", st.estimated_keys);
	test_end();

	test_begin("every bit set: any number of keys, everything matches");
	memset(f, 0xff, 8);
	f[8] = 6;
	bloom_stats_of(f, 9, &st);
	check(st.bits_set == 64 && st.fill_ratio == 1 &&
		  st.false_positive_rate == 1 && isinf(st.estimated_keys) &&
		  st.estimated_keys > 0,
		  "set %" PRIu64 " fill %g fpr %g estimate %g", st.bits_set,
		  st.fill_ratio, st.false_positive_rate, st.estimated_keys);
	test_end();

	test_begin("random filters: the formulas, restated");
	for (round = 0; round < 500; round++)
	{
		unsigned	k = 1 + (unsigned) (rng_next() % BLOOM_MAX_K);
		uint64_t	set;

		len = 2 + rng_next() % 300;
		for (i = 0; i + 1 < len; i++)
			f[i] = (uint8_t) (rng_next() & rng_next());
		f[len - 1] = (uint8_t) k;
		bloom_stats_of(f, len, &st);
		set = ref_popcount(f, len - 1);
		if (!check(st.filter_bytes == len && st.bits == 8 * (len - 1) &&
				   st.k == k && st.bits_set == set,
				   "len %zu: bytes %" PRIu64 " bits %" PRIu64 " k %u set %"
				   PRIu64 ", want set %" PRIu64, len, st.filter_bytes,
				   st.bits, st.k, st.bits_set, set))
			continue;
		check(st.fill_ratio == (double) set / st.bits, "len %zu: fill %g",
			  len, st.fill_ratio);
		check(ref_close(st.estimated_keys, ref_estimate(st.bits, k, set), 1e-9),
			  "len %zu: estimate %g, want %g", len, st.estimated_keys,
			  ref_estimate(st.bits, k, set));
		check(ref_close(st.false_positive_rate,
					   pow((double) set / st.bits, k), 1e-12),
			  "len %zu: rate %g", len, st.false_positive_rate);
	}
	test_end();

	test_begin("n keys at independent random positions: estimate within 5 sd of n");
	{
		const uint64_t m = 8 * (sizeof(f) - 1);
		const unsigned k = 6;
		static const uint64_t ns[] = {100, 1000, 5000, 10000, 20000};
		size_t		t;

		for (t = 0; t < sizeof(ns) / sizeof(ns[0]); t++)
		{
			uint64_t	n;
			double		sd = estimate_sd(m, k, ns[t]);

			memset(f, 0, sizeof(f));
			f[sizeof(f) - 1] = (uint8_t) k;
			for (n = 0; n < ns[t] * k; n++)
			{
				uint64_t	pos = rng_next() % m;

				f[pos / 8] |= (uint8_t) (1u << (pos % 8));
			}
			bloom_stats_of(f, sizeof(f), &st);
			check(fabs(st.estimated_keys - (double) ns[t]) <= 5 * sd,
				  "n %" PRIu64 ": estimate %.1f, sd %.1f", ns[t],
				  st.estimated_keys, sd);
		}
	}
	test_end();

	test_begin("a filter built from 10000 random keys at 10 bits a key");
	{
		static uint32_t hashes[10000];
		uint8_t    *built;
		bloom_geometry g;

		for (i = 0; i < 10000; i++)
		{
			uint64_t	key[2] = {rng_next(), rng_next()};

			hashes[i] = bloom_key_hash(key, sizeof(key));
		}
		if (check(bloom_geometry_for(10000, 10, &g) == BLOOM_OK, "geometry"))
		{
			built = xcalloc(g.filter_bytes);
			bloom_build_from_hashes(built, &g, hashes, 10000);
			bloom_stats_of(built, g.filter_bytes, &st);
			/*
			 * LevelDB derives a key's k positions from one 32-bit hash, so
			 * they are not independent; the bound is looser than above.
			 */
			check(fabs(st.estimated_keys - 10000) <= 300,
				  "estimate %.1f", st.estimated_keys);
			check(st.k == 6 && st.bits == 100000, "k %u bits %" PRIu64, st.k,
				  st.bits);
			free(built);
		}
	}
	test_end();

	group_end();
}

/*
 * A filter of 2^32 + 64 bits: the bits past 2^32 count as set bits, but
 * no probe can reach them, so they say nothing about keys.  The mapping
 * reserves no memory; reading its untouched pages maps the zero page.
 */
void
test_stats_beyond_2_32(void)
{
	size_t		len = LOW_BYTES + 8 + 1;
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	size_t		maplen = (len + page - 1) / page * page;
	uint8_t    *map;
	bloom_stats st;
	const uint64_t reach = UINT64_C(1) << 32;

	group_begin("filter stats beyond 2^32 bits");
	if (sizeof(size_t) < 8)
	{
		printf("SKIP %s: size_t cannot hold the length\n", group_name);
		group_end();
		return;
	}
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
	{
		printf("SKIP %s: cannot map %zu bytes: %s\n", group_name, maplen,
			   strerror(errno));
		group_end();
		return;
	}
	map[0] = 0x0f;				/* 4 reachable bits */
	map[LOW_BYTES - 1] = 0x80;	/* the last reachable bit */
	memset(map + LOW_BYTES, 0xff, 8);	/* 64 bits no probe reaches */
	map[len - 1] = 7;

	test_begin("set bits counted everywhere, estimates from the first 2^32");
	bloom_stats_of(map, len, &st);
	check(st.bits == reach + 64 && st.filter_bytes == len && st.k == 7,
		  "bits %" PRIu64 " bytes %" PRIu64 " k %u", st.bits, st.filter_bytes,
		  st.k);
	check(st.bits_set == 69, "bits_set %" PRIu64, st.bits_set);
	check(st.fill_ratio == 5.0 / (double) reach, "fill %g", st.fill_ratio);
	check(ref_close(st.estimated_keys, ref_estimate(reach, 7, 5), 1e-6),
		  "estimate %g, want %g", st.estimated_keys,
		  ref_estimate(reach, 7, 5));
	check(ref_close(st.false_positive_rate, pow(5.0 / (double) reach, 7), 1e-12),
		  "rate %g", st.false_positive_rate);
	test_end();

	munmap(map, maplen);
	group_end();
}

void
test_sizing(void)
{
	int64_t		b;
	int			round;
	double		prev;
	static const int64_t big[] = {
		44, 45, 100, 1000, 65536, 1000000, INT32_MAX / 2, INT32_MAX - 1,
		INT32_MAX,
	};
	size_t		i;

	group_begin("sizing");

	test_begin("bits_per_key 0 gives 1, negative gives NaN");
	check(bloom_expected_fpr(0) == 1.0 && bloom_ideal_fpr(0) == 1.0,
		  "bpk 0: %g", bloom_expected_fpr(0));
	check(isnan(bloom_expected_fpr(-1)) && isnan(bloom_expected_fpr(INT64_MIN)) &&
		  isnan(bloom_ideal_fpr(-1)),
		  "negative: %g", bloom_expected_fpr(-1));
	test_end();

	test_begin("ideal rate: (1 - e^(-k/bpk))^k with LevelDB's k, bpk 1..5000");
	for (b = 1; b <= 5000; b++)
		check(ref_close(bloom_ideal_fpr(b), ref_expected_fpr(b), 1e-9),
			  "bpk %" PRId64 ": %.17g, want %.17g", b, bloom_ideal_fpr(b),
			  ref_expected_fpr(b));
	test_end();

	/* 1 - exp(-x) loses digits for tiny x: only a loose cross-check */
	test_begin("ideal rate, large bits_per_key: the same formula, and k = 30");
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		check(ref_close(bloom_ideal_fpr(big[i]), ref_expected_fpr(big[i]), 1e-5) &&
			  ref_k(big[i]) == 30,
			  "bpk %" PRId64 ": %.17g, want %.17g", big[i],
			  bloom_ideal_fpr(big[i]), ref_expected_fpr(big[i]));
	test_end();

	test_begin("the ideal rate never rises with bits_per_key (0..100000)");
	prev = bloom_ideal_fpr(0);
	for (b = 1; b <= 100000; b++)
	{
		double		r = bloom_ideal_fpr(b);

		check(r <= prev && r > 0 && r < 1, "bpk %" PRId64 ": %.17g after %.17g",
			  b, r, prev);
		prev = r;
	}
	test_end();

	/*
	 * The expected rate is LevelDB's scheme measured (test/stats checks it
	 * against real keys): at 10 bits a key and 10^6 keys 1.25-1.30%, not
	 * the ideal 0.84%.
	 */
	test_begin("expected rate: the table's, above the ideal, never below the hash collisions");
	check(bloom_expected_fpr(10) > 0.0115 && bloom_expected_fpr(10) < 0.0140,
		  "bpk 10: %g", bloom_expected_fpr(10));
	for (b = 1; b <= 100000; b++)
	{
		double		r = bloom_expected_fpr(b);

		check(r >= bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS) &&
			  r >= 0.9 * bloom_ideal_fpr(b) && r < 1,
			  "bpk %" PRId64 ": %.17g (ideal %.17g)", b, r, bloom_ideal_fpr(b));
		if (b <= BLOOM_SCHEME_TABLE_MAX_BPK)
			check(r == bloom_scheme_table[b - 1][9] &&
				  bloom_scheme_table_counts[9] == BLOOM_EXPECTED_FPR_KEYS,
				  "bpk %" PRId64 ": %.17g is not the table's", b, r);
	}
	test_end();

	test_begin("past the table the expected rate never rises (21..100000)");
	prev = bloom_expected_fpr(BLOOM_SCHEME_TABLE_MAX_BPK);
	for (b = BLOOM_SCHEME_TABLE_MAX_BPK + 1; b <= 100000; b++)
	{
		double		r = bloom_expected_fpr(b);

		check(r <= prev, "bpk %" PRId64 ": %.17g after %.17g", b, r, prev);
		prev = r;
	}
	test_end();

	test_begin("bits_per_key for the rate of b is at most b, and minimal");
	for (b = 1; b <= 5000; b++)
	{
		double		target = bloom_expected_fpr(b);
		int64_t		got = bloom_bits_per_key_for_fpr(target);
		int64_t		j;
		bool		minimal = true;

		if (target <= bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS))
		{
			/* the rate has rounded onto the collisions: no bpk reaches it */
			check(got == BLOOM_BPK_UNREACHABLE, "bpk %" PRId64 ": got %" PRId64,
				  b, got);
			continue;
		}
		for (j = 0; j < got && j < 100; j++)
			minimal = minimal && bloom_expected_fpr(j) > target;
		check(got >= 1 && got <= b && bloom_expected_fpr(got) <= target &&
			  minimal && bloom_expected_fpr(got - 1) > target,
			  "bpk %" PRId64 " (rate %.17g): got %" PRId64, b, target, got);
	}
	test_end();

	test_begin("random targets 1e-230..1: the smallest bits_per_key, or none below the collisions");
	for (round = 0; round < 2000; round++)
	{
		double		target = pow(10, -230.0 * (double) (rng_next() % 1000001) / 1e6);
		int64_t		got;

		if (target >= 1)
			continue;
		got = bloom_bits_per_key_for_fpr(target);
		if (target <= bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS))
			check(got == BLOOM_BPK_UNREACHABLE, "target %.17g: got %" PRId64,
				  target, got);
		else
			check(got >= 1 && got <= INT32_MAX &&
				  bloom_expected_fpr(got) <= target &&
				  bloom_expected_fpr(got - 1) > target,
				  "target %.17g: got %" PRId64, target, got);
	}
	test_end();

	/*
	 * Measured on 10^6 md5-like keys (test/stats): 10 bits a key give 1.30%
	 * and 11 give 0.78%; 15 give 0.14%, 16 give 0.097%.
	 */
	test_begin("known answers: 1%% needs 11 bits a key, 0.1%% needs 16");
	check(bloom_bits_per_key_for_fpr(0.01) == 11, "1%%: %" PRId64,
		  bloom_bits_per_key_for_fpr(0.01));
	check(bloom_bits_per_key_for_fpr(0.001) == 16, "0.1%%: %" PRId64,
		  bloom_bits_per_key_for_fpr(0.001));
	check(bloom_bits_per_key_for_fpr(0.9999) == 1, "99.99%%: %" PRId64,
		  bloom_bits_per_key_for_fpr(0.9999));
	test_end();

	test_begin("rates at or below 10^6 keys' hash collisions are unreachable");
	{
		double		floor_rate = bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS);

		check(floor_rate > 2.3e-4 && floor_rate < 2.4e-4, "floor %g", floor_rate);
		check(bloom_bits_per_key_for_fpr(floor_rate) == BLOOM_BPK_UNREACHABLE,
			  "at the floor: %" PRId64, bloom_bits_per_key_for_fpr(floor_rate));
		check(bloom_bits_per_key_for_fpr(floor_rate * 1.01) > BLOOM_SCHEME_TABLE_MAX_BPK,
			  "just above the floor: %" PRId64,
			  bloom_bits_per_key_for_fpr(floor_rate * 1.01));
		check(bloom_bits_per_key_for_fpr(1e-300) == BLOOM_BPK_UNREACHABLE,
			  "1e-300: %" PRId64, bloom_bits_per_key_for_fpr(1e-300));
	}
	test_end();

	group_end();
}
