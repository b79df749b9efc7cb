/*
 * fuzz_probe.c
 *		libFuzzer target: validation and probing of arbitrary filter bytes.
 *
 * Input: a 2-byte little-endian key length L, then L key bytes (fewer if
 * the input ends), then the filter: any bytes at all.
 *
 * Checked, against the plain references of fuzz_common.h:
 *	- bloom_validate accepts exactly what LevelDB's CreateFilter can write
 *	  (at least 2 bytes, final byte 1..30) and names the right rule;
 *	- bloom_may_contain and bloom_may_contain_hash give KeyMayMatch's
 *	  answer for the key, and for a hash taken straight from the input;
 *	- bloom_key_hash is LevelDB's Hash;
 *	- after setting a key's bits in a valid filter, the key matches.
 * Key and filter each live in a block of exactly their size, so that any
 * read outside them is an AddressSanitizer report.
 */
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		keylen = 0;
	size_t		filterlen;
	uint8_t    *key;
	uint8_t    *filter;
	uint32_t	h;
	uint32_t	raw_hash = 0;
	bloom_status st;
	bool		got;
	int			want;

	if (size >= 2)
	{
		keylen = (size_t) fuzz_le(data, 2);
		data += 2;
		size -= 2;
	}
	if (keylen > size)
		keylen = size;
	key = fuzz_dup(data, keylen);
	filterlen = size - keylen;
	filter = fuzz_dup(data + keylen, filterlen);

	/* validation */
	st = bloom_validate(filter, filterlen);
	FUZZ_CHECK(st == ref_validate(filter, filterlen),
			   "bloom_validate says %d for %zu bytes", (int) st, filterlen);
	FUZZ_CHECK(bloom_status_message(st) != NULL, "no message for %d", (int) st);

	/* the hash and the probe, for the key */
	h = bloom_key_hash(key, keylen);
	FUZZ_CHECK(h == ref_bloom_hash(key, keylen),
			   "hash %08x of a %zu-byte key, reference %08x", h, keylen,
			   ref_bloom_hash(key, keylen));
	got = bloom_may_contain(filter, filterlen, key, keylen);
	want = ref_key_may_match(key, keylen, filter, filterlen);
	FUZZ_CHECK(got == (want != 0),
			   "KeyMayMatch: core %d, reference %d (filter %zu bytes, k byte %d)",
			   (int) got, want, filterlen,
			   filterlen ? filter[filterlen - 1] : -1);

	/* ... and for any hash, taken from the key's first bytes */
	if (keylen >= 4)
		raw_hash = (uint32_t) fuzz_le(key, 4);
	got = bloom_may_contain_hash(filter, filterlen, raw_hash);
	want = ref_may_match_hash(raw_hash, filter, filterlen);
	FUZZ_CHECK(got == (want != 0),
			   "KeyMayMatch of hash %08x: core %d, reference %d",
			   raw_hash, (int) got, want);

	/* a valid filter holding the key's bits matches the key */
	if (st == BLOOM_OK)
	{
		bloom_set_hash(filter, (uint64_t) (filterlen - 1) * 8,
					   filter[filterlen - 1], h);
		FUZZ_CHECK(bloom_validate(filter, filterlen) == BLOOM_OK,
				   "setting bits changed the k byte");
		FUZZ_CHECK(bloom_may_contain(filter, filterlen, key, keylen),
				   "key does not match after its bits were set");
		FUZZ_CHECK(ref_key_may_match(key, keylen, filter, filterlen),
				   "reference: key does not match after its bits were set");
	}

	free(key);
	free(filter);
	return 0;
}
