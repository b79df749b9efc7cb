/*
 * stats_accuracy.c
 *		The figures users read about a filter, against measurement on real
 *		keys: filters are built from md5-like keys hashed by LevelDB's Hash
 *		and probed with 10^6 keys that are not in them.
 *
 *	- bloom_info's false-positive rate (bloom_scheme_fpr on the filter) and
 *	  bloom_expected_fpr(bits_per_key, keys) (bloom_scheme_fpr_for_keys):
 *	  within 10% of the measured rate, or 3 binomial standard errors of the
 *	  measurement when that is wider;
 *	- bloom_cardinality (bloom_scheme_estimate_keys): within 3% from 10^5
 *	  keys, within 3 of its documented standard errors below;
 *	- bloom_bits_per_key(target) and bloom_bits_per_key(target, keys): the
 *	  measured rate at the answer meets the target, and one bit a key less
 *	  does not (each within 3 standard errors).
 *
 * For 10^3 to 10^7 keys and bits_per_key 4 to 20 (--quick: up to 10^6).
 * Ends with "stats: N passed, N failed"; the lines before it are the
 * measurements (the table and plot of doc/statistics.md come from them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_mix64.h"
#include "bloom_scheme.h"
#include "bloom_stats.h"

#define FRESH_KEYS	1000000

static int	passed,
			failed;

static void
check(int ok, const char *what, const char *detail)
{
	if (ok)
		passed++;
	else
	{
		failed++;
		printf("FAIL %s: %s\n", what, detail);
	}
}

static void *
xcalloc(size_t n)
{
	void	   *p = calloc(n ? n : 1, 1);

	if (p == NULL)
	{
		fprintf(stderr, "stats_accuracy: out of memory\n");
		exit(2);
	}
	return p;
}

/*
 * Key i of a key set: 32 hex digits that look like md5(something), the
 * keys users hash most, hashed as LevelDB does.  (Counters written as
 * bytes hash into fewer collisions than random keys do, and would flatter
 * the filter.)
 */
static uint32_t
key_hash(uint32_t salt, uint64_t i)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t	a = bloom_mix64(((uint64_t) salt << 40) ^ i ^ BLOOM_MIX64_GAMMA),
				b = bloom_mix64(a + UINT64_C(0x632be59bd9b4e019));
	char		key[32];
	int			d;

	for (d = 0; d < 16; d++)
	{
		key[d] = hex[(a >> (4 * d)) & 15];
		key[16 + d] = hex[(b >> (4 * d)) & 15];
	}
	return bloom_key_hash(key, sizeof(key));
}

/* Build the filter of keys 0..n-1 of set salt into a zeroed buffer. */
static void
build(uint8_t *filter, const bloom_geometry *g, uint32_t salt, uint64_t n)
{
	uint32_t	batch[4096];
	bloom_prepared p;
	uint64_t	i = 0;

	bloom_prepare(&p, g->bits, g->k);
	filter[g->filter_bytes - 1] = (uint8_t) g->k;
	while (i < n)
	{
		size_t		c = 0;

		while (c < 4096 && i < n)
			batch[c++] = key_hash(salt, i++);
		bloom_prepared_set_hashes(&p, filter, batch, c);
	}
}

/* Matches among keys 0..probes-1 of set salt (none of them in the filter). */
static uint64_t
fresh_hits(const uint8_t *filter, size_t len, uint32_t salt, uint64_t probes)
{
	uint64_t	hits = 0,
				i;

	for (i = 0; i < probes; i++)
		hits += bloom_may_contain_hash(filter, len, key_hash(salt, i));
	return hits;
}

static double
binomial_se(double rate, double probes)
{
	return sqrt(rate * (1 - rate) / probes);
}

/* The rule for rates: 10% relative, or 3 standard errors when wider. */
static int
rate_close(double estimate, double measured, double probes)
{
	double		tol = fmax(0.10 * measured, 3 * binomial_se(measured, probes));

	return fabs(estimate - measured) <= tol;
}

/* The measured rate of a real filter of n keys at bpk (salt picks the set). */
static double
measured_rate(uint64_t n, int bpk, uint32_t salt)
{
	bloom_geometry g;
	uint8_t    *filter;
	double		rate;

	bloom_geometry_for(n, bpk, &g);
	filter = xcalloc(g.filter_bytes);
	build(filter, &g, salt, n);
	rate = (double) fresh_hits(filter, g.filter_bytes, salt + 1, FRESH_KEYS) / FRESH_KEYS;
	free(filter);
	return rate;
}

