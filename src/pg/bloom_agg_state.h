/*
 * bloom_agg_state.h
 *		bloom_agg's transition state: an ordinary SQL type (bloom_agg_state)
 *		with an expanded in-memory form.
 *
 * An ordinary type, not internal, so that the state can leave the process
 * as a plain value: parallel workers and Citus worker nodes send partial
 * states to be combined.  Its flat form is the serialized layout of
 * bloom_state.h.  While aggregating, it is an expanded object: 32-bit key
 * hashes in a list of chunks, in a memory context that is a child of the
 * aggregate context and shared by all its groups' states.  Appending a key
 * costs O(1), the executor neither copies nor frees the state per row, and
 * growing never copies the hashes: a doubling array would hold its old and
 * new copies at once, twice the memory of the state at its peak.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_AGG_STATE_H
#define BLOOM_AGG_STATE_H

#include "utils/expandeddatum.h"

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * A run of hashes.  Chunks grow with the state (as a doubling array would)
 * up to BLOOM_AGG_CHUNK_MAX hashes, and are never moved.
 */
typedef struct BloomAggChunk
{
	struct BloomAggChunk *next;
	uint64		nhashes;
	uint64		capacity;
	uint32		hashes[FLEXIBLE_ARRAY_MEMBER];
} BloomAggChunk;

/* 8 MB of hashes: several huge pages each, and a small fraction unused */
#define BLOOM_AGG_CHUNK_MAX		((uint64) 1 << 21)

typedef struct BloomAggState
{
	ExpandedObjectHeader hdr;
	int32		bits_per_key;
	uint64		nhashes;		/* in all chunks */
	BloomAggChunk *first;		/* in hdr.eoh_context, with the header */
	BloomAggChunk *last;		/* the one appended to */
} BloomAggState;

/*
 * A read-only look at any state datum, flat or expanded.  Its hashes, in
 * native byte order, come in runs: see bloom_agg_view_next_run.
 */
typedef struct BloomAggStateView
{
	int32		bits_per_key;
	uint64		nhashes;
	const BloomAggChunk *chunks;	/* an expanded state's, or NULL */
	const uint32 *flat_hashes;	/* else all of a flat state's hashes */
} BloomAggStateView;

/* Where a walk over a view's runs of hashes stands. */
typedef struct BloomAggRunCursor
{
	const BloomAggChunk *chunk;
	const uint32 *flat_hashes;	/* not yet returned, or NULL */
	uint64		flat_nhashes;
} BloomAggRunCursor;

static inline void
bloom_agg_view_runs(const BloomAggStateView *view, BloomAggRunCursor *cursor)
{
	cursor->chunk = view->chunks;
	cursor->flat_hashes = view->chunks == NULL ? view->flat_hashes : NULL;
	cursor->flat_nhashes = view->chunks == NULL ? view->nhashes : 0;
}

/* The next non-empty run of hashes; false after the last. */
static inline bool
bloom_agg_view_next_run(BloomAggRunCursor *cursor, const uint32 **hashes,
						uint64 *nhashes)
{
	if (cursor->flat_hashes != NULL)
	{
		*hashes = cursor->flat_hashes;
		*nhashes = cursor->flat_nhashes;
		cursor->flat_hashes = NULL;
		return *nhashes > 0;
	}
	while (cursor->chunk != NULL)
	{
		const BloomAggChunk *chunk = cursor->chunk;

		cursor->chunk = chunk->next;
		if (chunk->nhashes > 0)
		{
			*hashes = chunk->hashes;
			*nhashes = chunk->nhashes;
			return true;
		}
	}
	return false;
}

/* A new, empty expanded state belonging to an aggregate context. */
extern BloomAggState *bloom_agg_state_create(MemoryContext aggcontext,
											 int32 bits_per_key);

/* The methods that mark an expanded object as one of our states. */
extern const ExpandedObjectMethods bloom_agg_state_methods;

/*
 * Our expanded state if d is a read/write pointer to one, else NULL.
 * Inline: the transition function asks this for every row.
 */
static inline BloomAggState *
bloom_agg_state_if_rw(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	if (eoh->eoh_methods != &bloom_agg_state_methods)
		return NULL;
	return (BloomAggState *) eoh;
}

/* The state behind any datum of type bloom_agg_state, checked. */
extern void bloom_agg_state_view(Datum d, BloomAggStateView *view);

/* A new last chunk, for at least extra more hashes. */
extern BloomAggChunk *bloom_agg_state_add_chunk(BloomAggState *state,
												uint64 extra);

static inline void
bloom_agg_state_append(BloomAggState *state, uint32 hash)
{
	BloomAggChunk *chunk = state->last;

	if (unlikely(chunk->nhashes == chunk->capacity))
		chunk = bloom_agg_state_add_chunk(state, 1);
	chunk->hashes[chunk->nhashes++] = hash;
	state->nhashes++;
}

/* Append every hash of another state (which must not be state itself). */
extern void bloom_agg_state_append_all(BloomAggState *state,
									   const BloomAggStateView *other);

BLOOM_END_PRIVATE

#endif							/* BLOOM_AGG_STATE_H */
