/*
 * args.c
 *		Command-line options, shared by the commands.
 *
 * Options may come anywhere among the positional arguments, as GNU tools
 * allow.  A negative number ("-1") is a positional argument, not an
 * option, so that "probe --key-type int64 f -1" works without "--".
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

typedef struct option_def
{
	const char *long_name;
	char		short_name;
	unsigned	flag;
	bool		takes_value;
} option_def;

static const option_def options[] = {
	{"bits-per-key", 0, OPT_BITS_PER_KEY, true},
	{"key-type", 0, OPT_KEY_TYPE, true},
	{"output-format", 0, OPT_OUTPUT_FORMAT, true},
	{"output", 'o', OPT_OUTPUT, true},
	{"width", 0, OPT_WIDTH, true},
	{"regions", 0, OPT_REGIONS, true},
	{"unchecked", 0, OPT_UNCHECKED, false},
	{"raw", 0, OPT_RAW, false},
	{"measure", 0, OPT_MEASURE, false},
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static long
parse_long(const char *command, const char *option, const char *value,
		   long min, long max)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (value[0] == '\0' || isspace((unsigned char) value[0]) || *end != '\0')
		tool_usage_error(command, "--%s takes a whole number, not \"%s\"",
						 option, value);
	if (errno == ERANGE || v < min || v > max)
		tool_usage_error(command, "--%s must be from %ld to %ld", option,
						 min, max);
	return v;
}

static void
set_option(tool_args *args, const option_def *opt, const char *value)
{
	const char *command = args->command;

	switch (opt->flag)
	{
		case OPT_BITS_PER_KEY:
			args->bits_per_key = (int) parse_long(command, opt->long_name,
												  value, 0, INT_MAX);
			args->have_bits_per_key = true;
			break;
		case OPT_KEY_TYPE:
			if (!tool_key_type_from_name(value, &args->key_type))
				tool_usage_error(command,
								 "--key-type is text, hex, int64 or uuid, not \"%s\"",
								 value);
			break;
		case OPT_OUTPUT_FORMAT:
			if (strcmp(value, "raw") == 0)
				args->output_format = OUTPUT_RAW;
			else if (strcmp(value, "text") == 0)
				args->output_format = OUTPUT_TEXT;
			else
				tool_usage_error(command,
								 "--output-format is raw or text, not \"%s\"",
								 value);
			break;
		case OPT_OUTPUT:
			args->output = value;
			break;
		case OPT_WIDTH:
			args->width = parse_long(command, opt->long_name, value, 100, 100000);
			break;
		case OPT_REGIONS:
			args->regions = parse_long(command, opt->long_name, value, 1, 1000000);
			break;
		case OPT_UNCHECKED:
			args->unchecked = true;
			break;
		case OPT_RAW:
			args->raw = true;
			break;
		case OPT_MEASURE:
			args->measure = true;
			break;
	}
}

static bool
is_positional(const char *arg)
{
	return arg[0] != '-' || arg[1] == '\0' || isdigit((unsigned char) arg[1]);
}

void
tool_parse_args(int argc, char **argv, unsigned accepted, tool_args *args)
{
	bool		only_positional = false;
	bool		help = false;

	memset(args, 0, sizeof(*args));
	args->command = argv[0];
	args->accepted = accepted;
	args->key_type = KEY_TEXT;
	args->output_format = OUTPUT_RAW;
	args->width = 640;
	args->regions = 64;
	args->positional = tool_xmalloc(sizeof(char *) * (size_t) (argc > 0 ? argc : 1));

	for (int i = 1; i < argc; i++)
	{
		const char *arg = argv[i];
		const option_def *opt = NULL;
		const char *value = NULL;

		if (only_positional || is_positional(arg))
		{
			args->positional[args->npositional++] = argv[i];
			continue;
		}
		if (strcmp(arg, "--") == 0)
		{
			only_positional = true;
			continue;
		}
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
		{
			help = true;
			continue;
		}

		if (arg[1] == '-')
		{
			const char *name = arg + 2;
			const char *eq = strchr(name, '=');
			size_t		namelen = eq ? (size_t) (eq - name) : strlen(name);

			for (size_t j = 0; j < NOPTIONS; j++)
				if (strlen(options[j].long_name) == namelen &&
					strncmp(options[j].long_name, name, namelen) == 0)
					opt = &options[j];
			if (opt != NULL && eq != NULL)
			{
				if (!opt->takes_value)
					tool_usage_error(args->command, "--%s takes no value",
									 opt->long_name);
				value = eq + 1;
			}
		}
		else
		{
			for (size_t j = 0; j < NOPTIONS; j++)
				if (options[j].short_name != 0 && options[j].short_name == arg[1])
					opt = &options[j];
			/* -oFILE, as getopt allows */
			if (opt != NULL && arg[2] != '\0')
				value = arg + 2;
		}

		if (opt == NULL || (opt->flag & accepted) == 0)
		{
			char		q[TOOL_QUOTE_BUF];

			tool_usage_error(args->command, "unknown option %s",
							 tool_quote(arg, strlen(arg), q, sizeof(q)));
		}
		if (opt->takes_value && value == NULL)
		{
			if (i + 1 >= argc)
				tool_usage_error(args->command, "--%s needs a value",
								 opt->long_name);
			value = argv[++i];
		}
		set_option(args, opt, value);
	}
	/* after every option is checked: --help does not hide a mistake */
	if (help)
	{
		tool_print_help(args->command, stdout);
		tool_finish_stdout();
		exit(0);
	}
}
