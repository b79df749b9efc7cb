/*
 * bloom_agg_state.h
 *		bloom_agg's transition state: an ordinary SQL type (bloom_agg_state)
 *		with an expanded in-memory form.
 *
 * An ordinary type, not internal, so that the state can leave the process
 * as a plain value: parallel workers and Citus worker nodes send partial
 * states to be combined.  Its flat form is the serialized layout of
 * bloom_state.h (version 2: the distinct hashes, sorted and gap-coded).
 *
 * While aggregating, it is an expanded object, in a memory context that is
 * a child of the aggregate context and shared by all its groups' states:
 *	- the number of keys seen, which alone sizes the filter;
 *	- a buffer of the latest hashes, in chunks that are never moved, so
 *	  that appending a key costs a store, and growing never copies;
 *	- runs of hashes.  A full buffer becomes a run: sorted (a linear radix
 *	  sort), its repeats dropped, when a sample says it has repeats or
 *	  shares hashes with the runs before it, and else kept as it came,
 *	  since sorting distinct hashes would free nothing.  The runs are
 *	  merged into one when that would at least halve them.  So memory
 *	  follows the distinct keys, not the rows, while distinct keys cost one
 *	  scan of the buffer more than they did.
 * A repeated hash sets the same filter bits, so dropping repeats changes
 * no byte of the filter.  A parallel worker's plain state makes its larger
 * chunks in the query's shared memory, to be handed off where they lie
 * (bloom_agg_handoff.h).
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_AGG_STATE_H
#define BLOOM_AGG_STATE_H

#include "utils/expandeddatum.h"

#include "bloom_agg_handoff.h"
#include "bloom_core.h"
#include "bloom_final.h"
#include "bloom_kmv.h"

BLOOM_BEGIN_PRIVATE

/*
 * A block of hashes: a chunk of the buffer, or a run.  Buffer chunks grow
 * with the buffer (as a doubling array would) up to BLOOM_AGG_BUFFER_MAX
 * hashes, and are never moved; a full buffer's chunks become runs as they
 * are, or are sorted into a new run.
 */
typedef struct BloomAggChunk
{
	struct BloomAggChunk *next;
	uint64		nhashes;
	uint64		capacity;
	bool		sorted;			/* strictly increasing (runs only) */
	/*
	 * A run absorbed from a version 2 state stays gap-coded, its code_len
	 * bytes in hashes[], until the final decodes it on its threads.
	 */
	bool		coded;
	Size		code_len;
	/*
	 * A block a worker's plain state made in the query's shared memory
	 * (bloom_agg_handoff.h), header and all; else InvalidDsaPointer.
	 */
	dsa_pointer shared;
	uint32		hashes[FLEXIBLE_ARRAY_MEMBER];
} BloomAggChunk;

typedef BloomAggChunk BloomAggRun;

/*
 * Hashes a parallel leader's combined state reads where they lie
 * (bloom_agg_handoff.h): a worker's, handed off in the query's shared
 * memory, or the blocks of the leader's own partial state.  In no order,
 * read by the final or by a flatten, never merged with the runs.
 */
typedef struct BloomAggShared
{
	struct BloomAggShared *next;
	const uint32 *hashes;
	uint64		nhashes;
} BloomAggShared;

/*
 * Buffered hashes become a run when there are this many: 4 MB, sorted with
 * as much scratch, a small part of the CPU's caches' reach.
 */
#define BLOOM_AGG_BUFFER_MAX	((uint64) 1 << 20)

typedef struct BloomAggState
{
	ExpandedObjectHeader hdr;
	int32		bits_per_key;
	uint64		nkeys;			/* every key seen, repeats included */
	uint64		nbuffered;		/* hashes in the chunks */
	BloomAggChunk *first;		/* in hdr.eoh_context, with the header */
	BloomAggChunk *last;		/* the one appended to */
	BloomAggRun *runs;
	int			nruns;
	uint64		nrun_hashes;	/* in all runs */
	BloomAggShared *shared;		/* in a parallel leader's combined state */
	uint64		nshared_hashes;
	/* a partial state's: where it may be handed off, if anywhere */
	BloomHandoffTarget handoff;
	uint64		shared_bytes;	/* its chunks' and runs' in shared memory */
	/*
	 * The smallest distinct hashes of all runs, at most BLOOM_KMV_SIZE: a
	 * sketch of how many distinct hashes the runs hold together, which says
	 * when merging them pays (bloom_kmv.h).  NULL until the first run.
	 */
	uint32	   *sketch;
	int			nsketch;
	uint32	   *scratch;		/* the sort's, kept for the next sort */
	uint64		scratch_capacity;
	/*
	 * The flat form, while nkeys holds: a hand-off's reference, a state
	 * sorted on one thread, or one the output functions asked for.
	 */
	uint8	   *flat;
	Size		flat_size;
	uint64		flat_nkeys;
	/*
	 * Or a large state's hashes sorted on threads, their code to come
	 * straight into the memory the flat form is to be in, while nkeys holds
	 * (bloom_agg_flat.c: prepare_flat).
	 */
	struct
	{
		struct bloom_flatten_job *job;	/* no thread running; NULL if none */
		uint64		nkeys;
		uint64		ndistinct;
		Size		size;		/* the flat form's */
		bool		coded;		/* coded into a caller's memory once ... */
		uint64		coded_nkeys;	/* ... while nkeys was this */
		bool		callback_registered;
		MemoryContextCallback on_reset; /* frees a job never coded */
	}			sorted;
} BloomAggState;

