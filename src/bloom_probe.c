/*
 * bloom_probe.c
 *		The may-contain operators: key <~ filter and filter ~> key.
 *
 * Called once per row of a scan or join, so nothing here allocates or
 * copies per row: the key is read in place (the _PP accessor copies only a
 * compressed or out-of-line key), and the filter is read in place or, when
 * stored out of line, detoasted once per call site.  text and bytea keys
 * share one function because both are hashed as their raw bytes.
 */
#include "postgres.h"

#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_key_may_match);
PG_FUNCTION_INFO_V1(bloom_filter_may_contain);

static inline bool
may_contain(bytea *filter, struct varlena *key)
{
	return bloom_may_contain(BloomFilterBytes(filter), BloomFilterLength(filter),
							 VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));
}

/* key <~ filter */
Datum
bloom_key_may_match(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(may_contain(bloom_filter_arg_cached(fcinfo, 1),
							   PG_GETARG_VARLENA_PP(0)));
}

/* filter ~> key */
Datum
bloom_filter_may_contain(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(may_contain(bloom_filter_arg_cached(fcinfo, 0),
							   PG_GETARG_VARLENA_PP(1)));
}
