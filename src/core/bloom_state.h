/*
 * bloom_state.h
 *		Byte layout of bloom_agg's transition state, with no PostgreSQL in it.
 *
 * The state is bits_per_key plus the multiset of 32-bit key hashes: 4 bytes
 * a key, and the filter is sized only once the total count is known.  The
 * same bytes are the flat datum, the binary send/recv form and (base64
 * encoded) the text form, so parallel workers, Citus and COPY all move one
 * format, checked by one function.
 *
 *	 offset  size  field
 *	 0       1     version (1)
 *	 1       1     flags (0; any other bit is rejected, to allow evolution)
 *	 2       2     reserved (0)
 *	 4       4     bits_per_key, signed, >= 0
 *	 8       8     number of hashes, n
 *	 16      4*n   the hashes
 *
 * Multi-byte fields are little-endian, as LevelDB's own fixed-width
 * encodings are.
 */
#ifndef BLOOM_STATE_H
#define BLOOM_STATE_H

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

#define BLOOM_STATE_VERSION			1
#define BLOOM_STATE_HEADER_BYTES	16

typedef struct bloom_state_header
{
	int32_t		bits_per_key;
	uint64_t	nhashes;
} bloom_state_header;

/*
 * Check len bytes of a serialized state and return its header.  Every field
 * and the exact length are checked, so the hashes that follow can be read
 * without further bounds checks.
 */
extern bloom_status bloom_state_check(const uint8_t *bytes, size_t len,
									  bloom_state_header *header);

/* Write the 16 header bytes. */
extern void bloom_state_write_header(uint8_t *out,
									 const bloom_state_header *header);

/* Bytes a serialized state of nhashes hashes takes, or 0 on overflow. */
extern uint64_t bloom_state_size(uint64_t nhashes);

/* Little-endian 32-bit hash i of a serialized state's hash array. */
static inline uint32_t
bloom_state_hash_at(const uint8_t *hashes, uint64_t i)
{
	const uint8_t *p = hashes + 4 * i;

	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

BLOOM_END_PRIVATE

#endif							/* BLOOM_STATE_H */
