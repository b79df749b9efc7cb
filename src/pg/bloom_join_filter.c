/*
 * bloom_join_filter.c
 *		bloomfilter.join_filter: before PostgreSQL plans a query, add to a
 *		foreign table that a join would read whole the condition
 *		"key <~ (SELECT bloom_agg(other side's key, bits) FROM other side)",
 *		so that the remote server sends back only the rows that may join.
 *
 * A join of a local table with a foreign one brings every foreign row
 * across (or sends a remote query per local row).  When the foreign
 * server runs this extension too (postgres_fdw with OPTIONS (extensions
 * 'bloomfilter')), a filter of the local keys ships with the remote query
 * as a parameter, and the remote scan drops the rows whose key the local
 * side certainly lacks.  The filter is the value of an uncorrelated scalar
 * subquery, so PostgreSQL builds it once per execution, as an initplan,
 * and EXPLAIN shows it there.
 *
 * The rewrite never changes a result.  It adds a condition only where
 * every row of the foreign table that reaches the result already equals a
 * row of the other side on the keys, as "=" compares them:
 *	- the foreign table and the other side (a local table, or a view or
 *	  subquery in FROM that gives the same rows when read again) are
 *	  joined by an inner join (a comma, JOIN ... ON, USING) reached from
 *	  the query's top through inner joins only, and the keys' equality is
 *	  among that join tree's conditions; or the foreign table's key is
 *	  compared in the WHERE clause with IN (SELECT ...) or EXISTS (SELECT
 *	  ... WHERE other.k = foreign.k ...).  Outer joins, NOT IN, NOT EXISTS
 *	  and conditions under OR or NOT are left alone;
 *	- the keys are integers of any widths, text or character(n) under one
 *	  deterministic collation, bytea or uuid, compared by PostgreSQL's own
 *	  "=": for these bloom_agg and <~ give equal values equal key bytes
 *	  (bloom_key for several columns at once, and for character(n), whose
 *	  trailing spaces it drops as character(n)'s "=" ignores them); text
 *	  and character(n) keys only where the remote database is known to
 *	  have this one's encoding (bloom_fdw_encoding.c), as the remote
 *	  probe hashes its own bytes;
 *	- the filter holds the keys of the other side's rows under only those
 *	  of its conditions that the query applies to every one of its rows,
 *	  and none that could give another answer when run again (volatile
 *	  functions, LIMIT, TABLESAMPLE, row locks) or when its rows come in
 *	  another order (unrepeatable_walker), and none that may fail on a row
 *	  the join never reads (may_fail_on_row_walker, which counts 18's
 *	  virtual generated columns as their expressions may); it may hold
 *	  more keys than the join needs, never fewer.
 * NULL keys pass neither "=" nor <~.  A filter over no rows is NULL, and
 * drops every row, as the join does.
 *
 * Whether a filter pays is bloom_join_filter_cost.c's decision.
 */
#include "postgres.h"

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/varlena.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_fdw_encoding.h"
#include "bloom_join_filter.h"
#include "bloom_join_filter_cost.h"

bool		bloom_join_filter = false;

static planner_hook_type prev_planner_hook = NULL;

/*
 * While a filter's input is planned for its estimate: a statement that
 * planning runs (a function folded into a constant) gets no filters, so
 * that estimating never starts another estimate.
 */
static bool estimating = false;

/* Key types whose equal values bloom_agg and <~ hash alike. */
typedef enum KeyFamily
{
	FAMILY_NONE = 0,
	FAMILY_INT,					/* smallint, integer, bigint */
	FAMILY_TEXT,				/* text, varchar */
	FAMILY_BPCHAR,				/* character(n), as bloom_key: no trailing spaces */
	FAMILY_BYTEA,
	FAMILY_UUID
} KeyFamily;

/* The extension's objects in this database. */
typedef struct BloomObjects
{
	char	   *schema;
	Oid			filter_type;
} BloomObjects;

/* What a foreign table of the query is, as a filter's target. */
typedef enum ProbeKind
{
	PROBE_UNKNOWN = 0,
	PROBE_NO,
	PROBE_YES
} ProbeKind;

/* A filter that could be added: a foreign table's keys, another side's. */
typedef struct JoinFilter
{
	Index		probe_rti;		/* the foreign table, in the query */
	List	   *probe_keys;		/* its key expressions */
	Query	   *build;			/* the other side, its target list unset */
	List	   *build_keys;		/* the key expressions, in build's terms */
	Oid			collation;		/* the text keys' collation, or none */
	Index		build_rti;		/* the other side in the query's FROM, or 0 */
	Oid			build_relid;	/* the relation whose statistics count its keys */
	List	   *build_attnums;	/* its key columns, for their statistics */
	bool		build_inh;		/* its statistics: of its inheritance tree */
	double		pass;			/* the share of probe rows expected to pass */
	int			bits_per_key;	/* the filter's, as the cost model chose */
} JoinFilter;

/* The query being rewritten. */
typedef struct Rewrite
{
	Query	   *parse;
	ProbeKind  *probe_kind;		/* by range table index */
	double	   *fdw_tuple_cost;	/* by range table index */
	List	   *inner_rtis;		/* relations joined by inner joins only */
	List	   *conjuncts;		/* the conditions of those joins */
	List	   *filters;		/* JoinFilter candidates */
} Rewrite;

static KeyFamily
key_family(Oid type)
{
	switch (getBaseType(type))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return FAMILY_INT;
		case TEXTOID:
		case VARCHAROID:
			return FAMILY_TEXT;
		case BPCHAROID:
			return FAMILY_BPCHAR;
		case BYTEAOID:
			return FAMILY_BYTEA;
		case UUIDOID:
			return FAMILY_UUID;
		default:
			return FAMILY_NONE;
	}
}

/* Whether funcid is the "=" of two key types of one family. */
static bool
is_key_equality(Oid funcid)
{
	switch (funcid)
	{
		case F_INT2EQ:
		case F_INT4EQ:
		case F_INT8EQ:
		case F_INT24EQ:
		case F_INT42EQ:
		case F_INT28EQ:
		case F_INT82EQ:
		case F_INT48EQ:
		case F_INT84EQ:
		case F_TEXTEQ:
		case F_BPCHAREQ:
		case F_BYTEAEQ:
		case F_UUID_EQ:
			return true;
		default:
			return false;
	}
}

