/*
 * bloom_state.c
 *		Checking, reading and writing the serialized bloom_agg state (layout
 *		in bloom_state.h).
 */
#include <string.h>

#include "bloom_gaps.h"
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

uint64_t
bloom_state_v2_max_size(uint64_t ndistinct)
{
	uint64_t	code;

	if (ndistinct == 0)
		return BLOOM_STATE_V2_HEADER_BYTES;
	code = bloom_gaps_max_bytes(ndistinct, bloom_gaps_rice_param(ndistinct));
	if (code == 0)
		return 0;
	return BLOOM_STATE_V2_HEADER_BYTES + code;
}

static bloom_status
check_v1(const uint8_t *bytes, size_t len, bloom_state_header *header)
{
	uint64_t	nhashes = read_le(bytes + 8, 8);

	/* compare without forming 4 * nhashes, which a forged count overflows */
	if ((len - BLOOM_STATE_HEADER_BYTES) % 4 != 0 ||
		(len - BLOOM_STATE_HEADER_BYTES) / 4 != nhashes)
		return BLOOM_ERR_STATE_COUNT;
	header->nkeys = nhashes;
	header->nhashes = nhashes;
	header->payload_offset = BLOOM_STATE_HEADER_BYTES;
	header->payload_len = len - BLOOM_STATE_HEADER_BYTES;
	return BLOOM_OK;
}

static bloom_status
check_v2(const uint8_t *bytes, size_t len, bloom_state_header *header)
{
	uint64_t	nkeys,
				ndistinct;
	size_t		code_len;

	if (len < BLOOM_STATE_V2_HEADER_BYTES)
		return BLOOM_ERR_STATE_TOO_SHORT;
	nkeys = read_le(bytes + 8, 8);
	ndistinct = read_le(bytes + 16, 8);
	code_len = len - BLOOM_STATE_V2_HEADER_BYTES;
	if (ndistinct > nkeys || ndistinct > (UINT64_C(1) << 32) ||
		(ndistinct == 0) != (nkeys == 0))
		return BLOOM_ERR_STATE_COUNT;
	if (ndistinct == 0)
	{
		if (code_len != 0)
			return BLOOM_ERR_STATE_COUNT;
	}
	else
	{
		unsigned	r = bloom_gaps_rice_param(ndistinct);

		/*
		 * Every hash takes r + 1 bits at least, and all of them at most
		 * bloom_gaps_max_bytes: a count the code cannot hold is refused
		 * before anyone allocates room for it.
		 */
		if (code_len > bloom_gaps_max_bytes(ndistinct, r) ||
			(uint64_t) code_len * 8 / (r + 1) < ndistinct)
			return BLOOM_ERR_STATE_COUNT;
	}
	header->nkeys = nkeys;
	header->nhashes = ndistinct;
	header->payload_offset = BLOOM_STATE_V2_HEADER_BYTES;
	header->payload_len = code_len;
	return BLOOM_OK;
}

bloom_status
bloom_state_check(const uint8_t *bytes, size_t len, bloom_state_header *header)
{
	int32_t		bits_per_key;
	bloom_status status;
	bloom_state_header h;

	if (len < BLOOM_STATE_HEADER_BYTES)
		return BLOOM_ERR_STATE_TOO_SHORT;
	if (bytes[0] != BLOOM_STATE_VERSION_HASHES &&
		bytes[0] != BLOOM_STATE_VERSION_GAPS)
		return BLOOM_ERR_STATE_VERSION;
	if (bytes[1] != 0 || bytes[2] != 0 || bytes[3] != 0)
		return BLOOM_ERR_STATE_RESERVED;
	bits_per_key = (int32_t) (uint32_t) read_le(bytes + 4, 4);
	if (bits_per_key < 0)
		return BLOOM_ERR_NEGATIVE_BITS_PER_KEY;

	h.version = bytes[0];
	h.bits_per_key = bits_per_key;
	status = h.version == BLOOM_STATE_VERSION_HASHES ?
		check_v1(bytes, len, &h) : check_v2(bytes, len, &h);
	if (status == BLOOM_OK)
		*header = h;
	return status;
}

bloom_status
bloom_state_check_code(const uint8_t *bytes, const bloom_state_header *header)
{
	if (header->version != BLOOM_STATE_VERSION_GAPS)
		return BLOOM_OK;
	return bloom_gaps_check(bytes + header->payload_offset, header->payload_len,
							header->nhashes, bloom_gaps_rice_param(header->nhashes));
}

bloom_status
bloom_state_read_hashes(const uint8_t *bytes, const bloom_state_header *header,
						uint32_t *out)
{
	const uint8_t *payload = bytes + header->payload_offset;

	if (header->version == BLOOM_STATE_VERSION_GAPS)
		return bloom_gaps_decode(payload, header->payload_len,
								 header->nhashes,
								 bloom_gaps_rice_param(header->nhashes), out);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out, payload, header->nhashes * 4);
#else
	for (uint64_t i = 0; i < header->nhashes; i++)
		out[i] = bloom_state_hash_at(payload, i);
#endif
	return BLOOM_OK;
}

void
bloom_state_write_header(uint8_t *out, const bloom_state_header *header)
{
	out[0] = BLOOM_STATE_VERSION_HASHES;
	out[1] = 0;
	out[2] = 0;
	out[3] = 0;
	write_le(out + 4, (uint32_t) header->bits_per_key, 4);
	write_le(out + 8, header->nhashes, 8);
}

void
bloom_state_v2_write_header(uint8_t *out, int32_t bits_per_key, uint64_t nkeys,
							uint64_t ndistinct)
{
	out[0] = BLOOM_STATE_VERSION_GAPS;
	out[1] = 0;
	out[2] = 0;
	out[3] = 0;
	write_le(out + 4, (uint32_t) bits_per_key, 4);
	write_le(out + 8, nkeys, 8);
	write_le(out + 16, ndistinct, 8);
}

size_t
bloom_state_v2_write(uint8_t *out, int32_t bits_per_key, uint64_t nkeys,
					 const uint32_t *hashes, uint64_t ndistinct)
{
	bloom_state_v2_write_header(out, bits_per_key, nkeys, ndistinct);
	if (ndistinct == 0)
		return BLOOM_STATE_V2_HEADER_BYTES;
	return BLOOM_STATE_V2_HEADER_BYTES +
		bloom_gaps_encode(hashes, ndistinct, bloom_gaps_rice_param(ndistinct),
						  out + BLOOM_STATE_V2_HEADER_BYTES);
}
