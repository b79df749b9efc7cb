/*
 * bloom_agg_state.c
 *		The bloom_agg_state type: text/binary I/O, flat form, expanded form.
 *
 * Every way in (text, binary, a flat datum handed to the aggregate support
 * functions) goes through bloom_state_check, then bloom_state_check_code
 * or bloom_state_read_hashes,
 * so a forged or truncated state gets an error, never a read past its end.
 */
#include "postgres.h"

#include "common/base64.h"
/*
 * access/parallel.h brings lib/ilist.h, whose inline functions leave
 * parameters unused: a PGXS build's -Wextra, which reads the server's
 * headers as its own, would warn about each.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "access/parallel.h"
#include "access/xact.h"
#include "storage/lock.h"
#include "storage/proc.h"
#pragma GCC diagnostic pop
#include "miscadmin.h"
#include "libpq/pqformat.h"
#include "optimizer/optimizer.h"
#include "storage/ipc.h"
#include "utils/memutils.h"

#include "bloom_agg_state.h"
#include "bloom_flatten.h"
#include "bloom_gaps.h"
#include "bloom_sample.h"
#include "bloom_sort.h"
#include "bloom_pg.h"
#include "bloom_state.h"
#include "bloom_trace_pg.h"

PG_FUNCTION_INFO_V1(bloom_agg_state_in);
PG_FUNCTION_INFO_V1(bloom_agg_state_out);
PG_FUNCTION_INFO_V1(bloom_agg_state_recv);
PG_FUNCTION_INFO_V1(bloom_agg_state_send);

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

static Size bloom_agg_state_flat_size(ExpandedObjectHeader *eohptr);
static void bloom_agg_state_flatten(ExpandedObjectHeader *eohptr,
									void *result, Size allocated_size);

const ExpandedObjectMethods bloom_agg_state_methods = {
	bloom_agg_state_flat_size,
	bloom_agg_state_flatten
};

/*
 * Nothing here is pfree'd unless it was allocated in a state's own context
 * (an AllocSet): the caller's CurrentMemoryContext may not support pfree at
 * all (a sort's tuples, into which a state is flattened, live in a bump
 * context from PostgreSQL 17 on).  The areas of hashes come from
 * bloom_alloc_hashes (bloom_pg.c).
 */

/* the hashes of a chunk are where bloom_alloc_hashes aligns them */
StaticAssertDecl(offsetof(BloomAggChunk, hashes) % MAXIMUM_ALIGNOF == 0,
				 "a chunk's hashes must follow its MAXALIGNed header");

/*
 * A block's header, the block in the state's own memory (new_buffer_chunk
 * then marks one it made in shared memory).
 */
static void
init_block(BloomAggChunk *block, uint64 nhashes, uint64 capacity, bool sorted,
		   bool coded, Size code_len)
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

	init_block(chunk, 0, capacity, false, false, 0);
	return chunk;
}

/*
 * A chunk of the buffer: in the query's shared memory when the state is a
 * worker's plain one, the chunk is of a size only a state that is handed
 * off reaches, and there is room (to be handed off where it lies); else in
 * the state's memory.
 */
static BloomAggChunk *
new_buffer_chunk(BloomAggState *state, uint64 capacity)
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
	init_block(chunk, 0, capacity, false, false, 0);
	chunk->shared = pointer;
	return chunk;
}

/* Free a chunk or run, wherever it was made. */
static void
free_block(BloomAggState *state, BloomAggChunk *block)
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

/* ---- sorted runs -------------------------------------------------------- */

/*
 * Version 2 states of at least this many hashes are kept coded when
 * absorbed, and decoded by the final's threads.
 */
#define CODED_RUN_MIN	((uint64) 1 << 16)

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

static void
add_run(BloomAggState *state, BloomAggRun *run, const uint32 *smallest,
		int nsmallest)
{
	run->next = state->runs;
	state->runs = run;
	state->nruns++;
	state->nrun_hashes += run->nhashes;
	sketch_add(state, smallest, nsmallest);
}

static void
add_sorted_run(BloomAggState *state, BloomAggRun *run)
{
	Assert(run->sorted);
	add_run(state, run, run->hashes,
			(int) Min(run->nhashes, BLOOM_KMV_SIZE));
}

/*
 * A run's hashes as the final and the sort take them: a coded run's code,
 * to be decoded into decode_into (which may be NULL if the caller decodes
 * it elsewhere).
 */
