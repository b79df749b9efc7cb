/*
 * test_keys.c
 *		Unit tests of the core: typed keys (bloom_keys.h).
 */
#include "unit.h"

/* v's n bytes, most significant first, by division: no shift, no cast to bytes. */
static void
put_be_by_division(uint64_t v, uint8_t *out, int n)
{
	int			i;

	for (i = n - 1; i >= 0; i--)
	{
		out[i] = (uint8_t) (v % 256);
		v /= 256;
	}
}

/* The signed value's two's complement, computed without converting it. */
static uint64_t
twos_complement(int64_t v)
{
	return v >= 0 ? (uint64_t) v : UINT64_MAX - (uint64_t) (-(v + 1));
}

void
test_typed_keys(void)
{
	static const int64_t edges[] = {
		0, 1, -1, 2, -2, 127, 128, -128, -129, 255, 256, -256, 32767, 32768,
		-32768, -32769, 65535, 65536, 2147483647, INT64_C(2147483648),
		-2147483647 - 1, INT64_C(-2147483649), INT64_C(4294967295),
		INT64_C(4294967296), INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
	};
	const size_t nedges = sizeof(edges) / sizeof(edges[0]);
	const size_t nrandom = 200000;
	uint8_t		want[BLOOM_FIELD_HEADER_BYTES + 70000];
	uint8_t		buf[BLOOM_FIELD_HEADER_BYTES + 70000 + 8];
	size_t		i;

	group_begin("typed keys");

	/*
	 * Values of every magnitude: the edges, then random 64-bit values
	 * shifted right by a random amount and given a random sign.
	 */
	test_begin("bloom_int_key_hash(v) is the hash of v's 8 bytes, most significant first");
	for (i = 0; i < nedges + nrandom; i++)
	{
		int64_t		v;
		uint8_t		be[8];
		uint32_t	want_hash;

		if (i < nedges)
			v = edges[i];
		else
		{
			uint64_t	r = rng_next() >> (rng_next() % 64);

			v = (rng_next() & 1) ? (int64_t) r : -(int64_t) (r >> 1) - 1;
		}
		put_be_by_division(twos_complement(v), be, 8);
		want_hash = ref_hash(be, 8, UINT32_C(0xbc9f1d34));
		if (!check(bloom_int_key_hash(v) == want_hash,
				   "%" PRId64 ": %08x, the hash of %s is %08x", v,
				   bloom_int_key_hash(v), hexs(be, 8), want_hash))
			break;
		if (!check(bloom_key_hash(be, 8) == want_hash,
				   "bloom_key_hash of %s is %08x, Hash() %08x", hexs(be, 8),
				   bloom_key_hash(be, 8), want_hash))
			break;
	}
	test_end();

	test_begin("bloom_int_key_bytes(v) writes v's 8 bytes, most significant first");
	for (i = 0; i < nedges + nrandom; i++)
	{
		int64_t		v = i < nedges ? edges[i] : (int64_t) rng_next();
		uint8_t		be[8];

		put_be_by_division(twos_complement(v), be, 8);
		memset(buf, 0x5a, 16);
		bloom_int_key_bytes(v, buf);
		if (!check(memcmp(buf, be, 8) == 0 && buf[8] == 0x5a,
				   "%" PRId64 ": %s, expected %s", v, hexs(buf, 9), hexs(be, 8)))
			break;
	}
	test_end();

	test_begin("bloom_uuid_key_hash(u) is the hash of u's 16 bytes, at any alignment");
	for (i = 0; i < 2 + nrandom / 8; i++)
	{
		uint8_t		u[16];
		uint32_t	want_hash;
		size_t		b,
					off;

		for (b = 0; b < 16; b++)
			u[b] = i == 0 ? 0x00 : i == 1 ? 0xff : (uint8_t) rng_next();
		want_hash = ref_hash(u, 16, UINT32_C(0xbc9f1d34));
		for (off = 0; off < 8; off++)
		{
			memset(buf, 0xa5, 32);
			memcpy(buf + off, u, 16);
			if (!check(bloom_uuid_key_hash(buf + off) == want_hash,
					   "%s at offset %zu: %08x, expected %08x", hexs(u, 16), off,
					   bloom_uuid_key_hash(buf + off), want_hash))
				break;
		}
	}
	test_end();

	/* lengths whose 4 bytes each have something to carry */
	test_begin("bloom_put_field writes the length, 4 bytes most significant first, then the bytes");
	{
		static const uint32_t lens[] = {0, 1, 2, 3, 4, 8, 16, 127, 128, 255, 256, 257,
		1000, 65535, 65536, 65537, 69999};
		uint8_t    *value = xcalloc(70000);
		size_t		l;

		rng_bytes(value, 70000);
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]) + 200; l++)
		{
			uint32_t	len = l < sizeof(lens) / sizeof(lens[0]) ? lens[l] :
				(uint32_t) (rng_next() % 300);
			size_t		n;

			put_be_by_division(len, want, 4);
			memcpy(want + 4, value, len);
			memset(buf, 0x5a, 4 + (size_t) len + 8);
			n = bloom_put_field(buf, value, len);
			if (!check(n == 4 + (size_t) len, "length %u: returned %zu", len, n) ||
				!check(memcmp(buf, want, 4 + (size_t) len) == 0,
					   "length %u: wrote %s, expected %s", len,
					   hexs(buf, 4 + (size_t) len), hexs(want, 4 + (size_t) len)) ||
				!check(buf[4 + len] == 0x5a, "length %u: wrote past the field", len))
				break;
		}
		free(value);
	}
	test_end();

	test_begin("bloom_put_null_field writes ff ff ff ff and nothing else");
	{
		size_t		n;

		memset(buf, 0x5a, 8);
		n = bloom_put_null_field(buf);
		check(n == 4, "returned %zu", n);
		check(buf[0] == 0xff && buf[1] == 0xff && buf[2] == 0xff && buf[3] == 0xff &&
			  buf[4] == 0x5a, "wrote %s", hexs(buf, 8));
	}
	test_end();

	/*
	 * Fields one after another: the lengths are what keep ('ab', 'c'),
	 * ('a', 'bc') and ('abc', NULL) apart.
	 */
	test_begin("fields written one after another are the concatenation of their encodings");
	{
		static const char *const parts[][2] = {{"ab", "c"}, {"a", "bc"}, {"abc", NULL}, {"", "abc"}};
		uint8_t		keys[4][32];
		size_t		lens[4],
					a,
					b;

		for (a = 0; a < 4; a++)
		{
			uint8_t    *p = keys[a];
			size_t		f;

			for (f = 0; f < 2; f++)
				p += parts[a][f] == NULL ? bloom_put_null_field(p) :
					bloom_put_field(p, parts[a][f], (uint32_t) strlen(parts[a][f]));
			lens[a] = (size_t) (p - keys[a]);
			check(lens[a] == 8 + 3, "key %zu: %zu bytes", a, lens[a]);
		}
		check(memcmp(keys[0], "\0\0\0\2ab\0\0\0\1c", 11) == 0, "('ab', 'c'): %s",
			  hexs(keys[0], lens[0]));
		check(memcmp(keys[2], "\0\0\0\3abc\xff\xff\xff\xff", 11) == 0,
			  "('abc', NULL): %s", hexs(keys[2], lens[2]));
		for (a = 0; a < 4; a++)
			for (b = 0; b < a; b++)
				check(memcmp(keys[a], keys[b], 11) != 0, "keys %zu and %zu are equal", a, b);
	}
	test_end();

	group_end();
}
