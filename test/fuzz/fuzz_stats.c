/*
 * fuzz_stats.c
 *		libFuzzer target: bit counts, estimates and sizing (bloom_stats.c),
 *		and union and intersection (bloom_setops.c).
 *
 * Input: a 2-byte little-endian length A, a 1-byte key length K, then A
 * bytes of filter a, K key bytes and the rest (each cut short if the input
 * ends).  Filter b has a's length and k byte, with bit-array bytes taken
 * from the rest, cycled (all zero if the rest is empty).  A, read as a
 * number, is also a bits_per_key, and the rest's first 8 bytes a target
 * false-positive rate in [0, 1).
 *
 * Checked, against the plain references of test/lib/bloom_reference.h and
 * re-computations written here:
 *	- bloom_popcount at any alignment is the bytes' count of 1 bits;
 *	- bloom_stats_of of a valid filter: its size, k, bits set, fill ratio,
 *	  key estimate (the log formula; +Infinity exactly when every bit is
 *	  set; never falls as bits are added) and false-positive rate;
 *	- the measured rate and the replayed key count of bloom_scheme.c: a
 *	  rate in [0, 1], 0 keys for no bit set, +Infinity exactly when every
 *	  bit is set, a finite count otherwise;
 *	- bloom_ideal_fpr is (1 - e^(-k/bpk))^k with LevelDB's k;
 *	  bloom_expected_fpr lies in [collision floor, 1] and is the table's up
 *	  to its last row; bloom_bits_per_key_for_fpr gives the smallest
 *	  bits_per_key whose rate is at most the target, and none at or below
 *	  the floor;
 *	- bloom_union_into and bloom_intersect_into are a byte-wise OR and AND
 *	  of the bit arrays that leave the k byte alone, also in place on one
 *	  buffer; bloom_same_geometry compares length and k byte;
 *	- a key a matches also matches a | b, and a key a & b matches also
 *	  matches a and b.
 */
#include "fuzz_common.h"
#include "bloom_scheme.h"
#include "bloom_setops.h"
#include "bloom_stats.h"

#include <math.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_scheme(const uint8_t *f, size_t len, const bloom_stats *st)
{
	uint8_t    *scratch = fuzz_alloc(bloom_scheme_scratch_bytes(len) + 1);
	double		rate = bloom_scheme_fpr(f, len, 4096, st->false_positive_rate);
	double		keys = bloom_scheme_estimate_keys(len, st->k, st->reachable_set,
												  scratch);

	FUZZ_CHECK(rate >= 0 && rate <= 1, "measured rate %.17g", rate);
	if (st->reachable_set == 0)
		FUZZ_CHECK(keys == 0, "no bit set, yet %.17g keys", keys);
	else if (st->reachable_set == st->bits)
		FUZZ_CHECK(isinf(keys) && keys > 0, "every bit set, yet %.17g keys", keys);
	else
		FUZZ_CHECK(isfinite(keys) && keys > 0, "%llu bits set: %.17g keys",
				   (unsigned long long) st->reachable_set, keys);
	free(scratch);
}

static void
check_stats(const uint8_t *f, size_t len)
{
	bloom_stats st;
	uint64_t	bits = (uint64_t) (len - 1) * 8;
	uint64_t	set = ref_popcount(f, len - 1);
	unsigned	k = f[len - 1];
	double		fill = (double) set / (double) bits;

	bloom_stats_of(f, len, &st);
	FUZZ_CHECK(st.filter_bytes == len && st.bits == bits && st.k == k,
			   "stats of %zu bytes: %llu bytes, %llu bits, k %u", len,
			   (unsigned long long) st.filter_bytes,
			   (unsigned long long) st.bits, st.k);
	FUZZ_CHECK(st.bits_set == set, "bits set %llu, counted %llu",
			   (unsigned long long) st.bits_set, (unsigned long long) set);
	FUZZ_CHECK(st.fill_ratio == fill, "fill %.17g, want %.17g",
			   st.fill_ratio, fill);
	FUZZ_CHECK(ref_close_or_tiny(st.false_positive_rate, pow(fill, k), 1e-12) &&
			   st.false_positive_rate >= 0 && st.false_positive_rate <= 1,
			   "false-positive rate %.17g for fill %.17g and k %u",
			   st.false_positive_rate, fill, k);
	if (set == bits)
		FUZZ_CHECK(isinf(st.estimated_keys) && st.estimated_keys > 0,
				   "every bit set, yet %.17g keys estimated", st.estimated_keys);
	else
	{
		double		want = ref_estimate(bits, k, set);

		FUZZ_CHECK(isfinite(st.estimated_keys) && st.estimated_keys >= 0 &&
				   ref_close_or_tiny(st.estimated_keys, want, 1e-9),
				   "%llu of %llu bits, k %u: %.17g keys estimated, formula %.17g",
				   (unsigned long long) set, (unsigned long long) bits, k,
				   st.estimated_keys, want);
		FUZZ_CHECK(bloom_estimate_keys(bits, k, set + 1) >= st.estimated_keys,
				   "the estimate fell when a bit was added");
	}
	check_scheme(f, len, &st);
}

