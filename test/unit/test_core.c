/*
 * test_core.c
 *		Server-free tests of the bloom filter core.
 *
 *		test/unit/test_core VECTOR_DIR
 *
 * First every LevelDB known-answer vector (test/data/vectors), then edge
 * cases the vectors cannot reach: sizes near 2^64, filters beyond 2^32
 * bits, the text form and the aggregate state.  Expected values come from
 * the vectors or from the format's rules, restated independently of src/core/
 * (sizes in 128-bit arithmetic, for instance) here and in the reference
 * implementations the fuzz targets share (test/lib/bloom_reference.h),
 * never from running the core.  Prints one line per failed check and ends with
 * "unit: N passed, N failed"; exits 1 if anything failed.
 */
#define _GNU_SOURCE				/* MAP_NORESERVE, MAP_ANONYMOUS */

#include "bloom_core.h"
#include "bloom_setops.h"
#include "bloom_state.h"
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- bookkeeping ------------------------------------------------------ */

/* A broken case could otherwise print thousands of probe lines. */
#define MAX_FAIL_LINES	10

static unsigned long n_passed;
static unsigned long n_failed;

static const char *group_name;
static unsigned long group_passed;
static unsigned long group_failed;

static char test_name[200];
static bool test_failed;
static unsigned test_fail_lines;

static void
group_begin(const char *name)
{
	group_name = name;
	group_passed = group_failed = 0;
}

static void
group_end(void)
{
	if (group_failed == 0)
		printf("ok   %s: %lu tests\n", group_name, group_passed);
	else
		printf("FAIL %s: %lu of %lu tests failed\n", group_name,
			   group_failed, group_passed + group_failed);
}

