/*
 * test_state.c
 *		Unit tests of the core: the aggregate state's binary forms.
 */
#include "unit.h"

static void
put_le64(uint8_t *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t) v;
}

void
test_state(void)
{
	uint8_t		buf[BLOOM_STATE_HEADER_BYTES + 4 * 8];
	bloom_state_header h,
				got;
	bloom_status st;
	size_t		len;
	int			i;
	static const int32_t bpks[] = {0, 1, 10, 100, INT32_MAX};

	group_begin("aggregate state");

	test_begin("header layout is little-endian as documented");
	h.bits_per_key = 0x01020304;
	h.nhashes = UINT64_C(0x0102030405060708);
	memset(buf, 0xee, sizeof(buf));
	bloom_state_write_header(buf, &h);
	{
		static const uint8_t want[BLOOM_STATE_HEADER_BYTES] = {
			1, 0, 0, 0, 4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1,
		};

		check(memcmp(buf, want, sizeof(want)) == 0, "header %s",
			  hexs(buf, BLOOM_STATE_HEADER_BYTES));
		check(buf[BLOOM_STATE_HEADER_BYTES] == 0xee, "wrote past the header");
	}
	test_end();

	test_begin("hash_at reads little-endian words");
	{
		static const uint8_t words[8] = {1, 2, 3, 4, 0xff, 0, 0, 0x80};

		check(bloom_state_hash_at(words, 0) == UINT32_C(0x04030201) &&
			  bloom_state_hash_at(words, 1) == UINT32_C(0x800000ff),
			  "%08" PRIx32 " %08" PRIx32, bloom_state_hash_at(words, 0),
			  bloom_state_hash_at(words, 1));
	}
	test_end();

	test_begin("write then check round trip");
	for (i = 0; i < (int) (sizeof(bpks) / sizeof(bpks[0])); i++)
	{
		uint64_t	n;

		for (n = 0; n <= 8; n++)
		{
			h.bits_per_key = bpks[i];
			h.nhashes = n;
			bloom_state_write_header(buf, &h);
			len = (size_t) bloom_state_size(n);
			memset(&got, 0, sizeof(got));
			st = bloom_state_check(buf, len, &got);
			check(st == BLOOM_OK && got.bits_per_key == h.bits_per_key &&
				  got.nhashes == n,
				  "bpk=%d n=%" PRIu64 ": %s, bpk=%d n=%" PRIu64, bpks[i], n,
				  status_name(st), got.bits_per_key, got.nhashes);
		}
	}
	test_end();

	h.bits_per_key = 10;
	h.nhashes = 2;

	test_begin("truncated header");
	bloom_state_write_header(buf, &h);
	for (len = 0; len < BLOOM_STATE_HEADER_BYTES; len++)
	{
		st = bloom_state_check(buf, len, &got);
		check(st == BLOOM_ERR_STATE_TOO_SHORT, "len %zu: %s", len,
			  status_name(st));
	}
	test_end();

	bloom_state_write_header(buf, &h);
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 7, &got),
				  BLOOM_ERR_STATE_COUNT, "truncated inside the second hash");
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 4, &got),
				  BLOOM_ERR_STATE_COUNT, "one hash fewer than the count");
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 12, &got),
				  BLOOM_ERR_STATE_COUNT, "one hash more than the count");

	test_begin("wrong version");
	for (i = 0; i < 256; i++)
	{
		if (i == BLOOM_STATE_VERSION_HASHES || i == BLOOM_STATE_VERSION_GAPS)
			continue;
		bloom_state_write_header(buf, &h);
		buf[0] = (uint8_t) i;
		st = bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got);
		check(st == BLOOM_ERR_STATE_VERSION, "version %d: %s", i,
			  status_name(st));
	}
	test_end();

	test_begin("any nonzero flag or reserved bit");
	for (i = 8; i < 32; i++)
	{
		bloom_state_write_header(buf, &h);
		buf[i / 8] |= (uint8_t) (1u << (i % 8));
		st = bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got);
		check(st == BLOOM_ERR_STATE_RESERVED, "bit %d of byte %d: %s",
			  i % 8, i / 8, status_name(st));
	}
	test_end();

	h.bits_per_key = -1;
	bloom_state_write_header(buf, &h);
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bits_per_key -1");
	h.bits_per_key = INT32_MIN;
	bloom_state_write_header(buf, &h);
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bits_per_key INT32_MIN");
	h.bits_per_key = 10;

	/* counts whose 4 * n wraps to a length the buffer has */
	test_begin("forged huge counts");
	{
		static const uint64_t forged[] = {
			UINT64_C(1) << 62, (UINT64_C(1) << 62) + 1, (UINT64_C(1) << 62) + 2,
			UINT64_C(1) << 63, (UINT64_C(1) << 63) + 2, UINT64_MAX,
			UINT64_MAX - 3, UINT64_C(1) << 32, (UINT64_C(1) << 30) + 2,
		};
		size_t		f;

		for (f = 0; f < sizeof(forged) / sizeof(forged[0]); f++)
			for (len = BLOOM_STATE_HEADER_BYTES; len <= sizeof(buf); len += 4)
			{
				bloom_state_write_header(buf, &h);
				put_le64(buf + 8, forged[f]);
				st = bloom_state_check(buf, len, &got);
				check(st == BLOOM_ERR_STATE_COUNT,
					  "count %" PRIu64 ", len %zu: %s", forged[f], len,
					  status_name(st));
			}
	}
	test_end();

	test_begin("bloom_state_size");
	check(bloom_state_size(0) == BLOOM_STATE_HEADER_BYTES, "size(0)");
	check(bloom_state_size(3) == BLOOM_STATE_HEADER_BYTES + 12, "size(3)");
	{
		uint64_t	max = (UINT64_MAX - BLOOM_STATE_HEADER_BYTES) / 4;

		check(bloom_state_size(max) == BLOOM_STATE_HEADER_BYTES + 4 * max,
			  "largest size");
		check(bloom_state_size(max + 1) == 0, "size(max + 1) = %" PRIu64,
			  bloom_state_size(max + 1));
	}
	check(bloom_state_size(UINT64_C(1) << 62) == 0, "size(2^62)");
	check(bloom_state_size(UINT64_MAX) == 0, "size(UINT64_MAX)");
	test_end();

	group_end();
}