static void
run_as_hash_run(const BloomAggRun *run, bloom_hash_run *out,
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

/*
 * Every block of hashes a state holds, as the final, a flatten and a
 * hand-off take them: its runs, the chunks of its buffer that hold any and
 * the blocks it reads where they lie; *nblocks of them, allocated in cxt.
 * With rooms, a coded run gets room in cxt to be decoded into (freed by
 * bloom_free_hashes); without, its decode_into is NULL, for a caller that
 * decodes it elsewhere or takes no coded run.
 */
static bloom_hash_run *
state_blocks(const BloomAggState *state, MemoryContext cxt, bool rooms,
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
		run_as_hash_run(run, &blocks[n++],
						run->coded && rooms ?
						bloom_alloc_hashes(cxt, 0, Max(run->nhashes, 1)) : NULL);
	for (chunk = state->first; chunk != NULL; chunk = chunk->next)
		if (chunk->nhashes > 0)
			run_as_hash_run(chunk, &blocks[n++], NULL);
	for (shared = state->shared; shared != NULL; shared = shared->next)
	{
		memset(&blocks[n], 0, sizeof(bloom_hash_run));
		blocks[n].hashes = shared->hashes;
		blocks[n++].n = shared->nhashes;
	}
	*nblocks = n;
	return blocks;
}

/* Free state_blocks' array and the rooms it made. */
static void
free_state_blocks(bloom_hash_run *blocks, int nblocks)
{
	for (int i = 0; i < nblocks; i++)
		if (blocks[i].decode_into != NULL)
			bloom_free_hashes(blocks[i].decode_into);
	pfree(blocks);
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
	init_block(run, ndistinct, ndistinct, true, false, 0);
	/* the run's new pages fault in as the copy goes: interruptible too */
	for (size_t at = 0; at < ndistinct; at += BLOOM_SORT_ASK_EVERY)
	{
		CHECK_FOR_INTERRUPTS();
		memcpy(run->hashes + at, sorted + at,
			   Min(BLOOM_SORT_ASK_EVERY, ndistinct - at) * sizeof(uint32));
	}
	return run;
}

/* The buffer's hashes as a new run; the buffer is then empty. */
static void
flush_buffer(BloomAggState *state)
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
		run_as_hash_run(chunk, &parts[nparts++], NULL);
		bloom_sample_add(&sample, chunk->hashes, chunk->nhashes);
	}

	/*
	 * Keep the buffer's hashes as they came when the sample says they are
	 * distinct: sorting is linear, but it is most of the added cost of a
	 * state that drops repeats, and distinct keys are common.  Sorting a
	 * buffer drops its own repeats only; the runs' are dropped when the runs
	 * are merged (merge_runs_if_worth_it), sorted or not, so how many of
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
		state->first = state->last = new_buffer_chunk(state, BLOOM_AGG_BUFFER_MAX);
		state->nbuffered = 0;
		BLOOM_TRACE_LOG("flush kept");
		return;
	}
	add_sorted_run(state, sort_into_run(state, parts, nparts, state->nbuffered));
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
			free_block(state, chunk);
		}
		state->first = state->last = new_buffer_chunk(state, BLOOM_AGG_BUFFER_MAX);
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
		run_as_hash_run(run, &parts[nparts++], NULL);
	merged = sort_into_run(state, parts, nparts, state->nrun_hashes);
	pfree(parts);
	for (run = state->runs; run != NULL; run = next)
	{
		next = run->next;
		free_block(state, run);
	}
	/* the sketch is that of the same hashes */
	merged->next = NULL;
	state->runs = merged;
	state->nruns = 1;
	state->nrun_hashes = merged->nhashes;
	trim_scratch(state);
}

/*
 * Merge the runs when that would at least halve them: each merge then
 * frees as much as it reads, so its cost is paid for by the hashes it
 * drops, and distinct keys, which nothing would be dropped from, are never
 * merged.
 */
static void
merge_runs_if_worth_it(BloomAggState *state)
{
	if (state->nruns >= 2 &&
		(double) state->nrun_hashes >= 2.0 * runs_distinct_estimate(state))
		merge_runs(state);
}

