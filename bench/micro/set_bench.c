/*
 * set_bench.c
 *		How fast the final sets a filter's bits, each way it can (make
 *		set-bench): on one thread straight into the filter (prefetching a
 *		batch of keys ahead) and through buckets by region, and on T threads
 *		in copies OR-ed together and through buckets, for 10,000,000 random
 *		hashes at 10 bits a key (a 12.5 MB filter) and, with --keys, any
 *		other count.  The ways are interleaved round by round, since this
 *		machine's speed moves by more than their differences from one minute
 *		to the next; the medians are printed with each way's time over the
 *		threaded way bloom_final_uses_copies chooses.  Every way's bytes are
 *		checked against the first's.
 *
 *	 bench/micro/set_bench [--keys N] [--bpk B] [--threads T] [--rounds R] [--ways LIST]
 *					 [--sorted-runs S]
 *
 * --ways times only the ways listed by number (1 to 4, as printed, e.g.
 * 3,4): at 100 million keys the two one-thread ways take most of a round.
 * --sorted-runs splits the hashes into S runs, each sorted and without
 * repeats, as parallel workers' states reach the final, where by default
 * they are one run in random order.  It ends with "set-bench: N passed, N
 * failed", a check for every way's bytes after the first's in each round
 * (the test command's smoke run).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bloom_build.h"
#include "bloom_final.h"
#include "bloom_sort.h"

#define NWAYS 4

static const char *const way_names[NWAYS] = {
	"1 thread, straight",
	"1 thread, buckets",
	"T threads, copies",
	"T threads, buckets",
};

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int
compare_doubles(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(double), compare_doubles);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static unsigned long
option(int argc, char **argv, int *i, const char *name)
{
	char	   *end;
	unsigned long v;

	if (*i + 1 >= argc)
	{
		fprintf(stderr, "set_bench: %s needs a value\n", name);
		exit(2);
	}
	v = strtoul(argv[++*i], &end, 10);
	if (*end != '\0' || v == 0)
	{
		fprintf(stderr, "set_bench: %s wants a positive integer\n", name);
		exit(2);
	}
	return v;
}

/* "1,3": the ways numbered 1 and 3 only; false for anything else */
static bool
parse_ways(const char *list, bool *timed)
{
	bool		any = false;

	for (int w = 0; w < NWAYS; w++)
		timed[w] = false;
	for (const char *c = list; *c != '\0'; c++)
	{
		if (*c >= '1' && *c < '1' + NWAYS && (c[1] == ',' || c[1] == '\0'))
			timed[*c - '1'] = any = true;
		else if (*c != ',')
			return false;
	}
	return any;
}

