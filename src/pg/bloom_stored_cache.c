/*
 * bloom_stored_cache.c
 *		Detoast a stored filter once per backend, not once per query.
 *
 * The per-call-site cache (bloom_filter_cache.c) reads a stored filter once
 * per query.  A query that runs many times in one backend would still read
 * it each time: a distributed query whose tasks each probe a filter kept in
 * a replicated table, or an application that probes the same stored filter
 * query after query.  A big filter costs milliseconds to fetch and copy, so
 * the backend keeps the filters it read, up to bloomfilter.stored_filter_cache
 * kB, in a memory context under TopMemoryContext, keyed by the TOAST
 * pointer's identity (toast relation and value OID: a backend stays in one
 * database, so they name one relation's value), least recently used first
 * out.  Nothing drops an entry when its table is dropped or changed: the
 * validation below already keeps a changed value from being used, and the
 * bound and the eviction free the memory.
 *
 * Why this never answers with a stale filter.  A TOAST value is never
 * changed in place: while its OID lives, its chunks are the same tuples
 * (UPDATE of the row stores a new value under a new OID).  A value OID can
 * name other bytes only after the old value was deleted and vacuumed away
 * and the OID counter came round again to the same number (TOAST OIDs are
 * never reused while any tuple, dead or alive, still holds them); and then
 * chunk 0 of the new value is another tuple, written by another
 * transaction.  VACUUM FULL, CLUSTER and TRUNCATE write new tuples too.  So
 * an entry is used only after the value's chunk 0, as it is now, is looked
 * up (one index probe of the toast relation under the TOAST snapshot) and
 * found to be the very tuple that was read when the entry was filled: the
 * same TID and raw xmin, the same bytes (chunk 0's data), and the pointer
 * the same sizes.  Any other value fails one of these and is read again.
 * Matching all of them by chance needs the same OID and the same TID
 * written by the same transaction ID, which takes both the 32-bit OID and
 * transaction ID counters to wrap round while this backend keeps the entry,
 * and then the same first chunk of bytes: only a value whose first ~2 kB are
 * those of the cached one, that is, for filters, in practice the same filter.
 *
 * A call site points at an entry's bytes and pins the entry, so that
 * neither eviction nor a failed validation frees bytes a query still
 * reads: an entry replaced while pinned leaves the table and is freed at
 * its last unpin.
 *
 * Small filters are not kept: a value of a few chunks costs about what the
 * validation's index probe costs, and a join that reads a different one per
 * row would only churn the cache.
 */
#include "postgres.h"

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/toast_internals.h"
#include "lib/ilist.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_shared_cache.h"
#include "bloom_stored_cache.h"

/* Filters of fewer bytes are not kept (about 32 TOAST chunks). */
#define STORED_CACHE_MIN_BYTES	((Size) 64 << 10)

int			bloom_stored_cache_kb = 64 << 10;

typedef struct StoredKey
{
	Oid			toastrelid;
	Oid			valueid;
} StoredKey;

struct BloomStoredFilter
{
	MemoryContext cxt;			/* holds the entry and all it points to */
	BloomStoredIdentity id;		/* as it was when filled */
	const bytea *filter;		/* in cxt, or mapped until cxt goes */
	Size		charged;		/* bytes counted against the bound */
	int			pins;
	bool		in_table;		/* else replaced: freed at its last unpin */
	dlist_node	lru;			/* in lru while in_table */
};

typedef struct StoredSlot
{
	StoredKey	key;
	BloomStoredFilter *entry;
} StoredSlot;

static MemoryContext stored_cxt = NULL;
static HTAB *stored_table = NULL;
static dlist_head lru = DLIST_STATIC_INIT(lru);	/* most recent first */
static Size stored_bytes = 0;

static Size
bound_bytes(int kb)
{
	return (Size) kb * 1024;
}

