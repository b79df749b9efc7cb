/*
 * bloom_agg_handoff.h
 *		A parallel worker's bloom_agg state handed to its leader through the
 *		parallel query's shared memory, not sorted, coded and queued.
 *
 * A worker's partial state goes to its leader's Finalize Aggregate, which
 * only adds its hashes to the filter.  Through the tuple queue it must be
 * one value: sorted and gap-coded by the worker (1.3 bytes a hash), copied
 * through the queue's ring, decoded by the leader.  Instead, a worker whose
 * state is going to its own leader copies its hashes, as they are, into
 * the query's dynamic shared memory area (the DSA every parallel query
 * has), and sends a reference: a small value that only the leader's
 * combine function of the same query reads, mapping the worker's hashes in
 * place.  The final then sets their bits straight from shared memory.
 * A worker's plain state (its only one) makes the larger chunks of its
 * buffer in that memory from the start, where room allows, so that at the
 * end only the rest is copied: the workers' copies, made at once at the end of
 * their scans, took the area's one lock in turn, and under it most made a
 * new segment of the area, which the kernel zeroes as it makes it.
 *
 * The leader's own partial state (the leader scans too, by default) takes
 * the same way without leaving the process: the Finalize Aggregate copies
 * the first state it gets into a tuple, which would sort and code it only
 * to decode it again.  Its reference names the state itself, found again
 * in a list of this backend's live states (one leaves the list when its
 * memory is reset), for a plain aggregate only: a grouped one's states are
 * reset group by group, while a reference may still wait in a sort.
 *
 * A reference is never a bloom_agg_state value anyone else can see: it
 * starts with a byte that no version of the state format has, so every
 * input function, the final function and the output functions refuse it
 * as they refuse any unknown version, and a worker makes one only for the
 * partial aggregate of a parallel plan (below, bloom_handoff_target).  The
 * shared memory is the query's: it goes when the Gather that launched the
 * workers shuts down, after the Finalize Aggregate has read it.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_AGG_HANDOFF_H
#define BLOOM_AGG_HANDOFF_H

#include "fmgr.h"
#include "utils/dsa.h"

#include "bloom_final.h"

BLOOM_BEGIN_PRIVATE

/* Where a worker's state may be handed off: set when the state is made. */
typedef struct BloomHandoffTarget
{
	dsa_area   *area;			/* a worker's: the query's DSA, else NULL */
	int			plan_node_id;	/* of the worker's plan, below its Gather */
	bool		local;			/* the leader's own plain partial state */
	bool		plain;			/* a worker's plain partial state: its one state */
} BloomHandoffTarget;

/*
 * Fewest hashes a state hands off: below it, sorting and coding take less
 * than the shared memory's allocation and the leader's mapping of it.
 */
#define BLOOM_HANDOFF_MIN_HASHES	((uint64) 1 << 16)

/* bloomfilter.parallel_handoff: whether workers hand off states at all. */
extern bool bloom_parallel_handoff;

/*
 * Whether the state a transition function is about to make goes to a
 * parallel leader's Finalize Aggregate: a partial aggregate of our own
 * state type, in a worker with the query's shared memory at hand, or
 * plain in the leader.  Sets *target either way (area NULL and local false
 * when not).
 */
extern void bloom_handoff_target(FunctionCallInfo fcinfo, BloomHandoffTarget *target);

/* Bytes of a reference's flat form, its varlena header included. */
#define BLOOM_HANDOFF_REF_SIZE	(VARHDRSZ + 48)

/*
 * A block of a worker's plain state's buffer, made in the query's shared
 * memory from the start, so that at the end the block is handed off where
 * it lies instead of copied: bytes of it, the worker already holding held
 * bytes there.  NULL, with nothing allocated, when the target is no
 * worker's plain state, or the shared memory has too little room (the
 * block is then made in local memory, and copied if the state is handed
 * off).  *pointer is the block's, for bloom_handoff_free_block.
 */
extern void *bloom_handoff_alloc_block(const BloomHandoffTarget *target,
									   Size bytes, uint64 held,
									   dsa_pointer *pointer);
extern void bloom_handoff_free_block(const BloomHandoffTarget *target,
									 dsa_pointer pointer);

/* A block of hashes already in the query's shared memory, none coded. */
typedef struct BloomHandoffBlock
{
	dsa_pointer hashes;
	uint64		n;
} BloomHandoffBlock;

/*
 * Hand off a worker's state of nhashes hashes: the nblocks blocks already
 * in the target's shared memory where they are, and the nparts parts' (none
 * coded) copied there, the worker holding held bytes there before the
 * copy.  Writes the reference into ref (BLOOM_HANDOFF_REF_SIZE bytes,
 * varlena header set).  False, with nothing allocated, when the shared
 * memory has no room for the copy: the caller then sends the state sorted
 * and coded as ever.
 */
extern bool bloom_handoff_share(const BloomHandoffTarget *target,
								int32 bits_per_key, uint64 nkeys,
								const BloomHandoffBlock *blocks, int nblocks,
								const bloom_hash_run *parts, int nparts,
								uint64 nhashes, uint64 held, uint8 *ref);

/*
 * The leader's reference to its own state (an expanded object in cxt),
 * listed until cxt is reset: written into ref as bloom_handoff_share does.
 */
extern void bloom_handoff_local(void *state, MemoryContext cxt, int32 bits_per_key,
								uint64 nkeys, uint8 *ref);

/* Whether a bloom_agg_state datum is a reference, of either kind. */
extern bool bloom_handoff_is_reference(Datum d);

/* A reference, read in the leader's combine function. */
typedef struct BloomHandoffHashes
{
	int32		bits_per_key;
	uint64		nkeys;
	uint64		nhashes;		/* a worker's, in all its blocks */
	int			nblocks;
	const uint32 **hashes;		/* a worker's blocks, in the query's shared */
	const uint64 *counts;		/* memory, and the hashes each holds */
	void	   *local_state;	/* or the leader's own state */
} BloomHandoffHashes;

/*
 * Read a reference: its fields, and a worker's blocks mapped from the
 * shared memory of the Gather below the combine function's aggregate that
 * ran the worker (the arrays allocated in the current memory context), or
 * the leader's own live state.  An error if the datum is not a reference
 * this query made.
 */
extern void bloom_handoff_read(FunctionCallInfo fcinfo, Datum d,
							   BloomHandoffHashes *out);

BLOOM_END_PRIVATE

#endif							/* BLOOM_AGG_HANDOFF_H */