/*
 * An expression without the coercions that keep its key bytes: binary
 * relabelling (varchar as text, a domain as its base) and implicit casts
 * between integer types, which only widen and so keep the value.
 */
static Node *
strip_key_coercions(Node *node)
{
	for (;;)
	{
		if (node == NULL)
			return NULL;
		if (IsA(node, RelabelType))
			node = (Node *) ((RelabelType *) node)->arg;
		else if (IsA(node, FuncExpr) &&
				 ((FuncExpr *) node)->funcformat == COERCE_IMPLICIT_CAST &&
				 list_length(((FuncExpr *) node)->args) == 1 &&
				 key_family(((FuncExpr *) node)->funcresulttype) == FAMILY_INT &&
				 key_family(exprType(linitial(((FuncExpr *) node)->args))) == FAMILY_INT)
			node = (Node *) linitial(((FuncExpr *) node)->args);
		else
			return node;
	}
}

/*
 * Whether clause is "left = right" on key types, both sides (stripped) of
 * one family, text under one deterministic collation that both columns
 * have; *left and *right are the stripped sides.  Under a deterministic
 * collation character(n)'s "=" compares the bytes without trailing
 * spaces, the bytes bloom_key gives it.
 */
static bool
key_equality(Node *clause, Node **left, Node **right, Oid *collation)
{
	OpExpr	   *op;
	KeyFamily	family;

	if (!IsA(clause, OpExpr))
		return false;
	op = (OpExpr *) clause;
	if (list_length(op->args) != 2 || !is_key_equality(get_opcode(op->opno)))
		return false;
	*left = strip_key_coercions(linitial(op->args));
	*right = strip_key_coercions(lsecond(op->args));
	family = key_family(exprType(*left));
	if (family == FAMILY_NONE || family != key_family(exprType(*right)))
		return false;
	*collation = InvalidOid;
	if (family == FAMILY_TEXT || family == FAMILY_BPCHAR)
	{
		if (!OidIsValid(op->inputcollid) ||
			!get_collation_isdeterministic(op->inputcollid) ||
			exprCollation(*left) != op->inputcollid ||
			exprCollation(*right) != op->inputcollid)
			return false;
		*collation = op->inputcollid;
	}
	return true;
}

/* A plain column of the current query level (no system column). */
static bool
is_level0_column(Node *node)
{
	return node != NULL && IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varattno > 0;
}

/*
 * Whether the foreign table at rti is a postgres_fdw table whose server
 * lists this extension (so <~ runs remotely); also notes the server's
 * fdw_tuple_cost.
 */
static bool
is_probe(Rewrite *rw, Index rti)
{
	RangeTblEntry *rte;
	ForeignServer *server;
	ForeignDataWrapper *wrapper;
	char	   *handler;
	ListCell   *lc;
	bool		lists_us = false;

	if (rw->probe_kind[rti] != PROBE_UNKNOWN)
		return rw->probe_kind[rti] == PROBE_YES;
	rw->probe_kind[rti] = PROBE_NO;
	rte = rt_fetch(rti, rw->parse->rtable);
	if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_FOREIGN_TABLE ||
		rte->tablesample != NULL)
		return false;
	server = GetForeignServer(GetForeignTable(rte->relid)->serverid);
	wrapper = GetForeignDataWrapper(server->fdwid);
	handler = OidIsValid(wrapper->fdwhandler) ? get_func_name(wrapper->fdwhandler) : NULL;
	if (handler == NULL || strcmp(handler, "postgres_fdw_handler") != 0)
		return false;

	rw->fdw_tuple_cost[rti] = BLOOM_FDW_DEFAULT_TUPLE_COST;
	foreach(lc, server->options)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (strcmp(def->defname, "extensions") == 0)
		{
			List	   *names = NIL;
			ListCell   *ln;

			/* postgres_fdw's own syntax for the list: identifiers, commas */
			if (SplitIdentifierString(pstrdup(defGetString(def)), ',', &names))
				foreach(ln, names)
					if (strcmp((char *) lfirst(ln), "bloomfilter") == 0)
						lists_us = true;
		}
		else if (strcmp(def->defname, "fdw_tuple_cost") == 0)
			(void) parse_real(defGetString(def), &rw->fdw_tuple_cost[rti], 0, NULL);
	}
	if (lists_us)
		rw->probe_kind[rti] = PROBE_YES;
	return lists_us;
}

/*
 * Whether postgres_fdw sends a condition on this foreign column: it sends
 * none on a column of a domain (not a built-in type), and the filter
 * would then run locally, after every row had crossed.
 */
static bool
is_shippable_key(Node *column)
{
	Oid			type = exprType(column);

	return getBaseType(type) == type;
}

/*
 * A local table the other side of a filter may be: its filter is built by
 * reading it again, which a foreign table would make a second trip for.
 */
static bool
is_local_relation(RangeTblEntry *rte)
{
	return rte->rtekind == RTE_RELATION && rte->tablesample == NULL &&
		(rte->relkind == RELKIND_RELATION ||
		 rte->relkind == RELKIND_PARTITIONED_TABLE ||
		 rte->relkind == RELKIND_MATVIEW);
}

/*
 * The relations reached from node through inner joins only, and their
 * conditions.  An outer join's sides are not followed: its preserved side
 * keeps rows that match nothing, and conditions in its ON do not drop rows.
 */
static void
collect_inner_joins(Rewrite *rw, Node *node)
{
	if (node == NULL)
		return;
	if (IsA(node, RangeTblRef))
		rw->inner_rtis = lappend_int(rw->inner_rtis, ((RangeTblRef *) node)->rtindex);
	else if (IsA(node, FromExpr))
	{
		FromExpr   *from = (FromExpr *) node;
		ListCell   *lc;

		foreach(lc, from->fromlist)
			collect_inner_joins(rw, (Node *) lfirst(lc));
		rw->conjuncts = list_concat(rw->conjuncts,
									make_ands_implicit((Expr *) from->quals));
	}
	else if (IsA(node, JoinExpr) && ((JoinExpr *) node)->jointype == JOIN_INNER)
	{
		JoinExpr   *join = (JoinExpr *) node;

		collect_inner_joins(rw, join->larg);
		collect_inner_joins(rw, join->rarg);
		rw->conjuncts = list_concat(rw->conjuncts,
									make_ands_implicit((Expr *) join->quals));
	}
}

