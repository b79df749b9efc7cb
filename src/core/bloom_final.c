/*
 * bloom_final.c
 *		Setting a filter's bits on several threads (see bloom_final.h).
 *
 * First each thread zeroes a share of the filter, and the coded runs are
 * decoded, each by one thread, the threads taking runs in turn.  The bits
 * are set in one of two ways; in copies, a thread done decoding sets the
 * bits of the runs already readable while another still decodes.
 *
 * A bit array of moderate size (COPY_MAX_BYTES, COPIES_MAX_BYTES) is set
 * in copies: each thread sets the bits of the hashes it takes (blocks from
 * a cursor over the runs that all share) straight into a bit array of its
 * own, the first thread's being the filter itself, the cache misses of a
 * batch of keys overlapped by prefetching (bloom_prepared_set_hashes); then
 * each thread ORs a share of the bytes of every copy into the filter.  A
 * position is set as soon as it is computed, never stored in a bucket and
 * read back, and no thread waits for another until the end.
 *
 * A larger one is set by bucketing the probe positions by region
 * of the bit array and setting a bucket at once, its region's cache lines
 * fetched once for many bits (bloom_prepared_set_hashes_buffered).  Here
 * every thread has its own buckets, one per region, and the threads go in
 * rounds of two steps:
 *	1. each takes hashes (in claims of slices from evenly spaced stretches
 *	   of all the runs, from a cursor that all share) and appends their
 *	   positions to its buckets, until one of them is full, or another
 *	   thread's is;
 *	2. each takes regions (from a counter that all share) and sets a
 *	   region from every thread's bucket for it.
 * Each byte is therefore written by one thread in a step, and the steps are
 * separated by barriers: no locks, no atomics per bit.  The threads of a
 * machine are not all as fast (two may share a core), so no thread has a
 * fixed share of a round: the first full bucket ends the step for all, and
 * a thread done with its regions takes the next.  A hash whose
 * positions did not all fit is simply taken again in the next round:
 * setting a bit twice changes nothing.  So the bits, and the bytes, are
 * those of one thread, for any number of threads.  OR-ing copies gives
 * them too: a bit is set in the filter exactly when some hash sets it.
 *
 * The barrier's last arriver decides, for all, whether to go on: when every
 * thread ran out of hashes in a round, or when the job is cancelled.  A
 * thread that stopped on its own would leave the others waiting forever.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* pthreads under -std=c99 */
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_final.h"
#include "bloom_setops.h"
#include "bloom_team.h"
#include "bloom_trace.h"
#ifdef BLOOM_TRACE
#include <stdio.h>
#endif

/* Regions of at least 2^BLOOM_REGION_SHIFT_MIN bits, at most this many. */
#define REGIONS_MAX			BLOOM_BUCKET_REGIONS_MAX
/* Positions a thread's buckets hold at least, on average a region. */
#define BUCKET_MIN			1024
/*
 * Hashes a thread takes from the shared cursor at once: BLOOM_FINAL_CLAIM.
 * Through buckets, a claim is that many hashes in BLOOM_FINAL_STRIPES
 * slices, one from each of BLOOM_FINAL_STRIPES evenly spaced stretches of
 * all the hashes.  The runs of a parallel plan's states are sorted, and the
 * first probe of a block of sorted hashes lands in a few neighbouring
 * regions: a claim of consecutive hashes would fill those regions' buckets
 * long before the others, and each round, which ends at the first full
 * bucket, would set few bits for its two barriers.  The stripes bound how
 * unevenly a claim of sorted hashes fills the buckets: each slice puts
 * BLOOM_FINAL_SLICE first probes into one region, against
 * k * BLOOM_FINAL_CLAIM / regions spread over every region.
 */