static void
test_begin(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void
test_begin(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(test_name, sizeof(test_name), fmt, ap);
	va_end(ap);
	test_failed = false;
	test_fail_lines = 0;
}

static void
vfail(const char *fmt, va_list ap)
{
	test_failed = true;
	if (test_fail_lines < MAX_FAIL_LINES)
	{
		printf("FAIL %s: %s: ", group_name, test_name);
		vprintf(fmt, ap);
		putchar('\n');
	}
	else if (test_fail_lines == MAX_FAIL_LINES)
		printf("FAIL %s: %s: (further failures of this test not shown)\n",
			   group_name, test_name);
	test_fail_lines++;
}

static void
fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void
fail(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vfail(fmt, ap);
	va_end(ap);
}

/* Fail the current test with the message unless cond holds. */
static bool
check(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool
check(bool cond, const char *fmt, ...)
{
	va_list		ap;

	if (!cond)
	{
		va_start(ap, fmt);
		vfail(fmt, ap);
		va_end(ap);
	}
	return cond;
}

static void
test_end(void)
{
	if (test_failed)
	{
		n_failed++;
		group_failed++;
	}
	else
	{
		n_passed++;
		group_passed++;
	}
}

static const char *
status_name(bloom_status s)
{
	switch (s)
	{
		case BLOOM_OK:
			return "BLOOM_OK";
		case BLOOM_ERR_NEGATIVE_BITS_PER_KEY:
			return "BLOOM_ERR_NEGATIVE_BITS_PER_KEY";
		case BLOOM_ERR_SIZE_OVERFLOW:
			return "BLOOM_ERR_SIZE_OVERFLOW";
		case BLOOM_ERR_FILTER_TOO_SHORT:
			return "BLOOM_ERR_FILTER_TOO_SHORT";
		case BLOOM_ERR_K_ZERO:
			return "BLOOM_ERR_K_ZERO";
		case BLOOM_ERR_K_RESERVED:
			return "BLOOM_ERR_K_RESERVED";
		case BLOOM_ERR_HEX_PREFIX:
			return "BLOOM_ERR_HEX_PREFIX";
		case BLOOM_ERR_HEX_ODD:
			return "BLOOM_ERR_HEX_ODD";
		case BLOOM_ERR_HEX_DIGIT:
			return "BLOOM_ERR_HEX_DIGIT";
		case BLOOM_ERR_STATE_TOO_SHORT:
			return "BLOOM_ERR_STATE_TOO_SHORT";
		case BLOOM_ERR_STATE_VERSION:
			return "BLOOM_ERR_STATE_VERSION";
		case BLOOM_ERR_STATE_RESERVED:
			return "BLOOM_ERR_STATE_RESERVED";
		case BLOOM_ERR_STATE_COUNT:
			return "BLOOM_ERR_STATE_COUNT";
		case BLOOM_ERR_GAPS_CODE:
			return "BLOOM_ERR_GAPS_CODE";
		case BLOOM_ERR_NO_MEMORY:
			return "BLOOM_ERR_NO_MEMORY";
		case BLOOM_ERR_THREAD:
			return "BLOOM_ERR_THREAD";
		case BLOOM_ERR_CANCELLED:
			return "BLOOM_ERR_CANCELLED";
	}
	return "(unknown status)";
}

/* One-check tests, the bulk of the edge cases. */
static void
expect_status(bloom_status got, bloom_status want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
expect_status(bloom_status got, bloom_status want, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(test_name, sizeof(test_name), fmt, ap);
	va_end(ap);
	test_failed = false;
	test_fail_lines = 0;
	check(got == want, "expected %s, got %s", status_name(want),
		  status_name(got));
	test_end();
}

/* Hex of a key or filter for messages: "-" when empty, cut when long. */
static const char *
hexs(const uint8_t *data, size_t len)
{
	static char bufs[4][80];
	static int	next;
	char	   *buf = bufs[next++ % 4];
	size_t		i,
				shown = len > 24 ? 24 : len;
	char	   *p = buf;

	if (len == 0)
		return "-";
	for (i = 0; i < shown; i++)
		p += sprintf(p, "%02x", data[i]);
	if (shown < len)
		sprintf(p, "...(%zu bytes)", len);
	return buf;
}

static void *
xcalloc(size_t n)
{
	void	   *p = calloc(n ? n : 1, 1);

	if (p == NULL)
	{
		fprintf(stderr, "test_core: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

/* Deterministic, so that a failure reproduces. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t
rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- known-answer vectors --------------------------------------------- */

static void
test_vector_set(const vec_set *set)
{
	size_t		i;

	group_begin("vector files");
	for (i = 0; i < vec_n_expected_files; i++)
	{
		test_begin("%s is present", vec_expected_files[i]);
		check(vec_find_file(set, vec_expected_files[i]) != NULL,
			  "not found (or not readable) in the vector directory");
		test_end();
	}
	for (i = 0; i < set->nfiles; i++)
	{
		const vec_file *f = &set->files[i];

		test_begin("%s case count", f->name);
		if (check(f->declared_cases >= 0, "no \"# cases=N\" comment"))
			check(f->ncases == (size_t) f->declared_cases && f->ncases > 0,
				  "\"# cases=%ld\" but %zu well-formed cases read",
				  f->declared_cases, f->ncases);
		test_end();
	}
	for (i = 0; i < set->nerrors; i++)
	{
		test_begin("malformed vector file");
		fail("%s", set->errors[i]);
		test_end();
	}
	group_end();
}

static void
run_create_case(const vec_case *c)
{
	uint32_t   *hashes = xcalloc(c->nkeys * sizeof(uint32_t));
	uint8_t    *filter = NULL;
	bloom_geometry g;
	bloom_status st;
	size_t		i;
	uint64_t	fnv;

	test_begin("%s (%s:%ld)", c->id, c->file, c->line);
	for (i = 0; i < c->nkeys; i++)
		hashes[i] = bloom_key_hash(c->keys[i].data, c->keys[i].len);

	st = bloom_geometry_for(c->nkeys, c->bpk, &g);
	if (!check(st == BLOOM_OK, "bloom_geometry_for(%" PRIu64 ", %" PRId64
			   "): %s", c->nkeys, c->bpk, status_name(st)))
		goto out;
	check(g.bits == 8 * (g.filter_bytes - 1),
		  "geometry has %" PRIu64 " bits for %" PRIu64 " bytes", g.bits,
		  g.filter_bytes);
	check(g.k == c->filter_k, "filter_k: expected %u, got %u", c->filter_k,
		  g.k);
	/* the comparisons below need the sizes to agree */
	if (!check(g.filter_bytes == c->filter_len,
			   "filter_len: expected %" PRIu64 ", got %" PRIu64,
			   c->filter_len, g.filter_bytes))
		goto out;

	filter = xcalloc(g.filter_bytes);
	bloom_build_from_hashes(filter, &g, hashes, c->nkeys);

	check(filter[g.filter_bytes - 1] == c->filter_k,
		  "k byte: expected %u, got %u", c->filter_k,
		  filter[g.filter_bytes - 1]);
	fnv = vec_fnv1a64(filter, g.filter_bytes);
	check(fnv == c->filter_fnv1a64,
		  "filter_fnv1a64: expected %016" PRIx64 ", got %016" PRIx64,
		  c->filter_fnv1a64, fnv);
	/* the final's threaded path, whatever the size: the same bytes */
	for (unsigned nthreads = 2; nthreads <= 8; nthreads *= 4)
	{
		uint8_t    *threaded = xcalloc(g.filter_bytes);
		bloom_hash_run runs[2] = {
			{hashes, c->nkeys / 2, NULL, 0, NULL},
			{hashes + c->nkeys / 2, c->nkeys - c->nkeys / 2, NULL, 0, NULL},
		};

		st = bloom_build_from_runs(threaded, &g, runs, 2, nthreads);
		check(st == BLOOM_OK && vec_fnv1a64(threaded, g.filter_bytes) == c->filter_fnv1a64,
			  "set on %u threads: %s", nthreads,
			  st != BLOOM_OK ? status_name(st) : "filter_fnv1a64 differs");
		free(threaded);
	}
	if (c->has_filter)
	{
		/* a vector whose own lines disagree is broken, whatever the core */
		check(vec_fnv1a64(c->filter.data, c->filter.len) == c->filter_fnv1a64,
			  "the vector's filter line does not match its filter_fnv1a64");
		for (i = 0; i < g.filter_bytes; i++)
			if (filter[i] != c->filter.data[i])
			{
				fail("filter bytes differ first at byte %zu of %" PRIu64
					 ": expected %02x, got %02x", i, g.filter_bytes,
					 c->filter.data[i], filter[i]);
				break;
			}
	}
	st = bloom_validate(filter, g.filter_bytes);
	check(st == BLOOM_OK, "bloom_validate of the built filter: %s",
		  status_name(st));

	/* LevelDB guarantees no false negatives, whatever the probe lines say */
	for (i = 0; i < c->nkeys; i++)
		check(bloom_may_contain(filter, g.filter_bytes, c->keys[i].data,
								c->keys[i].len),
			  "inserted key %zu (%s) does not match", i,
			  hexs(c->keys[i].data, c->keys[i].len));

	for (i = 0; i < c->nprobes; i++)
	{
		const vec_probe *pr = &c->probes[i];
		bool		got = bloom_may_contain(filter, g.filter_bytes,
											pr->key.data, pr->key.len);

		check(got == pr->expected, "probe %zu (key %s): expected %d, got %d",
			  i, hexs(pr->key.data, pr->key.len), pr->expected, got);
	}

out:
	test_end();
	free(filter);
	free(hashes);
}

static void
run_match_case(const vec_case *c)
{
	const uint8_t *f = c->filter.data;
	size_t		len = c->filter.len;
	bloom_status want,
				got;
	size_t		i;

	test_begin("%s (%s:%ld)", c->id, c->file, c->line);

	/* the rule bloom_core.h states for stored filters */
	want = ref_validate(f, len);
	got = bloom_validate(f, len);
	check(got == want, "bloom_validate: expected %s, got %s",
		  status_name(want), status_name(got));

	/* probing follows KeyMayMatch even for filters validation rejects */
	for (i = 0; i < c->nprobes; i++)
	{
		const vec_probe *pr = &c->probes[i];
		bool		res = bloom_may_contain(f, len, pr->key.data, pr->key.len);

		check(res == pr->expected, "probe %zu (key %s): expected %d, got %d",
			  i, hexs(pr->key.data, pr->key.len), pr->expected, res);
	}
	test_end();
}

static void
test_vectors(const vec_set *set)
{
	size_t		f,
				i;

	for (f = 0; f < set->nfiles; f++)
	{
		const vec_file *file = &set->files[f];
		char		name[160];

		snprintf(name, sizeof(name), "vectors %s", file->name);
		group_begin(name);
		for (i = 0; i < file->ncases; i++)
		{
			if (file->cases[i].kind == VEC_CREATE)
				run_create_case(&file->cases[i]);
			else
				run_match_case(&file->cases[i]);
		}
		group_end();
	}
}

/* ---- geometry --------------------------------------------------------- */

/* Compare bloom_geometry_for with the rules for one (n, bpk). */
static void
check_geometry(uint64_t n, int64_t bpk)
{
	bloom_geometry want,
				got;
	bloom_status st = bloom_geometry_for(n, bpk, &got);

	if (!ref_geometry(n, bpk, &want))
	{
		check(st == BLOOM_ERR_SIZE_OVERFLOW,
			  "n=%" PRIu64 " bpk=%" PRId64 ": expected %s, got %s", n, bpk,
			  status_name(BLOOM_ERR_SIZE_OVERFLOW), status_name(st));
		return;
	}
	if (!check(st == BLOOM_OK, "n=%" PRIu64 " bpk=%" PRId64 ": %s", n, bpk,
			   status_name(st)))
		return;
	check(got.bits == want.bits && got.filter_bytes == want.filter_bytes &&
		  got.k == want.k,
		  "n=%" PRIu64 " bpk=%" PRId64 ": expected bits=%" PRIu64 " bytes=%"
		  PRIu64 " k=%u, got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u",
		  n, bpk, want.bits, want.filter_bytes, want.k,
		  got.bits, got.filter_bytes, got.k);
}

static void
test_geometry(void)
{
	static const uint64_t ns[] = {
		0, 1, 7, 8, 9, 63, 64, 65, 1000, UINT64_C(1) << 31,
		(UINT64_C(1) << 32) - 1, UINT64_C(1) << 32, (UINT64_C(1) << 32) + 1,
		(UINT64_C(1) << 61) - 1, UINT64_C(1) << 61, UINT64_C(1) << 63,
		UINT64_MAX / 3, UINT64_MAX - 7, UINT64_MAX - 6, UINT64_MAX,
	};
	static const int64_t bpks[] = {
		0, 1, 2, 3, 7, 8, 9, 10, 30, 43, 44, 45, 100, INT32_MAX,
		INT64_C(1) << 32, INT64_C(1) << 61, INT64_MAX,
	};
	bloom_geometry g;
	size_t		i,
				j;
	uint64_t	n;
	int64_t		bpk;
	unsigned	prev;

	group_begin("geometry");

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
	{
		test_begin("bpk 0, n=%" PRIu64 ": 64 bits, k=1", ns[i]);
		if (check(bloom_geometry_for(ns[i], 0, &g) == BLOOM_OK, "not OK"))
			check(g.bits == 64 && g.filter_bytes == 9 && g.k == 1,
				  "got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits,
				  g.filter_bytes, g.k);
		test_end();
	}

	for (i = 0; i < sizeof(bpks) / sizeof(bpks[0]); i++)
	{
		test_begin("n=0, bpk=%" PRId64 ": 64 bits", bpks[i]);
		if (check(bloom_geometry_for(0, bpks[i], &g) == BLOOM_OK, "not OK"))
			check(g.bits == 64 && g.filter_bytes == 9 &&
				  g.k == ref_k(bpks[i]),
				  "got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits,
				  g.filter_bytes, g.k);
		test_end();
	}

	/* all the ways n * bpk can fall short of, hit or pass a byte boundary */
	test_begin("rounding sweep n=0..300, bpk=0..40");
	for (n = 0; n <= 300; n++)
		for (bpk = 0; bpk <= 40; bpk++)
			check_geometry(n, bpk);
	test_end();

	test_begin("n * bpk not a multiple of 8 rounds up: n=7, bpk=10");
	if (check(bloom_geometry_for(7, 10, &g) == BLOOM_OK, "not OK"))
		check(g.bits == 72 && g.filter_bytes == 10,
			  "70 bits: expected 72 bits in 10 bytes, got %" PRIu64
			  " bits in %" PRIu64 " bytes", g.bits, g.filter_bytes);
	test_end();

	test_begin("large n and bpk against 128-bit arithmetic");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(bpks) / sizeof(bpks[0]); j++)
			check_geometry(ns[i], bpks[j]);
	test_end();

	test_begin("k for bpk 0..100 is clamp(floor(bpk * 0.69), 1, 30)");
	for (bpk = 0; bpk <= 100; bpk++)
	{
		unsigned	k = ref_k(bpk);

		check(bloom_k_for_bits_per_key(bpk) == k &&
			  bloom_geometry_for(5, bpk, &g) == BLOOM_OK && g.k == k,
			  "bpk=%" PRId64 ": expected k=%u, got %u (geometry %u)", bpk,
			  k, bloom_k_for_bits_per_key(bpk), g.k);
	}
	test_end();

	test_begin("k is monotone in bpk and ends at 30");
	prev = 0;
	for (bpk = 0; bpk <= 1000; bpk++)
	{
		unsigned	k = bloom_k_for_bits_per_key(bpk);

		check(k >= prev && k >= 1 && k <= 30, "bpk=%" PRId64 ": k=%u after %u",
			  bpk, k, prev);
		prev = k;
	}
	check(bloom_k_for_bits_per_key(INT64_MAX) == 30, "k(INT64_MAX)=%u",
		  bloom_k_for_bits_per_key(INT64_MAX));
	test_end();

	expect_status(bloom_geometry_for(UINT64_MAX, 2, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n=UINT64_MAX, bpk=2 overflows");
	expect_status(bloom_geometry_for(3, INT64_MAX, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n=3, bpk=INT64_MAX overflows");
	expect_status(bloom_geometry_for(UINT64_C(1) << 32, INT64_C(1) << 32, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n * bpk = 2^64 overflows");
	expect_status(bloom_geometry_for(UINT64_MAX, INT64_MAX, &g),
				  BLOOM_ERR_SIZE_OVERFLOW, "n=UINT64_MAX, bpk=INT64_MAX overflows");

	/*
	 * n * bpk fits, but rounding up to whole bytes reaches 2^64 bits, which
	 * bloom_geometry.bits cannot hold.
	 */
	expect_status(bloom_geometry_for(UINT64_MAX, 1, &g),
				  BLOOM_ERR_SIZE_OVERFLOW,
				  "n * bpk = 2^64 - 1 rounds up to 2^64 bits: overflows");
	expect_status(bloom_geometry_for(UINT64_MAX / 3, 3, &g),
				  BLOOM_ERR_SIZE_OVERFLOW,
				  "n=(2^64-1)/3, bpk=3 rounds up to 2^64 bits: overflows");
	expect_status(bloom_geometry_for(UINT64_MAX - 6, 1, &g),
				  BLOOM_ERR_SIZE_OVERFLOW,
				  "n * bpk = 2^64 - 7 rounds up to 2^64 bits: overflows");

	test_begin("largest size that fits: n=2^61-1, bpk=8 gives 2^64-8 bits");
	if (check(bloom_geometry_for((UINT64_C(1) << 61) - 1, 8, &g) == BLOOM_OK,
			  "not OK"))
		check(g.bits == UINT64_MAX - 7 && g.filter_bytes == UINT64_C(1) << 61 &&
			  g.k == 5,
			  "got bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits,
			  g.filter_bytes, g.k);
	test_end();

	test_begin("largest size that fits: n=2^64-8, bpk=1");
	if (check(bloom_geometry_for(UINT64_MAX - 7, 1, &g) == BLOOM_OK, "not OK"))
		check(g.bits == UINT64_MAX - 7 && g.filter_bytes == UINT64_C(1) << 61,
			  "got bits=%" PRIu64 " bytes=%" PRIu64, g.bits, g.filter_bytes);
	test_end();

	expect_status(bloom_geometry_for(0, -1, &g),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bpk=-1, n=0");
	expect_status(bloom_geometry_for(5, -1, &g),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bpk=-1, n=5");
	expect_status(bloom_geometry_for(UINT64_MAX, INT64_MIN, &g),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bpk=INT64_MIN, n=UINT64_MAX");

	group_end();
}

/* ---- build and probe -------------------------------------------------- */

static bool
bit_is_set(const uint8_t *a, uint64_t pos)
{
	return (a[pos / 8] >> (pos % 8)) & 1;
}

static void
test_build_probe(void)
{
	uint8_t		buf[64];
	uint8_t		a[200],
				b[200];
	uint32_t	hashes[50];
	bloom_geometry g;
	size_t		i,
				len;
	unsigned	k,
				v;
	int			round;

	group_begin("build and probe");

	test_begin("filters of 0 and 1 bytes never match");
	memset(buf, 0xff, sizeof(buf));
	for (i = 0; i < 100; i++)
	{
		uint32_t	h = (uint32_t) rng_next();

		check(!bloom_may_contain_hash(buf, 0, h), "len 0, hash %08x", h);
		for (v = 0; v < 256; v++)
		{
			buf[0] = (uint8_t) v;
			check(!bloom_may_contain_hash(buf, 1, h),
				  "len 1, byte %02x, hash %08x", v, h);
		}
	}
	check(!bloom_may_contain(buf, 0, "", 0) && !bloom_may_contain(buf, 1, "a", 1),
		  "bloom_may_contain on a short filter matched");
	test_end();

	test_begin("k byte 31..255 always matches");
	memset(buf, 0, sizeof(buf));
	for (v = BLOOM_MAX_K + 1; v < 256; v++)
		for (len = 2; len <= 9; len += 7)
		{
			buf[len - 1] = (uint8_t) v;
			for (i = 0; i < 20; i++)
			{
				uint32_t	h = (uint32_t) rng_next();

				check(bloom_may_contain_hash(buf, len, h),
					  "len %zu, k byte %u, hash %08x", len, v, h);
			}
		}
	test_end();

	test_begin("k byte 0 always matches");
	memset(buf, 0, sizeof(buf));
	for (len = 2; len <= 9; len++)
		for (i = 0; i < 20; i++)
		{
			uint32_t	h = (uint32_t) rng_next();

			check(bloom_may_contain_hash(buf, len, h), "len %zu, hash %08x",
				  len, h);
		}
	test_end();

	test_begin("k 1..30: no bit set never matches, all bits set always does");
	for (k = 1; k <= BLOOM_MAX_K; k++)
		for (i = 0; i < 20; i++)
		{
			uint32_t	h = (uint32_t) rng_next();

			memset(buf, 0, 9);
			buf[8] = (uint8_t) k;
			check(!bloom_may_contain_hash(buf, 9, h), "zero bits, k=%u, %08x",
				  k, h);
			memset(buf, 0xff, 8);
			check(bloom_may_contain_hash(buf, 9, h), "all bits, k=%u, %08x",
				  k, h);
		}
	test_end();

	test_begin("bloom_set_hash sets exactly the double-hashing positions");
	for (round = 0; round < 200; round++)
	{
		uint64_t	nbits = 8 * (1 + rng_next() % (sizeof(a) - 1));
		uint32_t	h = (uint32_t) rng_next();

		k = 1 + (unsigned) (rng_next() % BLOOM_MAX_K);
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		ref_add_hash(b, nbits, k, h);
		bloom_set_hash(a, nbits, k, h);
		check(memcmp(a, b, sizeof(a)) == 0, "nbits=%" PRIu64 " k=%u hash=%08x",
			  nbits, k, h);
	}
	test_end();

	test_begin("bloom_build_from_hashes does not depend on the hash order");
	for (round = 0; round < 50; round++)
	{
		size_t		n = rng_next() % 50;

		for (i = 0; i < n; i++)
			hashes[i] = (uint32_t) rng_next();
		if (!check(bloom_geometry_for(n, 1 + (int64_t) (rng_next() % 30), &g)
				   == BLOOM_OK && g.filter_bytes <= sizeof(a), "geometry"))
			break;
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		bloom_build_from_hashes(a, &g, hashes, n);
		for (i = 0; i < n / 2; i++)
		{
			uint32_t	t = hashes[i];

			hashes[i] = hashes[n - 1 - i];
			hashes[n - 1 - i] = t;
		}
		bloom_build_from_hashes(b, &g, hashes, n);
		check(memcmp(a, b, sizeof(a)) == 0, "n=%zu", n);
		for (i = 0; i < n; i++)
			check(bloom_may_contain_hash(a, g.filter_bytes, hashes[i]),
				  "n=%zu: hash %08x not found", n, hashes[i]);
	}
	test_end();

	test_begin("no keys: an empty bit array and the k byte");
	if (check(bloom_geometry_for(0, 10, &g) == BLOOM_OK, "geometry"))
	{
		memset(a, 0, sizeof(a));
		bloom_build_from_hashes(a, &g, NULL, 0);
		for (i = 0; i + 1 < g.filter_bytes; i++)
			check(a[i] == 0, "byte %zu is %02x", i, a[i]);
		check(a[g.filter_bytes - 1] == g.k, "k byte %u, want %u",
			  a[g.filter_bytes - 1], g.k);
		check(a[g.filter_bytes] == 0, "wrote past the filter");
	}
	test_end();

	group_end();
}

/* ---- filters of more than 2^32 bits ----------------------------------- */

/*
 * LevelDB's probe positions are 32-bit sums taken modulo the bit count, so
 * a filter of more than 2^32 bits is only ever touched in its first 2^32
 * bits.  A 2^33-bit filter is mapped with everything between bit 2^32 and
 * the k byte inaccessible: a stray access faults, and the fault is turned
 * into a test failure.  The mapping reserves no memory; only the pages
 * written or read are materialized.
 */
static sigjmp_buf guard_jump;
static volatile sig_atomic_t guard_armed;

static void
guard_handler(int sig)
{
	if (guard_armed)
	{
		guard_armed = 0;
		siglongjmp(guard_jump, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

#define LOW_BYTES	((size_t) 1 << 29)	/* 2^32 bits */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

static uint64_t
popcount_low(const uint8_t *map)
{
	const uint64_t *w = (const uint64_t *) map;
	uint64_t	total = 0;
	size_t		i;

	for (i = 0; i < LOW_BYTES / 8; i++)
		total += (uint64_t) __builtin_popcountll(w[i]);
	return total;
}

/*
 * Check that exactly the 32-bit probe positions of the hashes are set in
 * the first 2^32 bits of map, then clear them again.
 */
static void
check_and_clear_positions(uint8_t *map, const uint32_t *hashes, size_t n,
						  unsigned k)
{
	uint32_t   *pos = xcalloc(n * k * sizeof(uint32_t));
	size_t		npos = 0,
				distinct = 0,
				i;
	unsigned	j;
	uint64_t	set;

	for (i = 0; i < n; i++)
	{
		uint32_t	x = hashes[i];

		for (j = 0; j < k; j++)
		{
			pos[npos++] = x;
			x += ref_delta(hashes[i]);
		}
	}
	qsort(pos, npos, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < npos; i++)
	{
		if (i == 0 || pos[i] != pos[i - 1])
			distinct++;
		check(bit_is_set(map, pos[i]), "bit %" PRIu32 " is not set", pos[i]);
	}
	set = popcount_low(map);
	check(set == distinct, "%" PRIu64 " bits set, expected %zu", set,
		  distinct);
	for (i = 0; i < npos; i++)
		map[pos[i] / 8] = 0;
	free(pos);
}

static void
test_big_filter(void)
{
	static const char *const keys[] = {"", "a", "hello", "key-100000"};
	uint32_t	hashes[10];
	size_t		nhashes = 0;
	bloom_geometry g;
	size_t		page,
				maplen,
				kpage,
				i;
	uint8_t    *map;
	struct sigaction sa,
				old_segv,
				old_bus;

	group_begin("filters beyond 2^32 bits");

	/* positions any 64-bit slip would push past bit 2^32 */
	hashes[nhashes++] = 0;
	hashes[nhashes++] = 1;
	hashes[nhashes++] = UINT32_C(0x80000000);
	hashes[nhashes++] = UINT32_C(0xfffffff0);
	hashes[nhashes++] = UINT32_C(0xffffffff);
	hashes[nhashes++] = UINT32_C(0xdeadbeef);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		hashes[nhashes++] = bloom_key_hash(keys[i], strlen(keys[i]));

	test_begin("geometry of 2^30 keys at 8 bits each");
	check(bloom_geometry_for(UINT64_C(1) << 30, 8, &g) == BLOOM_OK &&
		  g.bits == UINT64_C(1) << 33 &&
		  g.filter_bytes == (UINT64_C(1) << 30) + 1 && g.k == ref_k(8),
		  "bits=%" PRIu64 " bytes=%" PRIu64 " k=%u", g.bits, g.filter_bytes,
		  g.k);
	test_end();
	if (test_failed)
	{
		group_end();
		return;
	}
	if (sizeof(size_t) < 8)
	{
		printf("SKIP %s: size_t cannot hold a 2^30-byte filter length\n",
			   group_name);
		group_end();
		return;
	}

	page = (size_t) sysconf(_SC_PAGESIZE);
	maplen = ((size_t) g.filter_bytes + page - 1) / page * page;
	kpage = ((size_t) g.filter_bytes - 1) / page * page;
	map = mmap(NULL, maplen, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
	{
		printf("SKIP %s: cannot map %zu bytes of address space: %s\n",
			   group_name, maplen, strerror(errno));
		group_end();
		return;
	}
	if (mprotect(map, LOW_BYTES, PROT_READ | PROT_WRITE) != 0 ||
		mprotect(map + kpage, maplen - kpage, PROT_READ | PROT_WRITE) != 0)
	{
		printf("SKIP %s: mprotect: %s\n", group_name, strerror(errno));
		munmap(map, maplen);
		group_end();
		return;
	}
	/* the few pages written should not each become a 2 MB huge page */
	(void) madvise(map, LOW_BYTES, MADV_NOHUGEPAGE);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guard_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);

	test_begin("building touches only the first 2^32 bits");
	if (sigsetjmp(guard_jump, 1) == 0)
	{
		guard_armed = 1;
		bloom_build_from_hashes(map, &g, hashes, nhashes);
		guard_armed = 0;
		check(map[g.filter_bytes - 1] == g.k, "k byte %u", map[g.filter_bytes - 1]);
		check_and_clear_positions(map, hashes, nhashes, g.k);
	}
	else
		fail("bloom_build_from_hashes accessed a byte beyond bit 2^32");
	test_end();

	test_begin("probing reads only the first 2^32 bits");
	/* set the bits again, through the path just tested */
	for (i = 0; i < nhashes; i++)
		bloom_set_hash(map, g.bits, g.k, hashes[i]);
	if (sigsetjmp(guard_jump, 1) == 0)
	{
		uint32_t	absent = 0;
		bool		found = false;

		guard_armed = 1;
		for (i = 0; i < nhashes; i++)
			check(bloom_may_contain_hash(map, (size_t) g.filter_bytes,
										 hashes[i]),
				  "inserted hash %08" PRIx32 " does not match", hashes[i]);
		/* a hash whose first position is clear cannot match */
		for (i = 0; i < 1000 && !found; i++)
		{
			absent = (uint32_t) rng_next();
			found = !bit_is_set(map, absent);
		}
		if (found)
			check(!bloom_may_contain_hash(map, (size_t) g.filter_bytes, absent),
				  "hash %08" PRIx32 " matches though bit %" PRIu32
				  " is clear", absent, absent);
		guard_armed = 0;
	}
	else
		fail("bloom_may_contain_hash accessed a byte beyond bit 2^32");
	check_and_clear_positions(map, hashes, nhashes, g.k);
	test_end();

	test_begin("bloom_set_hash with 2^64 - 8 bits");
	if (sigsetjmp(guard_jump, 1) == 0)
	{
		guard_armed = 1;
		for (i = 0; i < nhashes; i++)
			bloom_set_hash(map, UINT64_MAX - 7, BLOOM_MAX_K, hashes[i]);
		guard_armed = 0;
		check_and_clear_positions(map, hashes, nhashes, BLOOM_MAX_K);
	}
	else
		fail("bloom_set_hash accessed a byte beyond bit 2^32");
	test_end();

	guard_armed = 0;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	munmap(map, maplen);
	group_end();
}

/* ---- validation ------------------------------------------------------- */

static void
test_validate(void)
{
	uint8_t		buf[16] = {0};
	unsigned	v;

	group_begin("validation");
	expect_status(bloom_validate(buf, 0), BLOOM_ERR_FILTER_TOO_SHORT, "len 0");
	buf[0] = 6;
	expect_status(bloom_validate(buf, 1), BLOOM_ERR_FILTER_TOO_SHORT,
				  "len 1 holding a valid k");
	buf[1] = 0;
	expect_status(bloom_validate(buf, 2), BLOOM_ERR_K_ZERO, "len 2, k=0");

	test_begin("every k byte 0..255 at lengths 2 and 9");
	for (v = 0; v < 256; v++)
	{
		bloom_status want = v == 0 ? BLOOM_ERR_K_ZERO :
			v > BLOOM_MAX_K ? BLOOM_ERR_K_RESERVED : BLOOM_OK;

		buf[1] = buf[8] = (uint8_t) v;
		check(bloom_validate(buf, 2) == want && bloom_validate(buf, 9) == want,
			  "k=%u: expected %s", v, status_name(want));
	}
	test_end();
	group_end();
}

/* ---- text form -------------------------------------------------------- */

static void
expect_hex_status(const char *text, size_t len, bloom_status want,
				  const char *what)
{
	size_t		decoded;
	uint8_t    *buf = malloc(bloom_hex_decoded_max(len) + 1);

	expect_status(bloom_hex_decode(text, len, buf, &decoded), want, "%s", what);
	free(buf);
}

static void
test_hex(void)
{
	uint8_t		bytes[300],
				back[300];
	char		text[2 + 2 * 300 + 1];
	size_t		len,
				n,
				decoded,
				i;
	int			round;
	bloom_status st;

	group_begin("hex text form");

	test_begin("encode and decode round trip, lowercase output");
	for (round = 0; round < 300; round++)
	{
		len = round < 20 ? (size_t) round : rng_next() % sizeof(bytes);
		for (i = 0; i < len; i++)
			bytes[i] = (uint8_t) rng_next();
		n = bloom_hex_encode(bytes, len, text);
		if (!check(n == bloom_hex_encoded_len(len) && n == 2 + 2 * len,
				   "len %zu: encoded to %zu characters", len, n))
			continue;
		check(text[0] == '\\' && text[1] == 'x', "len %zu: prefix", len);
		for (i = 2; i < n; i++)
			check((text[i] >= '0' && text[i] <= '9') ||
				  (text[i] >= 'a' && text[i] <= 'f'),
				  "len %zu: character %zu is '%c'", len, i, text[i]);
		for (i = 0; i < len; i++)
		{
			static const char digits[] = "0123456789abcdef";

			check(text[2 + 2 * i] == digits[bytes[i] >> 4] &&
				  text[3 + 2 * i] == digits[bytes[i] & 15],
				  "len %zu: byte %zu (%02x) encoded as %.2s", len, i,
				  bytes[i], text + 2 + 2 * i);
		}
		memset(back, 0xa5, sizeof(back));
		st = bloom_hex_decode(text, n, back, &decoded);
		if (!check(st == BLOOM_OK && decoded == len, "len %zu: decode %s, %zu",
				   len, status_name(st), decoded))
			continue;
		check(memcmp(back, bytes, len) == 0, "len %zu: decoded differently",
			  len);
		check(len == sizeof(back) || back[len] == 0xa5,
			  "len %zu: decode wrote past the end", len);
	}
	test_end();

	test_begin("upper-case digits are accepted");
	for (i = 0; i < 256; i++)
		bytes[i] = (uint8_t) i;
	n = bloom_hex_encode(bytes, 256, text);
	for (i = 2; i < n; i++)
		if (text[i] >= 'a' && text[i] <= 'f')
			text[i] = (char) (text[i] - 'a' + 'A');
	st = bloom_hex_decode(text, n, back, &decoded);
	if (check(st == BLOOM_OK && decoded == 256, "decode: %s", status_name(st)))
		check(memcmp(back, bytes, 256) == 0, "decoded differently");
	test_end();

	test_begin("every character: accepted exactly when a hex digit");
	for (i = 0; i < 256; i++)
	{
		char		t[4] = {'\\', 'x', '0', (char) i};
		bool		digit = (i >= '0' && i <= '9') || (i >= 'a' && i <= 'f') ||
			(i >= 'A' && i <= 'F');

		st = bloom_hex_decode(t, 4, back, &decoded);
		check(st == (digit ? BLOOM_OK : BLOOM_ERR_HEX_DIGIT),
			  "character 0x%02zx: %s", i, status_name(st));
		t[2] = t[3];
		t[3] = '0';
		st = bloom_hex_decode(t, 4, back, &decoded);
		check(st == (digit ? BLOOM_OK : BLOOM_ERR_HEX_DIGIT),
			  "character 0x%02zx as high digit: %s", i, status_name(st));
	}
	test_end();

	test_begin("empty payload \\x decodes to 0 bytes");
	decoded = 99;
	memset(back, 0xa5, 4);
	st = bloom_hex_decode("\\x", 2, back, &decoded);
	check(st == BLOOM_OK && decoded == 0, "%s, %zu bytes", status_name(st),
		  decoded);
	check(back[0] == 0xa5, "decode wrote a byte");
	test_end();

	test_begin("only textlen characters are read");
	st = bloom_hex_decode("\\x00ffzz", 4, back, &decoded);
	check(st == BLOOM_OK && decoded == 1, "%s, %zu bytes", status_name(st),
		  decoded);
	test_end();

	expect_hex_status("", 0, BLOOM_ERR_HEX_PREFIX, "empty text");
	expect_hex_status("\\", 1, BLOOM_ERR_HEX_PREFIX, "lone backslash");
	expect_hex_status("x00", 3, BLOOM_ERR_HEX_PREFIX, "missing backslash");
	expect_hex_status("00ff", 4, BLOOM_ERR_HEX_PREFIX, "no prefix");
	expect_hex_status("\\X00", 4, BLOOM_ERR_HEX_PREFIX, "upper-case \\X");
	expect_hex_status("/x00", 4, BLOOM_ERR_HEX_PREFIX, "slash for backslash");
	expect_hex_status("\\\\x00", 5, BLOOM_ERR_HEX_PREFIX, "doubled backslash");
	expect_hex_status("\\x0", 3, BLOOM_ERR_HEX_ODD, "one digit");
	expect_hex_status("\\x123", 5, BLOOM_ERR_HEX_ODD, "three digits");
	expect_hex_status("\\x0g", 4, BLOOM_ERR_HEX_DIGIT, "g");
	expect_hex_status("\\x 00", 5, BLOOM_ERR_HEX_DIGIT, "space");
	expect_hex_status("\\x00\n", 5, BLOOM_ERR_HEX_DIGIT, "trailing newline");
	expect_hex_status("\\x0\0", 4, BLOOM_ERR_HEX_DIGIT, "embedded NUL");
	expect_hex_status("\\x\xc3\xa4", 4, BLOOM_ERR_HEX_DIGIT, "non-ASCII");

	group_end();
}

/* ---- aggregate state -------------------------------------------------- */

static void
put_le64(uint8_t *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t) v;
}

static void
test_state(void)
{
	uint8_t		buf[BLOOM_STATE_HEADER_BYTES + 4 * 8];
	bloom_state_header h,
				got;
	bloom_status st;
	size_t		len;
	int			i;
	static const int32_t bpks[] = {0, 1, 10, 100, INT32_MAX};

	group_begin("aggregate state");

	test_begin("header layout is little-endian as documented");
	h.bits_per_key = 0x01020304;
	h.nhashes = UINT64_C(0x0102030405060708);
	memset(buf, 0xee, sizeof(buf));
	bloom_state_write_header(buf, &h);
	{
		static const uint8_t want[BLOOM_STATE_HEADER_BYTES] = {
			1, 0, 0, 0, 4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1,
		};

		check(memcmp(buf, want, sizeof(want)) == 0, "header %s",
			  hexs(buf, BLOOM_STATE_HEADER_BYTES));
		check(buf[BLOOM_STATE_HEADER_BYTES] == 0xee, "wrote past the header");
	}
	test_end();

	test_begin("hash_at reads little-endian words");
	{
		static const uint8_t words[8] = {1, 2, 3, 4, 0xff, 0, 0, 0x80};

		check(bloom_state_hash_at(words, 0) == UINT32_C(0x04030201) &&
			  bloom_state_hash_at(words, 1) == UINT32_C(0x800000ff),
			  "%08" PRIx32 " %08" PRIx32, bloom_state_hash_at(words, 0),
			  bloom_state_hash_at(words, 1));
	}
	test_end();

	test_begin("write then check round trip");
	for (i = 0; i < (int) (sizeof(bpks) / sizeof(bpks[0])); i++)
	{
		uint64_t	n;

		for (n = 0; n <= 8; n++)
		{
			h.bits_per_key = bpks[i];
			h.nhashes = n;
			bloom_state_write_header(buf, &h);
			len = (size_t) bloom_state_size(n);
			memset(&got, 0, sizeof(got));
			st = bloom_state_check(buf, len, &got);
			check(st == BLOOM_OK && got.bits_per_key == h.bits_per_key &&
				  got.nhashes == n,
				  "bpk=%d n=%" PRIu64 ": %s, bpk=%d n=%" PRIu64, bpks[i], n,
				  status_name(st), got.bits_per_key, got.nhashes);
		}
	}
	test_end();

	h.bits_per_key = 10;
	h.nhashes = 2;

	test_begin("truncated header");
	bloom_state_write_header(buf, &h);
	for (len = 0; len < BLOOM_STATE_HEADER_BYTES; len++)
	{
		st = bloom_state_check(buf, len, &got);
		check(st == BLOOM_ERR_STATE_TOO_SHORT, "len %zu: %s", len,
			  status_name(st));
	}
	test_end();

	bloom_state_write_header(buf, &h);
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 7, &got),
				  BLOOM_ERR_STATE_COUNT, "truncated inside the second hash");
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 4, &got),
				  BLOOM_ERR_STATE_COUNT, "one hash fewer than the count");
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 12, &got),
				  BLOOM_ERR_STATE_COUNT, "one hash more than the count");

	test_begin("wrong version");
	for (i = 0; i < 256; i++)
	{
		if (i == BLOOM_STATE_VERSION_HASHES || i == BLOOM_STATE_VERSION_GAPS)
			continue;
		bloom_state_write_header(buf, &h);
		buf[0] = (uint8_t) i;
		st = bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got);
		check(st == BLOOM_ERR_STATE_VERSION, "version %d: %s", i,
			  status_name(st));
	}
	test_end();

	test_begin("any nonzero flag or reserved bit");
	for (i = 8; i < 32; i++)
	{
		bloom_state_write_header(buf, &h);
		buf[i / 8] |= (uint8_t) (1u << (i % 8));
		st = bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got);
		check(st == BLOOM_ERR_STATE_RESERVED, "bit %d of byte %d: %s",
			  i % 8, i / 8, status_name(st));
	}
	test_end();

	h.bits_per_key = -1;
	bloom_state_write_header(buf, &h);
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bits_per_key -1");
	h.bits_per_key = INT32_MIN;
	bloom_state_write_header(buf, &h);
	expect_status(bloom_state_check(buf, BLOOM_STATE_HEADER_BYTES + 8, &got),
				  BLOOM_ERR_NEGATIVE_BITS_PER_KEY, "bits_per_key INT32_MIN");
	h.bits_per_key = 10;

	/* counts whose 4 * n wraps to a length the buffer has */
	test_begin("forged huge counts");
	{
		static const uint64_t forged[] = {
			UINT64_C(1) << 62, (UINT64_C(1) << 62) + 1, (UINT64_C(1) << 62) + 2,
			UINT64_C(1) << 63, (UINT64_C(1) << 63) + 2, UINT64_MAX,
			UINT64_MAX - 3, UINT64_C(1) << 32, (UINT64_C(1) << 30) + 2,
		};
		size_t		f;

		for (f = 0; f < sizeof(forged) / sizeof(forged[0]); f++)
			for (len = BLOOM_STATE_HEADER_BYTES; len <= sizeof(buf); len += 4)
			{
				bloom_state_write_header(buf, &h);
				put_le64(buf + 8, forged[f]);
				st = bloom_state_check(buf, len, &got);
				check(st == BLOOM_ERR_STATE_COUNT,
					  "count %" PRIu64 ", len %zu: %s", forged[f], len,
					  status_name(st));
			}
	}
	test_end();

	test_begin("bloom_state_size");
	check(bloom_state_size(0) == BLOOM_STATE_HEADER_BYTES, "size(0)");
	check(bloom_state_size(3) == BLOOM_STATE_HEADER_BYTES + 12, "size(3)");
	{
		uint64_t	max = (UINT64_MAX - BLOOM_STATE_HEADER_BYTES) / 4;

		check(bloom_state_size(max) == BLOOM_STATE_HEADER_BYTES + 4 * max,
			  "largest size");
		check(bloom_state_size(max + 1) == 0, "size(max + 1) = %" PRIu64,
			  bloom_state_size(max + 1));
	}
	check(bloom_state_size(UINT64_C(1) << 62) == 0, "size(2^62)");
	check(bloom_state_size(UINT64_MAX) == 0, "size(UINT64_MAX)");
	test_end();

	group_end();
}

static uint64_t random_hash_set(uint32_t *out, uint64_t n);

/*
 * Version 2 states: what bloom_state_v2_write writes is accepted with its
 * counts and decodes to its hashes; every inconsistent header or code is
 * refused with the status that names the rule.
 */
static void
test_state_v2(void)
{
	static const uint64_t sizes[] = {0, 1, 2, 5, 1000, 100000};
	uint32_t   *hashes = malloc(100000 * sizeof(uint32_t));
	uint32_t   *back = malloc(100000 * sizeof(uint32_t));
	uint8_t    *buf = malloc((size_t) bloom_state_v2_max_size(100000));
	bloom_state_header got;
	bloom_status st;
	size_t		s,
				len;
	uint64_t	n;

	group_begin("aggregate state, version 2");

	test_begin("write, check and read back random sets, with repeats counted");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint64_t	nkeys;

		n = random_hash_set(hashes, sizes[s]);
		nkeys = n == 0 ? 0 : n * 3 + 1;
		len = bloom_state_v2_write(buf, 17, nkeys, hashes, n);
		check(len <= bloom_state_v2_max_size(n), "%" PRIu64 " hashes: %zu bytes",
			  n, len);
		memset(&got, 0, sizeof(got));
		st = bloom_state_check(buf, len, &got);
		check(st == BLOOM_OK && got.version == 2 && got.bits_per_key == 17 &&
			  got.nkeys == nkeys && got.nhashes == n,
			  "%" PRIu64 " hashes: %s", n, status_name(st));
		if (st != BLOOM_OK)
			continue;
		st = bloom_state_read_hashes(buf, &got, back);
		check(st == BLOOM_OK && memcmp(back, hashes, n * sizeof(uint32_t)) == 0,
			  "%" PRIu64 " hashes read back: %s", n, status_name(st));
		/* any shorter length is refused, by the header or by the code */
		if (n > 0)
		{
			st = bloom_state_check(buf, len - 1, &got);
			if (st == BLOOM_OK)
				st = bloom_state_read_hashes(buf, &got, back);
			check(st != BLOOM_OK, "%" PRIu64 " hashes, a byte short: accepted", n);
		}
	}
	test_end();

	test_begin("header layout is little-endian as documented");
	hashes[0] = UINT32_C(0x15740498) >> 1;	/* any one hash */
	len = bloom_state_v2_write(buf, 0x01020304, UINT64_C(0x0102030405060708),
							   hashes, 1);
	{
		static const uint8_t want[BLOOM_STATE_V2_HEADER_BYTES] = {
			2, 0, 0, 0, 4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1,
			1, 0, 0, 0, 0, 0, 0, 0,
		};

		check(memcmp(buf, want, sizeof(want)) == 0, "header %s",
			  hexs(buf, BLOOM_STATE_V2_HEADER_BYTES));
	}
	test_end();

	/* one valid state of 5 distinct hashes and 9 keys to damage */
	n = random_hash_set(hashes, 5);

#define V2_WITH(nkeys_, ndistinct_, extra_) \
	do { \
		len = bloom_state_v2_write(buf, 10, 9, hashes, n) + (extra_); \
		put_le64(buf + 8, (nkeys_)); \
		put_le64(buf + 16, (ndistinct_)); \
	} while (0)

	V2_WITH(9, 5, 0);
	expect_status(bloom_state_check(buf, 23, &got), BLOOM_ERR_STATE_TOO_SHORT,
				  "v2 header cut short");
	V2_WITH(4, 5, 0);
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_COUNT,
				  "more distinct hashes than keys");
	V2_WITH(9, 0, 0);
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_COUNT,
				  "keys but no hashes");
	V2_WITH(0, 0, 0);
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_COUNT,
				  "no keys, with a code");
	expect_status(bloom_state_check(buf, BLOOM_STATE_V2_HEADER_BYTES, &got),
				  BLOOM_OK, "no keys, no code");
	V2_WITH(UINT64_MAX, (UINT64_C(1) << 32) + 1, 0);
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_COUNT,
				  "2^32 + 1 distinct hashes");
	V2_WITH(UINT64_MAX, UINT64_C(1) << 32, 0);
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_COUNT,
				  "2^32 distinct hashes in a few bytes");
	V2_WITH(1000, 1000, 0);
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_COUNT,
				  "more hashes than the code has bits for");
	V2_WITH(9, 5, 0);
	buf[len++] = 0;
	st = bloom_state_check(buf, len, &got);
	if (st == BLOOM_OK)
		st = bloom_state_read_hashes(buf, &got, back);
	check(st == BLOOM_ERR_GAPS_CODE, "a byte after the code: %s", status_name(st));
	V2_WITH(9, 6, 0);
	st = bloom_state_check(buf, len, &got);
	if (st == BLOOM_OK)
		st = bloom_state_read_hashes(buf, &got, back);
	check(st != BLOOM_OK, "a hash more than coded: %s", status_name(st));
	V2_WITH(9, 5, 0);
	buf[1] = 1;
	expect_status(bloom_state_check(buf, len, &got), BLOOM_ERR_STATE_RESERVED,
				  "v2 flag set");
#undef V2_WITH

	test_begin("max size: 0 past 2^32 hashes");
	check(bloom_state_v2_max_size(0) == BLOOM_STATE_V2_HEADER_BYTES, "empty");
	check(bloom_state_v2_max_size(UINT64_C(1) << 32) != 0, "2^32");
	check(bloom_state_v2_max_size((UINT64_C(1) << 32) + 1) == 0, "2^32 + 1");
	test_end();

	group_end();
	free(buf);
	free(back);
	free(hashes);
}

/* ---- the threaded final (bloom_final.c) ---------------------------------- */

/* Threaded finals run by final_same_bytes, by way of setting the bits. */
static unsigned final_runs_in_copies;
static unsigned final_runs_in_buckets;

/*
 * The bits set on several threads are those bloom_build_from_hashes sets on
 * one, for any split of the hashes into runs (empty ones included).
 */
static void
final_same_bytes(const uint32_t *hashes, size_t n, int64_t bpk,
				 const size_t *cuts, size_t ncuts, const char *what)
{
	static const unsigned threads[] = {1, 2, 3, 8};
	bloom_geometry g;
	bloom_hash_run runs[16];
	uint8_t    *want,
			   *got;
	size_t		nruns = 0,
				from = 0;

	if (bloom_geometry_for(n, bpk, &g) != BLOOM_OK)
	{
		check(false, "%s: no geometry", what);
		return;
	}
	for (size_t c = 0; c <= ncuts; c++)
	{
		size_t		to = c < ncuts ? cuts[c] : n;

		runs[nruns] = (bloom_hash_run) {hashes + from, to - from, NULL, 0, NULL};
		nruns++;
		from = to;
	}
	want = calloc(1, g.filter_bytes);
	got = malloc(g.filter_bytes);
	bloom_build_from_hashes(want, &g, hashes, n);
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
	{
		bloom_status st;

		memset(got, 0xa5, g.filter_bytes);	/* the final zeroes it */
		st = bloom_build_from_runs(got, &g, runs, nruns, threads[t]);
		check(st == BLOOM_OK && memcmp(got, want, g.filter_bytes) == 0,
			  "%s: %zu hashes, bpk %" PRId64 ", %zu runs, %u threads: %s",
			  what, n, bpk, nruns, threads[t],
			  st != BLOOM_OK ? status_name(st) : "different bytes");
		if (threads[t] >= 2 && bloom_final_threads_for(&g, n, threads[t]) >= 2)
		{
			if (bloom_final_uses_copies(&g, threads[t]))
				final_runs_in_copies++;
			else
				final_runs_in_buckets++;
		}
		if (threads[t] < 2)
			continue;
		/* and in each way, whichever would be chosen */
		for (int way = BLOOM_FINAL_WAY_COPIES; way <= BLOOM_FINAL_WAY_BUCKETS; way++)
		{
			memset(got, 0xa5, g.filter_bytes);
			st = bloom_build_from_runs_way(got, &g, runs, nruns, threads[t],
										   (bloom_final_way) way);
			check(st == BLOOM_OK && memcmp(got, want, g.filter_bytes) == 0,
				  "%s: %zu hashes, bpk %" PRId64 ", %zu runs, %u threads, in %s: %s",
				  what, n, bpk, nruns, threads[t],
				  way == BLOOM_FINAL_WAY_COPIES ? "copies" : "buckets",
				  st != BLOOM_OK ? status_name(st) : "different bytes");
		}
	}
	free(got);
	free(want);
}

static void
test_final(void)
{
	size_t		n = 3000000;
	uint32_t   *hashes = malloc(n * sizeof(uint32_t));
	size_t		cuts[8];
	bloom_geometry g;

	group_begin("threaded final");
	for (size_t i = 0; i < n; i++)
		hashes[i] = (uint32_t) rng_next();

	test_begin("same bytes as one thread, filters above the threaded size");
	/* 3M hashes at 20 and 12 bits a key: 60M and 36M bits */
	cuts[0] = 1000;
	cuts[1] = 1000;				/* an empty run */
	cuts[2] = 1234567;
	cuts[3] = 2999999;
	final_same_bytes(hashes, n, 20, cuts, 4, "uneven runs");
	final_same_bytes(hashes, n, 12, cuts, 0, "one run");
	/* k = 1 and k = 30 */
	final_same_bytes(hashes, 2000000, 44, cuts, 3, "k = 30");
	final_same_bytes(hashes, 2000000, 17, cuts, 3, "k = 11");
	/* both ways of setting the bits ran */
	check(final_runs_in_copies > 0 && final_runs_in_buckets > 0,
		  "threaded finals in copies: %u, in buckets: %u",
		  final_runs_in_copies, final_runs_in_buckets);
	test_end();

	test_begin("copies for moderate filters, buckets beyond");
	bloom_geometry_for(4000000, 10, &g);	/* 5 MB */
	check(bloom_final_uses_copies(&g, 2) && bloom_final_uses_copies(&g, 4),
		  "5 MB on 2 or 4 threads: not in copies");
	check(!bloom_final_uses_copies(&g, 16), "5 MB on 16 threads: in copies");
	bloom_geometry_for(6700000, 10, &g);	/* 8,375,001 bytes, just under 8 MB */
	check(bloom_final_uses_copies(&g, 2), "8 MB on 2 threads: not in copies");
	bloom_geometry_for(6720000, 10, &g);	/* 8,400,001 bytes, just over */
	check(!bloom_final_uses_copies(&g, 2), "over 8 MB on 2 threads: in copies");
	bloom_geometry_for(10000000, 10, &g);	/* 12.5 MB */
	check(!bloom_final_uses_copies(&g, 2), "12.5 MB on 2 threads: in copies");
	bloom_geometry_for(40000000, 10, &g);	/* 50 MB */
	check(!bloom_final_uses_copies(&g, 2), "50 MB on 2 threads: in copies");
	bloom_geometry_for(100000000, 10, &g);	/* 125 MB */
	check(!bloom_final_uses_copies(&g, 2), "125 MB on 2 threads: in copies");
	check(!bloom_final_uses_copies(&g, 1), "one thread: in copies");
	test_end();

	test_begin("one thread's scratch: none for a few keys into a large filter");
	bloom_geometry_for(50000000, 10, &g);	/* 62.5 MB, k = 6 */
	check(bloom_final_scratch_size(&g, 1000) == 0, "1,000 keys: %zu words",
		  bloom_final_scratch_size(&g, 1000));
	check(bloom_final_scratch_size(&g, 50000000) == bloom_set_scratch_size(g.bits),
		  "50M keys: %zu words", bloom_final_scratch_size(&g, 50000000));
	/* 1,000 keys set the same bits without it */
	{
		bloom_hash_run run = {hashes, 1000, NULL, 0, NULL};
		uint8_t    *want = calloc(1, g.filter_bytes);
		uint8_t    *got = calloc(1, g.filter_bytes);

		bloom_build_from_hashes(want, &g, hashes, 1000);
		check(bloom_build_from_runs(got, &g, &run, 1, 1) == BLOOM_OK &&
			  memcmp(got, want, g.filter_bytes) == 0, "1,000 keys: different bytes");
		free(got);
		free(want);
	}
	test_end();

	test_begin("same bytes for small filters and no hashes");
	final_same_bytes(hashes, 1000, 10, cuts, 0, "1000 hashes");
	final_same_bytes(hashes, 0, 10, cuts, 0, "no hashes");
	final_same_bytes(hashes, 100000, 1, cuts, 0, "k = 1");
	test_end();

	test_begin("coded runs: decoded on the threads, same bytes; a damaged code is reported");
	{
		size_t		m = 1000000;
		uint32_t   *sorted = malloc(m * sizeof(uint32_t));
		uint32_t   *scratch = malloc(m * sizeof(uint32_t));
		uint32_t   *decoded[2];
		uint8_t    *code;
		uint8_t    *want,
				   *got;
		size_t		d,
					len;
		unsigned	r;
		bloom_hash_run runs[3];
		static const unsigned threads[] = {1, 2, 8};

		memcpy(sorted, hashes, m * sizeof(uint32_t));
		d = bloom_sort_unique_hashes(sorted, m, scratch);
		r = bloom_gaps_rice_param(d);
		code = malloc(bloom_gaps_max_bytes(d, r));
		len = bloom_gaps_encode(sorted, d, r, code);
		/* 3M keys: one coded run, the same coded again, and plain hashes */
		bloom_geometry_for(n, 20, &g);
		want = calloc(1, g.filter_bytes);
		got = malloc(g.filter_bytes);
		bloom_build_from_hashes(want, &g, sorted, d);
		bloom_build_from_hashes(want, &g, hashes + m, n - m);
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			for (int way = BLOOM_FINAL_WAY_COPIES; way <= BLOOM_FINAL_WAY_BUCKETS; way++)
			{
				bloom_status st;
				const char *in = way == BLOOM_FINAL_WAY_COPIES ? "copies" : "buckets";

				if (threads[t] < 2 && way != BLOOM_FINAL_WAY_COPIES)
					continue;	/* one thread: one way */
				decoded[0] = malloc(d * sizeof(uint32_t));
				decoded[1] = malloc(d * sizeof(uint32_t));
				runs[0] = (bloom_hash_run) {decoded[0], d, code, len, decoded[0]};
				runs[1] = (bloom_hash_run) {decoded[1], d, code, len, decoded[1]};
				runs[2] = (bloom_hash_run) {hashes + m, n - m, NULL, 0, NULL};
				memset(got, 0xa5, g.filter_bytes);
				st = threads[t] < 2 ? bloom_build_from_runs(got, &g, runs, 3, 1) :
					bloom_build_from_runs_way(got, &g, runs, 3, threads[t],
											  (bloom_final_way) way);
				check(st == BLOOM_OK && memcmp(got, want, g.filter_bytes) == 0,
					  "%u threads (%s): %s", threads[t], in,
					  st != BLOOM_OK ? status_name(st) : "different bytes");
				/* a code one byte short */
				runs[1].code_len = len - 1;
				st = threads[t] < 2 ? bloom_build_from_runs(got, &g, runs, 3, 1) :
					bloom_build_from_runs_way(got, &g, runs, 3, threads[t],
											  (bloom_final_way) way);
				check(st == BLOOM_ERR_GAPS_CODE, "%u threads (%s), damaged code: %s",
					  threads[t], in, status_name(st));
				free(decoded[0]);
				free(decoded[1]);
			}
		free(got);
		free(want);
		free(code);
		free(scratch);
		free(sorted);
	}
	test_end();

	test_begin("buckets: sorted runs as parallel workers send them, and runs of a few hashes");
	{
		/*
		 * Six workers' states, each sorted (their first probes crowd into a
		 * few regions at a time), then 2,000 runs of 0 to 6 hashes, so that
		 * a claim's slices cross many runs, empty ones included.
		 */
		size_t		nsorted = 6,
					per = 400000,
					ntiny = 2000,
					total = 0,
					nruns = 0;
		uint32_t   *copy = malloc(n * sizeof(uint32_t));
		uint32_t   *scratch = malloc(per * sizeof(uint32_t));
		bloom_hash_run *runs = malloc((nsorted + ntiny) * sizeof(bloom_hash_run));
		uint8_t    *want,
				   *got;
		static const unsigned threads[] = {2, 3, 8};

		memcpy(copy, hashes, n * sizeof(uint32_t));
		for (size_t w = 0; w < nsorted; w++, total += per)
		{
			size_t		d = bloom_sort_unique_hashes(copy + total, per, scratch);

			runs[nruns++] = (bloom_hash_run) {copy + total, d, NULL, 0, NULL};
		}
		for (size_t i = 0; i < ntiny; i++)
		{
			size_t		len = i % 7;

			runs[nruns++] = (bloom_hash_run) {copy + total, len, NULL, 0, NULL};
			total += len;
		}
		bloom_geometry_for(total, 20, &g);
		want = calloc(1, g.filter_bytes);
		got = malloc(g.filter_bytes);
		for (size_t r = 0; r < nruns; r++)
			bloom_build_from_hashes(want, &g, runs[r].hashes, runs[r].n);
		want[g.filter_bytes - 1] = (uint8_t) g.k;
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
		{
			bloom_status st;

			memset(got, 0xa5, g.filter_bytes);
			st = bloom_build_from_runs_way(got, &g, runs, nruns, threads[t],
										   BLOOM_FINAL_WAY_BUCKETS);
			check(st == BLOOM_OK && memcmp(got, want, g.filter_bytes) == 0,
				  "%zu runs, %u threads: %s", nruns, threads[t],
				  st != BLOOM_OK ? status_name(st) : "different bytes");
		}
		free(got);
		free(want);
		free(runs);
		free(scratch);
		free(copy);
	}
	test_end();

	test_begin("threads worth it: one for small filters or few hashes");
	bloom_geometry_for(1000000, 10, &g);
	check(bloom_final_threads_for(&g, 1000000, 8) == 1, "10M bits: %u",
		  bloom_final_threads_for(&g, 1000000, 8));
	bloom_geometry_for(10000000, 10, &g);
	check(bloom_final_threads_for(&g, 10000000, 8) == 8, "100M bits, 8: %u",
		  bloom_final_threads_for(&g, 10000000, 8));
	check(bloom_final_threads_for(&g, 10000000, 1) == 1, "max 1");
	check(bloom_final_threads_for(&g, 600000, 8) == 2, "600k hashes: %u",
		  bloom_final_threads_for(&g, 600000, 8));
	test_end();

	test_begin("cancel: finish joins promptly and says so; start and finish alone");
	{
		bloom_final_job *job;
		uint8_t    *filter;
		bloom_hash_run run = {hashes, n, NULL, 0, NULL};
		bloom_status st;

		bloom_geometry_for(n, 40, &g);
		filter = calloc(1, g.filter_bytes);
		st = bloom_final_start(&job, filter, &g, &run, 1, 4);
		check(st == BLOOM_OK, "start: %s", status_name(st));
		if (st == BLOOM_OK)
		{
			bloom_final_cancel(job);
			st = bloom_final_finish(job);
			check(st == BLOOM_ERR_CANCELLED, "a cancelled job said %s", status_name(st));
		}
		/* waited for, a job completes */
		memset(filter, 0, g.filter_bytes);
		st = bloom_final_start(&job, filter, &g, &run, 1, 2);
		if (st == BLOOM_OK)
		{
			while (!bloom_final_wait(job, 5))
				;
			st = bloom_final_finish(job);
			check(st == BLOOM_OK, "a job waited for said %s", status_name(st));
		}
		/* finished without waiting: finish joins, and it completes */
		memset(filter, 0, g.filter_bytes);
		st = bloom_final_start(&job, filter, &g, &run, 1, 3);
		if (st == BLOOM_OK)
			check(bloom_final_finish(job) == BLOOM_OK, "finish without wait did not complete");
		check(bloom_final_start(&job, filter, &g, &run, 1, 1) == BLOOM_ERR_THREAD &&
			  bloom_final_start(&job, filter, &g, &run, 1, BLOOM_MAX_FINAL_THREADS + 1) ==
			  BLOOM_ERR_THREAD, "thread counts out of range accepted");
		free(filter);
	}
	test_end();

	group_end();
	free(hashes);
}

/* ---- the threaded flatten (bloom_flatten.c) ----------------------------- */

/*
 * Flatten runs on nthreads threads, waiting as a backend does: the code in
 * a new allocation (*code), its length and distinct count.  A failure's
 * status is returned with nothing allocated.
 */
static bloom_status
flatten_on_threads(const bloom_hash_run *runs, size_t nruns, unsigned nthreads,
				   uint8_t **code, size_t *len, uint64_t *ndistinct)
{
	bloom_flatten_job *job;
	bloom_status st = bloom_flatten_start(&job, runs, nruns, nthreads);
	size_t		ignored;

	*code = NULL;
	if (st != BLOOM_OK)
		return st;
	while (!bloom_flatten_wait(job, 5))
		;
	st = bloom_flatten_sorted(job, ndistinct);
	if (st != BLOOM_OK)
	{
		(void) bloom_flatten_finish(job, &ignored);
		return st;
	}
	*code = malloc(bloom_gaps_max_bytes(*ndistinct, bloom_gaps_rice_param(*ndistinct)) + 1);
	bloom_flatten_code(job, *code);
	while (!bloom_flatten_wait(job, 5))
		;
	st = bloom_flatten_finish(job, len);
	if (st != BLOOM_OK)
	{
		free(*code);
		*code = NULL;
	}
	return st;
}

/*
 * The code on 2, 3 and 8 threads is bloom_gaps_encode's of what
 * bloom_sort_unique_parts makes of the same (decoded) runs.
 */
static void
flatten_same_code(bloom_hash_run *runs, size_t nruns, const char *what)
{
	static const unsigned threads[] = {2, 3, 8};
	const uint32_t **parts = malloc((nruns + 1) * sizeof(uint32_t *));
	size_t	   *lens = malloc((nruns + 1) * sizeof(size_t));
	uint32_t   *tmp = malloc(BLOOM_SORT_TMP_MIN * sizeof(uint32_t));
	uint32_t   *out;
	uint8_t    *want;
	size_t		total = 0,
				want_len;
	uint64_t	d;

	for (size_t r = 0; r < nruns; r++)
	{
		check(bloom_hash_run_decode(&runs[r]) == BLOOM_OK, "%s: run %zu does not decode", what, r);
		parts[r] = runs[r].hashes;
		lens[r] = runs[r].n;
		total += runs[r].n;
	}
	out = malloc((total + 1) * sizeof(uint32_t));
	d = bloom_sort_unique_parts(parts, lens, nruns, out, tmp, BLOOM_SORT_TMP_MIN);
	want = malloc(bloom_gaps_max_bytes(d, bloom_gaps_rice_param(d)) + 1);
	want_len = bloom_gaps_encode(out, d, bloom_gaps_rice_param(d), want);
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
	{
		uint8_t    *got;
		size_t		len = 0;
		uint64_t	got_d = 0;
		bloom_status st;

		/* coded runs are decoded again by the job, over stale hashes */
		for (size_t r = 0; r < nruns; r++)
			if (runs[r].code != NULL)
				memset(runs[r].decode_into, 0x5a, runs[r].n * sizeof(uint32_t));
		st = flatten_on_threads(runs, nruns, threads[t], &got, &len, &got_d);
		check(st == BLOOM_OK && got_d == d && len == want_len &&
			  memcmp(got, want, len) == 0,
			  "%s: %zu hashes in %zu runs, %u threads: %s (%" PRIu64 " distinct, %zu bytes; want %" PRIu64 ", %zu)",
			  what, total, nruns, threads[t],
			  st != BLOOM_OK ? status_name(st) : "a different code", got_d, len, d, want_len);
		free(got);
	}
	free(want);
	free(out);
	free(tmp);
	free(lens);
	free(parts);
}

static void
test_flatten(void)
{
	size_t		n = 3000000;
	uint32_t   *hashes = malloc(n * sizeof(uint32_t));
	bloom_hash_run runs[8];

	group_begin("threaded flatten");
	for (size_t i = 0; i < n; i++)
		hashes[i] = (uint32_t) rng_next();
	/* repeats within and across runs */
	for (size_t i = 0; i < 200000; i++)
		hashes[n - 1 - i] = hashes[i * 7];

	test_begin("the serial sort's code: plain runs, repeats, empty runs, few hashes");
	runs[0] = (bloom_hash_run) {hashes, 1000000, NULL, 0, NULL};
	runs[1] = (bloom_hash_run) {hashes + 1000000, 0, NULL, 0, NULL};
	runs[2] = (bloom_hash_run) {hashes + 1000000, 1234567, NULL, 0, NULL};
	runs[3] = (bloom_hash_run) {hashes + 2234567, n - 2234567, NULL, 0, NULL};
	flatten_same_code(runs, 4, "uneven runs");
	flatten_same_code(runs, 1, "one run");
	flatten_same_code(runs + 1, 1, "no hashes");
	runs[4] = (bloom_hash_run) {hashes + 17, 1, NULL, 0, NULL};
	flatten_same_code(runs + 4, 1, "one hash");
	runs[4].n = 7;
	runs[5] = (bloom_hash_run) {hashes + 17, 7, NULL, 0, NULL};
	flatten_same_code(runs + 4, 2, "7 hashes twice");
	{
		/* every hash the same, and the extremes */
		uint32_t	same[5000];

		for (size_t i = 0; i < 5000; i++)
			same[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? UINT32_MAX : 12345;
		runs[6] = (bloom_hash_run) {same, 5000, NULL, 0, NULL};
		flatten_same_code(runs + 6, 1, "0, 12345 and 2^32 - 1 only");
	}
	test_end();

	test_begin("coded runs decoded on the threads; a damaged code is reported");
	{
		size_t		m = 1000000;
		uint32_t   *sorted = malloc(m * sizeof(uint32_t));
		uint32_t   *scratch = malloc(m * sizeof(uint32_t));
		uint32_t   *decoded[2];
		uint8_t    *code,
				   *got;
		size_t		d,
					len;
		uint64_t	got_d;
		unsigned	r;

		memcpy(sorted, hashes, m * sizeof(uint32_t));
		d = bloom_sort_unique_hashes(sorted, m, scratch);
		r = bloom_gaps_rice_param(d);
		code = malloc(bloom_gaps_max_bytes(d, r));
		len = bloom_gaps_encode(sorted, d, r, code);
		decoded[0] = malloc(d * sizeof(uint32_t));
		decoded[1] = malloc(d * sizeof(uint32_t));
		runs[0] = (bloom_hash_run) {decoded[0], d, code, len, decoded[0]};
		runs[1] = (bloom_hash_run) {hashes + m, n - m, NULL, 0, NULL};
		runs[2] = (bloom_hash_run) {decoded[1], d, code, len, decoded[1]};
		flatten_same_code(runs, 3, "two coded runs and a plain one");
		runs[2].code_len = len - 1;
		check(flatten_on_threads(runs, 3, 4, &got, &len, &got_d) == BLOOM_ERR_GAPS_CODE,
			  "a code one byte short was not reported");
		free(decoded[0]);
		free(decoded[1]);
		free(code);
		free(scratch);
		free(sorted);
	}
	test_end();

	test_begin("cancel and finish on every path: nothing left running");
	{
		bloom_flatten_job *job;
		size_t		len;
		uint64_t	d;

		runs[0] = (bloom_hash_run) {hashes, n, NULL, 0, NULL};
		/* cancelled at once */
		check(bloom_flatten_start(&job, runs, 1, 4) == BLOOM_OK, "start");
		bloom_flatten_cancel(job);
		while (!bloom_flatten_wait(job, 5))
			;
		check(bloom_flatten_finish(job, &len) == BLOOM_ERR_CANCELLED, "a cancelled job did not say so");
		/* sorted, then finished without an output */
		check(bloom_flatten_start(&job, runs, 1, 3) == BLOOM_OK, "start");
		while (!bloom_flatten_wait(job, 5))
			;
		check(bloom_flatten_sorted(job, &d) == BLOOM_OK && d > 0, "sorted");
		check(bloom_flatten_finish(job, &len) == BLOOM_ERR_CANCELLED,
			  "a job given no output did not say so");
		/* finished straight after the start */
		check(bloom_flatten_start(&job, runs, 1, 2) == BLOOM_OK, "start");
		check(bloom_flatten_finish(job, &len) == BLOOM_ERR_CANCELLED, "finish at once");
		check(bloom_flatten_start(&job, runs, 1, 1) == BLOOM_ERR_THREAD &&
			  bloom_flatten_start(&job, runs, 1, BLOOM_MAX_FINAL_THREADS + 1) == BLOOM_ERR_THREAD,
			  "thread counts out of range accepted");
	}
	test_end();

	group_end();
	free(hashes);
}

/* ---- bit counts, estimates and sizing (bloom_stats.c) ----------------- */

static void
test_popcount(void)
{
	uint8_t		buf[200];
	size_t		off,
				len,
				pos;

	group_begin("bit counts");

	test_begin("random bytes at every alignment: the same count as bit by bit");
	for (len = 0; len < sizeof(buf); len++)
		buf[len] = (uint8_t) rng_next();
	for (off = 0; off < 8; off++)
		for (len = 0; off + len <= 150; len++)
			check(bloom_popcount(buf + off, len) ==
				  ref_popcount(buf + off, len),
				  "offset %zu, len %zu: %" PRIu64 ", want %" PRIu64, off, len,
				  bloom_popcount(buf + off, len),
				  ref_popcount(buf + off, len));
	test_end();

	test_begin("all ones: 8 bits a byte");
	memset(buf, 0xff, sizeof(buf));
	for (off = 0; off < 8; off++)
		for (len = 0; off + len <= sizeof(buf); len++)
			check(bloom_popcount(buf + off, len) == 8 * len,
				  "offset %zu, len %zu", off, len);
	test_end();

	test_begin("one bit set anywhere counts once; bytes outside len never");
	for (pos = 0; pos < 8 * 40; pos++)
	{
		memset(buf, 0, sizeof(buf));
		buf[pos / 8 + 1] = (uint8_t) (1u << (pos % 8));
		buf[0] = buf[41] = 0xff;	/* just outside [1, 41) */
		check(bloom_popcount(buf + 1, 40) == 1, "bit %zu", pos);
	}
	test_end();

	group_end();
}

/*
 * The estimate's spread when each key's k positions are independent and
 * uniform (the estimator's own assumption), by the delta method: with
 * t = k n / m, the count of set bits X has variance about
 * m e^-t (1 - (1 + t) e^-t), and d(estimate)/dX = e^t / k.
 */
static double
estimate_sd(uint64_t m, unsigned k, uint64_t n)
{
	double		t = (double) k * n / m;
	double		var_x = m * exp(-t) * (1 - (1 + t) * exp(-t));

	return sqrt(var_x) * exp(t) / k;
}

static void
test_filter_stats(void)
{
	uint8_t		f[12501];
	bloom_stats st;
	size_t		len,
				i;
	int			round;

	group_begin("filter stats");

	test_begin("no bit set: no keys, no false positives");
	memset(f, 0, 9);
	f[8] = 6;
	bloom_stats_of(f, 9, &st);
	check(st.filter_bytes == 9 && st.bits == 64 && st.k == 6 &&
		  st.bits_set == 0, "bytes %" PRIu64 " bits %" PRIu64 " k %u set %"
		  PRIu64, st.filter_bytes, st.bits, st.k, st.bits_set);
	check(st.fill_ratio == 0 && st.false_positive_rate == 0, "fill %g fpr %g",
		  st.fill_ratio, st.false_positive_rate);
	check(st.estimated_keys == 0 && !signbit(st.estimated_keys),
		  "estimate %g", st.estimated_keys);
	test_end();

	test_begin("every bit set: any number of keys, everything matches");
	memset(f, 0xff, 8);
	f[8] = 6;
	bloom_stats_of(f, 9, &st);
	check(st.bits_set == 64 && st.fill_ratio == 1 &&
		  st.false_positive_rate == 1 && isinf(st.estimated_keys) &&
		  st.estimated_keys > 0,
		  "set %" PRIu64 " fill %g fpr %g estimate %g", st.bits_set,
		  st.fill_ratio, st.false_positive_rate, st.estimated_keys);
	test_end();

	test_begin("random filters: the formulas, restated");
	for (round = 0; round < 500; round++)
	{
		unsigned	k = 1 + (unsigned) (rng_next() % BLOOM_MAX_K);
		uint64_t	set;

		len = 2 + rng_next() % 300;
		for (i = 0; i + 1 < len; i++)
			f[i] = (uint8_t) (rng_next() & rng_next());
		f[len - 1] = (uint8_t) k;
		bloom_stats_of(f, len, &st);
		set = ref_popcount(f, len - 1);
		if (!check(st.filter_bytes == len && st.bits == 8 * (len - 1) &&
				   st.k == k && st.bits_set == set,
				   "len %zu: bytes %" PRIu64 " bits %" PRIu64 " k %u set %"
				   PRIu64 ", want set %" PRIu64, len, st.filter_bytes,
				   st.bits, st.k, st.bits_set, set))
			continue;
		check(st.fill_ratio == (double) set / st.bits, "len %zu: fill %g",
			  len, st.fill_ratio);
		check(ref_close(st.estimated_keys, ref_estimate(st.bits, k, set), 1e-9),
			  "len %zu: estimate %g, want %g", len, st.estimated_keys,
			  ref_estimate(st.bits, k, set));
		check(ref_close(st.false_positive_rate,
					   pow((double) set / st.bits, k), 1e-12),
			  "len %zu: rate %g", len, st.false_positive_rate);
	}
	test_end();

	test_begin("n keys at independent random positions: estimate within 5 sd of n");
	{
		const uint64_t m = 8 * (sizeof(f) - 1);
		const unsigned k = 6;
		static const uint64_t ns[] = {100, 1000, 5000, 10000, 20000};
		size_t		t;

		for (t = 0; t < sizeof(ns) / sizeof(ns[0]); t++)
		{
			uint64_t	n;
			double		sd = estimate_sd(m, k, ns[t]);

			memset(f, 0, sizeof(f));
			f[sizeof(f) - 1] = (uint8_t) k;
			for (n = 0; n < ns[t] * k; n++)
			{
				uint64_t	pos = rng_next() % m;

				f[pos / 8] |= (uint8_t) (1u << (pos % 8));
			}
			bloom_stats_of(f, sizeof(f), &st);
			check(fabs(st.estimated_keys - (double) ns[t]) <= 5 * sd,
				  "n %" PRIu64 ": estimate %.1f, sd %.1f", ns[t],
				  st.estimated_keys, sd);
		}
	}
	test_end();

	test_begin("a filter built from 10000 random keys at 10 bits a key");
	{
		static uint32_t hashes[10000];
		uint8_t    *built;
		bloom_geometry g;

		for (i = 0; i < 10000; i++)
		{
			uint64_t	key[2] = {rng_next(), rng_next()};

			hashes[i] = bloom_key_hash(key, sizeof(key));
		}
		if (check(bloom_geometry_for(10000, 10, &g) == BLOOM_OK, "geometry"))
		{
			built = xcalloc(g.filter_bytes);
			bloom_build_from_hashes(built, &g, hashes, 10000);
			bloom_stats_of(built, g.filter_bytes, &st);
			/*
			 * LevelDB derives a key's k positions from one 32-bit hash, so
			 * they are not independent; the bound is looser than above.
			 */
			check(fabs(st.estimated_keys - 10000) <= 300,
				  "estimate %.1f", st.estimated_keys);
			check(st.k == 6 && st.bits == 100000, "k %u bits %" PRIu64, st.k,
				  st.bits);
			free(built);
		}
	}
	test_end();

	group_end();
}

/*
 * A filter of 2^32 + 64 bits: the bits past 2^32 count as set bits, but
 * no probe can reach them, so they say nothing about keys.  The mapping
 * reserves no memory; reading its untouched pages maps the zero page.
 */
static void
test_stats_beyond_2_32(void)
{
	size_t		len = LOW_BYTES + 8 + 1;
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	size_t		maplen = (len + page - 1) / page * page;
	uint8_t    *map;
	bloom_stats st;
	const uint64_t reach = UINT64_C(1) << 32;

	group_begin("filter stats beyond 2^32 bits");
	if (sizeof(size_t) < 8)
	{
		printf("SKIP %s: size_t cannot hold the length\n", group_name);
		group_end();
		return;
	}
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
	{
		printf("SKIP %s: cannot map %zu bytes: %s\n", group_name, maplen,
			   strerror(errno));
		group_end();
		return;
	}
	map[0] = 0x0f;				/* 4 reachable bits */
	map[LOW_BYTES - 1] = 0x80;	/* the last reachable bit */
	memset(map + LOW_BYTES, 0xff, 8);	/* 64 bits no probe reaches */
	map[len - 1] = 7;

	test_begin("set bits counted everywhere, estimates from the first 2^32");
	bloom_stats_of(map, len, &st);
	check(st.bits == reach + 64 && st.filter_bytes == len && st.k == 7,
		  "bits %" PRIu64 " bytes %" PRIu64 " k %u", st.bits, st.filter_bytes,
		  st.k);
	check(st.bits_set == 69, "bits_set %" PRIu64, st.bits_set);
	check(st.fill_ratio == 5.0 / (double) reach, "fill %g", st.fill_ratio);
	check(ref_close(st.estimated_keys, ref_estimate(reach, 7, 5), 1e-6),
		  "estimate %g, want %g", st.estimated_keys,
		  ref_estimate(reach, 7, 5));
	check(ref_close(st.false_positive_rate, pow(5.0 / (double) reach, 7), 1e-12),
		  "rate %g", st.false_positive_rate);
	test_end();

	munmap(map, maplen);
	group_end();
}

static void
test_sizing(void)
{
	int64_t		b;
	int			round;
	double		prev;
	static const int64_t big[] = {
		44, 45, 100, 1000, 65536, 1000000, INT32_MAX / 2, INT32_MAX - 1,
		INT32_MAX,
	};
	size_t		i;

	group_begin("sizing");

	test_begin("bits_per_key 0 gives 1, negative gives NaN");
	check(bloom_expected_fpr(0) == 1.0 && bloom_ideal_fpr(0) == 1.0,
		  "bpk 0: %g", bloom_expected_fpr(0));
	check(isnan(bloom_expected_fpr(-1)) && isnan(bloom_expected_fpr(INT64_MIN)) &&
		  isnan(bloom_ideal_fpr(-1)),
		  "negative: %g", bloom_expected_fpr(-1));
	test_end();

	test_begin("ideal rate: (1 - e^(-k/bpk))^k with LevelDB's k, bpk 1..5000");
	for (b = 1; b <= 5000; b++)
		check(ref_close(bloom_ideal_fpr(b), ref_expected_fpr(b), 1e-9),
			  "bpk %" PRId64 ": %.17g, want %.17g", b, bloom_ideal_fpr(b),
			  ref_expected_fpr(b));
	test_end();

	/* 1 - exp(-x) loses digits for tiny x: only a loose cross-check */
	test_begin("ideal rate, large bits_per_key: the same formula, and k = 30");
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		check(ref_close(bloom_ideal_fpr(big[i]), ref_expected_fpr(big[i]), 1e-5) &&
			  ref_k(big[i]) == 30,
			  "bpk %" PRId64 ": %.17g, want %.17g", big[i],
			  bloom_ideal_fpr(big[i]), ref_expected_fpr(big[i]));
	test_end();

	test_begin("the ideal rate never rises with bits_per_key (0..100000)");
	prev = bloom_ideal_fpr(0);
	for (b = 1; b <= 100000; b++)
	{
		double		r = bloom_ideal_fpr(b);

		check(r <= prev && r > 0 && r < 1, "bpk %" PRId64 ": %.17g after %.17g",
			  b, r, prev);
		prev = r;
	}
	test_end();

	/*
	 * The expected rate is LevelDB's scheme measured (test/stats checks it
	 * against real keys): at 10 bits a key and 10^6 keys 1.25-1.30%, not
	 * the ideal 0.84%.
	 */
	test_begin("expected rate: the table's, above the ideal, never below the hash collisions");
	check(bloom_expected_fpr(10) > 0.0115 && bloom_expected_fpr(10) < 0.0140,
		  "bpk 10: %g", bloom_expected_fpr(10));
	for (b = 1; b <= 100000; b++)
	{
		double		r = bloom_expected_fpr(b);

		check(r >= bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS) &&
			  r >= 0.9 * bloom_ideal_fpr(b) && r < 1,
			  "bpk %" PRId64 ": %.17g (ideal %.17g)", b, r, bloom_ideal_fpr(b));
		if (b <= BLOOM_SCHEME_TABLE_MAX_BPK)
			check(r == bloom_scheme_table[b - 1][9] &&
				  bloom_scheme_table_counts[9] == BLOOM_EXPECTED_FPR_KEYS,
				  "bpk %" PRId64 ": %.17g is not the table's", b, r);
	}
	test_end();

	test_begin("past the table the expected rate never rises (21..100000)");
	prev = bloom_expected_fpr(BLOOM_SCHEME_TABLE_MAX_BPK);
	for (b = BLOOM_SCHEME_TABLE_MAX_BPK + 1; b <= 100000; b++)
	{
		double		r = bloom_expected_fpr(b);

		check(r <= prev, "bpk %" PRId64 ": %.17g after %.17g", b, r, prev);
		prev = r;
	}
	test_end();

	test_begin("bits_per_key for the rate of b is at most b, and minimal");
	for (b = 1; b <= 5000; b++)
	{
		double		target = bloom_expected_fpr(b);
		int64_t		got = bloom_bits_per_key_for_fpr(target);
		int64_t		j;
		bool		minimal = true;

		if (target <= bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS))
		{
			/* the rate has rounded onto the collisions: no bpk reaches it */
			check(got == BLOOM_BPK_UNREACHABLE, "bpk %" PRId64 ": got %" PRId64,
				  b, got);
			continue;
		}
		for (j = 0; j < got && j < 100; j++)
			minimal = minimal && bloom_expected_fpr(j) > target;
		check(got >= 1 && got <= b && bloom_expected_fpr(got) <= target &&
			  minimal && bloom_expected_fpr(got - 1) > target,
			  "bpk %" PRId64 " (rate %.17g): got %" PRId64, b, target, got);
	}
	test_end();

	test_begin("random targets 1e-230..1: the smallest bits_per_key, or none below the collisions");
	for (round = 0; round < 2000; round++)
	{
		double		target = pow(10, -230.0 * (double) (rng_next() % 1000001) / 1e6);
		int64_t		got;

		if (target >= 1)
			continue;
		got = bloom_bits_per_key_for_fpr(target);
		if (target <= bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS))
			check(got == BLOOM_BPK_UNREACHABLE, "target %.17g: got %" PRId64,
				  target, got);
		else
			check(got >= 1 && got <= INT32_MAX &&
				  bloom_expected_fpr(got) <= target &&
				  bloom_expected_fpr(got - 1) > target,
				  "target %.17g: got %" PRId64, target, got);
	}
	test_end();

	/*
	 * Measured on 10^6 md5-like keys (test/stats): 10 bits a key give 1.30%
	 * and 11 give 0.78%; 15 give 0.14%, 16 give 0.097%.
	 */
	test_begin("known answers: 1%% needs 11 bits a key, 0.1%% needs 16");
	check(bloom_bits_per_key_for_fpr(0.01) == 11, "1%%: %" PRId64,
		  bloom_bits_per_key_for_fpr(0.01));
	check(bloom_bits_per_key_for_fpr(0.001) == 16, "0.1%%: %" PRId64,
		  bloom_bits_per_key_for_fpr(0.001));
	check(bloom_bits_per_key_for_fpr(0.9999) == 1, "99.99%%: %" PRId64,
		  bloom_bits_per_key_for_fpr(0.9999));
	test_end();

	test_begin("rates at or below 10^6 keys' hash collisions are unreachable");
	{
		double		floor_rate = bloom_hash_collision_rate((double) BLOOM_EXPECTED_FPR_KEYS);

		check(floor_rate > 2.3e-4 && floor_rate < 2.4e-4, "floor %g", floor_rate);
		check(bloom_bits_per_key_for_fpr(floor_rate) == BLOOM_BPK_UNREACHABLE,
			  "at the floor: %" PRId64, bloom_bits_per_key_for_fpr(floor_rate));
		check(bloom_bits_per_key_for_fpr(floor_rate * 1.01) > BLOOM_SCHEME_TABLE_MAX_BPK,
			  "just above the floor: %" PRId64,
			  bloom_bits_per_key_for_fpr(floor_rate * 1.01));
		check(bloom_bits_per_key_for_fpr(1e-300) == BLOOM_BPK_UNREACHABLE,
			  "1e-300: %" PRId64, bloom_bits_per_key_for_fpr(1e-300));
	}
	test_end();

	group_end();
}

