/*
 * bloom_subquery_estimate.h
 *		What the planner can tell of a filter that a subquery yields.
 */
#ifndef BLOOM_SUBQUERY_ESTIMATE_H
#define BLOOM_SUBQUERY_ESTIMATE_H

#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

typedef struct BloomFilterGuess
{
	double		keys;			/* distinct keys in the filter */
	double		fpr;			/* the rate at which an absent key passes */
} BloomFilterGuess;

/*
 * For param, the value of an uncorrelated scalar subquery (an initplan) of
 * root or a query above it: true with *guess filled when the subquery is
 * SELECT bloom_agg(key, bits_per_key) FROM ... (from its estimated rows and
 * the key's distinct values there) or selects a bloomfilter column of a
 * table that ANALYZE summarised (bloom_analyze.c); false otherwise.
 */
extern bool bloom_guess_subquery_filter(PlannerInfo *root, const Param *param,
										BloomFilterGuess *guess);

BLOOM_END_PRIVATE

#endif							/* BLOOM_SUBQUERY_ESTIMATE_H */
