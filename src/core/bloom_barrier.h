/*
 * bloom_barrier.h
 *		The steps of a team of threads (bloom_team.h): a gate they wait at
 *		until every one of them has started, a barrier between steps whose
 *		last arriver decides, for all, whether they go on, and their
 *		creator's wait for them all to leave.  No PostgreSQL dependency.
 *
 * All wait on the job's own lock, so that what the last arriver decides
 * from, and does in between, is what the job's lock guards.
 */
#ifndef BLOOM_BARRIER_H
#define BLOOM_BARRIER_H

#include <pthread.h>

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

typedef struct bloom_barrier
{
	pthread_mutex_t *lock;		/* the job's */
	pthread_cond_t cond;
	unsigned	nthreads;
	/* all below under *lock */
	unsigned	arrived;
	uint64_t	generation;
	bool		stop;			/* the last arriver's decision */
	bool		go;				/* the gate: every thread started */
	bool		abort_start;	/* the gate: a thread could not start */
	unsigned	running;		/* threads started and not yet left */
	pthread_cond_t done;		/* the creator's: every thread has left */
} bloom_barrier;

extern void bloom_barrier_init(bloom_barrier *b, pthread_mutex_t *lock,
							   unsigned nthreads);
extern void bloom_barrier_destroy(bloom_barrier *b);

/* For a new team, once the last one's threads are joined: the gate closed. */
extern void bloom_barrier_reset(bloom_barrier *b);

/*
 * The creator, once it has started what threads it could (started of
 * them, whom bloom_barrier_wait_done waits for): open the gate (go) or
 * send them away.  Takes the lock.
 */
extern void bloom_barrier_open(bloom_barrier *b, unsigned started, bool go);

/* A thread, first: false when it must leave without doing anything. */
extern bool bloom_barrier_await_start(bloom_barrier *b);

/*
 * Wait for every thread; the last to arrive calls decide(arg) under the
 * lock (the threads then stop if it returns true), or, without decide,
 * they go on.  Returns that decision for all of them: true to stop.
 */
extern bool bloom_barrier_wait(bloom_barrier *b, bool (*decide) (void *arg),
							   void *arg);

/* A thread, last of all: it leaves, and the last one out tells the creator. */
extern void bloom_barrier_leave(bloom_barrier *b);

/*
 * The creator: wait up to timeout_ms for the threads started to leave;
 * true once they all have.  A short wait, so that a caller can check for
 * its own interrupts in between.
 */
extern bool bloom_barrier_wait_done(bloom_barrier *b, unsigned timeout_ms);

BLOOM_END_PRIVATE

#endif							/* BLOOM_BARRIER_H */
