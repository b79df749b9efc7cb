/*
 * bloom_team.h
 *		A job's team of threads (the final's, the flatten's): the job
 *		allocated with its threads' states, the lock and the barrier its
 *		threads share (bloom_barrier.h), their start with every signal
 *		blocked, held at the gate until every one has started, the
 *		creator's wait for them, their join and the team's end.  What the
 *		threads do, and what the job holds besides, is the job's own.  No
 *		PostgreSQL dependency.
 */
#ifndef BLOOM_TEAM_H
#define BLOOM_TEAM_H

#include <pthread.h>

#include "bloom_barrier.h"
#include "bloom_core.h"
#include "bloom_final.h"		/* BLOOM_MAX_FINAL_THREADS */

BLOOM_BEGIN_PRIVATE

typedef struct bloom_team bloom_team;

/* A thread of the team: its handle, and what its step is given. */
typedef struct bloom_team_member
{
	bloom_team *team;
	void	   *state;			/* the job's, for this thread */
	pthread_t	thread;
} bloom_team_member;

struct bloom_team
{
	pthread_mutex_t lock;		/* the job's: guards what its threads share */
	bloom_barrier barrier;		/* waits on lock */
	unsigned	nthreads;
	void	   *job;			/* the job the team is in */
	void		(*release) (void *job);	/* frees what else the job holds */
	void		(*step) (void *state);	/* what the step's threads run */
	/* the creator's alone */
	unsigned	started;		/* the step's threads: the first this many */
	bool		joined;			/* every one of them */
	bloom_team_member members[BLOOM_MAX_FINAL_THREADS];
};

/*
 * A new job for nthreads threads (2 .. BLOOM_MAX_FINAL_THREADS), zeroed:
 * head_size bytes (the job's struct up to its array of thread states) and
 * nthreads states of state_size bytes, with its team, team_offset bytes in,
 * ready for a step; no thread is started yet.  release(job) is to free
 * what else the job comes to hold, whatever of it was had.  NULL, with
 * *status BLOOM_ERR_THREAD or BLOOM_ERR_NO_MEMORY, when it cannot be had.
 */
extern void *bloom_team_new_job(size_t head_size, size_t state_size,
								size_t team_offset, unsigned nthreads,
								void (*release) (void *job),
								bloom_status *status);

/*
 * bloom_team_new_job for a job of type job_type, whose thread states are
 * its last member, threads[], and whose team is its member team.
 */
#define BLOOM_TEAM_NEW_JOB(job_type, nthreads, release, status) \
	((job_type *) bloom_team_new_job(offsetof(job_type, threads), \
									 sizeof(((job_type *) NULL)->threads[0]), \
									 offsetof(job_type, team), (nthreads), \
									 (release), (status)))

/*
 * A step on every thread, thread t running step(states + t * state_size)
 * once every one has started, then leaving (so that bloom_team_wait sees
 * it go): the job once they all started and the gate is open.  A step
 * whose barriers need every thread must have all or none: when one cannot
 * start, those that did are sent away and joined, the job is freed
 * (bloom_team_free_job), and it is NULL.
 */
extern void *bloom_team_start_all(bloom_team *team, void (*step) (void *state),
								  void *states, size_t state_size);

/*
 * A step on what threads can be started, the gate opened to them: their
 * number, that of the first states; the caller does the others' work.
 */
extern unsigned bloom_team_start_some(bloom_team *team, void (*step) (void *state),
									  void *states, size_t state_size);

/*
 * The creator: wait up to timeout_ms for the step's threads to leave; true
 * once they all have (bloom_barrier_wait_done).
 */
extern bool bloom_team_wait(bloom_team *team, unsigned timeout_ms);

/* Join the step's threads, if not yet. */
extern void bloom_team_join(bloom_team *team);

/*
 * Join the step's threads, if not yet, free what else the job holds
 * (release), end the team and free the job.
 */
extern void bloom_team_free_job(bloom_team *team);

BLOOM_END_PRIVATE

#endif							/* BLOOM_TEAM_H */
