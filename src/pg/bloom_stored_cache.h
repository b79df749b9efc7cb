/*
 * bloom_stored_cache.h
 *		The backend's cache of detoasted stored filters, which outlives a
 *		query (bloom_stored_cache.c), under the per-call-site cache of
 *		bloom_filter_cache.c.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_STORED_CACHE_H
#define BLOOM_STORED_CACHE_H

#include "access/detoast.h"

#include "bloom_pg.h"

BLOOM_BEGIN_PRIVATE

/* A cached filter; a call site holds it pinned while it reads its bytes. */
typedef struct BloomStoredFilter BloomStoredFilter;

/*
 * The detoasted, checked filter that arg (an on-disk external datum whose
 * pointer is toast_pointer) names, from the backend's cache, read into it
 * first if it is not there or no longer valid: from the server's file of it
 * (bloom_shared_cache.c) if there is one, else from its table, and then,
 * if share, written to such a file for the server's other sessions.  The
 * entry is pinned: its
 * bytes stay until bloom_stored_cache_unpin(*pin).  NULL when the cache is
 * off, or the filter is too small to gain from it or too big for it: the
 * caller then detoasts it itself.
 */
extern const bytea *bloom_stored_cache_get(struct varlena *arg,
										   const struct varatt_external *toast_pointer,
										   bool share, BloomStoredFilter **pin);
extern void bloom_stored_cache_unpin(BloomStoredFilter *entry);

/* bloomfilter.stored_filter_cache, in kB, and its assign hook. */
extern int	bloom_stored_cache_kb;
extern void bloom_stored_cache_assign(int newval, void *extra);

/*
 * arg detoasted into cxt and checked (bloomfilter_check), a big one copied
 * into memory that may get huge pages (bloom_filter_cache.c).
 */
extern bytea *bloom_detoast_filter_into(struct varlena *arg, MemoryContext cxt);

BLOOM_END_PRIVATE

#endif							/* BLOOM_STORED_CACHE_H */
