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
 *	   run of consecutive buckets holding about as many;
 *	4. each thread counts the bits of its buckets' code, and the last
 *	   arriver places each thread's part in the code.  The threads leave:
 *	   the caller learns the code's exact length and allocates the output;
 *	5. new threads, one a part, each code their part straight into the
 *	   output from its bit offset within its first byte, all but the last
 *	   hashes, whose code (at least TAIL_BITS) goes through a small buffer
 *	   of the thread's own: the writer stores 8 bytes at a time, up to 7
 *	   past what it has completed, and this way no store reaches the part's
 *	   last byte, the only one it may share with the next part.  That byte
 *	   is kept aside, and finishing puts the last bytes in, in order,
 *	   OR-ed where two parts share one.
 * The code is therefore bloom_gaps_encode's for the sorted distinct
 * hashes, whatever the number of threads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* pthreads under -std=c99 */
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_flatten.h"
#include "bloom_gaps.h"
#include "bloom_sort.h"
#include "bloom_team.h"

typedef struct flatten_thread
{
	struct bloom_flatten_job *job;
	unsigned	id;
	uint32_t   *tmp;			/* the bucket sort's, BLOOM_SORT_TMP_MIN hashes */
	/* its part of the code: buckets [bucket_from, bucket_to) */
	size_t		bucket_from;
	size_t		bucket_to;
	uint64_t	prev_plus_one;	/* the hash before the part, plus one */
	uint64_t	bits;
	uint64_t	bit_offset;
	uint8_t		last_byte;		/* of its part, which the next may share */
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
	bool		code_given;		/* the caller's alone */

	bloom_team	team;			/* its lock guards what the threads share */
	/* all below under team.lock */
	size_t		next_run;		/* to decode */
	size_t		next_bucket;	/* to sort */
	bool		sized;			/* sorted, and the code's length known */
	bloom_status status;		/* the first failure */
	bool		cancelled;		/* atomic builtins only */
	flatten_thread threads[];
};

static inline bool
is_cancelled(bloom_flatten_job *job)
{
	return __atomic_load_n(&job->cancelled, __ATOMIC_RELAXED);
}

/* bloom_hash_run_decode's go_on for a job's threads. */
static bool
not_cancelled(void *job)
{
	return !is_cancelled(job);
}

/* A step's end: its between (run by the last to arrive), unless cancelled. */
typedef struct step_end
{
	bloom_flatten_job *job;
	void		(*between) (bloom_flatten_job *job);
} step_end;

static bool
end_step(void *arg)
{
	step_end   *end = arg;

	if (is_cancelled(end->job))
		return true;
	if (end->between != NULL)
		end->between(end->job);
	return false;
}

/*
 * Wait for every thread; the last to arrive runs between(job) under the
 * lock, unless the job is cancelled.  Returns true when the threads must
 * leave.
 */
static bool
barrier(bloom_flatten_job *job, void (*between) (bloom_flatten_job *job))
{
	step_end	end = {job, between};

	return bloom_barrier_wait(&job->team.barrier, end_step, &end);
}

/* Record the job's first failure and stop it at the next barrier. */
static void
stop_with(bloom_flatten_job *job, bloom_status status)
{
	pthread_mutex_lock(&job->team.lock);
	if (job->status == BLOOM_OK)
		job->status = status;
	__atomic_store_n(&job->cancelled, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&job->team.lock);
}

/*
 * The next of n items (runs, buckets) that the threads take in turn from
 * the counter *next, under the lock: n when none is left, or when the job
 * is cancelled.
 */
static size_t
take_next(bloom_flatten_job *job, size_t *next, size_t n)
{
	size_t		i;

	pthread_mutex_lock(&job->team.lock);
	i = *next < n ? (*next)++ : n;
	pthread_mutex_unlock(&job->team.lock);
	return is_cancelled(job) ? n : i;
}

/*
 * Step 0: decode coded runs until none is left.  A failure stops the job; a
 * cancel, the run's decoding at its next part.
 */
static void
decode_runs(bloom_flatten_job *job)
{
	size_t		r;

	while ((r = take_next(job, &job->next_run, job->nruns)) < job->nruns)
	{
		bloom_status status;

		status = bloom_hash_run_decode(&job->runs[r], not_cancelled, job);
		if (status == BLOOM_ERR_CANCELLED)
			return;
		if (status != BLOOM_OK)
		{
			stop_with(job, status);
			return;
		}
	}
}

/*
 * The most hashes a thread counts or scatters between two looks at the
 * cancel flag: what a cancel waits for beyond the step it lands in, where a
 * thread's whole share (tens of millions of hashes) would be most of a
 * pass.
 */
#define HASHES_BETWEEN_CANCEL_CHECKS	((uint64_t) 1 << 20)

