/*
 * fuzz_common.h
 *		What the libFuzzer targets share: plain reference implementations
 *		of LevelDB's bloom filter, written for clarity rather than speed,
 *		and a check macro that turns a wrong answer into a crash.
 *
 * The references follow LevelDB 1.23's util/hash.cc and util/bloom.cc
 * statement by statement, including their reading of the k byte as a
 * (signed, on x86) char.  They share nothing with src/ except the
 * constants, so a fuzz target that compares the core with them checks
 * two independent readings of the format.
 */
#ifndef BLOOM_FUZZ_COMMON_H
#define BLOOM_FUZZ_COMMON_H

#include "bloom_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A violated property is a finding: report it and abort, which libFuzzer
 * records as a crash and saves the input for.
 */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz check failed at %s:%d: %s\n  ", \
					__FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

/*
 * A copy of len bytes in a block of exactly that size, so that AddressSanitizer
 * catches a read even one byte past the end (or before the start).
 */
static inline uint8_t *
fuzz_alloc(size_t len)
{
	uint8_t    *p = malloc(len ? len : 1);

	if (p == NULL)
		abort();
	return p;
}

static inline uint8_t *
fuzz_dup(const uint8_t *data, size_t len)
{
	uint8_t    *p = fuzz_alloc(len);

	if (len)
		memcpy(p, data, len);
	return p;
}

static inline uint64_t
fuzz_le(const uint8_t *p, int nbytes)
{
	uint64_t	v = 0;

	for (int i = 0; i < nbytes; i++)
		v |= (uint64_t) p[i] << (8 * i);
	return v;
}

/* LevelDB's Hash(), one byte at a time. */
static inline uint32_t
ref_hash(const uint8_t *data, size_t n, uint32_t seed)
{
	const uint32_t m = 0xc6a4a793;
	const uint32_t r = 24;
	uint32_t	h = seed ^ (uint32_t) (n * m);
	size_t		i = 0;

	for (; i + 4 <= n; i += 4)
	{
		uint32_t	w = (uint32_t) data[i] | ((uint32_t) data[i + 1] << 8) |
			((uint32_t) data[i + 2] << 16) | ((uint32_t) data[i + 3] << 24);

		h += w;
		h *= m;
		h ^= (h >> 16);
	}
	switch (n - i)
	{
		case 3:
			h += (uint32_t) data[i + 2] << 16;
			/* FALLTHROUGH */
		case 2:
			h += (uint32_t) data[i + 1] << 8;
			/* FALLTHROUGH */
		case 1:
			h += data[i];
			h *= m;
			h ^= (h >> r);
			break;
	}
	return h;
}

static inline uint32_t
ref_bloom_hash(const uint8_t *key, size_t n)
{
	return ref_hash(key, n, 0xbc9f1d34);
}

/* KeyMayMatch given the key's hash, as util/bloom.cc writes it. */
static inline int
ref_may_match_hash(uint32_t h, const uint8_t *array, size_t len)
{
	size_t		bits;
	int			k;
	uint32_t	delta;

	if (len < 2)
		return 0;
	bits = (len - 1) * 8;
	/* LevelDB: const int k = array[len-1], array being const char * */
	k = (int8_t) array[len - 1];
	if (k > 30)
		return 1;				/* reserved for short bloom filters: match */
	delta = (h >> 17) | (h << 15);
	for (int j = 0; j < k; j++)
	{
		const uint32_t bitpos = (uint32_t) (h % bits);

		if ((array[bitpos / 8] & (1 << (bitpos % 8))) == 0)
			return 0;
		h += delta;
	}
	return 1;
}

static inline int
ref_key_may_match(const uint8_t *key, size_t keylen,
				  const uint8_t *array, size_t len)
{
	return ref_may_match_hash(ref_bloom_hash(key, keylen), array, len);
}

/* BloomFilterPolicy's k: bits_per_key * 0.69 truncated, clamped to 1..30. */
static inline unsigned
ref_k(int64_t bits_per_key)
{
	double		d = (double) bits_per_key * 0.69;

	if (d < 1)
		return 1;
	if (d >= 30)				/* also keeps the conversion defined */
		return 30;
	return (unsigned) d;
}

/* CreateFilter's loop for one key, on a bit array of bits bits. */
static inline void
ref_add_hash(uint8_t *array, uint64_t bits, unsigned k, uint32_t h)
{
	const uint32_t delta = (h >> 17) | (h << 15);

	for (unsigned j = 0; j < k; j++)
	{
		const uint64_t bitpos = h % bits;

		array[bitpos / 8] |= (uint8_t) (1 << (bitpos % 8));
		h += delta;
	}
}

#endif							/* BLOOM_FUZZ_COMMON_H */