/*
 * Whether a condition may be run again in the filter's own query: it
 * reads only relation rti of this level and nothing outside it, has no
 * subquery, and gives the same answer each time it runs.
 */
static bool
reads_other_relations_walker(Node *node, void *rti)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink) || IsA(node, PlaceHolderVar) || IsA(node, Aggref) ||
		IsA(node, GroupingFunc) || IsA(node, WindowFunc) ||
		IsA(node, CurrentOfExpr) || IsA(node, Query))
		return true;
	if (IsA(node, Param))
		return ((Param *) node)->paramkind != PARAM_EXTERN;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup != 0 ||
			(Index) ((Var *) node)->varno != *(Index *) rti;
	return expression_tree_walker(node, reads_other_relations_walker, rti);
}

/*
 * Whether an expression reads a column, of any level, or the value a CASE
 * or an array coercion tests (which may be one).
 */
static bool
reads_column_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, CaseTestExpr))
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_column_walker, context, 0);
	return expression_tree_walker(node, reads_column_walker, context);
}

static bool
not_leakproof(Oid func, void *context)
{
	(void) context;
	return !get_func_leakproof(func);
}

static bool may_fail_on_row_walker(Node *node, void *levels);

/*
 * Whether relid has a column computed where it is read.  The query being
 * planned holds a lock on it.
 */
static bool
has_virtual_column(Oid relid)
{
	Relation	rel = RelationIdGetRelation(relid);
	bool		found;

	if (!RelationIsValid(rel))
		return true;
	found = bloom_relation_has_virtual_column(rel);
	RelationClose(rel);
	return found;
}

/*
 * Whether a column read may fail on a row: one computed where it is read
 * (18's virtual generated column, which divides as its expression does,
 * though it reads as a plain column), a whole row holding one, or a join's
 * column made of such.  levels: the queries the walk is in, innermost
 * first; a column of a level it cannot see may be anything.
 */
static bool
column_may_fail(Var *var, List *levels)
{
	Query	   *query;
	RangeTblEntry *rte;

	if ((int) var->varlevelsup >= list_length(levels))
		return true;
	query = (Query *) list_nth(levels, var->varlevelsup);
	if ((int) var->varno < 1 || (int) var->varno > list_length(query->rtable))
		return true;
	rte = rt_fetch(var->varno, query->rtable);
	if (rte->rtekind == RTE_RELATION)
		return var->varattno == 0 ? has_virtual_column(rte->relid) :
			var->varattno > 0 && bloom_column_is_virtual(rte->relid, var->varattno);
	if (rte->rtekind == RTE_JOIN)
	{
		List	   *join_levels;
		bool		found;

		if (var->varattno <= 0 || var->varattno > list_length(rte->joinaliasvars))
			return true;		/* a join's whole row: read column by column */
		/* the alias is an expression of the join's own level */
		join_levels = list_copy_tail(levels, var->varlevelsup);
		found = may_fail_on_row_walker((Node *) list_nth(rte->joinaliasvars,
														  var->varattno - 1),
									   &join_levels);
		list_free(join_levels);
		return found;
	}
	/* a subquery's, a WITH query's or a function's: walked where it is made */
	return false;
}

/*
 * Whether an expression (or a query, at any level) may fail on some row:
 * a function or operator that PostgreSQL does not know to be leakproof
 * (division, a cast from text, which raise errors on some values) applied
 * to a column, a domain's check, or a node not known to be safe.  The
 * filter's input reads rows the join may never read: the join reads the
 * other side under conditions it derives from the foreign side's (e.k =
 * 5 gives v.k = 5, checked first), and a condition left out of the filter
 * only makes it hold more keys, where failing there would fail the query.
 */
static bool
may_fail_on_row_walker(Node *node, void *levels)
{
	List	  **stack = (List **) levels;
	bool		found;

	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Query:
			*stack = lcons(node, *stack);
			found = query_tree_walker((Query *) node, may_fail_on_row_walker, levels,
									  QTW_IGNORE_JOINALIASES);
			*stack = list_delete_first(*stack);
			return found;
		case T_Var:
			if (column_may_fail((Var *) node, *stack))
				return true;
			break;
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_RowCompareExpr:
			if (check_functions_in_node(node, not_leakproof, NULL) &&
				reads_column_walker(node, NULL))
				return true;
			break;
		case T_CoerceToDomain:
			if (reads_column_walker(node, NULL))
				return true;
			break;
		case T_Aggref:
			/* count, min, max, and sums of integers (order_free_aggregate) */
		case T_Const:
		case T_Param:
		case T_GroupingFunc:
		case T_BoolExpr:
		case T_RelabelType:
		case T_CollateExpr:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CaseTestExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_RowExpr:
		case T_ArrayExpr:
		case T_SQLValueFunction:
		case T_SubLink:
		case T_CommonTableExpr:
		case T_List:
		case T_TargetEntry:
		case T_FromExpr:
		case T_JoinExpr:
		case T_RangeTblRef:
		case T_RangeTblFunction:
		case T_SetOperationStmt:
		case T_SortGroupClause:
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, may_fail_on_row_walker, levels);
}

/* may_fail_on_row_walker of an expression of query (NULL: node is a Query). */
static bool
may_fail_on_row(Node *node, Query *query)
{
	List	   *levels = query != NULL ? list_make1(query) : NIL;
	bool		found = may_fail_on_row_walker(node, &levels);

	list_free(levels);
	return found;
}

/* Whether a condition of query on the relation at rti may fill a filter. */
static bool
repeatable_condition_of(Query *query, Node *clause, Index rti)
{
	return !reads_other_relations_walker(clause, &rti) &&
		!contain_volatile_functions(clause) &&
		!may_fail_on_row(clause, query);
}

/*
 * Whether values of a type that its "=" finds equal are always the same
 * value: then whichever of several equal values a GROUP BY, DISTINCT,
 * UNION, min or max keeps, what the query does with it next is the same.
 * Not so for numeric (1.0 = 1.00, which print differently), floats (0 =
 * -0), interval, character(n), case-insensitive types and nondeterministic
 * collations: there the value kept depends on the order the rows come in,
 * which may differ when the query runs again.
 */
