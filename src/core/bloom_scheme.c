/*
 * bloom_scheme.c
 *		Rates and key counts measured on LevelDB's probe scheme itself
 *		(see bloom_scheme.h for why no formula will do).
 */
#include "bloom_scheme.h"

#include <math.h>
#include <string.h>

#include "bloom_mix64.h"
#include "bloom_stats.h"

void		(*bloom_scheme_check_interrupts) (void) = NULL;

static inline void
check_interrupts(void)
{
	if (bloom_scheme_check_interrupts != NULL)
		bloom_scheme_check_interrupts();
}

/* Hashes are made and used in batches of this many, on the stack. */
#define SCHEME_BATCH		1024

/*
 * Distinct streams for probing and for building, so that a simulated
 * filter is never probed with its own keys.
 */
#define PROBE_STREAM_SEED	UINT64_C(0x5ca1ab1e0ddba11)
#define BUILD_STREAM_SEED	UINT64_C(0xb1005eed5eed1e55)

/*
 * A key's hash: the high 32 bits of SplitMix64's next number, whose
 * output is equidistributed, so the hashes are as even as a good hash's.
 */
static inline uint32_t
next_hash(uint64_t *state)
{
	return (uint32_t) (bloom_mix64_next(state) >> 32);
}

static void
next_hashes(uint64_t *state, uint32_t *out, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		out[i] = next_hash(state);
}

/*
 * Probe until target_hits matched or max_probes were made, adding to rate.
 * The first bit of each batch is fetched ahead: a large filter is read at
 * random, and a probe that misses the cache would otherwise wait alone.
 */
static void
measure_stream(const bloom_prepared *p, const uint8_t *filter,
			   uint64_t *state, uint64_t max_probes, uint64_t target_hits,
			   bloom_scheme_rate *rate)
{
	uint32_t	batch[SCHEME_BATCH];
	uint64_t	probes = 0,
				hits = 0;

	while (probes < max_probes && hits < target_hits)
	{
		size_t		n = SCHEME_BATCH,
					i;

		if (max_probes - probes < n)
			n = (size_t) (max_probes - probes);
		check_interrupts();
		next_hashes(state, batch, n);
		for (i = 0; i < n; i++)
			__builtin_prefetch(filter + (bloom_prepared_bitpos(p, batch[i]) >> 3));
		for (i = 0; i < n; i++)
			hits += bloom_prepared_may_contain(p, filter, batch[i]);
		probes += n;
	}
	rate->probes += probes;
	rate->hits += hits;
}

void
bloom_scheme_measure(const uint8_t *filter, size_t len, uint64_t max_probes,
					 bloom_scheme_rate *rate)
{
	bloom_prepared p;
	uint64_t	state = PROBE_STREAM_SEED;

	bloom_prepare_probe(&p, filter, len);
	rate->probes = 0;
	rate->hits = 0;
	measure_stream(&p, filter, &state, max_probes, BLOOM_SCHEME_TARGET_HITS,
				   rate);
}

double
bloom_scheme_fpr(const uint8_t *filter, size_t len, uint64_t max_probes,
				 double fallback)
{
	bloom_scheme_rate rate;

	bloom_scheme_measure(filter, len, max_probes, &rate);
	if (rate.hits < BLOOM_SCHEME_MIN_HITS)
		return fallback;
	return (double) rate.hits / (double) rate.probes;
}

/* ---- key counts ---------------------------------------------------------- */

/* Only the first 2^32 bits can be reached (see BLOOM_REACHABLE_BITS_MAX). */
static uint64_t
reachable_bits_of(size_t len)
{
	uint64_t	bits = (uint64_t) (len - 1) * 8;

	return bits < BLOOM_REACHABLE_BITS_MAX ? bits : BLOOM_REACHABLE_BITS_MAX;
}

size_t
bloom_scheme_scratch_bytes(size_t len)
{
	return (size_t) (reachable_bits_of(len) / 8);
}

/* Set the bits of n more keys of the build stream. */
static void
replay_keys(const bloom_prepared *p, uint8_t *bit_array, uint64_t *state,
			uint64_t n)
{
	uint32_t	batch[SCHEME_BATCH];

	while (n > 0)
	{
		size_t		c = n < SCHEME_BATCH ? (size_t) n : SCHEME_BATCH;

		check_interrupts();
		next_hashes(state, batch, c);
		bloom_prepared_set_hashes(p, bit_array, batch, c);
		n -= c;
	}
}

/* -ln(1 - set/bits): grows almost linearly with the keys behind the bits */
static double
fill_log(uint64_t set, uint64_t bits)
{
	return -log1p(-((double) set / (double) bits));
}

