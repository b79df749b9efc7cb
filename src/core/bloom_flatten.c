/*
 * bloom_flatten.c
 *		Sorting and gap-coding the distinct hashes of many runs on several
 *		threads (see bloom_flatten.h).
 *
 * The steps, separated by barriers whose last arriver does the little
 * serial work between them:
 *	0. the coded runs are decoded, each by one thread, the threads taking
 *	   runs in turn;
 *	1. each thread counts its share of all the hashes by their top bits
 *	   (bloom_sort_top_bits: buckets that a second-level cache holds);
 *	   the counts become every thread's write position in every bucket;
 *	2. each thread scatters its share into the buckets;
 *	3. the threads take buckets in turn and sort each where it lies,
 *	   dropping repeats (bloom_sort_bucket_unique): the buckets are
 *	   disjoint ranges of hashes, so repeats can only be within one.  The
 *	   last arriver adds up the distinct hashes and gives each thread a
 *	   run of consecutive buckets holding about as many, then the job
 *	   waits for the caller's output memory;
 *	4. each thread counts the bits of its buckets' code, and the last
 *	   arriver places each thread's part in the code;
 *	5. each thread codes its part into a buffer of its own, starting at
 *	   its bit offset within its first byte, and copies all but that first
 *	   byte into the output: only first bytes can be shared with the part
 *	   before, and the last arriver puts them in, in order.
 * The code is therefore bloom_gaps_encode's for the sorted distinct
 * hashes, whatever the number of threads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* CLOCK_MONOTONIC and pthreads under -std=c99 */
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bloom_flatten.h"
#include "bloom_gaps.h"
#include "bloom_sort.h"

typedef struct flatten_thread
{
	struct bloom_flatten_job *job;
	unsigned	id;
	pthread_t	thread;
	bool		started;
	uint32_t   *tmp;			/* the bucket sort's, BLOOM_SORT_TMP_MIN hashes */
	/* its part of the code: buckets [bucket_from, bucket_to) */
	size_t		bucket_from;
	size_t		bucket_to;
	uint64_t	prev_plus_one;	/* the hash before the part, plus one */
	uint64_t	bits;
	uint64_t	bit_offset;
	uint8_t		first_byte;
} flatten_thread;

struct bloom_flatten_job
{
	const bloom_hash_run *runs;
	size_t		nruns;
	unsigned	nthreads;
	uint64_t   *run_start;		/* nruns + 1: hash i of all is run r's i - run_start[r] */
	uint64_t	total;
	unsigned	shift;			/* 32 - the top bits that pick a bucket */
	size_t		nbuckets;
	size_t	   *counts;			/* [thread][bucket]: counts, then write positions */
	size_t	   *bucket_start;	/* nbuckets + 1 */
	size_t	   *bucket_distinct;
	uint32_t   *sorted;			/* total hashes, by bucket */
	uint64_t	ndistinct;
	unsigned	r;
	uint8_t    *out;
	size_t		code_len;

	pthread_mutex_t lock;
	pthread_cond_t barrier_cond;
	pthread_cond_t caller_cond; /* a step done, or every thread gone */
	/* all below under lock */
	size_t		next_run;		/* to decode */
	size_t		next_bucket;	/* to sort */
	unsigned	arrived;
	uint64_t	generation;
	bool		stop;			/* the barrier's decision: leave */
	bool		go;
	bool		abort_start;
	unsigned	steps_done;		/* 1 once sorted, 2 once coded */
	bool		code_given;
	unsigned	running;
	bloom_status status;		/* the first failure */
	bool		cancelled;		/* atomic builtins only */
	flatten_thread threads[];
};

static inline bool
is_cancelled(bloom_flatten_job *job)
{
	return __atomic_load_n(&job->cancelled, __ATOMIC_RELAXED);
}

/*
 * Wait for every thread; the last to arrive runs between(job) under the
 * lock, unless the job is cancelled.  Returns true when the threads must
 * leave.
 */
