/*
 * test_final.c
 *		Unit tests of the core: the threaded final (bloom_final.c), and the
 *		build on one thread and in one call (bloom_build.c), from plain and
 *		coded runs (bloom_hash_run.c).
 */
#include "unit.h"

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

/* bloom_build_serially's go_on: counts its calls, and leaves at call leave_at. */
typedef struct serial_checks
{
	unsigned	calls;
	unsigned	leave_at;		/* 0: never */
	/* if not NULL, the checks at which its bit array had changed since the last */
	const uint8_t *filter;
	size_t		bit_array_bytes;
	uint64_t	last_sum;
	unsigned	changed;
} serial_checks;

static jmp_buf check_exit;

static bool
count_check(void *arg)
{
	serial_checks *counted = arg;

	if (counted->filter != NULL)
	{
		uint64_t	sum = 0;

		for (size_t b = 0; b < counted->bit_array_bytes; b++)
			sum = sum * 31 + counted->filter[b];
		counted->changed += sum != counted->last_sum;
		counted->last_sum = sum;
	}
	if (++counted->calls == counted->leave_at)
		longjmp(check_exit, 1);
	return true;
}

/* Whether bloom_build_serially was left by its check, as counted asks. */
static bool
left_at_check(uint8_t *filter, const bloom_geometry *g, const bloom_hash_run *runs,
			  size_t nruns, uint32_t *scratch, size_t scratch_size,
			  serial_checks *counted)
{
	if (setjmp(check_exit) != 0)
		return true;
	(void) bloom_build_serially(filter, g, runs, nruns, scratch, scratch_size,
								count_check, counted);
	return false;
}

