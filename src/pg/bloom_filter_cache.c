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

/* Lets go of the backend's filter a call site entry points at, if any. */
static void
release_filter(BloomFilterCache *cache)
{
	if (cache->pinned != NULL)
		bloom_stored_cache_unpin(cache->pinned);
	else if (cache->filter != NULL)
		pfree(cache->filter);
	cache->pinned = NULL;
	cache->filter = NULL;
}

/* At the end of the call site's life (fn_mcxt reset or deleted). */
static void
release_pins(void *arg)
{
	BloomFilterCacheSet *set = (BloomFilterCacheSet *) arg;

	for (int i = 0; i < set->nargs; i++)
		if (set->entries[i].pinned != NULL)
		{
			bloom_stored_cache_unpin(set->entries[i].pinned);
			set->entries[i].pinned = NULL;
			set->entries[i].filter = NULL;
		}
}

/* This call site's cache entry for argument argno, made on first use. */
static BloomFilterCache *
cache_entry(FunctionCallInfo fcinfo, int argno)
{
	BloomFilterCacheSet *set = (BloomFilterCacheSet *) fcinfo->flinfo->fn_extra;

	if (set == NULL)
	{
		MemoryContextCallback *callback;

		set = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
									 offsetof(BloomFilterCacheSet, entries) +
									 fcinfo->nargs * sizeof(BloomFilterCache));
		set->nargs = fcinfo->nargs;
		callback = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(*callback));
		callback->func = release_pins;
		callback->arg = set;
		MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, callback);
		fcinfo->flinfo->fn_extra = set;
	}
	if (argno < 0 || argno >= set->nargs)
		elog(ERROR, "bloom_filter_arg_cached: argument %d of %d", argno, set->nargs);
	return &set->entries[argno];
}

bytea *
bloom_detoast_filter_into(struct varlena *arg, MemoryContext cxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	bytea	   *detoasted = (bytea *) detoast_attr(arg);

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
	return detoasted;
}

/* bloom_filter_arg_cached; share says whether a filter read from its table
 * is also written to the server's files (bloom_stored_cache_get). */
static bytea *
filter_arg_cached(FunctionCallInfo fcinfo, int argno, bool share)
{
	struct varlena *arg = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varatt_external toast_pointer;
	BloomFilterCache *cache;
	BloomStoredFilter *pin;
	const bytea *stored;

	/* inline values (short or not) are read where they are */
	if (!VARATT_IS_EXTERNAL_ONDISK(arg))
		return bloom_filter_datum_checked(PointerGetDatum(arg));

	VARATT_EXTERNAL_GET_POINTER(toast_pointer, arg);
	cache = cache_entry(fcinfo, argno);
	if (cache->filter != NULL &&
		cache->toastrelid == toast_pointer.va_toastrelid &&
		cache->valueid == toast_pointer.va_valueid)
		return cache->filter;

	release_filter(cache);
	stored = bloom_stored_cache_get(arg, &toast_pointer, share, &pin);
	if (stored != NULL)
	{
		/* read only: the probes and bloom_info never write a filter */
		cache->filter = unconstify(bytea *, stored);
		cache->pinned = pin;
	}
	else
		cache->filter = bloom_detoast_filter_into(arg, fcinfo->flinfo->fn_mcxt);
	cache->toastrelid = toast_pointer.va_toastrelid;
	cache->valueid = toast_pointer.va_valueid;
	return cache->filter;
}

bytea *
bloom_filter_arg_cached(FunctionCallInfo fcinfo, int argno)
{
	return filter_arg_cached(fcinfo, argno, true);
}

bytea *
bloom_filter_arg_for_output(FunctionCallInfo fcinfo, int argno)
{
	/* a direct call has no call site to keep a cache in */
	if (fcinfo->flinfo == NULL)
		return bloom_filter_datum_checked(PG_GETARG_DATUM(argno));
	return filter_arg_cached(fcinfo, argno, false);
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
