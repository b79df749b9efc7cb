/*
 * combine.c
 *		bloomfilter union and intersect.
 */
#include <stdlib.h>

#include "tool.h"

typedef int (*combine_fn) (uint8_t *dst, size_t dst_len,
						   const uint8_t *src, size_t src_len);

static int
combine(const char *command, combine_fn fn, int argc, char **argv)
{
	tool_args	args;
	tool_filter result;

	tool_parse_args(argc, argv, OPT_OUTPUT_FORMAT | OPT_OUTPUT | OPT_RAW, &args);
	if (args.npositional < 2)
		tool_usage_error(command, "%s needs two FILTERs or more", command);

	/* every input is read and checked before anything is written */
	tool_load_filter(args.positional[0], args.raw, &result);
	for (int i = 1; i < args.npositional; i++)
	{
		tool_filter other;
		int			rc;

		tool_load_filter(args.positional[i], args.raw, &other);
		rc = fn(result.bytes, result.len, other.bytes, other.len);
		if (rc == BLOOMFILTER_ERR_GEOMETRY)
			tool_die("%s (%zu bytes, k=%u) and %s (%zu bytes, k=%u): %s",
					 tool_display_name(result.path),
					 result.len, (unsigned) result.bytes[result.len - 1],
					 tool_display_name(other.path),
					 other.len, (unsigned) other.bytes[other.len - 1],
					 bloomfilter_strerror(rc));
		if (rc != BLOOMFILTER_OK)
			tool_die("%s: %s", tool_display_name(other.path),
					 bloomfilter_strerror(rc));
		tool_filter_free(&other);
	}

	tool_write_filter(args.output, args.output_format, result.bytes, result.len);
	tool_filter_free(&result);
	free(args.positional);
	return 0;
}

int
cmd_union(int argc, char **argv)
{
	return combine("union", bloomfilter_union_into, argc, argv);
}

int
cmd_intersect(int argc, char **argv)
{
	return combine("intersect", bloomfilter_intersect_into, argc, argv);
}
