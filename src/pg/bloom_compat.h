/*
 * bloom_compat.h
 *		Every difference between the PostgreSQL majors the glue builds
 *		against (13 to 19), and only those, in one place.
 *
 * Include after postgres.h (bloom_pg.h does).  Each block names the major
 * that changed, so that it can go when that major is the oldest supported.
 */
#ifndef BLOOM_COMPAT_H
#define BLOOM_COMPAT_H

#if PG_VERSION_NUM < 130000
#error "bloomfilter needs PostgreSQL 13 or later"
#endif

/* 16 moved the varlena macros (VARSIZE, SET_VARSIZE, ...) out of postgres.h. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 18 replaced the trailing pg_attribute_noreturn() with a leading
 * pg_noreturn.  Before 18 the attribute may lead a declaration as well, so
 * declarations use the new spelling on every major.
 */
#if PG_VERSION_NUM < 180000
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 15 added MarkGUCPrefixReserved, which also removes placeholders already
 * set under the prefix; before, EmitWarningsOnPlaceholders only warned.
 */
#if PG_VERSION_NUM >= 150000
#define bloom_reserve_guc_prefix(prefix) MarkGUCPrefixReserved(prefix)
#else
#define bloom_reserve_guc_prefix(prefix) EmitWarningsOnPlaceholders(prefix)
#endif

/* 18's pg_b64_encode and pg_b64_decode take the binary side as uint8 *. */
#if PG_VERSION_NUM >= 180000
typedef uint8 bloom_b64_binary;
#else
typedef char bloom_b64_binary;
#endif

/* 14 added estimate_num_groups's EstimationInfo argument. */
#if PG_VERSION_NUM >= 140000
#define bloom_estimate_num_groups(root, exprs, rows) \
	estimate_num_groups(root, exprs, rows, NULL, NULL)
#else
#define bloom_estimate_num_groups(root, exprs, rows) \
	estimate_num_groups(root, exprs, rows, NULL)
#endif

/* 18's vacuum_delay_point says whether ANALYZE (true) or VACUUM calls it. */
#if PG_VERSION_NUM >= 180000
#define bloom_analyze_delay_point() vacuum_delay_point(true)
#else
#define bloom_analyze_delay_point() vacuum_delay_point()
#endif

/*
 * 18 replaced init_toast_snapshot, which fills a caller's SnapshotData,
 * with get_toast_snapshot, which returns one.  bloom_toast_snapshot(space)
 * is the TOAST snapshot on every major; space is a SnapshotData * the
 * caller provides, used before 18 only (include access/toast_internals.h).
 */
#if PG_VERSION_NUM >= 180000
#define bloom_toast_snapshot(space) ((void) (space), get_toast_snapshot())
#else
#define bloom_toast_snapshot(space) (init_toast_snapshot(space), (Snapshot) (space))
#endif

/*
 * 19 passes the planner (and its hook) the ExplainState of an EXPLAIN.
 * BLOOM_PLANNER_PARAMS declares a planner hook's parameters and
 * BLOOM_PLANNER_ARGS passes them on, on every major.
 */
#if PG_VERSION_NUM >= 190000
#define BLOOM_PLANNER_PARAMS Query *parse, const char *query_string, \
	int cursorOptions, ParamListInfo boundParams, ExplainState *es
#define BLOOM_PLANNER_ARGS parse, query_string, cursorOptions, boundParams, es
#else
#define BLOOM_PLANNER_PARAMS Query *parse, const char *query_string, \
	int cursorOptions, ParamListInfo boundParams
#define BLOOM_PLANNER_ARGS parse, query_string, cursorOptions, boundParams
#endif

/* standard_planner for a query of the extension's own, which no EXPLAIN shows. */
#if PG_VERSION_NUM >= 190000
#define bloom_standard_planner(parse, cursorOptions, boundParams) \
	standard_planner((parse), NULL, (cursorOptions), (boundParams), NULL)
#else
#define bloom_standard_planner(parse, cursorOptions, boundParams) \
	standard_planner((parse), NULL, (cursorOptions), (boundParams))
#endif

/*
 * 16 moved a relation's permissions out of its RangeTblEntry into the
 * query's list of RTEPermissionInfo.  rte, a copy of one of query from's
 * entries made the only entry of query to, takes a copy of the permissions
 * from gave it (include parser/parse_relation.h).  Before 16 the copy carries
 * them.
 */
#if PG_VERSION_NUM >= 160000
#define bloom_rte_take_permissions(from, rte, to) \
	do { \
		if ((rte)->perminfoindex != 0) \
		{ \
			(to)->rteperminfos = list_make1(copyObject(getRTEPermissionInfo((from)->rteperminfos, (rte)))); \
			(rte)->perminfoindex = 1; \
		} \
	} while (0)
#else
#define bloom_rte_take_permissions(from, rte, to) ((void) (from), (void) (rte), (void) (to))
#endif

