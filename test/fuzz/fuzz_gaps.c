/*
 * fuzz_gaps.c
 *		libFuzzer target: the Rice code of sorted hash sets (bloom_gaps.h).
 *
 * Input: one byte r (taken modulo 32), two bytes n (little-endian, at most
 * 65535), then the rest.  The rest is used twice:
 *	- as a code of n hashes with parameter r: bloom_gaps_decode must read
 *	  nothing past it (it is a block of exactly its size), and when it
 *	  accepts it the hashes must increase strictly and bloom_gaps_encode
 *	  must give the same bytes back (every accepted code is canonical),
 *	  and bloom_gaps_decode_prefix must give its first hashes, for any
 *	  count up to n; a prefix decode reads nothing past the code either;
 *	  a reader taking it in parts of 1 to 8 hashes accepts exactly the
 *	  codes decoded at once, with the same hashes, and so does
 *	  bloom_gaps_check;
 *	- as 4-byte hashes: sorted and made distinct, coded with a parameter of
 *	  at least 12 (so the code stays under a few MB), decoded back equal,
 *	  within bloom_gaps_max_bytes.
 */
#include "bloom_gaps.h"
#include "bloom_sort.h"
#include "fuzz_common.h"

#include <stdlib.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The n hashes of a code taken by a reader, part hashes at a time. */
static bloom_status
decode_in_parts(const uint8_t *code, size_t size, uint64_t n, unsigned r,
				uint64_t part, uint32_t *out)
{
	bloom_gaps_reader reader;

	bloom_gaps_reader_init(&reader, code, size, r);
	for (uint64_t done = 0; done < n; done += part)
	{
		bloom_status st = bloom_gaps_reader_take(&reader, n - done < part ? n - done : part,
												 out + done);

		if (st != BLOOM_OK)
			return st;
	}
	return bloom_gaps_reader_end(&reader);
}

static void
decode_case(unsigned r, uint64_t n, const uint8_t *data, size_t size)
{
	uint8_t    *code = fuzz_dup(data, size);
	uint32_t   *out = (uint32_t *) fuzz_alloc((n + 1) * sizeof(uint32_t));
	uint32_t   *parts = (uint32_t *) fuzz_alloc((n + 1) * sizeof(uint32_t));
	bloom_status st = bloom_gaps_decode(code, size, n, r, out);
	bloom_status in_parts = decode_in_parts(code, size, n, r, 1 + size % 8, parts);

	FUZZ_CHECK(bloom_gaps_check(code, size, n, r) == st,
			   "checked otherwise than decoded (%d)", (int) st);
	FUZZ_CHECK(in_parts == st && (st != BLOOM_OK || n == 0 ||
								  memcmp(parts, out, n * sizeof(uint32_t)) == 0),
			   "in parts of %zu hashes: status %d, at once %d, or other hashes",
			   1 + size % 8, (int) in_parts, (int) st);
	free(parts);
	if (st == BLOOM_OK)
	{
		/* the unary bits sum to the last hash >> r: a bound that fits it */
		uint64_t	bound = (n * (r + 1) + (n ? (uint64_t) out[n - 1] >> r : 0) + 7) / 8 + 8;
		uint8_t    *again = fuzz_alloc(bound);
		size_t		len = bloom_gaps_encode(out, n, r, again);

		for (uint64_t i = 1; i < n; i++)
			FUZZ_CHECK(out[i] > out[i - 1], "hash %llu does not increase",
					   (unsigned long long) i);
		FUZZ_CHECK(len == size && (size == 0 || memcmp(again, code, size) == 0),
				   "accepted %zu bytes, which re-encode to %zu others", size, len);
		free(again);
		{
			uint64_t	m = n / 2 + (n % 3);
			uint32_t   *prefix = (uint32_t *) fuzz_alloc((m + 1) * sizeof(uint32_t));

			if (m > n)
				m = n;
			FUZZ_CHECK(bloom_gaps_decode_prefix(code, size, m, r, prefix) == BLOOM_OK &&
					   (m == 0 || memcmp(prefix, out, m * sizeof(uint32_t)) == 0),
					   "the first %llu of %llu hashes decode differently alone",
					   (unsigned long long) m, (unsigned long long) n);
			free(prefix);
		}
	}
	else
	{
		FUZZ_CHECK(st == BLOOM_ERR_GAPS_CODE, "status %d", (int) st);
		/* a prefix of a bad code: any status, but no read past it (ASan) */
		(void) bloom_gaps_decode_prefix(code, size, n / 2, r, out);
	}
	free(out);
	free(code);
}

static void
encode_case(unsigned r, const uint8_t *data, size_t size)
{
	uint64_t	n = size / 4,
				m;
	uint32_t   *hashes = (uint32_t *) fuzz_alloc((n + 1) * sizeof(uint32_t));
	uint32_t   *back = (uint32_t *) fuzz_alloc((n + 1) * sizeof(uint32_t));
	uint8_t    *code;
	size_t		len;

	/* the distinct hashes in order, as the aggregate's state codes them */
	for (uint64_t i = 0; i < n; i++)
		hashes[i] = (uint32_t) fuzz_le(data + 4 * i, 4);
	m = bloom_sort_unique_hashes(hashes, (size_t) n, back);
	code = fuzz_alloc(bloom_gaps_max_bytes(m, r));
	len = bloom_gaps_encode(hashes, m, r, code);
	FUZZ_CHECK(len <= bloom_gaps_max_bytes(m, r), "%zu bytes over the bound", len);
	FUZZ_CHECK(bloom_gaps_decode(code, len, m, r, back) == BLOOM_OK &&
			   (m == 0 || memcmp(back, hashes, m * sizeof(uint32_t)) == 0),
			   "%llu hashes at r %u do not come back", (unsigned long long) m, r);
	free(code);
	free(back);
	free(hashes);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned	r;
	uint64_t	n;

	if (size < 3)
		return 0;
	r = data[0] % 32;
	n = fuzz_le(data + 1, 2);
	decode_case(r, n, data + 3, size - 3);
	encode_case(r < 12 ? 12 + r % 20 : r, data + 3, size - 3);
	return 0;
}