void
bloom_agg_state_make_room(BloomAggState *state)
{
	uint64		capacity;

	if (state->nbuffered >= BLOOM_AGG_BUFFER_MAX)
	{
		flush_buffer(state);
		merge_runs_if_worth_it(state);
		return;
	}
	capacity = Max(state->nbuffered, INITIAL_CAPACITY);
	capacity = Min(capacity, BLOOM_AGG_BUFFER_MAX - state->nbuffered);
	state->last->next = new_buffer_chunk(state, capacity);
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

/* Every hash a state holds: its runs', its buffer's and shared ones. */
static uint64
state_hashes(const BloomAggState *state)
{
	return state->nrun_hashes + state->nbuffered + state->nshared_hashes;
}

/*
 * The distinct hashes of every run and chunk, sorted, into a new area
 * (freed by bloom_free_hashes) that *ndistinct of them fill: what the flat form
 * codes.  Sorted from where they lie, through a small tmp, into an area
 * the size of their count: merging them into one run first (the
 * buffer's sort) took twice that in scratch and a copy of it, new pages
 * each time a worker's state left the worker.  The state is left as it
 * was.
 */
static uint32 *
sorted_distinct_hashes(BloomAggState *state, uint64 *ndistinct)
{
	bloom_hash_run *blocks;
	uint32	   *out;
	int			nblocks;

	blocks = state_blocks(state, state->hdr.eoh_context, true, &nblocks);
	out = bloom_alloc_hashes(state->hdr.eoh_context, 0,
					   Max(state_hashes(state), 1));
	*ndistinct = sort_blocks_unique(state, blocks, nblocks, out,
									scratch_for(state, BLOOM_SORT_TMP_MIN));
	Assert(*ndistinct <= state_hashes(state));
	free_state_blocks(blocks, nblocks);
	return out;
}

/* ---- flat form ---------------------------------------------------------- */

static void
check_flat_size(uint64 size, uint64 ndistinct)
{
	if (size == 0 || size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg state too large to pass as a value"),
				 errdetail("A state of " UINT64_FORMAT " distinct keys takes more than the 1 GB a value may hold; it must be passed as a value to leave a parallel worker, to spill to disk or to be stored.",
						   ndistinct),
				 errhint("Give each worker fewer keys, or aggregate serially with SET max_parallel_workers_per_gather = 0.")));
}

/* How long the backend waits for the flatten's threads between interrupt checks. */
#define FLATTEN_WAIT_MS		20
/* Hashes each of the flatten's threads should have at least. */
#define FLATTEN_MIN_HASHES_PER_THREAD ((uint64) 1 << 18)

/*
 * The processes of this backend's parallel query that sort a state of
 * their own when their scans end: the workers of its lock group (the
 * leader's PGPROC lists the members it has running), and the leader when
 * it runs the plan too.  1 outside a parallel query.
 */
static unsigned
parallel_sorting_processes(void)
{
	PGPROC	   *leader = MyProc->lockGroupLeader;
	LWLock	   *lock;
	dlist_iter	iter;
	unsigned	members = 0;
	unsigned	n;

	if (leader == NULL)
		return 1;
	lock = LockHashPartitionLockByProc(leader);
	LWLockAcquire(lock, LW_SHARED);
	dlist_foreach(iter, &leader->lockGroupMembers)
		members++;
	LWLockRelease(lock);
	/* the members are the leader and its workers */
	n = (members > 0 ? members - 1 : 0) + (parallel_leader_participation ? 1 : 0);
	return n > 0 ? n : 1;
}

/*
 * Threads to sort and code a state on: as many as bloom_thread_budget,
 * the settings and the CPUs, allow for a large state, but 1
 * (this one) for fewer than BLOOM_FLATTEN_THREADED_MIN hashes.  While
 * parallel workers may still be running (in a worker, and in a parallel
 * leader sending its own share of the rows, a state of its own making with
 * no coded run from another process), the processes that sort do so at
 * about the same time, when their scans end, so each takes an equal share
 * of those threads, rounded up: the leader waits for the last state, so a
 * share rounded down would only leave CPUs idle, where rounded up a few
 * threads more than CPUs take turns for that moment.  All of them on 16
 * CPUs are 6 a process with 2 workers, 4 with 4, 2 with 8 and 1 with 15;
 * on 2 CPUs 1 with any workers beside a leader that scans too (the
 * default).  A leader's bloom_agg_partial,
 * holding every worker's coded runs, comes after the workers are done and
 * takes them all.
 */
static unsigned
flatten_threads(const BloomAggState *state)
{
	uint64		nhashes = state_hashes(state);
	uint64		by_hashes = nhashes / FLATTEN_MIN_HASHES_PER_THREAD;
	unsigned	max = bloom_thread_budget();
	bool		absorbed = state->shared != NULL;

	for (const BloomAggRun *run = state->runs; run != NULL; run = run->next)
		absorbed |= run->coded;
	if (nhashes < BLOOM_FLATTEN_THREADED_MIN)
		return 1;
	if (IsParallelWorker() || (IsInParallelMode() && !absorbed))
	{
		unsigned	processes = parallel_sorting_processes();

		max = (max + processes - 1) / processes;
	}
	if (max <= 1)
		return 1;
	return by_hashes < max ? (unsigned) by_hashes : max;
}