/*
 * Copies of the bit array (the first thread's being the filter itself) are
 * made when each is at most COPY_MAX_BYTES and they take at most
 * COPIES_MAX_BYTES in all; else buckets.
 *
 * COPY_MAX_BYTES bounds the size at which setting bits straight into a
 * copy may still beat bucketing them: a copy saves storing every position
 * and reading it back, but its writes land at random over the whole array,
 * and once several arrays that size are written at random they miss every
 * cache, while a bucket's region stays in one.  Since the buckets are
 * written a whole line at a time (bloom_bucket_writer), storing the
 * positions costs little, and buckets won from 12.5 MB up on the 2-core
 * machine measured; where exactly depends on the cache a machine really
 * has, which a virtual machine does not report, so this is a fixed limit
 * that errs towards buckets; make set-bench times both ways on a machine
 * (the figures of some are in doc/performance.md).  COPIES_MAX_BYTES bounds
 * the memory the copies add to the final, whatever the number of threads.
 */
#define COPY_MAX_BYTES		((uint64_t) 8 << 20)
#define COPIES_MAX_BYTES	((uint64_t) 64 << 20)
/* Bytes of the bit array OR-ed between checks for a cancel. */
#define OR_BLOCK			((size_t) 1 << 20)

typedef struct thread_state
{
	struct bloom_final_job *job;
	unsigned	id;
	/* the block of hashes taken: run, position and end within it */
	size_t		run;
	size_t		pos;
	size_t		end;
	bool		exhausted;		/* no hashes left after this round */
	/*
	 * buckets only: the claim, the stripe whose slice is being taken
	 * (BLOOM_FINAL_STRIPES once the claim is done), and the next hash of all runs
	 */
	uint64_t	claim;
	unsigned	stripe;
	uint64_t	next;
	bloom_bucket_writer *writer;	/* onto buckets */
	uint32_t   *buckets;		/* bucket_room positions */
	/* copies only: this thread's bit array (the filter's, for the first) */
	uint8_t    *copy;
#ifdef BLOOM_TRACE
	double		t_go;
	double		t_zeroed;
	double		t_decoded;
	double		t_end;
	unsigned	rounds;
	/* buckets: ms in each step and at the barriers, positions bucketed */
	double		ms_fill;
	double		ms_set;
	double		ms_wait;
	uint64_t	positions;
#endif
} thread_state;

struct bloom_final_job
{
	uint8_t    *bit_array;
	size_t		bit_array_bytes;
	bloom_prepared prepared;
	bool		copies;			/* set in copies, else in buckets */
	unsigned	shift;
	size_t		nregions;
	size_t		bucket_room;	/* positions in each thread's buckets, all
								 * regions' together */
	const bloom_hash_run *runs;
	size_t		nruns;
	unsigned	nthreads;
	/* buckets only: hash i of all runs is run r's hash i - run_start[r] */
	uint64_t   *run_start;		/* nruns + 1 entries */
	uint64_t	stripe_len;		/* hashes in a stripe (the last may have fewer) */
	uint64_t	nclaims;		/* slices a stripe is taken in */

	bloom_team	team;			/* its lock guards what the threads share */
	pthread_cond_t decoded_cond;	/* a run was decoded, or a cancel */
	/* all below under team.lock */
	uint64_t	next_claim;		/* buckets: the next slice of every stripe */
	size_t	   *claimed;		/* per run: hashes handed out */
	bool	   *readable;		/* per run: plain, or decoded */
	size_t		first_open;		/* every run before it handed out */
	size_t		decode_next;	/* the next run to decode, if coded */
	bloom_status decode_status;
	/*
	 * Read and written with atomic builtins only, so that a thread can see
	 * a cancel between two blocks of work without taking the lock.
	 */
	bool		cancelled;
	bool		bucket_full;	/* step 1: some thread's bucket is full */
	size_t		next_region;	/* step 2: the next region to set */
	bool		completed;
	thread_state threads[];
};

bool
bloom_final_uses_copies(const bloom_geometry *geometry, unsigned nthreads)
{
	uint64_t	bytes = geometry->filter_bytes - 1;

	return nthreads >= 2 && bytes <= COPY_MAX_BYTES &&
		bytes * (nthreads - 1) <= COPIES_MAX_BYTES;
}

/* ---- the threads ----------------------------------------------------- */

static inline bool
is_cancelled(bloom_final_job *job)
{
	return __atomic_load_n(&job->cancelled, __ATOMIC_RELAXED);
}

