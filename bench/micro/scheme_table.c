/*
 * scheme_table.c
 *		Makes src/core/bloom_scheme_table.c: the false-positive rates that
 *		LevelDB's probe scheme gives at bits_per_key 1..20 and key counts
 *		10^3..10^7, each measured by bloom_scheme_expected_fpr (filters
 *		built from a fixed pseudo-random hash stream, probed with another).
 *
 *	scheme_table > src/core/bloom_scheme_table.c    the whole table (minutes)
 *	scheme_table --check BPK...                     recompute those rows at
 *		counts up to 10^6 and compare them with the compiled-in table;
 *		ends with "scheme-table: N passed, N failed"
 *	scheme_table --plot-data                        the compiled-in table
 *		beside the ideal rate, one line a bits_per_key (bench/micro/plot_fpr.sh)
 *
 * The streams are fixed and the arithmetic is integer until the last
 * division, so the same program prints the same table on every machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_scheme.h"
#include "bloom_stats.h"

const uint64_t bloom_scheme_table_counts_made[BLOOM_SCHEME_TABLE_COUNTS] = {
	1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
	1000000, 2000000, 5000000, 10000000,
};

static double
measure(uint64_t nkeys, int bpk)
{
	size_t		bytes = bloom_scheme_expected_scratch_bytes(nkeys, bpk);
	uint8_t    *scratch = malloc(bytes);
	double		rate;

	if (scratch == NULL)
	{
		fprintf(stderr, "scheme_table: out of memory\n");
		exit(2);
	}
	rate = bloom_scheme_expected_fpr(nkeys, bpk, BLOOM_SCHEME_TABLE_PROBES,
									 scratch);
	free(scratch);
	if (rate < 0)
	{
		fprintf(stderr, "scheme_table: %llu keys at %d bits a key: too few matches to measure\n",
				(unsigned long long) nkeys, bpk);
		exit(2);
	}
	return rate;
}

static int
check(int argc, char **argv)
{
	int			passed = 0,
				failed = 0,
				a,
				i;

	for (a = 0; a < argc; a++)
	{
		int			bpk = atoi(argv[a]);

		if (bpk < 1 || bpk > BLOOM_SCHEME_TABLE_MAX_BPK)
		{
			fprintf(stderr, "scheme_table: no row for bits_per_key %s\n", argv[a]);
			return 2;
		}
		for (i = 0; i < BLOOM_SCHEME_TABLE_COUNTS; i++)
		{
			uint64_t	n = bloom_scheme_table_counts[i];
			double		got,
						want = bloom_scheme_table[bpk - 1][i];

			if (n > 1000000)
				continue;
			got = measure(n, bpk);
			if (got == want && n == bloom_scheme_table_counts_made[i])
				passed++;
			else
			{
				failed++;
				printf("FAIL bpk %d, %llu keys: measured %.17g, table %.17g\n",
					   bpk, (unsigned long long) n, got, want);
			}
		}
	}
	printf("scheme-table: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}

int
main(int argc, char **argv)
{
	int			bpk,
				i;

	if (argc > 1 && strcmp(argv[1], "--check") == 0)
		return check(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "--plot-data") == 0)
	{
		printf("# bpk ideal");
		for (i = 0; i < BLOOM_SCHEME_TABLE_COUNTS; i++)
			printf(" keys_%llu", (unsigned long long) bloom_scheme_table_counts[i]);
		printf("\n");
		for (bpk = 1; bpk <= BLOOM_SCHEME_TABLE_MAX_BPK; bpk++)
		{
			printf("%d %.6g", bpk, bloom_ideal_fpr(bpk));
			for (i = 0; i < BLOOM_SCHEME_TABLE_COUNTS; i++)
				printf(" %.6g", bloom_scheme_table[bpk - 1][i]);
			printf("\n");
		}
		return 0;
	}

	printf("/*\n"
		   " * bloom_scheme_table.c\n"
		   " *\t\tMADE BY bench/micro/scheme_table.c (make scheme-table): do not edit.\n"
		   " *\n"
		   " * The false-positive rate LevelDB's probe scheme gives, measured by\n"
		   " * bloom_scheme_expected_fpr with %llu probes, for bits_per_key 1..%d\n"
		   " * (rows) at the key counts below (columns).\n"
		   " */\n"
		   "#include \"bloom_scheme.h\"\n\n"
		   "const uint64_t bloom_scheme_table_counts[BLOOM_SCHEME_TABLE_COUNTS] = {\n",
		   (unsigned long long) BLOOM_SCHEME_TABLE_PROBES, BLOOM_SCHEME_TABLE_MAX_BPK);
	for (i = 0; i < BLOOM_SCHEME_TABLE_COUNTS; i++)
		printf("%s%llu,%s", i % 7 == 0 ? "\t" : " ",
			   (unsigned long long) bloom_scheme_table_counts_made[i],
			   i % 7 == 6 || i == BLOOM_SCHEME_TABLE_COUNTS - 1 ? "\n" : "");
	printf("};\n\nconst double bloom_scheme_table[BLOOM_SCHEME_TABLE_MAX_BPK][BLOOM_SCHEME_TABLE_COUNTS] = {\n");
	for (bpk = 1; bpk <= BLOOM_SCHEME_TABLE_MAX_BPK; bpk++)
	{
		printf("\t/* %d bits a key */\n\t{", bpk);
		for (i = 0; i < BLOOM_SCHEME_TABLE_COUNTS; i++)
		{
			printf("%s%.17g", i == 0 ? "" : i % 4 == 0 ? ",\n\t " : ", ",
				   measure(bloom_scheme_table_counts_made[i], bpk));
			fflush(stdout);
		}
		printf("},\n");
	}
	printf("};\n");
	return 0;
}