static bool
barrier(bloom_flatten_job *job, void (*between) (bloom_flatten_job *job))
{
	bool		stop;

	pthread_mutex_lock(&job->lock);
	if (++job->arrived == job->nthreads)
	{
		job->stop = is_cancelled(job);
		if (!job->stop && between != NULL)
			between(job);
		job->arrived = 0;
		job->generation++;
		pthread_cond_broadcast(&job->barrier_cond);
	}
	else
	{
		uint64_t	generation = job->generation;

		while (generation == job->generation)
			pthread_cond_wait(&job->barrier_cond, &job->lock);
	}
	stop = job->stop;
	pthread_mutex_unlock(&job->lock);
	return stop;
}

/* Record the job's first failure and stop it at the next barrier. */
static void
stop_with(bloom_flatten_job *job, bloom_status status)
{
	pthread_mutex_lock(&job->lock);
	if (job->status == BLOOM_OK)
		job->status = status;
	__atomic_store_n(&job->cancelled, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&job->lock);
}

/* Step 0: decode coded runs until none is left.  A failure stops the job. */
static void
decode_runs(bloom_flatten_job *job)
{
	for (;;)
	{
		size_t		r;
		bloom_status status;

		pthread_mutex_lock(&job->lock);
		r = job->next_run < job->nruns ? job->next_run++ : job->nruns;
		pthread_mutex_unlock(&job->lock);
		if (r == job->nruns || is_cancelled(job))
			return;
		status = bloom_hash_run_decode(&job->runs[r]);
		if (status != BLOOM_OK)
		{
			stop_with(job, status);
			return;
		}
	}
}

/*
 * Steps 1 and 2: for each hash of this thread's share of all of them
 * (count) add one to its bucket's count, or (scatter) write it at its
 * bucket's next position.
 */
static void
pass_over_share(bloom_flatten_job *job, unsigned id, bool scatter)
{
	uint64_t	from = job->total * id / job->nthreads;
	uint64_t	to = job->total * (id + 1) / job->nthreads;
	size_t	   *next = job->counts + (size_t) id * job->nbuckets;
	/* shifted as 64 bits: with no top bits the shift is 32, one bucket */
	unsigned	shift = job->shift;

	for (size_t r = 0; r < job->nruns && from < to; r++)
	{
		uint64_t	start = job->run_start[r],
					end = job->run_start[r + 1];
		const uint32_t *h = job->runs[r].hashes;

		if (end <= from)
			continue;
		end = end < to ? end : to;
		if (scatter)
			for (uint64_t i = from - start; i < end - start; i++)
				job->sorted[next[(uint64_t) h[i] >> shift]++] = h[i];
		else
			for (uint64_t i = from - start; i < end - start; i++)
				next[(uint64_t) h[i] >> shift]++;
		from = end;
	}
}

/* After step 1: each thread's write position in each bucket. */
static void
place_buckets(bloom_flatten_job *job)
{
	size_t		at = 0;

	for (size_t b = 0; b < job->nbuckets; b++)
	{
		job->bucket_start[b] = at;
		for (unsigned t = 0; t < job->nthreads; t++)
		{
			size_t		c = job->counts[(size_t) t * job->nbuckets + b];

			job->counts[(size_t) t * job->nbuckets + b] = at;
			at += c;
		}
	}
	job->bucket_start[job->nbuckets] = at;
}

/* Step 3: sort buckets, in turn with the other threads. */
static void
sort_buckets(bloom_flatten_job *job, flatten_thread *ts)
{
	for (;;)
	{
		size_t		b;

		pthread_mutex_lock(&job->lock);
		b = job->next_bucket < job->nbuckets ? job->next_bucket++ : job->nbuckets;
		pthread_mutex_unlock(&job->lock);
		if (b == job->nbuckets || is_cancelled(job))
			return;
		job->bucket_distinct[b] =
			bloom_sort_bucket_unique(job->sorted + job->bucket_start[b],
									 job->bucket_start[b + 1] - job->bucket_start[b],
									 job->shift, ts->tmp, BLOOM_SORT_TMP_MIN);
	}
}

