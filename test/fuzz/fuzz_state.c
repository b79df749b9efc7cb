/*
 * fuzz_state.c
 *		libFuzzer target: the serialized bloom_agg state (bloom_state.h).
 *
 * The input is a serialized state, any bytes at all.  Checked:
 *	- bloom_state_check gives the status a plain reading of the layout
 *	  gives (length, version, flags/reserved, bits_per_key, counts), and on
 *	  success the header fields as stored;
 *	- a version 2 state's code either fails to decode, or decodes to
 *	  strictly increasing hashes that bloom_state_v2_write turns back into
 *	  the input byte for byte (one accepted form per state), and
 *	  bloom_state_check_code, which lets the hashes go, says the same;
 *	- on success every hash can be read with bloom_state_hash_at (the input
 *	  is a block of exactly its size, so a count that overstates the length
 *	  is an AddressSanitizer report), and writing the header back with
 *	  bloom_state_write_header reproduces the input byte for byte;
 *	- bloom_state_size is 16 + 4n, or 0 exactly when that overflows;
 *	- a header built from the input's first bytes (any bits_per_key, a
 *	  small count) survives write, check, read.
 */
#include "bloom_state.h"
#include "fuzz_common.h"

/* bloom_gaps_rice_param and bloom_gaps_max_bytes, restated */
static unsigned
ref_rice_param(uint64_t n)
{
	unsigned	r = 31;

	while (n > 1 && r > 0 && (double) n * (double) ((uint64_t) 1 << r) * 0.6931471805599453 >
		   4294967296.0)
		r--;
	return r;
}

static bloom_status
ref_state_check_v2(const uint8_t *b, size_t len, uint64_t *nkeys, uint64_t *d)
{
	unsigned __int128 code = len - 24;
	unsigned	r;

	if (len < 24)
		return BLOOM_ERR_STATE_TOO_SHORT;
	*nkeys = fuzz_le(b + 8, 8);
	*d = fuzz_le(b + 16, 8);
	if (*d > *nkeys || *d > (UINT64_C(1) << 32) || (*d == 0) != (*nkeys == 0))
		return BLOOM_ERR_STATE_COUNT;
	if (*d == 0)
		return code == 0 ? BLOOM_OK : BLOOM_ERR_STATE_COUNT;
	r = ref_rice_param(*d);
	if (code > ((unsigned __int128) *d * (r + 1) + (((uint64_t) 1 << 32) >> r) + 7) / 8 + 8 ||
		code * 8 < (unsigned __int128) *d * (r + 1))
		return BLOOM_ERR_STATE_COUNT;
	return BLOOM_OK;
}

static bloom_status
ref_state_check(const uint8_t *b, size_t len, int32_t *bpk, uint64_t *n,
				uint64_t *nkeys)
{
	if (len < 16)
		return BLOOM_ERR_STATE_TOO_SHORT;
	if (b[0] != 1 && b[0] != 2)
		return BLOOM_ERR_STATE_VERSION;
	if (b[1] | b[2] | b[3])
		return BLOOM_ERR_STATE_RESERVED;
	*bpk = (int32_t) (uint32_t) fuzz_le(b + 4, 4);
	if (*bpk < 0)
		return BLOOM_ERR_NEGATIVE_BITS_PER_KEY;
	if (b[0] == 2)
		return ref_state_check_v2(b, len, nkeys, n);
	*n = *nkeys = fuzz_le(b + 8, 8);
	/* 128-bit arithmetic: no forged count can overflow it */
	if ((unsigned __int128) 16 + (unsigned __int128) 4 * *n != len)
		return BLOOM_ERR_STATE_COUNT;
	return BLOOM_OK;
}

