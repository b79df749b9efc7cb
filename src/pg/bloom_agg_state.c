/*
 * bloom_agg_state.c
 *		The bloom_agg_state type's expanded form: its memory, its blocks of
 *		hashes, appending to its buffer, and absorbing the keys of another
 *		state (see bloom_agg_state.h).
 *
 * A full buffer becomes a run, and runs are merged, in bloom_agg_runs.c;
 * the flat form is made in bloom_agg_flat.c; text and binary I/O, and the
 * checks of a flat state from outside, are in bloom_agg_state_io.c.
 *
 * Nothing here, nor in those files, is pfree'd unless it was allocated in
 * a state's own context (an AllocSet): the caller's CurrentMemoryContext
 * may not support pfree at all (a sort's tuples, into which a state is
 * flattened, live in a bump context from PostgreSQL 17 on).  The areas of
 * hashes come from bloom_alloc_hashes (bloom_pg.c).
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "bloom_agg_runs.h"
#include "bloom_agg_state.h"
#include "bloom_agg_state_io.h"
#include "bloom_gaps.h"
#include "bloom_pg.h"
#include "bloom_state.h"
#include "bloom_trace_pg.h"

/*
 * A new state has room for this many hashes, and each new chunk for as many
 * as the buffer holds, so a GROUP BY over a million groups of a few keys
 * reserves little per group.
 */
#define INITIAL_CAPACITY	4

/*
 * Every state of one aggregate context lives in one shared child context,
 * found by this name's address.  A context per state would be simpler, but
 * a hash aggregate adds up the memory of all child contexts for every new
 * group, which makes a GROUP BY quadratic in the number of groups.  The
 * shared context is still a child of the aggregate context, which is what
 * lets the executor adopt a read/write state without copying it.  It must
 * never be deleted through one state: the executor deletes an expanded
 * transition value only when the transition function returns a different
 * one, and ours always return the state they were given (or create the
 * first one), so the states go away with the aggregate context's reset.
 */
static const char states_context_name[] = "bloom_agg states";

static MemoryContext
states_context(MemoryContext aggcontext)
{
	MemoryContext child;

	for (child = aggcontext->firstchild; child != NULL; child = child->nextchild)
		if (child->name == states_context_name)
			return child;
	return AllocSetContextCreateInternal(aggcontext, states_context_name,
										 ALLOCSET_DEFAULT_SIZES);
}

/* the hashes of a chunk are where bloom_alloc_hashes aligns them */
StaticAssertDecl(offsetof(BloomAggChunk, hashes) % MAXIMUM_ALIGNOF == 0,
				 "a chunk's hashes must follow its MAXALIGNed header");

void
bloom_agg_block_init(BloomAggChunk *block, uint64 nhashes, uint64 capacity,
					 bool sorted, bool coded, Size code_len)
{
	block->next = NULL;
	block->nhashes = nhashes;
	block->capacity = capacity;
	block->sorted = sorted;
	block->coded = coded;
	block->code_len = code_len;
	block->shared = InvalidDsaPointer;
}

/* A block's bytes in shared memory, its header included. */
static Size
shared_block_bytes(uint64 capacity)
{
	return offsetof(BloomAggChunk, hashes) + capacity * sizeof(uint32);
}

static BloomAggChunk *
new_chunk(MemoryContext cxt, uint64 capacity)
{
	BloomAggChunk *chunk = bloom_alloc_hashes(cxt, offsetof(BloomAggChunk, hashes),
										capacity);

	bloom_agg_block_init(chunk, 0, capacity, false, false, 0);
	return chunk;
}

BloomAggChunk *
bloom_agg_new_buffer_chunk(BloomAggState *state, uint64 capacity)
{
	Size		bytes = shared_block_bytes(capacity);
	dsa_pointer pointer;
	BloomAggChunk *chunk = NULL;

	if (capacity >= BLOOM_HANDOFF_MIN_HASHES)
		chunk = bloom_handoff_alloc_block(&state->handoff, bytes,
										  state->shared_bytes, &pointer);
	if (chunk == NULL)
		return new_chunk(state->hdr.eoh_context, capacity);
	state->shared_bytes += bytes;
	bloom_agg_block_init(chunk, 0, capacity, false, false, 0);
	chunk->shared = pointer;
	return chunk;
}

void
bloom_agg_free_block(BloomAggState *state, BloomAggChunk *block)
{
	if (DsaPointerIsValid(block->shared))
	{
		state->shared_bytes -= shared_block_bytes(block->capacity);
		bloom_handoff_free_block(&state->handoff, block->shared);
	}
	else
		bloom_free_hashes(block);
}

BloomAggState *
bloom_agg_state_create(MemoryContext aggcontext, int32 bits_per_key)
{
	MemoryContext objcxt = states_context(aggcontext);
	BloomAggState *state;

	state = MemoryContextAllocZero(objcxt, sizeof(BloomAggState));
	EOH_init_header(&state->hdr, &bloom_agg_state_methods, objcxt);
	state->bits_per_key = bits_per_key;
	state->first = state->last = new_chunk(objcxt, INITIAL_CAPACITY);
	return state;
}

