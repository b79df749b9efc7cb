/*
 * fuzz_build.c
 *		libFuzzer target: geometry and build from hashes.
 *
 * Input layout:
 *	 0   8  bits_per_key, int64 little-endian (any value)
 *	 8   8  n, uint64 little-endian (any value)
 *	16   1  mode: bit 0 = build at the raw bits_per_key when the filter fits
 *	17   ...keys, each a 1-byte length and that many bytes (the last may be
 *		 cut short by the end of the input)
 *
 * Checked:
 *	- bloom_geometry_for(n, bits_per_key) over the whole 64-bit range against
 *	  a reference in 128-bit arithmetic: the status, the size rounded up to
 *	  bytes with at least 64 bits, k as LevelDB picks it;
 *	- a filter over the keys (geometry for the number of keys plus n mod
 *	  4096 extra, so that sizes vary), at most FUZZ_MAX_FILTER bytes, built
 *	  with bloom_build_from_hashes, is byte for byte the reference build,
 *	  passes bloom_validate, and every inserted key and hash probes true
 *	  through the core and through the reference KeyMayMatch.
 */
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* memory cap of one built filter */
#define FUZZ_MAX_FILTER		((uint64_t) 1 << 20)
#define FUZZ_MAX_KEYS		4096

typedef struct key_ref
{
	uint8_t    *data;
	size_t		len;
} key_ref;

static void
check_geometry(uint64_t n, int64_t bpk)
{
	bloom_geometry g = {0, 0, 0};
	bloom_geometry want;
	bloom_status st = bloom_geometry_for(n, bpk, &g);

	if (bpk < 0)
	{
		FUZZ_CHECK(st == BLOOM_ERR_NEGATIVE_BITS_PER_KEY,
				   "bits_per_key %lld gave status %d", (long long) bpk, (int) st);
		return;
	}
	if (!ref_geometry(n, bpk, &want))
	{
		FUZZ_CHECK(st == BLOOM_ERR_SIZE_OVERFLOW,
				   "n %llu bpk %lld: status %d, expected overflow",
				   (unsigned long long) n, (long long) bpk, (int) st);
		return;
	}
	FUZZ_CHECK(st == BLOOM_OK, "n %llu bpk %lld: status %d",
			   (unsigned long long) n, (long long) bpk, (int) st);
	FUZZ_CHECK(g.bits == want.bits &&
			   g.filter_bytes == g.bits / 8 + 1 && g.k == ref_k(bpk) &&
			   g.k >= 1 && g.k <= BLOOM_MAX_K,
			   "n %llu bpk %lld: bits %llu bytes %llu k %u",
			   (unsigned long long) n, (long long) bpk,
			   (unsigned long long) g.bits, (unsigned long long) g.filter_bytes, g.k);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t		bpk;
	uint64_t	n;
	uint8_t		mode;
	key_ref    *keys;
	uint32_t   *hashes;
	size_t		nkeys = 0;
	size_t		pos;
	bloom_geometry g;
	int64_t		build_bpk;
	uint8_t    *filter;
	uint8_t    *ref;

	if (size < 17)
		return 0;
	bpk = (int64_t) fuzz_le(data, 8);
	n = fuzz_le(data + 8, 8);
	mode = data[16];

	check_geometry(n, bpk);
	check_geometry(n, bpk & 0xff);
	check_geometry(n >> 32, bpk);

	keys = calloc(FUZZ_MAX_KEYS, sizeof(key_ref));
	hashes = calloc(FUZZ_MAX_KEYS, sizeof(uint32_t));
	if (keys == NULL || hashes == NULL)
		abort();
	for (pos = 17; pos < size && nkeys < FUZZ_MAX_KEYS; nkeys++)
	{
		size_t		len = data[pos++];

		if (len > size - pos)
			len = size - pos;
		keys[nkeys].data = fuzz_dup(data + pos, len);
		keys[nkeys].len = len;
		hashes[nkeys] = bloom_key_hash(keys[nkeys].data, len);
		pos += len;
	}

	/* a filter at the raw bits_per_key if asked and small enough ... */
	build_bpk = bpk;
	if (!(mode & 1) ||
		bloom_geometry_for(nkeys + n % 4096, build_bpk, &g) != BLOOM_OK ||
		g.filter_bytes > FUZZ_MAX_FILTER)
	{
		/* ... else one at a bits_per_key of 0..99 */
		build_bpk = (int64_t) ((uint64_t) bpk % 100);
		FUZZ_CHECK(bloom_geometry_for(nkeys + n % 4096, build_bpk, &g) == BLOOM_OK,
				   "geometry of %zu keys at %lld", nkeys, (long long) build_bpk);
	}

	filter = calloc(1, (size_t) g.filter_bytes);
	ref = calloc(1, (size_t) g.filter_bytes);
	if (filter == NULL || ref == NULL)
		abort();
	bloom_build_from_hashes(filter, &g, hashes, nkeys);
	for (size_t i = 0; i < nkeys; i++)
		ref_add_hash(ref, g.bits, ref_k(build_bpk),
					 ref_bloom_hash(keys[i].data, keys[i].len));
	ref[g.filter_bytes - 1] = (uint8_t) ref_k(build_bpk);
	FUZZ_CHECK(memcmp(filter, ref, (size_t) g.filter_bytes) == 0,
			   "filter of %zu keys at %lld bits per key differs from the reference",
			   nkeys, (long long) build_bpk);
	FUZZ_CHECK(bloom_validate(filter, (size_t) g.filter_bytes) == BLOOM_OK,
			   "built filter fails validation");

	for (size_t i = 0; i < nkeys; i++)
	{
		FUZZ_CHECK(bloom_may_contain(filter, (size_t) g.filter_bytes,
									 keys[i].data, keys[i].len),
				   "inserted key %zu of %zu does not match", i, nkeys);
		FUZZ_CHECK(bloom_may_contain_hash(filter, (size_t) g.filter_bytes, hashes[i]),
				   "inserted hash %08x does not match", hashes[i]);
		FUZZ_CHECK(ref_key_may_match(keys[i].data, keys[i].len, filter,
									 (size_t) g.filter_bytes),
				   "reference: inserted key %zu does not match", i);
	}

	free(ref);
	free(filter);
	for (size_t i = 0; i < nkeys; i++)
		free(keys[i].data);
	free(keys);
	free(hashes);
	return 0;
}