/*
 * On an error, or the backend's exit (a FATAL error, such as a terminated
 * parallel worker's, exits without unwinding), while the flatten's threads
 * run: stop and join them, so that none outlives what it reads.
 */
static void
stop_flatten_threads(int code, Datum arg)
{
	bloom_flatten_job *job = (bloom_flatten_job *) DatumGetPointer(arg);

	(void) code;
	bloom_flatten_cancel(job);
	(void) bloom_flatten_finish(job);
}

/* Wait for a flatten's step, checking for interrupts; on an error or exit the job ends. */
static void
wait_for_flatten(bloom_flatten_job *job)
{
	PG_ENSURE_ERROR_CLEANUP(stop_flatten_threads, PointerGetDatum(job));
	{
		while (!bloom_flatten_wait(job, FLATTEN_WAIT_MS))
			CHECK_FOR_INTERRUPTS();
	}
	PG_END_ENSURE_ERROR_CLEANUP(stop_flatten_threads, PointerGetDatum(job));
}

static void
report_flatten_failure(bloom_status status)
{
	if (status == BLOOM_ERR_GAPS_CODE)
		bloom_report_invalid(status, ERRCODE_DATA_CORRUPTED, "bloom_agg_state value");
	if (status == BLOOM_ERR_NO_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("A thread coding a bloom_agg state could not allocate its buffer.")));
	elog(ERROR, "bloom_agg's flatten threads stopped before they were done: %s",
		 bloom_status_message(status));
}

/* A sorted job nobody took the code of: its memory goes. */
static void
drop_sorted_job(BloomAggState *state)
{
	bloom_flatten_job *job = state->sorted.job;

	state->sorted.job = NULL;
	if (job != NULL)
		(void) bloom_flatten_finish(job);
}

/* The state's memory is reset or deleted. */
static void
drop_sorted_job_callback(void *arg)
{
	drop_sorted_job((BloomAggState *) arg);
}

/*
 * The state's runs and buffer sorted by the core's threads (bloom_flatten.h)
 * while this backend waits and checks for interrupts, and the code's exact
 * length counted: the flat form's size is known, and its code waits in
 * state->sorted for the memory it goes into, no thread running meanwhile.
 * The job's memory goes with the state's if that memory never comes.
 * False, with nothing done, when the threads cannot be had.
 */
static bool
sort_on_threads(BloomAggState *state, unsigned nthreads)
{
	bloom_hash_run *runs;
	bloom_flatten_job *job;
	bloom_status status;
	uint64		ndistinct;
	size_t		code_len;
	uint64		payload;
	int			n;

	runs = state_blocks(state, state->hdr.eoh_context, true, &n);
	if (bloom_flatten_start(&job, runs, n, nthreads) != BLOOM_OK)
	{
		free_state_blocks(runs, n);
		return false;
	}
	wait_for_flatten(job);
	status = bloom_flatten_sorted(job, &ndistinct, &code_len);
	free_state_blocks(runs, n);
	payload = BLOOM_STATE_V2_HEADER_BYTES + (uint64) code_len;
	if (status != BLOOM_OK || payload > MaxAllocSize - VARHDRSZ)
	{
		(void) bloom_flatten_finish(job);
		if (status != BLOOM_OK)
			report_flatten_failure(status);
		check_flat_size(payload, ndistinct);
	}
	if (!state->sorted.callback_registered)
	{
		state->sorted.on_reset.func = drop_sorted_job_callback;
		state->sorted.on_reset.arg = state;
		MemoryContextRegisterResetCallback(state->hdr.eoh_context,
										   &state->sorted.on_reset);
		state->sorted.callback_registered = true;
	}
	state->sorted.job = job;
	state->sorted.nkeys = state->nkeys;
	state->sorted.ndistinct = ndistinct;
	state->sorted.size = VARHDRSZ + payload;
	return true;
}

/*
 * A sorted state's flat form written into dest, which holds its
 * state->sorted.size bytes, by the threads, straight from the sorted
 * hashes; the job ends here.
 */