/*
 * Steps 1 and 2: for each hash of this thread's share of all of them
 * (count) add one to its bucket's count, or (scatter) write it at its
 * bucket's next position.  A cancel leaves the rest undone: nothing reads
 * it then.
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
		for (uint64_t i = from - start; i < end - start;)
		{
			uint64_t	stride_end = end - start - i > HASHES_BETWEEN_CANCEL_CHECKS ?
				i + HASHES_BETWEEN_CANCEL_CHECKS : end - start;

			if (scatter)
				for (; i < stride_end; i++)
					job->sorted[next[(uint64_t) h[i] >> shift]++] = h[i];
			else
				for (; i < stride_end; i++)
					next[(uint64_t) h[i] >> shift]++;
			if (is_cancelled(job))
				return;
		}
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
	size_t		b;

	while ((b = take_next(job, &job->next_bucket, job->nbuckets)) < job->nbuckets)
		job->bucket_distinct[b] =
			bloom_sort_bucket_unique(job->sorted + job->bucket_start[b],
									 job->bucket_start[b + 1] - job->bucket_start[b],
									 job->shift, ts->tmp, BLOOM_SORT_TMP_MIN);
}

/*
 * After step 3: the distinct count, and each thread's run of buckets
 * holding about as many distinct hashes as another's.
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
}

/* Step 4: the bits of this thread's part of the code (a cancel: some). */
static void
count_part_bits(bloom_flatten_job *job, flatten_thread *ts)
{
	uint64_t	prev = ts->prev_plus_one;

	ts->bits = 0;
	for (size_t b = ts->bucket_from; b < ts->bucket_to && !is_cancelled(job); b++)
		ts->bits += bloom_gaps_code_bits(job->sorted + job->bucket_start[b],
										 job->bucket_distinct[b], job->r, &prev);
}

/* After step 4: where each part's bits go, and the code's length. */
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
	job->sized = true;
}

/*
 * The bits of a part's code that go through the thread's own buffer, at
 * least: more than the 8 bytes from its last completed one that the
 * writer's stores reach, so that they end before the part's last byte.
 */
#define TAIL_BITS	128

/*
 * Step 5: this thread's part of the code, straight into the output but for
 * its last hashes (see the top of the file); its last byte in last_byte.
 * False when the tail's buffer cannot be had.
 */
static bool
code_part(bloom_flatten_job *job, flatten_thread *ts)
{
	uint8_t    *at = job->out + ts->bit_offset / 8;
	/* every hash takes r + 1 bits at least */
	uint64_t	tail_hashes = (TAIL_BITS + job->r) / (job->r + 1);
	size_t		split = ts->bucket_from;	/* the tail's first hash: bucket */
	uint64_t	split_at = 0;	/* and index in it */
	size_t		body_len,
				len;
	uint8_t    *buf;
	bloom_gaps_writer w;

	if (ts->bits == 0)
		return true;
	for (size_t b = ts->bucket_to; b > ts->bucket_from; b--)
	{
		uint64_t	n = job->bucket_distinct[b - 1];

		if (n >= tail_hashes)
		{
			split = b - 1;
			split_at = n - tail_hashes;
			break;
		}
		tail_hashes -= n;		/* a part this short is all tail */
	}

	bloom_gaps_writer_init(&w, at, job->r, ts->prev_plus_one,
						   (unsigned) (ts->bit_offset % 8));
	for (size_t b = ts->bucket_from; b < split; b++)
	{
		if (is_cancelled(job))
			return true;
		bloom_gaps_writer_put(&w, job->sorted + job->bucket_start[b],
							  job->bucket_distinct[b]);
	}
	bloom_gaps_writer_put(&w, job->sorted + job->bucket_start[split], split_at);

	/* the part's bytes from the one the writer is completing on */
	body_len = w.pos;
	len = (size_t) ((ts->bit_offset % 8 + ts->bits + 7) / 8) - body_len;
	/* the writer stores whole words: room for one past the last byte */
	buf = malloc(len + 8);
	if (buf == NULL)
		return false;
	bloom_gaps_writer_move(&w, buf);
	bloom_gaps_writer_put(&w, job->sorted + job->bucket_start[split] + split_at,
						  job->bucket_distinct[split] - split_at);
	for (size_t b = split + 1; b < ts->bucket_to; b++)
		bloom_gaps_writer_put(&w, job->sorted + job->bucket_start[b],
							  job->bucket_distinct[b]);
	(void) bloom_gaps_writer_finish(&w);
	if (len > 1)
		memcpy(at + body_len, buf, len - 1);
	ts->last_byte = buf[len - 1];
	free(buf);
	return true;
}

/*
 * After step 5, on the caller's thread: the parts' last bytes, in order.
 * A byte holds the last bits of a part and, from its next bit on, the
 * first of the next part, which either wrote it (having more bytes) or
 * holds it as its own last byte too: OR-ed either way.
 */
