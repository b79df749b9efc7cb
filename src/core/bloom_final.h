/*
 * bloom_final.h
 *		Setting a filter's bits from many key hashes on several threads.
 *		No PostgreSQL dependency: the threads run nothing but this file's
 *		code, allocate with malloc, and have every signal blocked.
 *
 * A job is started, waited for (a short while at a time, so that the
 * caller can check for its own interrupts), cancelled if the caller must
 * stop, and always finished: finishing joins every thread and frees every
 * byte, on every path.
 */
#ifndef BLOOM_FINAL_H
#define BLOOM_FINAL_H

#include <time.h>

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * The most threads a job may use, and so the largest
 * bloomfilter.max_final_threads: a thread's copy or buckets, and its share
 * of the OR, are worth their memory only while threads are few next to the
 * filter's cache lines.
 */
#define BLOOM_MAX_FINAL_THREADS		64

/*
 * Some hashes: every one of them sets its key's bits.  A run may come as
 * the gap code of n sorted distinct hashes (bloom_gaps.h, with parameter
 * bloom_gaps_rice_param(n)): code is then not NULL, and the hashes are
 * decoded into decode_into (room for n), at which hashes points.  The
 * decoding is fully checked, and spread over the threads with the rest.
 */
typedef struct bloom_hash_run
{
	const uint32_t *hashes;
	size_t		n;
	const uint8_t *code;
	size_t		code_len;
	uint32_t   *decode_into;
} bloom_hash_run;

/* Hashes a coded run's decoding takes between two asks whether to go on. */
#define BLOOM_DECODE_PART	((size_t) 1 << 18)

/*
 * Decode a coded run (nothing to do for another), BLOOM_DECODE_PART hashes
 * at a time, asking go_on(arg) before each part when go_on is not NULL: a
 * run of a hundred million hashes takes most of a second to decode, and
 * whoever decodes it may be asked to stop meanwhile.  BLOOM_ERR_CANCELLED
 * when go_on says no; go_on may also leave by longjmp, since the decoding
 * holds nothing of its own.
 */
extern bloom_status bloom_hash_run_decode(const bloom_hash_run *run,
										  bool (*go_on) (void *arg), void *arg);

/*
 * Where each run starts among all the runs' hashes: nruns + 1 offsets,
 * the last the total, malloc'd (NULL when there is no memory).  Threads
 * that share out hashes across runs (the final's stripes, the flatten's
 * shares) find a hash's run by them.
 */
extern uint64_t *bloom_hash_run_starts(const bloom_hash_run *runs, size_t nruns);

/*
 * CLOCK_MONOTONIC timeout_ms from now, for pthread_cond_timedwait on a
 * condition made with that clock: the callers' waits between interrupt
 * checks.
 */
extern struct timespec bloom_deadline_after(unsigned timeout_ms);

typedef struct bloom_final_job bloom_final_job;

/*
 * How many threads setting the bits of nhashes hashes into a filter of
 * this geometry is worth, at most max: 1 (set them on the caller's thread)
 * for a filter that fits the CPU caches or for few hashes.
 */
extern unsigned bloom_final_threads_for(const bloom_geometry *geometry,
										uint64_t nhashes, unsigned max);

/*
 * The scratch (in 32-bit words) for setting nhashes hashes' bits into a
 * filter of this geometry on one thread: bloom_set_scratch_size's, or 0
 * when there are fewer positions than it would hold.  Buckets pay only
 * when they gather several positions per cache line of their region; a
 * handful of keys into a large filter (the distinct keys of a column with
 * many repeats) would allocate megabytes of scratch for a few positions.
 */
extern size_t bloom_final_scratch_size(const bloom_geometry *geometry,
									   uint64_t nhashes);

/*
 * Whether a job of nthreads threads sets this geometry's bits into copies
 * of the bit array, one a thread, OR-ed together at the end (a filter of
 * moderate size), rather than through buckets of positions by region.
 */
extern bool bloom_final_uses_copies(const bloom_geometry *geometry,
									unsigned nthreads);

/*
 * The CPUs this process may run on, by its affinity mask where the system
 * has one, else the CPUs online (1 .. BLOOM_MAX_FINAL_THREADS): more
 * threads than that only take turns, and each barrier then waits for a
 * thread that is not running, so that the final can take longer than on
 * one thread.
 */
extern unsigned bloom_available_cpus(void);

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

/* Hashes a serial build sets between two asks whether to go on. */
#define BLOOM_SERIAL_CHECK_BATCH	((size_t) 1 << 18)

/*
 * The build on the calling thread: the filter (geometry->filter_bytes long)
 * zeroed, the bits of every hash of the runs set (coded runs decoded
 * first), and its k byte written, given scratch of scratch_size words from
 * bloom_final_scratch_size (or NULL, 0).  With scratch, the hashes go
 * through one set of buckets, in the threaded build's order.  go_on, if
 * not NULL, is asked with arg before every BLOOM_DECODE_PART hashes of a
 * coded run are decoded and before every BLOOM_SERIAL_CHECK_BATCH hashes
 * are set, so that a caller can stop a build over a billion keys: by a no
 * (BLOOM_ERR_CANCELLED), or by longjmp, since the build holds nothing of
 * its own.  Returns BLOOM_OK, that, or a coded run's decoding status.
 */
extern bloom_status bloom_build_serially(uint8_t *filter,
										 const bloom_geometry *geometry,
										 const bloom_hash_run *runs,
										 size_t nruns, uint32_t *scratch,
										 size_t scratch_size,
										 bool (*go_on) (void *arg),
										 void *arg);

/*
 * Start, wait and finish; nthreads 1 sets the bits on this thread
 * (bloom_build_serially, its scratch allocated here).  Either way the
 * filter is zeroed first.
 */
extern bloom_status bloom_build_from_runs(uint8_t *filter,
										  const bloom_geometry *geometry,
										  const bloom_hash_run *runs,
										  size_t nruns, unsigned nthreads);

/* The same, in the way given (nthreads >= 2). */
extern bloom_status bloom_build_from_runs_way(uint8_t *filter,
											  const bloom_geometry *geometry,
											  const bloom_hash_run *runs,
											  size_t nruns, unsigned nthreads,
											  bloom_final_way way);

BLOOM_END_PRIVATE

#endif							/* BLOOM_FINAL_H */