/*
 * The role whose user mapping a foreign table in query's range table is
 * read as (postgres_fdw's rule): the entry's checkAsUser (a view's owner),
 * else the current user.  16 moved checkAsUser into RTEPermissionInfo.
 */
#if PG_VERSION_NUM >= 160000
#define bloom_rte_user(query, rte) \
	((rte)->perminfoindex != 0 && \
	 OidIsValid(getRTEPermissionInfo((query)->rteperminfos, (rte))->checkAsUser) ? \
	 getRTEPermissionInfo((query)->rteperminfos, (rte))->checkAsUser : GetUserId())
#else
#define bloom_rte_user(query, rte) \
	((void) (query), OidIsValid((rte)->checkAsUser) ? (rte)->checkAsUser : GetUserId())
#endif

/*
 * postgres_fdw's GetConnection (connection.c, exported), which 14 gave an
 * out-argument for the connection's state.
 */
struct UserMapping;				/* foreign/foreign.h's */

#if PG_VERSION_NUM >= 140000
typedef void *(*bloom_fdw_get_connection_fn) (struct UserMapping *user, bool will_prep_stmt,
											  void **state);
#define bloom_fdw_get_connection(fn, user) ((fn) ((user), false, NULL))
#else
typedef void *(*bloom_fdw_get_connection_fn) (struct UserMapping *user, bool will_prep_stmt);
#define bloom_fdw_get_connection(fn, user) ((fn) ((user), false))
#endif

/*
 * A symbol of a loaded library, or NULL: 14 made load_external_function
 * return void *, where 13 returned a PGFunction.
 */
#if PG_VERSION_NUM >= 140000
#define bloom_library_symbol(file, name) load_external_function((file), (name), false, NULL)
#else
#define bloom_library_symbol(file, name) \
	((void *) load_external_function((file), (name), false, NULL))
#endif

/*
 * 18 gave a grouped query an RTE_GROUP entry, whose columns its output
 * reads in place of the grouped expressions: the expression column attno
 * of rte stands for, or NULL where rte is no such entry.
 */
#if PG_VERSION_NUM >= 180000
#define bloom_rte_grouped_expr(rte, attno) \
	((rte)->rtekind == RTE_GROUP && (attno) > 0 && \
	 (attno) <= list_length((rte)->groupexprs) ? \
	 (Node *) list_nth((rte)->groupexprs, (attno) - 1) : (Node *) NULL)
#else
#define bloom_rte_grouped_expr(rte, attno) ((void) (rte), (void) (attno), (Node *) NULL)
#endif

/*
 * 18's virtual generated columns are computed from the row where they are
 * read; the stored kind and every column before 18 hold their values.
 * (Callers include utils/lsyscache.h, utils/rel.h and catalog/pg_attribute.h.)
 */
#if PG_VERSION_NUM >= 180000
#define bloom_column_is_virtual(relid, attnum) \
	(get_attgenerated((relid), (attnum)) == ATTRIBUTE_GENERATED_VIRTUAL)
#define bloom_relation_has_virtual_column(rel) \
	((rel)->rd_att->constr != NULL && (rel)->rd_att->constr->has_generated_virtual)
#else
#define bloom_column_is_virtual(relid, attnum) ((void) (relid), (void) (attnum), false)
#define bloom_relation_has_virtual_column(rel) ((void) (rel), false)
#endif

/* 14 numbers the aggregates of a query in Aggref; -1 until planned. */
#if PG_VERSION_NUM >= 140000
#define bloom_aggref_unnumbered(agg) ((agg)->aggno = -1, (agg)->aggtransno = -1)
#else
#define bloom_aggref_unnumbered(agg) ((void) (agg))
#endif

/*
 * 14 made a never-analyzed relation's reltuples -1; before, 0 meant that
 * too (or an empty table).  Either way it is no count to plan by.
 */
#define bloom_reltuples_known(reltuples) ((reltuples) > 0)

/*
 * postgres_fdw's fdw_tuple_cost when its server sets none: 17 raised it
 * from 0.01 to 0.2.
 */
#if PG_VERSION_NUM >= 170000
#define BLOOM_FDW_DEFAULT_TUPLE_COST 0.2
#else
#define BLOOM_FDW_DEFAULT_TUPLE_COST 0.01
#endif

/*
 * Some majors' server headers (storage/bufpage.h, which access/htup_details.h
 * and utils/selfuncs.h bring in, before 16) define inline functions with
 * unused parameters, which -Wextra reports in every file that includes
 * them.  Around such includes:
 */
#if defined(__GNUC__)
#define BLOOM_SERVER_HEADERS_BEGIN \
	_Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")
#define BLOOM_SERVER_HEADERS_END _Pragma("GCC diagnostic pop")
#else
#define BLOOM_SERVER_HEADERS_BEGIN
#define BLOOM_SERVER_HEADERS_END
#endif

#endif							/* BLOOM_COMPAT_H */