static void
code_sorted(BloomAggState *state, uint8 *dest)
{
	bloom_flatten_job *job = state->sorted.job;
	bloom_status status;

	/* taken from the state first: an error below ends the job itself */
	state->sorted.job = NULL;
	bloom_state_v2_write_header(dest + VARHDRSZ, state->bits_per_key,
								state->nkeys, state->sorted.ndistinct);
	bloom_flatten_code(job, dest + VARHDRSZ + BLOOM_STATE_V2_HEADER_BYTES);
	wait_for_flatten(job);
	status = bloom_flatten_finish(job);
	if (status != BLOOM_OK)
		report_flatten_failure(status);
	SET_VARSIZE(dest, state->sorted.size);
	state->sorted.coded = true;
	state->sorted.coded_nkeys = state->nkeys;
	BLOOM_TRACE_LOG("flat coded bytes=%zu", (size_t) state->sorted.size);
}

/* A sorted state's flat form, coded into the state's own memory and kept. */
static void
keep_sorted_flat(BloomAggState *state)
{
	uint8	   *flat = MemoryContextAlloc(state->hdr.eoh_context, state->sorted.size);

	bloom_advise_huge_pages(flat, state->sorted.size);
	code_sorted(state, flat);
	state->flat = flat;
	state->flat_size = VARSIZE(flat);
	state->flat_nkeys = state->nkeys;
}

/*
 * A partial state going to its parallel leader's Finalize Aggregate: the
 * leader's own referenced where it lies; a worker's hashes handed off in
 * the query's shared memory, when the state is large enough to be worth it
 * and the memory is there.  The flat form is then the reference.
 */
static bool
try_handoff(BloomAggState *state)
{
	uint64		nhashes = state_hashes(state);
	bloom_hash_run *parts;
	BloomHandoffBlock *blocks;
	uint8	   *reference;
	int			nparts;
	int			nblocks = 0;
	bool		shared;

	if (state->handoff.local && state->shared == NULL)
	{
		/* the leader's own: read where it lies, sorted and coded or not */
		reference = MemoryContextAlloc(state->hdr.eoh_context, BLOOM_HANDOFF_REF_SIZE);
		bloom_handoff_local(state, state->hdr.eoh_context, state->bits_per_key,
							state->nkeys, reference);
		state->flat = reference;
		state->flat_size = BLOOM_HANDOFF_REF_SIZE;
		state->flat_nkeys = state->nkeys;
		BLOOM_TRACE_LOG("handoff local hashes=" UINT64_FORMAT, nhashes);
		return true;
	}
	if (state->handoff.area == NULL || nhashes < BLOOM_HANDOFF_MIN_HASHES ||
		state->shared != NULL)
		return false;
	for (const BloomAggRun *run = state->runs; run != NULL; run = run->next)
		if (run->coded)
			return false;

	/* the runs and chunks made in shared memory stay where they are */
	nparts = state->nruns;
	for (const BloomAggChunk *chunk = state->first; chunk != NULL; chunk = chunk->next)
		nparts++;
	parts = MemoryContextAlloc(state->hdr.eoh_context, nparts * sizeof(bloom_hash_run));
	blocks = MemoryContextAlloc(state->hdr.eoh_context, nparts * sizeof(BloomHandoffBlock));
	nparts = 0;
	for (int pass = 0; pass < 2; pass++)
		for (const BloomAggChunk *block = pass == 0 ? state->runs : state->first;
			 block != NULL; block = block->next)
		{
			if (block->nhashes == 0)
				continue;
			if (DsaPointerIsValid(block->shared))
			{
				blocks[nblocks].hashes = block->shared + offsetof(BloomAggChunk, hashes);
				blocks[nblocks++].n = block->nhashes;
			}
			else
				run_as_hash_run(block, &parts[nparts++], NULL);
		}
	reference = MemoryContextAlloc(state->hdr.eoh_context, BLOOM_HANDOFF_REF_SIZE);
	shared = bloom_handoff_share(&state->handoff, state->bits_per_key, state->nkeys,
								 blocks, nblocks, parts, nparts, nhashes,
								 state->shared_bytes, reference);
	pfree(blocks);
	pfree(parts);
	if (!shared)
	{
		pfree(reference);
		return false;
	}
	state->flat = reference;
	state->flat_size = BLOOM_HANDOFF_REF_SIZE;
	state->flat_nkeys = state->nkeys;
	return true;
}

