/*
 * build.c
 *		bloomfilter build: a filter from keys, one a line.
 */
#include <stdlib.h>

#include "tool.h"

int
cmd_build(int argc, char **argv)
{
	tool_args	args;
	const char *path;
	tool_lines	lines;
	tool_key	key = {0};
	bloomfilter_builder *builder;
	uint8_t    *filter;
	size_t		len;
	char	   *line;
	ssize_t		n;
	int			rc;

	tool_parse_args(argc, argv,
					OPT_BITS_PER_KEY | OPT_KEY_TYPE | OPT_OUTPUT_FORMAT | OPT_OUTPUT,
					&args);
	if (!args.have_bits_per_key)
		tool_usage_error("build", "--bits-per-key is required");
	if (args.npositional > 1)
		tool_usage_error("build", "build reads one FILE of keys (or stdin)");
	path = args.npositional == 1 ? args.positional[0] : "-";

	rc = bloomfilter_builder_new(args.bits_per_key, &builder);
	if (rc != BLOOMFILTER_OK)
		tool_die("--bits-per-key %d: %s", args.bits_per_key,
				 bloomfilter_strerror(rc));

	key.type = args.key_type;
	tool_lines_open(&lines, path);
	while ((n = tool_lines_next(&lines, &line)) >= 0)
	{
		char		why[TOOL_QUOTE_BUF + 100];

		if (tool_key_parse(&key, line, (size_t) n, why, sizeof(why)) != NULL)
			tool_die("%s:%lu: %s", lines.name, lines.lineno, why);
		rc = tool_key_add(&key, builder);
		if (rc != BLOOMFILTER_OK)
			tool_die("%s:%lu: %s", lines.name, lines.lineno,
					 bloomfilter_strerror(rc));
	}
	tool_lines_close(&lines);
	tool_key_free(&key);

	rc = bloomfilter_builder_finish(builder, &filter, &len);
	if (rc != BLOOMFILTER_OK)
		tool_die("%s: %s", tool_display_name(path), bloomfilter_strerror(rc));
	bloomfilter_builder_free(builder);

	tool_write_filter(args.output, args.output_format, filter, len);
	bloomfilter_free(filter);
	free(args.positional);
	return 0;
}
