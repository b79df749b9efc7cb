/*
 * bloom_probe.c
 *		The may-contain operators: key <~ filter and filter ~> key, for
 *		every key type.
 *
 * Called once per row of a scan or join, so nothing here allocates or
 * copies per row: the key is read in place (bloom_key_arg.h), and the
 * filter is read in place or, when stored out of line, detoasted once per
 * call site, where its prepared geometry is kept too.
 */
#include "postgres.h"

#include "bloom_filter_cache.h"
#include "bloom_key_arg.h"

/*
 * Per row: the filter's prepared geometry comes from the call site's cache
 * (no division, no detoasting), the key is hashed once, and at most k bits
 * are read.
 */
static pg_attribute_always_inline bool
may_contain(FunctionCallInfo fcinfo, int filter_argno, int key_argno,
			uint32 (*key_hash) (FunctionCallInfo fcinfo, int argno))
{
	BloomProbeFilter filter = bloom_probe_filter_arg(fcinfo, filter_argno);

	return bloom_prepared_may_contain(filter.prepared, filter.bytes,
									  key_hash(fcinfo, key_argno));
}

/* key <~ filter */
static pg_attribute_always_inline Datum
key_may_match(FunctionCallInfo fcinfo,
			  uint32 (*key_hash) (FunctionCallInfo fcinfo, int argno))
{
	PG_RETURN_BOOL(may_contain(fcinfo, 1, 0, key_hash));
}

/* filter ~> key */
static pg_attribute_always_inline Datum
filter_may_contain(FunctionCallInfo fcinfo,
				   uint32 (*key_hash) (FunctionCallInfo fcinfo, int argno))
{
	PG_RETURN_BOOL(may_contain(fcinfo, 0, 1, key_hash));
}

BLOOM_KEY_ENTRY_POINTS(bloom_key_may_match, key_may_match)
BLOOM_KEY_ENTRY_POINTS(bloom_filter_may_contain, filter_may_contain)
