/*
 * main.c
 *		The bloomfilter command: dispatch, usage and help.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

typedef struct tool_command
{
	const char *name;
	int			(*run) (int argc, char **argv);
	const char *synopsis;
	const char *help;
} tool_command;

/* Shared by every command that reads keys, so the wording stays the same. */
#define KEY_TYPE_HELP \
	"  --key-type TYPE     how a key is written (default text):\n" \
	"                        text   the line's bytes\n" \
	"                        hex    hex digits of the key's bytes, optionally after \\x\n" \
	"                        int64  a signed 64-bit decimal integer (SQL's int2/int4/int8 keys)\n" \
	"                        uuid   8-4-4-4-12 hex digits, hyphens and braces optional\n"

#define FILTER_HELP \
	"A FILTER is a file (- for stdin) holding the filter's raw bytes or SQL's\n" \
	"text form, \\x and two hex digits a byte (what psql -XAt prints for a\n" \
	"bloomfilter).  A file that is text but not the text form is refused: psql's\n" \
	"table output (its header and row count), hex without \\x, a doubled \\\\x.\n"

/* For every command that reads a FILTER. */
#define RAW_HELP \
	"  --raw               FILTER files hold raw bytes: read them as they are,\n" \
	"                      even where they look like text\n"

#define OUT_FILE_HELP \
	"  -o, --output OUT    write to OUT (all or nothing) instead of stdout: a new\n" \
	"                      file, or a regular file replaced with its mode and\n" \
	"                      owner kept; a link, a device, a FIFO, a directory or\n" \
	"                      a file with other hard links is refused\n"

#define OUTPUT_HELP \
	"  --output-format FMT raw (default): the filter's bytes; text: SQL's \\x form\n" \
	"                      and a newline, for psql and COPY (FORMAT csv)\n" \
	OUT_FILE_HELP