void
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
		uint32_t   *sorted;
		uint32_t   *decoded[2];
		uint8_t    *want,
				   *got;
		size_t		d,
					len;
		uint8_t    *code = gaps_code_of(hashes, m, &sorted, &d, &len);
		bloom_hash_run runs[3];
		static const unsigned threads[] = {1, 2, 8};

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
		free(sorted);
	}
	test_end();

	test_begin("a coded run decoded %zu hashes at a time: asked before each part, stopped by a no, and one thread's build checks between parts",
			   (size_t) BLOOM_DECODE_PART);
	{
		size_t		m = 1000000;
		uint32_t   *sorted = malloc(m * sizeof(uint32_t));
		uint32_t   *decoded = malloc(m * sizeof(uint32_t));
		uint8_t    *code,
				   *filter;
		size_t		d,
					len,
					nparts;
		bloom_hash_run run;
		counted_asks asks = {0, 0};
		serial_checks counted = {0, 2, NULL, 0, 0, 0};
		bloom_status st;

		memcpy(sorted, hashes, m * sizeof(uint32_t));
		d = bloom_sort_unique_hashes(sorted, m, decoded);
		nparts = (d + BLOOM_DECODE_PART - 1) / BLOOM_DECODE_PART;
		code = malloc(bloom_gaps_max_bytes(d, bloom_gaps_rice_param(d)));
		len = bloom_gaps_encode(sorted, d, bloom_gaps_rice_param(d), code);
		run = (bloom_hash_run) {decoded, d, code, len, decoded};

		memset(decoded, 0xff, d * sizeof(uint32_t));
		st = bloom_hash_run_decode(&run, count_ask, &asks);
		check(st == BLOOM_OK && memcmp(decoded, sorted, d * sizeof(uint32_t)) == 0,
			  "asked each part: %s", st != BLOOM_OK ? status_name(st) : "decoded differently");
		check(nparts >= 3 && asks.calls == nparts, "%u asks for %zu parts", asks.calls, nparts);

		/* no at the third ask: two parts decoded, the rest untouched */
		asks = (counted_asks) {0, 3};
		memset(decoded, 0xff, d * sizeof(uint32_t));
		st = bloom_hash_run_decode(&run, count_ask, &asks);
		check(st == BLOOM_ERR_CANCELLED && asks.calls == 3 &&
			  memcmp(decoded, sorted, 2 * BLOOM_DECODE_PART * sizeof(uint32_t)) == 0 &&
			  decoded[2 * BLOOM_DECODE_PART] == UINT32_MAX && decoded[d - 1] == UINT32_MAX,
			  "stopped at ask 3 of %zu: %s after %u asks", nparts, status_name(st), asks.calls);

		/* one thread's build: its second check comes before the run is all decoded */
		bloom_geometry_for(d, 10, &g);
		filter = malloc(g.filter_bytes);
		memset(decoded, 0xff, d * sizeof(uint32_t));
		if (check(left_at_check(filter, &g, &run, 1, NULL, 0, &counted),
				  "the build returned past a check that leaves"))
			check(counted.calls == 2 && decoded[d - 1] == UINT32_MAX,
				  "left at check %u, the run's last hash %s", counted.calls,
				  decoded[d - 1] == UINT32_MAX ? "not decoded" : "decoded already");
		free(filter);
		free(code);
		free(decoded);
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
		static const unsigned threads[] = {1, 2, 3, 8};

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
			/* one thread: bloom_build_serially, through buckets at this size */
			st = threads[t] < 2 ? bloom_build_from_runs(got, &g, runs, nruns, 1) :
				bloom_build_from_runs_way(got, &g, runs, nruns, threads[t],
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

	test_begin("one thread: asked every %zu hashes through buckets, left by longjmp at an ask, and stopped by a no",
			   (size_t) BLOOM_SERIAL_CHECK_BATCH);
	{
		bloom_hash_run runs[3];
		size_t		scratch_size;
		uint32_t   *scratch;
		uint8_t    *want,
				   *got;
		serial_checks counted = {0, 0, NULL, 0, 0, 0};
		bloom_status st;

		bloom_geometry_for(n, 12, &g);	/* 36M bits: through buckets */
		scratch_size = bloom_final_scratch_size(&g, n);
		scratch = malloc(scratch_size * sizeof(uint32_t));
		want = calloc(1, g.filter_bytes);
		got = malloc(g.filter_bytes);
		check(scratch_size > 0, "no scratch for %" PRIu64 " bits", g.bits);
		bloom_build_from_hashes(want, &g, hashes, n);
		runs[0] = (bloom_hash_run) {hashes, 1000000, NULL, 0, NULL};
		runs[1] = (bloom_hash_run) {hashes + 1000000, 0, NULL, 0, NULL};
		runs[2] = (bloom_hash_run) {hashes + 1000000, n - 1000000, NULL, 0, NULL};
		memset(got, 0xa5, g.filter_bytes);
		st = bloom_build_serially(got, &g, runs, 3, scratch, scratch_size,
								  count_check, &counted);
		check(st == BLOOM_OK && memcmp(got, want, g.filter_bytes) == 0,
			  "counted build: %s", st != BLOOM_OK ? status_name(st) : "different bytes");
		/* a check before the first hash, then one each batch of hashes */
		check(counted.calls >= n / BLOOM_SERIAL_CHECK_BATCH &&
			  counted.calls <= n / BLOOM_SERIAL_CHECK_BATCH + 2,
			  "%u checks for %zu hashes", counted.calls, n);
		/* the check leaves at its third call: nothing to free (LeakSanitizer) */
		counted = (serial_checks) {0, 3, NULL, 0, 0, 0};
		if (check(left_at_check(got, &g, runs, 3, scratch, scratch_size, &counted),
				  "the build returned past a check that leaves"))
			check(counted.calls == 3, "left at check %u", counted.calls);
		/* or stopped by a no at its third ask */
		{
			counted_asks asks = {0, 3};

			st = bloom_build_serially(got, &g, runs, 3, scratch, scratch_size,
									  count_ask, &asks);
			check(st == BLOOM_ERR_CANCELLED && asks.calls == 3,
				  "a no at ask 3: %s after %u asks", status_name(st), asks.calls);
		}
		free(got);
		free(want);
		free(scratch);

		/*
		 * 2 million hashes into a filter sized for 30 million, 8 checks: the
		 * buckets are set when one is full, not at every check.  A round
		 * ends with them about 0.9 full (test_prepared.c); at least half
		 * full bounds the rounds, where setting them a batch at a time
		 * changed the bits at 7 of the 8 checks.
		 */
		bloom_geometry_for(30000000, 10, &g);
		scratch_size = bloom_final_scratch_size(&g, 2000000);
		scratch = malloc(scratch_size * sizeof(uint32_t));
		want = calloc(1, g.filter_bytes);
		got = malloc(g.filter_bytes);
		bloom_build_from_hashes(want, &g, hashes, 2000000);
		runs[0] = (bloom_hash_run) {hashes, 2000000, NULL, 0, NULL};
		/* the first check sees the zeroed array */
		counted = (serial_checks) {0, 0, got, g.filter_bytes - 1, 0, 0};
		st = bloom_build_serially(got, &g, runs, 1, scratch, scratch_size,
								  count_check, &counted);
		check(st == BLOOM_OK && memcmp(got, want, g.filter_bytes) == 0,
			  "2 million hashes: %s", st != BLOOM_OK ? status_name(st) : "different bytes");
		check(scratch_size > 0 && counted.calls == 8 &&
			  counted.changed <= 2000000 * g.k / (scratch_size / 2),
			  "%zu words of scratch, %u checks, the bits changed at %u",
			  scratch_size, counted.calls, counted.changed);
		free(got);
		free(want);
		free(scratch);
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