static void
count_keys(BloomAggState *state, uint64 nkeys)
{
	/* only a forged state could get here; the geometry check is later */
	if (nkeys > PG_UINT64_MAX - state->nkeys)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg state cannot count more keys"),
				 errdetail("The key count would exceed 2^64 - 1.")));
	state->nkeys += nkeys;
}

void
bloom_agg_block_as_hash_run(const BloomAggRun *run, bloom_hash_run *out,
							uint32 *decode_into)
{
	out->n = run->nhashes;
	if (run->coded)
	{
		out->hashes = decode_into;
		out->code = (const uint8 *) run->hashes;
		out->code_len = run->code_len;
		out->decode_into = decode_into;
	}
	else
	{
		out->hashes = run->hashes;
		out->code = NULL;
		out->code_len = 0;
		out->decode_into = NULL;
	}
}

bloom_hash_run *
bloom_agg_state_blocks(const BloomAggState *state, MemoryContext cxt, bool rooms,
					   int *nblocks)
{
	const BloomAggRun *run;
	const BloomAggChunk *chunk;
	const BloomAggShared *shared;
	bloom_hash_run *blocks;
	int			n = state->nruns;

	for (chunk = state->first; chunk != NULL; chunk = chunk->next)
		n++;
	for (shared = state->shared; shared != NULL; shared = shared->next)
		n++;
	blocks = MemoryContextAlloc(cxt, Max(n, 1) * sizeof(bloom_hash_run));
	n = 0;
	for (run = state->runs; run != NULL; run = run->next)
		bloom_agg_block_as_hash_run(run, &blocks[n++],
									run->coded && rooms ?
									bloom_alloc_hashes(cxt, 0, Max(run->nhashes, 1)) :
									NULL);
	for (chunk = state->first; chunk != NULL; chunk = chunk->next)
		if (chunk->nhashes > 0)
			bloom_agg_block_as_hash_run(chunk, &blocks[n++], NULL);
	for (shared = state->shared; shared != NULL; shared = shared->next)
	{
		memset(&blocks[n], 0, sizeof(bloom_hash_run));
		blocks[n].hashes = shared->hashes;
		blocks[n++].n = shared->nhashes;
	}
	*nblocks = n;
	return blocks;
}

void
bloom_agg_free_state_blocks(bloom_hash_run *blocks, int nblocks)
{
	for (int i = 0; i < nblocks; i++)
		if (blocks[i].decode_into != NULL)
			bloom_free_hashes(blocks[i].decode_into);
	pfree(blocks);
}

void
bloom_agg_state_make_room(BloomAggState *state)
{
	uint64		capacity;

	if (state->nbuffered >= BLOOM_AGG_BUFFER_MAX)
	{
		bloom_agg_flush_buffer(state);
		bloom_agg_merge_runs_if_worth_it(state);
		return;
	}
	capacity = Max(state->nbuffered, INITIAL_CAPACITY);
	capacity = Min(capacity, BLOOM_AGG_BUFFER_MAX - state->nbuffered);
	state->last->next = bloom_agg_new_buffer_chunk(state, capacity);
	state->last = state->last->next;
}

/* Append hashes to the buffer (repeats included). */
static void
append_hashes(BloomAggState *state, const uint32 *hashes, uint64 nhashes)
{
	while (nhashes > 0)
	{
		BloomAggChunk *chunk = state->last;
		uint64		n;

		if (chunk->nhashes == chunk->capacity)
		{
			bloom_agg_state_make_room(state);
			chunk = state->last;
		}
		n = Min(nhashes, chunk->capacity - chunk->nhashes);
		memcpy(chunk->hashes + chunk->nhashes, hashes, n * sizeof(uint32));
		chunk->nhashes += n;
		state->nbuffered += n;
		hashes += n;
		nhashes -= n;
	}
}

/*
 * Version 2 states of at least this many hashes are kept coded when
 * absorbed, and decoded by the final's threads.
 */
#define CODED_RUN_MIN	((uint64) 1 << 16)

static void
add_shared(BloomAggState *state, const uint32 *hashes, uint64 nhashes)
{
	BloomAggShared *shared = MemoryContextAlloc(state->hdr.eoh_context,
												sizeof(BloomAggShared));

	shared->hashes = hashes;
	shared->nhashes = nhashes;
	shared->next = state->shared;
	state->shared = shared;
	state->nshared_hashes += nhashes;
}

/*
 * The parallel leader's own plain partial state, read where it lies (by
 * reference, or as the read-only value its aggregate hands up): it lives
 * until its aggregate is reset, which comes after the Finalize Aggregate
 * above it is done with every state (a rescan resets the Finalize
 * Aggregate first).  False, with nothing done, for a state with coded
 * runs, which must be decoded into memory of the absorbing state's own.
 */
static bool
absorb_local(BloomAggState *state, const BloomAggState *local)
{
	bloom_hash_run *blocks;
	int			nblocks;

	Assert(local != state && local->handoff.local);
	for (const BloomAggRun *run = local->runs; run != NULL; run = run->next)
		if (run->coded)
			return false;
	blocks = bloom_agg_state_blocks(local, state->hdr.eoh_context, false, &nblocks);
	count_keys(state, local->nkeys);
	for (int i = 0; i < nblocks; i++)
		add_shared(state, blocks[i].hashes, blocks[i].n);
	pfree(blocks);
	elog(DEBUG1, "bloom_agg: took the parallel leader's own state where it lies");
	return true;
}