static void
check_input(const uint8_t *data, size_t size)
{
	uint8_t    *bytes = fuzz_dup(data, size);
	bloom_state_header hdr = {-1, -1, UINT64_MAX, UINT64_MAX, 0, 0};
	int32_t		bpk = 0;
	uint64_t	n = 0;
	uint64_t	nkeys = 0;
	bloom_status st = bloom_state_check(bytes, size, &hdr);
	bloom_status want = ref_state_check(bytes, size, &bpk, &n, &nkeys);
	uint8_t    *copy;
	uint64_t	sum = 0;

	FUZZ_CHECK(st == want, "bloom_state_check says %d, reference %d for %zu bytes",
			   (int) st, (int) want, size);
	if (st != BLOOM_OK)
	{
		free(bytes);
		return;
	}
	FUZZ_CHECK(hdr.bits_per_key == bpk && hdr.nhashes == n && hdr.nkeys == nkeys &&
			   hdr.version == bytes[0],
			   "header bpk %d n %llu, stored bpk %d n %llu", hdr.bits_per_key,
			   (unsigned long long) hdr.nhashes, bpk, (unsigned long long) n);
	if (hdr.version == 2)
	{
		uint32_t   *hashes = (uint32_t *) (void *) fuzz_alloc((size_t) (hdr.nhashes + 1) * 4);
		uint8_t    *again;

		st = bloom_state_read_hashes(bytes, &hdr, hashes);
		FUZZ_CHECK(bloom_state_check_code(bytes, &hdr) == st,
				   "checked otherwise than read (%d)", (int) st);
		if (st == BLOOM_OK)
		{
			for (uint64_t i = 1; i < hdr.nhashes; i++)
				FUZZ_CHECK(hashes[i] > hashes[i - 1], "decoded hashes not increasing");
			again = fuzz_alloc((size_t) bloom_state_v2_max_size(hdr.nhashes));
			FUZZ_CHECK(bloom_state_v2_write(again, hdr.bits_per_key, hdr.nkeys,
											hashes, hdr.nhashes) == size &&
					   memcmp(again, bytes, size) == 0,
					   "a decoded version 2 state is written back differently");
			free(again);
		}
		else
			FUZZ_CHECK(st == BLOOM_ERR_GAPS_CODE, "decoding said %d", (int) st);
		free(hashes);
		free(bytes);
		return;
	}
	FUZZ_CHECK(bloom_state_size(hdr.nhashes) == size,
			   "bloom_state_size %llu for %zu bytes",
			   (unsigned long long) bloom_state_size(hdr.nhashes), size);

	copy = fuzz_alloc(size);
	bloom_state_write_header(copy, &hdr);
	for (uint64_t i = 0; i < hdr.nhashes; i++)
	{
		uint32_t	h = bloom_state_hash_at(bytes + BLOOM_STATE_HEADER_BYTES, i);

		FUZZ_CHECK(h == (uint32_t) fuzz_le(bytes + 16 + 4 * i, 4),
				   "hash %llu read as %08x", (unsigned long long) i, h);
		for (int b = 0; b < 4; b++)
			copy[16 + 4 * i + b] = (uint8_t) (h >> (8 * b));
		sum += h;
	}
	FUZZ_CHECK(memcmp(copy, bytes, size) == 0,
			   "rewriting the state changed it (hash sum %llu)",
			   (unsigned long long) sum);
	free(copy);
	free(bytes);
}

static void
check_size_and_header(const uint8_t *data, size_t size)
{
	uint64_t	n;
	uint64_t	s;
	bloom_state_header hdr;
	bloom_state_header back = {0, 0, 0, 0, 0, 0};
	uint8_t    *buf;
	size_t		len;
	bloom_status st;

	if (size < 12)
		return;

	/* bloom_state_size over the whole 64-bit range */
	n = fuzz_le(data + 4, 8);
	s = bloom_state_size(n);
	if (n > (UINT64_MAX - 16) / 4)
		FUZZ_CHECK(s == 0, "bloom_state_size(%llu) = %llu, expected overflow",
				   (unsigned long long) n, (unsigned long long) s);
	else
		FUZZ_CHECK(s == 16 + 4 * n, "bloom_state_size(%llu) = %llu",
				   (unsigned long long) n, (unsigned long long) s);

	/* write, check, read for any bits_per_key and a small count */
	hdr.bits_per_key = (int32_t) (uint32_t) fuzz_le(data, 4);
	hdr.nhashes = n % 64;
	len = (size_t) bloom_state_size(hdr.nhashes);
	buf = fuzz_alloc(len);
	bloom_state_write_header(buf, &hdr);
	for (size_t i = BLOOM_STATE_HEADER_BYTES; i < len; i++)
		buf[i] = data[i % size];
	st = bloom_state_check(buf, len, &back);
	if (hdr.bits_per_key < 0)
		FUZZ_CHECK(st == BLOOM_ERR_NEGATIVE_BITS_PER_KEY,
				   "bits_per_key %d accepted (status %d)", hdr.bits_per_key, (int) st);
	else
		FUZZ_CHECK(st == BLOOM_OK && back.bits_per_key == hdr.bits_per_key &&
				   back.nhashes == hdr.nhashes,
				   "written header (bpk %d, n %llu) read back as status %d bpk %d n %llu",
				   hdr.bits_per_key, (unsigned long long) hdr.nhashes, (int) st,
				   back.bits_per_key, (unsigned long long) back.nhashes);
	/* one byte less or more is a count mismatch */
	if (hdr.bits_per_key >= 0)
		FUZZ_CHECK(bloom_state_check(buf, len - 1, &back) ==
				   (len - 1 < 16 ? BLOOM_ERR_STATE_TOO_SHORT : BLOOM_ERR_STATE_COUNT),
				   "a state one byte short was not refused");
	free(buf);
}

FUZZ_TARGET_OF(check_input, check_size_and_header)
