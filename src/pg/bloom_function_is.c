/*
 * bloom_function_is.c
 *		Whether a function is one of this module's C functions.
 *
 * The planner's estimators know this extension's type and aggregate by the
 * C function behind them (bloomfilter_in, bloom_agg_finalfn), not by name
 * or OID: the extension is relocatable and may be dropped and created
 * again, so names and OIDs say nothing, while the address fmgr finds for a
 * function is one of ours only if the function is.
 *
 * fmgr_info finds that address at the cost of a pg_proc lookup (and, the
 * first time, loading the function's library); the estimators ask for
 * every constant and every subquery a probe compares with, so the answers
 * are remembered.  An answer depends only on the function's pg_proc row
 * (its language, library and symbol, and SECURITY DEFINER or SET options,
 * which fmgr_info wraps), and an OID names other code only after that row
 * changes: CREATE OR REPLACE keeps the OID with a new body, and a dropped
 * function's OID may be given to a new one.  Every change to a pg_proc row
 * reaches each backend as an invalidation of the syscache before the
 * backend reads the catalog again, so forgetting a function's answers on
 * its row's invalidation keeps them as right as PostgreSQL's own caches
 * are.
 */
#include "postgres.h"

#include "utils/inval.h"
#include "utils/syscache.h"

#include "bloom_pg.h"

/*
 * The estimators ask about a handful of functions: the type's input
 * function, and the final function of each aggregate a filter subquery
 * uses.  When all places are taken, they are given up in turn.
 */
#define BLOOM_FUNCTION_ANSWERS	8

typedef struct FunctionAnswer
{
	Oid			fn;				/* InvalidOid: a free place */
	uint32		hash;			/* fn's hash in pg_proc's syscache */
	PGFunction	ours;
	bool		is;
} FunctionAnswer;

static FunctionAnswer answers[BLOOM_FUNCTION_ANSWERS];
static int	next_given_up = 0;
static bool forgets_on_change = false;

/*
 * A pg_proc row changed: forget the answers for its OID, told by its
 * hash (another OID of the same hash is forgotten too, which costs only a
 * lookup), or all of them when the hash is 0 (the whole cache was reset).
 */
static void
forget_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	int			i;

	(void) arg;
	(void) cacheid;
	for (i = 0; i < BLOOM_FUNCTION_ANSWERS; i++)
		if (hashvalue == 0 || answers[i].hash == hashvalue)
			answers[i].fn = InvalidOid;
}

bool
bloom_function_is(Oid fn, PGFunction ours)
{
	FmgrInfo	flinfo;
	FunctionAnswer *answer = NULL;
	int			i;

	for (i = 0; i < BLOOM_FUNCTION_ANSWERS; i++)
	{
		if (answers[i].fn == fn && answers[i].ours == ours)
			return answers[i].is;
		if (answers[i].fn == InvalidOid && answer == NULL)
			answer = &answers[i];
	}

	/*
	 * Registered before the lookup: an invalidation that fmgr_info's own
	 * catalog access takes in comes before the row it reads, so the answer
	 * kept below is of that row.
	 */
	if (!forgets_on_change)
	{
		CacheRegisterSyscacheCallback(PROCOID, forget_changed, (Datum) 0);
		forgets_on_change = true;
	}
	fmgr_info(fn, &flinfo);

	if (answer == NULL)
	{
		answer = &answers[next_given_up];
		next_given_up = (next_given_up + 1) % BLOOM_FUNCTION_ANSWERS;
	}
	answer->fn = fn;
	answer->hash = GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(fn));
	answer->ours = ours;
	answer->is = flinfo.fn_addr == ours;
	return answer->is;
}
