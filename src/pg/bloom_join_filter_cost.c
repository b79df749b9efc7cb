/*
 * bloom_join_filter_cost.c
 *		Whether a filter of one side's join keys, sent to a foreign table's
 *		scan, saves more than it costs.
 *
 * The decision is taken before the query is planned, from the catalogs:
 * the rows and distinct keys ANALYZE recorded for each side.  A side with
 * no statistics gets no filter, so that a query on tables nobody analyzed
 * plans as it always did.  The build side's own conditions count: the
 * rows they leave are PostgreSQL's estimate for the filter's input (the
 * caller plans it), and its distinct keys scale down with them as
 * PostgreSQL scales a restricted relation's.
 */
#include "postgres.h"

#include <math.h>

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic.h"
#include "optimizer/optimizer.h"
#include "utils/syscache.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_join_filter_cost.h"
#include "bloom_stats.h"

/*
 * What one byte of the filter costs to send, against fdw_tuple_cost for a
 * row: a row of about this many bytes costs fdw_tuple_cost.  The filter
 * travels as text, two characters a byte.
 */
#define ROW_BYTES_PER_TUPLE_COST 100.0

static double
rel_tuples(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		tuples = -1.0;

	if (HeapTupleIsValid(tuple))
	{
		tuples = ((Form_pg_class) GETSTRUCT(tuple))->reltuples;
		ReleaseSysCache(tuple);
	}
	return bloom_reltuples_known(tuples) ? tuples : -1.0;
}

/* A column's distinct values, or -1: no statistics. */
static double
column_distinct(Oid relid, AttrNumber attnum, bool inh, double tuples)
{
	HeapTuple	tuple;
	double		stadistinct;

	tuple = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid),
							Int16GetDatum(attnum), BoolGetDatum(inh));
	if (!HeapTupleIsValid(tuple))
		return -1.0;
	stadistinct = ((Form_pg_statistic) GETSTRUCT(tuple))->stadistinct;
	ReleaseSysCache(tuple);
	if (stadistinct > 0.0)
		return stadistinct;
	/* 0: not known; below 0: a share of the rows */
	if (stadistinct < 0.0 && tuples > 0.0)
		return Max(1.0, -stadistinct * tuples);
	return -1.0;
}

BloomJoinSide
bloom_join_side(Oid relid, List *attnums, bool inh)
{
	BloomJoinSide side;
	ListCell   *lc;

	side.rows = rel_tuples(relid);
	side.distinct = -1.0;
	side.read_cost = -1.0;
	if (side.rows < 0.0)
		return side;
	foreach(lc, attnums)
	{
		double		d = column_distinct(relid, (AttrNumber) lfirst_int(lc),
										inh, side.rows);

		/* a table without children has no statistics of a tree */
		if (d < 0.0 && inh)
			d = column_distinct(relid, (AttrNumber) lfirst_int(lc), false, side.rows);

		if (d < 0.0)
		{
			side.distinct = -1.0;
			return side;
		}
		side.distinct = Max(side.distinct, d);
	}
	side.distinct = Min(side.distinct, side.rows);
	return side;
}

BloomJoinSide
bloom_join_side_restricted(BloomJoinSide whole, double rows, double read_cost)
{
	BloomJoinSide side = whole;

	side.rows = Max(1.0, rows);
	side.read_cost = read_cost;
	if (whole.distinct <= 0.0 || whole.rows <= 0.0)
		return side;
	/* estimate_num_groups's scaling, for fewer rows than the whole */
	if (side.rows < whole.rows)
		side.distinct = whole.distinct *
			(1.0 - pow((whole.rows - side.rows) / whole.rows,
					   whole.rows / whole.distinct));
	side.distinct = Max(1.0, Min(side.distinct, side.rows));
	return side;
}

/*
 * What the plan gains from a filter at bits_per_key (negative: it loses),
 * and the share of the probe side it passes.
 */
static double
gain_at(BloomJoinSide probe, BloomJoinSide build, double held,
		int bits_per_key, double fdw_tuple_cost, double *pass)
{
	double		fpr = bloom_expected_fpr(bits_per_key);
	double		saved;
	double		cost;
	double		filter_bytes;

	*pass = held + (1.0 - held) * fpr;

	/* each row dropped at the remote scan is a row not sent, nor joined */
	saved = probe.rows * (1.0 - *pass) * (fdw_tuple_cost + cpu_tuple_cost);

	/*
	 * Building reads the build side again, and hashes and adds each of its
	 * rows; each probe hashes a key and reads up to k bits; and the filter
	 * is sent.
	 */
	filter_bytes = Max(8.0, ceil(build.rows * bits_per_key / 8.0)) + 1.0;
	cost = (build.read_cost >= 0.0 ? build.read_cost : build.rows * cpu_tuple_cost) +
		build.rows * 2.0 * cpu_operator_cost +
		probe.rows * 2.0 * cpu_operator_cost +
		2.0 * filter_bytes * fdw_tuple_cost / ROW_BYTES_PER_TUPLE_COST;
	return saved - cost;
}

bool
bloom_join_filter_pays(BloomJoinSide probe, BloomJoinSide build,
					   double fdw_tuple_cost, int *bits_per_key, double *pass)
{
	double		held;
	double		best = 0.0;
	int			bpk;

	*pass = 1.0;
	*bits_per_key = 0;
	if (probe.rows <= 0.0 || probe.distinct <= 0.0 ||
		build.rows < 0.0 || build.distinct < 0.0)
		return false;

	/* the probe side's keys the filter holds */
	held = Min(1.0, build.distinct / probe.distinct);

	/*
	 * More bits a key let fewer absent keys through and cost more bytes to
	 * send: the most the plan gains, over the sizes worth trying.
	 */
	for (bpk = BLOOM_JOIN_MIN_BITS_PER_KEY; bpk <= BLOOM_JOIN_MAX_BITS_PER_KEY; bpk++)
	{
		double		pass_here;
		double		gain = gain_at(probe, build, held, bpk, fdw_tuple_cost, &pass_here);

		if (gain > best)
		{
			best = gain;
			*bits_per_key = bpk;
			*pass = pass_here;
		}
	}
	return *bits_per_key > 0;
}
