/*
 * bloom_pg.h
 *		What the SQL-facing files share: the bloomfilter datum and the one
 *		place where core status codes become PostgreSQL errors.
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_PG_H
#define BLOOM_PG_H

#include "fmgr.h"

#include "bloom_compat.h"
#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * A bloomfilter datum is a plain varlena whose payload is exactly the
 * LevelDB filter bytes, so it is read in place, short header or not.
 */
#define DatumGetBloomFilterPP(X)	((bytea *) PG_DETOAST_DATUM_PACKED(X))
#define PG_GETARG_BLOOMFILTER_PP(n) DatumGetBloomFilterPP(PG_GETARG_DATUM(n))
#define BloomFilterBytes(f)			((const uint8 *) VARDATA_ANY(f))
#define BloomFilterLength(f)		((Size) VARSIZE_ANY_EXHDR(f))

/*
 * The validator every input path shares (text, binary, casts): returns if
 * the bytes form a filter LevelDB could have written, and otherwise raises
 * sqlstate naming the rule broken.
 */
extern void bloomfilter_check(const uint8 *bytes, Size len, int sqlstate);

/*
 * A bloomfilter datum as any function reads it: detoasted (decompressed,
 * fetched, flattened; a short header kept) and checked by
 * bloomfilter_check, a value that fails being corrupt (XX001).  Every
 * value the SQL level can make passed the input check already, so this
 * costs three comparisons; it is what keeps a bad value from reaching code
 * that indexes by the k byte.
 */
extern bytea *bloom_filter_datum_checked(Datum d);
#define PG_GETARG_BLOOMFILTER_CHECKED(n) bloom_filter_datum_checked(PG_GETARG_DATUM(n))

/*
 * True when the function was called as an aggregate's transition or combine
 * function, so that its first argument is the executor's own copy of the
 * transition value, which the function may change in place (PostgreSQL's
 * AggCheckCallContext contract); false outside an aggregate and in the final
 * function of an ordered-set aggregate, whose direct arguments could
 * otherwise write into a state other aggregates share.  The caller must
 * still detoast that argument (an inverse function, an initial value or
 * a first input may give it any form) and check it before writing.
 */
extern bool bloom_agg_may_write_state(FunctionCallInfo fcinfo);

/* bloomfilter_check, then a new bloomfilter datum holding a copy. */
extern bytea *bloomfilter_from_bytes(const uint8 *bytes, Size len,
									 int sqlstate);

/*
 * Filter argument argno of a function called row after row: read in place
 * when inline, detoasted once per call site and argument when stored out of
 * line, and checked as bloom_filter_datum_checked checks (a cached copy
 * once).  It keeps its cache in flinfo->fn_extra, so a function that calls
 * it must not use fn_extra itself.
 */
extern bytea *bloom_filter_arg_cached(FunctionCallInfo fcinfo, int argno);

/*
 * The same for the type's output and send functions, which postgres_fdw
 * calls for a filter it sends with each remote query, and Citus for a
 * subquery's result: a stored filter the session read before is not read
 * again.  One read from its table is kept for the session only, not
 * written to the server's files, so that a dump of many filters does not
 * push out the files that probes use.
 */
extern bytea *bloom_filter_arg_for_output(FunctionCallInfo fcinfo, int argno);

/* The probes' way to the same cache: bloom_filter_cache.h. */

/*
 * Whether function fn runs ours, a C function of this module, whatever the
 * function's name, schema and OID (bloom_function_is.c): how the planner's
 * estimators know the extension's type and aggregate.  Answers are
 * remembered until pg_proc changes, so the planner may ask per clause.
 */
extern bool bloom_function_is(Oid fn, PGFunction ours);

/* Raise an ERROR for a failed core status, in the given input context. */
pg_noreturn extern void bloom_report_invalid(bloom_status status, int sqlstate,
											 const char *what);

/* ERROR unless bits_per_key is one LevelDB accepts (>= 0). */
extern void bloom_check_bits_per_key(int64 bits_per_key);

/* ERROR unless the key count in argument argname is not negative. */
extern void bloom_check_key_count(const char *argname, int64 keys);

/*
 * The geometry CreateFilter uses for nkeys keys at bits_per_key (already
 * checked not negative); ERROR 54000 when that filter would not fit in a
 * value.
 */
extern void bloom_value_geometry(uint64 nkeys, int64 bits_per_key,
								 bloom_geometry *geometry);

/*
 * Room in cxt for nhashes 32-bit hashes after header bytes (MAXALIGNed),
 * the hashes on huge pages when they are many; freed by bloom_free_hashes.
 * The one way the glue allocates large areas of hashes: a state's chunks
 * and runs, and the final's scratch.
 */
extern void *bloom_alloc_hashes(MemoryContext cxt, Size header, uint64 nhashes);
extern void bloom_free_hashes(void *area);

/* A new filter value of that geometry: no bit set, the k byte last. */
extern bytea *bloom_new_empty_filter(const bloom_geometry *geometry);

/*
 * The same with its bits not yet written, for bloom_build_filter_from_runs
 * to zero on its threads: the first touch of a new filter's pages costs
 * more than zeroing them.
 */
extern bytea *bloom_new_unzeroed_filter(const bloom_geometry *geometry);

/*
 * bloomfilter.max_final_threads: the final function's threads, the
 * backend's own included (bloom_module.c).  Its default is the CPUs the
 * server may run on (bloom_available_cpus).  A user's own choice, under
 * bloomfilter.final_threads_limit, which only a superuser (or a role
 * granted SET on it) sets.
 */
extern int	bloom_max_final_threads;
extern int	bloom_final_threads_limit;

/*
 * The most threads the final, or a state's sort, may take: the lower of
 * the two settings and the CPUs the server may run on.
 */
extern unsigned bloom_thread_budget(void);

struct bloom_hash_run;

/*
 * The go_on of core work done on the backend's own thread (decoding a run,
 * sorting, a serial build): a cancel or an error leaves by longjmp, so it
 * only ever says yes.
 */
extern bool bloom_interrupts_checked(void *arg);

/*
 * Decode a state's coded run (nothing for a plain one), checking for
 * interrupts between its parts; a code that does not decode exactly is a
 * corrupt state, an ERROR.
 */
extern void bloom_decode_state_run(const struct bloom_hash_run *run);

/*
 * Set the bits of nhashes hashes, in nruns runs, into a new filter (whose
 * bits it zeroes first: see bloom_new_unzeroed_filter), on as many threads
 * as bloomfilter.max_final_threads allows and the work is worth; a cancel
 * stops it.
 */
extern void bloom_build_filter_from_runs(uint8 *filter,
										 const bloom_geometry *geometry,
										 const struct bloom_hash_run *runs,
										 int nruns, uint64 nhashes);

/* The kinds of job the core runs on threads of its own. */
typedef enum BloomThreadsKind
{
	BLOOM_THREADS_FINAL,		/* a bloom_final_job (bloom_final.h) */
	BLOOM_THREADS_FLATTEN		/* a bloom_flatten_job (bloom_flatten.h) */
} BloomThreadsKind;

/*
 * Wait for a job's threads (those of its step under way), a short while at
 * a time, checking for interrupts in between.  A cancel, any error and the
 * backend's exit (a FATAL error, such as a terminated parallel worker's,
 * exits without unwinding) stop the job and join its threads, which ends
 * it, before they go on: no thread outlives what it reads.
 */
extern void bloom_wait_for_threads(BloomThreadsKind kind, void *job);

BLOOM_END_PRIVATE

#endif							/* BLOOM_PG_H */
