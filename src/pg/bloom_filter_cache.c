/*
 * bloom_filter_cache.c
 *		Detoast a stored filter once per call site, not once per row.
 *
 * A probe in a join or a scan usually sees the same filter row after row:
 * a filter column joined to a big table, or a scalar subquery selecting a
 * stored filter (which hands over the TOAST pointer, not the bytes).  A
 * filter stored out of line would then be fetched and copied per row.
 * Instead, the detoasted copy is kept in fn_mcxt, keyed by the TOAST
 * pointer's identity (toast relation and value OID): a stored TOAST value
 * is never changed in place, so the same identity means the same bytes,
 * and any other value simply replaces the cached one.  The same idea as
 * PostGIS's ToastCacheGetGeometry.
 *
 * The probe operators also keep here what depends only on the filter's
 * geometry (bits, k and the reciprocal that replaces the division per
 * probe, see bloom_prepared), so that a row costs one hash and at most k
 * memory reads.
 */
#include "postgres.h"

#include "access/detoast.h"

#include "bloom_pg.h"

/* Detoasted filters up to this size are copied into huge pages. */
#define HUGE_COPY_MAX_BYTES		((Size) 256 << 20)

typedef struct FilterCache
{
	Oid			toastrelid;
	Oid			valueid;
	bytea	   *filter;			/* detoasted copy, in fn_mcxt */

	/*
	 * bloom_filter_arg_prepared: the prepared geometry of the last filter
	 * seen here, inline or not.  It depends only on the filter's length and
	 * k byte, so it is keyed on exactly those: an inline value can change
	 * from row to row at the same address, and a different filter of the
	 * same length and k shares the geometry anyway.
	 */
	bool		prepared_valid;
	uint8		prepared_kbyte;
	Size		prepared_len;
	bloom_prepared prepared;
} FilterCache;

/*
 * One entry per argument: a function of two filters (bloom_union) often
 * gets one that changes per row and one that does not, and a single entry
 * would be evicted by each in turn.
 */
typedef struct FilterCacheSet
{
	int			nargs;
	FilterCache entries[FLEXIBLE_ARRAY_MEMBER];
} FilterCacheSet;

/* This call site's cache entry for argument argno, made on first use. */
static FilterCache *
cache_entry(FunctionCallInfo fcinfo, int argno)
{
	FilterCacheSet *set = (FilterCacheSet *) fcinfo->flinfo->fn_extra;

	if (set == NULL)
	{
		set = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
									 offsetof(FilterCacheSet, entries) +
									 fcinfo->nargs * sizeof(FilterCache));
		set->nargs = fcinfo->nargs;
		fcinfo->flinfo->fn_extra = set;
	}
	if (argno < 0 || argno >= set->nargs)
		elog(ERROR, "bloom_filter_arg_cached: argument %d of %d", argno, set->nargs);
	return &set->entries[argno];
}

bytea *
bloom_filter_arg_cached(FunctionCallInfo fcinfo, int argno)
{
	struct varlena *arg = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varatt_external toast_pointer;
	FilterCache *cache;
	MemoryContext oldcxt;
	bytea	   *detoasted;

	/* inline values (short or not) are read where they are */
	if (!VARATT_IS_EXTERNAL_ONDISK(arg))
		return DatumGetBloomFilterPP(PointerGetDatum(arg));

	VARATT_EXTERNAL_GET_POINTER(toast_pointer, arg);
	cache = cache_entry(fcinfo, argno);
	if (cache->filter != NULL &&
		cache->toastrelid == toast_pointer.va_toastrelid &&
		cache->valueid == toast_pointer.va_valueid)
		return cache->filter;

	if (cache->filter != NULL)
	{
		pfree(cache->filter);
		cache->filter = NULL;
	}
	oldcxt = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	detoasted = (bytea *) detoast_attr(arg);
	if (VARSIZE(detoasted) >= BLOOM_HUGE_PAGES_MIN_BYTES &&
		VARSIZE(detoasted) <= HUGE_COPY_MAX_BYTES)
	{
		/*
		 * A big filter is probed at random row after row: copy it once into
		 * memory that may get huge pages, so that the probes do not also
		 * miss the TLB.  (Not the largest ones: both copies exist for a
		 * moment.)
		 */
		bytea	   *copy = palloc(VARSIZE(detoasted));

		bloom_advise_huge_pages(copy, VARSIZE(detoasted));
		memcpy(copy, detoasted, VARSIZE(detoasted));
		pfree(detoasted);
		detoasted = copy;
	}
	MemoryContextSwitchTo(oldcxt);
	cache->filter = detoasted;
	cache->toastrelid = toast_pointer.va_toastrelid;
	cache->valueid = toast_pointer.va_valueid;
	return cache->filter;
}

const bytea *
bloom_filter_arg_prepared(FunctionCallInfo fcinfo, int argno,
						  const bloom_prepared **prepared)
{
	struct varlena *arg = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	FilterCacheSet *set = (FilterCacheSet *) fcinfo->flinfo->fn_extra;
	FilterCache *cache;
	const bytea *filter;
	const uint8 *bytes;
	Size		len;
	uint8		kbyte;

	/* called per row: no call on the way for an inline filter */
	if (likely(set != NULL && argno >= 0 && argno < set->nargs))
		cache = &set->entries[argno];
	else
		cache = cache_entry(fcinfo, argno);
	if (likely(!VARATT_IS_EXTERNAL(arg) && !VARATT_IS_COMPRESSED(arg)))
		filter = (const bytea *) arg;	/* in place, short header or not */
	else
	{
		struct varatt_external toast_pointer;

		filter = NULL;
		if (VARATT_IS_EXTERNAL_ONDISK(arg) && cache->filter != NULL)
		{
			/* bloom_filter_arg_cached's cache hit, without the calls */
			VARATT_EXTERNAL_GET_POINTER(toast_pointer, arg);
			if (cache->toastrelid == toast_pointer.va_toastrelid &&
				cache->valueid == toast_pointer.va_valueid)
				filter = cache->filter;
		}
		if (filter == NULL)
			filter = bloom_filter_arg_cached(fcinfo, argno);
	}

	bytes = BloomFilterBytes(filter);
	len = BloomFilterLength(filter);
	kbyte = len > 0 ? bytes[len - 1] : 0;
	if (unlikely(!cache->prepared_valid || cache->prepared_len != len ||
				 cache->prepared_kbyte != kbyte))
	{
		bloom_prepare_probe(&cache->prepared, bytes, len);
		cache->prepared_len = len;
		cache->prepared_kbyte = kbyte;
		cache->prepared_valid = true;
	}
	*prepared = &cache->prepared;
	return filter;
}