static void
put_last_bytes(bloom_flatten_job *job)
{
	size_t		pending_at = 0;
	uint8_t		pending = 0;
	bool		have_pending = false;

	for (unsigned t = 0; t < job->nthreads; t++)
	{
		flatten_thread *ts = &job->threads[t];
		size_t		first,
					last;

		if (ts->bits == 0)
			continue;
		first = (size_t) (ts->bit_offset / 8);
		last = (size_t) ((ts->bit_offset + ts->bits - 1) / 8);
		if (have_pending && pending_at == first)
		{
			if (last > first)
				job->out[first] |= pending;
			else
				ts->last_byte |= pending;
		}
		else if (have_pending)
			job->out[pending_at] = pending;
		pending_at = last;
		pending = ts->last_byte;
		have_pending = true;
	}
	if (have_pending)
		job->out[pending_at] = pending;
}

/* Steps 0 to 4, on a thread once every thread has started (bloom_team.h). */
static void
sort_steps(void *arg)
{
	flatten_thread *ts = arg;
	bloom_flatten_job *job = ts->job;
	bool		leave;

	decode_runs(job);
	leave = barrier(job, NULL);
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
		count_part_bits(job, ts);
		(void) barrier(job, place_parts);
	}
}

/* Step 5: a part, on a thread or, for a part no thread took, the caller's. */
static void
code_step(void *arg)
{
	flatten_thread *ts = arg;
	bloom_flatten_job *job = ts->job;

	if (!is_cancelled(job) && !code_part(job, ts))
		stop_with(job, BLOOM_ERR_NO_MEMORY);
}

/* ---- the caller's side -------------------------------------------------- */

/* What a job holds besides its team (bloom_team_new_job's release). */
static void
release_job(void *arg)
{
	bloom_flatten_job *job = arg;

	for (unsigned t = 0; t < job->nthreads; t++)
		free(job->threads[t].tmp);
	free(job->run_start);
	free(job->counts);
	free(job->bucket_start);
	free(job->bucket_distinct);
	free(job->sorted);
}

bloom_status
bloom_flatten_start(bloom_flatten_job **jobp, const bloom_hash_run *runs,
					size_t nruns, unsigned nthreads)
{
	bloom_flatten_job *job;
	bloom_status status;

	job = BLOOM_TEAM_NEW_JOB(bloom_flatten_job, nthreads, release_job, &status);
	if (job == NULL)
		return status;
	job->runs = runs;
	job->nruns = nruns;
	job->nthreads = nthreads;

	job->run_start = bloom_hash_run_starts(runs, nruns);
	if (job->run_start == NULL)
	{
		bloom_team_free_job(&job->team);
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
		bloom_team_free_job(&job->team);
		return BLOOM_ERR_NO_MEMORY;
	}
	for (unsigned t = 0; t < nthreads; t++)
	{
		job->threads[t].job = job;
		job->threads[t].id = t;
		job->threads[t].tmp = malloc(BLOOM_SORT_TMP_MIN * sizeof(uint32_t));
		if (job->threads[t].tmp == NULL)
		{
			bloom_team_free_job(&job->team);
			return BLOOM_ERR_NO_MEMORY;
		}
	}

	/* the sort's barriers need every thread: all or none, the job freed if none */
	*jobp = bloom_team_start_all(&job->team, sort_steps, job->threads,
								 sizeof(flatten_thread));
	return *jobp != NULL ? BLOOM_OK : BLOOM_ERR_THREAD;
}

void
bloom_flatten_cancel(bloom_flatten_job *job)
{
	__atomic_store_n(&job->cancelled, true, __ATOMIC_RELAXED);
}

bool
bloom_flatten_wait(bloom_flatten_job *job, unsigned timeout_ms)
{
	return bloom_team_wait(&job->team, timeout_ms);
}

bloom_status
bloom_flatten_sorted(bloom_flatten_job *job, uint64_t *ndistinct, size_t *code_len)
{
	bloom_team_join(&job->team);
	*ndistinct = job->ndistinct;
	*code_len = job->code_len;
	if (job->status != BLOOM_OK)
		return job->status;
	return job->sized && !is_cancelled(job) ? BLOOM_OK : BLOOM_ERR_CANCELLED;
}

void
bloom_flatten_code(bloom_flatten_job *job, uint8_t *out)
{
	unsigned	started;

	bloom_team_join(&job->team);	/* the sort's, if not yet */
	job->out = out;
	job->code_given = true;
	started = bloom_team_start_some(&job->team, code_step, job->threads,
									sizeof(flatten_thread));
	/* the parts no thread took: here */
	for (unsigned t = started; t < job->nthreads; t++)
		code_step(&job->threads[t]);
}

bloom_status
bloom_flatten_finish(bloom_flatten_job *job)
{
	bloom_status status;

	/* a sort nobody will take the code of stops at once */
	if (!job->code_given)
		bloom_flatten_cancel(job);
	bloom_team_join(&job->team);
	if (job->status != BLOOM_OK)
		status = job->status;
	else if (!job->code_given || is_cancelled(job))
		status = BLOOM_ERR_CANCELLED;
	else
	{
		put_last_bytes(job);
		status = BLOOM_OK;
	}
	bloom_team_free_job(&job->team);
	return status;
}
