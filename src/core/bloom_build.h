/*
 * bloom_build.h
 *		Setting a filter's bits from runs of key hashes, in one call: on
 *		the calling thread, or on the final's threads (bloom_final.h), and
 *		how many threads that is worth.  No PostgreSQL dependency.
 */
#ifndef BLOOM_BUILD_H
#define BLOOM_BUILD_H

#include "bloom_core.h"
#include "bloom_final.h"
#include "bloom_hash_run.h"

BLOOM_BEGIN_PRIVATE

/*
 * How many threads setting the bits of nhashes hashes into a filter of
 * this geometry is worth, at most max: 1 (set them on the caller's thread)
 * for a filter that fits the CPU caches or for few hashes.
 */
extern unsigned bloom_final_threads_for(const bloom_geometry *geometry,
										uint64_t nhashes, unsigned max);

/*
 * The CPUs this process may run on, by its affinity mask where the system
 * has one, else the CPUs online (1 .. BLOOM_MAX_FINAL_THREADS): more
 * threads than that only take turns, and each barrier then waits for a
 * thread that is not running, so that the final can take longer than on
 * one thread.
 */
extern unsigned bloom_available_cpus(void);

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

#endif							/* BLOOM_BUILD_H */