static bool
equal_means_same(Oid type, Oid collation)
{
	switch (getBaseType(type))
	{
		case BOOLOID:
		case CHAROID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case UUIDOID:
		case BYTEAOID:
			return true;
		case TEXTOID:
		case VARCHAROID:
		case NAMEOID:
			return OidIsValid(collation) && get_collation_isdeterministic(collation);
		default:
			return false;
	}
}

/*
 * Whether every output column of a set operation that matches rows is such
 * a type: all but UNION ALL do, INTERSECT ALL and EXCEPT ALL too (each
 * row they return is the first of its equal rows).
 */
static bool
set_operation_keeps_same(Node *node)
{
	SetOperationStmt *op;
	ListCell   *lt;
	ListCell   *lc;

	if (node == NULL || !IsA(node, SetOperationStmt))
		return true;			/* a RangeTblRef: a branch */
	op = (SetOperationStmt *) node;
	if (!op->all || op->op != SETOP_UNION)
		forboth(lt, op->colTypes, lc, op->colCollations)
		{
			if (!equal_means_same(lfirst_oid(lt), lfirst_oid(lc)))
				return false;
		}
	return set_operation_keeps_same(op->larg) && set_operation_keeps_same(op->rarg);
}

/* Whether the columns of a GROUP BY or DISTINCT are all such types. */
static bool
grouping_keeps_same(List *clauses, List *targetList)
{
	ListCell   *lc;

	foreach(lc, clauses)
	{
		Node	   *expr = get_sortgroupclause_expr((SortGroupClause *) lfirst(lc),
													targetList);

		if (!equal_means_same(exprType(expr), exprCollation(expr)))
			return false;
	}
	return true;
}

/*
 * Whether an aggregate's value is the same in whatever order its rows
 * come: count; min, max and the logical and bitwise aggregates of a type
 * whose equal values are the same; sum and avg of integers and numeric,
 * which add exactly.  Not string_agg, array_agg or a float's sum.
 */
static bool
order_free_aggregate(Aggref *aggref)
{
	char	   *name;
	Oid			arg;
	bool		result = false;

	if (aggref->aggkind != AGGKIND_NORMAL ||
		get_func_namespace(aggref->aggfnoid) != PG_CATALOG_NAMESPACE)
		return false;
	name = get_func_name(aggref->aggfnoid);
	arg = list_length(aggref->aggargtypes) == 1 ?
		linitial_oid(aggref->aggargtypes) : InvalidOid;
	if (strcmp(name, "count") == 0)
		result = true;
	else if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0 ||
			 strcmp(name, "bool_and") == 0 || strcmp(name, "bool_or") == 0 ||
			 strcmp(name, "every") == 0 || strcmp(name, "bit_and") == 0 ||
			 strcmp(name, "bit_or") == 0 || strcmp(name, "bit_xor") == 0)
		result = OidIsValid(arg) && equal_means_same(arg, aggref->inputcollid);
	else if (strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0)
		result = arg == INT2OID || arg == INT4OID || arg == INT8OID || arg == NUMERICOID;
	pfree(name);
	return result;
}

/*
 * Whether a subquery could give other rows when run a second time in the
 * same statement, where the rows may come in another order (a parallel
 * plan, a synchronized scan): a LIMIT or OFFSET (without an order it picks
 * any rows), TABLESAMPLE, row locks, a statement that writes, window
 * functions (which number or compare the rows in the order they come) and
 * DISTINCT ON (which keeps the first row of each group), a grouping or
 * aggregate whose value depends on which of several equal values it keeps
 * or on the order of its rows.  Volatile functions are
 * contain_volatile_functions's to find.
 */
static bool
unrepeatable_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;

		if (query->commandType != CMD_SELECT || query->limitCount != NULL ||
			query->limitOffset != NULL || query->rowMarks != NIL ||
			query->hasModifyingCTE || query->hasWindowFuncs || query->hasDistinctOn ||
			!grouping_keeps_same(query->groupClause, query->targetList) ||
			!grouping_keeps_same(query->distinctClause, query->targetList) ||
			!set_operation_keeps_same(query->setOperations))
			return true;
		return query_tree_walker(query, unrepeatable_walker, context,
								 QTW_EXAMINE_RTES_BEFORE);
	}
	if (IsA(node, RangeTblEntry))
		return ((RangeTblEntry *) node)->tablesample != NULL;
	if (IsA(node, Aggref) && !order_free_aggregate((Aggref *) node))
		return true;
	return expression_tree_walker(node, unrepeatable_walker, context);
}

/* Whether a query reads a foreign table, at any level. */
static bool
reads_foreign_table_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
		return ((RangeTblEntry *) node)->rtekind == RTE_RELATION &&
			((RangeTblEntry *) node)->relkind == RELKIND_FOREIGN_TABLE;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_foreign_table_walker, context,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, reads_foreign_table_walker, context);
}

/* Whether a query, or conditions of one, give the same rows when run again. */
static bool
repeatable(Node *node)
{
	return !unrepeatable_walker(node, NULL) && !contain_volatile_functions(node);
}

/*
 * Whether a query refers to a level above it (a column, an aggregate or
 * a WITH query of an outer query): *depth is the level being walked, from
 * the query at 0.  The filter's own query puts the subquery one level
 * deeper, where such a reference would name another level (a subquery in
 * FROM of a LATERAL subquery may read the query two levels up).
 */
static bool
reads_outer_level_walker(Node *node, void *depth)
{
	int			level = *(int *) depth;
	bool		found;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return (int) ((Var *) node)->varlevelsup > level;
	if (IsA(node, PlaceHolderVar))
		return (int) ((PlaceHolderVar *) node)->phlevelsup > level;
	if (IsA(node, Aggref) && (int) ((Aggref *) node)->agglevelsup > level)
		return true;
	if (IsA(node, GroupingFunc) && (int) ((GroupingFunc *) node)->agglevelsup > level)
		return true;
	if (IsA(node, RangeTblEntry))
		return ((RangeTblEntry *) node)->rtekind == RTE_CTE &&
			(int) ((RangeTblEntry *) node)->ctelevelsup > level;
	if (IsA(node, Query))
	{
		(*(int *) depth)++;
		found = query_tree_walker((Query *) node, reads_outer_level_walker, depth,
								  QTW_EXAMINE_RTES_BEFORE);
		(*(int *) depth)--;
		return found;
	}
	return expression_tree_walker(node, reads_outer_level_walker, depth);
}

