/*
 * bloom_final.h
 *		Setting a filter's bits from many key hashes on several threads.
 *		No PostgreSQL dependency: the threads run nothing but the core's
 *		code, allocate with malloc, and have every signal blocked.
 *
 * A job is started, waited for (a short while at a time, so that the
 * caller can check for its own interrupts), cancelled if the caller must
 * stop, and always finished: finishing joins every thread and frees every
 * byte, on every path.
 */
#ifndef BLOOM_FINAL_H
#define BLOOM_FINAL_H

#include "bloom_core.h"
#include "bloom_hash_run.h"

BLOOM_BEGIN_PRIVATE

/*
 * The most threads a job may use, and so the largest
 * bloomfilter.max_final_threads: a thread's copy or buckets, and its share
 * of the OR, are worth their memory only while threads are few next to the
 * filter's cache lines.
 */
#define BLOOM_MAX_FINAL_THREADS		64

/*
 * Through buckets, the hashes are taken in claims of BLOOM_FINAL_CLAIM, a
 * slice of BLOOM_FINAL_SLICE from each of BLOOM_FINAL_STRIPES evenly
 * spaced stretches of all the runs (bloom_final.c says why), by the
 * threads and by the build on one thread (bloom_build.h) alike.
 */
#define BLOOM_FINAL_CLAIM			16384
#define BLOOM_FINAL_STRIPES			128
#define BLOOM_FINAL_SLICE			(BLOOM_FINAL_CLAIM / BLOOM_FINAL_STRIPES)

typedef struct bloom_final_job bloom_final_job;

/*
 * Whether a job of nthreads threads sets this geometry's bits into copies
 * of the bit array, one a thread, OR-ed together at the end (a filter of
 * moderate size), rather than through buckets of positions by region.
 */
extern bool bloom_final_uses_copies(const bloom_geometry *geometry,
									unsigned nthreads);

/*
 * Start setting, into filter (geometry->filter_bytes long, zeroed here by
 * the threads, so it may come straight from an allocator, its k byte
 * written here), the bits of every hash of the runs, on nthreads threads
 * (2 .. BLOOM_MAX_FINAL_THREADS).  The runs and their hashes must stay as
 * they are until bloom_final_finish.  On an error status nothing is left
 * running or allocated, and the filter is as it was.
 */
extern bloom_status bloom_final_start(bloom_final_job **job, uint8_t *filter,
									  const bloom_geometry *geometry,
									  const bloom_hash_run *runs, size_t nruns,
									  unsigned nthreads);

/*
 * The same, in the way given rather than the one bloom_final_uses_copies
 * chooses: for tests, which compare both ways' bytes, and for benchmarks.
 */
typedef enum bloom_final_way
{
	BLOOM_FINAL_WAY_CHOSEN,
	BLOOM_FINAL_WAY_COPIES,
	BLOOM_FINAL_WAY_BUCKETS
} bloom_final_way;

extern bloom_status bloom_final_start_way(bloom_final_job **job, uint8_t *filter,
										  const bloom_geometry *geometry,
										  const bloom_hash_run *runs, size_t nruns,
										  unsigned nthreads, bloom_final_way way);

/* Wait up to timeout_ms; true once every bit is set (or the job stopped). */
extern bool bloom_final_wait(bloom_final_job *job, unsigned timeout_ms);

/*
 * Ask the threads to stop: each sees it before its next block of hashes,
 * region of the filter or part of a coded run.
 */
extern void bloom_final_cancel(bloom_final_job *job);

/*
 * Join every thread and free the job: BLOOM_OK if every bit was set,
 * BLOOM_ERR_CANCELLED if it was cancelled first, or a coded run's decoding
 * status.  Exactly once after a successful start.
 */
extern bloom_status bloom_final_finish(bloom_final_job *job);

#ifdef BLOOM_TRACE
/* The threads' step times (bloom_trace.h), once the job is done. */
extern void bloom_final_trace(const bloom_final_job *job, char *buf, size_t len);
#endif

BLOOM_END_PRIVATE

#endif							/* BLOOM_FINAL_H */
