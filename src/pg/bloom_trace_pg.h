/*
 * bloom_trace_pg.h
 *		Log lines at each step of bloom_agg (the transition's first row, the
 *		buffer's flushes, a state's flattening, the leader's combines and
 *		the final), with CLOCK_MONOTONIC times that line up across the
 *		processes of a parallel query.  Only with make BLOOM_TRACE=1:
 *		otherwise BLOOM_TRACE_LOG is nothing.  bench/manycore_bench.sh
 *		reads them into its table of steps.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_TRACE_PG_H
#define BLOOM_TRACE_PG_H

#include "bloom_trace.h"

#ifdef BLOOM_TRACE
extern void bloom_trace_log(const char *fmt,...) pg_attribute_printf(1, 2);
#define BLOOM_TRACE_LOG(...)	bloom_trace_log(__VA_ARGS__)
#else
#define BLOOM_TRACE_LOG(...)	((void) 0)
#endif

#endif							/* BLOOM_TRACE_PG_H */
