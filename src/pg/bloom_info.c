/*
 * bloom_info.c
 *		Looking into a filter (bloom_info, bloom_cardinality) and sizing one
 *		(bloom_expected_fpr, bloom_bits_per_key).  The arithmetic is the
 *		core's (bloom_stats.c, bloom_scheme.c); this file only moves values
 *		in and out, and gives the core its scratch memory.
 *
 * The rates and key counts users see are measured on LevelDB's probe
 * scheme (bloom_scheme.h), not taken from the ideal filter's formulas:
 * those are off by a factor of 3 in the rate and 14% in the keys.
 */
#include "postgres.h"

#include <math.h>

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_pg.h"
#include "bloom_scheme.h"
#include "bloom_stats.h"

PG_FUNCTION_INFO_V1(bloom_info);
PG_FUNCTION_INFO_V1(bloom_cardinality);
PG_FUNCTION_INFO_V1(bloom_expected_fpr_sql);
PG_FUNCTION_INFO_V1(bloom_bits_per_key_sql);
PG_FUNCTION_INFO_V1(bloom_expected_fpr_keys);
PG_FUNCTION_INFO_V1(bloom_bits_per_key_keys);

/* The columns of bloom_info's result, in the order of its OUT parameters. */
enum
{
	INFO_BYTES,
	INFO_BITS,
	INFO_K,
	INFO_BITS_SET,
	INFO_FILL_RATIO,
	INFO_ESTIMATED_KEYS,
	INFO_FALSE_POSITIVE_RATE,
	INFO_NCOLUMNS
};

/* A cancel or statement_timeout stops a long replay or measurement. */
static void
check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * The bit counts of the filter argument, and the number of keys behind
 * them as the scheme replays them (in scratch memory as large as the
 * filter's reachable bits).  The filter is often one stored value, row
 * after row: read it cached.
 */
static bytea *
filter_stats(FunctionCallInfo fcinfo, bloom_stats *stats)
{
	bytea	   *filter = bloom_filter_arg_cached(fcinfo, 0);
	size_t		len = BloomFilterLength(filter);
	uint8	   *scratch;

	bloom_stats_of(BloomFilterBytes(filter), len, stats);
	bloom_scheme_check_interrupts = check_interrupts;
	scratch = palloc(bloom_scheme_scratch_bytes(len));
	stats->estimated_keys = bloom_scheme_estimate_keys(len, stats->k,
													   stats->reachable_set,
													   scratch);
	pfree(scratch);
	return filter;
}

Datum
bloom_info(PG_FUNCTION_ARGS)
{
	bloom_stats stats;
	bytea	   *filter;
	TupleDesc	tupdesc;
	Datum		values[INFO_NCOLUMNS];
	bool		nulls[INFO_NCOLUMNS] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bloom_info must return a composite type");
	if (tupdesc->natts != INFO_NCOLUMNS)
		elog(ERROR, "bloom_info returns %d columns, expected %d",
			 tupdesc->natts, INFO_NCOLUMNS);
	tupdesc = BlessTupleDesc(tupdesc);

	filter = filter_stats(fcinfo, &stats);
	/* a rate too small to measure is the classical one, smaller still */
	stats.false_positive_rate = bloom_scheme_fpr(BloomFilterBytes(filter),
												 BloomFilterLength(filter),
												 BLOOM_SCHEME_PROBES_DEFAULT,
												 stats.false_positive_rate);
	values[INFO_BYTES] = Int64GetDatum((int64) stats.filter_bytes);
	values[INFO_BITS] = Int64GetDatum((int64) stats.bits);
	values[INFO_K] = Int32GetDatum((int32) stats.k);
	values[INFO_BITS_SET] = Int64GetDatum((int64) stats.bits_set);
	values[INFO_FILL_RATIO] = Float8GetDatum(stats.fill_ratio);
	values[INFO_ESTIMATED_KEYS] = Float8GetDatum(stats.estimated_keys);
	values[INFO_FALSE_POSITIVE_RATE] = Float8GetDatum(stats.false_positive_rate);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
bloom_cardinality(PG_FUNCTION_ARGS)
{
	bloom_stats stats;

	filter_stats(fcinfo, &stats);
	PG_RETURN_FLOAT8(stats.estimated_keys);
}

static void
check_target(float8 target)
{
	/* written so that NaN fails too */
	if (!(target > 0 && target < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target false-positive rate must be between 0 and 1"),
				 errdetail("The target was %g; it must be greater than 0 and less than 1.",
						   target),
				 errhint("A rate of 0.01 means 1%% of the keys not in the filter match.")));
}

/* No bits_per_key helps below the keys' own hash collisions. */
static void
report_unreachable(float8 target, double keys)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("no bits_per_key reaches a false-positive rate of %g for %.0f keys", target, keys),
			 errdetail("LevelDB's filter probes with a 32-bit hash, so a key not in the filter has the hash of one of %.0f keys with probability %g, whatever the bits.",
					   keys, bloom_hash_collision_rate(keys)),
			 errhint("Split the keys into several smaller filters, or accept a higher rate.")));
}