/*
 * After step 3: the distinct count, and each thread's run of buckets
 * holding about as many distinct hashes as another's; then the caller is
 * told.
 */
static void
share_out_code(bloom_flatten_job *job)
{
	uint64_t	d = 0,
				seen = 0,
				prev_plus_one = 0;
	unsigned	t = 0;

	for (size_t b = 0; b < job->nbuckets; b++)
		d += job->bucket_distinct[b];
	job->ndistinct = d;
	job->r = bloom_gaps_rice_param(d);
	job->threads[0].bucket_from = 0;
	job->threads[0].prev_plus_one = 0;
	for (size_t b = 0; b < job->nbuckets; b++)
	{
		/* bucket b starts thread t + 1's part once t has its share */
		while (t + 1 < job->nthreads && seen >= d * (t + 1) / job->nthreads)
		{
			job->threads[t].bucket_to = b;
			t++;
			job->threads[t].bucket_from = b;
			job->threads[t].prev_plus_one = prev_plus_one;
		}
		seen += job->bucket_distinct[b];
		if (job->bucket_distinct[b] > 0)
			prev_plus_one = (uint64_t) job->sorted[job->bucket_start[b] +
												   job->bucket_distinct[b] - 1] + 1;
	}
	job->threads[t].bucket_to = job->nbuckets;
	while (++t < job->nthreads)
	{
		job->threads[t].bucket_from = job->threads[t].bucket_to = job->nbuckets;
		job->threads[t].prev_plus_one = prev_plus_one;
	}
	job->steps_done = 1;
	pthread_cond_broadcast(&job->caller_cond);
}

/* After step 4: where each part's bits go. */
static void
place_parts(bloom_flatten_job *job)
{
	uint64_t	at = 0;

	for (unsigned t = 0; t < job->nthreads; t++)
	{
		job->threads[t].bit_offset = at;
		at += job->threads[t].bits;
	}
	job->code_len = (size_t) ((at + 7) / 8);
}

/* After step 5: the parts' first bytes, in order (see the top of the file). */
static void
join_parts(bloom_flatten_job *job)
{
	for (unsigned t = 0; t < job->nthreads; t++)
	{
		flatten_thread *ts = &job->threads[t];
		uint8_t    *at = job->out + ts->bit_offset / 8;

		if (ts->bits == 0)
			continue;
		if (ts->bit_offset % 8 == 0)
			*at = ts->first_byte;	/* no part before wrote to this byte */
		else
			*at |= ts->first_byte;
	}
	job->steps_done = 2;
}

/* Step 5: this thread's part of the code, through a buffer of its own. */
static bool
code_part(bloom_flatten_job *job, flatten_thread *ts)
{
	unsigned	lead = (unsigned) (ts->bit_offset % 8);
	size_t		len = (size_t) ((lead + ts->bits + 7) / 8);
	uint8_t    *buf;
	bloom_gaps_writer w;

	if (ts->bits == 0)
		return true;
	/* the writer stores whole words: room for one past the last byte */
	buf = bloom_malloc_huge(len + 8);
	if (buf == NULL)
		return false;
	bloom_gaps_writer_init(&w, buf, job->r, ts->prev_plus_one, lead);
	for (size_t b = ts->bucket_from; b < ts->bucket_to; b++)
		bloom_gaps_writer_put(&w, job->sorted + job->bucket_start[b],
							  job->bucket_distinct[b]);
	(void) bloom_gaps_writer_finish(&w);
	ts->first_byte = buf[0];
	if (len > 1)
		memcpy(job->out + ts->bit_offset / 8 + 1, buf + 1, len - 1);
	free(buf);
	return true;
}

