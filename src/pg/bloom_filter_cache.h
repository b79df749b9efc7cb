/*
 * bloom_filter_cache.h
 *		A call site's cache of its filter arguments (bloom_filter_cache.c),
 *		and the probe's way to it that makes no call for a filter it has
 *		seen: probing runs once per row of a scan or a join.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_FILTER_CACHE_H
#define BLOOM_FILTER_CACHE_H

#include "access/detoast.h"

#include "bloom_pg.h"
#include "bloom_stored_cache.h"

BLOOM_BEGIN_PRIVATE

typedef struct BloomFilterCache
{
	/* a filter stored out of line: its TOAST identity and detoasted copy */
	Oid			toastrelid;
	Oid			valueid;
	bytea	   *filter;			/* in fn_mcxt, or pinned's bytes */
	BloomStoredFilter *pinned;	/* the backend's cached filter, if used */

	/*
	 * The prepared geometry of the last filter probed here, inline or not.
	 * It depends only on the filter's length and k byte, so it is keyed on
	 * exactly those: an inline value can change from row to row at the same
	 * address, and a different filter of the same length and k shares the
	 * geometry anyway.
	 */
	bool		prepared_valid;
	uint8		prepared_kbyte;
	Size		prepared_len;
	bloom_prepared prepared;
} BloomFilterCache;

/*
 * One entry per argument: a function of two filters (bloom_union) often
 * gets one that changes per row and one that does not, and a single entry
 * would be evicted by each in turn.
 */
typedef struct BloomFilterCacheSet
{
	int			nargs;
	BloomFilterCache entries[FLEXIBLE_ARRAY_MEMBER];
} BloomFilterCacheSet;

/* What a probe reads: the filter's bytes and its prepared geometry. */
typedef struct BloomProbeFilter
{
	const uint8 *bytes;
	const bloom_prepared *prepared;
} BloomProbeFilter;

/* bloom_probe_filter_arg for a filter or geometry not yet in the cache. */
extern BloomProbeFilter bloom_probe_filter_arg_miss(FunctionCallInfo fcinfo, int argno);

/* The prepared geometry of the filter in entry, if it is the one prepared. */
static inline bool
bloom_cache_prepared_for(const BloomFilterCache *entry, const uint8 *bytes, Size len)
{
	return entry->prepared_valid && entry->prepared_len == len &&
		len > 0 && entry->prepared_kbyte == bytes[len - 1];
}

/*
 * Filter argument argno of a probe, as bloom_filter_arg_cached reads it,
 * with its prepared geometry (bloom_prepare_probe), kept in the same cache
 * and prepared again only when the filter's length or k byte changes.
 * For a filter read in place, or the cached copy of a stored one, whose
 * geometry is prepared: no call, no detoasting.
 */
static pg_attribute_always_inline BloomProbeFilter
bloom_probe_filter_arg(FunctionCallInfo fcinfo, int argno)
{
	const BloomFilterCacheSet *set = (const BloomFilterCacheSet *) fcinfo->flinfo->fn_extra;
	struct varlena *arg = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));

	if (likely(set != NULL && argno < set->nargs))
	{
		const BloomFilterCache *entry = &set->entries[argno];
		const bytea *filter = NULL;

		if (!VARATT_IS_EXTERNAL(arg) && !VARATT_IS_COMPRESSED(arg))
			filter = (const bytea *) arg;	/* in place, short header or not */
		else if (VARATT_IS_EXTERNAL_ONDISK(arg) && entry->filter != NULL)
		{
			struct varatt_external toast_pointer;

			VARATT_EXTERNAL_GET_POINTER(toast_pointer, arg);
			if (entry->toastrelid == toast_pointer.va_toastrelid &&
				entry->valueid == toast_pointer.va_valueid)
				filter = entry->filter;
		}
		if (likely(filter != NULL) &&
			likely(bloom_cache_prepared_for(entry, BloomFilterBytes(filter),
											BloomFilterLength(filter))))
		{
			BloomProbeFilter result = {BloomFilterBytes(filter), &entry->prepared};

			return result;
		}
	}
	return bloom_probe_filter_arg_miss(fcinfo, argno);
}

BLOOM_END_PRIVATE

#endif							/* BLOOM_FILTER_CACHE_H */