/*
 * Ready an expanded state's flat form, once while its keys hold: the
 * reference of a hand-off, or the flat form made here (state->flat), or,
 * for a large state, its hashes sorted on threads with the code to come
 * (true): written straight into the memory it is to be in, so that a large
 * state's code is written once, not into a flat form of the state's to be
 * copied from.  That memory is the caller's, so a state flattened again
 * (from PostgreSQL 16 on an aggregate's result is not copied, and each
 * consumer may flatten it) is sorted again, once: the second time its flat
 * form is made and kept here.
 */
static bool
prepare_flat(BloomAggState *state)
{
	unsigned	nthreads;

	const uint32 *hashes;
	uint32	   *sorted = NULL;
	uint64		ndistinct;
	uint64		max;
	Size		len;

	if (state->flat != NULL && state->flat_nkeys == state->nkeys)
		return false;
	if (state->sorted.job != NULL && state->sorted.nkeys == state->nkeys)
		return true;
	if (state->flat != NULL)
		pfree(state->flat);
	state->flat = NULL;
	drop_sorted_job(state);
	BLOOM_TRACE_LOG("flat start keys=" UINT64_FORMAT " runs=%d buffered=" UINT64_FORMAT,
					state->nkeys, state->nruns, state->nbuffered);

	if (try_handoff(state))
		return false;
	if (state->nbuffered == 0 && state->nruns == 1 && state->shared == NULL &&
		state->runs->sorted && !state->runs->coded)
	{
		/* one sorted run already: coded as it is */
		hashes = state->runs->hashes;
		ndistinct = state->runs->nhashes;
	}
	else if (state->nbuffered == 0 && state->nruns == 0 && state->shared == NULL)
	{
		hashes = NULL;
		ndistinct = 0;
	}
	else if ((nthreads = flatten_threads(state)) > 1 &&
			 sort_on_threads(state, nthreads))
	{
		BLOOM_TRACE_LOG("flat sorted threads=%u", nthreads);
		if (!state->sorted.coded || state->sorted.coded_nkeys != state->nkeys)
			return true;
		keep_sorted_flat(state);
		return false;
	}
	else
		hashes = sorted = sorted_distinct_hashes(state, &ndistinct);
	BLOOM_TRACE_LOG("flat sorted distinct=" UINT64_FORMAT, ndistinct);
	max = bloom_state_v2_max_size(ndistinct);
	check_flat_size(max, ndistinct);
	state->flat = MemoryContextAlloc(state->hdr.eoh_context, VARHDRSZ + max);
	bloom_advise_huge_pages(state->flat, VARHDRSZ + max);
	len = bloom_state_v2_write(state->flat + VARHDRSZ, state->bits_per_key,
							   state->nkeys, hashes, ndistinct);
	check_flat_size(len, ndistinct);
	if (sorted != NULL)
		bloom_free_hashes(sorted);
	state->flat_size = VARHDRSZ + len;
	state->flat_nkeys = state->nkeys;
	BLOOM_TRACE_LOG("flat coded bytes=%zu", (size_t) state->flat_size);
	return false;
}

/* The flat form of an expanded state, kept in the state while its keys hold. */
static void
make_flat(BloomAggState *state)
{
	if (prepare_flat(state))
		keep_sorted_flat(state);
}

static Size
bloom_agg_state_flat_size(ExpandedObjectHeader *eohptr)
{
	BloomAggState *state = (BloomAggState *) eohptr;

	return prepare_flat(state) ? state->sorted.size : state->flat_size;
}

static void
bloom_agg_state_flatten(ExpandedObjectHeader *eohptr, void *result,
						Size allocated_size)
{
	BloomAggState *state = (BloomAggState *) eohptr;
	bool		coded_here = prepare_flat(state);
	Size		size = coded_here ? state->sorted.size : state->flat_size;

	Assert(allocated_size == size);
	(void) allocated_size;		/* read only by the assertion */
	/*
	 * The caller's new area (a tuple, or the copy PostgreSQL makes of an
	 * aggregate's result that has no final function) is first written here:
	 * on huge pages, one fault for each 2 MB instead of each 4 kB.
	 */
	bloom_advise_huge_pages(result, size);
	if (coded_here)
		code_sorted(state, result);
	else
	{
		memcpy(result, state->flat, size);
		SET_VARSIZE(result, size);
	}
}

static void
check_bytes(const uint8 *bytes, Size len, int sqlstate,
			bloom_state_header *header)
{
	bloom_status status = bloom_state_check(bytes, len, header);

	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloom_agg_state value");
}

/*
 * A checked state's hashes, read (a gap code decoded and checked) into a
 * new allocation in cxt, after prefix bytes left for the caller.
 */
