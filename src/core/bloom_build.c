/*
 * bloom_build.c
 *		Setting a filter's bits from runs of key hashes on the calling
 *		thread, and the one call that builds on it or on the final's threads
 *		(see bloom_build.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* CPU_COUNT under -std=c99 */
#endif
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloom_build.h"

/* Filters below this many bits fit the caches: one thread sets them best. */
#define THREADED_MIN_BITS	(UINT64_C(1) << 25)
/* Hashes each thread should have at least. */
#define THREADED_MIN_HASHES_PER_THREAD ((uint64_t) 1 << 18)

unsigned
bloom_final_threads_for(const bloom_geometry *geometry, uint64_t nhashes,
						unsigned max)
{
	uint64_t	by_hashes = nhashes / THREADED_MIN_HASHES_PER_THREAD;

	if (max > BLOOM_MAX_FINAL_THREADS)
		max = BLOOM_MAX_FINAL_THREADS;
	if (max <= 1 || geometry->bits < THREADED_MIN_BITS || by_hashes < 2)
		return 1;
	return by_hashes < max ? (unsigned) by_hashes : max;
}

unsigned
bloom_available_cpus(void)
{
	long		n = -1;

#if defined(__linux__) && defined(CPU_COUNT)
	cpu_set_t	mask;

	/* a server pinned to some CPUs (taskset, a container's cpuset) */
	if (sched_getaffinity(0, sizeof(mask), &mask) == 0)
		n = CPU_COUNT(&mask);
#endif
	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > BLOOM_MAX_FINAL_THREADS ? BLOOM_MAX_FINAL_THREADS : (unsigned) n;
}

size_t
bloom_final_scratch_size(const bloom_geometry *geometry, uint64_t nhashes)
{
	size_t		scratch = bloom_set_scratch_size(geometry->bits);

	return nhashes * geometry->k < scratch ? 0 : scratch;
}

bloom_status
bloom_build_from_runs(uint8_t *filter, const bloom_geometry *geometry,
					  const bloom_hash_run *runs, size_t nruns,
					  unsigned nthreads)
{
	bloom_status status;

	if (nthreads <= 1)
	{
		uint64_t	nhashes = 0;
		size_t		scratch_size;
		uint32_t   *scratch;

		for (size_t r = 0; r < nruns; r++)
			nhashes += runs[r].n;
		scratch_size = bloom_final_scratch_size(geometry, nhashes);
		scratch = scratch_size > 0 ?
			bloom_malloc_huge(scratch_size * sizeof(uint32_t)) : NULL;

		if (scratch_size > 0 && scratch == NULL)
			return BLOOM_ERR_NO_MEMORY;
		status = bloom_build_serially(filter, geometry, runs, nruns,
									  scratch, scratch_size, NULL, NULL);
		free(scratch);
		return status;
	}
	return bloom_build_from_runs_way(filter, geometry, runs, nruns, nthreads,
									 BLOOM_FINAL_WAY_CHOSEN);
}

/*
 * The serial build through buckets takes the hashes in the threaded
 * build's order, a slice of each of BLOOM_FINAL_STRIPES stretches of all
 * the runs at a time, for the same reason: sorted runs would fill a few
 * buckets first and end every round early.  With no other thread to share claims with, each
 * stretch is read by a cursor of its own, so no index of the runs' starts
 * is allocated: a build left by longjmp holds no memory.
 */
typedef struct stretch
{
	size_t		run;			/* where its next hash is */
	size_t		pos;
	uint64_t	left;			/* its hashes not yet set */
} stretch;

static void
stretches_start(stretch *stretches, const bloom_hash_run *runs, size_t nruns)
{
	uint64_t	total = 0,
				before = 0;		/* the hashes of the runs before run */
	uint64_t	len;
	size_t		run = 0;

	for (size_t r = 0; r < nruns; r++)
		total += runs[r].n;
	len = (total + BLOOM_FINAL_STRIPES - 1) / BLOOM_FINAL_STRIPES;
	for (unsigned s = 0; s < BLOOM_FINAL_STRIPES; s++)
	{
		uint64_t	from = (uint64_t) s * len < total ? (uint64_t) s * len : total;
		uint64_t	to = total - from > len ? from + len : total;

		while (run < nruns && before + runs[run].n <= from)
			before += runs[run++].n;
		stretches[s] = (stretch) {run, (size_t) (from - before), to - from};
	}
}

