/*
 * bloom_probe.c
 *		The may-contain operators: key <~ filter and filter ~> key.
 *
 * Called once per row of a scan or join, so nothing here allocates or
 * copies per row: the key is read in place (the _PP accessor copies only a
 * compressed or out-of-line key), and the filter is read in place or, when
 * stored out of line, detoasted once per call site, where its prepared
 * geometry is kept too.  text and bytea keys
 * share one function because both are hashed as their raw bytes.
 */
#include "postgres.h"

#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_key_may_match);
PG_FUNCTION_INFO_V1(bloom_filter_may_contain);

/*
 * Per row: the filter's prepared geometry comes from the call site's cache
 * (no division, no detoasting), the key is read in place, hashed once, and
 * at most k bits are read.
 */
static inline bool
may_contain(FunctionCallInfo fcinfo, int filter_argno, int key_argno)
{
	const bloom_prepared *prepared;
	const bytea *filter = bloom_filter_arg_prepared(fcinfo, filter_argno, &prepared);
	struct varlena *key = (struct varlena *) PG_GETARG_POINTER(key_argno);

	/* PG_GETARG_VARLENA_PP, with no call for a key that is read in place */
	if (unlikely(VARATT_IS_EXTERNAL(key) || VARATT_IS_COMPRESSED(key)))
		key = pg_detoast_datum_packed(key);

	return bloom_prepared_may_contain(prepared, BloomFilterBytes(filter),
									  bloom_key_hash(VARDATA_ANY(key),
													 VARSIZE_ANY_EXHDR(key)));
}

/* key <~ filter */
Datum
bloom_key_may_match(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(may_contain(fcinfo, 1, 0));
}

/* filter ~> key */
Datum
bloom_filter_may_contain(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(may_contain(fcinfo, 0, 1));
}