static void *
thread_main(void *arg)
{
	flatten_thread *ts = arg;
	bloom_flatten_job *job = ts->job;
	bool		leave;

	pthread_mutex_lock(&job->lock);
	while (!job->go && !job->abort_start)
		pthread_cond_wait(&job->barrier_cond, &job->lock);
	leave = job->abort_start;
	pthread_mutex_unlock(&job->lock);

	if (!leave)
	{
		decode_runs(job);
		leave = barrier(job, NULL);
	}
	if (!leave)
	{
		pass_over_share(job, ts->id, false);
		leave = barrier(job, place_buckets);
	}
	if (!leave)
	{
		pass_over_share(job, ts->id, true);
		leave = barrier(job, NULL);
	}
	if (!leave)
	{
		sort_buckets(job, ts);
		leave = barrier(job, share_out_code);
	}
	if (!leave)
	{
		/* the caller's output memory, or a cancel */
		pthread_mutex_lock(&job->lock);
		while (!job->code_given && !is_cancelled(job))
			pthread_cond_wait(&job->barrier_cond, &job->lock);
		pthread_mutex_unlock(&job->lock);
		if (!is_cancelled(job))
		{
			uint64_t	prev = ts->prev_plus_one;

			ts->bits = 0;
			for (size_t b = ts->bucket_from; b < ts->bucket_to; b++)
				ts->bits += bloom_gaps_code_bits(job->sorted + job->bucket_start[b],
												 job->bucket_distinct[b], job->r, &prev);
		}
		leave = barrier(job, place_parts);
	}
	if (!leave)
	{
		if (!code_part(job, ts))
			stop_with(job, BLOOM_ERR_NO_MEMORY);
		(void) barrier(job, join_parts);
	}

	pthread_mutex_lock(&job->lock);
	if (--job->running == 0)
		pthread_cond_broadcast(&job->caller_cond);
	pthread_mutex_unlock(&job->lock);
	return NULL;
}

/* ---- the caller's side -------------------------------------------------- */

static void
free_job(bloom_flatten_job *job)
{
	for (unsigned t = 0; t < job->nthreads; t++)
		free(job->threads[t].tmp);
	free(job->run_start);
	free(job->counts);
	free(job->bucket_start);
	free(job->bucket_distinct);
	free(job->sorted);
	pthread_cond_destroy(&job->caller_cond);
	pthread_cond_destroy(&job->barrier_cond);
	pthread_mutex_destroy(&job->lock);
	free(job);
}

bloom_status
bloom_flatten_start(bloom_flatten_job **jobp, const bloom_hash_run *runs,
					size_t nruns, unsigned nthreads)
{
	bloom_flatten_job *job;
	pthread_condattr_t condattr;
	sigset_t	all,
				old;
	bloom_status status = BLOOM_OK;

	if (nthreads < 2 || nthreads > BLOOM_MAX_FINAL_THREADS)
		return BLOOM_ERR_THREAD;
	job = calloc(1, offsetof(bloom_flatten_job, threads) +
				 nthreads * sizeof(flatten_thread));
	if (job == NULL)
		return BLOOM_ERR_NO_MEMORY;
	job->runs = runs;
	job->nruns = nruns;
	job->nthreads = nthreads;
	job->running = nthreads;
	pthread_mutex_init(&job->lock, NULL);
	pthread_cond_init(&job->barrier_cond, NULL);
	pthread_condattr_init(&condattr);
	pthread_condattr_setclock(&condattr, CLOCK_MONOTONIC);
	pthread_cond_init(&job->caller_cond, &condattr);
	pthread_condattr_destroy(&condattr);

	job->run_start = bloom_hash_run_starts(runs, nruns);
	if (job->run_start == NULL)
	{
		free_job(job);
		return BLOOM_ERR_NO_MEMORY;
	}
	job->total = job->run_start[nruns];
	job->shift = 32 - bloom_sort_top_bits(job->total);
	job->nbuckets = (size_t) 1 << (32 - job->shift);
	job->counts = calloc((size_t) nthreads * job->nbuckets, sizeof(size_t));
	job->bucket_start = malloc((job->nbuckets + 1) * sizeof(size_t));
	job->bucket_distinct = malloc(job->nbuckets * sizeof(size_t));
	job->sorted = bloom_malloc_huge((job->total > 0 ? job->total : 1) * sizeof(uint32_t));
	if (job->counts == NULL || job->bucket_start == NULL ||
		job->bucket_distinct == NULL || job->sorted == NULL)
	{
		free_job(job);
		return BLOOM_ERR_NO_MEMORY;
	}
	for (unsigned t = 0; t < nthreads; t++)
	{
		job->threads[t].job = job;
		job->threads[t].id = t;
		job->threads[t].tmp = malloc(BLOOM_SORT_TMP_MIN * sizeof(uint32_t));
		if (job->threads[t].tmp == NULL)
		{
			free_job(job);
			return BLOOM_ERR_NO_MEMORY;
		}
	}

	/* threads inherit the creator's signal mask: none may take a signal */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned t = 0; t < nthreads && status == BLOOM_OK; t++)
	{
		if (pthread_create(&job->threads[t].thread, NULL, thread_main,
						   &job->threads[t]) != 0)
			status = BLOOM_ERR_THREAD;
		else
			job->threads[t].started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	pthread_mutex_lock(&job->lock);
	if (status == BLOOM_OK)
		job->go = true;
	else
		job->abort_start = true;
	pthread_cond_broadcast(&job->barrier_cond);
	pthread_mutex_unlock(&job->lock);
	if (status != BLOOM_OK)
	{
		for (unsigned t = 0; t < nthreads; t++)
			if (job->threads[t].started)
				pthread_join(job->threads[t].thread, NULL);
		free_job(job);
		return status;
	}
	*jobp = job;
	return BLOOM_OK;
}

