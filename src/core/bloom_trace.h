/*
 * bloom_trace.h
 *		Timestamps of the build's steps, for measuring where a parallel
 *		bloom_agg's time goes.  Compiled in only with -DBLOOM_TRACE
 *		(make BLOOM_TRACE=1): a released build has none of it.  No
 *		PostgreSQL dependency.
 */
#ifndef BLOOM_TRACE_H
#define BLOOM_TRACE_H

#ifdef BLOOM_TRACE
#include <time.h>

/* CLOCK_MONOTONIC in ms: one clock for every process and thread. */
static inline double
bloom_trace_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec * 1e3 + (double) t.tv_nsec / 1e6;
}
#endif

#endif							/* BLOOM_TRACE_H */
