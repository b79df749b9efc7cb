/*
 * bloom_filter.c
 *		Geometry, build, probe and validation of LevelDB bloom filters.
 *
 * Mirrors LevelDB's BloomFilterPolicy (util/bloom.cc, 1.23): CreateFilter
 * and KeyMayMatch.  Sizes are computed in 64 bits, where LevelDB uses int
 * for n * bits_per_key; the two agree wherever LevelDB's product does not
 * overflow, i.e. for every filter LevelDB itself can write.
 */
#include "bloom_core.h"

unsigned
bloom_k_for_bits_per_key(int64_t bits_per_key)
{
	/*
	 * LevelDB truncates bits_per_key * 0.69 (a double) to size_t.  The
	 * clamp comes first so that a huge bits_per_key never reaches a
	 * double-to-integer conversion that could overflow.
	 */
	double		k;

	if (bits_per_key <= 0)
		return 1;
	k = (double) bits_per_key * 0.69;
	if (k >= BLOOM_MAX_K)
		return BLOOM_MAX_K;
	if (k < 1)
		return 1;
	return (unsigned) k;
}

bloom_status
bloom_geometry_for(uint64_t nkeys, int64_t bits_per_key,
				   bloom_geometry *geometry)
{
	uint64_t	bits;
	uint64_t	bytes;

	if (bits_per_key < 0)
		return BLOOM_ERR_NEGATIVE_BITS_PER_KEY;
	if (bits_per_key > 0 && nkeys > UINT64_MAX / (uint64_t) bits_per_key)
		return BLOOM_ERR_SIZE_OVERFLOW;
	bits = nkeys * (uint64_t) bits_per_key;
	if (bits < BLOOM_MIN_BITS)
		bits = BLOOM_MIN_BITS;
	/* rounding up to whole bytes must not wrap the bit count to 0 */
	if (bits > UINT64_MAX - 7)
		return BLOOM_ERR_SIZE_OVERFLOW;
	bytes = (bits + 7) / 8;

	geometry->filter_bytes = bytes + 1;
	geometry->bits = bytes * 8;
	geometry->k = bloom_k_for_bits_per_key(bits_per_key);
	return BLOOM_OK;
}

/*
 * The probe sequence of LevelDB's double hashing [Kirsch, Mitzenmacher
 * 2006]: h, h + delta, h + 2 delta, ... in 32-bit arithmetic, each taken
 * modulo the bit count in 64 bits.  A filter of more than 2^32 bits is
 * therefore only ever touched in its first 2^32 bits, as in LevelDB.
 */
static inline uint32_t
probe_delta(uint32_t hash)
{
	return (hash >> 17) | (hash << 15);
}

void
bloom_set_hash(uint8_t *bit_array, uint64_t nbits, unsigned k, uint32_t hash)
{
	uint32_t	delta = probe_delta(hash);
	unsigned	j;

	for (j = 0; j < k; j++)
	{
		uint64_t	bitpos = (uint64_t) hash % nbits;

		bit_array[bitpos / 8] |= (uint8_t) (1u << (bitpos % 8));
		hash += delta;
	}
}

void
bloom_build_from_hashes(uint8_t *filter, const bloom_geometry *geometry,
						const uint32_t *hashes, size_t nhashes)
{
	size_t		i;

	for (i = 0; i < nhashes; i++)
		bloom_set_hash(filter, geometry->bits, geometry->k, hashes[i]);
	filter[geometry->filter_bytes - 1] = (uint8_t) geometry->k;
}

bool
bloom_may_contain_hash(const uint8_t *filter, size_t len, uint32_t hash)
{
	uint64_t	nbits;
	unsigned	k;
	uint32_t	delta;
	unsigned	j;

	if (len < 2)
		return false;
	k = filter[len - 1];
	if (k > BLOOM_MAX_K)
		return true;			/* reserved for other encodings: a match */

	nbits = (uint64_t) (len - 1) * 8;
	delta = probe_delta(hash);
	for (j = 0; j < k; j++)
	{
		uint64_t	bitpos = (uint64_t) hash % nbits;

		if ((filter[bitpos / 8] & (1u << (bitpos % 8))) == 0)
			return false;
		hash += delta;
	}
	return true;
}

bloom_status
bloom_validate(const uint8_t *filter, size_t len)
{
	if (len < 2)
		return BLOOM_ERR_FILTER_TOO_SHORT;
	if (filter[len - 1] == 0)
		return BLOOM_ERR_K_ZERO;
	if (filter[len - 1] > BLOOM_MAX_K)
		return BLOOM_ERR_K_RESERVED;
	return BLOOM_OK;
}

const char *
bloom_status_message(bloom_status status)
{
	switch (status)
	{
		case BLOOM_OK:
			return "No error.";
		case BLOOM_ERR_NEGATIVE_BITS_PER_KEY:
			return "bits_per_key must not be negative.";
		case BLOOM_ERR_SIZE_OVERFLOW:
			return "The filter size must fit in 64 bits.";
		case BLOOM_ERR_FILTER_TOO_SHORT:
			return "A filter must have at least 2 bytes: the bit array and the final byte holding k.";
		case BLOOM_ERR_K_ZERO:
			return "The final byte (k, the number of probes) must not be 0: LevelDB never writes it.";
		case BLOOM_ERR_K_RESERVED:
			return "The final byte (k, the number of probes) must be at most 30: LevelDB reserves larger values for other encodings.";
		case BLOOM_ERR_HEX_PREFIX:
			return "The text form must start with \\x.";
		case BLOOM_ERR_HEX_ODD:
			return "The text form must have two hex digits for every byte; it has an odd number.";
		case BLOOM_ERR_HEX_DIGIT:
			return "The text form must have only hex digits after \\x.";
		case BLOOM_ERR_STATE_TOO_SHORT:
			return "An aggregate state must have at least its 16-byte header.";
		case BLOOM_ERR_STATE_VERSION:
			return "An aggregate state must have version 1.";
		case BLOOM_ERR_STATE_RESERVED:
			return "An aggregate state's flags and reserved bytes must be zero.";
		case BLOOM_ERR_STATE_COUNT:
			return "An aggregate state's hash count must match its length.";
	}
	return "Unknown error.";
}