static void
ensure_table(void)
{
	HASHCTL		ctl;

	if (stored_table != NULL)
		return;
	if (stored_cxt == NULL)
		stored_cxt = AllocSetContextCreate(TopMemoryContext,
										   "bloomfilter stored filters",
										   ALLOCSET_DEFAULT_SIZES);
	MemSet(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(StoredKey);
	ctl.entrysize = sizeof(StoredSlot);
	ctl.hcxt = stored_cxt;
	stored_table = hash_create("bloomfilter stored filters", 16, &ctl,
							   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
free_entry(BloomStoredFilter *entry)
{
	stored_bytes -= entry->charged;
	MemoryContextDelete(entry->cxt);
}

/* Takes entry out of the table; frees it unless a call site holds it. */
static void
remove_entry(BloomStoredFilter *entry)
{
	StoredKey	key = {entry->id.pointer.va_toastrelid, entry->id.pointer.va_valueid};

	hash_search(stored_table, &key, HASH_REMOVE, NULL);
	dlist_delete(&entry->lru);
	entry->in_table = false;
	if (entry->pins == 0)
		free_entry(entry);
}

/*
 * Evicts unpinned entries, least recently used first, until need more
 * bytes fit under bound; false if they cannot.
 */
static bool
make_room(Size need, Size bound)
{
	dlist_node *node;

	if (stored_table == NULL || dlist_is_empty(&lru))
		return stored_bytes + need <= bound;
	node = dlist_tail_node(&lru);
	while (node != NULL && stored_bytes + need > bound)
	{
		BloomStoredFilter *entry = dlist_container(BloomStoredFilter, lru, node);

		node = dlist_has_prev(&lru, node) ? dlist_prev_node(&lru, node) : NULL;
		if (entry->pins == 0)
			remove_entry(entry);
	}
	return stored_bytes + need <= bound;
}

void
bloom_stored_cache_assign(int newval, void *extra)
{
	(void) extra;
	make_room(0, bound_bytes(newval));
}

/*
 * The identity of the value toast_pointer names, with chunk 0 as the TOAST
 * snapshot sees it now, its data copied into the current memory context;
 * false if there is no chunk 0 (a broken value: detoasting it reports it).
 */
static bool
read_identity(const struct varatt_external *toast_pointer, BloomStoredIdentity *out)
{
	Relation	toastrel;
	Relation   *toastidxs;
	int			num_indexes;
	int			valid_index;
	ScanKeyData key[2];
	SnapshotData snapshot_space;
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		found = false;

	toastrel = table_open(toast_pointer->va_toastrelid, AccessShareLock);
	valid_index = toast_open_indexes(toastrel, AccessShareLock, &toastidxs, &num_indexes);
	ScanKeyInit(&key[0], (AttrNumber) 1, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(toast_pointer->va_valueid));
	ScanKeyInit(&key[1], (AttrNumber) 2, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum(0));
	scan = systable_beginscan_ordered(toastrel, toastidxs[valid_index],
									  bloom_toast_snapshot(&snapshot_space), 2, key);
	tuple = systable_getnext_ordered(scan, ForwardScanDirection);
	if (tuple != NULL)
	{
		bool		isnull;
		Datum		data = heap_getattr(tuple, 3, RelationGetDescr(toastrel), &isnull);

		if (!isnull)
		{
			out->pointer = *toast_pointer;
			out->tid = tuple->t_self;
			out->xmin = HeapTupleHeaderGetRawXmin(tuple->t_data);
			/* a copy with a 4-byte header, whatever the chunk's */
			out->chunk0 = PG_DETOAST_DATUM_COPY(data);
			found = true;
		}
	}
	systable_endscan_ordered(scan);
	toast_close_indexes(toastidxs, num_indexes, AccessShareLock);
	table_close(toastrel, AccessShareLock);
	return found;
}

/* Whether entry was filled from the value that is there now. */
static bool
entry_valid(const BloomStoredFilter *entry, const BloomStoredIdentity *now)
{
	return memcmp(&entry->id.pointer, &now->pointer, sizeof(now->pointer)) == 0 &&
		ItemPointerEquals((ItemPointer) &entry->id.tid, (ItemPointer) &now->tid) &&
		entry->id.xmin == now->xmin &&
		VARSIZE(entry->id.chunk0) == VARSIZE(now->chunk0) &&
		memcmp(entry->id.chunk0, now->chunk0, VARSIZE(now->chunk0)) == 0;
}

const bytea *
bloom_stored_cache_get(struct varlena *arg,
					   const struct varatt_external *toast_pointer,
					   bool share, BloomStoredFilter **pin)
{
	Size		bound = bound_bytes(bloom_stored_cache_kb);
	Size		rawsize = (Size) toast_pointer->va_rawsize;
	StoredKey	key = {toast_pointer->va_toastrelid, toast_pointer->va_valueid};
	BloomStoredIdentity now;
	StoredSlot *slot;
	BloomStoredFilter *entry;
	bool		found;
	MemoryContext cxt;
	const bytea *filter;
	bool		from_file;

	*pin = NULL;
	if (rawsize < STORED_CACHE_MIN_BYTES || rawsize > bound)
		return NULL;
	ensure_table();
	if (!read_identity(toast_pointer, &now))
		return NULL;

	slot = hash_search(stored_table, &key, HASH_FIND, NULL);
	if (slot != NULL)
	{
		entry = slot->entry;
		if (entry_valid(entry, &now))
		{
			pfree(now.chunk0);
			dlist_move_head(&lru, &entry->lru);
			entry->pins++;
			*pin = entry;
			return entry->filter;
		}
		remove_entry(entry);
	}

	if (!make_room(rawsize + VARSIZE(now.chunk0), bound))
	{
		pfree(now.chunk0);
		return NULL;
	}
	/*
	 * The entry's context hangs under the query's until the entry is in the
	 * table: an error on the way (a corrupt filter, no memory) frees it with
	 * the query.
	 */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "bloomfilter stored filter",
								ALLOCSET_SMALL_SIZES);
	filter = bloom_shared_cache_map(&now, cxt);
	from_file = filter != NULL;
	if (!from_file)
	{
		bytea	   *read = bloom_detoast_filter_into(arg, cxt);

		if (share)
			bloom_shared_cache_write(&now, read);
		filter = read;
	}
	entry = MemoryContextAllocZero(cxt, sizeof(BloomStoredFilter));
	entry->cxt = cxt;
	entry->id = now;
	entry->id.chunk0 = MemoryContextAlloc(cxt, VARSIZE(now.chunk0));
	memcpy(entry->id.chunk0, now.chunk0, VARSIZE(now.chunk0));
	pfree(now.chunk0);
	entry->filter = filter;
	entry->charged = VARSIZE(filter) + VARSIZE(entry->id.chunk0);

	slot = hash_search(stored_table, &key, HASH_ENTER, &found);
	Assert(!found);
	slot->entry = entry;
	MemoryContextSetParent(cxt, stored_cxt);
	entry->in_table = true;
	dlist_push_head(&lru, &entry->lru);
	stored_bytes += entry->charged;
	/* counted by the tests: no OIDs, so that the text stays the same */
	if (from_file)
		elog(DEBUG1, "bloomfilter: took a stored filter of %zu bytes from the server's filter cache files into the session's cache",
			 (Size) VARSIZE(filter));
	else
		elog(DEBUG1, "bloomfilter: read a stored filter of %zu bytes into the session's cache",
			 (Size) VARSIZE(filter));
	entry->pins = 1;
	*pin = entry;
	return entry->filter;
}

void
bloom_stored_cache_unpin(BloomStoredFilter *entry)
{
	Assert(entry->pins > 0);
	if (--entry->pins > 0)
		return;
	if (!entry->in_table)
		free_entry(entry);
	else if (stored_bytes > bound_bytes(bloom_stored_cache_kb))
		make_room(0, bound_bytes(bloom_stored_cache_kb));	/* lowered meanwhile */
}