static void *
read_hashes(const uint8 *bytes, const bloom_state_header *header,
			int sqlstate, MemoryContext cxt, Size prefix)
{
	void	   *area;
	bloom_status status;

	/* bloom_state_check bounded the count by the bytes it came in */
	area = bloom_alloc_hashes(cxt, prefix, Max(header->nhashes, 1));
	status = bloom_state_read_hashes(bytes, header,
									 (uint32 *) ((char *) area + prefix));
	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloom_agg_state value");
	return area;
}

/*
 * Check a serialized state, a gap code decoded too (its hashes let go as
 * they come, so that a large state's input needs no room for them), and
 * return it as a new flat datum: the one entry point for bytes from
 * outside.
 */
static struct varlena *
flat_from_bytes(const uint8 *bytes, Size len, int sqlstate)
{
	bloom_state_header header;
	struct varlena *result;
	bloom_status status;

	check_bytes(bytes, len, sqlstate, &header);
	status = bloom_state_check_code(bytes, &header);
	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloom_agg_state value");
	result = palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	return result;
}

/* ---- reading any state datum --------------------------------------------- */

static BloomAggState *
expanded_state(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	if (eoh->eoh_methods != &bloom_agg_state_methods)
		elog(ERROR, "expanded object is not a bloom_agg state");
	return (BloomAggState *) eoh;
}

/*
 * A flat state may come from a parallel worker, a table or a user: it is
 * checked as any input.  Detoasting gives a 4-byte header and an aligned
 * payload, so a version 1 state's hashes are read in place where the byte
 * order allows.
 */
static struct varlena *
detoasted_flat(Datum d, bloom_state_header *header)
{
	struct varlena *flat = PG_DETOAST_DATUM(d);

	check_bytes((const uint8 *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ,
				ERRCODE_DATA_CORRUPTED, header);
	return flat;
}

/* Room to decode nhashes hashes into, in the current context. */
static uint32 *
decode_room(uint64 nhashes)
{
	return bloom_alloc_hashes(CurrentMemoryContext, 0, Max(nhashes, 1));
}

void
bloom_agg_state_view(Datum d, BloomAggStateView *view)
{
	BloomAggState *state = expanded_state(d);
	struct varlena *flat;
	bloom_state_header header;
	const uint8 *bytes;

	if (state != NULL)
	{
		view->bits_per_key = state->bits_per_key;
		view->nkeys = state->nkeys;
		view->nhashes = state_hashes(state);
		view->sorted = state->nbuffered == 0 && state->shared == NULL;
		for (const BloomAggRun *run = state->runs; run != NULL; run = run->next)
			view->sorted &= run->sorted;
		view->runs = state_blocks(state, CurrentMemoryContext, true, &view->nruns);
		return;
	}

	flat = detoasted_flat(d, &header);
	bytes = (const uint8 *) VARDATA(flat);
	view->bits_per_key = header.bits_per_key;
	view->nkeys = header.nkeys;
	view->nhashes = header.nhashes;
	view->sorted = header.version == BLOOM_STATE_VERSION_GAPS;
	view->runs = palloc0(sizeof(bloom_hash_run));
	view->nruns = header.nhashes > 0 ? 1 : 0;
	view->runs[0].n = header.nhashes;
	if (header.version == BLOOM_STATE_VERSION_GAPS)
	{
		/* decoded, and checked, by the final, on its threads */
		uint32	   *room = decode_room(header.nhashes);

		view->runs[0].hashes = room;
		view->runs[0].decode_into = room;
		view->runs[0].code = bytes + header.payload_offset;
		view->runs[0].code_len = header.payload_len;
		return;
	}
#ifndef WORDS_BIGENDIAN
	view->runs[0].hashes = (const uint32 *) (bytes + header.payload_offset);
#else
	view->runs[0].hashes = read_hashes(bytes, &header, ERRCODE_DATA_CORRUPTED,
									   CurrentMemoryContext, 0);
#endif
}

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
	blocks = state_blocks(local, state->hdr.eoh_context, false, &nblocks);
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
	BloomAggState *expanded = expanded_state(other);
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

			init_block(copy, run->nhashes, words, run->sorted, run->coded, run->code_len);
			memcpy(copy->hashes, run->hashes, words * sizeof(uint32));
			if (run->sorted && !run->coded)
				add_sorted_run(state, copy);
			else
				add_run(state, copy, expanded->sketch, expanded->nsketch);
		}
		for (chunk = expanded->first; chunk != NULL; chunk = chunk->next)
			append_hashes(state, chunk->hashes, chunk->nhashes);
		for (BloomAggShared *shared = expanded->shared; shared != NULL; shared = shared->next)
			add_shared(state, shared->hashes, shared->nhashes);
		merge_runs_if_worth_it(state);
		return;
	}

	BLOOM_TRACE_LOG("absorb start");
	flat = detoasted_flat(other, &header);
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
			run = read_hashes(bytes, &header, ERRCODE_DATA_CORRUPTED,
							  state->hdr.eoh_context, offsetof(BloomAggRun, hashes));
			init_block(run, header.nhashes, header.nhashes, true, false, 0);
			add_sorted_run(state, run);
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
			init_block(run, header.nhashes, (header.payload_len + 3) / 4, true, true,
					   header.payload_len);
			memcpy(run->hashes, bytes + header.payload_offset, header.payload_len);
			add_run(state, run, smallest, nsmallest);
		}
		merge_runs_if_worth_it(state);
		BLOOM_TRACE_LOG("absorb end hashes=" UINT64_FORMAT, header.nhashes);
		return;
	}