/* bloom_expected_fpr(bits_per_key integer) */
Datum
bloom_expected_fpr_sql(PG_FUNCTION_ARGS)
{
	int32		bits_per_key = PG_GETARG_INT32(0);

	bloom_check_bits_per_key(bits_per_key);
	PG_RETURN_FLOAT8(bloom_expected_fpr(bits_per_key));
}

/* bloom_bits_per_key(target_fpr double precision) */
Datum
bloom_bits_per_key_sql(PG_FUNCTION_ARGS)
{
	float8		target = PG_GETARG_FLOAT8(0);
	int64		bits_per_key;

	check_target(target);

	bits_per_key = bloom_bits_per_key_for_fpr(target);
	if (bits_per_key == BLOOM_BPK_UNREACHABLE)
		report_unreachable(target, (double) BLOOM_EXPECTED_FPR_KEYS);
	PG_RETURN_INT32((int32) bits_per_key);
}

/*
 * bloom_expected_fpr(bits_per_key integer, keys bigint): measured on
 * filters of that geometry (up to BLOOM_SCHEME_SIMULATE_MAX_BITS bits of
 * scratch; about 0.1 s a million keys).
 */
Datum
bloom_expected_fpr_keys(PG_FUNCTION_ARGS)
{
	int32		bits_per_key = PG_GETARG_INT32(0);
	int64		keys = PG_GETARG_INT64(1);
	bloom_geometry geometry;
	uint8	   *scratch;
	double		rate;

	bloom_check_bits_per_key(bits_per_key);
	bloom_check_key_count("keys", keys);
	bloom_value_geometry((uint64) keys, bits_per_key, &geometry);
	bloom_scheme_check_interrupts = check_interrupts;
	scratch = palloc(Max(bloom_scheme_for_keys_scratch_bytes((uint64) keys,
															 bits_per_key), 1));
	rate = bloom_scheme_fpr_for_keys((uint64) keys, bits_per_key, scratch);
	pfree(scratch);
	PG_RETURN_FLOAT8(rate);
}

/* bloom_bits_per_key(target_fpr double precision, keys bigint) */
Datum
bloom_bits_per_key_keys(PG_FUNCTION_ARGS)
{
	float8		target = PG_GETARG_FLOAT8(0);
	int64		keys = PG_GETARG_INT64(1);
	uint8	   *scratch;
	int64		bits_per_key;

	check_target(target);
	bloom_check_key_count("keys", keys);
	bloom_scheme_check_interrupts = check_interrupts;
	scratch = palloc(bloom_scheme_for_keys_scratch_bytes((uint64) keys,
														 BLOOM_SCHEME_SEARCH_MAX_BPK));
	bits_per_key = bloom_scheme_bits_per_key_for_keys(target, (uint64) keys,
													  scratch);
	pfree(scratch);
	if (bits_per_key == BLOOM_BPK_UNREACHABLE)
		report_unreachable(target, (double) keys);
	PG_RETURN_INT32((int32) bits_per_key);
}