/* The next n hashes of a stretch (n at most what it has left), into set. */
static void
set_from_stretch(bloom_buffered_set *set, const bloom_hash_run *runs,
				 stretch *st, uint64_t n)
{
	st->left -= n;
	while (n > 0)
	{
		size_t		in_run = runs[st->run].n - st->pos;
		size_t		take = n < in_run ? (size_t) n : in_run;

		bloom_buffered_set_hashes(set, runs[st->run].hashes + st->pos, take);
		st->pos += take;
		n -= take;
		if (st->pos == runs[st->run].n)
		{
			st->run++;
			st->pos = 0;
		}
	}
}

bloom_status
bloom_build_serially(uint8_t *filter, const bloom_geometry *geometry,
					 const bloom_hash_run *runs, size_t nruns,
					 uint32_t *scratch, size_t scratch_size,
					 bool (*go_on) (void *arg), void *arg)
{
	bloom_prepared p;
	bloom_buffered_set set;
	stretch		stretches[BLOOM_FINAL_STRIPES];
	uint64_t	since_check = BLOOM_SERIAL_CHECK_BATCH;
	bool		more = true;

	memset(filter, 0, geometry->filter_bytes - 1);
	for (size_t r = 0; r < nruns; r++)
	{
		bloom_status status = bloom_hash_run_decode(&runs[r], go_on, arg);

		if (status != BLOOM_OK)
			return status;
	}
	bloom_prepare(&p, geometry->bits, geometry->k);
	filter[geometry->filter_bytes - 1] = (uint8_t) geometry->k;

	if (!bloom_buffered_set_start(&set, &p, filter, scratch, scratch_size))
	{
		/* straight into the filter, a batch at a time */
		for (size_t r = 0; r < nruns; r++)
			for (size_t done = 0; done < runs[r].n; done += BLOOM_SERIAL_CHECK_BATCH)
			{
				size_t		batch = runs[r].n - done;

				if (go_on != NULL && !go_on(arg))
					return BLOOM_ERR_CANCELLED;
				if (batch > BLOOM_SERIAL_CHECK_BATCH)
					batch = BLOOM_SERIAL_CHECK_BATCH;
				bloom_prepared_set_hashes(&p, filter, runs[r].hashes + done, batch);
			}
		return BLOOM_OK;
	}

	stretches_start(stretches, runs, nruns);
	while (more)
	{
		more = false;
		for (unsigned s = 0; s < BLOOM_FINAL_STRIPES; s++)
		{
			uint64_t	n = stretches[s].left < BLOOM_FINAL_SLICE ?
				stretches[s].left : BLOOM_FINAL_SLICE;

			if (n == 0)
				continue;
			if (since_check >= BLOOM_SERIAL_CHECK_BATCH && go_on != NULL)
			{
				if (!go_on(arg))
					return BLOOM_ERR_CANCELLED;
				since_check = 0;
			}
			set_from_stretch(&set, runs, &stretches[s], n);
			since_check += n;
			more = true;
		}
	}
	bloom_buffered_set_finish(&set);
	return BLOOM_OK;
}

bloom_status
bloom_build_from_runs_way(uint8_t *filter, const bloom_geometry *geometry,
						  const bloom_hash_run *runs, size_t nruns,
						  unsigned nthreads, bloom_final_way way)
{
	bloom_final_job *job;
	bloom_status status;

	status = bloom_final_start_way(&job, filter, geometry, runs, nruns,
								   nthreads, way);
	if (status != BLOOM_OK)
		return status;
	while (!bloom_final_wait(job, 1000))
		;
	return bloom_final_finish(job);
}
