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
 */
#include "postgres.h"

#include "access/detoast.h"

#include "bloom_pg.h"

typedef struct FilterCache
{
	Oid			toastrelid;
	Oid			valueid;
	bytea	   *filter;			/* detoasted copy, in fn_mcxt */
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

bytea *
bloom_filter_arg_cached(FunctionCallInfo fcinfo, int argno)
{
	struct varlena *arg = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varatt_external toast_pointer;
	FilterCacheSet *set;
	FilterCache *cache;
	MemoryContext oldcxt;

	/* inline values (short or not) are read where they are */
	if (!VARATT_IS_EXTERNAL_ONDISK(arg))
		return DatumGetBloomFilterPP(PointerGetDatum(arg));

	VARATT_EXTERNAL_GET_POINTER(toast_pointer, arg);
	set = (FilterCacheSet *) fcinfo->flinfo->fn_extra;
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
	cache = &set->entries[argno];
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
	cache->filter = (bytea *) detoast_attr(arg);
	MemoryContextSwitchTo(oldcxt);
	cache->toastrelid = toast_pointer.va_toastrelid;
	cache->valueid = toast_pointer.va_valueid;
	return cache->filter;
}