static inline void
set_cancelled(bloom_final_job *job)
{
	__atomic_store_n(&job->cancelled, true, __ATOMIC_RELAXED);
}

/* A barrier's end for the final's threads (see barrier below). */
typedef struct step_end
{
	bloom_final_job *job;
	bool		last_round_check;
} step_end;

static bool
end_step(void *arg)
{
	step_end   *end = arg;
	bloom_final_job *job = end->job;
	bool		all_exhausted = true;
	bool		cancelled = is_cancelled(job);

	for (unsigned t = 0; t < job->nthreads; t++)
		all_exhausted &= job->threads[t].exhausted;
	if (end->last_round_check && all_exhausted && !cancelled)
		job->completed = true;
	/* for the next step, whichever it is */
	__atomic_store_n(&job->bucket_full, false, __ATOMIC_RELAXED);
	__atomic_store_n(&job->next_region, 0, __ATOMIC_RELAXED);
	return cancelled || (end->last_round_check && all_exhausted);
}

/*
 * Wait for every thread; the last to arrive decides, under the lock, what
 * all of them do next.  Returns that decision: true to stop.
 */
static bool
barrier(bloom_final_job *job, bool last_round_check)
{
	step_end	end = {job, last_round_check};

	return bloom_barrier_wait(&job->team.barrier, end_step, &end);
}

/*
 * In copies: take the next block of hashes of a readable run; false when
 * none is left.  A run still being decoded by another thread is waited
 * for, so that a thread whose decoding is done sets bits while another
 * still decodes.  (The buckets decode everything before their first
 * claim, and claim by stripes.)
 */
static bool
claim(bloom_final_job *job, thread_state *ts)
{
	bool		got = false;

	if (is_cancelled(job))
		return false;			/* the barrier then stops every thread */
	pthread_mutex_lock(&job->team.lock);
	for (;;)
	{
		bool		pending = false;

		while (job->first_open < job->nruns &&
			   job->claimed[job->first_open] >= job->runs[job->first_open].n)
			job->first_open++;
		for (size_t r = job->first_open; r < job->nruns && !got; r++)
		{
			size_t		left = job->runs[r].n - job->claimed[r];

			if (left == 0)
				continue;
			if (!job->readable[r])
			{
				pending = true;
				continue;
			}
			ts->run = r;
			ts->pos = job->claimed[r];
			ts->end = ts->pos + (left < BLOOM_FINAL_CLAIM ? left : BLOOM_FINAL_CLAIM);
			job->claimed[r] = ts->end;
			got = true;
		}
		if (got || !pending || is_cancelled(job))
			break;
		pthread_cond_wait(&job->decoded_cond, &job->team.lock);
	}
	pthread_mutex_unlock(&job->team.lock);
	return got;
}

/* Through buckets: where claim c's slice of stripe s begins and ends. */
static void
slice_bounds(const bloom_final_job *job, uint64_t c, unsigned s,
			 uint64_t *from, uint64_t *to)
{
	uint64_t	total = job->run_start[job->nruns];
	uint64_t	stripe_end = (s + 1) * job->stripe_len;

	if (stripe_end > total)
		stripe_end = total;
	*from = s * job->stripe_len + c * BLOOM_FINAL_SLICE;
	*to = *from + BLOOM_FINAL_SLICE;
	if (*to > stripe_end)
		*to = stripe_end;
	if (*from > *to)
		*from = *to;
}

/* Through buckets: the next claim; false when none is left. */
static bool
claim_stripes(bloom_final_job *job, thread_state *ts)
{
	uint64_t	c,
				to;

	if (is_cancelled(job))
		return false;			/* the barrier then stops every thread */
	pthread_mutex_lock(&job->team.lock);
	c = job->next_claim < job->nclaims ? job->next_claim++ : job->nclaims;
	pthread_mutex_unlock(&job->team.lock);
	if (c == job->nclaims)
		return false;
	ts->claim = c;
	ts->stripe = 0;
	slice_bounds(job, c, 0, &ts->next, &to);
	return true;
}

