/*
 * probe.c
 *		bloomfilter probe: may the filter contain these keys?
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static bool
answer(const tool_filter *filter, tool_key *key, const char *text, size_t len,
	   const char *where)
{
	char		why[TOOL_QUOTE_BUF + 100];
	bool		may;

	if (tool_key_parse(key, text, len, why, sizeof(why)) != NULL)
		tool_die("%s: %s", where, why);
	may = tool_key_may_contain(key, filter->bytes, filter->len);
	/* the key as written, so that output lines join back to the input */
	fwrite(text, 1, len, stdout);
	fputs(may ? "\ttrue\n" : "\tfalse\n", stdout);
	return may;
}

int
cmd_probe(int argc, char **argv)
{
	tool_args	args;
	tool_filter filter;
	tool_key	key = {0};
	int			status = EXIT_MAYBE;

	tool_parse_args(argc, argv, OPT_KEY_TYPE | OPT_UNCHECKED | OPT_RAW, &args);
	if (args.npositional < 1)
		tool_usage_error("probe", "probe needs a FILTER");
	if (args.npositional == 1 && strcmp(args.positional[0], "-") == 0)
		tool_usage_error("probe",
						 "the filter and the keys cannot both come from stdin");

	if (args.unchecked)
		tool_load_filter_unchecked(args.positional[0], args.raw, &filter);
	else
		tool_load_filter(args.positional[0], args.raw, &filter);
	key.type = args.key_type;

	if (args.npositional > 1)
	{
		for (int i = 1; i < args.npositional; i++)
		{
			char		where[32];
			const char *k = args.positional[i];

			snprintf(where, sizeof(where), "key %d", i);
			if (!answer(&filter, &key, k, strlen(k), where) &&
				args.npositional == 2)
				status = EXIT_ABSENT;
		}
	}
	else
	{
		tool_lines	lines;
		char	   *line;
		ssize_t		n;

		tool_lines_open(&lines, "-");
		while ((n = tool_lines_next(&lines, &line)) >= 0)
		{
			char		where[64];

			snprintf(where, sizeof(where), "%s:%lu", lines.name, lines.lineno);
			answer(&filter, &key, line, (size_t) n, where);
		}
		tool_lines_close(&lines);
	}

	tool_finish_stdout();
	tool_key_free(&key);
	tool_filter_free(&filter);
	free(args.positional);
	return status;
}
