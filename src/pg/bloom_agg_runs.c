/*
 * bloom_agg_runs.c
 *		An expanded bloom_agg state's runs: a full buffer kept as it came or
 *		sorted into a run, its repeats dropped; the runs merged when that
 *		would at least halve them; and every hash of a state, sorted and
 *		distinct, for its flat form (see bloom_agg_runs.h).
 */
#include "postgres.h"

#include "miscadmin.h"

#include "bloom_agg_runs.h"
#include "bloom_agg_state.h"
#include "bloom_pg.h"
#include "bloom_sample.h"
#include "bloom_sort.h"
#include "bloom_trace_pg.h"

static uint32 *
scratch_for(BloomAggState *state, uint64 nhashes)
{
	if (state->scratch_capacity < nhashes)
	{
		if (state->scratch != NULL)
			bloom_free_hashes(state->scratch);
		state->scratch = NULL;
		state->scratch = bloom_alloc_hashes(state->hdr.eoh_context, 0, nhashes);
		state->scratch_capacity = nhashes;
	}
	return state->scratch;
}

/* Keep only the sort's usual scratch between sorts, not a merge's. */
static void
trim_scratch(BloomAggState *state)
{
	if (state->scratch_capacity > 2 * BLOOM_AGG_BUFFER_MAX)
	{
		bloom_free_hashes(state->scratch);
		state->scratch = NULL;
		state->scratch_capacity = 0;
	}
}

/*
 * The runs' sketch with a run's added, given the run's smallest distinct
 * hashes in order (at most BLOOM_KMV_SIZE of them).
 */
static void
sketch_add(BloomAggState *state, const uint32 *smallest, int nsmallest)
{
	uint32		merged[BLOOM_KMV_SIZE];

	if (state->sketch == NULL)
		state->sketch = MemoryContextAlloc(state->hdr.eoh_context,
										   BLOOM_KMV_SIZE * sizeof(uint32));
	state->nsketch = (int) bloom_kmv_merge(state->sketch, state->nsketch,
										   smallest, nsmallest, merged);
	memcpy(state->sketch, merged, state->nsketch * sizeof(uint32));
}

/* About how many distinct hashes the runs hold together. */
static double
runs_distinct_estimate(const BloomAggState *state)
{
	return bloom_kmv_estimate(state->sketch, state->nsketch);
}

void
bloom_agg_add_run(BloomAggState *state, BloomAggRun *run, const uint32 *smallest,
				  int nsmallest)
{
	run->next = state->runs;
	state->runs = run;
	state->nruns++;
	state->nrun_hashes += run->nhashes;
	sketch_add(state, smallest, nsmallest);
}

void
bloom_agg_add_sorted_run(BloomAggState *state, BloomAggRun *run)
{
	Assert(run->sorted);
	bloom_agg_add_run(state, run, run->hashes,
					  (int) Min(run->nhashes, BLOOM_KMV_SIZE));
}

/*
 * The distinct hashes of blocks sorted into out (room for all their
 * hashes), each read where it lies, a coded one decoded first into its
 * decode_into; tmp holds BLOOM_SORT_TMP_MIN hashes.  Checks for interrupts.
 */
static uint64
sort_blocks_unique(BloomAggState *state, const bloom_hash_run *blocks,
				   int nblocks, uint32 *out, uint32 *tmp)
{
	const uint32 **parts;
	size_t	   *lens;
	size_t		ndistinct;

	/* in the state's context: the caller's may not allow pfree */
	parts = MemoryContextAlloc(state->hdr.eoh_context, Max(nblocks, 1) * sizeof(uint32 *));
	lens = MemoryContextAlloc(state->hdr.eoh_context, Max(nblocks, 1) * sizeof(size_t));
	for (int n = 0; n < nblocks; n++)
	{
		if (blocks[n].code != NULL)
			bloom_decode_state_run(&blocks[n]);
		parts[n] = blocks[n].hashes;
		lens[n] = blocks[n].n;
	}
	ndistinct = bloom_sort_unique_parts(parts, lens, nblocks, out, tmp,
										BLOOM_SORT_TMP_MIN, bloom_interrupts_checked, NULL);
	Assert(ndistinct != BLOOM_SORT_STOPPED);
	pfree(lens);
	pfree(parts);
	return ndistinct;
}

/*
 * A new run of the distinct hashes of parts, made in the scratch: the coded
 * parts decoded there first (parts' rooms are set to it), then every part
 * sorted into the scratch after them (two passes over memory, where copying
 * the parts and sorting them whole took seven).
 */
static BloomAggRun *
sort_into_run(BloomAggState *state, bloom_hash_run *parts, int nparts,
			  uint64 total)
{
	uint64		ncoded = 0;
	uint32	   *scratch;
	uint32	   *sorted;
	uint64		ndistinct;
	BloomAggRun *run;
	int			i;

	for (i = 0; i < nparts; i++)
		if (parts[i].code != NULL)
			ncoded += parts[i].n;
	scratch = scratch_for(state, ncoded + total + BLOOM_SORT_TMP_MIN);
	sorted = scratch + ncoded;
	ncoded = 0;
	for (i = 0; i < nparts; i++)
		if (parts[i].code != NULL)
		{
			parts[i].hashes = parts[i].decode_into = scratch + ncoded;
			ncoded += parts[i].n;
		}
	ndistinct = sort_blocks_unique(state, parts, nparts, sorted, sorted + total);
	Assert(ndistinct <= total);
	run = bloom_alloc_hashes(state->hdr.eoh_context, offsetof(BloomAggRun, hashes),
					   ndistinct);
	bloom_agg_block_init(run, ndistinct, ndistinct, true, false, 0);
	/* the run's new pages fault in as the copy goes: interruptible too */
	for (size_t at = 0; at < ndistinct; at += BLOOM_SORT_ASK_EVERY)
	{
		CHECK_FOR_INTERRUPTS();
		memcpy(run->hashes + at, sorted + at,
			   Min(BLOOM_SORT_ASK_EVERY, ndistinct - at) * sizeof(uint32));
	}
	return run;
}

