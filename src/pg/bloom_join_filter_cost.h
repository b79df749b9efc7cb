/*
 * bloom_join_filter_cost.h
 *		Whether a join filter pays, from what ANALYZE left in the catalogs
 *		(bloom_join_filter_cost.c).
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_JOIN_FILTER_COST_H
#define BLOOM_JOIN_FILTER_COST_H

#include "nodes/pg_list.h"

#include "bloom_compat.h"
#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/* What is known of one side of a join filter. */
typedef struct BloomJoinSide
{
	double		rows;			/* its rows, or -1: not known */
	double		distinct;		/* distinct values of its key columns, or -1 */
	double		read_cost;		/* what reading its rows costs, or -1: the
								 * rows at cpu_tuple_cost each */
} BloomJoinSide;

/*
 * The rows and the distinct values of columns attnums (a List of int) of
 * relation relid, from pg_class and pg_statistic (inh: the statistics of
 * the inheritance tree).  Several columns are counted as the most distinct
 * of any one of them (fewer than together, so that a filter is never
 * expected to drop more rows than it will), capped by the rows.
 */
extern BloomJoinSide bloom_join_side(Oid relid, List *attnums, bool inh);

/*
 * A side of a join filter as its own conditions leave it: rows of the
 * table's whole, read at read_cost (both as PostgreSQL plans the filter's
 * input).  Its distinct keys scale as estimate_num_groups scales a
 * restricted relation's: d * (1 - ((N - n) / N) ^ (N / d)), the distinct
 * values n rows drawn from N rows of d distinct values are expected to
 * hold.
 */
extern BloomJoinSide bloom_join_side_restricted(BloomJoinSide whole, double rows,
												double read_cost);

/*
 * The bits per key a join filter may have: from where the false positives
 * are a sixth of the absent keys (4) to where they are a few in a hundred
 * thousand (20), past which a filter only grows.
 */
#define BLOOM_JOIN_MIN_BITS_PER_KEY 4
#define BLOOM_JOIN_MAX_BITS_PER_KEY 20

/*
 * Whether a filter of the build side's keys, probed on each of the probe
 * side's rows (a foreign table whose rows cost fdw_tuple_cost each to
 * bring over), saves more than it costs at some bits per key; if so,
 * *bits_per_key is the one that saves the most and *pass the share of the
 * probe side's rows it lets through.  The probe side's rows whose key the
 * build side lacks are the rows saved, but for false positives; the build
 * side's keys are taken to be among the probe side's (the containment
 * PostgreSQL's join estimates assume), so that the share passing is never
 * guessed below what that assumption gives.
 */
extern bool bloom_join_filter_pays(BloomJoinSide probe, BloomJoinSide build,
								   double fdw_tuple_cost, int *bits_per_key,
								   double *pass);

BLOOM_END_PRIVATE

#endif							/* BLOOM_JOIN_FILTER_COST_H */