/* ---- gap-coded hash sets (bloom_gaps.c) -------------------------------- */

/* n random distinct hashes, sorted; returns how many (duplicates dropped) */
static uint64_t
random_hash_set(uint32_t *out, uint64_t n)
{
	uint64_t	i,
				m = 0;

	for (i = 0; i < n; i++)
		out[i] = (uint32_t) rng_next();
	qsort(out, (size_t) n, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < n; i++)
		if (m == 0 || out[i] != out[m - 1])
			out[m++] = out[i];
	return m;
}

/* Encode, check the size bound, decode, compare; returns the code size. */
static size_t
gaps_round_trip(const uint32_t *hashes, uint64_t n, unsigned r, const char *what)
{
	uint64_t	max = bloom_gaps_max_bytes(n, r);
	uint8_t    *code = malloc(max + 1);
	uint32_t   *back = malloc((n + 1) * sizeof(uint32_t));
	size_t		len;
	bloom_status st;

	len = bloom_gaps_encode(hashes, n, r, code);
	check(len <= max, "%s: %zu bytes, bound %llu", what, len, (unsigned long long) max);
	st = bloom_gaps_decode(code, len, n, r, back);
	if (check(st == BLOOM_OK, "%s (r %u): decode %s", what, r, status_name(st)))
		check(n == 0 || memcmp(back, hashes, n * sizeof(uint32_t)) == 0,
			  "%s (r %u): decoded differently", what, r);
	free(back);
	free(code);
	return len;
}

