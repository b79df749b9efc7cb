/*
 * info.c
 *		bloomfilter info: SQL's bloom_info figures of a filter.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool.h"

/*
 * %.17g reads back as the very double, so a figure can be compared exactly
 * with bloom_info's; the non-finite values are spelled as PostgreSQL's
 * float8out spells them, not as printf does ("inf").
 */
static void
print_double(const char *name, double v)
{
	if (isnan(v))
		printf("%s\tNaN\n", name);
	else if (isinf(v))
		printf("%s\t%s\n", name, v > 0 ? "Infinity" : "-Infinity");
	else
		printf("%s\t%.17g\n", name, v);
}

int
cmd_info(int argc, char **argv)
{
	tool_args	args;
	tool_filter filter;
	bloomfilter_info info;

	tool_parse_args(argc, argv, OPT_RAW | OPT_MEASURE, &args);
	if (args.npositional != 1)
		tool_usage_error("info", "info takes one FILTER");

	tool_load_filter(args.positional[0], args.raw, &filter);
	tool_filter_info(&filter, args.measure, &info);

	printf("bytes\t%llu\n", (unsigned long long) info.bytes);
	printf("bits\t%llu\n", (unsigned long long) info.bits);
	printf("k\t%u\n", info.k);
	printf("bits_set\t%llu\n", (unsigned long long) info.bits_set);
	print_double("fill_ratio", info.fill_ratio);
	print_double("estimated_keys", info.estimated_keys);
	print_double("false_positive_rate", info.false_positive_rate);
	tool_finish_stdout();

	tool_filter_free(&filter);
	free(args.positional);
	return 0;
}
