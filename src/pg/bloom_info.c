/*
 * bloom_info.c
 *		Looking into a filter (bloom_info, bloom_cardinality) and sizing one
 *		(bloom_expected_fpr, bloom_bits_per_key).  The arithmetic is the
 *		core's (bloom_stats.c); this file only moves values in and out.
 */
#include "postgres.h"

#include <math.h>

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/htup_details.h"
#include "funcapi.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_pg.h"
#include "bloom_stats.h"

PG_FUNCTION_INFO_V1(bloom_info);
PG_FUNCTION_INFO_V1(bloom_cardinality);
PG_FUNCTION_INFO_V1(bloom_expected_fpr_sql);
PG_FUNCTION_INFO_V1(bloom_bits_per_key_sql);

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

/* The filter is often one stored value, row after row: read it cached. */
static void
filter_stats(FunctionCallInfo fcinfo, bloom_stats *stats)
{
	bytea	   *filter = bloom_filter_arg_cached(fcinfo, 0);

	bloom_stats_of(BloomFilterBytes(filter), BloomFilterLength(filter), stats);
}

Datum
bloom_info(PG_FUNCTION_ARGS)
{
	bloom_stats stats;
	TupleDesc	tupdesc;
	Datum		values[INFO_NCOLUMNS];
	bool		nulls[INFO_NCOLUMNS] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bloom_info must return a composite type");
	if (tupdesc->natts != INFO_NCOLUMNS)
		elog(ERROR, "bloom_info returns %d columns, expected %d",
			 tupdesc->natts, INFO_NCOLUMNS);
	tupdesc = BlessTupleDesc(tupdesc);

	filter_stats(fcinfo, &stats);
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

	/* written so that NaN fails too */
	if (!(target > 0 && target < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target false-positive rate must be between 0 and 1"),
				 errdetail("The target was %g; it must be greater than 0 and less than 1.",
						   target),
				 errhint("A rate of 0.01 means 1%% of the keys not in the filter match.")));

	bits_per_key = bloom_bits_per_key_for_fpr(target);
	if (bits_per_key == BLOOM_BPK_UNREACHABLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no bits_per_key reaches a false-positive rate of %g", target),
				 errdetail("The largest bits_per_key, %d, gives an expected rate of %g.",
						   PG_INT32_MAX, bloom_expected_fpr(PG_INT32_MAX))));
	PG_RETURN_INT32((int32) bits_per_key);
}
