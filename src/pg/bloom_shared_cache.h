/*
 * bloom_shared_cache.h
 *		Stored filters kept in files that every backend of the server reads
 *		(bloom_shared_cache.c), under the session caches of
 *		bloom_stored_cache.c.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_SHARED_CACHE_H
#define BLOOM_SHARED_CACHE_H

#include "access/detoast.h"
#include "storage/itemptr.h"

#include "bloom_pg.h"

BLOOM_BEGIN_PRIVATE

/*
 * What identifies one stored value as it was read: its TOAST pointer, and
 * the tuple that holds its chunk 0 (the reasoning is bloom_stored_cache.c's).
 */
typedef struct BloomStoredIdentity
{
	struct varatt_external pointer;
	ItemPointerData tid;
	TransactionId xmin;			/* raw: freezing keeps it */
	struct varlena *chunk0;		/* the chunk's bytes, with a 4-byte header */
} BloomStoredIdentity;

/*
 * The filter id names, mapped read-only from the server's file of it until
 * cxt is reset or deleted, or NULL when there is no such file or it holds
 * another value, bytes that fail their checksum, or a file of an earlier
 * start of the server.
 */
extern const bytea *bloom_shared_cache_map(const BloomStoredIdentity *id, MemoryContext cxt);

/*
 * Writes filter, just read from its table and checked, as the server's file
 * for id, first making room under bloomfilter.shared_filter_cache.  A file
 * that cannot be written is logged and skipped: the cache only saves time.
 */
extern void bloom_shared_cache_write(const BloomStoredIdentity *id, const bytea *filter);

/* bloomfilter.shared_filter_cache, in kB: the files' bound; 0 is off. */
extern int	bloom_shared_cache_kb;

BLOOM_END_PRIVATE

#endif							/* BLOOM_SHARED_CACHE_H */