/* Hashes of a state (a buffer chunk, a run, or a flat state's): bloom_hash_run. */

/*
 * A read-only look at any state datum, flat or expanded: its key count and
 * its hashes (each distinct one at least once), in native byte order, in
 * runs that may repeat hashes between them.
 */
typedef struct BloomAggStateView
{
	int32		bits_per_key;
	uint64		nkeys;
	uint64		nhashes;		/* in all runs */
	int			nruns;
	bloom_hash_run *runs;		/* palloc'd */
	bool		sorted;			/* each run strictly increasing */
} BloomAggStateView;

/* A new, empty expanded state belonging to an aggregate context. */
extern BloomAggState *bloom_agg_state_create(MemoryContext aggcontext,
											 int32 bits_per_key);

/*
 * The methods that mark an expanded object as one of our states: its flat
 * form's (bloom_agg_flat.c).
 */
extern const ExpandedObjectMethods bloom_agg_state_methods;

/*
 * Our expanded state if d is a read/write pointer to one, else NULL.
 * Inline: the transition function asks this for every row.  The object's
 * address is read from the pointer datum as DatumGetEOHP reads it, without
 * the call.
 */
static inline BloomAggState *
bloom_agg_state_if_rw(Datum d)
{
	varatt_expanded pointer;

	if (!VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
		return NULL;
	memcpy(&pointer, VARDATA_EXTERNAL(DatumGetPointer(d)), sizeof(pointer));
	if (pointer.eohptr->eoh_methods != &bloom_agg_state_methods)
		return NULL;
	return (BloomAggState *) pointer.eohptr;
}

/* The state behind any datum of type bloom_agg_state, checked. */
extern void bloom_agg_state_view(Datum d, BloomAggStateView *view);

/* Room for at least one more hash: a new chunk, or the buffer sorted. */
extern void bloom_agg_state_make_room(BloomAggState *state);

static inline void
bloom_agg_state_append(BloomAggState *state, uint32 hash)
{
	BloomAggChunk *chunk = state->last;

	if (unlikely(chunk->nhashes == chunk->capacity))
	{
		bloom_agg_state_make_room(state);
		chunk = state->last;
	}
	chunk->hashes[chunk->nhashes++] = hash;
	state->nbuffered++;
	state->nkeys++;
}

/* Add every key of another state datum (which must not be state itself). */
extern void bloom_agg_state_absorb(BloomAggState *state, Datum other);

/* Add a parallel worker's handed-off hashes, read where they lie. */
extern void bloom_agg_state_absorb_shared(BloomAggState *state,
										  const BloomHandoffHashes *shared);

/*
 * For the files of the expanded state (bloom_agg_state.c, bloom_agg_runs.c,
 * bloom_agg_flat.c, bloom_agg_state_io.c): its blocks of hashes.
 */

/*
 * A block's header, the block in the state's own memory
 * (bloom_agg_new_buffer_chunk then marks one it made in shared memory).
 */
extern void bloom_agg_block_init(BloomAggChunk *block, uint64 nhashes,
								 uint64 capacity, bool sorted, bool coded,
								 Size code_len);

/*
 * A chunk of the buffer: in the query's shared memory when the state is a
 * worker's plain one, the chunk is of a size only a state that is handed
 * off reaches, and there is room (to be handed off where it lies); else in
 * the state's memory.
 */
extern BloomAggChunk *bloom_agg_new_buffer_chunk(BloomAggState *state,
												 uint64 capacity);

/* Free a chunk or run, wherever it was made. */
extern void bloom_agg_free_block(BloomAggState *state, BloomAggChunk *block);

/*
 * A run's hashes as the final and the sort take them: a coded run's code,
 * to be decoded into decode_into (which may be NULL if the caller decodes
 * it elsewhere).
 */
extern void bloom_agg_block_as_hash_run(const BloomAggRun *run,
										bloom_hash_run *out,
										uint32 *decode_into);

/*
 * Every block of hashes a state holds, as the final, a flatten and a
 * hand-off take them: its runs, the chunks of its buffer that hold any and
 * the blocks it reads where they lie; *nblocks of them, allocated in cxt.
 * With rooms, a coded run gets room in cxt to be decoded into (freed by
 * bloom_free_hashes); without, its decode_into is NULL, for a caller that
 * decodes it elsewhere or takes no coded run.
 */
extern bloom_hash_run *bloom_agg_state_blocks(const BloomAggState *state,
											  MemoryContext cxt, bool rooms,
											  int *nblocks);

/* Free bloom_agg_state_blocks' array and the rooms it made. */
extern void bloom_agg_free_state_blocks(bloom_hash_run *blocks, int nblocks);

/* Every hash a state holds: its runs', its buffer's and shared ones. */
static inline uint64
bloom_agg_state_hashes(const BloomAggState *state)
{
	return state->nrun_hashes + state->nbuffered + state->nshared_hashes;
}

BLOOM_END_PRIVATE

#endif							/* BLOOM_AGG_STATE_H */
