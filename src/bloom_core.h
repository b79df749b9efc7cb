/*
 * bloom_core.h
 *		LevelDB-compatible bloom filters, with no PostgreSQL dependency.
 *
 * Everything that decides a filter byte lives behind this header: the SQL
 * functions, the unit tests, the LevelDB differential test and the fuzzers
 * all call the same code, so there is exactly one reading of the format.
 *
 * The format is LevelDB's util/bloom.cc (1.23): the filter is ceil(bits/8)
 * bytes of bit array followed by one byte holding k, the number of probes.
 * Problems are reported by status codes; callers decide how to raise them.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Seed LevelDB's BloomHash passes to Hash(). */
#define BLOOM_HASH_SEED		UINT32_C(0xbc9f1d34)

/* LevelDB clamps k to this; a larger k byte is a reserved encoding. */
#define BLOOM_MAX_K			30

/* LevelDB enforces this many bits at least, to keep tiny filters useful. */
#define BLOOM_MIN_BITS		64

typedef enum bloom_status
{
	BLOOM_OK = 0,
	BLOOM_ERR_NEGATIVE_BITS_PER_KEY,	/* bits_per_key < 0 */
	BLOOM_ERR_SIZE_OVERFLOW,	/* n * bits_per_key does not fit in 64 bits */
	BLOOM_ERR_FILTER_TOO_SHORT, /* fewer than 2 bytes: no bit array */
	BLOOM_ERR_K_ZERO,			/* k byte 0: LevelDB never writes it */
	BLOOM_ERR_K_RESERVED,		/* k byte > 30: reserved by LevelDB */
	BLOOM_ERR_HEX_PREFIX,		/* text does not start with \x */
	BLOOM_ERR_HEX_ODD,			/* odd number of hex digits */
	BLOOM_ERR_HEX_DIGIT,		/* a character that is not a hex digit */
	BLOOM_ERR_STATE_TOO_SHORT,	/* aggregate state shorter than its header */
	BLOOM_ERR_STATE_VERSION,	/* unknown aggregate state version */
	BLOOM_ERR_STATE_RESERVED,	/* nonzero reserved aggregate state bits */
	BLOOM_ERR_STATE_COUNT		/* hash count disagrees with the length */
} bloom_status;

/* The rule a status says was broken, as a full sentence. */
extern const char *bloom_status_message(bloom_status status);

/* ---- hashing (bloom_hash.c) ---- */

/* LevelDB's Hash(data, n, seed): tail bytes read as unsigned, as in >= 1.18. */
extern uint32_t bloom_leveldb_hash(const void *data, size_t len, uint32_t seed);

/* The 32-bit hash LevelDB's bloom filter derives every probe from. */
static inline uint32_t
bloom_key_hash(const void *key, size_t len)
{
	return bloom_leveldb_hash(key, len, BLOOM_HASH_SEED);
}

/* ---- geometry, build, probe, validation (bloom_filter.c) ---- */

typedef struct bloom_geometry
{
	uint64_t	filter_bytes;	/* whole filter, including the k byte */
	uint64_t	bits;			/* size of the bit array in bits */
	unsigned	k;				/* probes per key, 1..30 */
} bloom_geometry;

/* k as LevelDB's BloomFilterPolicy picks it: floor(bpk * 0.69), 1..30. */
extern unsigned bloom_k_for_bits_per_key(int64_t bits_per_key);

/*
 * The filter CreateFilter writes for nkeys keys (duplicates counted).
 * Fails only for a negative bits_per_key or a size beyond 64 bits; the
 * caller applies its own, smaller, allocation limit to filter_bytes.
 */
extern bloom_status bloom_geometry_for(uint64_t nkeys, int64_t bits_per_key,
									   bloom_geometry *geometry);

/*
 * Fill a zeroed buffer of geometry->filter_bytes bytes with the filter of
 * the keys whose bloom_key_hash values are given, in any order.
 */
extern void bloom_build_from_hashes(uint8_t *filter,
									const bloom_geometry *geometry,
									const uint32_t *hashes, size_t nhashes);

/* Set the k bits of one key hash in a bit array of nbits bits. */
extern void bloom_set_hash(uint8_t *bit_array, uint64_t nbits, unsigned k,
						   uint32_t hash);

/* LevelDB's KeyMayMatch on any bytes, given the key's bloom_key_hash. */
extern bool bloom_may_contain_hash(const uint8_t *filter, size_t len,
								   uint32_t hash);

/* LevelDB's KeyMayMatch(key, filter) on any bytes. */
static inline bool
bloom_may_contain(const uint8_t *filter, size_t len,
				  const void *key, size_t keylen)
{
	return bloom_may_contain_hash(filter, len, bloom_key_hash(key, keylen));
}

/*
 * The rule every stored filter obeys: at least 2 bytes and 1 <= k <= 30,
 * which is exactly what a LevelDB writer can produce.
 */
extern bloom_status bloom_validate(const uint8_t *filter, size_t len);

/* ---- text form (bloom_hex.c): "\x" and two hex digits a byte ---- */

/* Characters bloom_hex_encode writes for len bytes, without a terminator. */
static inline size_t
bloom_hex_encoded_len(size_t len)
{
	return 2 + 2 * len;
}

/* Write "\x" and lowercase hex of the bytes; returns characters written. */
extern size_t bloom_hex_encode(const uint8_t *bytes, size_t len, char *out);

/*
 * Check text of textlen characters for the "\x" form (digits in either case)
 * and report how many bytes it decodes to, without decoding.
 */
extern bloom_status bloom_hex_check(const char *text, size_t textlen,
									size_t *decoded_len);

/* Decode text that bloom_hex_check accepted into out. */
extern void bloom_hex_decode(const char *text, size_t textlen, uint8_t *out);

#endif							/* BLOOM_CORE_H */
