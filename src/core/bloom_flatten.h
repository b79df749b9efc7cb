/*
 * bloom_flatten.h
 *		The distinct hashes of many runs, sorted and gap-coded on several
 *		threads: the payload of a large bloom_agg state's flat form (its
 *		version 2 layout, bloom_state.h), such as the one a parallel leader
 *		hands on for bloom_agg_partial, made from every worker's runs.  No
 *		PostgreSQL dependency: the threads run nothing but the core's code,
 *		allocate with malloc, and have every signal blocked.
 *
 * The result is, byte for byte, bloom_gaps_encode's code of what
 * bloom_sort_unique_parts gives for the same runs, for any number of
 * threads.
 *
 * A job goes in two steps, because the caller allocates the output once
 * its exact length is known: start (decode, partition, sort and count the
 * code's bits), wait, sorted (the distinct count and the code's length),
 * then, when the caller has the memory, code (straight into it), wait,
 * finish.  No thread runs between the two steps, so a caller may keep a
 * sorted job across calls of its own (PostgreSQL asks an expanded object
 * for its flat size and then flattens it into memory it allocates in
 * between).  As with the final (bloom_final.h), the caller waits a short
 * while at a time, may cancel, and always finishes: finishing joins every
 * thread and frees every byte, on every path.
 */
#ifndef BLOOM_FLATTEN_H
#define BLOOM_FLATTEN_H

#include "bloom_core.h"
#include "bloom_final.h"

BLOOM_BEGIN_PRIVATE

/*
 * Hashes below which one thread sorts and codes a state about as fast as
 * several: the threads' start, barriers and private buffers then cost
 * what they save.
 */
#define BLOOM_FLATTEN_THREADED_MIN	((uint64_t) 1 << 21)

typedef struct bloom_flatten_job bloom_flatten_job;

/*
 * Start sorting the distinct hashes of the runs (a coded run is decoded
 * into its decode_into first, and checked) on nthreads threads (2 ..
 * BLOOM_MAX_FINAL_THREADS).  The runs must stay as they are until
 * bloom_flatten_sorted; the job keeps the sorted hashes of its own.  On an
 * error status nothing is left running or allocated.
 */
extern bloom_status bloom_flatten_start(bloom_flatten_job **job,
										const bloom_hash_run *runs,
										size_t nruns, unsigned nthreads);

/*
 * Wait up to timeout_ms for the step under way (the sort, then the code);
 * true once its threads are all gone, done or stopped.
 */
extern bool bloom_flatten_wait(bloom_flatten_job *job, unsigned timeout_ms);

/* Ask the threads to stop, at their next bucket or run. */
extern void bloom_flatten_cancel(bloom_flatten_job *job);

/*
 * Once the sort is waited for: BLOOM_OK, the number of distinct hashes and
 * the exact length of their code, or why the job stopped (a coded run's
 * decoding status, or BLOOM_ERR_CANCELLED).
 */
extern bloom_status bloom_flatten_sorted(bloom_flatten_job *job,
										 uint64_t *ndistinct,
										 size_t *code_len);

/*
 * Only after bloom_flatten_sorted's BLOOM_OK: start coding the distinct
 * hashes with parameter bloom_gaps_rice_param(ndistinct) into out, which
 * holds exactly code_len bytes: nothing is written past them.  Where no
 * thread can be started, the parts not taken are coded here, before this
 * returns.
 */
extern void bloom_flatten_code(bloom_flatten_job *job, uint8_t *out);

/*
 * Join every thread and free the job: BLOOM_OK if the code was written
 * whole, else why not.  Exactly once after a successful start.
 */
extern bloom_status bloom_flatten_finish(bloom_flatten_job *job);

BLOOM_END_PRIVATE

#endif							/* BLOOM_FLATTEN_H */