/*
 * Replays of the scheme into a bit array of the geometry of p: how far
 * nkeys keys fill it, as fill_log.  A small array is filled differently by
 * every key set, so the fill of several replays (key sets) is averaged, as
 * in filters_to_average; a large one is filled alike by any, and replaying
 * one key set on from where the last call left it saves the keys already
 * replayed.
 */
typedef struct replay
{
	const bloom_prepared *p;
	uint8_t    *bit_array;
	uint64_t	reach;			/* bits in bit_array */
	unsigned	reps;
	uint64_t	state;			/* reps == 1: the stream so far */
	uint64_t	done;			/* reps == 1: keys replayed so far */
} replay;

static unsigned filters_to_average(uint64_t bits);

static double
replay_fill_log(replay *r, uint64_t nkeys)
{
	double		sum = 0;
	unsigned	i;

	if (r->reps == 1)
	{
		if (r->done == 0)
		{
			memset(r->bit_array, 0, (size_t) (r->reach / 8));
			r->state = BUILD_STREAM_SEED;
		}
		replay_keys(r->p, r->bit_array, &r->state, nkeys - r->done);
		r->done = nkeys;
		return fill_log(bloom_popcount(r->bit_array, (size_t) (r->reach / 8)),
						r->reach);
	}
	for (i = 0; i < r->reps; i++)
	{
		uint64_t	state = BUILD_STREAM_SEED + i;

		memset(r->bit_array, 0, (size_t) (r->reach / 8));
		replay_keys(r->p, r->bit_array, &state, nkeys);
		sum += fill_log(bloom_popcount(r->bit_array, (size_t) (r->reach / 8)),
						r->reach);
	}
	return sum / r->reps;
}

double
bloom_scheme_estimate_keys(size_t len, unsigned k, uint64_t reachable_set,
						   uint8_t *scratch)
{
	uint64_t	bits = (uint64_t) (len - 1) * 8;
	uint64_t	reach = reachable_bits_of(len);
	uint64_t	n1,
				n2,
				cap;
	double		y_target,
				y1,
				y2;
	bloom_prepared p;
	replay		r;

	if (reachable_set == 0)
		return 0;
	if (reachable_set >= reach)
		return INFINITY;

	/*
	 * Replay as many keys as an ideal filter would need (never more than
	 * the scheme needs, since its keys set fewer bits), then as many as
	 * the bits-per-key ratio seen there says, then interpolate between the
	 * two in -ln(1 - fill), which is nearly linear in the keys.  Beyond
	 * three probes a bit (fill ~95%) the last ratio is extrapolated rather
	 * than replaying ever more keys for ever fewer new bits.
	 */
	bloom_prepare(&p, bits, k);
	r.p = &p;
	r.bit_array = scratch;
	r.reach = reach;
	r.reps = filters_to_average(reach);
	r.done = 0;
	y_target = fill_log(reachable_set, reach);
	cap = 3 * reach / k + 1;
	n1 = (uint64_t) ceil(y_target * (double) reach / k);
	if (n1 < 1)
		n1 = 1;
	if (n1 > cap)
		n1 = cap;
	y1 = replay_fill_log(&r, n1);
	if (!(y1 > 0 && isfinite(y1)))
		return (double) n1;

	n2 = (uint64_t) ceil((double) n1 * y_target / y1);
	if (n2 > cap)
		n2 = cap;
	if (n2 <= n1)
		return (double) n1 * y_target / y1;
	y2 = replay_fill_log(&r, n2);
	if (!(y2 > y1 && isfinite(y2)))
		return (double) n2 * y_target / y1;
	return (double) n1 + (y_target - y1) * (double) (n2 - n1) / (y2 - y1);
}

double
bloom_scheme_keys_rse(uint64_t nbits, double fill_ratio)
{
	if (!(fill_ratio > 0 && fill_ratio < 1) || nbits == 0)
		return INFINITY;
	return sqrt(fill_ratio / ((double) nbits * (1 - fill_ratio))) /
		-log1p(-fill_ratio);
}

/* ---- the rate to expect for a geometry ----------------------------------- */

size_t
bloom_scheme_expected_scratch_bytes(uint64_t nkeys, int64_t bits_per_key)
{
	bloom_geometry g;

	if (bloom_geometry_for(nkeys, bits_per_key, &g) != BLOOM_OK)
		return 0;
	return (size_t) g.filter_bytes;
}

/*
 * Small filters of one geometry differ from one another more than large
 * ones (their few bits set vary more), so the rate to expect is averaged
 * over enough of them that about 2^22 bits were built in all, at most 64.
 */