/*
 * Version 2 states: what bloom_state_v2_write writes is accepted with its
 * counts and decodes to its hashes; every inconsistent header or code is
 * refused with the status that names the rule.
 */
void
test_state_v2(void)
{
	static const uint64_t sizes[] = {0, 1, 2, 5, 1000, 100000};
	uint32_t   *hashes = malloc(100000 * sizeof(uint32_t));
	uint32_t   *back = malloc(100000 * sizeof(uint32_t));
	uint8_t    *buf = malloc((size_t) bloom_state_v2_max_size(100000));
	bloom_state_header got;
	bloom_status st;
	size_t		s,
				len;
	uint64_t	n;

	group_begin("aggregate state, version 2");

	test_begin("write, check and read back random sets, with repeats counted");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint64_t	nkeys;

		n = random_hash_set(hashes, sizes[s]);
		nkeys = n == 0 ? 0 : n * 3 + 1;
		len = bloom_state_v2_write(buf, 17, nkeys, hashes, n);
		check(len <= bloom_state_v2_max_size(n), "%" PRIu64 " hashes: %zu bytes",
			  n, len);
		memset(&got, 0, sizeof(got));
		st = bloom_state_check(buf, len, &got);
		check(st == BLOOM_OK && got.version == 2 && got.bits_per_key == 17 &&
			  got.nkeys == nkeys && got.nhashes == n,
			  "%" PRIu64 " hashes: %s", n, status_name(st));
		if (st != BLOOM_OK)
			continue;
		st = bloom_state_read_hashes(buf, &got, back);
		check(st == BLOOM_OK && memcmp(back, hashes, n * sizeof(uint32_t)) == 0,
			  "%" PRIu64 " hashes read back: %s", n, status_name(st));
		/* any shorter length is refused, by the header or by the code */
		if (n > 0)
		{
			st = bloom_state_check(buf, len - 1, &got);
			if (st == BLOOM_OK)
				st = bloom_state_read_hashes(buf, &got, back);
			check(st != BLOOM_OK, "%" PRIu64 " hashes, a byte short: accepted", n);
		}
	}
	test_end();

	test_begin("header layout is little-endian as documented");
	hashes[0] = UINT32_C(0x15740498) >> 1;	/* any one hash */
	len = bloom_state_v2_write(buf, 0x01020304, UINT64_C(0x0102030405060708),
							   hashes, 1);
	{
		static const uint8_t want[BLOOM_STATE_V2_HEADER_BYTES] = {
			2, 0, 0, 0, 4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1,
			1, 0, 0, 0, 0, 0, 0, 0,
		};

		check(memcmp(buf, want, sizeof(want)) == 0, "header %s",
			  hexs(buf, BLOOM_STATE_V2_HEADER_BYTES));
	}
	test_end();

	/* one valid state of 5 distinct hashes and 9 keys to damage */
	n = random_hash_set(hashes, 5);

