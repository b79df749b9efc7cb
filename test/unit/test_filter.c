/*
 * test_filter.c
 *		Unit tests of the core: building and probing filters, and filters of more than 2^32 bits.
 */
#include "unit.h"

static bool
bit_is_set(const uint8_t *a, uint64_t pos)
{
	return (a[pos / 8] >> (pos % 8)) & 1;
}

void
test_build_probe(void)
{
	uint8_t		buf[64];
	uint8_t		a[200],
				b[200];
	uint32_t	hashes[50];
	bloom_geometry g;
	size_t		i,
				len;
	unsigned	k,
				v;
	int			round;

	group_begin("build and probe");

	test_begin("filters of 0 and 1 bytes never match");
	memset(buf, 0xff, sizeof(buf));
	for (i = 0; i < 100; i++)
	{
		uint32_t	h = (uint32_t) rng_next();

		check(!bloom_may_contain_hash(buf, 0, h), "len 0, hash %08x", h);
		for (v = 0; v < 256; v++)
		{
			buf[0] = (uint8_t) v;
			check(!bloom_may_contain_hash(buf, 1, h),
				  "len 1, byte %02x, hash %08x", v, h);
		}
	}
	check(!bloom_may_contain(buf, 0, "", 0) && !bloom_may_contain(buf, 1, "a", 1),
		  "bloom_may_contain on a short filter matched");
	test_end();

	test_begin("k byte 31..255 always matches");
	memset(buf, 0, sizeof(buf));
	for (v = BLOOM_MAX_K + 1; v < 256; v++)
		for (len = 2; len <= 9; len += 7)
		{
			buf[len - 1] = (uint8_t) v;
			for (i = 0; i < 20; i++)
			{
				uint32_t	h = (uint32_t) rng_next();

				check(bloom_may_contain_hash(buf, len, h),
					  "len %zu, k byte %u, hash %08x", len, v, h);
			}
		}
	test_end();

	test_begin("k byte 0 always matches");
	memset(buf, 0, sizeof(buf));
	for (len = 2; len <= 9; len++)
		for (i = 0; i < 20; i++)
		{
			uint32_t	h = (uint32_t) rng_next();

			check(bloom_may_contain_hash(buf, len, h), "len %zu, hash %08x",
				  len, h);
		}
	test_end();

	test_begin("k 1..30: no bit set never matches, all bits set always does");
	for (k = 1; k <= BLOOM_MAX_K; k++)
		for (i = 0; i < 20; i++)
		{
			uint32_t	h = (uint32_t) rng_next();

			memset(buf, 0, 9);
			buf[8] = (uint8_t) k;
			check(!bloom_may_contain_hash(buf, 9, h), "zero bits, k=%u, %08x",
				  k, h);
			memset(buf, 0xff, 8);
			check(bloom_may_contain_hash(buf, 9, h), "all bits, k=%u, %08x",
				  k, h);
		}
	test_end();

	test_begin("bloom_set_hash sets exactly the double-hashing positions");
	for (round = 0; round < 200; round++)
	{
		uint64_t	nbits = 8 * (1 + rng_next() % (sizeof(a) - 1));
		uint32_t	h = (uint32_t) rng_next();

		k = 1 + (unsigned) (rng_next() % BLOOM_MAX_K);
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		ref_add_hash(b, nbits, k, h);
		bloom_set_hash(a, nbits, k, h);
		check(memcmp(a, b, sizeof(a)) == 0, "nbits=%" PRIu64 " k=%u hash=%08x",
			  nbits, k, h);
	}
	test_end();

	test_begin("bloom_build_from_hashes does not depend on the hash order");
	for (round = 0; round < 50; round++)
	{
		size_t		n = rng_next() % 50;

		for (i = 0; i < n; i++)
			hashes[i] = (uint32_t) rng_next();
		if (!check(bloom_geometry_for(n, 1 + (int64_t) (rng_next() % 30), &g)
				   == BLOOM_OK && g.filter_bytes <= sizeof(a), "geometry"))
			break;
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		bloom_build_from_hashes(a, &g, hashes, n);
		for (i = 0; i < n / 2; i++)
		{
			uint32_t	t = hashes[i];

			hashes[i] = hashes[n - 1 - i];
			hashes[n - 1 - i] = t;
		}
		bloom_build_from_hashes(b, &g, hashes, n);
		check(memcmp(a, b, sizeof(a)) == 0, "n=%zu", n);
		for (i = 0; i < n; i++)
			check(bloom_may_contain_hash(a, g.filter_bytes, hashes[i]),
				  "n=%zu: hash %08x not found", n, hashes[i]);
	}
	test_end();

	test_begin("no keys: an empty bit array and the k byte");
	if (check(bloom_geometry_for(0, 10, &g) == BLOOM_OK, "geometry"))
	{
		memset(a, 0, sizeof(a));
		bloom_build_from_hashes(a, &g, NULL, 0);
		for (i = 0; i + 1 < g.filter_bytes; i++)
			check(a[i] == 0, "byte %zu is %02x", i, a[i]);
		check(a[g.filter_bytes - 1] == g.k, "k byte %u, want %u",
			  a[g.filter_bytes - 1], g.k);
		check(a[g.filter_bytes] == 0, "wrote past the filter");
	}
	test_end();

	group_end();
}

