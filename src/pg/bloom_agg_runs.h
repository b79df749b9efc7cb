/*
 * bloom_agg_runs.h
 *		An expanded bloom_agg state's runs of hashes (bloom_agg_state.h):
 *		how a full buffer becomes a run, and when runs are merged.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_AGG_RUNS_H
#define BLOOM_AGG_RUNS_H

#include "bloom_agg_state.h"

BLOOM_BEGIN_PRIVATE

/*
 * Add a run to the state's, given the run's smallest distinct hashes in
 * order (at most BLOOM_KMV_SIZE of them) for the runs' sketch.
 */
extern void bloom_agg_add_run(BloomAggState *state, BloomAggRun *run,
							  const uint32 *smallest, int nsmallest);

/* Add a sorted run, whose first hashes are its smallest. */
extern void bloom_agg_add_sorted_run(BloomAggState *state, BloomAggRun *run);

/* The buffer's hashes as a new run; the buffer is then empty. */
extern void bloom_agg_flush_buffer(BloomAggState *state);

/*
 * Merge the runs when that would at least halve them: each merge then
 * frees as much as it reads, so its cost is paid for by the hashes it
 * drops, and distinct keys, which nothing would be dropped from, are never
 * merged.
 */
extern void bloom_agg_merge_runs_if_worth_it(BloomAggState *state);

/*
 * The distinct hashes of every run and chunk, sorted, into a new area
 * (freed by bloom_free_hashes) that *ndistinct of them fill: what the flat
 * form codes.  The state is left as it was.
 */
extern uint32 *bloom_agg_sorted_distinct_hashes(BloomAggState *state,
												uint64 *ndistinct);

BLOOM_END_PRIVATE

#endif							/* BLOOM_AGG_RUNS_H */