#define V2_WITH(nkeys_, ndistinct_, extra_) \
	do { \
		len = bloom_state_v2_write(buf, 10, 9, hashes, n) + (extra_); \
		put_le64(buf + 8, (nkeys_)); \
		put_le64(buf + 16, (ndistinct_)); \
	} while (0)

	V2_WITH(9, 5, 0);
	expect_status(bloom_state_check(buf, 23, &got), BLOOM_ERR_STATE_TOO_SHORT,
				  "v2 header cut short");
	{
		/* counts the code cannot hold, each refused as a count mismatch */
		static const struct
		{
			uint64_t	nkeys;
			uint64_t	ndistinct;
			const char *what;
		}			bad[] = {
			{4, 5, "more distinct hashes than keys"},
			{9, 0, "keys but no hashes"},
			{0, 0, "no keys, with a code"},
			{UINT64_MAX, (UINT64_C(1) << 32) + 1, "2^32 + 1 distinct hashes"},
			{UINT64_MAX, UINT64_C(1) << 32, "2^32 distinct hashes in a few bytes"},
			{1000, 1000, "more hashes than the code has bits for"},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			V2_WITH(bad[i].nkeys, bad[i].ndistinct, 0);
			expect_status(bloom_state_check(buf, len, &got),
						  BLOOM_ERR_STATE_COUNT, "%s", bad[i].what);
		}
	}
	V2_WITH(0, 0, 0);
	expect_status(bloom_state_check(buf, BLOOM_STATE_V2_HEADER_BYTES, &got),
				  BLOOM_OK, "no keys, no code");
	V2_WITH(9, 5, 0);
	buf[len++] = 0;
	st = bloom_state_check(buf, len, &got);
	if (st == BLOOM_OK)
		st = bloom_state_read_hashes(buf, &got, back);
	check(st == BLOOM_ERR_GAPS_CODE, "a byte after the code: %s", status_name(st));
	V2_WITH(9, 6, 0);
	st = bloom_state_check(buf, len, &got);
	if (st == BLOOM_OK)
		st = bloom_state_read_hashes(buf, &got, back);
	check(st != BLOOM_OK, "a hash more than coded: %s", status_name(st));
	V2_WITH(9, 5, 0);
	buf[1] = 1;
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_RESERVED,
				  "v2 flag set");
#undef V2_WITH

	test_begin("max size: 0 past 2^32 hashes");
	check(bloom_state_v2_max_size(0) == BLOOM_STATE_V2_HEADER_BYTES, "empty");
	check(bloom_state_v2_max_size(UINT64_C(1) << 32) != 0, "2^32");
	check(bloom_state_v2_max_size((UINT64_C(1) << 32) + 1) == 0, "2^32 + 1");
	test_end();

	group_end();
	free(buf);
	free(back);
	free(hashes);
}