int
main(int argc, char **argv)
{
	uint64_t	nkeys = 10000000;
	unsigned long bpk = 10,
				threads = 2,
				rounds = 5,
				nruns = 1;
	bool		sorted = false;
	uint32_t   *hashes;
	uint8_t    *filter,
			   *first;
	bloom_geometry g;
	bloom_prepared p;
	bloom_hash_run *runs;
	double	   *times[NWAYS];
	double		medians[NWAYS];
	bool		copies_chosen;
	int			chosen;			/* the threaded way's index */
	uint64_t	x = 42;
	unsigned	passed = 0,
				failed = 0;
	bool		timed[NWAYS] = {true, true, true, true};
	bool		have_first = false;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--keys") == 0)
			nkeys = option(argc, argv, &i, "--keys");
		else if (strcmp(argv[i], "--bpk") == 0)
			bpk = option(argc, argv, &i, "--bpk");
		else if (strcmp(argv[i], "--threads") == 0)
			threads = option(argc, argv, &i, "--threads");
		else if (strcmp(argv[i], "--rounds") == 0)
			rounds = option(argc, argv, &i, "--rounds");
		else if (strcmp(argv[i], "--sorted-runs") == 0)
		{
			nruns = option(argc, argv, &i, "--sorted-runs");
			sorted = true;
		}
		else if (strcmp(argv[i], "--ways") == 0 && i + 1 < argc &&
				 parse_ways(argv[++i], timed))
			;
		else
		{
			fprintf(stderr, "usage: set_bench [--keys N] [--bpk B] [--threads T] [--rounds R] [--ways LIST] [--sorted-runs S]\n");
			return 2;
		}
	}
	if (threads < 2 || threads > BLOOM_MAX_FINAL_THREADS ||
		bloom_geometry_for(nkeys, (int64_t) bpk, &g) != BLOOM_OK)
	{
		fprintf(stderr, "set_bench: --threads 2 to %d, and a filter that can be built\n",
				BLOOM_MAX_FINAL_THREADS);
		return 2;
	}

	if (nruns > nkeys)
	{
		fprintf(stderr, "set_bench: --sorted-runs at most --keys\n");
		return 2;
	}
	hashes = malloc(nkeys * sizeof(uint32_t));
	filter = malloc(g.filter_bytes);
	first = malloc(g.filter_bytes);
	runs = malloc(nruns * sizeof(bloom_hash_run));
	if (hashes == NULL || filter == NULL || first == NULL || runs == NULL)
	{
		fprintf(stderr, "set_bench: out of memory\n");
		return 1;
	}
	for (uint64_t i = 0; i < nkeys; i++)
	{
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		hashes[i] = (uint32_t) (x >> 32);
	}
	/*
	 * The filter is touched before it is timed, as the final's comes zeroed;
	 * each way allocates its own scratch, buckets or copies, as it does in
	 * the final.
	 */
	bloom_advise_huge_pages(filter, g.filter_bytes);
	memset(filter, 0, g.filter_bytes);
	bloom_prepare(&p, g.bits, g.k);
	for (unsigned long r = 0; r < nruns; r++)
	{
		uint64_t	from = nkeys * r / nruns,
					n = nkeys * (r + 1) / nruns - from;
		uint32_t   *sort_scratch = sorted ? malloc(n * sizeof(uint32_t)) : NULL;

		if (sorted && sort_scratch == NULL)
		{
			fprintf(stderr, "set_bench: out of memory\n");
			return 1;
		}
		if (sorted)
			n = bloom_sort_unique_hashes(hashes + from, n, sort_scratch);
		free(sort_scratch);
		runs[r] = (bloom_hash_run) {hashes + from, n, NULL, 0, NULL};
	}
	for (int w = 0; w < NWAYS; w++)
		times[w] = malloc(rounds * sizeof(double));

	copies_chosen = bloom_final_uses_copies(&g, (unsigned) threads);
	chosen = copies_chosen ? 2 : 3;
	printf("%" PRIu64 " hashes, %lu bits a key: a %" PRIu64 "-byte filter, k = %u; "
		   "%lu threads (the chosen way: %s); %lu rounds",
		   nkeys, bpk, g.filter_bytes, g.k, threads,
		   copies_chosen ? "copies" : "buckets", rounds);
	if (sorted)
		printf("; %lu sorted runs", nruns);
	printf("\n");
	for (unsigned long r = 0; r < rounds; r++)
		for (int w = 0; w < NWAYS; w++)
		{
			bloom_status st = BLOOM_OK;
			double		t0;

			if (!timed[w])
				continue;
			memset(filter, 0, g.filter_bytes);
			t0 = now_ms();
			switch (w)
			{
				case 0:
					for (unsigned long run = 0; run < nruns; run++)
						bloom_prepared_set_hashes(&p, filter, runs[run].hashes, runs[run].n);
					filter[g.filter_bytes - 1] = (uint8_t) g.k;
					break;
				case 1:
					st = bloom_build_from_runs(filter, &g, runs, nruns, 1);
					break;
				case 2:
					st = bloom_build_from_runs_way(filter, &g, runs, nruns, (unsigned) threads,
												   BLOOM_FINAL_WAY_COPIES);
					break;
				case 3:
					st = bloom_build_from_runs_way(filter, &g, runs, nruns, (unsigned) threads,
												   BLOOM_FINAL_WAY_BUCKETS);
					break;
			}
			times[w][r] = now_ms() - t0;
			if (!have_first && st == BLOOM_OK)
			{
				memcpy(first, filter, g.filter_bytes);
				have_first = true;
			}
			else if (st != BLOOM_OK || memcmp(filter, first, g.filter_bytes) != 0)
			{
				printf("FAIL %s: %s\n", way_names[w],
					   st != BLOOM_OK ? bloom_status_message(st) : "different bytes");
				failed++;
			}
			else
				passed++;
		}

	for (int w = 0; w < NWAYS; w++)
		if (timed[w])
			medians[w] = median(times[w], (int) rounds);
	for (int w = 0; w < NWAYS; w++)
	{
		if (!timed[w])
			continue;
		printf("%-20s %9.1f ms", way_names[w], medians[w]);
		if (timed[chosen])
			printf("  (%.2fx the chosen threaded way)", medians[w] / medians[chosen]);
		printf("\n");
	}
	printf("set-bench: %u passed, %u failed\n", passed, failed);
	return failed > 0;
}
