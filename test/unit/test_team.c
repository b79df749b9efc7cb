/*
 * test_team.c
 *		Unit tests of the core: a team's failed starts (bloom_team.c), the
 *		final's and the flatten's, with pthread_create failing at its Nth
 *		call.  The unit tests link with -Wl,--wrap=pthread_create, so that
 *		every thread the core starts comes through __wrap_pthread_create
 *		below, which fails only while a test asks it to.  Under
 *		make unittest-sanitize a thread left running or a job not freed is
 *		a report.
 */
#include <errno.h>
#include <pthread.h>

#include "unit.h"

extern int	__real_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
								  void *(*start) (void *), void *arg);
extern int	__wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
								  void *(*start) (void *), void *arg);

/* The creates counted since the test set fail_at; the one that fails. */
static int	creates;
static int	fail_at = -1;		/* -1: none */

int
__wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
					  void *(*start) (void *), void *arg)
{
	if (creates++ == fail_at)
		return EAGAIN;
	return __real_pthread_create(thread, attr, start, arg);
}

/* From now on, the create at (counted from 0) fails; -1, none. */
static void
fail_create_at(int at)
{
	creates = 0;
	fail_at = at;
}

/* The flatten of runs on nthreads threads, the code step's create at failing. */
static uint8_t *
flatten_code_failing_at(const bloom_hash_run *runs, size_t nruns, unsigned nthreads,
						int at, size_t *len, bloom_status *status)
{
	bloom_flatten_job *job;
	uint64_t	ndistinct;
	uint8_t    *out;

	fail_create_at(-1);
	*status = bloom_flatten_start(&job, runs, nruns, nthreads);
	if (*status != BLOOM_OK)
		return NULL;
	while (!bloom_flatten_wait(job, 5))
		;
	*status = bloom_flatten_sorted(job, &ndistinct, len);
	out = malloc(*len > 0 ? *len : 1);
	fail_create_at(at);
	bloom_flatten_code(job, out);
	while (!bloom_flatten_wait(job, 5))
		;
	*status = bloom_flatten_finish(job);
	fail_create_at(-1);
	return out;
}

void
test_team(void)
{
	enum
	{
		NTHREADS = 4
	};
	uint64_t	n = 1000000;
	uint32_t   *hashes = malloc(n * sizeof(uint32_t));
	bloom_hash_run run;
	bloom_geometry g;

	group_begin("thread teams: failed starts");
	n = random_hash_set(hashes, n);
	run = (bloom_hash_run) {hashes, (size_t) n, NULL, 0, NULL};
	(void) bloom_geometry_for(n, 10, &g);

	test_begin("final: any create failing fails the start and leaves the filter as it was");
	for (int at = 0; at < NTHREADS; at++)
	{
		uint8_t    *filter = malloc(g.filter_bytes);
		bloom_final_job *job;
		bool		untouched = true;

		memset(filter, 0xa5, g.filter_bytes);
		fail_create_at(at);
		check(bloom_final_start(&job, filter, &g, &run, 1, NTHREADS) == BLOOM_ERR_THREAD,
			  "create %d of %d failed, and the start did not say so", at, NTHREADS);
		fail_create_at(-1);
		/*
		 * The bit array, which a thread sent away at the gate zeroes no
		 * share of, and the k byte after it, written only once all started.
		 */
		for (size_t i = 0; i < g.filter_bytes; i++)
			untouched &= filter[i] == 0xa5;
		check(untouched, "create %d failed, and the filter was written", at);
		free(filter);
	}
	test_end();

	test_begin("flatten: any create failing fails the start");
	for (int at = 0; at < NTHREADS; at++)
	{
		bloom_flatten_job *job;

		fail_create_at(at);
		check(bloom_flatten_start(&job, &run, 1, NTHREADS) == BLOOM_ERR_THREAD,
			  "create %d of %d failed, and the start did not say so", at, NTHREADS);
		fail_create_at(-1);
	}
	test_end();

	test_begin("flatten: the parts no thread took are coded by the caller, the same bytes");
	{
		size_t		want_len;
		bloom_status status;
		uint8_t    *want = flatten_code_failing_at(&run, 1, NTHREADS, -1, &want_len, &status);

		check(status == BLOOM_OK, "the flatten on %d threads: %s", NTHREADS, status_name(status));
		for (int at = 0; at < NTHREADS && want != NULL; at++)
		{
			size_t		len;
			uint8_t    *got = flatten_code_failing_at(&run, 1, NTHREADS, at, &len, &status);
			bool		same = status == BLOOM_OK && len == want_len &&
				memcmp(got, want, len) == 0;

			check(same, "create %d of the code's failed: %s, and %zu bytes %s the %zu of all threads",
				  at, status_name(status), len, same ? "as" : "other than", want_len);
			free(got);
		}
		free(want);
	}
	test_end();

	group_end();
	free(hashes);
}
