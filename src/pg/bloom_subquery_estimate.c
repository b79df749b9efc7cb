/*
 * bloom_subquery_estimate.c
 *		The filter of key <~ (SELECT ...), as the planner can know it.
 *
 * An uncorrelated scalar subquery becomes an initplan, planned before the
 * query around it, and the operator sees only a Param for its value.  The
 * subquery's own planner state is kept (PlannerGlobal's subroots), so the
 * estimator can look at what it selects:
 *
 *  - bloom_agg(key, bits_per_key): the filter holds the key's distinct
 *    values among the rows the subquery reads, as that subquery's planner
 *    estimates them, and its false-positive rate follows from
 *    bits_per_key and how many rows (duplicates included) size it;
 *  - a bloomfilter column of a table: ANALYZE's summary of the column's
 *    filters (bloom_analyze.c), their mean key count and rate.
 *
 * Anything else gives no guess, and the estimator keeps its default.
 */
#include "postgres.h"

#include <math.h>

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_statistic.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_analyze.h"
#include "bloom_pg.h"
#include "bloom_stats.h"
#include "bloom_subquery_estimate.h"

/* bloom_agg.c: the final function of every bloom_agg(key, bits_per_key) */
extern PGDLLEXPORT Datum bloom_agg_finalfn(PG_FUNCTION_ARGS);

/* The initplan that sets paramid, in root or a query above it. */
static SubPlan *
initplan_of_param(PlannerInfo *root, int paramid)
{
	PlannerInfo *level;
	ListCell   *lc;

	for (level = root; level != NULL; level = level->parent_root)
	{
		foreach(lc, level->init_plans)
		{
			SubPlan    *subplan = (SubPlan *) lfirst(lc);

			if (list_member_int(subplan->setParam, paramid))
				return subplan;
		}
	}
	return NULL;
}

/*
 * Whether aggfnoid is one of this module's bloom_agg(key, bits_per_key),
 * whatever schema and OIDs the extension has: its final function is
 * bloom_agg_finalfn of this library.
 */
static bool
is_bloom_agg(Oid aggfnoid)
{
	HeapTuple	tuple;
	Oid			finalfn;

	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(tuple))
		return false;
	finalfn = ((Form_pg_aggregate) GETSTRUCT(tuple))->aggfinalfn;
	ReleaseSysCache(tuple);
	return OidIsValid(finalfn) && bloom_function_is(finalfn, bloom_agg_finalfn);
}

/*
 * The rate at which an absent key passes a filter of `rows` keys (which
 * size it) of which `distinct` differ, at bits_per_key: LevelDB's measured
 * rate for bits_per_key, scaled by the ideal filter's change when
 * duplicates leave more bits for each distinct key.
 */
static double
fpr_of_bloom_agg(double rows, double distinct, int64 bits_per_key)
{
	double		measured = bloom_expected_fpr(bits_per_key);
	double		ideal = bloom_ideal_fpr(bits_per_key);
	double		bits = Max(64.0, rows * (double) bits_per_key);
	double		k = (double) bloom_k_for_bits_per_key(bits_per_key);
	double		ideal_here;

	if (distinct <= 0.0 || ideal <= 0.0)
		return measured;
	ideal_here = pow(1.0 - exp(-k * distinct / bits), k);
	return Min(1.0, measured * ideal_here / ideal);
}

static bool
guess_bloom_agg(PlannerInfo *subroot, Aggref *agg, BloomFilterGuess *guess)
{
	Node	   *key;
	Node	   *bpk;
	VariableStatData vardata;
	double		rows;

	if (list_length(agg->args) != 2 || !is_bloom_agg(agg->aggfnoid))
		return false;
	key = (Node *) ((TargetEntry *) linitial(agg->args))->expr;
	bpk = (Node *) ((TargetEntry *) lsecond(agg->args))->expr;
	bpk = estimate_expression_value(subroot, bpk);
	if (!IsA(bpk, Const) || ((Const *) bpk)->constisnull ||
		((Const *) bpk)->consttype != INT4OID)
		return false;

	/*
	 * The rows of the key's relation after its own conditions: joins in
	 * the subquery are not followed, so a join that drops or repeats rows
	 * makes the guess too high or too low.
	 */
	examine_variable(subroot, key, 0, &vardata);
	if (vardata.rel == NULL)
	{
		ReleaseVariableStats(vardata);
		return false;
	}
	rows = Max(1.0, vardata.rel->rows);
	ReleaseVariableStats(vardata);

	guess->keys = bloom_estimate_num_groups(subroot, list_make1(key), rows);
	guess->fpr = fpr_of_bloom_agg(rows, guess->keys,
								  (int64) DatumGetInt32(((Const *) bpk)->constvalue));
	return true;
}

static bool
guess_stored_filter(PlannerInfo *subroot, Node *expr, BloomFilterGuess *guess)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	bool		found = false;

	examine_variable(subroot, expr, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple) &&
		get_attstatsslot(&sslot, vardata.statsTuple, BLOOM_STATISTIC_KIND,
						 InvalidOid, ATTSTATSSLOT_NUMBERS))
	{
		if (sslot.nnumbers >= BLOOM_STAT_NUMBERS)
		{
			guess->keys = sslot.numbers[BLOOM_STAT_MEAN_KEYS];
			guess->fpr = sslot.numbers[BLOOM_STAT_MEAN_FPR];
			found = true;
		}
		free_attstatsslot(&sslot);
	}
	ReleaseVariableStats(vardata);
	return found;
}

bool
bloom_guess_subquery_filter(PlannerInfo *root, const Param *param,
							BloomFilterGuess *guess)
{
	SubPlan    *subplan;
	PlannerInfo *subroot;
	TargetEntry *tle;
	Node	   *expr;

	if (param->paramkind != PARAM_EXEC)
		return false;
	subplan = initplan_of_param(root, param->paramid);
	if (subplan == NULL || subplan->subLinkType != EXPR_SUBLINK ||
		subplan->plan_id < 1 || subplan->plan_id > list_length(root->glob->subroots))
		return false;
	subroot = (PlannerInfo *) list_nth(root->glob->subroots, subplan->plan_id - 1);
	if (subroot == NULL || subroot->parse->targetList == NIL)
		return false;
	tle = (TargetEntry *) linitial(subroot->parse->targetList);
	expr = (Node *) tle->expr;
	while (IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;

	if (IsA(expr, Aggref))
		return guess_bloom_agg(subroot, (Aggref *) expr, guess);
	if (IsA(expr, Var))
		return guess_stored_filter(subroot, expr, guess);
	return false;
}
