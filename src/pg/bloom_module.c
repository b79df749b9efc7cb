/*
 * bloom_module.c
 *		The module: its magic block, its initialisation, and its settings.
 *
 * Nothing needs shared_preload_libraries: a session loads the library at
 * its first call of one of the extension's functions (or LOAD), and
 * _PG_init then defines the settings, reading any value SET before as a
 * placeholder.
 */
#include "postgres.h"

#include "bloom_compat.h"

#include "fmgr.h"
BLOOM_SERVER_HEADERS_BEGIN
#include "utils/guc.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_agg_handoff.h"
#include "bloom_build.h"
#include "bloom_final.h"
#include "bloom_join_filter.h"
#include "bloom_pg.h"
#include "bloom_shared_cache.h"
#include "bloom_stored_cache.h"

PG_MODULE_MAGIC;

int			bloom_max_final_threads = 1;
int			bloom_final_threads_limit = BLOOM_MAX_FINAL_THREADS;

void		_PG_init(void);

void
_PG_init(void)
{
	/*
	 * By default every CPU the server may run on: the final runs after the
	 * scan, when a parallel query's workers are done, and a limit below the
	 * CPUs leaves a large final's memory bandwidth unused (the figures are
	 * in doc/performance.md).
	 */
	DefineCustomIntVariable("bloomfilter.max_final_threads",
							"Sets the most threads bloom_agg's final function sets filter bits on, and a large state is sorted on (parallel processes share them).",
							"1 works on the backend's own thread. Small filters and states always use one. The default is the CPUs the server may run on.",
							&bloom_max_final_threads,
							(int) bloom_available_cpus(), 1, BLOOM_MAX_FINAL_THREADS,
							PGC_USERSET, 0, NULL, NULL, NULL);

	/*
	 * The ceiling over every role's max_final_threads: SUSET, so that an
	 * administrator's ALTER SYSTEM or ALTER ROLE ... SET holds against a
	 * user's SET.  By default it limits nothing (the CPUs are the limit).
	 */
	DefineCustomIntVariable("bloomfilter.final_threads_limit",
							"Sets the most threads bloom_agg's final function and a state's sort may use, whatever bloomfilter.max_final_threads says.",
							"The threads used are the lower of the two settings and the CPUs the server may run on. Only superusers, and roles granted SET on it, can change it.",
							&bloom_final_threads_limit,
							BLOOM_MAX_FINAL_THREADS, 1, BLOOM_MAX_FINAL_THREADS,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("bloomfilter.parallel_handoff",
							 "Lets parallel workers hand bloom_agg's hashes to the leader in the query's shared memory.",
							 "Off, or where /dev/shm lacks the room, a worker's state is sorted, coded and sent through the tuple queue.",
							 &bloom_parallel_handoff,
							 true,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	/*
	 * A backend keeps the big stored filters it read for later queries
	 * (bloom_stored_cache.c).  64 MB holds a few filters of millions of
	 * keys; 0 turns the cache off and frees what it holds.
	 */
	DefineCustomIntVariable("bloomfilter.stored_filter_cache",
							"Sets the most memory a session keeps detoasted stored filters in, for later queries.",
							"A filter stored out of line and bigger than 64 kB is read once and kept, up to this much, least recently used first out. 0 turns the cache off.",
							&bloom_stored_cache_kb,
							64 * 1024, 0, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL,
							bloom_stored_cache_assign, NULL);

	/*
	 * The session caches' misses read a big filter from a file the server's
	 * first reader of it wrote (bloom_shared_cache.c), not from its table.
	 * The files' bound is the server's, not a session's, so only the
	 * configuration sets it.
	 */
	DefineCustomIntVariable("bloomfilter.shared_filter_cache",
							"Sets the most disk space the server keeps stored filters in, for sessions that have not read them yet.",
							"The first session to read a stored filter bigger than 64 kB also writes it to a file in pg_stat_tmp, which later sessions read instead of the table, up to this much, least recently used first out. 0 turns it off.",
							&bloom_shared_cache_kb,
							256 * 1024, 0, MAX_KILOBYTES,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);

	/*
	 * Off by default: the filters it adds change no result, but a query's
	 * plan, and only measurements on a user's servers say where that pays
	 * more than the cost model guesses.
	 */
	DefineCustomBoolVariable("bloomfilter.join_filter",
							 "Lets the planner add a bloom filter of a join's other side to the scan of a foreign table.",
							 "For a postgres_fdw table whose server lists the extension, joined by equality of key columns, when the statistics say the filter drops more rows than it costs.",
							 &bloom_join_filter,
							 false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	bloom_reserve_guc_prefix("bloomfilter");
	bloom_join_filter_install();
}
