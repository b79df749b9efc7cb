/*
 * bloom_team.c
 *		A job's team of threads: its allocation, the start of a step's
 *		threads, their join and the team's end (see bloom_team.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* pthreads under -std=c99 */
#endif
#include <signal.h>
#include <stdlib.h>

#include "bloom_team.h"

void *
bloom_team_new_job(size_t head_size, size_t state_size, size_t team_offset,
				   unsigned nthreads, void (*release) (void *job),
				   bloom_status *status)
{
	char	   *job;
	bloom_team *team;

	if (nthreads < 2 || nthreads > BLOOM_MAX_FINAL_THREADS)
	{
		*status = BLOOM_ERR_THREAD;
		return NULL;
	}
	job = calloc(1, head_size + nthreads * state_size);
	if (job == NULL)
	{
		*status = BLOOM_ERR_NO_MEMORY;
		return NULL;
	}
	team = (bloom_team *) (job + team_offset);
	pthread_mutex_init(&team->lock, NULL);
	bloom_barrier_init(&team->barrier, &team->lock, nthreads);
	team->nthreads = nthreads;
	team->job = job;
	team->release = release;
	team->joined = true;		/* none started */
	*status = BLOOM_OK;
	return job;
}

/*
 * A thread of the team: at the gate until every thread of the step has
 * started, then the step, unless the gate sent it away; then it leaves,
 * and the last one out tells the creator.
 */
static void *
member_main(void *arg)
{
	bloom_team_member *member = arg;
	bloom_team *team = member->team;

	if (bloom_barrier_await_start(&team->barrier))
		team->step(member->state);
	bloom_barrier_leave(&team->barrier);
	return NULL;
}

/*
 * Start a thread with every signal blocked (a thread inherits its
 * creator's mask), so that the process's signals go to the thread that
 * handles them; the caller's mask is as it was after.
 */
static bool
start_thread(pthread_t *thread, bloom_team_member *member)
{
	sigset_t	all,
				old;
	bool		started;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	started = pthread_create(thread, NULL, member_main, member) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

/*
 * Start the step's threads, in order, until one cannot be: each waits at
 * the gate, closed until the caller opens it.  The number started.
 */
static unsigned
start_threads(bloom_team *team, void (*step) (void *state), void *states,
			  size_t state_size)
{
	bloom_barrier_reset(&team->barrier);
	team->step = step;
	team->joined = false;
	for (team->started = 0; team->started < team->nthreads; team->started++)
	{
		bloom_team_member *member = &team->members[team->started];

		member->team = team;
		member->state = (char *) states + team->started * state_size;
		if (!start_thread(&member->thread, member))
			break;
	}
	return team->started;
}

void *
bloom_team_start_all(bloom_team *team, void (*step) (void *state), void *states,
					 size_t state_size)
{
	bool		all = start_threads(team, step, states, state_size) == team->nthreads;

	bloom_barrier_open(&team->barrier, team->started, all);
	if (all)
		return team->job;
	bloom_team_free_job(team);
	return NULL;
}

unsigned
bloom_team_start_some(bloom_team *team, void (*step) (void *state), void *states,
					  size_t state_size)
{
	unsigned	started = start_threads(team, step, states, state_size);

	bloom_barrier_open(&team->barrier, started, true);
	return started;
}

void
bloom_team_join(bloom_team *team)
{
	if (team->joined)
		return;
	for (unsigned t = 0; t < team->started; t++)
		pthread_join(team->members[t].thread, NULL);
	team->joined = true;
}

bool
bloom_team_wait(bloom_team *team, unsigned timeout_ms)
{
	return bloom_barrier_wait_done(&team->barrier, timeout_ms);
}

void
bloom_team_free_job(bloom_team *team)
{
	void	   *job = team->job;

	bloom_team_join(team);
	team->release(job);
	bloom_barrier_destroy(&team->barrier);
	pthread_mutex_destroy(&team->lock);
	free(job);
}
