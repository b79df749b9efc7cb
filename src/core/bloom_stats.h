/*
 * bloom_stats.h
 *		What a filter's bits say about it, and how big to make one: bit
 *		counts, the estimated number of keys, false-positive rates, and the
 *		bits_per_key that reaches a target rate.  No PostgreSQL dependency.
 *
 * bloom_stats_of's estimates are the classical ones for an ideal filter
 * (each probe on an independent, uniformly random bit): cheap, and what the
 * planner uses.  LevelDB's probe scheme falls short of that ideal, so the
 * figures users see come from bloom_scheme.h, which measures the scheme.
 */
#ifndef BLOOM_STATS_H
#define BLOOM_STATS_H

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * The bits a probe can reach: LevelDB takes a 32-bit sum modulo the bit
 * count, so a larger filter is only ever set or read in its first 2^32
 * bits, and only those bits say anything about its keys.
 */
#define BLOOM_REACHABLE_BITS_MAX	(UINT64_C(1) << 32)

typedef struct bloom_stats
{
	uint64_t	filter_bytes;	/* whole filter, including the k byte */
	uint64_t	bits;			/* size of the bit array in bits */
	unsigned	k;				/* the final byte */
	uint64_t	bits_set;		/* in the whole bit array */
	uint64_t	reachable_set;	/* in its first 2^32 bits */
	double		fill_ratio;		/* fraction of the reachable bits set */
	/* the classical estimates for an ideal filter: see above */
	double		estimated_keys; /* +Infinity once every reachable bit is set */
	double		false_positive_rate;	/* for a key not in the filter */
} bloom_stats;

/* The number of 1 bits in len bytes at any alignment. */
extern uint64_t bloom_popcount(const uint8_t *bytes, size_t len);

/*
 * The stats of a filter that bloom_validate accepted (len >= 2, k 1..30).
 * Reads every byte once.
 */
extern void bloom_stats_of(const uint8_t *filter, size_t len,
						   bloom_stats *stats);

/*
 * The number of distinct keys that most likely set bits_set of bits bits
 * with k probes each [Swamidass, Baldi 2007]: -bits/k * ln(1 - set/bits).
 * +Infinity when every bit is set: any number of keys could have done it.
 */
extern double bloom_estimate_keys(uint64_t bits, unsigned k,
								  uint64_t bits_set);

/*
 * The false-positive rate of an ideal filter (independent, uniformly
 * random probes) with LevelDB's own choice of k at bits_per_key bits a
 * key: (1 - e^(-k/bpk))^k with k = bloom_k_for_bits_per_key(bpk).  LevelDB's
 * probe scheme does worse (bloom_scheme.h); this is the yardstick.
 * bits_per_key 0 gives 1: such a filter has a fixed 64 bits however many
 * keys it holds, so it tends to match everything.  bits_per_key must not
 * be negative.
 */
extern double bloom_ideal_fpr(int64_t bits_per_key);

/* The key count bloom_expected_fpr answers for. */
#define BLOOM_EXPECTED_FPR_KEYS		UINT64_C(1000000)

/*
 * The false-positive rate LevelDB's scheme gives BLOOM_EXPECTED_FPR_KEYS
 * keys at bits_per_key: measured (bloom_scheme_table) up to
 * BLOOM_SCHEME_TABLE_MAX_BPK; past it, the hash collisions of that many
 * keys plus bloom_ideal_fpr scaled by the table's last shortfall.  NaN for
 * a negative bits_per_key, 1 for 0.  It never falls below
 * bloom_hash_collision_rate(BLOOM_EXPECTED_FPR_KEYS).
 */
extern double bloom_expected_fpr(int64_t bits_per_key);

/*
 * The chance that a key not in a filter of nkeys keys has one of their
 * 32-bit hashes, 1 - (1 - 2^-32)^nkeys: the floor of any filter's rate.
 */
extern double bloom_hash_collision_rate(double nkeys);

/* bloom_bits_per_key_for_fpr's answer when no int32 bits_per_key will do */
#define BLOOM_BPK_UNREACHABLE	(-1)

/*
 * The smallest bits_per_key (0..INT32_MAX) whose bloom_expected_fpr is at
 * most target, which must lie in (0, 1); BLOOM_BPK_UNREACHABLE when even
 * INT32_MAX bits a key are not enough (targets at or below the hash
 * collision rate of BLOOM_EXPECTED_FPR_KEYS keys, about 2.3e-4).
 */
extern int64_t bloom_bits_per_key_for_fpr(double target);

BLOOM_END_PRIVATE

#endif							/* BLOOM_STATS_H */
