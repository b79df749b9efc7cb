/*
 * bloom_state.c
 *		Checking and writing the serialized bloom_agg state (layout in
 *		bloom_state.h).
 */
#include "bloom_state.h"

static uint64_t
read_le(const uint8_t *p, int nbytes)
{
	uint64_t	v = 0;
	int			i;

	for (i = nbytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void
write_le(uint8_t *p, uint64_t v, int nbytes)
{
	int			i;

	for (i = 0; i < nbytes; i++, v >>= 8)
		p[i] = (uint8_t) v;
}

uint64_t
bloom_state_size(uint64_t nhashes)
{
	if (nhashes > (UINT64_MAX - BLOOM_STATE_HEADER_BYTES) / 4)
		return 0;
	return BLOOM_STATE_HEADER_BYTES + 4 * nhashes;
}

bloom_status
bloom_state_check(const uint8_t *bytes, size_t len, bloom_state_header *header)
{
	int32_t		bits_per_key;
	uint64_t	nhashes;

	if (len < BLOOM_STATE_HEADER_BYTES)
		return BLOOM_ERR_STATE_TOO_SHORT;
	if (bytes[0] != BLOOM_STATE_VERSION)
		return BLOOM_ERR_STATE_VERSION;
	if (bytes[1] != 0 || bytes[2] != 0 || bytes[3] != 0)
		return BLOOM_ERR_STATE_RESERVED;
	bits_per_key = (int32_t) (uint32_t) read_le(bytes + 4, 4);
	if (bits_per_key < 0)
		return BLOOM_ERR_NEGATIVE_BITS_PER_KEY;
	nhashes = read_le(bytes + 8, 8);
	/* compare without forming 4 * nhashes, which a forged count overflows */
	if ((len - BLOOM_STATE_HEADER_BYTES) % 4 != 0 ||
		(len - BLOOM_STATE_HEADER_BYTES) / 4 != nhashes)
		return BLOOM_ERR_STATE_COUNT;

	header->bits_per_key = bits_per_key;
	header->nhashes = nhashes;
	return BLOOM_OK;
}

void
bloom_state_write_header(uint8_t *out, const bloom_state_header *header)
{
	out[0] = BLOOM_STATE_VERSION;
	out[1] = 0;
	out[2] = 0;
	out[3] = 0;
	write_le(out + 4, (uint32_t) header->bits_per_key, 4);
	write_le(out + 8, header->nhashes, 8);
}
