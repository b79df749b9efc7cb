/*
 * bloom_reference.h
 *		Plain reference implementations of LevelDB's bloom filter, for the
 *		unit tests (test/unit/test_core.c) and the libFuzzer targets
 *		(test/fuzz/fuzz_*.c), written for clarity rather than speed.
 *
 * They follow LevelDB 1.23's util/hash.cc and util/bloom.cc statement by
 * statement: k from bits_per_key, the filter's size, Hash, the bits
 * CreateFilter sets for a key and KeyMayMatch; and the formulas of
 * bloom_stats.c, restated the plain way (log and exp where the core uses
 * log1p and expm1).  They call nothing in src/: bloom_core.h is included
 * for its types only (bloom_geometry, bloom_status), and LevelDB's numbers
 * (30, 64, the seed) are written out here rather than taken from its
 * constants, so a test that compares the core with a reference checks two
 * independent readings of the format.
 *
 * C99 static inline functions, plus the unsigned __int128 of GCC and Clang
 * for sizes (ref_geometry).
 */
#ifndef BLOOM_REFERENCE_H
#define BLOOM_REFERENCE_H

#include "bloom_core.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- hex digits --------------------------------------------------------- */

/* The value of a hex digit of either case, or -1. */
static inline int
ref_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- Hash (util/hash.cc) ---------------------------------------------- */

/*
 * LevelDB's Hash(), one byte at a time.  The tail bytes are read as
 * unsigned, as LevelDB does since 1.18.
 */
