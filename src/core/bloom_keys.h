/*
 * bloom_keys.h
 *		The bytes a typed key is hashed as, so that every caller (the SQL
 *		functions, the tests, a program outside the database) makes the same
 *		key of the same value.
 *
 * A filter holds byte strings; a key of another type is written as bytes
 * first, and those bytes are what LevelDB's CreateFilter and KeyMayMatch
 * see:
 *
 *	- an integer of any width: its value as a signed 64-bit integer, most
 *	  significant byte first (PostgreSQL's int8send), so 5::smallint, 5 and
 *	  5::bigint are one key;
 *	- a uuid: its 16 bytes, in the order they are written (uuid_send);
 *	- several values (a multi-column key): for each value in order, its
 *	  length as 4 bytes, most significant first, then its bytes; a NULL is
 *	  the length 0xFFFFFFFF with no bytes.  The lengths keep ('ab', 'c') and
 *	  ('a', 'bc') apart.
 *
 * The hashes below are LevelDB's Hash of those bytes, computed from the
 * value without writing the bytes out: the same words, in the same order.
 */
#ifndef BLOOM_KEYS_H
#define BLOOM_KEYS_H

#include "bloom_core.h"

#include <string.h>

BLOOM_BEGIN_PRIVATE

/* Bytes of an integer key and of a uuid key. */
#define BLOOM_INT_KEY_BYTES		8
#define BLOOM_UUID_KEY_BYTES	16

/* A multi-column key's field: the length word, and the length of a NULL. */
#define BLOOM_FIELD_HEADER_BYTES	4
#define BLOOM_FIELD_NULL_LENGTH		UINT32_C(0xffffffff)

/* The largest value a field can hold: every smaller length is a length. */
#define BLOOM_FIELD_MAX_BYTES		(BLOOM_FIELD_NULL_LENGTH - 1)

/* x's 4 bytes in the opposite order. */
static inline uint32_t
bloom_bswap32(uint32_t x)
{
#if defined(__GNUC__)
	return __builtin_bswap32(x);
#else
	return (x >> 24) | ((x >> 8) & UINT32_C(0xff00)) |
		((x << 8) & UINT32_C(0xff0000)) | (x << 24);
#endif
}

/* Write v most significant byte first, 4 bytes. */
static inline void
bloom_put_be32(uint8_t *out, uint32_t v)
{
	out[0] = (uint8_t) (v >> 24);
	out[1] = (uint8_t) (v >> 16);
	out[2] = (uint8_t) (v >> 8);
	out[3] = (uint8_t) v;
}

/* The 8 bytes of an integer key. */
static inline void
bloom_int_key_bytes(int64_t value, uint8_t out[BLOOM_INT_KEY_BYTES])
{
	uint64_t	v = (uint64_t) value;

	bloom_put_be32(out, (uint32_t) (v >> 32));
	bloom_put_be32(out + 4, (uint32_t) v);
}

/*
 * bloom_key_hash of an integer key's 8 bytes, without writing them.  Hash
 * reads each word little-endian, so the word of 4 bytes written most
 * significant first is the byte-swapped value on any machine.
 */
static inline uint32_t
bloom_int_key_hash(int64_t value)
{
	uint64_t	v = (uint64_t) value;
	uint32_t	h = bloom_hash_start(BLOOM_HASH_SEED, BLOOM_INT_KEY_BYTES);

	h = bloom_hash_word(h, bloom_bswap32((uint32_t) (v >> 32)));
	return bloom_hash_word(h, bloom_bswap32((uint32_t) v));
}

/* bloom_key_hash of a uuid's 16 bytes, read in place at any alignment. */
static inline uint32_t
bloom_uuid_key_hash(const uint8_t uuid[BLOOM_UUID_KEY_BYTES])
{
	uint32_t	h = bloom_hash_start(BLOOM_HASH_SEED, BLOOM_UUID_KEY_BYTES);
	int			i;

	for (i = 0; i < BLOOM_UUID_KEY_BYTES; i += 4)
		h = bloom_hash_word(h, (uint32_t) uuid[i] |
							((uint32_t) uuid[i + 1] << 8) |
							((uint32_t) uuid[i + 2] << 16) |
							((uint32_t) uuid[i + 3] << 24));
	return h;
}

/*
 * A multi-column key's field of len bytes (len <= BLOOM_FIELD_MAX_BYTES)
 * written at out, which has room for BLOOM_FIELD_HEADER_BYTES + len bytes;
 * returns the bytes written.
 */
static inline size_t
bloom_put_field(uint8_t *out, const void *bytes, uint32_t len)
{
	bloom_put_be32(out, len);
	if (len > 0)
		memcpy(out + BLOOM_FIELD_HEADER_BYTES, bytes, len);
	return BLOOM_FIELD_HEADER_BYTES + (size_t) len;
}

/* A multi-column key's NULL field; returns the bytes written. */
static inline size_t
bloom_put_null_field(uint8_t *out)
{
	bloom_put_be32(out, BLOOM_FIELD_NULL_LENGTH);
	return BLOOM_FIELD_HEADER_BYTES;
}

BLOOM_END_PRIVATE

#endif							/* BLOOM_KEYS_H */
