/*
 * tool.h
 *		The bloomfilter command-line tool's shared declarations.
 *
 * The tool uses only the public libbloomfilter header, so that it is also
 * the library's first real client: whatever it needs and the header lacks
 * shows a gap in the API.
 *
 * Errors end the process (tool_die and friends, exit status 2).  Every
 * command computes its whole result in memory before it writes a byte, so
 * ending early never leaves a half-written output behind.
 */
#ifndef BLOOMFILTER_TOOL_H
#define BLOOMFILTER_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bloomfilter.h"

#define TOOL_NAME "bloomfilter"

/* Exit statuses: probe's "definitely absent" is the 1 of grep's "no match". */
#define EXIT_MAYBE		0
#define EXIT_ABSENT		1
#define EXIT_TROUBLE	2

/* ---- errors (io.c) --------------------------------------------------- */

void		tool_die(const char *fmt,...) __attribute__((format(printf, 1, 2), noreturn));
/* A usage error: the message, then the command's synopsis and a hint. */
void		tool_usage_error(const char *command, const char *fmt,...)
			__attribute__((format(printf, 2, 3), noreturn));
void	   *tool_xmalloc(size_t size);
void	   *tool_xrealloc(void *p, size_t size);

/*
 * Writes a byte string quoted for a message, with anything unprintable as
 * \xNN and long strings shortened, into buf (NUL-terminated).
 */
const char *tool_quote(const char *s, size_t len, char *buf, size_t bufsize);
#define TOOL_QUOTE_BUF 200

/* ---- usage (main.c) -------------------------------------------------- */

/* The synopsis of one command, NULL for an unknown command. */
const char *tool_synopsis(const char *command);

/* ---- command-line options (args.c) ----------------------------------- */

typedef enum tool_key_type
{
	KEY_TEXT,
	KEY_HEX,
	KEY_INT64,
	KEY_UUID
} tool_key_type;

typedef enum tool_output_format
{
	OUTPUT_RAW,
	OUTPUT_TEXT
} tool_output_format;

typedef struct tool_args
{
	const char *command;
	/* the options a command accepts; tool_parse_args refuses the others */
	unsigned	accepted;
	bool		have_bits_per_key;
	int			bits_per_key;
	tool_key_type key_type;
	tool_output_format output_format;
	const char *output;			/* NULL: stdout */
	long		width;
	long		regions;
	bool		unchecked;
	bool		raw;			/* FILTER files hold raw bytes, whatever they look like */
	bool		measure;		/* info: bloom_info's measured estimates */
	/* positional arguments, in order */
	int			npositional;
	char	  **positional;
} tool_args;

#define OPT_BITS_PER_KEY	(1u << 0)
#define OPT_KEY_TYPE		(1u << 1)
#define OPT_OUTPUT_FORMAT	(1u << 2)
#define OPT_OUTPUT			(1u << 3)
#define OPT_WIDTH			(1u << 4)
#define OPT_REGIONS			(1u << 5)
#define OPT_UNCHECKED		(1u << 6)
#define OPT_RAW				(1u << 7)
#define OPT_MEASURE			(1u << 8)

/*
 * Parses argv (the command's arguments, argv[0] being the command) into
 * args; when --help was among them, prints the command's help and exits 0.
 */
void		tool_parse_args(int argc, char **argv, unsigned accepted,
							tool_args *args);

/* ---- input (io.c) ---------------------------------------------------- */

/* A file's whole contents; path "-" is stdin. */
uint8_t    *tool_read_file(const char *path, size_t *len);

/* The name messages use for a path. */
const char *tool_display_name(const char *path);

/*
 * A filter from a file holding its raw bytes or its text form, validated:
 * bloomfilter_parse's rules, or with raw, the file's bytes as they are.
 */
typedef struct tool_filter
{
	const char *path;
	uint8_t    *bytes;
	size_t		len;
	bool		read_raw;		/* bytes are tool_read_file's, not the library's */
} tool_filter;

void		tool_load_filter(const char *path, bool raw, tool_filter *filter);
void		tool_filter_free(tool_filter *filter);

/*
 * The filter's bloom_info figures (info, picture): with measure, exactly
 * bloom_info's, measured on LevelDB's scheme (as long as a build); else in
 * one pass, the estimates by formula (bloomfilter_get_info_fast).
 */
void		tool_filter_info(const tool_filter *filter, bool measure,
							 bloomfilter_info *info);

/*
 * The same without validation, for probing bytes as LevelDB's KeyMayMatch
 * would: bloomfilter_read's rules (text that is not the text form is still
 * refused), or with raw, the file's bytes as they are.
 */
void		tool_load_filter_unchecked(const char *path, bool raw,
									   tool_filter *filter);

/* Lines of a file: the "\n" and a "\r" before it are not part of a line. */
typedef struct tool_lines
{
	FILE	   *file;
	const char *name;
	char	   *buf;
	size_t		cap;
	unsigned long lineno;
} tool_lines;

void		tool_lines_open(tool_lines *lines, const char *path);
/* The next line's length, or -1 at the end; *line points into lines->buf. */
ssize_t		tool_lines_next(tool_lines *lines, char **line);
void		tool_lines_close(tool_lines *lines);

/* ---- output (io.c) --------------------------------------------------- */

/*
 * Writes data to path (NULL or "-": stdout) all at once: to a temporary
 * file renamed into place, so that a failure leaves no partial OUT.  Raw
 * bytes are refused on a terminal, where they would only garble it.
 */
void		tool_write_output(const char *path, const void *data, size_t len,
							  bool binary);

/* A filter in the chosen form: raw bytes, or text form and a newline. */
void		tool_write_filter(const char *path, tool_output_format format,
							  const uint8_t *filter, size_t len);

/* Flushes stdout, ending with an error if anything could not be written. */
void		tool_finish_stdout(void);

/* ---- keys (keys.c) --------------------------------------------------- */

typedef struct tool_key
{
	tool_key_type type;
	int64_t		int64;			/* KEY_INT64 */
	uint8_t		uuid[BLOOMFILTER_UUID_KEY_BYTES];	/* KEY_UUID */
	const uint8_t *bytes;		/* KEY_TEXT, KEY_HEX: the key's bytes */
	size_t		len;
	/* KEY_HEX's decoded bytes live here; reused from key to key */
	uint8_t    *buf;
	size_t		cap;
} tool_key;

bool		tool_key_type_from_name(const char *name, tool_key_type *type);

/*
 * Reads one key of key->type from its written form; returns NULL, or what
 * was wrong with it in a phrase for the caller to place.
 */
const char *tool_key_parse(tool_key *key, const char *text, size_t len,
						   char *why, size_t whysize);
void		tool_key_free(tool_key *key);

/* The key's bytes, as the library hashes them; scratch holds 16 bytes. */
const uint8_t *tool_key_bytes(const tool_key *key, uint8_t *scratch,
							  size_t *len);
uint32_t	tool_key_hash(const tool_key *key);
bool		tool_key_may_contain(const tool_key *key, const uint8_t *filter,
								 size_t len);
int			tool_key_add(const tool_key *key, bloomfilter_builder *builder);

/* ---- commands -------------------------------------------------------- */

int			cmd_build(int argc, char **argv);
int			cmd_probe(int argc, char **argv);
int			cmd_info(int argc, char **argv);
int			cmd_union(int argc, char **argv);
int			cmd_intersect(int argc, char **argv);
int			cmd_explain(int argc, char **argv);
int			cmd_picture(int argc, char **argv);

/* For "help CMD" and "CMD --help". */
void		tool_print_help(const char *command, FILE *out);

#endif							/* BLOOMFILTER_TOOL_H */