static void
one_case(uint64_t n, int bpk)
{
	bloom_geometry g;
	uint8_t    *filter,
			   *scratch;
	bloom_stats st;
	char		what[96],
				detail[256];
	double		info_rate,
				meas,
				expected,
				mean_meas,
				keys,
				rse,
				err;
	unsigned	reps,
				r;

	bloom_geometry_for(n, bpk, &g);
	filter = xcalloc(g.filter_bytes);
	build(filter, &g, 1000u * (uint32_t) bpk, n);
	bloom_stats_of(filter, g.filter_bytes, &st);
	meas = (double) fresh_hits(filter, g.filter_bytes, 1000u * (uint32_t) bpk + 1,
							   FRESH_KEYS) / FRESH_KEYS;

	/* bloom_info's rate, this filter's own */
	info_rate = bloom_scheme_fpr(filter, g.filter_bytes,
								 BLOOM_SCHEME_PROBES_DEFAULT,
								 st.false_positive_rate);
	snprintf(what, sizeof(what), "info rate, %llu keys, bpk %d",
			 (unsigned long long) n, bpk);
	snprintf(detail, sizeof(detail), "estimate %.4g, measured %.4g",
			 info_rate, meas);
	check(rate_close(info_rate, meas, FRESH_KEYS), what, detail);

	/* bloom_cardinality */
	scratch = xcalloc(bloom_scheme_scratch_bytes(g.filter_bytes));
	keys = bloom_scheme_estimate_keys(g.filter_bytes, g.k, st.bits_set, scratch);
	free(scratch);
	rse = bloom_scheme_keys_rse(st.bits, st.fill_ratio);
	err = keys / (double) n - 1;
	snprintf(what, sizeof(what), "cardinality, %llu keys, bpk %d",
			 (unsigned long long) n, bpk);
	snprintf(detail, sizeof(detail), "estimate %.0f (%+.2f%%), standard error %.2f%%",
			 keys, 100 * err, 100 * rse);
	check(fabs(err) <= (n >= 100000 ? 0.03 : 3 * rse), what, detail);

	/*
	 * bloom_expected_fpr(bpk, n): what filters of n keys give on average.
	 * Small filters differ from one another, so their mean over several
	 * key sets (10^6 fresh keys in all) is what it must match.
	 */
	reps = n >= 100000 ? 1 : (unsigned) (100000 / n);
	mean_meas = meas / reps;
	for (r = 1; r < reps; r++)
	{
		memset(filter, 0, g.filter_bytes);
		build(filter, &g, 1000u * (uint32_t) bpk + 2 * r + 10, n);
		mean_meas += (double) fresh_hits(filter, g.filter_bytes,
										 1000u * (uint32_t) bpk + 2 * r + 11,
										 FRESH_KEYS / reps) / (FRESH_KEYS / reps) / reps;
	}
	scratch = xcalloc(bloom_scheme_for_keys_scratch_bytes(n, bpk));
	expected = bloom_scheme_fpr_for_keys(n, bpk, scratch);
	free(scratch);
	snprintf(what, sizeof(what), "expected rate, %llu keys, bpk %d",
			 (unsigned long long) n, bpk);
	snprintf(detail, sizeof(detail), "estimate %.4g, measured %.4g", expected, mean_meas);
	check(rate_close(expected, mean_meas, FRESH_KEYS), what, detail);

	printf("case keys=%llu bpk=%d k=%u measured=%.6g info=%.6g expected=%.6g ideal=%.6g "
		   "classical=%.6g fill=%.4f keys_est=%.0f (%+.2f%%)\n",
		   (unsigned long long) n, bpk, g.k, meas, info_rate, expected,
		   bloom_ideal_fpr(bpk), st.false_positive_rate, st.fill_ratio, keys,
		   100 * err);
	fflush(stdout);
	free(filter);
}

/* The answer meets the target, and one bit a key less does not. */
static void
sizing_case(double target, uint64_t n, int64_t bpk, const char *how)
{
	char		what[96],
				detail[256];
	double		at = measured_rate(n, (int) bpk, 77),
				below = bpk > 1 ? measured_rate(n, (int) bpk - 1, 79) : 1;
	double		se_at = binomial_se(target, FRESH_KEYS);

	snprintf(what, sizeof(what), "%s(%g) at %llu keys", how, target,
			 (unsigned long long) n);
	snprintf(detail, sizeof(detail), "answer %lld: measured %.4g; at %lld: %.4g",
			 (long long) bpk, at, (long long) bpk - 1, below);
	check(at <= target + 3 * se_at && below > target - 3 * se_at, what, detail);
	printf("sizing %s\n", detail);
}

int
main(int argc, char **argv)
{
	static const uint64_t counts[] = {1000, 10000, 100000, 1000000, 10000000};
	static const double targets[] = {0.05, 0.02, 0.01, 0.005, 0.002, 0.001};
	int			quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	size_t		c,
				t;
	int			bpk;
	uint8_t    *scratch;

	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
	{
		if (quick && counts[c] > 1000000)
			continue;
		for (bpk = 4; bpk <= 20; bpk += 2)
			one_case(counts[c], bpk);
	}

	for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
		sizing_case(targets[t], BLOOM_EXPECTED_FPR_KEYS,
					bloom_bits_per_key_for_fpr(targets[t]), "bloom_bits_per_key");
	scratch = xcalloc(bloom_scheme_for_keys_scratch_bytes(100000,
														  BLOOM_SCHEME_SEARCH_MAX_BPK));
	for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t += 2)
		sizing_case(targets[t], 100000,
					bloom_scheme_bits_per_key_for_keys(targets[t], 100000, scratch),
					"bloom_bits_per_key(.., 100000)");
	free(scratch);

	printf("stats: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
