/*
 * bloom_final_pg.c
 *		Setting the filter's bits at the end of bloom_agg, on the core's
 *		threads, as many as bloomfilter.max_final_threads and
 *		bloomfilter.final_threads_limit allow.
 *
 * The core (bloom_final.c) owns the threads: they run no PostgreSQL code,
 * allocate nothing through palloc and have every signal blocked.  This
 * backend's own thread only waits for them, a short while at a time, and
 * checks for interrupts in between; a cancel, a statement_timeout or any
 * error then stops the threads and joins them before the error goes on,
 * and so does the backend's exit (a FATAL error, such as the one that ends
 * a parallel worker its leader terminates, exits without unwinding: the
 * threads must not outlive what they read).
 */
#include "postgres.h"

#include "bloom_compat.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/memutils.h"

#include "bloom_build.h"
#include "bloom_final.h"
#include "bloom_flatten.h"
#include "bloom_pg.h"
#include "bloom_trace_pg.h"

/* How long the backend waits for the threads between interrupt checks. */
#define WAIT_MS		20

unsigned
bloom_thread_budget(void)
{
	unsigned	budget = (unsigned) Min(bloom_max_final_threads,
										bloom_final_threads_limit);

	return Min(budget, bloom_available_cpus());
}

void
bloom_decode_state_run(const bloom_hash_run *run)
{
	bloom_status status = bloom_hash_run_decode(run, bloom_interrupts_checked, NULL);

	if (status != BLOOM_OK)
		bloom_report_invalid(status, ERRCODE_DATA_CORRUPTED, "bloom_agg_state value");
}

static void
build_serially(uint8 *filter, const bloom_geometry *geometry,
			   const bloom_hash_run *runs, int nruns, uint64 nhashes)
{
	bloom_status status;
	uint32	   *scratch;
	size_t		scratch_size;
	MemoryContext scratch_context = NULL;

	/*
	 * A filter larger than the CPU caches is set faster through a few MB of
	 * scratch space (bloom_buffered_set), in a context of its own: the
	 * caller's may not allow pfree.
	 */
	scratch_size = bloom_final_scratch_size(geometry, nhashes);
	if (scratch_size > 0)
		scratch_context = AllocSetContextCreate(CurrentMemoryContext,
												"bloom_agg final scratch",
												ALLOCSET_DEFAULT_SIZES);
	scratch = scratch_size > 0 ?
		bloom_alloc_hashes(scratch_context, 0, scratch_size) : NULL;

	status = bloom_build_serially(filter, geometry, runs, (size_t) nruns,
								  scratch, scratch_size, bloom_interrupts_checked, NULL);
	if (status != BLOOM_OK)
		bloom_report_invalid(status, ERRCODE_DATA_CORRUPTED, "bloom_agg_state value");
	if (scratch_context != NULL)
		MemoryContextDelete(scratch_context);
}

/* A job on the core's threads, of either kind. */
typedef struct ThreadsJob
{
	BloomThreadsKind kind;
	void	   *job;
} ThreadsJob;

/* On an error or the backend's exit while the threads run: stop and join them. */
static void
stop_threads(int code, Datum arg)
{
	const ThreadsJob *threads = (const ThreadsJob *) DatumGetPointer(arg);

	(void) code;
	if (threads->kind == BLOOM_THREADS_FLATTEN)
	{
		bloom_flatten_cancel(threads->job);
		(void) bloom_flatten_finish(threads->job);
	}
	else
	{
		bloom_final_cancel(threads->job);
		(void) bloom_final_finish(threads->job);
	}
}

void
bloom_wait_for_threads(BloomThreadsKind kind, void *job)
{
	ThreadsJob	threads = {kind, job};

	PG_ENSURE_ERROR_CLEANUP(stop_threads, PointerGetDatum(&threads));
	{
		while (!(kind == BLOOM_THREADS_FLATTEN ?
				 bloom_flatten_wait(job, WAIT_MS) : bloom_final_wait(job, WAIT_MS)))
			CHECK_FOR_INTERRUPTS();
	}
	PG_END_ENSURE_ERROR_CLEANUP(stop_threads, PointerGetDatum(&threads));
}

void
bloom_build_filter_from_runs(uint8 *filter, const bloom_geometry *geometry,
							 const bloom_hash_run *runs, int nruns,
							 uint64 nhashes)
{
	bloom_final_job *job;
	bloom_status status;
	unsigned	nthreads = bloom_final_threads_for(geometry, nhashes,
												   bloom_thread_budget());

	/*
	 * Where threads would pay (a filter of 4 MB or more, enough hashes),
	 * say how many the settings allow and how many it takes.  The message
	 * depends on the settings alone; the detail on the machine too.
	 */
	if (bloom_final_threads_for(geometry, nhashes, BLOOM_MAX_FINAL_THREADS) > 1)
		ereport(DEBUG1,
				(errmsg_internal("bloom_agg: final threads allowed: %d, the lower of bloomfilter.max_final_threads (%d) and bloomfilter.final_threads_limit (%d)",
								 Min(bloom_max_final_threads, bloom_final_threads_limit),
								 bloom_max_final_threads, bloom_final_threads_limit),
				 errdetail_internal("It sets the bits of a filter of " UINT64_FORMAT " bytes on %u threads; the server may run on %u CPUs.",
									(uint64) geometry->filter_bytes, nthreads,
									bloom_available_cpus())));

	BLOOM_TRACE_LOG("final set start nthreads=%u", nthreads);
	if (nthreads <= 1 ||
		bloom_final_start(&job, filter, geometry, runs, nruns, nthreads) != BLOOM_OK)
	{
		/* one thread asked for, or threads not to be had: this one */
		build_serially(filter, geometry, runs, nruns, nhashes);
		return;
	}

	bloom_wait_for_threads(BLOOM_THREADS_FINAL, job);
#ifdef BLOOM_TRACE
	{
		char		summary[256];

		bloom_final_trace(job, summary, sizeof(summary));
		BLOOM_TRACE_LOG("final threads %s", summary);
	}
#endif
	status = bloom_final_finish(job);
	if (status == BLOOM_ERR_GAPS_CODE)
		bloom_report_invalid(status, ERRCODE_DATA_CORRUPTED, "bloom_agg_state value");
	if (status != BLOOM_OK)
		elog(ERROR, "bloom_agg's final threads stopped before they were done: %s",
			 bloom_status_message(status));
}