bool
bloom_flatten_wait(bloom_flatten_job *job, unsigned timeout_ms)
{
	struct timespec deadline = bloom_deadline_after(timeout_ms);
	bool		done;
	unsigned	want;

	pthread_mutex_lock(&job->lock);
	want = job->code_given ? 2 : 1;
	while (job->steps_done < want && job->running > 0)
		if (pthread_cond_timedwait(&job->caller_cond, &job->lock, &deadline) == ETIMEDOUT)
			break;
	done = job->steps_done >= want || job->running == 0;
	pthread_mutex_unlock(&job->lock);
	return done;
}

void
bloom_flatten_cancel(bloom_flatten_job *job)
{
	/* under the lock, so that a thread waiting for the output sees it */
	pthread_mutex_lock(&job->lock);
	__atomic_store_n(&job->cancelled, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&job->barrier_cond);
	pthread_mutex_unlock(&job->lock);
}

bloom_status
bloom_flatten_sorted(bloom_flatten_job *job, uint64_t *ndistinct)
{
	bloom_status status;

	pthread_mutex_lock(&job->lock);
	status = job->status != BLOOM_OK ? job->status :
		job->steps_done >= 1 ? BLOOM_OK : BLOOM_ERR_CANCELLED;
	*ndistinct = job->ndistinct;
	pthread_mutex_unlock(&job->lock);
	return status;
}

void
bloom_flatten_code(bloom_flatten_job *job, uint8_t *out)
{
	pthread_mutex_lock(&job->lock);
	job->out = out;
	job->code_given = true;
	pthread_cond_broadcast(&job->barrier_cond);
	pthread_mutex_unlock(&job->lock);
}

bloom_status
bloom_flatten_finish(bloom_flatten_job *job, size_t *code_len)
{
	bloom_status status;

	/* threads still waiting for output that will not come must leave */
	pthread_mutex_lock(&job->lock);
	if (!job->code_given)
		__atomic_store_n(&job->cancelled, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&job->barrier_cond);
	pthread_mutex_unlock(&job->lock);
	for (unsigned t = 0; t < job->nthreads; t++)
		pthread_join(job->threads[t].thread, NULL);
	status = job->status != BLOOM_OK ? job->status :
		job->steps_done == 2 ? BLOOM_OK : BLOOM_ERR_CANCELLED;
	*code_len = job->code_len;
	free_job(job);
	return status;
}
