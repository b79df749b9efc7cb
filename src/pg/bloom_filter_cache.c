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

#include "bloom_filter_cache.h"

/* Detoasted filters up to this size are copied into huge pages. */
#define HUGE_COPY_MAX_BYTES		((Size) 256 << 20)

/* This call site's cache entry for argument argno, made on first use. */
static BloomFilterCache *
cache_entry(FunctionCallInfo fcinfo, int argno)
{
	BloomFilterCacheSet *set = (BloomFilterCacheSet *) fcinfo->flinfo->fn_extra;

	if (set == NULL)
	{
		set = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
									 offsetof(BloomFilterCacheSet, entries) +
									 fcinfo->nargs * sizeof(BloomFilterCache));
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
	BloomFilterCache *cache;
	MemoryContext oldcxt;
	bytea	   *detoasted;

	/* inline values (short or not) are read where they are */
	if (!VARATT_IS_EXTERNAL_ONDISK(arg))
		return bloom_filter_datum_checked(PointerGetDatum(arg));

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
	/* checked once, as it is cached: a stored value never changes */
	bloomfilter_check(BloomFilterBytes(detoasted), BloomFilterLength(detoasted),
					  ERRCODE_DATA_CORRUPTED);
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

BloomProbeFilter
bloom_probe_filter_arg_miss(FunctionCallInfo fcinfo, int argno)
{
	BloomFilterCache *cache = cache_entry(fcinfo, argno);
	const bytea *filter = bloom_filter_arg_cached(fcinfo, argno);
	const uint8 *bytes = BloomFilterBytes(filter);
	Size		len = BloomFilterLength(filter);
	BloomProbeFilter result;

	if (!bloom_cache_prepared_for(cache, bytes, len))
	{
		bloom_prepare_probe(&cache->prepared, bytes, len);
		cache->prepared_len = len;
		cache->prepared_kbyte = len > 0 ? bytes[len - 1] : 0;
		cache->prepared_valid = true;
	}
	result.bytes = bytes;
	result.prepared = &cache->prepared;
	return result;
}