static unsigned
filters_to_average(uint64_t bits)
{
	uint64_t	n = (UINT64_C(1) << 22) / bits;

	return n < 1 ? 1 : n > 64 ? 64 : (unsigned) n;
}

double
bloom_scheme_expected_fpr(uint64_t nkeys, int64_t bits_per_key,
						  uint64_t max_probes, uint8_t *scratch)
{
	bloom_geometry g;
	bloom_prepared build;
	bloom_prepared probe;
	uint64_t	probe_state = PROBE_STREAM_SEED;
	uint64_t	total_hits = 0;
	double		sum = 0;
	unsigned	reps,
				r;

	if (bloom_geometry_for(nkeys, bits_per_key, &g) != BLOOM_OK)
		return -1;
	reps = filters_to_average(g.bits);
	bloom_prepare(&build, g.bits, g.k);
	for (r = 0; r < reps; r++)
	{
		uint64_t	build_state = BUILD_STREAM_SEED + r;
		bloom_scheme_rate rate = {0, 0};

		memset(scratch, 0, (size_t) g.filter_bytes);
		scratch[g.filter_bytes - 1] = (uint8_t) g.k;
		replay_keys(&build, scratch, &build_state, nkeys);
		bloom_prepare_probe(&probe, scratch, (size_t) g.filter_bytes);
		measure_stream(&probe, scratch, &probe_state, max_probes / reps,
					   (BLOOM_SCHEME_TARGET_HITS + reps - 1) / reps, &rate);
		total_hits += rate.hits;
		sum += (double) rate.hits / (double) rate.probes;
	}
	if (total_hits < BLOOM_SCHEME_MIN_HITS)
		return -1;
	return sum / reps;
}

/* ---- for a key count the caller names ------------------------------------ */

/* The largest key count bloom_scheme_fpr_for_keys simulates at bits_per_key. */
static uint64_t
simulated_keys_max(int64_t bits_per_key)
{
	return BLOOM_SCHEME_SIMULATE_MAX_BITS / (uint64_t) (bits_per_key > 0 ? bits_per_key : 1);
}

size_t
bloom_scheme_for_keys_scratch_bytes(uint64_t nkeys, int64_t bits_per_key)
{
	uint64_t	most = simulated_keys_max(bits_per_key);

	return bloom_scheme_expected_scratch_bytes(nkeys < most ? nkeys : most,
											   bits_per_key);
}

double
bloom_scheme_fpr_for_keys(uint64_t nkeys, int64_t bits_per_key,
						  uint8_t *scratch)
{
	uint64_t	most = simulated_keys_max(bits_per_key);
	uint64_t	simulated = nkeys < most ? nkeys : most;
	double		rate,
				collide_sim,
				collide_all;

	if (bits_per_key == 0)
		return 1.0;
	if (nkeys == 0)
		return 0.0;				/* no bit set: nothing matches */
	rate = bloom_scheme_expected_fpr(simulated, bits_per_key,
									 BLOOM_SCHEME_TABLE_PROBES, scratch);
	if (rate < 0)
	{
		/* too rare to measure: the ideal rate and the collisions */
		double		collide = bloom_hash_collision_rate((double) simulated);

		rate = collide + (1 - collide) * bloom_ideal_fpr(bits_per_key);
	}
	if (simulated == nkeys)
		return rate;

	/*
	 * More keys than a simulation holds: the bits of a larger filter
	 * behave alike, and the extra keys add their hash collisions.
	 */
	collide_sim = bloom_hash_collision_rate((double) simulated);
	collide_all = bloom_hash_collision_rate((double) nkeys);
	return rate + (1 - rate) * (collide_all - collide_sim) / (1 - collide_sim);
}

int64_t
bloom_scheme_bits_per_key_for_keys(double target, uint64_t nkeys,
								   uint8_t *scratch)
{
	int64_t		bpk;

	if (!(target > bloom_hash_collision_rate((double) nkeys)))
		return BLOOM_BPK_UNREACHABLE;

	/*
	 * The scheme never beats the ideal filter, so the search starts where
	 * the ideal rate first reaches the target and walks up.
	 */
	for (bpk = 1; bpk <= BLOOM_SCHEME_SEARCH_MAX_BPK; bpk++)
		if (bloom_ideal_fpr(bpk) <= target)
			break;
	for (; bpk <= BLOOM_SCHEME_SEARCH_MAX_BPK; bpk++)
		if (bloom_scheme_fpr_for_keys(nkeys, bpk, scratch) <= target)
			return bpk;
	return BLOOM_BPK_UNREACHABLE;
}
