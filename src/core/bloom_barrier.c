/*
 * bloom_barrier.c
 *		The start gate, the deciding barrier and the creator's wait of a
 *		team of threads (see bloom_barrier.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* CLOCK_MONOTONIC and pthreads under -std=c99 */
#endif
#include <errno.h>
#include <time.h>

#include "bloom_barrier.h"

void
bloom_barrier_init(bloom_barrier *b, pthread_mutex_t *lock, unsigned nthreads)
{
	pthread_condattr_t condattr;

	b->lock = lock;
	pthread_cond_init(&b->cond, NULL);
	/* the creator's waits are timed on the clock deadline_after reads */
	pthread_condattr_init(&condattr);
	pthread_condattr_setclock(&condattr, CLOCK_MONOTONIC);
	pthread_cond_init(&b->done, &condattr);
	pthread_condattr_destroy(&condattr);
	b->nthreads = nthreads;
	b->generation = 0;
	b->running = 0;
	bloom_barrier_reset(b);
}

void
bloom_barrier_destroy(bloom_barrier *b)
{
	pthread_cond_destroy(&b->done);
	pthread_cond_destroy(&b->cond);
}

void
bloom_barrier_reset(bloom_barrier *b)
{
	b->arrived = 0;
	b->stop = false;
	b->go = false;
	b->abort_start = false;
}

void
bloom_barrier_open(bloom_barrier *b, unsigned started, bool go)
{
	pthread_mutex_lock(b->lock);
	b->running = started;
	if (go)
		b->go = true;
	else
		b->abort_start = true;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(b->lock);
}

bool
bloom_barrier_await_start(bloom_barrier *b)
{
	bool		go;

	pthread_mutex_lock(b->lock);
	while (!b->go && !b->abort_start)
		pthread_cond_wait(&b->cond, b->lock);
	go = !b->abort_start;
	pthread_mutex_unlock(b->lock);
	return go;
}

bool
bloom_barrier_wait(bloom_barrier *b, bool (*decide) (void *arg), void *arg)
{
	bool		stop;

	pthread_mutex_lock(b->lock);
	if (++b->arrived == b->nthreads)
	{
		b->stop = decide != NULL && decide(arg);
		b->arrived = 0;
		b->generation++;
		pthread_cond_broadcast(&b->cond);
	}
	else
	{
		uint64_t	generation = b->generation;

		while (generation == b->generation)
			pthread_cond_wait(&b->cond, b->lock);
	}
	stop = b->stop;
	pthread_mutex_unlock(b->lock);
	return stop;
}

void
bloom_barrier_leave(bloom_barrier *b)
{
	pthread_mutex_lock(b->lock);
	if (--b->running == 0)
		pthread_cond_broadcast(&b->done);
	pthread_mutex_unlock(b->lock);
}

/* CLOCK_MONOTONIC timeout_ms from now, for a wait on b->done. */
static struct timespec
deadline_after(unsigned timeout_ms)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long) (timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	return deadline;
}

bool
bloom_barrier_wait_done(bloom_barrier *b, unsigned timeout_ms)
{
	struct timespec deadline = deadline_after(timeout_ms);
	bool		done;

	pthread_mutex_lock(b->lock);
	while (b->running > 0)
		if (pthread_cond_timedwait(&b->done, b->lock, &deadline) == ETIMEDOUT)
			break;
	done = b->running == 0;
	pthread_mutex_unlock(b->lock);
	return done;
}