/* The run that hash i of all runs is in: the last r with run_start[r] <= i. */
static size_t
run_of(const bloom_final_job *job, uint64_t i)
{
	size_t		lo = 0,
				hi = job->nruns;	/* run_start[lo] <= i < run_start[hi] */

	while (hi - lo > 1)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (job->run_start[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Step 1: positions into this thread's buckets until one is full. */
static void
fill_buckets(bloom_final_job *job, thread_state *ts)
{
	for (;;)
	{
		if (ts->stripe == BLOOM_FINAL_STRIPES && !claim_stripes(job, ts))
		{
			ts->exhausted = true;
			bloom_bucket_writer_flush(ts->writer);
			return;
		}
		while (ts->stripe < BLOOM_FINAL_STRIPES)
		{
			uint64_t	from,
						to;

			slice_bounds(job, ts->claim, ts->stripe, &from, &to);
			/* a slice is cut where a run ends (runs may be empty) */
			while (ts->next < to)
			{
				size_t		r = run_of(job, ts->next);
				uint64_t	start = job->run_start[r];
				uint64_t	end = to < job->run_start[r + 1] ? to : job->run_start[r + 1];
				size_t		pos = bloom_bucket_positions(&job->prepared, job->shift,
														 ts->writer, job->runs[r].hashes,
														 (size_t) (ts->next - start),
														 (size_t) (end - start));

				ts->next = start + pos;
				if (ts->next < end)
				{
					/* a bucket is full: this hash again next round */
					__atomic_store_n(&job->bucket_full, true, __ATOMIC_RELAXED);
					bloom_bucket_writer_flush(ts->writer);
					return;
				}
			}
			if (++ts->stripe < BLOOM_FINAL_STRIPES)
				slice_bounds(job, ts->claim, ts->stripe, &ts->next, &to);
			if (__atomic_load_n(&job->bucket_full, __ATOMIC_RELAXED))
			{
				/* another thread's bucket is: the rest of the claim next round */
				bloom_bucket_writer_flush(ts->writer);
				return;
			}
		}
	}
}

/* Step 2: set regions, while some are left, from every thread's buckets. */
static void
set_regions(bloom_final_job *job)
{
	for (;;)
	{
		size_t		r = __atomic_fetch_add(&job->next_region, 1, __ATOMIC_RELAXED);

		if (r >= job->nregions || is_cancelled(job))
			return;
		bloom_fetch_region(job->bit_array, job->bit_array_bytes, job->shift, r);
		for (unsigned t = 0; t < job->nthreads; t++)
		{
			const bloom_bucket_writer *from = job->threads[t].writer;

			bloom_set_positions(job->bit_array, bloom_bucket_start(from, r),
								bloom_bucket_length(from, r));
		}
	}
}

/* Copies, step 1: every hash this thread takes, into its own copy. */
static void
set_into_copy(bloom_final_job *job, thread_state *ts)
{
	if (ts->id > 0)
		memset(ts->copy, 0, job->bit_array_bytes);
	while (claim(job, ts))
		bloom_prepared_set_hashes(&job->prepared, ts->copy,
								  job->runs[ts->run].hashes + ts->pos,
								  ts->end - ts->pos);
	ts->exhausted = true;
}

/* Copies, step 2: this thread's blocks of every other copy, into the filter. */
static void
or_copies(bloom_final_job *job, unsigned id)
{
	size_t		len = job->bit_array_bytes;

	for (size_t from = (size_t) id * OR_BLOCK; from < len && !is_cancelled(job);
		 from += (size_t) job->nthreads * OR_BLOCK)
	{
		size_t		n = len - from < OR_BLOCK ? len - from : OR_BLOCK;
		uint8_t    *dst = job->bit_array + from;

		for (unsigned t = 1; t < job->nthreads; t++)
			bloom_or_bytes(dst, job->threads[t].copy + from, n);
	}
}

/* bloom_hash_run_decode's go_on for a job's threads. */
static bool
not_cancelled(void *job)
{
	return !is_cancelled(job);
}

/*
 * Step 0: decode the coded runs, a whole run per thread at a time, each
 * readable as soon as it is decoded.  The first failure stops the job; a
 * cancel, the run's decoding at its next part.
 */
static void
decode_runs(bloom_final_job *job)
{
	for (;;)
	{
		size_t		r;
		bloom_status status;

		pthread_mutex_lock(&job->team.lock);
		while (job->decode_next < job->nruns &&
			   job->runs[job->decode_next].code == NULL)
			job->decode_next++;
		r = job->decode_next++;
		pthread_mutex_unlock(&job->team.lock);
		if (r >= job->nruns || is_cancelled(job))
			return;
		status = bloom_hash_run_decode(&job->runs[r], not_cancelled, job);
		if (status == BLOOM_ERR_CANCELLED)
			return;
		pthread_mutex_lock(&job->team.lock);
		if (status == BLOOM_OK)
			job->readable[r] = true;
		else
		{
			if (job->decode_status == BLOOM_OK)
				job->decode_status = status;
			set_cancelled(job);
		}
		pthread_cond_broadcast(&job->decoded_cond);
		pthread_mutex_unlock(&job->team.lock);
		if (status != BLOOM_OK)
			return;
	}
}

/*
 * Step 0: this thread's blocks of the filter, zeroed.  The caller hands
 * over a new filter untouched, so that its page faults, which cost more
 * than the zeroing on some virtual machines, are taken on every thread.
 */
static void
zero_share(bloom_final_job *job, unsigned id)
{
	size_t		len = job->bit_array_bytes;

	for (size_t from = (size_t) id * OR_BLOCK; from < len;
		 from += (size_t) job->nthreads * OR_BLOCK)
		memset(job->bit_array + from, 0, len - from < OR_BLOCK ? len - from : OR_BLOCK);
}

/*
 * With BLOOM_TRACE, stmt's time added to (ts)->field; else just stmt.
 */
#ifdef BLOOM_TRACE
#define TRACE_SPAN(ts, field, stmt) \
	do { \
		double		span_start_ = bloom_trace_ms(); \
		stmt; \
		(ts)->field += bloom_trace_ms() - span_start_; \
	} while (0)
#else
#define TRACE_SPAN(ts, field, stmt) \
	do { \
		stmt; \
	} while (0)
#endif

#ifdef BLOOM_TRACE
/* The positions this thread's buckets hold at the end of a step 1. */
static uint64_t
bucketed_positions(const bloom_final_job *job, const thread_state *ts)
{
	uint64_t	n = 0;

	for (size_t r = 0; r < job->nregions; r++)
		n += bloom_bucket_length(ts->writer, r);
	return n;
}
#endif

/* A thread's work, once every thread has started (bloom_team.h). */
static void
thread_work(void *arg)
{
	thread_state *ts = arg;
	bloom_final_job *job = ts->job;
	bool		leave;

#ifdef BLOOM_TRACE
	ts->t_go = bloom_trace_ms();
#endif
	zero_share(job, ts->id);
#ifdef BLOOM_TRACE
	ts->t_zeroed = bloom_trace_ms();
#endif

	if (job->copies)
	{
		/*
		 * The filter, the first thread's copy, is zeroed before anything
		 * is set in it; then no barrier until every hash is set: a thread
		 * that decoded its runs sets bits while another still decodes.
		 */
		if (!barrier(job, false))
		{
			decode_runs(job);
			set_into_copy(job, ts);
			if (!barrier(job, false))
			{
				or_copies(job, ts->id);
				(void) barrier(job, true);
			}
		}
		leave = true;
	}
	else
	{
		decode_runs(job);
		leave = barrier(job, false);
	}
#ifdef BLOOM_TRACE
	ts->t_decoded = bloom_trace_ms();
#endif

	while (!leave)
	{
		bool		last;

#ifdef BLOOM_TRACE
		ts->rounds++;
#endif
		TRACE_SPAN(ts, ms_fill, fill_buckets(job, ts));
#ifdef BLOOM_TRACE
		ts->positions += bucketed_positions(job, ts);
#endif
		TRACE_SPAN(ts, ms_wait, last = barrier(job, false));
		if (last)
			break;
		TRACE_SPAN(ts, ms_set, set_regions(job));
		TRACE_SPAN(ts, ms_wait, leave = barrier(job, true));
		/* every bucket was set in step 2: empty this thread's own */
		bloom_bucket_writer_reset(ts->writer);
	}

#ifdef BLOOM_TRACE
	ts->t_end = bloom_trace_ms();
#endif
}

/* ---- the caller's side -------------------------------------------------- */

/* What a job holds besides its team (bloom_team_new_job's release). */
static void
release_job(void *arg)
{
	bloom_final_job *job = arg;

	for (unsigned t = 0; t < job->nthreads; t++)
	{
		free(job->threads[t].writer);
		free(job->threads[t].buckets);
		if (t > 0)
			free(job->threads[t].copy);
	}
	free(job->claimed);
	free(job->readable);
	free(job->run_start);
	pthread_cond_destroy(&job->decoded_cond);
}

bloom_status
bloom_final_start(bloom_final_job **jobp, uint8_t *filter,
				  const bloom_geometry *geometry, const bloom_hash_run *runs,
				  size_t nruns, unsigned nthreads)
{
	return bloom_final_start_way(jobp, filter, geometry, runs, nruns, nthreads,
								 BLOOM_FINAL_WAY_CHOSEN);
}

bloom_status
bloom_final_start_way(bloom_final_job **jobp, uint8_t *filter,
					  const bloom_geometry *geometry, const bloom_hash_run *runs,
					  size_t nruns, unsigned nthreads, bloom_final_way way)
{
	bloom_final_job *job;
	bloom_status status;
	size_t		scratch,
				cap;

	job = BLOOM_TEAM_NEW_JOB(bloom_final_job, nthreads, release_job, &status);
	if (job == NULL)
		return status;
	job->bit_array = filter;
	job->bit_array_bytes = geometry->filter_bytes - 1;
	bloom_prepare(&job->prepared, geometry->bits, geometry->k);
	job->copies = way == BLOOM_FINAL_WAY_CHOSEN ?
		bloom_final_uses_copies(geometry, nthreads) : way == BLOOM_FINAL_WAY_COPIES;

	/* positions are below mod_d: one bucket per region of that range */
	job->shift = bloom_region_shift(job->prepared.mod_d, REGIONS_MAX);
	job->nregions = bloom_region_count(job->prepared.mod_d, job->shift);
	/* the one-thread scratch, shared out: memory does not grow with threads */
	scratch = bloom_set_scratch_size(geometry->bits);
	cap = scratch / ((size_t) nthreads * job->nregions);	/* a region, on average */
	job->bucket_room = job->nregions * (cap < BUCKET_MIN ? BUCKET_MIN : cap);
	job->runs = runs;
	job->nruns = nruns;
	job->nthreads = nthreads;

	pthread_cond_init(&job->decoded_cond, NULL);

	job->claimed = calloc(nruns > 0 ? nruns : 1, sizeof(size_t));
	job->readable = malloc((nruns > 0 ? nruns : 1) * sizeof(bool));
	if (job->claimed == NULL || job->readable == NULL)
	{
		bloom_team_free_job(&job->team);
		return BLOOM_ERR_NO_MEMORY;
	}
	for (size_t r = 0; r < nruns; r++)
		job->readable[r] = runs[r].code == NULL;
	if (!job->copies)
	{
		job->run_start = bloom_hash_run_starts(runs, nruns);
		if (job->run_start == NULL)
		{
			bloom_team_free_job(&job->team);
			return BLOOM_ERR_NO_MEMORY;
		}
		job->stripe_len = (job->run_start[nruns] + BLOOM_FINAL_STRIPES - 1) /
			BLOOM_FINAL_STRIPES;
		job->nclaims = (job->stripe_len + BLOOM_FINAL_SLICE - 1) / BLOOM_FINAL_SLICE;
	}

	for (unsigned t = 0; t < nthreads; t++)
	{
		thread_state *ts = &job->threads[t];

		ts->job = job;
		ts->id = t;
		ts->stripe = BLOOM_FINAL_STRIPES;	/* no claim yet */
		if (job->copies)
		{
			/* zeroed by its thread: the page faults are taken in parallel */
			ts->copy = t == 0 ? filter : bloom_malloc_huge(job->bit_array_bytes);
			if (ts->copy == NULL)
			{
				bloom_team_free_job(&job->team);
				return BLOOM_ERR_NO_MEMORY;
			}
			continue;
		}
		ts->buckets = bloom_malloc_huge(job->bucket_room * sizeof(uint32_t));
		if (posix_memalign((void **) &ts->writer, 64, sizeof(bloom_bucket_writer)) != 0)
			ts->writer = NULL;
		if (ts->buckets == NULL || ts->writer == NULL)
		{
			bloom_team_free_job(&job->team);
			return BLOOM_ERR_NO_MEMORY;
		}
		bloom_bucket_writer_start(ts->writer, ts->buckets, job->bucket_room,
								  job->nregions, job->shift, job->prepared.mod_d);
	}

	/* the barriers need every thread: all or none, the job freed if none */
	*jobp = bloom_team_start_all(&job->team, thread_work, job->threads, sizeof(thread_state));
	if (*jobp == NULL)
		return BLOOM_ERR_THREAD;

	/*
	 * Only now, so that a failed start leaves the filter as it was; the
	 * threads write the bit array only, never this byte after it.
	 */
	filter[geometry->filter_bytes - 1] = (uint8_t) geometry->k;
	return BLOOM_OK;
}

void
bloom_final_cancel(bloom_final_job *job)
{
	/* under the lock, so that a thread waiting for a decode sees it */
	pthread_mutex_lock(&job->team.lock);
	set_cancelled(job);
	pthread_cond_broadcast(&job->decoded_cond);
	pthread_mutex_unlock(&job->team.lock);
}

bool
bloom_final_wait(bloom_final_job *job, unsigned timeout_ms)
{
	return bloom_team_wait(&job->team, timeout_ms);
}

bloom_status
bloom_final_finish(bloom_final_job *job)
{
	bloom_status status;

	bloom_team_join(&job->team);
	status = job->decode_status != BLOOM_OK ? job->decode_status :
		job->completed ? BLOOM_OK : BLOOM_ERR_CANCELLED;
	bloom_team_free_job(&job->team);
	return status;
}

#ifdef BLOOM_TRACE
void
bloom_final_trace(const bloom_final_job *job, char *buf, size_t len)
{
	double		go = 1e300,
				zeroed = 0,
				decoded = 0,
				end = 0;
	unsigned	rounds = 0;
	double		ms_fill = 0,
				ms_set = 0,
				ms_wait = 0;
	uint64_t	positions = 0;
	double		room;

	for (unsigned t = 0; t < job->nthreads; t++)
	{
		const thread_state *ts = &job->threads[t];

		go = ts->t_go < go ? ts->t_go : go;
		zeroed = ts->t_zeroed > zeroed ? ts->t_zeroed : zeroed;
		decoded = ts->t_decoded > decoded ? ts->t_decoded : decoded;
		end = ts->t_end > end ? ts->t_end : end;
		rounds = ts->rounds > rounds ? ts->rounds : rounds;
		ms_fill += ts->ms_fill;
		ms_set += ts->ms_set;
		ms_wait += ts->ms_wait;
		positions += ts->positions;
	}

	/*
	 * How full the rounds' buckets were, all threads' together (the first
	 * full bucket ends a round), and each thread's mean time in the steps
	 * and at the barriers: what more rounds, or threads waiting, cost.
	 */
	room = (double) rounds * job->nthreads * job->bucket_room;
	snprintf(buf, len, "threads=%u %s go=%.3f zeroed=%.3f decoded=%.3f end=%.3f rounds=%u"
			 " filled=%.2f fill_ms=%.1f set_ms=%.1f barrier_ms=%.1f",
			 job->nthreads, job->copies ? "copies" : "buckets",
			 go, zeroed, decoded, end, rounds,
			 room > 0 ? (double) positions / room : 0.0,
			 ms_fill / job->nthreads, ms_set / job->nthreads, ms_wait / job->nthreads);
}
#endif
