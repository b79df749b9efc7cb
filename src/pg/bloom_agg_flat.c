/*
 * bloom_agg_flat.c
 *		An expanded bloom_agg state's flat form (its version 2 layout,
 *		bloom_state.h): a parallel worker's hashes handed off instead; a
 *		large state's sorted and coded on the core's threads
 *		(bloom_flatten.h), straight into the memory the form is to be in;
 *		or made here.  And the expanded object's methods, which ask for it.
 */
#include "postgres.h"

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
#include "optimizer/optimizer.h"
#include "utils/memutils.h"

#include "bloom_agg_flat.h"
#include "bloom_agg_runs.h"
#include "bloom_agg_state.h"
#include "bloom_flatten.h"
#include "bloom_pg.h"
#include "bloom_state.h"
#include "bloom_trace_pg.h"

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
	uint64		nhashes = bloom_agg_state_hashes(state);
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

	runs = bloom_agg_state_blocks(state, state->hdr.eoh_context, true, &n);
	if (bloom_flatten_start(&job, runs, n, nthreads) != BLOOM_OK)
	{
		bloom_agg_free_state_blocks(runs, n);
		return false;
	}
	bloom_wait_for_threads(BLOOM_THREADS_FLATTEN, job);
	status = bloom_flatten_sorted(job, &ndistinct, &code_len);
	bloom_agg_free_state_blocks(runs, n);
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
	bloom_wait_for_threads(BLOOM_THREADS_FLATTEN, job);
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
	uint64		nhashes = bloom_agg_state_hashes(state);
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
				bloom_agg_block_as_hash_run(block, &parts[nparts++], NULL);
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
		hashes = sorted = bloom_agg_sorted_distinct_hashes(state, &ndistinct);
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

void
bloom_agg_state_make_flat(BloomAggState *state)
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

const ExpandedObjectMethods bloom_agg_state_methods = {
	bloom_agg_state_flat_size,
	bloom_agg_state_flatten
};