/*
 * LevelDB's probe positions are 32-bit sums taken modulo the bit count, so
 * a filter of more than 2^32 bits is only ever touched in its first 2^32
 * bits.  A 2^33-bit filter is mapped with everything between bit 2^32 and
 * the k byte inaccessible: a stray access faults, and the fault is turned
 * into a test failure.  The mapping reserves no memory; only the pages
 * written or read are materialized.
 */
static sigjmp_buf guard_jump;
static volatile sig_atomic_t guard_armed;

static void
guard_handler(int sig)
{
	if (guard_armed)
	{
		guard_armed = 0;
		siglongjmp(guard_jump, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t
popcount_low(const uint8_t *map)
{
	const uint64_t *w = (const uint64_t *) map;
	uint64_t	total = 0;
	size_t		i;

	for (i = 0; i < LOW_BYTES / 8; i++)
		total += (uint64_t) __builtin_popcountll(w[i]);
	return total;
}

/*
 * Check that exactly the 32-bit probe positions of the hashes are set in
 * the first 2^32 bits of map, then clear them again.
 */
static void
check_and_clear_positions(uint8_t *map, const uint32_t *hashes, size_t n,
						  unsigned k)
{
	uint32_t   *pos = xcalloc(n * k * sizeof(uint32_t));
	size_t		npos = 0,
				distinct = 0,
				i;
	unsigned	j;
	uint64_t	set;

	for (i = 0; i < n; i++)
	{
		uint32_t	x = hashes[i];

		for (j = 0; j < k; j++)
		{
			pos[npos++] = x;
			x += ref_delta(hashes[i]);
		}
	}
	qsort(pos, npos, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < npos; i++)
	{
		if (i == 0 || pos[i] != pos[i - 1])
			distinct++;
		check(bit_is_set(map, pos[i]), "bit %" PRIu32 " is not set", pos[i]);
	}
	set = popcount_low(map);
	check(set == distinct, "%" PRIu64 " bits set, expected %zu", set,
		  distinct);
	for (i = 0; i < npos; i++)
		map[pos[i] / 8] = 0;
	free(pos);
}

void
test_big_filter(void)
{
	static const char *const keys[] = {"", "a", "hello", "key-100000"};
	uint32_t	hashes[10];
	size_t		nhashes = 0;
	bloom_geometry g;
	size_t		page,
				maplen,
				kpage,
				i;
	uint8_t    *map;
	struct sigaction sa,
				old_segv,
				old_bus;

	group_begin("filters beyond 2^32 bits");

	/* positions any 64-bit slip would push past bit 2^32 */
	hashes[nhashes++] = 0;
	hashes[nhashes++] = 1;
	hashes[nhashes++] = UINT32_C(0x80000000);
	hashes[nhashes++] = UINT32_C(0xfffffff0);
	hashes[nhashes++] = UINT32_C(0xffffffff);
	hashes[nhashes++] = UINT32_C(0xdeadbeef);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		hashes[nhashes++] = bloom_key_hash(keys[i], strlen(keys[i]));

	test_begin("geometry of 2^30 keys at 8 bits each");
	check(bloom_geometry_for(UINT64_C(1) << 30, 8, &g) == BLOOM_OK &&
		  g.bits == UINT64_C(1) << 33 &&
		  g.filter_bytes == (UINT64_C(1) << 30) + 1 && g.k == ref_k(8),
		  "bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits, g.filter_bytes,
		  g.k);
	test_end();
	if (test_failed)
	{
		group_end();
		return;
	}
	if (sizeof(size_t) < 8)
	{
		printf("SKIP %s: size_t cannot hold a 2^30-byte filter length\n",
			   group_name);
		group_end();
		return;
	}

	page = (size_t) sysconf(_SC_PAGESIZE);
	maplen = ((size_t) g.filter_bytes + page - 1) / page * page;
	kpage = ((size_t) g.filter_bytes - 1) / page * page;
	map = mmap(NULL, maplen, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
	{
		printf("SKIP %s: cannot map %zu bytes of address space: %s\n",
			   group_name, maplen, strerror(errno));
		group_end();
		return;
	}
	if (mprotect(map, LOW_BYTES, PROT_READ | PROT_WRITE) != 0 ||
		mprotect(map + kpage, maplen - kpage, PROT_READ | PROT_WRITE) != 0)
	{
		printf("SKIP %s: mprotect: %s\n", group_name, strerror(errno));
		munmap(map, maplen);
		group_end();
		return;
	}
	/* the few pages written should not each become a 2 MB huge page */
	(void) madvise(map, LOW_BYTES, MADV_NOHUGEPAGE);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guard_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);

	test_begin("building touches only the first 2^32 bits");
	if (sigsetjmp(guard_jump, 1) == 0)
	{
		guard_armed = 1;
		bloom_build_from_hashes(map, &g, hashes, nhashes);
		guard_armed = 0;
		check(map[g.filter_bytes - 1] == g.k, "k byte %u", map[g.filter_bytes - 1]);
		check_and_clear_positions(map, hashes, nhashes, g.k);
	}
	else
		fail("bloom_build_from_hashes accessed a byte beyond bit 2^32");
	test_end();

	test_begin("probing reads only the first 2^32 bits");
	/* set the bits again, through the path just tested */
	for (i = 0; i < nhashes; i++)
		bloom_set_hash(map, g.bits, g.k, hashes[i]);
	if (sigsetjmp(guard_jump, 1) == 0)
	{
		uint32_t	absent = 0;
		bool		found = false;

		guard_armed = 1;
		for (i = 0; i < nhashes; i++)
			check(bloom_may_contain_hash(map, (size_t) g.filter_bytes,
										 hashes[i]),
				  "inserted hash %08" PRIx32 " does not match", hashes[i]);
		/* a hash whose first position is clear cannot match */
		for (i = 0; i < 1000 && !found; i++)
		{
			absent = (uint32_t) rng_next();
			found = !bit_is_set(map, absent);
		}
		if (found)
			check(!bloom_may_contain_hash(map, (size_t) g.filter_bytes, absent),
				  "hash %08" PRIx32 " matches though bit %" PRIu32
				  " is clear", absent, absent);
		guard_armed = 0;
	}
	else
		fail("bloom_may_contain_hash accessed a byte beyond bit 2^32");
	check_and_clear_positions(map, hashes, nhashes, g.k);
	test_end();

	test_begin("bloom_set_hash with 2^64 - 8 bits");
	if (sigsetjmp(guard_jump, 1) == 0)
	{
		guard_armed = 1;
		for (i = 0; i < nhashes; i++)
			bloom_set_hash(map, UINT64_MAX - 7, BLOOM_MAX_K, hashes[i]);
		guard_armed = 0;
		check_and_clear_positions(map, hashes, nhashes, BLOOM_MAX_K);
	}
	else
		fail("bloom_set_hash accessed a byte beyond bit 2^32");
	test_end();

	guard_armed = 0;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	munmap(map, maplen);
	group_end();
}
