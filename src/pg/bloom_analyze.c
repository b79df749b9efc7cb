/*
 * bloom_analyze.c
 *		ANALYZE for bloomfilter columns: the usual statistics, and a summary
 *		of the filters themselves.
 *
 * A filter is usually wider than the 1 kB past which ANALYZE leaves a value
 * out of its most common values, so the standard statistics say nothing of
 * what a stored filter holds.  The planner needs that to estimate a
 * pre-check such as key <~ (SELECT f FROM filters WHERE name = 'x'): how
 * many keys the filter has (against the distinct keys of the probed column)
 * and how often an absent key passes.  The summary is the mean of both over
 * the sampled filters, in a slot of its own kind (bloom_analyze.h).
 */
#include "postgres.h"

#include <math.h>

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "commands/vacuum.h"
#include "fmgr.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_analyze.h"
#include "bloom_pg.h"
#include "bloom_scheme.h"
#include "bloom_stats.h"

/*
 * Probes for measuring the sampled filters' rates, all of them together:
 * each filter gets its share, at least BLOOM_ANALYZE_MIN_PROBES, so that
 * the cost of ANALYZE stays bounded however many filters are sampled.
 */
#define BLOOM_ANALYZE_PROBES		(UINT64_C(1) << 22)
#define BLOOM_ANALYZE_MIN_PROBES	(UINT64_C(1) << 10)

PG_FUNCTION_INFO_V1(bloomfilter_analyze);

/* The standard statistics' computation, which ours runs first. */
typedef struct BloomAnalyzeData
{
	AnalyzeAttrComputeStatsFunc std_compute;
	void	   *std_extra;
} BloomAnalyzeData;

static void
compute_bloomfilter_stats(VacAttrStatsP stats, AnalyzeAttrFetchFunc fetchfunc,
						  int samplerows, double totalrows)
{
	BloomAnalyzeData *data = (BloomAnalyzeData *) stats->extra_data;
	uint64		probes;
	double		sum_keys = 0.0;
	double		sum_fpr = 0.0;
	int			filters = 0;
	int			slot;
	int			i;
	MemoryContext old;

	stats->extra_data = data->std_extra;
	data->std_compute(stats, fetchfunc, samplerows, totalrows);
	stats->extra_data = data;

	probes = samplerows > 0 ? BLOOM_ANALYZE_PROBES / (uint64) samplerows : 0;
	probes = Max(probes, BLOOM_ANALYZE_MIN_PROBES);
	for (i = 0; i < samplerows; i++)
	{
		bool		isnull;
		Datum		value = fetchfunc(stats, i, &isnull);
		bytea	   *filter;
		bloom_stats fs;

		bloom_analyze_delay_point();
		if (isnull)
			continue;
		filter = DatumGetBloomFilterPP(value);
		/* a stored value that is no filter is no evidence */
		if (bloom_validate(BloomFilterBytes(filter), BloomFilterLength(filter)) == BLOOM_OK)
		{
			bloom_stats_of(BloomFilterBytes(filter), BloomFilterLength(filter), &fs);
			/* a saturated filter's count is unbounded: count its bits */
			sum_keys += isinf(fs.estimated_keys) ? (double) fs.bits : fs.estimated_keys;
			sum_fpr += bloom_scheme_fpr(BloomFilterBytes(filter), BloomFilterLength(filter),
										probes, fs.false_positive_rate);
			filters++;
		}
		if ((Pointer) filter != DatumGetPointer(value))
			pfree(filter);
	}
	if (filters == 0)
		return;
	for (slot = 0; slot < STATISTIC_NUM_SLOTS; slot++)
		if (stats->stakind[slot] == 0)
			break;
	if (slot == STATISTIC_NUM_SLOTS)
		return;					/* the standard statistics took every slot */

	old = MemoryContextSwitchTo(stats->anl_context);
	stats->stakind[slot] = BLOOM_STATISTIC_KIND;
	stats->staop[slot] = InvalidOid;
	stats->stacoll[slot] = InvalidOid;
	stats->stanumbers[slot] = palloc(BLOOM_STAT_NUMBERS * sizeof(float4));
	stats->stanumbers[slot][BLOOM_STAT_MEAN_KEYS] = (float4) (sum_keys / filters);
	stats->stanumbers[slot][BLOOM_STAT_MEAN_FPR] = (float4) (sum_fpr / filters);
	stats->stanumbers[slot][BLOOM_STAT_FILTERS] = (float4) filters;
	stats->numnumbers[slot] = BLOOM_STAT_NUMBERS;
	stats->numvalues[slot] = 0;
	MemoryContextSwitchTo(old);
}

/*
 * bloomfilter_analyze(internal): the type's ANALYZE function.  Only
 * ANALYZE calls it (its argument is internal); the standard set-up first,
 * then the summary on top.
 */
Datum
bloomfilter_analyze(PG_FUNCTION_ARGS)
{
	VacAttrStats *stats = (VacAttrStats *) PG_GETARG_POINTER(0);
	BloomAnalyzeData *data;

	if (!std_typanalyze(stats))
		PG_RETURN_BOOL(false);
	data = palloc(sizeof(BloomAnalyzeData));
	data->std_compute = stats->compute_stats;
	data->std_extra = stats->extra_data;
	stats->compute_stats = compute_bloomfilter_stats;
	stats->extra_data = data;
	PG_RETURN_BOOL(true);
}