/*
 * Whether a subquery of the query (in FROM, or IN's) may be read again, as
 * it stands, in the filter's own query: it refers to nothing outside it
 * (no column or WITH query of any level above), gives the same rows when
 * run again and reads no foreign table (which running it again would
 * fetch again).
 */
static bool
rereadable_subquery(Query *sub)
{
	int			depth = -1;

	return repeatable((Node *) sub) &&
		!may_fail_on_row((Node *) sub, NULL) &&
		!reads_foreign_table_walker((Node *) sub, NULL) &&
		!reads_outer_level_walker((Node *) sub, &depth);
}

/* The filter for the pair (probe_rti, build), or a new one. */
static JoinFilter *
filter_for(Rewrite *rw, Index probe_rti, Query *build)
{
	JoinFilter *filter = (JoinFilter *) palloc0(sizeof(JoinFilter));

	filter->probe_rti = probe_rti;
	filter->build = build;
	rw->filters = lappend(rw->filters, filter);
	return filter;
}

/*
 * Adds a key pair to filter; the build key's column (attnum) counts its
 * keys.  bloom_key takes one collation for all its text, so a pair under
 * another collation than the filter's first text pair is left out (the
 * filter then holds more keys, never fewer).
 */
static void
add_key(JoinFilter *filter, Node *probe_key, Node *build_key, Oid collation,
		AttrNumber attnum)
{
	if (OidIsValid(collation) && OidIsValid(filter->collation) &&
		collation != filter->collation)
		return;
	if (OidIsValid(collation))
		filter->collation = collation;
	filter->probe_keys = lappend(filter->probe_keys, probe_key);
	filter->build_keys = lappend(filter->build_keys, build_key);
	filter->build_attnums = lappend_int(filter->build_attnums, attnum);
}

/* "SELECT FROM rte", rte at index 1 and the only entry; no target list yet. */
static Query *
one_entry_query(RangeTblEntry *rte)
{
	Query	   *query = makeNode(Query);
	RangeTblRef *ref = makeNode(RangeTblRef);

	query->commandType = CMD_SELECT;
	query->querySource = QSRC_ORIGINAL;
	query->canSetTag = true;
	query->rtable = list_make1(rte);
	ref->rtindex = 1;
	query->jointree = makeFromExpr(list_make1(ref), NULL);
	return query;
}

/*
 * A new query "SELECT FROM <relation rti of parse> WHERE <conditions of
 * it>", its relation (a table, or a subquery) at index 1: the other side
 * of a join in the FROM clause, as its keys' filter reads it.
 */
static Query *
relation_query(Rewrite *rw, Index rti)
{
	RangeTblEntry *rte = copyObject(rt_fetch(rti, rw->parse->rtable));
	Query	   *query = one_entry_query(rte);
	List	   *conditions = NIL;
	ListCell   *lc;

	bloom_rte_take_permissions(rw->parse, rte, query);
	/* row-level security's conditions on the relation come along, subqueries too */
	ChangeVarNodes((Node *) rte->securityQuals, rti, 1, 0);
	query->hasSubLinks = checkExprHasSubLink((Node *) rte->securityQuals);
	foreach(lc, rw->conjuncts)
	{
		Node	   *clause = (Node *) lfirst(lc);

		if (repeatable_condition_of(rw->parse, clause, rti))
		{
			clause = copyObject(clause);
			ChangeVarNodes(clause, rti, 1, 0);
			conditions = lappend(conditions, clause);
		}
	}
	query->jointree->quals = (Node *) make_ands_explicit(conditions);
	return query;
}

/* A column of rti as the filter's query (rti at index 1) reads it. */
static Node *
as_build_column(Node *column, Index rti)
{
	Node	   *copy = copyObject(column);

	ChangeVarNodes(copy, rti, 1, 0);
	return copy;
}

/*
 * Where a subquery's column comes from, for the statistics of its keys: a
 * plain column of a relation of the subquery's own FROM, or of a subquery
 * there (a view), followed down; not of a UNION's, whose other branches
 * have keys of their own.
 */
static bool
column_source(Query *query, Node *column, Oid *relid, AttrNumber *attnum,
			  bool *inh)
{
	RangeTblEntry *rte;
	Node	   *grouped;

	check_stack_depth();
	column = strip_key_coercions(column);
	if (!is_level0_column(column) || query->setOperations != NULL)
		return false;
	rte = rt_fetch(((Var *) column)->varno, query->rtable);
	grouped = bloom_rte_grouped_expr(rte, ((Var *) column)->varattno);
	if (grouped != NULL)
		return column_source(query, grouped, relid, attnum, inh);
	if (rte->rtekind == RTE_SUBQUERY && rte->subquery != NULL)
	{
		TargetEntry *tle = get_tle_by_resno(rte->subquery->targetList,
											((Var *) column)->varattno);

		return tle != NULL && !tle->resjunk &&
			column_source(rte->subquery, (Node *) tle->expr, relid, attnum, inh);
	}
	/* a column computed where it is read may fail on a row the join skips */
	if (!is_local_relation(rte) ||
		bloom_column_is_virtual(rte->relid, ((Var *) column)->varattno))
		return false;
	*relid = rte->relid;
	*attnum = ((Var *) column)->varattno;
	*inh = rte->inh;
	return true;
}

/*
 * Whether the row-level security conditions on rte, an entry of query,
 * may come along into the filter's input: they keep the same rows when
 * run again and cannot fail on a row the join never reads.
 */
static bool
policies_may_come_along(RangeTblEntry *rte, Query *query)
{
	return repeatable((Node *) rte->securityQuals) &&
		!may_fail_on_row((Node *) rte->securityQuals, query);
}

/*
 * Whether the other side's key column may fill a filter, and where it
 * comes from, for its statistics: a column of a local table whose
 * row-level security keeps the same rows when run again and cannot fail
 * on a row (not a policy calling a volatile function, or dividing by a
 * column), or a plain output column of a subquery in FROM (a view) that
 * may be read again.
 */
