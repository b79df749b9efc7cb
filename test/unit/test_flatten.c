/*
 * test_flatten.c
 *		Unit tests of the core: the threaded flatten (bloom_flatten.c).
 */
#include "unit.h"

/* Bytes after the code that the flatten must leave as they were. */
#define GUARD_BYTES 16
#define GUARD_VALUE 0xa5

/*
 * Flatten runs on nthreads threads, waiting as a backend does: the code in
 * a new allocation (*code) of exactly its length but for a guard after it,
 * checked untouched, its length and distinct count.  A failure's status is
 * returned with nothing allocated.
 */
static bloom_status
flatten_on_threads(const bloom_hash_run *runs, size_t nruns, unsigned nthreads,
				   uint8_t **code, size_t *len, uint64_t *ndistinct)
{
	bloom_flatten_job *job;
	bloom_status st = bloom_flatten_start(&job, runs, nruns, nthreads);

	*code = NULL;
	if (st != BLOOM_OK)
		return st;
	while (!bloom_flatten_wait(job, 5))
		;
	st = bloom_flatten_sorted(job, ndistinct, len);
	if (st != BLOOM_OK)
	{
		(void) bloom_flatten_finish(job);
		return st;
	}
	*code = malloc(*len + GUARD_BYTES);
	memset(*code, GUARD_VALUE, *len + GUARD_BYTES);
	bloom_flatten_code(job, *code);
	while (!bloom_flatten_wait(job, 5))
		;
	st = bloom_flatten_finish(job);
	for (size_t i = 0; i < GUARD_BYTES; i++)
		check((*code)[*len + i] == GUARD_VALUE,
			  "%u threads wrote byte %zu past the %zu of the code", nthreads, i, *len);
	if (st != BLOOM_OK)
	{
		free(*code);
		*code = NULL;
	}
	return st;
}

/*
 * The code on 2, 3, 8 and the most threads is bloom_gaps_encode's of what
 * bloom_sort_unique_parts makes of the same (decoded) runs.
 */
static void
flatten_same_code(bloom_hash_run *runs, size_t nruns, const char *what)
{
	static const unsigned threads[] = {2, 3, 8, BLOOM_MAX_FINAL_THREADS};
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
		check(bloom_hash_run_decode(&runs[r], NULL, NULL) == BLOOM_OK, "%s: run %zu does not decode", what, r);
		parts[r] = runs[r].hashes;
		lens[r] = runs[r].n;
		total += runs[r].n;
	}
	out = malloc((total + 1) * sizeof(uint32_t));
	d = bloom_sort_unique_parts(parts, lens, nruns, out, tmp, BLOOM_SORT_TMP_MIN,
								NULL, NULL);
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

void
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

	test_begin("parts of a few hashes or bytes: every count from 1 to 300, close and far apart");
	{
		/*
		 * A part's last hashes go through a buffer of its own, and a byte
		 * may be shared by two parts or more: with few hashes a thread, a
		 * part is all tail or ends anywhere in a byte.
		 */
		uint32_t	few[300];

		for (size_t m = 1; m <= 300; m++)
		{
			uint32_t	step = m % 3 == 0 ? 1 : m % 3 == 1 ? 977 : 14000000;

			for (size_t i = 0; i < m; i++)
				few[i] = (uint32_t) (rng_next() % 50) + (uint32_t) i * step;
			runs[7] = (bloom_hash_run) {few, m, NULL, 0, NULL};
			flatten_same_code(runs + 7, 1, "a few hashes");
		}
	}
	test_end();

	test_begin("coded runs decoded on the threads; a damaged code is reported");
	{
		size_t		m = 1000000;
		uint32_t   *sorted;
		uint32_t   *decoded[2];
		uint8_t    *got;
		size_t		d,
					len;
		uint8_t    *code = gaps_code_of(hashes, m, &sorted, &d, &len);
		uint64_t	got_d;

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
		free(sorted);
	}
	test_end();

	test_begin("cancel and finish on every path: nothing left running");
	{
		bloom_flatten_job *job;
		size_t		len;
		uint64_t	d;
		uint8_t    *out;

		runs[0] = (bloom_hash_run) {hashes, n, NULL, 0, NULL};
		/* cancelled at once */
		check(bloom_flatten_start(&job, runs, 1, 4) == BLOOM_OK, "start");
		bloom_flatten_cancel(job);
		while (!bloom_flatten_wait(job, 5))
			;
		check(bloom_flatten_sorted(job, &d, &len) == BLOOM_ERR_CANCELLED,
			  "a cancelled sort said it was sorted");
		check(bloom_flatten_finish(job) == BLOOM_ERR_CANCELLED, "a cancelled job did not say so");
		/* sorted, then finished without an output */
		check(bloom_flatten_start(&job, runs, 1, 3) == BLOOM_OK, "start");
		while (!bloom_flatten_wait(job, 5))
			;
		check(bloom_flatten_sorted(job, &d, &len) == BLOOM_OK && d > 0 && len > 0, "sorted");
		check(bloom_flatten_finish(job) == BLOOM_ERR_CANCELLED,
			  "a job given no output did not say so");
		/* sorted, given its output, cancelled while coding and finished at once */
		check(bloom_flatten_start(&job, runs, 1, 4) == BLOOM_OK, "start");
		while (!bloom_flatten_wait(job, 5))
			;
		check(bloom_flatten_sorted(job, &d, &len) == BLOOM_OK, "sorted");
		out = malloc(len);
		bloom_flatten_code(job, out);
		bloom_flatten_cancel(job);
		check(bloom_flatten_finish(job) == BLOOM_ERR_CANCELLED,
			  "a job cancelled while coding did not say so");
		free(out);
		/* finished straight after the start */
		check(bloom_flatten_start(&job, runs, 1, 2) == BLOOM_OK, "start");
		check(bloom_flatten_finish(job) == BLOOM_ERR_CANCELLED, "finish at once");
		check(bloom_flatten_start(&job, runs, 1, 1) == BLOOM_ERR_THREAD &&
			  bloom_flatten_start(&job, runs, 1, BLOOM_MAX_FINAL_THREADS + 1) == BLOOM_ERR_THREAD,
			  "thread counts out of range accepted");
	}
	test_end();

	group_end();
	free(hashes);
}