static const tool_command commands[] = {
	{"build", cmd_build,
		"bloomfilter build --bits-per-key N [--key-type TYPE] [--output-format raw|text] [-o OUT] [FILE]",
		"Builds the filter LevelDB's CreateFilter (and SQL's bloom_agg) builds from\n"
		"the keys in FILE (default stdin), one a line; duplicates count.\n"
		"\n"
		"  --bits-per-key N    bits a key, 0 or more (10 gives about 1% false positives)\n"
		KEY_TYPE_HELP
		OUTPUT_HELP
		"\n"
		"Raw bytes are not written to a terminal.\n"},
	{"probe", cmd_probe,
		"bloomfilter probe [--key-type TYPE] [--unchecked] [--raw] FILTER [KEY...]",
		"Asks FILTER about each KEY (or, without KEY arguments, each line of stdin)\n"
		"and prints \"KEY<TAB>true\" where the filter may contain the key and\n"
		"\"KEY<TAB>false\" where it definitely does not.\n"
		"\n"
		KEY_TYPE_HELP
		RAW_HELP
		"  --unchecked         answer for any bytes as LevelDB's KeyMayMatch does\n"
		"                      (fewer than 2 bytes: false; k of 0 or over 30: true)\n"
		"                      instead of refusing a filter that is not valid\n"
		"\n"
		FILTER_HELP
		"Use -- before keys that start with a minus sign and are not numbers.\n"
		"\n"
		"Exit status: with exactly one KEY, 0 when the filter may contain it and 1\n"
		"when it definitely does not; otherwise 0.  2 for any error.\n"},
	{"info", cmd_info,
		"bloomfilter info [--measure] [--raw] FILTER",
		"Prints SQL's bloom_info figures of FILTER, one \"name<TAB>value\" a line:\n"
		"bytes, bits, k, bits_set, fill_ratio, estimated_keys, false_positive_rate.\n"
		"Fractions are printed with 17 significant digits, so that they read back\n"
		"as the same doubles; an infinite estimate is printed as Infinity.\n"
		"\n"
		"It reads the filter once: the counts are bloom_info's, and estimated_keys\n"
		"and false_positive_rate come from the ideal filter's formulas,\n"
		"-bits/k * ln(1 - fill_ratio) and fill_ratio^k.  LevelDB's probes fall\n"
		"short of an ideal filter's, so for large filters both read low (at 10 bits\n"
		"a key and a million keys, 14% fewer keys and a third of the rate).\n"
		"\n"
		"  --measure           bloom_info's estimates exactly, measured on LevelDB's\n"
		"                      scheme: about as long as building the filter again\n"
		RAW_HELP
		"\n"
		FILTER_HELP},
	{"union", cmd_union,
		"bloomfilter union [--output-format raw|text] [-o OUT] [--raw] FILTER FILTER...",
		"Writes the union of two or more filters of one size and k: a filter that\n"
		"may contain every key any of them may contain.\n"
		"\n"
		OUTPUT_HELP
		RAW_HELP
		"\n"
		FILTER_HELP},
	{"intersect", cmd_intersect,
		"bloomfilter intersect [--output-format raw|text] [-o OUT] [--raw] FILTER FILTER...",
		"Writes the intersection of two or more filters of one size and k: a\n"
		"filter that may contain the keys all of them may contain (and more).\n"
		"\n"
		OUTPUT_HELP
		RAW_HELP
		"\n"
		FILTER_HELP},
	{"explain", cmd_explain,
		"bloomfilter explain [--key-type TYPE] [--raw] FILTER KEY",
		"Shows how FILTER answers for KEY, step by step: the key's bytes, its\n"
		"32-bit hash, delta (the hash rotated right by 17 bits) and, for each of\n"
		"the k probes, h (the hash plus delta once per earlier probe, modulo 2^32),\n"
		"the bit h % bits, its byte and bit within the byte, and whether it is set.\n"
		"The key may be in the filter only if every probed bit is set.\n"
		"\n"
		KEY_TYPE_HELP
		RAW_HELP
		"\n"
		FILTER_HELP},
	{"picture", cmd_picture,
		"bloomfilter picture [--width W] [--regions R] [-o OUT] [--raw] FILTER > fill.svg",
		"Writes an SVG picture of how full each region of FILTER's bit array is:\n"
		"R cells (default 64) in a grid W pixels wide (default 640), each shaded\n"
		"by the fraction of its bits set.  A well-sized filter is about half full\n"
		"everywhere; a saturated one is dark red, an oversized one pale.\n"
		"Hovering over a cell shows its bits and how many are set.\n"
		"\n"
		"  --width W           the picture's width in pixels, 100 to 100000\n"
		"  --regions R         cells, 1 to 1000000 (at most one a bit)\n"
		OUT_FILE_HELP
		RAW_HELP
		"\n"
		FILTER_HELP},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const tool_command *
find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

const char *
tool_synopsis(const char *command)
{
	const tool_command *c = find_command(command);

	return c ? c->synopsis : NULL;
}

void
tool_print_help(const char *command, FILE *out)
{
	const tool_command *c = find_command(command);

	if (c == NULL)
		return;
	fprintf(out, "usage: %s\n\n%s", c->synopsis, c->help);
}

static void
print_usage(FILE *out)
{
	fprintf(out,
			"usage: bloomfilter COMMAND [OPTIONS] [ARGS]\n"
			"\n"
			"LevelDB bloom filters, byte for byte the ones the bloomfilter extension's\n"
			"bloom_agg builds, outside the database.\n"
			"\n"
			"Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %s\n", commands[i].synopsis);
	fprintf(out,
			"  bloomfilter help COMMAND\n"
			"  bloomfilter --version\n"
			"\n"
			"Errors exit with status 2.  'bloomfilter help COMMAND' tells more.\n");
}

/* After a mistake, a hint rather than the whole page. */
static void
print_short_usage(void)
{
	fprintf(stderr,
			"usage: bloomfilter COMMAND [OPTIONS] [ARGS]\n"
			"Try 'bloomfilter --help' for the commands.\n");
}

static int
not_a_command(const char *name)
{
	char		q[TOOL_QUOTE_BUF];

	fprintf(stderr, "%s: %s is not a command\n", TOOL_NAME,
			tool_quote(name, strlen(name), q, sizeof(q)));
	print_short_usage();
	return EXIT_TROUBLE;
}

int
main(int argc, char **argv)
{
	const tool_command *c;

	if (argc < 2)
	{
		print_usage(stderr);
		return EXIT_TROUBLE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
	{
		print_usage(stdout);
		tool_finish_stdout();
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
	{
		printf("%s %s\n", TOOL_NAME, bloomfilter_version());
		tool_finish_stdout();
		return 0;
	}
	if (strcmp(argv[1], "help") == 0)
	{
		if (argc == 2)
			print_usage(stdout);
		else if (argc == 3 && find_command(argv[2]) != NULL)
			tool_print_help(argv[2], stdout);
		else if (argc == 3)
			return not_a_command(argv[2]);
		else
		{
			fprintf(stderr, "%s: help takes one command\n", TOOL_NAME);
			print_short_usage();
			return EXIT_TROUBLE;
		}
		tool_finish_stdout();
		return 0;
	}

	c = find_command(argv[1]);
	if (c == NULL)
		return not_a_command(argv[1]);
	return c->run(argc - 1, argv + 1);
}
