/*
 * final_tsan.c
 *		The threaded final under ThreadSanitizer (make unittest-tsan): the
 *		bits set on 2, 3 and 8 threads, with a cancel in between, must be
 *		one thread's bytes, and TSan must report no data race (any report
 *		makes the run exit non-zero).  Two filter sizes, so that both ways
 *		of setting bits run: copies OR-ed together, and buckets (8 threads
 *		at 44 bits a key).  A planted race, every thread setting every
 *		region, was reported here.  The first run is gap-coded, so that in
 *		copies the other threads set bits while one decodes it, and then
 *		wait for it.  Then the threaded flatten (bloom_flatten.c) of the
 *		same runs: the serial sort's code on 2, 3 and 8 threads, and a
 *		cancel while its threads sort and while they code.  Built with
 *		BLOOM_TRACE, as the benches' traced library is: its counters are
 *		raced against too, and the trace of a final through buckets must
 *		give its rounds, and buckets between empty and full.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_build.h"
#include "bloom_final.h"
#include "bloom_flatten.h"
#include "bloom_gaps.h"
#include "bloom_sort.h"

int
main(void)
{
	static const unsigned threads[] = {2, 3, 8};
	size_t		n = 2000000;
	uint32_t   *hashes = malloc(n * sizeof(uint32_t));
	uint32_t   *sorted = malloc(700000 * sizeof(uint32_t));
	uint32_t   *decoded = malloc(700000 * sizeof(uint32_t));
	uint8_t    *code;
	uint64_t	x = 42;
	bloom_geometry g;
	bloom_hash_run runs[3];
	uint8_t    *want,
			   *got;
	int			passed = 0,
				failed = 0;

	for (size_t i = 0; i < n; i++)
	{
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		hashes[i] = (uint32_t) (x >> 32);
	}
	/* the first 700,000 hashes, sorted and coded */
	{
		uint32_t   *scratch = malloc(700000 * sizeof(uint32_t));
		size_t		d;
		unsigned	r;

		memcpy(sorted, hashes, 700000 * sizeof(uint32_t));
		d = bloom_sort_unique_hashes(sorted, 700000, scratch);
		r = bloom_gaps_rice_param(d);
		code = malloc(bloom_gaps_max_bytes(d, r));
		runs[0] = (bloom_hash_run) {decoded, d, code, bloom_gaps_encode(sorted, d, r, code), decoded};
		free(scratch);
	}
	runs[1] = (bloom_hash_run) {hashes + 700000, 0, NULL, 0, NULL};
	runs[2] = (bloom_hash_run) {hashes + 700000, n - 700000, NULL, 0, NULL};
	for (int bpk = 20; bpk <= 44; bpk += 24)
	{
		bloom_geometry_for(n, bpk, &g);
		want = calloc(1, g.filter_bytes);
		got = malloc(g.filter_bytes);
		bloom_build_from_runs(want, &g, runs, 3, 1);

		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
		{
			bloom_final_job *job;
			const char *way = bloom_final_uses_copies(&g, threads[t]) ? "copies" : "buckets";

			memset(got, 0xa5, g.filter_bytes);	/* the final zeroes it */
			if (bloom_build_from_runs(got, &g, runs, 3, threads[t]) == BLOOM_OK &&
				memcmp(got, want, g.filter_bytes) == 0)
			{
				printf("ok   %d bits a key, %u threads (%s): one thread's bytes\n", bpk, threads[t], way);
				passed++;
			}
			else
			{
				printf("FAIL %d bits a key, %u threads (%s): not one thread's bytes\n", bpk, threads[t], way);
				failed++;
			}
#ifdef BLOOM_TRACE
			if (!bloom_final_uses_copies(&g, threads[t]) &&
				bloom_final_start(&job, got, &g, runs, 3, threads[t]) == BLOOM_OK)
			{
				char		line[256];
				const char *at;
				unsigned	rounds = 0;
				double		filled = -1;

				while (!bloom_final_wait(job, 5))
					;
				bloom_final_trace(job, line, sizeof(line));
				if ((at = strstr(line, "rounds=")) != NULL &&
					sscanf(at, "rounds=%u filled=%lf", &rounds, &filled) != 2)
					rounds = 0;
				if (bloom_final_finish(job) == BLOOM_OK && memcmp(got, want, g.filter_bytes) == 0 &&
					rounds >= 1 && filled > 0 && filled <= 1)
				{
					printf("ok   %d bits a key, %u threads (%s): traced, %u rounds, buckets %.2f full\n",
						   bpk, threads[t], way, rounds, filled);
					passed++;
				}
				else
				{
					printf("FAIL %d bits a key, %u threads (%s): the trace says %s\n", bpk, threads[t], way, line);
					failed++;
				}
			}
#endif
			/* a cancel while the threads run */
			if (bloom_final_start(&job, got, &g, runs, 3, threads[t]) == BLOOM_OK)
			{
				(void) bloom_final_wait(job, 1);
				bloom_final_cancel(job);
				(void) bloom_final_finish(job);
				printf("ok   %d bits a key, %u threads (%s): cancelled and joined\n", bpk, threads[t], way);
				passed++;
			}
			else
			{
				printf("FAIL %d bits a key, %u threads (%s): could not start\n", bpk, threads[t], way);
				failed++;
			}
		}
		free(got);
		free(want);
	}
	{
		const uint32_t *parts[3];
		size_t		lens[3];
		uint32_t   *tmp = malloc(BLOOM_SORT_TMP_MIN * sizeof(uint32_t));
		uint32_t   *all = malloc(n * sizeof(uint32_t));
		uint8_t    *want_code,
				   *got_code;
		size_t		d,
					want_len;

		(void) bloom_hash_run_decode(&runs[0], NULL, NULL);
		for (int r = 0; r < 3; r++)
		{
			parts[r] = runs[r].hashes;
			lens[r] = runs[r].n;
		}
		d = bloom_sort_unique_parts(parts, lens, 3, all, tmp, BLOOM_SORT_TMP_MIN,
									NULL, NULL);
		want_code = malloc(bloom_gaps_max_bytes(d, bloom_gaps_rice_param(d)));
		got_code = malloc(bloom_gaps_max_bytes(d, bloom_gaps_rice_param(d)));
		want_len = bloom_gaps_encode(all, d, bloom_gaps_rice_param(d), want_code);
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
		{
			bloom_flatten_job *job;
			uint64_t	got_d = 0;
			size_t		len = 0;
			bool		ok = false;

			if (bloom_flatten_start(&job, runs, 3, threads[t]) == BLOOM_OK)
			{
				while (!bloom_flatten_wait(job, 5))
					;
				if (bloom_flatten_sorted(job, &got_d, &len) == BLOOM_OK && got_d == d)
				{
					bloom_flatten_code(job, got_code);
					while (!bloom_flatten_wait(job, 5))
						;
				}
				ok = bloom_flatten_finish(job) == BLOOM_OK && len == want_len &&
					memcmp(got_code, want_code, len) == 0;
			}
			printf("%s flatten, %u threads: the serial sort's code\n", ok ? "ok  " : "FAIL", threads[t]);
			ok ? passed++ : failed++;
			if (bloom_flatten_start(&job, runs, 3, threads[t]) == BLOOM_OK)
			{
				(void) bloom_flatten_wait(job, 1);
				bloom_flatten_cancel(job);
				(void) bloom_flatten_finish(job);
				printf("ok   flatten, %u threads: cancelled while sorting and joined\n", threads[t]);
				passed++;
			}
			else
			{
				printf("FAIL flatten, %u threads: could not start\n", threads[t]);
				failed++;
			}
			ok = false;
			if (bloom_flatten_start(&job, runs, 3, threads[t]) == BLOOM_OK)
			{
				while (!bloom_flatten_wait(job, 5))
					;
				if (bloom_flatten_sorted(job, &got_d, &len) == BLOOM_OK)
				{
					bloom_flatten_code(job, got_code);
					(void) bloom_flatten_wait(job, 1);
					bloom_flatten_cancel(job);
					ok = true;
				}
				(void) bloom_flatten_finish(job);
			}
			printf("%s flatten, %u threads: cancelled while coding and joined\n", ok ? "ok  " : "FAIL", threads[t]);
			ok ? passed++ : failed++;
		}
		free(got_code);
		free(want_code);
		free(all);
		free(tmp);
	}
	printf("tsan: %d passed, %d failed\n", passed, failed);
	free(code);
	free(decoded);
	free(sorted);
	free(hashes);
	return failed > 0;
}
