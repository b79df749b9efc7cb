/*
 * bloom_scheme.h
 *		What LevelDB's probe scheme really gives: the false-positive rate
 *		of a filter, the number of keys behind its bits, and the rate to
 *		expect for a geometry.  No PostgreSQL dependency.
 *
 * LevelDB derives all k probes of a key from one 32-bit hash h, stepping
 * by delta = rotate-right(h, 17) modulo 2^32 and then taking the result
 * modulo the bit count.  The probes are far from independent: the keys
 * set fewer distinct bits than k random probes would (at 10 bits a key and
 * 10^6 keys the fill is 0.403, not 0.451), and a key that is not in the
 * filter finds its bits set more often than the fill suggests (1.3%, not
 * 0.43%).  How much depends on the exact bit count, in a way no smooth
 * formula follows (10^5 keys: 1.44%; 100,003 keys: 1.25%; 150,000: 2.09%).
 *
 * So nothing here uses a formula for an ideal filter.  A filter's rate is
 * measured on it with a fixed stream of pseudo-random 32-bit hashes (what
 * fresh keys' hashes look like); its key count is found by replaying the
 * scheme into an empty bit array of the same geometry until as many bits
 * are set; the rate for a geometry is measured on filters built that way.
 * The streams are fixed, so every answer is a function of its arguments.
 */
#ifndef BLOOM_SCHEME_H
#define BLOOM_SCHEME_H

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * Probing stops at this many matches (a relative standard error of 1.6%)
 * or at the caller's probe budget, whichever comes first.
 */
#define BLOOM_SCHEME_TARGET_HITS	4096

/* The budget of bloom_info: 2^22 probes, enough for rates down to ~1e-3 */
#define BLOOM_SCHEME_PROBES_DEFAULT	(UINT64_C(1) << 22)

/* Fewer matches than this say too little: callers fall back (see below). */
#define BLOOM_SCHEME_MIN_HITS		100

typedef struct bloom_scheme_rate
{
	uint64_t	probes;
	uint64_t	hits;
} bloom_scheme_rate;

/*
 * Probe a filter bloom_validate accepted with the fixed hash stream until
 * BLOOM_SCHEME_TARGET_HITS match or max_probes were made.
 */
extern void bloom_scheme_measure(const uint8_t *filter, size_t len,
								 uint64_t max_probes, bloom_scheme_rate *rate);

/*
 * The false-positive rate of the filter: the measured rate, or, when fewer
 * than BLOOM_SCHEME_MIN_HITS matched, fallback (the caller's estimate of a
 * rate too small to measure in max_probes probes).
 */
extern double bloom_scheme_fpr(const uint8_t *filter, size_t len,
							   uint64_t max_probes, double fallback);

/*
 * The number of keys whose probes, replayed by the scheme into a bit array
 * of the same geometry, set as many of the reachable bits as bits_set;
 * +Infinity when all are set.  scratch holds bloom_scheme_scratch_bytes(len)
 * bytes.  It takes about as long as building a filter of that many keys.
 */
extern size_t bloom_scheme_scratch_bytes(size_t len);
extern double bloom_scheme_estimate_keys(size_t len, unsigned k,
										 uint64_t reachable_set,
										 uint8_t *scratch);

/*
 * The relative standard error of bloom_scheme_estimate_keys for a filter
 * whose reachable bits (nbits of them) are filled to fill_ratio: the
 * binomial spread of the bit count carried through the estimate,
 * sqrt(f / (m (1 - f))) / -ln(1 - f).
 */
extern double bloom_scheme_keys_rse(uint64_t nbits, double fill_ratio);

/*
 * The false-positive rate to expect from nkeys keys at bits_per_key: the
 * mean rate measured on filters of that geometry built from pseudo-random
 * hashes (several filters when they are small, since small filters differ
 * more from one another).  scratch holds bloom_scheme_expected_scratch_bytes
 * bytes.  Returns a negative number when the rate is too small to measure
 * (fewer than BLOOM_SCHEME_MIN_HITS matches in max_probes probes).
 */
extern size_t bloom_scheme_expected_scratch_bytes(uint64_t nkeys,
												  int64_t bits_per_key);
extern double bloom_scheme_expected_fpr(uint64_t nkeys, int64_t bits_per_key,
										uint64_t max_probes, uint8_t *scratch);

/*
 * The key counts of the table in bloom_scheme_table.h, and its size:
 * the rates for bits_per_key 1..BLOOM_SCHEME_TABLE_MAX_BPK at each count.
 */
#define BLOOM_SCHEME_TABLE_MAX_BPK	20
#define BLOOM_SCHEME_TABLE_COUNTS	13
extern const uint64_t bloom_scheme_table_counts[BLOOM_SCHEME_TABLE_COUNTS];
extern const double bloom_scheme_table[BLOOM_SCHEME_TABLE_MAX_BPK][BLOOM_SCHEME_TABLE_COUNTS];

/*
 * Called between batches of about a thousand hashes by every function here
 * that may run long (a replay of a billion keys takes many seconds), when
 * set: the PostgreSQL glue sets a function that checks for a cancel or a
 * statement timeout, and may leave by longjmp.  These functions hold no
 * resource but the memory their callers gave them, so that is safe.  NULL
 * (the default) checks nothing.
 */
extern void (*bloom_scheme_check_interrupts) (void);

/* The probe budget of the table, and of the rates for a named key count. */
#define BLOOM_SCHEME_TABLE_PROBES	(UINT64_C(1) << 24)

/*
 * The false-positive rate of nkeys keys at bits_per_key (>= 0): measured by
 * bloom_scheme_expected_fpr on filters of up to BLOOM_SCHEME_SIMULATE_MAX_BITS
 * bits; a larger filter is simulated at that size and the extra keys' hash
 * collisions added.  Rates too small to measure are the ideal rate plus the
 * collisions.  scratch holds bloom_scheme_for_keys_scratch_bytes bytes.
 */
#define BLOOM_SCHEME_SIMULATE_MAX_BITS	(UINT64_C(1) << 28)
extern size_t bloom_scheme_for_keys_scratch_bytes(uint64_t nkeys,
												  int64_t bits_per_key);
extern double bloom_scheme_fpr_for_keys(uint64_t nkeys, int64_t bits_per_key,
										uint8_t *scratch);

/*
 * The smallest bits_per_key (1..BLOOM_SCHEME_SEARCH_MAX_BPK) whose
 * bloom_scheme_fpr_for_keys is at most target, or BLOOM_BPK_UNREACHABLE
 * (below the hash collision rate of nkeys keys, none is).  scratch holds
 * bloom_scheme_for_keys_scratch_bytes(nkeys, BLOOM_SCHEME_SEARCH_MAX_BPK)
 * bytes.
 */
#define BLOOM_SCHEME_SEARCH_MAX_BPK	100
extern int64_t bloom_scheme_bits_per_key_for_keys(double target,
												  uint64_t nkeys,
												  uint8_t *scratch);

BLOOM_END_PRIVATE

#endif							/* BLOOM_SCHEME_H */
