/*
 * bloom_barrier.c
 *		The start gate and the deciding barrier of a team of threads (see
 *		bloom_barrier.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* pthreads under -std=c99 */
#endif
#include <signal.h>

#include "bloom_barrier.h"

bool
bloom_barrier_start_thread(pthread_t *thread, void *(*main) (void *), void *arg)
{
	sigset_t	all,
				old;
	bool		started;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	started = pthread_create(thread, NULL, main, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

void
bloom_barrier_init(bloom_barrier *b, pthread_mutex_t *lock, unsigned nthreads)
{
	b->lock = lock;
	pthread_cond_init(&b->cond, NULL);
	b->nthreads = nthreads;
	b->arrived = 0;
	b->generation = 0;
	b->stop = false;
	b->go = false;
	b->abort_start = false;
}

void
bloom_barrier_destroy(bloom_barrier *b)
{
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
bloom_barrier_open(bloom_barrier *b, bool go)
{
	pthread_mutex_lock(b->lock);
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