static void
test_gaps(void)
{
	static const uint64_t sizes[] = {0, 1, 2, 3, 10, 1000, 100000};
	uint32_t   *hashes = malloc(1000000 * sizeof(uint32_t));
	uint32_t   *back = malloc(1000001 * sizeof(uint32_t));
	uint8_t    *code;
	uint64_t	n,
				i;
	size_t		len,
				s;
	unsigned	r;
	int			round;

	group_begin("gap-coded hash sets");

	test_begin("sort and drop repeats: qsort's answer, for any input");
	{
		uint32_t   *want = malloc(200000 * sizeof(uint32_t));
		uint32_t   *scratch = malloc(200000 * sizeof(uint32_t));
		static const size_t counts[] = {0, 1, 2, 3, 100, 2047, 2048, 2049, 200000};

		for (s = 0; s < sizeof(counts) / sizeof(counts[0]); s++)
			for (round = 0; round < 5; round++)
			{
				size_t		c = counts[s],
							got,
							m = 0;

				for (i = 0; i < c; i++)
				{
					/* random, few distinct, all equal, ascending, descending */
					uint32_t	v = (uint32_t) rng_next();

					hashes[i] = round == 0 ? v : round == 1 ? v % 97 : round == 2 ? 7u :
						round == 3 ? (uint32_t) (i * 3) : (uint32_t) (UINT32_MAX - i);
					want[i] = hashes[i];
				}
				qsort(want, c, sizeof(uint32_t), cmp_u32);
				for (i = 0; i < c; i++)
					if (m == 0 || want[i] != want[m - 1])
						want[m++] = want[i];
				got = bloom_sort_unique_hashes(hashes, c, scratch);
				check(got == m && (m == 0 || memcmp(hashes, want, m * sizeof(uint32_t)) == 0),
					  "%zu hashes, kind %d: %zu distinct, want %zu", c, round, got, m);
			}
		free(scratch);
		free(want);
	}
	test_end();

	test_begin("sort parts and drop repeats, through a small tmp: qsort's answer");
	{
		static const size_t counts[] = {0, 1, 100, 8193, 70000, 200000, 3000000};
		size_t		most = 3000000;
		uint32_t   *in = malloc(most * sizeof(uint32_t));
		uint32_t   *want = malloc(most * sizeof(uint32_t));
		uint32_t   *out = malloc(most * sizeof(uint32_t));
		uint32_t   *tmp = malloc(most * sizeof(uint32_t));

		for (s = 0; s < sizeof(counts) / sizeof(counts[0]); s++)
			for (round = 0; round < 7; round++)
			{
				size_t		c = counts[s],
							got,
							m = 0;
				const uint32_t *parts[5];
				size_t		lens[5];
				size_t		nparts = 1 + (size_t) (rng_next() % 5),
							at = 0;

				for (i = 0; i < c; i++)
				{
					/*
					 * random, few distinct, all equal, ascending, descending
					 * (all of these but random fall in one top-bits bucket,
					 * larger than tmp from 200000 on), low 16 bits zero, and
					 * every value twice
					 */
					uint32_t	v = (uint32_t) rng_next();

					in[i] = round == 0 ? v : round == 1 ? v % 97 : round == 2 ? 7u :
						round == 3 ? (uint32_t) (i * 3) :
						round == 4 ? (uint32_t) (UINT32_MAX - i) :
						round == 5 ? v & 0xffff0000u : (uint32_t) (i / 2) * 2654435761u;
					want[i] = in[i];
				}
				qsort(want, c, sizeof(uint32_t), cmp_u32);
				for (i = 0; i < c; i++)
					if (m == 0 || want[i] != want[m - 1])
						want[m++] = want[i];
				/* cut at random places; the last part may be empty */
				for (size_t p = 0; p < nparts; p++)
				{
					size_t		len = p + 1 < nparts ? (size_t) (rng_next() % (c - at + 1)) : c - at;

					parts[p] = in + at;
					lens[p] = len;
					at += len;
				}
				for (int big = 0; big <= 1; big++)
				{
					memset(out, 0xa5, c * sizeof(uint32_t));
					got = bloom_sort_unique_parts(parts, lens, nparts, out, tmp,
												  big ? most : BLOOM_SORT_TMP_MIN);
					check(got == m && (m == 0 || memcmp(out, want, m * sizeof(uint32_t)) == 0),
						  "%zu hashes in %zu parts, kind %d, tmp %s: %zu distinct, want %zu",
						  c, nparts, round, big ? "large" : "small", got, m);
				}
			}
		free(tmp);
		free(out);
		free(want);
		free(in);
	}
	test_end();

	test_begin("random sets round-trip, at the chosen parameter and at 23..31");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		n = random_hash_set(hashes, sizes[s]);
		gaps_round_trip(hashes, n, bloom_gaps_rice_param(n), "random set");
		/* small parameters code 2^32 >> r unary bits: kept to 1 MB */
		if (n <= 1000)
			for (r = 23; r < 32; r++)
				gaps_round_trip(hashes, n, r, "random set, r 23..31");
	}
	test_end();

	/*
	 * The decoder takes a hash at once when its whole code is in its 64-bit
	 * buffer, and else the careful way; the encoder puts a short code at
	 * once, a long unary run in pieces.  Gaps of every length mixed, so
	 * that both ways alternate at every bit position, for every parameter.
	 */
	test_begin("unary runs short and long mixed: both ways of each direction, every r");
	for (r = 0; r < 32; r++)
	{
		uint64_t	h = 0;

		n = 0;
		for (int tries = 0; tries < 3000; tries++)
		{
			uint64_t	pick = rng_next() % 8,
						q = pick < 5 ? rng_next() % 4 :
				pick < 7 ? 20 + rng_next() % 50 : 60 + rng_next() % 400;
			uint64_t	gap = (q << r) | (rng_next() & (((uint64_t) 1 << r) - 1));

			if (h + gap > UINT32_MAX)
				continue;		/* large r: only the short runs fit */
			hashes[n++] = (uint32_t) (h + gap);
			h += gap + 1;
		}
		gaps_round_trip(hashes, n, r, "mixed unary runs");
	}
	test_end();

	test_begin("the extremes: 0, 2^32 - 1, dense runs, both ends");
	hashes[0] = 0;
	gaps_round_trip(hashes, 1, 0, "{0}");
	hashes[0] = UINT32_MAX;
	gaps_round_trip(hashes, 1, 0, "{2^32 - 1}, r 0");
	gaps_round_trip(hashes, 1, 31, "{2^32 - 1}, r 31");
	for (i = 0; i < 5000; i++)
		hashes[i] = (uint32_t) (UINT32_MAX - 4999 + i);
	gaps_round_trip(hashes, 5000, bloom_gaps_rice_param(5000), "the top 5000 values");
	for (i = 0; i < 5000; i++)
		hashes[i] = (uint32_t) i;
	for (r = 0; r < 32; r++)
		gaps_round_trip(hashes, 5000, r, "0..4999, every r");
	hashes[0] = 0;
	hashes[1] = UINT32_MAX;
	gaps_round_trip(hashes, 2, 31, "{0, 2^32 - 1}, r 31");
	test_end();

	/* 10^6 random hashes: gaps of about 4295, entropy about 13.5 bits */
	test_begin("size: 10^6 random hashes in at most 1.8 bytes each");
	n = random_hash_set(hashes, 1000000);
	len = gaps_round_trip(hashes, n, bloom_gaps_rice_param(n), "10^6 hashes");
	check((double) len / (double) n <= 1.8, "%.3f bytes a hash", (double) len / (double) n);
	test_end();

	/* each expect_status is a test of its own */
	n = random_hash_set(hashes, 1000);
	r = bloom_gaps_rice_param(n);
	code = malloc(bloom_gaps_max_bytes(n + 1, r) + 8);
	len = bloom_gaps_encode(hashes, n, r, code);
	expect_status(bloom_gaps_decode(code, len, n + 1, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: one hash more than coded");
	expect_status(bloom_gaps_decode(code, len, n - 1, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: one hash fewer than coded (bits left over)");
	expect_status(bloom_gaps_decode(code, len - 1, n, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: the last byte missing");
	code[len] = 0;
	expect_status(bloom_gaps_decode(code, len + 1, n, r, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: a zero byte after the code");
	expect_status(bloom_gaps_decode(code, len, n, 32, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: parameter 32");

	/* {2^32 - 1} at r 31 (q = 1), then a gap of 0 appended by hand */
	test_begin("{2^32 - 1} at r 31 is 5 bytes");
	hashes[0] = UINT32_MAX;
	len = bloom_gaps_encode(hashes, 1, 31, code);
	check(len == 5, "%zu bytes", len);
	test_end();
	code[4] |= 0x02;			/* bit 33: a unary stop bit, q = 0 */
	memset(code + 5, 0, 4);
	expect_status(bloom_gaps_decode(code, 9, 2, 31, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: a hash after 2^32 - 1");

	/*
	 * {5} at r 4, by the layout: q = 0 is a lone 1 bit, then 5's four low
	 * bits: 1 | 0101 << 1 = 0x0b, and 3 padding bits.
	 */
	test_begin("{5} at r 4 is the byte 0x0b");
	hashes[0] = 5;
	len = bloom_gaps_encode(hashes, 1, 4, code);
	check(len == 1 && code[0] == 0x0b, "%zu bytes, %02x", len, code[0]);
	test_end();
	code[0] |= 0x80;
	expect_status(bloom_gaps_decode(code, 1, 1, 4, back), BLOOM_ERR_GAPS_CODE,
				  "gaps: a padding bit set");

	test_begin("damaged codes: never accepted unless they are some set's code");
	n = random_hash_set(hashes, 300);
	r = bloom_gaps_rice_param(n);
	for (round = 0; round < 3000; round++)
	{
		uint8_t    *again;
		uint64_t	want = n + (uint64_t) (rng_next() % 3) - 1;
		size_t		cut;
		bloom_status st;

		len = bloom_gaps_encode(hashes, n, r, code);
		code[rng_next() % len] ^= (uint8_t) (1u << (rng_next() % 8));
		cut = len - (size_t) (rng_next() % 2);
		st = bloom_gaps_decode(code, cut, want, r, back);
		if (st != BLOOM_OK)
			continue;
		again = malloc(bloom_gaps_max_bytes(want, r));
		check(bloom_gaps_encode(back, want, r, again) == cut &&
			  memcmp(again, code, cut) == 0, "round %d: accepted a non-canonical code", round);
		for (i = 1; i < want; i++)
			check(back[i] > back[i - 1], "round %d: not increasing", round);
		free(again);
	}
	test_end();

	free(code);
	free(back);
	free(hashes);
	group_end();
}

/* ---- union and intersection (bloom_setops.c) -------------------------- */

static void
test_setops(void)
{
	uint8_t		abuf[128],
				bbuf[128],
				want[128];
	uint32_t	hashes[100];
	bloom_geometry g;
	size_t		len,
				i;
	int			round;

	group_begin("union and intersection");

	test_begin("word-at-a-time OR and AND equal the byte loop, at odd addresses");
	for (round = 0; round < 400; round++)
	{
		uint8_t    *a = abuf + 1,
				   *b = bbuf + 3;
		bool		is_union = round % 2 == 0;

		len = 2 + rng_next() % 120;
		for (i = 0; i < len; i++)
		{
			a[i] = (uint8_t) rng_next();
			b[i] = (uint8_t) rng_next();
			want[i] = is_union ? a[i] | b[i] : a[i] & b[i];
		}
		want[len - 1] = a[len - 1];		/* the k byte is left alone */
		a[len] = 0x5a;
		if (is_union)
			bloom_union_into(a, b, len);
		else
			bloom_intersect_into(a, b, len);
		check(memcmp(a, want, len) == 0, "%s, len %zu",
			  is_union ? "union" : "intersection", len);
		check(a[len] == 0x5a, "wrote past len %zu", len);
	}
	test_end();

	test_begin("a filter ORed with itself, or ANDed, is unchanged");
	for (i = 0; i < 64; i++)
		abuf[i] = want[i] = (uint8_t) rng_next();
	bloom_union_into(abuf, abuf, 64);
	bloom_intersect_into(abuf, abuf, 64);
	check(memcmp(abuf, want, 64) == 0, "changed");
	test_end();

	test_begin("union of the filters of A and B is the filter of A and B");
	for (i = 0; i < 100; i++)
		hashes[i] = (uint32_t) rng_next();
	/* A = hashes 0..59, B = hashes 40..99: one geometry for all three */
	if (check(bloom_geometry_for(12, 10, &g) == BLOOM_OK &&
			  g.filter_bytes <= sizeof(want), "geometry"))
	{
		memset(abuf, 0, sizeof(abuf));
		memset(bbuf, 0, sizeof(bbuf));
		memset(want, 0, sizeof(want));
		bloom_build_from_hashes(abuf, &g, hashes, 60);
		bloom_build_from_hashes(bbuf, &g, hashes + 40, 60);
		bloom_build_from_hashes(want, &g, hashes, 100);
		bloom_union_into(abuf, bbuf, g.filter_bytes);
		check(memcmp(abuf, want, g.filter_bytes) == 0, "bytes differ");
	}
	test_end();

	test_begin("intersection matches every common key, and only bits of both");
	if (check(bloom_geometry_for(12, 10, &g) == BLOOM_OK, "geometry"))
	{
		uint8_t		x[128];

		memset(abuf, 0, sizeof(abuf));
		memset(bbuf, 0, sizeof(bbuf));
		bloom_build_from_hashes(abuf, &g, hashes, 60);
		bloom_build_from_hashes(bbuf, &g, hashes + 40, 60);
		memcpy(x, abuf, g.filter_bytes);
		bloom_intersect_into(x, bbuf, g.filter_bytes);
		for (i = 40; i < 60; i++)
			check(bloom_may_contain_hash(x, g.filter_bytes, hashes[i]),
				  "common hash %zu missing", i);
		for (i = 0; i < g.filter_bytes; i++)
			check((x[i] & abuf[i]) == x[i] && (x[i] & bbuf[i]) == x[i],
				  "byte %zu has a bit of only one input", i);
	}
	test_end();

	test_begin("same geometry: same length and the same k byte");
	memset(abuf, 0, 16);
	memset(bbuf, 0xff, 16);
	abuf[8] = bbuf[8] = 6;
	check(bloom_same_geometry(abuf, 9, bbuf, 9), "9 bytes, k 6 and 6");
	bbuf[8] = 7;
	check(!bloom_same_geometry(abuf, 9, bbuf, 9), "k 6 and 7");
	bbuf[9] = 6;
	check(!bloom_same_geometry(abuf, 9, bbuf, 10), "9 and 10 bytes");
	test_end();

	group_end();
}

/* ---- hashing and messages --------------------------------------------- */

static void
test_hash(void)
{
	uint8_t		pattern[64];
	uint8_t		buf[64 + 16];
	size_t		len,
				off;

	group_begin("hash");

	/* the word loads must not depend on where the key sits in memory */
	test_begin("hash is independent of the buffer's alignment");
	for (len = 0; len < sizeof(pattern); len++)
		pattern[len] = (uint8_t) rng_next();
	for (len = 0; len <= sizeof(pattern); len++)
	{
		uint32_t	want;

		memcpy(buf, pattern, len);
		want = bloom_key_hash(buf, len);
		for (off = 1; off < 8; off++)
		{
			memset(buf, 0x5a, sizeof(buf));
			memcpy(buf + off, pattern, len);
			check(bloom_key_hash(buf + off, len) == want,
				  "len %zu at offset %zu", len, off);
		}
	}
	test_end();

	test_begin("hash reads only len bytes");
	for (len = 0; len < 12; len++)
	{
		uint32_t	want;

		memset(buf, 0, sizeof(buf));
		memcpy(buf, pattern, len);
		want = bloom_key_hash(buf, len);
		memset(buf + len, 0xff, sizeof(buf) - len);
		check(bloom_key_hash(buf, len) == want, "len %zu", len);
	}
	test_end();

	test_begin("bloom_key_hash is Hash() with LevelDB's seed");
	for (len = 0; len <= sizeof(pattern); len++)
		check(bloom_key_hash(pattern, len) ==
			  bloom_leveldb_hash(pattern, len, UINT32_C(0xbc9f1d34)),
			  "len %zu", len);
	test_end();

	group_end();
}

/* ---- typed keys (bloom_keys.h) ----------------------------------------- */

/* v's n bytes, most significant first, by division: no shift, no cast to bytes. */
static void
put_be_by_division(uint64_t v, uint8_t *out, int n)
{
	int			i;

	for (i = n - 1; i >= 0; i--)
	{
		out[i] = (uint8_t) (v % 256);
		v /= 256;
	}
}

/* The signed value's two's complement, computed without converting it. */
static uint64_t
twos_complement(int64_t v)
{
	return v >= 0 ? (uint64_t) v : UINT64_MAX - (uint64_t) (-(v + 1));
}

static void
test_typed_keys(void)
{
	static const int64_t edges[] = {
		0, 1, -1, 2, -2, 127, 128, -128, -129, 255, 256, -256, 32767, 32768,
		-32768, -32769, 65535, 65536, 2147483647, INT64_C(2147483648),
		-2147483647 - 1, INT64_C(-2147483649), INT64_C(4294967295),
		INT64_C(4294967296), INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
	};
	const size_t nedges = sizeof(edges) / sizeof(edges[0]);
	const size_t nrandom = 200000;
	uint8_t		want[BLOOM_FIELD_HEADER_BYTES + 70000];
	uint8_t		buf[BLOOM_FIELD_HEADER_BYTES + 70000 + 8];
	size_t		i;

	group_begin("typed keys");

	/*
	 * Values of every magnitude: the edges, then random 64-bit values
	 * shifted right by a random amount and given a random sign.
	 */
	test_begin("bloom_int_key_hash(v) is the hash of v's 8 bytes, most significant first");
	for (i = 0; i < nedges + nrandom; i++)
	{
		int64_t		v;
		uint8_t		be[8];
		uint32_t	want_hash;

		if (i < nedges)
			v = edges[i];
		else
		{
			uint64_t	r = rng_next() >> (rng_next() % 64);

			v = (rng_next() & 1) ? (int64_t) r : -(int64_t) (r >> 1) - 1;
		}
		put_be_by_division(twos_complement(v), be, 8);
		want_hash = ref_hash(be, 8, UINT32_C(0xbc9f1d34));
		if (!check(bloom_int_key_hash(v) == want_hash,
				   "%" PRId64 ": %08x, the hash of %s is %08x", v,
				   bloom_int_key_hash(v), hexs(be, 8), want_hash))
			break;
		if (!check(bloom_key_hash(be, 8) == want_hash,
				   "bloom_key_hash of %s is %08x, Hash() %08x", hexs(be, 8),
				   bloom_key_hash(be, 8), want_hash))
			break;
	}
	test_end();

	test_begin("bloom_int_key_bytes(v) writes v's 8 bytes, most significant first");
	for (i = 0; i < nedges + nrandom; i++)
	{
		int64_t		v = i < nedges ? edges[i] : (int64_t) rng_next();
		uint8_t		be[8];

		put_be_by_division(twos_complement(v), be, 8);
		memset(buf, 0x5a, 16);
		bloom_int_key_bytes(v, buf);
		if (!check(memcmp(buf, be, 8) == 0 && buf[8] == 0x5a,
				   "%" PRId64 ": %s, expected %s", v, hexs(buf, 9), hexs(be, 8)))
			break;
	}
	test_end();

	test_begin("bloom_uuid_key_hash(u) is the hash of u's 16 bytes, at any alignment");
	for (i = 0; i < 2 + nrandom / 8; i++)
	{
		uint8_t		u[16];
		uint32_t	want_hash;
		size_t		b,
					off;

		for (b = 0; b < 16; b++)
			u[b] = i == 0 ? 0x00 : i == 1 ? 0xff : (uint8_t) rng_next();
		want_hash = ref_hash(u, 16, UINT32_C(0xbc9f1d34));
		for (off = 0; off < 8; off++)
		{
			memset(buf, 0xa5, 32);
			memcpy(buf + off, u, 16);
			if (!check(bloom_uuid_key_hash(buf + off) == want_hash,
					   "%s at offset %zu: %08x, expected %08x", hexs(u, 16), off,
					   bloom_uuid_key_hash(buf + off), want_hash))
				break;
		}
	}
	test_end();

	/* lengths whose 4 bytes each have something to carry */
	test_begin("bloom_put_field writes the length, 4 bytes most significant first, then the bytes");
	{
		static const uint32_t lens[] = {0, 1, 2, 3, 4, 8, 16, 127, 128, 255, 256, 257,
		1000, 65535, 65536, 65537, 69999};
		uint8_t    *value = xcalloc(70000);
		size_t		l;

		for (i = 0; i < 70000; i++)
			value[i] = (uint8_t) rng_next();
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]) + 200; l++)
		{
			uint32_t	len = l < sizeof(lens) / sizeof(lens[0]) ? lens[l] :
				(uint32_t) (rng_next() % 300);
			size_t		n;

			put_be_by_division(len, want, 4);
			memcpy(want + 4, value, len);
			memset(buf, 0x5a, 4 + (size_t) len + 8);
			n = bloom_put_field(buf, value, len);
			if (!check(n == 4 + (size_t) len, "length %u: returned %zu", len, n) ||
				!check(memcmp(buf, want, 4 + (size_t) len) == 0,
					   "length %u: wrote %s, expected %s", len,
					   hexs(buf, 4 + (size_t) len), hexs(want, 4 + (size_t) len)) ||
				!check(buf[4 + len] == 0x5a, "length %u: wrote past the field", len))
				break;
		}
		free(value);
	}
	test_end();

	test_begin("bloom_put_null_field writes ff ff ff ff and nothing else");
	{
		size_t		n;

		memset(buf, 0x5a, 8);
		n = bloom_put_null_field(buf);
		check(n == 4, "returned %zu", n);
		check(buf[0] == 0xff && buf[1] == 0xff && buf[2] == 0xff && buf[3] == 0xff &&
			  buf[4] == 0x5a, "wrote %s", hexs(buf, 8));
	}
	test_end();

	/*
	 * Fields one after another: the lengths are what keep ('ab', 'c'),
	 * ('a', 'bc') and ('abc', NULL) apart.
	 */
	test_begin("fields written one after another are the concatenation of their encodings");
	{
		static const char *const parts[][2] = {{"ab", "c"}, {"a", "bc"}, {"abc", NULL}, {"", "abc"}};
		uint8_t		keys[4][32];
		size_t		lens[4],
					a,
					b;

		for (a = 0; a < 4; a++)
		{
			uint8_t    *p = keys[a];
			size_t		f;

			for (f = 0; f < 2; f++)
				p += parts[a][f] == NULL ? bloom_put_null_field(p) :
					bloom_put_field(p, parts[a][f], (uint32_t) strlen(parts[a][f]));
			lens[a] = (size_t) (p - keys[a]);
			check(lens[a] == 8 + 3, "key %zu: %zu bytes", a, lens[a]);
		}
		check(memcmp(keys[0], "\0\0\0\2ab\0\0\0\1c", 11) == 0, "('ab', 'c'): %s",
			  hexs(keys[0], lens[0]));
		check(memcmp(keys[2], "\0\0\0\3abc\xff\xff\xff\xff", 11) == 0,
			  "('abc', NULL): %s", hexs(keys[2], lens[2]));
		for (a = 0; a < 4; a++)
			for (b = 0; b < a; b++)
				check(memcmp(keys[a], keys[b], 11) != 0, "keys %zu and %zu are equal", a, b);
	}
	test_end();

	group_end();
}

/* ---- prepared geometry: the reciprocal, build and probe ------------------ */

/* Check the reciprocal of d against % on edge and random dividends. */
static void
check_fastmod_divisor(uint64_t d, unsigned nrandom)
{
	uint64_t	m = bloom_fastmod_reciprocal(d);
	uint32_t	edges[] = {0, 1, 2, 3, UINT32_MAX, UINT32_MAX - 1,
		UINT32_C(0x80000000), UINT32_C(0x7fffffff)};
	uint64_t	q;
	unsigned	i;

#define CHECK_ONE(a) \
	do { \
		uint32_t	a_ = (uint32_t) (a); \
		uint32_t	got_ = bloom_fastmod(a_, m, d); \
		if (!check(got_ == a_ % d, "%" PRIu32 " %% %" PRIu64 ": got %" PRIu32 ", want %" PRIu64, \
				   a_, d, got_, a_ % d)) \
			return; \
	} while (0)

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		CHECK_ONE(edges[i]);
	/* around multiples of d, where a wrong reciprocal shows first */
	for (i = 0; i < 64; i++)
	{
		q = rng_next() % ((UINT64_C(1) << 32) / d + 1);
		if (q * d > UINT32_MAX)
			continue;
		CHECK_ONE(q * d);
		if (q * d > 0)
			CHECK_ONE(q * d - 1);
		if (q * d + 1 <= UINT32_MAX)
			CHECK_ONE(q * d + 1);
		if (q * d + d - 1 <= UINT32_MAX)
			CHECK_ONE(q * d + d - 1);
	}
	if (d <= UINT32_MAX)
	{
		CHECK_ONE(d - 1);
		CHECK_ONE(d);
		if (d < UINT32_MAX)
			CHECK_ONE(d + 1);
	}
	for (i = 0; i < nrandom; i++)
		CHECK_ONE(rng_next());
#undef CHECK_ONE
}

static void
test_prepared(void)
{
	static const size_t lens[] = {0, 1, 2, 3, 9, 10, 17, 64, 65, 1001, 4097};
	uint8_t		key[80];
	uint64_t	d;
	unsigned	i,
				j,
				shift;

	group_begin("prepared geometry");

	test_begin("the hash equals Hash() restated a byte at a time, every length to 80");
	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t) rng_next();
	for (i = 0; i <= sizeof(key); i++)
		check(bloom_key_hash(key, i) == ref_hash(key, i, BLOOM_HASH_SEED),
			  "len %u", i);
	test_end();

	test_begin("fastmod equals %% for edge divisors: 1, 2^32 - 1, 2^32, powers of two and their neighbours");
	for (shift = 0; shift <= 32; shift++)
	{
		d = UINT64_C(1) << shift;
		check_fastmod_divisor(d, 2000);
		if (d > 1)
			check_fastmod_divisor(d - 1, 2000);
		if (d < (UINT64_C(1) << 32))
			check_fastmod_divisor(d + 1, 2000);
	}
	for (d = 1; d <= 1000; d++)
		check_fastmod_divisor(d, 200);
	check_fastmod_divisor(UINT32_MAX, 100000);
	check_fastmod_divisor(UINT32_MAX - 7, 100000);
	test_end();

	test_begin("fastmod equals %% for random divisors of every size");
	for (i = 0; i < 3000; i++)
	{
		/* a random bit length, then a random divisor of that length */
		shift = 1 + (unsigned) (rng_next() % 32);
		d = rng_next() & ((UINT64_C(1) << shift) - 1);
		if (d == 0)
			d = 1;
		check_fastmod_divisor(d, 300);
	}
	test_end();

	test_begin("bloom_prepare uses h itself from 2^32 bits on, as h %% bits does");
	{
		uint64_t	big[] = {UINT64_C(1) << 32, (UINT64_C(1) << 32) + 8,
			UINT64_C(1) << 40, UINT64_MAX - 7};
		bloom_prepared p;

		for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		{
			bloom_prepare(&p, big[i], 6);
			for (j = 0; j < 1000; j++)
			{
				uint32_t	h = (uint32_t) rng_next();

				check(bloom_prepared_bitpos(&p, h) == h % big[i],
					  "bits %" PRIu64 ", h %" PRIu32, big[i], h);
			}
			check(bloom_prepared_bitpos(&p, UINT32_MAX) == UINT32_MAX,
				  "bits %" PRIu64 ", h 2^32 - 1", big[i]);
		}
	}
	test_end();

	test_begin("prepared probe equals KeyMayMatch restated, any bytes, k 0..31 and 255, short filters");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
	{
		size_t		len = lens[i];
		uint8_t    *f = xcalloc(len + 1);
		unsigned	round;

		for (round = 0; round < 40; round++)
		{
			bloom_prepared p;
			size_t		b;
			unsigned	density = (unsigned) (rng_next() % 4);

			/* from sparse to nearly full, so both answers occur */
			for (b = 0; b < len; b++)
			{
				uint8_t		x = (uint8_t) rng_next();

				for (j = 0; j < density; j++)
					x |= (uint8_t) rng_next();
				f[b] = x;
			}
			if (len > 0)
				f[len - 1] = round < 32 ? (uint8_t) round : (uint8_t) (round == 32 ? 255 : 1 + rng_next() % 30);
			bloom_prepare_probe(&p, f, len);
			for (j = 0; j < 500; j++)
			{
				uint32_t	h = (uint32_t) rng_next();

				check(bloom_prepared_may_contain(&p, f, h) == ref_may_match_hash(h, f, len),
					  "len %zu, k byte %u, hash %08" PRIx32, len,
					  len > 0 ? f[len - 1] : 0, h);
				check(bloom_may_contain_hash(f, len, h) == ref_may_match_hash(h, f, len),
					  "bloom_may_contain_hash: len %zu, hash %08" PRIx32, len, h);
			}
		}
		free(f);
	}
	test_end();

	test_begin("batched set with prefetch equals setting each hash with the division");
	{
		static const size_t counts[] = {0, 1, 63, 64, 65, 129, 5000};
		static const uint64_t nbits[] = {8, 64, 72, 1000, 8192, 100003 * 8};
		static const unsigned ks[] = {1, 2, 6, 13, 30, 31, 40};
		uint32_t   *hashes = xcalloc(5000 * sizeof(uint32_t));
		size_t		c,
					b,
					kk;

		for (c = 0; c < 5000; c++)
			hashes[c] = (uint32_t) rng_next();
		for (b = 0; b < sizeof(nbits) / sizeof(nbits[0]); b++)
		{
			size_t		bytes = (size_t) ((nbits[b] + 7) / 8);
			uint8_t    *got = xcalloc(bytes);
			uint8_t    *want = xcalloc(bytes);

			for (kk = 0; kk < sizeof(ks) / sizeof(ks[0]); kk++)
				for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
				{
					bloom_prepared p;
					size_t		h;

					memset(got, 0, bytes);
					memset(want, 0, bytes);
					bloom_prepare(&p, nbits[b], ks[kk]);
					bloom_prepared_set_hashes(&p, got, hashes, counts[c]);
					for (h = 0; h < counts[c]; h++)
						ref_add_hash(want, nbits[b], ks[kk], hashes[h]);
					check(memcmp(got, want, bytes) == 0,
						  "%" PRIu64 " bits, k %u, %zu hashes", nbits[b], ks[kk], counts[c]);
					/* the one-hash entry point, too */
					memset(got, 0, bytes);
					for (h = 0; h < counts[c]; h++)
						bloom_set_hash(got, nbits[b], ks[kk], hashes[h]);
					check(memcmp(got, want, bytes) == 0,
						  "bloom_set_hash: %" PRIu64 " bits, k %u, %zu hashes", nbits[b], ks[kk], counts[c]);
				}
			free(got);
			free(want);
		}
		free(hashes);
	}
	test_end();

	test_begin("buffered set (large arrays, scratch) equals setting each hash with the division");
	{
		static const unsigned ks[] = {1, 6, 13, 30, 31};
		uint64_t	nbits = (UINT64_C(1) << 25) + 24;	/* just large enough */
		size_t		bytes = (size_t) (nbits / 8);
		size_t		full = bloom_set_scratch_size(nbits);
		size_t		scratch_sizes[5];
		/* in words from the (16-byte aligned) area: buckets cut lines anywhere */
		static const size_t scratch_offsets[5] = {0, 0, 0, 0, 3};
		size_t		nh = 200000,
					kk,
					sc,
					h;
		uint32_t   *hashes = xcalloc(nh * sizeof(uint32_t));
		uint32_t   *scratch = xcalloc((full > 0 ? full : 1) * sizeof(uint32_t) + 64);
		uint8_t    *got = xcalloc(bytes);
		uint8_t    *want = xcalloc(bytes);

		check(full > 0, "no scratch wanted for %" PRIu64 " bits", nbits);
		check(bloom_set_scratch_size(1u << 20) == 0, "scratch wanted for a small array");
		scratch_sizes[0] = full;	/* as the final function uses it */
		scratch_sizes[1] = 20000;	/* buckets of ~1000: flushed often */
		scratch_sizes[2] = 1000;	/* too small: the unbuffered path */
		scratch_sizes[3] = 0;
		scratch_sizes[4] = 20011;	/* odd buckets from an odd start */
		for (h = 0; h < nh; h++)
			hashes[h] = (uint32_t) rng_next();
		for (kk = 0; kk < sizeof(ks) / sizeof(ks[0]); kk++)
		{
			bloom_prepared p;

			memset(want, 0, bytes);
			for (h = 0; h < nh; h++)
				ref_add_hash(want, nbits, ks[kk], hashes[h]);
			bloom_prepare(&p, nbits, ks[kk]);
			for (sc = 0; sc < 5; sc++)
			{
				memset(got, 0, bytes);
				/* in two calls, as the final function does in batches */
				bloom_prepared_set_hashes_buffered(&p, got, hashes, nh / 3,
												   scratch_sizes[sc] ? scratch + scratch_offsets[sc] : NULL,
												   scratch_sizes[sc]);
				bloom_prepared_set_hashes_buffered(&p, got, hashes + nh / 3, nh - nh / 3,
												   scratch_sizes[sc] ? scratch + scratch_offsets[sc] : NULL,
												   scratch_sizes[sc]);
				check(memcmp(got, want, bytes) == 0, "k %u, scratch %zu words from word %zu",
					  ks[kk], scratch_sizes[sc], scratch_offsets[sc]);
			}
		}
		free(hashes);
		free(scratch);
		free(got);
		free(want);
	}
	test_end();

	test_begin("buffered set beyond 2^32 bits touches only the first 2^32 bits, like the division");
	{
		/* 2^32 + 64 bits, reserved but never touched beyond the set bits */
		uint64_t	nbits = (UINT64_C(1) << 32) + 64;
		size_t		bytes = (size_t) (nbits / 8);
		size_t		full = bloom_set_scratch_size(nbits);
		uint32_t   *scratch = xcalloc(full * sizeof(uint32_t));
		uint32_t	hashes[3000];
		uint8_t    *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
							   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		bloom_prepared p;
		size_t		h,
					w;
		bool		clean = true;

		if (map == MAP_FAILED)
			fail("mmap of %zu bytes failed", bytes);
		else
		{
			for (h = 0; h < 3000; h++)
				hashes[h] = (uint32_t) rng_next();
			hashes[0] = UINT32_MAX;
			bloom_prepare(&p, nbits, 6);
			bloom_prepared_set_hashes_buffered(&p, map, hashes, 3000, scratch, full);
			/* every bit the division sets is set; clear it, then all is zero */
			for (h = 0; h < 3000; h++)
			{
				uint32_t	x = hashes[h],
							delta = ref_delta(x);
				unsigned	j;

				for (j = 0; j < 6; j++, x += delta)
					check(map[(x % nbits) / 8] & (1u << ((x % nbits) % 8)),
						  "hash %zu probe %u not set", h, j);
			}
			for (h = 0; h < 3000; h++)
			{
				uint32_t	x = hashes[h],
							delta = ref_delta(x);
				unsigned	j;

				for (j = 0; j < 6; j++, x += delta)
					map[(x % nbits) / 8] = 0;
			}
			for (w = 0; w < bytes / 8 && clean; w++)
				clean = ((const uint64_t *) map)[w] == 0;
			check(clean, "a bit other than the probes' was set (word %zu)", w - 1);
			munmap(map, bytes);
		}
		free(scratch);
	}
	test_end();

	test_begin("bloom_advise_huge_pages changes no byte");
	{
		size_t		len = BLOOM_HUGE_PAGES_MIN_BYTES + 12345;
		uint8_t    *buf = xcalloc(len);
		size_t		b;

		for (b = 0; b < len; b++)
			buf[b] = (uint8_t) (b * 7);
		bloom_advise_huge_pages(buf, len);
		bloom_advise_huge_pages(buf + 1, 100);
		for (b = 0; b < len; b++)
			if (!check(buf[b] == (uint8_t) (b * 7), "byte %zu changed", b))
				break;
		free(buf);
	}
	test_end();

	group_end();
}

/* ---- the K minimum values sketch (bloom_kmv.h) ---------------------------- */

/* Sort v[0..n-1] and drop its repeats; returns the distinct count. */
static size_t
sort_distinct(uint32_t *v, size_t n)
{
	size_t		m = 0;

	qsort(v, n, sizeof(uint32_t), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

/* n random hashes, sorted and distinct, from [0, range) (range > 0). */
static size_t
random_distinct(uint32_t *v, size_t n, uint64_t range)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t) (rng_next() % range);
	return sort_distinct(v, n);
}

static void
test_kmv(void)
{
	static const size_t sizes[] = {0, 1, 2, 500, BLOOM_KMV_SIZE - 1, BLOOM_KMV_SIZE,
	BLOOM_KMV_SIZE + 1, 3000};
	size_t		nsizes = sizeof(sizes) / sizeof(sizes[0]);
	uint32_t   *a = malloc(4000 * sizeof(uint32_t));
	uint32_t   *b = malloc(4000 * sizeof(uint32_t));
	uint32_t   *both = malloc(8000 * sizeof(uint32_t));
	uint32_t	out[BLOOM_KMV_SIZE];

	group_begin("K minimum values sketch");

	/*
	 * The merge is the K smallest of the union, repeats once: against
	 * sorting the union, for sizes around K and ranges that make the two
	 * share few hashes or most of them.
	 */
	for (size_t i = 0; i < nsizes; i++)
		for (size_t j = 0; j < nsizes; j++)
			for (int narrow = 0; narrow < 2; narrow++)
			{
				uint64_t	range = narrow ? 2500 : UINT64_C(1) << 32;
				size_t		na = random_distinct(a, sizes[i], range);
				size_t		nb = random_distinct(b, sizes[j], range);
				size_t		nboth,
							want,
							got;

				test_begin("merge of %zu and %zu hashes from a range of %" PRIu64,
						   sizes[i], sizes[j], range);
				memcpy(both, a, na * sizeof(uint32_t));
				memcpy(both + na, b, nb * sizeof(uint32_t));
				nboth = sort_distinct(both, na + nb);
				want = nboth < BLOOM_KMV_SIZE ? nboth : BLOOM_KMV_SIZE;
				got = bloom_kmv_merge(a, na, b, nb, out);
				if (check(got == want, "%zu hashes, want %zu", got, want))
					check(memcmp(out, both, got * sizeof(uint32_t)) == 0,
						  "not the smallest distinct hashes of the union");
				test_end();
			}

	/* a set of fewer than K distinct hashes is counted exactly */
	test_begin("a sketch that is not full counts its hashes");
	check(bloom_kmv_estimate(a, 0) == 0.0, "empty: %g", bloom_kmv_estimate(a, 0));
	check(bloom_kmv_estimate(a, BLOOM_KMV_SIZE - 1) == BLOOM_KMV_SIZE - 1,
		  "K - 1 hashes: %g", bloom_kmv_estimate(a, BLOOM_KMV_SIZE - 1));
	test_end();

	/*
	 * n distinct random hashes, n far above K: the sketch's estimate is
	 * within 10% (the error is about 3%; the keys are fixed by the seed, so
	 * the outcome is too), and the sketch of two halves merged is the
	 * sketch of the whole.
	 */
	{
		static const size_t counts[] = {5000, 100000, 2000000};

		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		{
			size_t		n = counts[c];
			uint32_t   *all = malloc(n * sizeof(uint32_t));
			uint32_t	half_a[BLOOM_KMV_SIZE],
						half_b[BLOOM_KMV_SIZE];
			size_t		nd,
						na = 0,
						nb = 0;
			double		est;

			nd = random_distinct(all, n, UINT64_C(1) << 32);
			test_begin("estimate of %zu distinct hashes", nd);
			est = bloom_kmv_estimate(all, nd < BLOOM_KMV_SIZE ? nd : BLOOM_KMV_SIZE);
			check(est > 0.9 * nd && est < 1.1 * nd, "estimated %.0f", est);
			test_end();

			test_begin("the sketches of two halves of %zu hashes merged", nd);
			/* the halves: odd and even positions of the sorted hashes */
			for (size_t i = 0; i < nd && (na < BLOOM_KMV_SIZE || nb < BLOOM_KMV_SIZE); i++)
			{
				if (i % 2 == 0 && na < BLOOM_KMV_SIZE)
					half_a[na++] = all[i];
				else if (i % 2 == 1 && nb < BLOOM_KMV_SIZE)
					half_b[nb++] = all[i];
			}
			check(bloom_kmv_merge(half_a, na, half_b, nb, out) == BLOOM_KMV_SIZE &&
				  memcmp(out, all, BLOOM_KMV_SIZE * sizeof(uint32_t)) == 0,
				  "not the sketch of the whole");
			test_end();
			free(all);
		}
	}

	free(a);
	free(b);
	free(both);
	group_end();
}

static void
test_messages(void)
{
	const char *msgs[BLOOM_ERR_GAPS_CODE + 1];
	int			s,
				t;

	group_begin("status messages");
	test_begin("every status has its own sentence");
	for (s = BLOOM_OK; s <= BLOOM_ERR_GAPS_CODE; s++)
	{
		const char *m = bloom_status_message((bloom_status) s);
		size_t		n = m ? strlen(m) : 0;

		msgs[s] = m;
		if (!check(n > 0 && strcmp(m, "unknown error") != 0,
				   "%s has no message", status_name((bloom_status) s)))
			continue;
		for (t = 0; t < s; t++)
			check(msgs[t] == NULL || strcmp(msgs[t], m) != 0,
				  "%s and %s share a message", status_name((bloom_status) t),
				  status_name((bloom_status) s));
	}
	test_end();
	group_end();
}

int
main(int argc, char **argv)
{
	vec_set		set;

	if (argc != 2)
	{
		fprintf(stderr, "usage: %s VECTOR_DIR\n", argv[0]);
		return 2;
	}
	/* keep FAIL lines in order with anything the core or libc prints */
	setvbuf(stdout, NULL, _IOLBF, 0);

	vec_load_dir(argv[1], &set);
	test_vector_set(&set);
	test_vectors(&set);
	vec_set_free(&set);

	test_geometry();
	test_build_probe();
	test_big_filter();
	test_validate();
	test_hex();
	test_state();
	test_state_v2();
	test_popcount();
	test_filter_stats();
	test_stats_beyond_2_32();
	test_sizing();
	test_gaps();
	test_final();
	test_flatten();
	test_setops();
	test_hash();
	test_prepared();
	test_messages();
	test_typed_keys();
	test_kmv();

	printf("unit: %lu passed, %lu failed\n", n_passed, n_failed);
	return n_failed > 0 ? 1 : 0;
}