static bool
build_column_source(Rewrite *rw, Var *column, Oid *relid, AttrNumber *attnum,
					bool *inh)
{
	RangeTblEntry *rte = rt_fetch(column->varno, rw->parse->rtable);

	if (rte->rtekind == RTE_SUBQUERY &&
		(rte->subquery == NULL || rte->lateral || !rereadable_subquery(rte->subquery)))
		return false;
	if (!policies_may_come_along(rte, rw->parse))
		return false;
	return column_source(rw->parse, (Node *) column, relid, attnum, inh);
}

/*
 * FROM a JOIN b ON a.k = b.k, FROM a, b WHERE a.k = b.k, USING (k); b a
 * local table or a subquery (a view).
 */
static void
find_inner_join_filters(Rewrite *rw)
{
	ListCell   *lc;

	foreach(lc, rw->conjuncts)
	{
		Node	   *left;
		Node	   *right;
		Oid			collation;
		int			side;

		if (!key_equality((Node *) lfirst(lc), &left, &right, &collation) ||
			!is_level0_column(left) || !is_level0_column(right) ||
			((Var *) left)->varno == ((Var *) right)->varno ||
			!list_member_int(rw->inner_rtis, ((Var *) left)->varno) ||
			!list_member_int(rw->inner_rtis, ((Var *) right)->varno))
			continue;

		for (side = 0; side < 2; side++)
		{
			Var		   *probe = (Var *) (side == 0 ? left : right);
			Var		   *build = (Var *) (side == 0 ? right : left);
			JoinFilter *filter = NULL;
			ListCell   *lf;
			Oid			relid;
			AttrNumber	attnum;
			bool		inh;

			if (!is_probe(rw, probe->varno) || !is_shippable_key((Node *) probe) ||
				!build_column_source(rw, build, &relid, &attnum, &inh))
				continue;
			foreach(lf, rw->filters)
			{
				JoinFilter *f = (JoinFilter *) lfirst(lf);

				if (f->probe_rti == (Index) probe->varno && f->build_rti == (Index) build->varno)
					filter = f;
			}
			if (filter == NULL)
			{
				filter = filter_for(rw, probe->varno, relation_query(rw, build->varno));
				filter->build_rti = build->varno;
				filter->build_relid = relid;
				filter->build_inh = inh;
			}
			/* the statistics count keys of one relation: another's is left out */
			else if (relid != filter->build_relid)
				continue;
			add_key(filter, (Node *) probe, as_build_column((Node *) build, build->varno),
					collation, attnum);
		}
	}
}

/*
 * WHERE f.k IN (SELECT x FROM ...): the filter reads the subquery as it
 * stands, "SELECT bloom_agg(x, bits) FROM (SELECT x FROM ...) keys", when
 * it may be read again (rereadable_subquery).
 */
static void
find_in_filter(Rewrite *rw, SubLink *sublink)
{
	Query	   *sub = (Query *) sublink->subselect;
	Node	   *probe;
	Node	   *param;
	Oid			collation;
	TargetEntry *tle;
	Query	   *build;
	RangeTblEntry *rte;
	List	   *colnames = NIL;
	ListCell   *lc;
	JoinFilter *filter;
	Oid			relid;
	AttrNumber	attnum;
	bool		inh;
	Var		   *key;

	if (sublink->subLinkType != ANY_SUBLINK || sublink->testexpr == NULL ||
		!key_equality(sublink->testexpr, &probe, &param, &collation))
		return;
	if (!IsA(param, Param))
	{
		Node	   *swap = probe;

		probe = param;
		param = swap;
	}
	if (!is_level0_column(probe) || !IsA(param, Param) ||
		((Param *) param)->paramkind != PARAM_SUBLINK ||
		((Param *) param)->paramid != 1 ||
		!list_member_int(rw->inner_rtis, ((Var *) probe)->varno) ||
		!is_probe(rw, ((Var *) probe)->varno) || !is_shippable_key(probe))
		return;
	if (!rereadable_subquery(sub))
		return;
	tle = (TargetEntry *) linitial(sub->targetList);
	if (tle->resjunk || !column_source(sub, (Node *) tle->expr, &relid, &attnum, &inh))
		return;

	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = copyObject(sub);
	rte->inFromCl = true;
	foreach(lc, sub->targetList)
		if (!((TargetEntry *) lfirst(lc))->resjunk)
			colnames = lappend(colnames,
							   makeString(pstrdup(((TargetEntry *) lfirst(lc))->resname ?
												  ((TargetEntry *) lfirst(lc))->resname : "key")));
	rte->eref = makeAlias("join_filter_keys", colnames);
	build = one_entry_query(rte);
	key = makeVar(1, tle->resno, exprType((Node *) tle->expr),
				  exprTypmod((Node *) tle->expr), exprCollation((Node *) tle->expr), 0);

	filter = filter_for(rw, ((Var *) probe)->varno, build);
	filter->build_relid = relid;
	filter->build_inh = inh;
	add_key(filter, probe, (Node *) key, collation, attnum);
}

/*
 * WHERE EXISTS (SELECT ... FROM o WHERE o.k = f.k AND ...): the filter
 * reads "SELECT bloom_agg(o.k, bits) FROM o WHERE <the conditions that
 * refer to o only>", for a subquery of one relation that neither groups
 * nor limits.
 */
