/*
 * bloom_agg_state.h
 *		bloom_agg's transition state: an ordinary SQL type (bloom_agg_state)
 *		with an expanded in-memory form.
 *
 * An ordinary type, not internal, so that the state can leave the process
 * as a plain value: parallel workers and Citus worker nodes send partial
 * states to be combined.  Its flat form is the serialized layout of
 * bloom_state.h.  While aggregating, it is an expanded object (a growable
 * array of 32-bit key hashes, in a memory context that is a child of the
 * aggregate context and shared by all its groups' states), so that
 * appending a key costs O(1) amortised and the executor neither copies nor
 * frees the state per row.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_AGG_STATE_H
#define BLOOM_AGG_STATE_H

#include "utils/expandeddatum.h"

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

typedef struct BloomAggState
{
	ExpandedObjectHeader hdr;
	int32		bits_per_key;
	uint64		nhashes;
	uint64		capacity;		/* hashes allocated */
	uint32	   *hashes;			/* in hdr.eoh_context, with the header */
} BloomAggState;

/* A read-only look at any state datum, flat or expanded. */
typedef struct BloomAggStateView
{
	int32		bits_per_key;
	uint64		nhashes;
	const uint32 *hashes;		/* native byte order */
} BloomAggStateView;

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

/* Make room for at least extra more hashes (geometric growth). */
extern void bloom_agg_state_reserve(BloomAggState *state, uint64 extra);

static inline void
bloom_agg_state_append(BloomAggState *state, uint32 hash)
{
	if (unlikely(state->nhashes == state->capacity))
		bloom_agg_state_reserve(state, 1);
	state->hashes[state->nhashes++] = hash;
}

/* Append every hash of another state (which must not be state itself). */
extern void bloom_agg_state_append_all(BloomAggState *state,
									   const BloomAggStateView *other);

BLOOM_END_PRIVATE

#endif							/* BLOOM_AGG_STATE_H */