#ifndef WORDS_BIGENDIAN
	append_hashes(state, (const uint32 *) (bytes + header.payload_offset),
				  header.nhashes);
#else
	{
		uint32	   *hashes = read_hashes(bytes, &header, ERRCODE_DATA_CORRUPTED,
										 state->hdr.eoh_context, 0);

		append_hashes(state, hashes, header.nhashes);
		bloom_free_hashes(hashes);
	}
#endif
}

/* ---- I/O: binary is the serialized layout, text is its base64 ---- */

/*
 * The flat bytes of any state datum: an expanded state's flat form (made
 * and kept), or a flat one as it is, checked as the aggregate functions
 * check it (a parallel query's reference, which no input accepts, is
 * refused here too).
 */
static const uint8 *
serialized_bytes(Datum d, Size *len)
{
	BloomAggState *state = expanded_state(d);
	struct varlena *flat;
	bloom_state_header header;

	if (state != NULL)
	{
		make_flat(state);
		*len = state->flat_size - VARHDRSZ;
		return state->flat + VARHDRSZ;
	}
	flat = detoasted_flat(d, &header);
	*len = VARSIZE(flat) - VARHDRSZ;
	return (const uint8 *) VARDATA(flat);
}

Datum
bloom_agg_state_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	size_t		textlen = strlen(text);
	int			maxlen;
	int			len;
	uint8	   *bytes;

	/* base64 needs at most 3 bytes for 4 characters */
	maxlen = pg_b64_dec_len((int) textlen);
	bytes = palloc(maxlen);
	len = pg_b64_decode(text, (int) textlen, (bloom_b64_binary *) bytes, maxlen);
	if (len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bloom_agg_state"),
				 errdetail("The value is not valid base64.")));
	PG_RETURN_POINTER(flat_from_bytes(bytes, len,
									  ERRCODE_INVALID_TEXT_REPRESENTATION));
}

Datum
bloom_agg_state_out(PG_FUNCTION_ARGS)
{
	Size		len;
	const uint8 *bytes = serialized_bytes(PG_GETARG_DATUM(0), &len);
	int			textlen;
	char	   *text;

	if (len > (MaxAllocSize / 4) * 3 - 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg state too large for its text form"),
				 errdetail("A state of %zu bytes would exceed 1 GB as base64 text.",
						   (size_t) len),
				 errhint("Use binary transfer, or give each worker fewer keys.")));
	textlen = pg_b64_enc_len((int) len);
	text = palloc(textlen + 1);
	textlen = pg_b64_encode((const bloom_b64_binary *) bytes, (int) len,
							text, textlen);
	if (textlen < 0)
		elog(ERROR, "could not encode bloom_agg state as base64");
	text[textlen] = '\0';
	PG_RETURN_CSTRING(text);
}

Datum
bloom_agg_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	struct varlena *result;

	result = flat_from_bytes((const uint8 *) buf->data + buf->cursor,
							 buf->len - buf->cursor,
							 ERRCODE_INVALID_BINARY_REPRESENTATION);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(result);
}

Datum
bloom_agg_state_send(PG_FUNCTION_ARGS)
{
	Size		len;
	const uint8 *bytes = serialized_bytes(PG_GETARG_DATUM(0), &len);
	bytea	   *result;

	result = palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	PG_RETURN_BYTEA_P(result);
}
