/*
 * bloom_selfuncs.c
 *		The planner's estimate for key <~ filter and filter ~> key.
 *
 * With a constant on one side, the operator itself is run on the other
 * side's most common values and histogram (generic_restriction_selectivity,
 * as matchingsel does for PostgreSQL's own matching operators): what the
 * filter matches among the sampled values, false positives included.  Two
 * corrections, when the constant is the filter:
 *
 *  - without usable statistics, the estimate is the filter's estimated key
 *    count over the column's number of distinct values (when known), not a
 *    fixed guess;
 *  - the estimate never goes below the filter's own false-positive rate
 *    times the non-NULL rows: a sample that matched nothing does not show
 *    that nothing matches, since every absent key matches at that rate.
 *
 * With the filter the value of a subquery, key <~ (SELECT ...), there is no
 * filter to run yet; what its planner knows of the subquery gives the
 * filter's distinct keys and rate (bloom_subquery_estimate.c).  How the
 * filter's keys overlap the column's distinct values is not known:
 * PostgreSQL's semi-join estimate assumes the smaller set lies in the
 * larger, which is far too high when they only partly overlap (the
 * README's pre-check: 14,794 rows pass, containment says 50,000).  This
 * estimate takes both sets as drawn from a domain as large as the two
 * together, so the column's share in the filter is keys / (keys +
 * distinct): at most 2 times below the truth when one set does lie in the
 * other, and nearer it when they partly overlap (33,333 there).  The rest
 * of the column passes at the filter's rate.
 */
#include "postgres.h"

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_pg.h"
#include "bloom_scheme.h"
#include "bloom_stats.h"
#include "bloom_subquery_estimate.h"

/*
 * Probes for the filter's rate at planning time: a rate of 1% is then seen
 * about 650 times (a relative error near 4%), and planning stays cheap.
 */
#define BLOOM_SELFUNC_PROBES	(UINT64_C(1) << 16)

PG_FUNCTION_INFO_V1(bloom_may_contain_sel);

/* bloom_type_io.c */
extern PGDLLEXPORT Datum bloomfilter_in(PG_FUNCTION_ARGS);

/*
 * Whether type (or the type under a domain) is this extension's
 * bloomfilter: the one type whose input function is bloomfilter_in of this
 * module, whatever schema the extension is in (it is relocatable) and
 * however often it was dropped and created again.  Base types are made by
 * superusers only, so no other type has that input function.  The
 * estimator may be named by any operator, whose constant may be of any
 * type: only a bloomfilter is read as a filter.
 */
static bool
is_bloomfilter_type(Oid type)
{
	Oid			input;
	Oid			ioparam;

	type = getBaseType(type);
	if (get_typlen(type) != -1)
		return false;
	getTypeInputInfo(type, &input, &ioparam);
	return bloom_function_is(input, bloomfilter_in);
}

Datum
bloom_may_contain_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	double		default_sel = DEFAULT_MATCHING_SEL;
	double		floor_sel = 0.0;
	double		nullfrac = 0.0;
	double		sel;
	const bytea *filter = NULL;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		PG_RETURN_FLOAT8(DEFAULT_MATCHING_SEL);
	/* NULL keys never pass: both corrections below count non-NULL rows */
	if (HeapTupleIsValid(vardata.statsTuple))
		nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;

	/*
	 * The constant is the filter when it is one: <~ and ~> take a key on
	 * the other side, but any operator may name this estimator.  A value
	 * that is no filter (which input never makes) is no constant here.
	 */
	if (IsA(other, Const) && !((Const *) other)->constisnull &&
		is_bloomfilter_type(((Const *) other)->consttype))
	{
		filter = DatumGetBloomFilterPP(((Const *) other)->constvalue);
		if (bloom_validate(BloomFilterBytes(filter), BloomFilterLength(filter)) != BLOOM_OK)
			filter = NULL;
	}
	if (IsA(other, Param) && is_bloomfilter_type(((Param *) other)->paramtype))
	{
		BloomFilterGuess guess;

		if (bloom_guess_subquery_filter(root, (Param *) other, &guess))
		{
			bool		isdefault;
			double		ndistinct = get_variable_numdistinct(&vardata, &isdefault);
			double		held = ndistinct > 0 ? guess.keys / (guess.keys + ndistinct) : 1.0;

			ReleaseVariableStats(vardata);
			sel = (held + (1.0 - held) * guess.fpr) * (1.0 - nullfrac);
			CLAMP_PROBABILITY(sel);
			PG_RETURN_FLOAT8(sel);
		}
	}
	else if (filter != NULL)
	{
		bloom_stats stats;
		bool		isdefault;
		double		ndistinct;

		bloom_stats_of(BloomFilterBytes(filter), BloomFilterLength(filter), &stats);
		/*
		 * The filter's own rate, measured on LevelDB's scheme: the ideal
		 * filter's formula would be up to 3 times lower.  A small probe
		 * budget keeps planning cheap for a large constant filter.
		 */
		floor_sel = bloom_scheme_fpr(BloomFilterBytes(filter), BloomFilterLength(filter),
									 BLOOM_SELFUNC_PROBES, stats.false_positive_rate) *
			(1.0 - nullfrac);
		ndistinct = get_variable_numdistinct(&vardata, &isdefault);
		if (!isdefault && ndistinct > 0)
			default_sel = Min(1.0, stats.estimated_keys / ndistinct);
	}
	ReleaseVariableStats(vardata);

	sel = generic_restriction_selectivity(root, operator, PG_GET_COLLATION(), args,
										  varRelid, default_sel);
	sel = Max(sel, floor_sel);
	CLAMP_PROBABILITY(sel);
	PG_RETURN_FLOAT8(sel);
}
