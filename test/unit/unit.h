/*
 * unit.h
 *		What every unit test file of the core shares: the headers, the
 *		bookkeeping of groups, tests and checks (unit.c), a few helpers, and
 *		each file's entry points, which test_core.c's main runs in order.
 *
 * A group is a named set of tests; a test is one case, failed by any check
 * in it.  Expected values come from the known-answer vectors or from the
 * format's rules restated here (test_core.c says how), never from running
 * the core.
 */
#ifndef UNIT_H
#define UNIT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* MAP_NORESERVE, MAP_ANONYMOUS */
#endif

#include "bloom_core.h"
#include "bloom_setops.h"
#include "bloom_state.h"
#include "bloom_build.h"
#include "bloom_final.h"
#include "bloom_flatten.h"
#include "bloom_gaps.h"
#include "bloom_sort.h"
#include "bloom_scheme.h"
#include "bloom_stats.h"
#include "bloom_keys.h"
#include "bloom_kmv.h"
#include "vectors.h"
#include "../lib/bloom_reference.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- bookkeeping (unit.c) ----------------------------------------------- */

extern unsigned long n_passed;
extern unsigned long n_failed;
extern const char *group_name;	/* for SKIP lines */
extern bool test_failed;		/* the current test, so far */

extern void group_begin(const char *name);
extern void group_end(void);
extern void test_begin(const char *fmt, ...)
			__attribute__((format(printf, 1, 2)));
/* Fail the current test with the message. */
extern void fail(const char *fmt, ...)
			__attribute__((format(printf, 1, 2)));
/* Fail the current test with the message unless cond holds; returns cond. */
extern bool check(bool cond, const char *fmt, ...)
			__attribute__((format(printf, 2, 3)));
extern void test_end(void);
/* A one-check test: got must be want. */
extern void expect_status(bloom_status got, bloom_status want, const char *fmt, ...)
			__attribute__((format(printf, 3, 4)));
extern const char *status_name(bloom_status s);

/* ---- helpers ------------------------------------------------------------ */

/* Hex of a key or filter for messages: "-" when empty, cut when long. */
extern const char *hexs(const uint8_t *data, size_t len);
extern void *xcalloc(size_t n);
/* Deterministic, so that a failure reproduces; one sequence for all files. */
extern uint64_t rng_next(void);
/* n random bytes, one rng_next each (the low byte) */
extern void rng_bytes(uint8_t *out, size_t n);
extern int	cmp_u32(const void *a, const void *b);
extern size_t sort_distinct(uint32_t *v, size_t n);

/*
 * The distinct hashes among hashes[0..m), in order, in a new allocation
 * (*sorted, *d of them), and their Rice code, in another (returned, *len
 * bytes): the coded runs of the final's and the flattening's tests.
 */
extern uint8_t *gaps_code_of(const uint32_t *hashes, size_t m,
							 uint32_t **sorted, size_t *d, size_t *len);

/*
 * A go_on (the core's question whether to go on) that counts its calls, and
 * says no at call no_at.
 */
typedef struct counted_asks
{
	unsigned	calls;
	unsigned	no_at;			/* 0: never */
} counted_asks;
extern bool count_ask(void *arg);
/* n random distinct hashes, sorted; returns how many (duplicates dropped) */
extern uint64_t random_hash_set(uint32_t *out, uint64_t n);

/* The bytes that hold a filter's first 2^32 bits, all a probe can reach. */
#define LOW_BYTES	((size_t) 1 << 29)

/* ---- the test files' entry points, in the order main runs them ---------- */

extern void test_vector_set(const vec_set *set);	/* test_vectors.c */
extern void test_vectors(const vec_set *set);
extern void test_geometry(void);	/* test_geometry.c */
extern void test_build_probe(void); /* test_filter.c */
extern void test_big_filter(void);
extern void test_validate(void);	/* test_validate.c */
extern void test_hex(void);		/* test_hex.c */
extern void test_state(void);	/* test_state.c */
extern void test_state_v2(void);
extern void test_popcount(void);	/* test_stats.c */
extern void test_filter_stats(void);
extern void test_stats_beyond_2_32(void);
extern void test_sizing(void);
extern void test_gaps(void);	/* test_gaps.c */
extern void test_final(void);	/* test_final.c */
extern void test_flatten(void); /* test_flatten.c */
extern void test_team(void);	/* test_team.c */
extern void test_setops(void);	/* test_setops.c */
extern void test_hash(void);	/* test_hash.c */
extern void test_prepared(void);	/* test_prepared.c */
extern void test_messages(void);	/* test_hash.c */
extern void test_typed_keys(void);	/* test_keys.c */
extern void test_kmv(void);		/* test_kmv.c */
extern void test_sample(void);	/* test_sample.c */

#endif							/* UNIT_H */