void
bloom_agg_flush_buffer(BloomAggState *state)
{
	bloom_sample sample;
	uint32		sample_scratch[BLOOM_SAMPLE_MAX];
	bloom_hash_run *parts;
	BloomAggChunk *chunk;
	BloomAggChunk *next;
	int			nparts = 0;

	if (state->nbuffered == 0)
		return;
	BLOOM_TRACE_LOG("flush start hashes=" UINT64_FORMAT, state->nbuffered);
	for (chunk = state->first; chunk != NULL; chunk = chunk->next)
		nparts++;
	parts = MemoryContextAlloc(state->hdr.eoh_context,
							   nparts * sizeof(bloom_hash_run));
	nparts = 0;
	bloom_sample_begin(&sample, state->nbuffered);
	for (chunk = state->first; chunk != NULL; chunk = chunk->next)
	{
		bloom_agg_block_as_hash_run(chunk, &parts[nparts++], NULL);
		bloom_sample_add(&sample, chunk->hashes, chunk->nhashes);
	}

	/*
	 * Keep the buffer's hashes as they came when the sample says they are
	 * distinct: sorting is linear, but it is most of the added cost of a
	 * state that drops repeats, and distinct keys are common.  Sorting a
	 * buffer drops its own repeats only; the runs' are dropped when the runs
	 * are merged (bloom_agg_merge_runs_if_worth_it), sorted or not, so how many of
	 * the buffer's hashes the runs already hold does not enter the choice.
	 */
	if (bloom_sample_finish(&sample, sample_scratch) &&
		bloom_sample_mostly_distinct(&sample))
	{
		/* the chunks become runs as they are, with no copy */
		BloomAggChunk *last = state->last;
		int			nchunks = 0;

		for (chunk = state->first; chunk != NULL; chunk = chunk->next)
		{
			state->nrun_hashes += chunk->nhashes;
			nchunks++;
		}
		last->next = state->runs;
		state->runs = state->first;
		state->nruns += nchunks;
		sketch_add(state, sample.hashes, BLOOM_KMV_SIZE);
		pfree(parts);
		state->first = state->last =
			bloom_agg_new_buffer_chunk(state, BLOOM_AGG_BUFFER_MAX);
		state->nbuffered = 0;
		BLOOM_TRACE_LOG("flush kept");
		return;
	}
	bloom_agg_add_sorted_run(state, sort_into_run(state, parts, nparts, state->nbuffered));
	BLOOM_TRACE_LOG("flush sorted");
	pfree(parts);

	/*
	 * One chunk of the buffer's full size from now on: a state that filled
	 * its buffer once is likely to fill it again.
	 */
	if (state->first == state->last &&
		state->first->capacity == BLOOM_AGG_BUFFER_MAX)
		state->first->nhashes = 0;
	else
	{
		for (chunk = state->first; chunk != NULL; chunk = next)
		{
			next = chunk->next;
			bloom_agg_free_block(state, chunk);
		}
		state->first = state->last =
			bloom_agg_new_buffer_chunk(state, BLOOM_AGG_BUFFER_MAX);
	}
	state->nbuffered = 0;
}

/* All runs as one, sorted anew. */
static void
merge_runs(BloomAggState *state)
{
	bloom_hash_run *parts;
	BloomAggRun *run;
	BloomAggRun *next;
	BloomAggRun *merged;
	int			nparts = 0;

	parts = MemoryContextAlloc(state->hdr.eoh_context,
							   state->nruns * sizeof(bloom_hash_run));
	for (run = state->runs; run != NULL; run = run->next)
		bloom_agg_block_as_hash_run(run, &parts[nparts++], NULL);
	merged = sort_into_run(state, parts, nparts, state->nrun_hashes);
	pfree(parts);
	for (run = state->runs; run != NULL; run = next)
	{
		next = run->next;
		bloom_agg_free_block(state, run);
	}
	/* the sketch is that of the same hashes */
	merged->next = NULL;
	state->runs = merged;
	state->nruns = 1;
	state->nrun_hashes = merged->nhashes;
	trim_scratch(state);
}

void
bloom_agg_merge_runs_if_worth_it(BloomAggState *state)
{
	if (state->nruns >= 2 &&
		(double) state->nrun_hashes >= 2.0 * runs_distinct_estimate(state))
		merge_runs(state);
}


/*
 * Sorted from where they lie, through a small tmp, into an area the size
 * of their count: merging them into one run first (the buffer's sort) took
 * twice that in scratch and a copy of it, new pages each time a worker's
 * state left the worker.
 */
uint32 *
bloom_agg_sorted_distinct_hashes(BloomAggState *state, uint64 *ndistinct)
{
	bloom_hash_run *blocks;
	uint32	   *out;
	int			nblocks;

	blocks = bloom_agg_state_blocks(state, state->hdr.eoh_context, true, &nblocks);
	out = bloom_alloc_hashes(state->hdr.eoh_context, 0,
							 Max(bloom_agg_state_hashes(state), 1));
	*ndistinct = sort_blocks_unique(state, blocks, nblocks, out,
									scratch_for(state, BLOOM_SORT_TMP_MIN));
	Assert(*ndistinct <= bloom_agg_state_hashes(state));
	bloom_agg_free_state_blocks(blocks, nblocks);
	return out;
}