static void
check_sizing(int64_t bpk, double target)
{
	double		fpr = bloom_expected_fpr(bpk);
	double		floor_rate = bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS);
	int64_t		best;

	FUZZ_CHECK(ref_close_or_tiny(bloom_ideal_fpr(bpk), ref_expected_fpr(bpk), 1e-9),
			   "ideal rate at %lld bits a key: %.17g, formula %.17g",
			   (long long) bpk, bloom_ideal_fpr(bpk), ref_expected_fpr(bpk));
	FUZZ_CHECK(fpr >= floor_rate && fpr <= 1 &&
			   (bpk < 1 || bpk > BLOOM_SCHEME_TABLE_MAX_BPK ||
				fpr == bloom_scheme_table[bpk - 1][9]),
			   "expected rate at %lld bits a key: %.17g", (long long) bpk, fpr);
	if (!(target > 0 && target < 1))
		return;
	best = bloom_bits_per_key_for_fpr(target);
	if (best == BLOOM_BPK_UNREACHABLE)
	{
		FUZZ_CHECK(target <= floor_rate, "target %.17g called unreachable", target);
		return;
	}
	FUZZ_CHECK(target > floor_rate && best >= 0 && best <= INT32_MAX &&
			   bloom_expected_fpr(best) <= target,
			   "target %.17g: %lld bits a key give %.17g", target,
			   (long long) best, bloom_expected_fpr(best));
	/* smallest: below the cap of k every smaller value, above it the next */
	for (int64_t b = best - 1; b >= 0 && b >= best - 64; b--)
		FUZZ_CHECK(bloom_expected_fpr(b) > target,
				   "target %.17g: %lld bits a key, but %lld already give %.17g",
				   target, (long long) best, (long long) b, bloom_expected_fpr(b));
}

static void
check_setops(const uint8_t *a, const uint8_t *b, size_t len,
			 const uint8_t *key, size_t keylen)
{
	uint8_t    *u = fuzz_dup(a, len);
	uint8_t    *x = fuzz_dup(a, len);
	uint8_t    *self = fuzz_dup(a, len);

	FUZZ_CHECK(bloom_same_geometry(a, len, b, len), "same length and k byte");
	bloom_union_into(u, b, len);
	bloom_intersect_into(x, b, len);
	for (size_t i = 0; i + 1 < len; i++)
		FUZZ_CHECK(u[i] == (a[i] | b[i]) && x[i] == (a[i] & b[i]),
				   "byte %zu of %zu: %02x | %02x = %02x, & = %02x", i, len,
				   a[i], b[i], u[i], x[i]);
	FUZZ_CHECK(u[len - 1] == a[len - 1] && x[len - 1] == a[len - 1],
			   "the k byte changed");

	bloom_union_into(self, self, len);
	FUZZ_CHECK(memcmp(self, a, len) == 0, "a | a is not a");
	bloom_intersect_into(self, self, len);
	FUZZ_CHECK(memcmp(self, a, len) == 0, "a & a is not a");

	if (bloom_validate(a, len) == BLOOM_OK)
	{
		bool		in_a = bloom_may_contain(a, len, key, keylen);
		bool		in_b = bloom_may_contain(b, len, key, keylen);

		FUZZ_CHECK(!in_a || bloom_may_contain(u, len, key, keylen),
				   "a key of a does not match a | b");
		FUZZ_CHECK(!bloom_may_contain(x, len, key, keylen) || (in_a && in_b),
				   "a key of a & b does not match both");
	}
	free(u);
	free(x);
	free(self);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		alen = 0,
				keylen = 0,
				restlen;
	uint8_t    *a,
			   *b,
			   *key,
			   *shifted;
	const uint8_t *rest;
	double		target = 0;

	if (size >= 3)
	{
		alen = (size_t) fuzz_le(data, 2);
		keylen = data[2];
		data += 3;
		size -= 3;
	}
	if (alen > size)
		alen = size;
	if (keylen > size - alen)
		keylen = size - alen;
	a = fuzz_dup(data, alen);
	key = fuzz_dup(data + alen, keylen);
	rest = data + alen + keylen;
	restlen = size - alen - keylen;
	if (restlen >= 8)
		target = (double) (fuzz_le(rest, 8) >> 11) * 0x1p-53;
	check_sizing((int64_t) alen, target);

	/* every alignment the filter's copy may have */
	FUZZ_CHECK(bloom_popcount(a, alen) == ref_popcount(a, alen),
			   "popcount of %zu bytes", alen);
	if (alen > 1)
	{
		shifted = fuzz_dup(a + 1, alen - 1);
		FUZZ_CHECK(bloom_popcount(shifted, alen - 1) == ref_popcount(a + 1, alen - 1),
				   "popcount of %zu bytes at an odd address", alen - 1);
		free(shifted);
	}

	if (alen >= 1)
	{
		b = fuzz_alloc(alen);
		for (size_t i = 0; i + 1 < alen; i++)
			b[i] = restlen ? rest[i % restlen] : 0;
		b[alen - 1] = a[alen - 1];
		if (alen >= 2)
		{
			b[alen - 2] ^= 1;
			FUZZ_CHECK(bloom_same_geometry(a, alen, b, alen) &&
					   !bloom_same_geometry(a, alen, b, alen - 1),
					   "geometry of %zu bytes", alen);
			b[alen - 2] ^= 1;
			b[alen - 1] ^= 1;
			FUZZ_CHECK(!bloom_same_geometry(a, alen, b, alen),
					   "a different k byte, yet the same geometry");
			b[alen - 1] ^= 1;
		}
		check_setops(a, b, alen, key, keylen);
		free(b);
	}

	if (bloom_validate(a, alen) == BLOOM_OK)
		check_stats(a, alen);

	free(a);
	free(key);
	return 0;
}