static void
find_exists_filter(Rewrite *rw, SubLink *sublink)
{
	Query	   *sub = (Query *) sublink->subselect;
	RangeTblRef *ref;
	RangeTblEntry *rte;
	Query	   *build;
	List	   *kept = NIL;
	JoinFilter *filter = NULL;
	ListCell   *lc;

	if (sublink->subLinkType != EXISTS_SUBLINK || sub->commandType != CMD_SELECT ||
		sub->setOperations != NULL || sub->groupClause != NIL ||
		sub->groupingSets != NIL || sub->havingQual != NULL || sub->hasAggs ||
		sub->hasWindowFuncs || sub->hasTargetSRFs || sub->cteList != NIL ||
		!repeatable((Node *) sub) || sub->jointree == NULL ||
		list_length(sub->jointree->fromlist) != 1 ||
		!IsA(linitial(sub->jointree->fromlist), RangeTblRef))
		return;
	ref = (RangeTblRef *) linitial(sub->jointree->fromlist);
	rte = rt_fetch(ref->rtindex, sub->rtable);
	if (!is_local_relation(rte) || !policies_may_come_along(rte, sub))
		return;

	build = copyObject(sub);
	foreach(lc, make_ands_implicit((Expr *) build->jointree->quals))
	{
		Node	   *clause = (Node *) lfirst(lc);
		Node	   *left;
		Node	   *right;
		Oid			collation;
		int			side;
		bool		used = false;

		for (side = 0; side < 2 && !used; side++)
		{
			Node	   *inner;
			Node	   *outer;
			Var		   *probe;

			if (!key_equality(clause, &left, &right, &collation))
				break;
			inner = side == 0 ? left : right;
			outer = side == 0 ? right : left;
			if (!is_level0_column(inner) || (Index) ((Var *) inner)->varno != (Index) ref->rtindex ||
				bloom_column_is_virtual(rte->relid, ((Var *) inner)->varattno) ||
				!IsA(outer, Var) || ((Var *) outer)->varlevelsup != 1 ||
				((Var *) outer)->varattno <= 0 ||
				!list_member_int(rw->inner_rtis, ((Var *) outer)->varno) ||
				!is_probe(rw, ((Var *) outer)->varno) || !is_shippable_key(outer))
				continue;
			if (filter != NULL && filter->probe_rti != (Index) ((Var *) outer)->varno)
				continue;
			if (filter == NULL)
			{
				filter = filter_for(rw, ((Var *) outer)->varno, build);
				filter->build_relid = rte->relid;
				filter->build_inh = rte->inh;
			}
			probe = copyObject((Var *) outer);
			probe->varlevelsup = 0;
			add_key(filter, (Node *) probe, inner, collation, ((Var *) inner)->varattno);
			used = true;
		}
		if (!used && repeatable_condition_of(build, clause, ref->rtindex))
			kept = lappend(kept, clause);
	}
	if (filter == NULL)
		return;
	build->jointree->quals = (Node *) make_ands_explicit(kept);
	build->distinctClause = NIL;
	build->hasDistinctOn = false;
	build->sortClause = NIL;
	build->windowClause = NIL;
	/* kept has none; row-level security's conditions on the relation may */
	build->hasSubLinks = checkExprHasSubLink((Node *) rte->securityQuals);
}

/*
 * The key an expression list makes: one column as itself, several (or a
 * character(n), which only bloom_key takes) as bloom_key.
 */
static Node *
key_expression(List *keys, Oid collation, const BloomObjects *objects, Oid *type)
{
	Node	   *key;

	if (list_length(keys) > 1 ||
		key_family(exprType((Node *) linitial(keys))) == FAMILY_BPCHAR)
	{
		Oid			any = ANYOID;
		Oid			fn = LookupFuncName(list_make2(makeString(objects->schema),
												   makeString("bloom_key")),
										1, &any, true);

		if (!OidIsValid(fn))
			return NULL;
		*type = BYTEAOID;
		return (Node *) makeFuncExpr(fn, BYTEAOID, keys, InvalidOid, collation,
									 COERCE_EXPLICIT_CALL);
	}
	key = (Node *) linitial(keys);
	*type = getBaseType(exprType(key));
	if (*type == VARCHAROID)
		*type = TEXTOID;
	if (exprType(key) != *type)
		key = (Node *) makeRelabelType((Expr *) key, *type, -1, exprCollation(key),
									   COERCE_IMPLICIT_CAST);
	return key;
}

/*
 * "probe key <~ (SELECT bloom_agg(build key, bits) FROM ...)", or NULL
 * where the extension lacks the objects.
 */
static Node *
filter_condition(JoinFilter *filter, const BloomObjects *objects)
{
	Oid			probe_type;
	Oid			build_type;
	Node	   *probe = key_expression(filter->probe_keys, filter->collation, objects, &probe_type);
	Node	   *build = key_expression(filter->build_keys, filter->collation, objects, &build_type);
	Oid			agg_args[2];
	Oid			agg_fn;
	Oid			op;
	Aggref	   *agg;
	SubLink    *sublink;
	OpExpr	   *condition;
	Oid			probe_collation = probe_type == TEXTOID ? filter->collation : InvalidOid;

	if (probe == NULL || build == NULL)
		return NULL;
	agg_args[0] = build_type;
	agg_args[1] = INT4OID;
	agg_fn = LookupFuncName(list_make2(makeString(objects->schema), makeString("bloom_agg")),
							2, agg_args, true);
	op = OpernameGetOprid(list_make2(makeString(objects->schema), makeString("<~")),
						  probe_type, objects->filter_type);
	if (!OidIsValid(agg_fn) || !OidIsValid(op))
		return NULL;

	agg = makeNode(Aggref);
	agg->aggfnoid = agg_fn;
	agg->aggtype = objects->filter_type;
	agg->inputcollid = build_type == TEXTOID ? filter->collation : InvalidOid;
	agg->aggargtypes = list_make2_oid(build_type, INT4OID);
	agg->args = list_make2(makeTargetEntry((Expr *) build, 1, NULL, false),
						   makeTargetEntry((Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
															  Int32GetDatum(filter->bits_per_key),
															  false, true),
										   2, NULL, false));
	agg->aggkind = AGGKIND_NORMAL;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->location = -1;
	bloom_aggref_unnumbered(agg);

	filter->build->targetList = list_make1(makeTargetEntry((Expr *) agg, 1,
														   pstrdup("bloom_agg"), false));
	filter->build->hasAggs = true;

	sublink = makeNode(SubLink);
	sublink->subLinkType = EXPR_SUBLINK;
	sublink->subselect = (Node *) filter->build;
	sublink->location = -1;

	condition = (OpExpr *) make_opclause(op, BOOLOID, false, (Expr *) probe, (Expr *) sublink,
										 InvalidOid, probe_collation);
	condition->opfuncid = get_opcode(op);
	return (Node *) condition;
}