static inline uint32_t
ref_hash(const uint8_t *data, size_t n, uint32_t seed)
{
	const uint32_t m = UINT32_C(0xc6a4a793);
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

/* BloomHash: Hash() with the bloom filter's seed. */
static inline uint32_t
ref_bloom_hash(const uint8_t *key, size_t n)
{
	return ref_hash(key, n, UINT32_C(0xbc9f1d34));
}

/* ---- geometry (BloomFilterPolicy, CreateFilter) ------------------------ */

/*
 * k as BloomFilterPolicy picks it: (size_t) (bits_per_key * 0.69), clamped
 * to 1..30.  The clamp is decided on the double, before the cast, which is
 * undefined for huge values.
 */
static inline unsigned
ref_k(int64_t bits_per_key)
{
	double		d = (double) bits_per_key * 0.69;

	if (d < 1)
		return 1;
	if (d >= 30)
		return 30;
	return (unsigned) (size_t) d;
}

/*
 * CreateFilter's size for n keys at bits_per_key >= 0: bits =
 * max(64, n * bits_per_key) rounded up to a multiple of 8, then one byte
 * for k; in 128-bit arithmetic, so nothing wraps.  False when the rounded
 * bit count does not fit in 64 bits.
 */
static inline bool
ref_geometry(uint64_t n, int64_t bits_per_key, bloom_geometry *g)
{
	unsigned __int128 bits = (unsigned __int128) n * (uint64_t) bits_per_key;

	if (bits < 64)
		bits = 64;
	bits = (bits + 7) / 8 * 8;
	if (bits > UINT64_MAX)
		return false;
	g->bits = (uint64_t) bits;
	g->filter_bytes = g->bits / 8 + 1;
	g->k = ref_k(bits_per_key);
	return true;
}

/* ---- setting and probing bits ----------------------------------------- */

/* The step between a key's probes: h rotated right by 17 bits. */
static inline uint32_t
ref_delta(uint32_t h)
{
	return (h >> 17) | (h << 15);
}

/*
 * CreateFilter's loop for one key hash h: set its k bits in a bit array of
 * bits bits, each at the 64-bit remainder h % bits.
 */
static inline void
ref_add_hash(uint8_t *array, uint64_t bits, unsigned k, uint32_t h)
{
	const uint32_t delta = ref_delta(h);

	for (unsigned j = 0; j < k; j++)
	{
		const uint64_t bitpos = h % bits;

		array[bitpos / 8] |= (uint8_t) (1 << (bitpos % 8));
		h += delta;
	}
}

/*
 * KeyMayMatch given the key's hash, on any bytes, as util/bloom.cc writes
 * it: fewer than 2 bytes match nothing; the k byte is read as LevelDB
 * reads it, a (signed, on x86) char, so that a byte of 31..127 is reserved
 * and matches, and one of 128..255 is a negative k whose loop never runs,
 * so it matches as well.  (Reading the byte as unsigned, with every byte
 * above 30 reserved, gives the same answer for all 256 values.)  A k byte
 * of 0 matches.  Each probe reads the bit at the 64-bit remainder h % bits.
 */
static inline bool
ref_may_match_hash(uint32_t h, const uint8_t *array, size_t len)
{
	uint64_t	bits;
	int			k;
	uint32_t	delta;

	if (len < 2)
		return false;
	bits = (uint64_t) (len - 1) * 8;
	/* LevelDB: k = array[len-1], array being const char * */
	k = (int8_t) array[len - 1];
	if (k > 30)
		return true;			/* reserved for short bloom filters: match */
	delta = ref_delta(h);
	for (int j = 0; j < k; j++)
	{
		const uint32_t bitpos = (uint32_t) (h % bits);

		if ((array[bitpos / 8] & (1 << (bitpos % 8))) == 0)
			return false;
		h += delta;
	}
	return true;
}

/* KeyMayMatch(key, filter). */
static inline bool
ref_key_may_match(const uint8_t *key, size_t keylen,
				  const uint8_t *array, size_t len)
{
	return ref_may_match_hash(ref_bloom_hash(key, keylen), array, len);
}

/*
 * The rule bloom_core.h states for stored filters, which is what
 * CreateFilter can write: at least 2 bytes, and a k byte of 1..30.
 */
static inline bloom_status
ref_validate(const uint8_t *f, size_t len)
{
	if (len < 2)
		return BLOOM_ERR_FILTER_TOO_SHORT;
	if (f[len - 1] == 0)
		return BLOOM_ERR_K_ZERO;
	if (f[len - 1] > 30)
		return BLOOM_ERR_K_RESERVED;
	return BLOOM_OK;
}

/* ---- bit counts, estimates and sizing (bloom_stats.c) ----------------- */

/* The number of 1 bits in len bytes, bit by bit. */
static inline uint64_t
ref_popcount(const uint8_t *p, size_t len)
{
	uint64_t	n = 0;

	for (size_t i = 0; i < len; i++)
		for (int b = 0; b < 8; b++)
			n += (p[i] >> b) & 1;
	return n;
}

/*
 * Keys in a filter of bits bits and k probes with set bits set:
 * -bits/k * ln(1 - set/bits), with log rather than the core's log1p;
 * +Infinity when every bit is set.
 */
static inline double
ref_estimate(uint64_t bits, unsigned k, uint64_t set)
{
	if (set >= bits)
		return INFINITY;
	return -((double) bits / k) * log(1.0 - (double) set / (double) bits);
}

/*
 * The false-positive rate bits_per_key gives: (1 - e^(-k/bpk))^k with
 * LevelDB's k, with exp rather than the core's expm1; a fixed 64-bit
 * filter (bpk 0): 1.
 */
static inline double
ref_expected_fpr(int64_t bits_per_key)
{
	double		k;

	if (bits_per_key == 0)
		return 1.0;
	k = ref_k(bits_per_key);
	return pow(1.0 - exp(-k / (double) bits_per_key), k);
}

/*
 * Closeness of a computed double to a reference value.  There are two,
 * because the two kinds of test need different things at the ends of the
 * range, and each keeps the behaviour it was written with.
 *
 * ref_close (the unit tests): got is within rel of want, relatively, and a
 * want of 0 or of +-Infinity must be met exactly.  The unit tests pass
 * empty and full filters on purpose and require the core to give exactly
 * 0 keys and rate 0, or exactly +Infinity keys, there.
 */
static inline bool
ref_close(double got, double want, double rel)
{
	if (isinf(want) || want == 0)
		return got == want;
	return fabs(got - want) <= rel * fabs(want);
}

/*
 * ref_close_or_tiny (the fuzz targets): the same relative bound plus an
 * absolute slack of 1e-300, so that a want of 0 or in the subnormal range
 * (a tiny fill ratio to a large k, say), where a relative bound on two
 * differently computed values says nothing, is met by any got within
 * 1e-300 of it.  Infinity gets no special case: the fuzz targets compare
 * only finite wants (an infinite estimate is checked on its own).
 */
static inline bool
ref_close_or_tiny(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want) + 1e-300;
}

#endif							/* BLOOM_REFERENCE_H */