void
bloom_agg_state_absorb_shared(BloomAggState *state, const BloomHandoffHashes *shared)
{
	BloomAggState *local = shared->local_state;

	if (local == NULL)
	{
		count_keys(state, shared->nkeys);
		for (int i = 0; i < shared->nblocks; i++)
			add_shared(state, shared->hashes[i], shared->counts[i]);
	}
	else if (!absorb_local(state, local))
		bloom_agg_state_absorb(state, EOHPGetRODatum(&local->hdr));
}

void
bloom_agg_state_absorb(BloomAggState *state, Datum other)
{
	BloomAggState *expanded = bloom_agg_state_expanded(other);
	bloom_state_header header;
	struct varlena *flat;
	const uint8 *bytes;

	Assert(expanded != state);
	if (expanded != NULL && expanded->handoff.local && absorb_local(state, expanded))
		return;
	if (expanded != NULL)
	{
		BloomAggRun *run;
		BloomAggChunk *chunk;

		count_keys(state, expanded->nkeys);
		for (run = expanded->runs; run != NULL; run = run->next)
		{
			uint64		words = run->coded ? (run->code_len + 3) / 4 : run->nhashes;
			BloomAggRun *copy = bloom_alloc_hashes(state->hdr.eoh_context,
											 offsetof(BloomAggRun, hashes),
											 words);

			bloom_agg_block_init(copy, run->nhashes, words, run->sorted, run->coded,
								 run->code_len);
			memcpy(copy->hashes, run->hashes, words * sizeof(uint32));
			if (run->sorted && !run->coded)
				bloom_agg_add_sorted_run(state, copy);
			else
				bloom_agg_add_run(state, copy, expanded->sketch, expanded->nsketch);
		}
		for (chunk = expanded->first; chunk != NULL; chunk = chunk->next)
			append_hashes(state, chunk->hashes, chunk->nhashes);
		for (BloomAggShared *shared = expanded->shared; shared != NULL; shared = shared->next)
			add_shared(state, shared->hashes, shared->nhashes);
		bloom_agg_merge_runs_if_worth_it(state);
		return;
	}

	BLOOM_TRACE_LOG("absorb start");
	flat = bloom_agg_state_detoasted(other, &header);
	bytes = (const uint8 *) VARDATA(flat);
	count_keys(state, header.nkeys);
	if (header.version == BLOOM_STATE_VERSION_GAPS)
	{
		BloomAggRun *run;

		if (header.nhashes == 0)
			return;
		if (header.nhashes < CODED_RUN_MIN)
		{
			/* decoded straight into a run of the state: no copy */
			run = bloom_agg_state_read_hashes(bytes, &header, ERRCODE_DATA_CORRUPTED,
											  state->hdr.eoh_context,
											  offsetof(BloomAggRun, hashes));
			bloom_agg_block_init(run, header.nhashes, header.nhashes, true, false, 0);
			bloom_agg_add_sorted_run(state, run);
		}
		else
		{
			/*
			 * Kept coded, 1.3 bytes a hash, for the final to decode on its
			 * threads (a parallel leader's combine would otherwise decode
			 * every worker's hashes on its one thread).  Its smallest
			 * hashes, decoded now, go into the sketch.
			 */
			uint32		smallest[BLOOM_KMV_SIZE];
			int			nsmallest = (int) Min(header.nhashes, BLOOM_KMV_SIZE);
			bloom_status status;

			status = bloom_gaps_decode_prefix(bytes + header.payload_offset,
											  header.payload_len, nsmallest,
											  bloom_gaps_rice_param(header.nhashes),
											  smallest);
			if (status != BLOOM_OK)
				bloom_report_invalid(status, ERRCODE_DATA_CORRUPTED,
									 "bloom_agg_state value");
			run = bloom_alloc_hashes(state->hdr.eoh_context, offsetof(BloomAggRun, hashes),
							   (header.payload_len + 3) / 4);
			bloom_agg_block_init(run, header.nhashes, (header.payload_len + 3) / 4,
								 true, true, header.payload_len);
			memcpy(run->hashes, bytes + header.payload_offset, header.payload_len);
			bloom_agg_add_run(state, run, smallest, nsmallest);
		}
		bloom_agg_merge_runs_if_worth_it(state);
		BLOOM_TRACE_LOG("absorb end hashes=" UINT64_FORMAT, header.nhashes);
		return;
	}
#ifndef WORDS_BIGENDIAN
	append_hashes(state, (const uint32 *) (bytes + header.payload_offset),
				  header.nhashes);
#else
	{
		uint32	   *hashes = bloom_agg_state_read_hashes(bytes, &header,
													 ERRCODE_DATA_CORRUPTED,
													 state->hdr.eoh_context, 0);

		append_hashes(state, hashes, header.nhashes);
		bloom_free_hashes(hashes);
	}
#endif
}