/* The schema extension is in (get_extension_schema, not exported before 16). */
static Oid
extension_schema(Oid extension)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			schema = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extension));
	rel = table_open(ExtensionRelationId, AccessShareLock);
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		schema = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return schema;
}

static bool
find_objects(BloomObjects *objects)
{
	Oid			extension = get_extension_oid("bloomfilter", true);
	Oid			schema;

	if (!OidIsValid(extension))
		return false;
	schema = extension_schema(extension);
	objects->schema = OidIsValid(schema) ? get_namespace_name(schema) : NULL;
	if (objects->schema == NULL)
		return false;
	objects->filter_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
										   CStringGetDatum("bloomfilter"),
										   ObjectIdGetDatum(schema));
	return OidIsValid(objects->filter_type);
}

/*
 * The build side of filter as its conditions leave it: the rows and the
 * cost PostgreSQL plans for the filter's input (a copy: the planner
 * writes on its query), its keys scaled from the whole table's.  The
 * hooks are not called: the plan is only read.
 */
static BloomJoinSide
restricted_build_side(JoinFilter *filter, BloomJoinSide whole, ParamListInfo params)
{
	Query	   *input = copyObject(filter->build);
	Plan	   *plan = NULL;

	estimating = true;
	PG_TRY();
	{
		plan = bloom_standard_planner(input, 0, params)->planTree;
	}
	PG_FINALLY();
	{
		estimating = false;
	}
	PG_END_TRY();
	return bloom_join_side_restricted(whole, plan->plan_rows, plan->total_cost);
}

/*
 * Whether text keys may be filtered for the foreign table at rti: its
 * server's database has this one's encoding, so that a key is the same
 * bytes in the filter and at the remote probe (bloom_fdw_encoding.c).
 */
static bool
remote_encoding_is_ours(Query *parse, Index rti)
{
	RangeTblEntry *rte = rt_fetch(rti, parse->rtable);

	return bloom_fdw_same_encoding(GetForeignTable(rte->relid)->serverid,
								   bloom_rte_user(parse, rte));
}

/*
 * Adds to parse, and to the queries in its FROM and WITH, the filters that
 * pay, the best one for each foreign table.
 */
static void
add_join_filters(Query *parse, ParamListInfo params)
{
	Rewrite		rw;
	int			nrels = list_length(parse->rtable);
	ListCell   *lc;
	BloomObjects objects;
	bool		any_probe = false;
	Index		rti;

	if (parse->commandType != CMD_SELECT || parse->rowMarks != NIL ||
		parse->jointree == NULL || nrels < 1)
		return;

	/*
	 * Each query level is a query of its own: a subquery in FROM (a view,
	 * a branch of UNION) and a WITH query get their filters from their own
	 * joins.  A recursive WITH is left as it is.
	 */
	check_stack_depth();
	foreach(lc, parse->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY && rte->subquery != NULL)
			add_join_filters(rte->subquery, params);
	}
	if (!parse->hasRecursive)
		foreach(lc, parse->cteList)
		{
			CommonTableExpr *cte = (CommonTableExpr *) lfirst(lc);

			if (IsA(cte->ctequery, Query))
				add_join_filters((Query *) cte->ctequery, params);
		}

	memset(&rw, 0, sizeof(rw));
	rw.parse = parse;
	rw.probe_kind = (ProbeKind *) palloc0((nrels + 1) * sizeof(ProbeKind));
	rw.fdw_tuple_cost = (double *) palloc0((nrels + 1) * sizeof(double));
	for (rti = 1; rti <= (Index) nrels; rti++)
		any_probe |= is_probe(&rw, rti);
	if (!any_probe || !find_objects(&objects))
		return;

	collect_inner_joins(&rw, (Node *) parse->jointree);
	find_inner_join_filters(&rw);
	foreach(lc, rw.conjuncts)
	{
		Node	   *clause = (Node *) lfirst(lc);

		if (IsA(clause, SubLink) && ((SubLink *) clause)->subLinkType == ANY_SUBLINK)
			find_in_filter(&rw, (SubLink *) clause);
		else if (IsA(clause, SubLink))
			find_exists_filter(&rw, (SubLink *) clause);
	}

	for (rti = 1; rti <= (Index) nrels; rti++)
	{
		JoinFilter *best = NULL;
		Node	   *condition;

		foreach(lc, rw.filters)
		{
			JoinFilter *filter = (JoinFilter *) lfirst(lc);
			BloomJoinSide probe;
			BloomJoinSide build;
			List	   *probe_attnums;
			ListCell   *lk;

			if (filter->probe_rti != rti)
				continue;
			/* where the remote encoding cannot be learnt, text keys get none */
			if (OidIsValid(filter->collation) && !bloom_fdw_encoding_knowable())
				continue;
			probe_attnums = NIL;
			foreach(lk, filter->probe_keys)
				probe_attnums = lappend_int(probe_attnums, ((Var *) lfirst(lk))->varattno);
			probe = bloom_join_side(rt_fetch(rti, parse->rtable)->relid, probe_attnums, false);
			build = bloom_join_side(filter->build_relid, filter->build_attnums,
									filter->build_inh);
			/* planning the input is worth it only where the figures are known */
			if (probe.rows > 0.0 && probe.distinct > 0.0 && build.distinct >= 0.0)
				build = restricted_build_side(filter, build, params);
			if (bloom_join_filter_pays(probe, build, rw.fdw_tuple_cost[rti],
									   &filter->bits_per_key, &filter->pass) &&
				(best == NULL || filter->pass < best->pass) &&
				(!OidIsValid(filter->collation) || remote_encoding_is_ours(parse, rti)))
				best = filter;
		}
		if (best == NULL)
			continue;
		condition = filter_condition(best, &objects);
		if (condition == NULL)
			continue;
		parse->jointree->quals = make_and_qual(parse->jointree->quals, condition);
		parse->hasSubLinks = true;
	}
}

static PlannedStmt *
bloom_join_filter_planner(BLOOM_PLANNER_PARAMS)
{
	if (bloom_join_filter && !estimating)
		add_join_filters(parse, boundParams);
	if (prev_planner_hook)
		return prev_planner_hook(BLOOM_PLANNER_ARGS);
	return standard_planner(BLOOM_PLANNER_ARGS);
}

void
bloom_join_filter_install(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = bloom_join_filter_planner;
}
