/*
 * bloom_state.h
 *		Byte layout of bloom_agg's transition state, with no PostgreSQL in it.
 *
 * The filter's size depends on the total number of keys, known only at the
 * end, so a state is bits_per_key, the number of keys seen, and the 32-bit
 * hashes of those keys.  The same bytes are the flat datum, the binary
 * send/recv form and (base64 encoded) the text form, so parallel workers,
 * Citus and COPY all move one format, checked by one function.
 *
 * Version 2, written since 1.1: each distinct hash once, sorted, its gaps
 * Rice-coded (bloom_gaps.h).  A repeated hash sets the same bits, so the
 * filter depends only on which hashes occur and on the key count: a state
 * takes about 1.3 bytes a distinct key, and nothing for a repeat.
 *
 *	 offset  size  field
 *	 0       1     version (2)
 *	 1       1     flags (0; any other bit is rejected, to allow evolution)
 *	 2       2     reserved (0)
 *	 4       4     bits_per_key, signed, >= 0
 *	 8       8     number of keys, n (duplicates included)
 *	 16      8     number of distinct hashes, d: d <= n, d <= 2^32, and
 *	               d = 0 exactly when n = 0
 *	 24      ...   the d hashes, increasing, gap-coded with the Rice
 *	               parameter bloom_gaps_rice_param(d): exactly the bytes
 *	               bloom_gaps_encode writes, nothing after them
 *
 * Version 1, written by 1.0 and still read everywhere: every key's hash,
 * in the order seen, 4 bytes each.
 *
 *	 0       1     version (1)
 *	 1       1     flags (0)
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

#define BLOOM_STATE_VERSION_HASHES	1
#define BLOOM_STATE_VERSION_GAPS	2
#define BLOOM_STATE_VERSION			BLOOM_STATE_VERSION_GAPS
#define BLOOM_STATE_HEADER_BYTES	16	/* version 1 */
#define BLOOM_STATE_V2_HEADER_BYTES 24

typedef struct bloom_state_header
{
	int			version;
	int32_t		bits_per_key;
	uint64_t	nkeys;			/* keys seen, duplicates included */
	uint64_t	nhashes;		/* hashes stored: n in v1, d in v2 */
	size_t		payload_offset; /* where the hashes or their code start */
	size_t		payload_len;
} bloom_state_header;

/*
 * Check len bytes of a serialized state of either version and return its
 * header.  Every header field and the length are checked, so that a
 * version 1 state's hashes can then be read without bounds checks, and a
 * version 2 state's code is known to be long enough for its count (each
 * hash takes at least r + 1 bits), which bounds what decoding it needs.
 * The code itself is checked by bloom_state_check_code or
 * bloom_state_read_hashes.
 */
extern bloom_status bloom_state_check(const uint8_t *bytes, size_t len,
									  bloom_state_header *header);

/*
 * The rest of bloom_state_read_hashes's checks, without the hashes: a
 * version 2 state's code decoded and let go (a version 1 state's hashes
 * need no more).
 */
extern bloom_status bloom_state_check_code(const uint8_t *bytes,
										   const bloom_state_header *header);

/*
 * The nhashes stored hashes of a checked state, in native byte order, into
 * out: a version 1 state's as stored, a version 2 state's decoded and fully
 * checked (BLOOM_ERR_GAPS_CODE for any code bloom_gaps_encode would not
 * have written).
 */
extern bloom_status bloom_state_read_hashes(const uint8_t *bytes,
											const bloom_state_header *header,
											uint32_t *out);

/* Write a version 1 header (16 bytes); header->nhashes is n. */
extern void bloom_state_write_header(uint8_t *out,
									 const bloom_state_header *header);

/* Bytes a version 1 state of nhashes hashes takes, or 0 on overflow. */
extern uint64_t bloom_state_size(uint64_t nhashes);

/*
 * The most bytes a version 2 state of d distinct hashes takes, or 0 when
 * d is over 2^32.
 */
extern uint64_t bloom_state_v2_max_size(uint64_t ndistinct);

/*
 * Write a version 2 state of nkeys keys whose distinct hashes are the d
 * strictly increasing hashes[] (d <= nkeys, d = 0 exactly when nkeys = 0)
 * into out, which holds bloom_state_v2_max_size(d) bytes; returns the
 * bytes written.
 */
extern size_t bloom_state_v2_write(uint8_t *out, int32_t bits_per_key,
								   uint64_t nkeys, const uint32_t *hashes,
								   uint64_t ndistinct);

/*
 * The BLOOM_STATE_V2_HEADER_BYTES bytes before the code of such a state,
 * for a code written apart (bloom_flatten.h).
 */
extern void bloom_state_v2_write_header(uint8_t *out, int32_t bits_per_key,
										uint64_t nkeys, uint64_t ndistinct);

/* Little-endian 32-bit hash i of a version 1 state's hash array. */
static inline uint32_t
bloom_state_hash_at(const uint8_t *hashes, uint64_t i)
{
	const uint8_t *p = hashes + 4 * i;

	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

BLOOM_END_PRIVATE

#endif							/* BLOOM_STATE_H */
