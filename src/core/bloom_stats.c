/*
 * bloom_stats.c
 *		Bit counts, key-count and false-positive estimates, and sizing.
 */
#include "bloom_stats.h"

#include "bloom_scheme.h"

#include <math.h>
#include <string.h>

/*
 * Eight bytes at a time: memcpy keeps any alignment legal and compiles to
 * one load; the byte order does not change a count.  Built twice on
 * x86-64: the baseline has no POPCNT instruction, and the compiler's
 * portable count is several times slower than the instruction, which the
 * planner's estimate of a constant filter of megabytes then waits for.
 */
static inline __attribute__((always_inline)) uint64_t
popcount_loop(const uint8_t *bytes, size_t len)
{
	uint64_t	total = 0;
	size_t		i = 0;

	for (; len - i >= 8; i += 8)
	{
		uint64_t	w;

		memcpy(&w, bytes + i, sizeof(w));
		total += (uint64_t) __builtin_popcountll(w);
	}
	for (; i < len; i++)
		total += (uint64_t) __builtin_popcount(bytes[i]);
	return total;
}

static uint64_t
popcount_portable(const uint8_t *bytes, size_t len)
{
	return popcount_loop(bytes, len);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define BLOOM_POPCOUNT_DISPATCH 1

/* the same loop, inlined where the compiler may use the instruction */
__attribute__((target("popcnt")))
static uint64_t
popcount_instruction(const uint8_t *bytes, size_t len)
{
	return popcount_loop(bytes, len);
}
#endif

uint64_t
bloom_popcount(const uint8_t *bytes, size_t len)
{
#ifdef BLOOM_POPCOUNT_DISPATCH
	/* asked once; threads that race store the same answer */
	static int	has_popcnt = -1;
	int			has = __atomic_load_n(&has_popcnt, __ATOMIC_RELAXED);

	if (has < 0)
	{
		__builtin_cpu_init();
		has = __builtin_cpu_supports("popcnt") ? 1 : 0;
		__atomic_store_n(&has_popcnt, has, __ATOMIC_RELAXED);
	}
	if (has)
		return popcount_instruction(bytes, len);
#endif
	return popcount_portable(bytes, len);
}

double
bloom_estimate_keys(uint64_t bits, unsigned k, uint64_t bits_set)
{
	if (bits_set >= bits)
		return INFINITY;
	/* log1p keeps its precision when only a few bits of many are set */
	return -((double) bits / k) * log1p(-((double) bits_set / (double) bits));
}

void
bloom_stats_of(const uint8_t *filter, size_t len, bloom_stats *stats)
{
	size_t		array_bytes = len - 1;
	uint64_t	reachable_bits = (uint64_t) array_bytes * 8;
	uint64_t	reachable_set;

	stats->filter_bytes = len;
	stats->bits = reachable_bits;
	stats->k = filter[len - 1];

	if (reachable_bits > BLOOM_REACHABLE_BITS_MAX)
		reachable_bits = BLOOM_REACHABLE_BITS_MAX;
	reachable_set = bloom_popcount(filter, (size_t) (reachable_bits / 8));
	stats->bits_set = reachable_set +
		bloom_popcount(filter + reachable_bits / 8,
					   array_bytes - (size_t) (reachable_bits / 8));

	stats->reachable_set = reachable_set;
	stats->fill_ratio = (double) reachable_set / (double) reachable_bits;
	stats->estimated_keys = bloom_estimate_keys(reachable_bits, stats->k,
												reachable_set);
	/* a key not in the filter matches when all of its k bits are set */
	stats->false_positive_rate = pow(stats->fill_ratio, stats->k);
}

double
bloom_ideal_fpr(int64_t bits_per_key)
{
	double		k;

	if (bits_per_key < 0)
		return NAN;
	if (bits_per_key == 0)
		return 1.0;
	k = bloom_k_for_bits_per_key(bits_per_key);

	/*
	 * The chance that one probe finds its bit set, once n keys have set k
	 * bits each in n * bpk bits, is 1 - (1 - 1/(n bpk))^(k n), which tends
	 * to 1 - e^(-k/bpk).  expm1 keeps the precision that 1 - exp() would
	 * lose for large bits_per_key.
	 */
	return pow(-expm1(-k / (double) bits_per_key), k);
}

/*
 * The chance that a fresh key's 32-bit hash equals one of nkeys stored
 * keys' hashes: such a key matches whatever the bits, so no bits_per_key
 * takes the rate below this.
 */
double
bloom_hash_collision_rate(double nkeys)
{
	return -expm1(nkeys * log1p(-1.0 / 4294967296.0));
}

/* The column of bloom_scheme_table that bloom_expected_fpr reads. */
static int
table_column(uint64_t nkeys)
{
	int			i;

	for (i = 0; i < BLOOM_SCHEME_TABLE_COUNTS; i++)
		if (bloom_scheme_table_counts[i] == nkeys)
			return i;
	return -1;
}

double
bloom_expected_fpr(int64_t bits_per_key)
{
	int			column = table_column(BLOOM_EXPECTED_FPR_KEYS);
	double		collide,
				last,
				shortfall;

	if (bits_per_key < 0)
		return NAN;
	if (bits_per_key == 0)
		return 1.0;
	if (bits_per_key <= BLOOM_SCHEME_TABLE_MAX_BPK)
		return bloom_scheme_table[bits_per_key - 1][column];

	/*
	 * Past the table the rates are too small to measure in the minutes
	 * the table takes to make.  They are the hash collisions, plus the
	 * ideal rate for the rest, scaled by how far the scheme fell short of
	 * it in the table's last row.
	 */
	collide = bloom_hash_collision_rate(BLOOM_EXPECTED_FPR_KEYS);
	last = bloom_scheme_table[BLOOM_SCHEME_TABLE_MAX_BPK - 1][column];
	shortfall = (last - collide) / ((1 - collide) *
									bloom_ideal_fpr(BLOOM_SCHEME_TABLE_MAX_BPK));
	return collide + (1 - collide) * bloom_ideal_fpr(bits_per_key) * shortfall;
}

int64_t
bloom_bits_per_key_for_fpr(double target)
{
	int64_t		bpk,
				lo,
				hi;

	/* every rate lies above the collisions, though doubles round onto them */
	if (!(target > bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS)))
		return BLOOM_BPK_UNREACHABLE;

	/*
	 * Below the bits_per_key where k reaches its cap, k changes with
	 * bits_per_key and the ideal rate need not fall at every step, so every
	 * candidate is tried.
	 */
	for (bpk = 0; bloom_k_for_bits_per_key(bpk) < BLOOM_MAX_K; bpk++)
		if (bloom_expected_fpr(bpk) <= target)
			return bpk;

	/*
	 * From there k stays 30 and the rate falls as bits_per_key grows:
	 * binary search for the first bits_per_key at or below the target.
	 */
	lo = bpk;
	hi = INT32_MAX;
	if (!(bloom_expected_fpr(hi) <= target))
		return BLOOM_BPK_UNREACHABLE;
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (bloom_expected_fpr(mid) <= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
