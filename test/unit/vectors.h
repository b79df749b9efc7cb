/*
 * vectors.h
 *		Reader for the LevelDB known-answer vectors: the .tsv files of
 *		test/data/vectors, format in test/data/vectors/README.txt.
 *
 * The reader is deliberately strict: a vector file that is damaged or
 * hand-edited wrongly must show up as a failure, not as a test that quietly
 * checks less.  Every problem becomes one message in vec_set.errors and the
 * reader carries on with the next case, so one bad line costs one case.
 */
#ifndef BLOOM_TEST_VECTORS_H
#define BLOOM_TEST_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A byte string; data is never NULL, even for the empty string. */
typedef struct vec_bytes
{
	uint8_t    *data;
	size_t		len;
} vec_bytes;

typedef enum vec_kind
{
	VEC_CREATE,
	VEC_MATCH
} vec_kind;

typedef struct vec_probe
{
	vec_bytes	key;
	bool		expected;		/* KeyMayMatch's answer */
} vec_probe;

typedef struct vec_case
{
	char	   *id;
	vec_kind	kind;
	const char *file;			/* base name, owned by the vec_file */
	long		line;			/* line number of the "case" line */

	/* create cases only */
	int64_t		bpk;
	uint64_t	nkeys;
	vec_bytes  *keys;			/* nkeys keys; keygen ones are materialized */
	unsigned	filter_k;
	char		filter_sha256[65];
	char		filter_hex_sha256[65];
	uint64_t	filter_fnv1a64;

	/* both kinds */
	uint64_t	filter_len;
	bool		has_filter;		/* always true for match cases */
	vec_bytes	filter;
	size_t		nprobes;
	vec_probe  *probes;
} vec_case;

typedef struct vec_file
{
	char	   *name;			/* base name, e.g. "basic.tsv" */
	long		declared_cases; /* from the "# cases=N" comment, -1 if none */
	vec_case   *cases;
	size_t		ncases;
} vec_file;

typedef struct vec_set
{
	vec_file   *files;			/* every *.tsv of the directory, by name */
	size_t		nfiles;
	char	  **errors;			/* "file:line: what is wrong" */
	size_t		nerrors;
} vec_set;

/* The files the vector set consists of; all must be present. */
extern const char *const vec_expected_files[];
extern const size_t vec_n_expected_files;

/*
 * Read every *.tsv file of dir into set (zeroed by the call).  Problems,
 * including an unreadable directory, are recorded in set->errors; the
 * return value is true when there were none.
 */
extern bool vec_load_dir(const char *dir, vec_set *set);

extern void vec_set_free(vec_set *set);

/* The file of that base name, or NULL. */
extern const vec_file *vec_find_file(const vec_set *set, const char *name);

/* FNV-1a 64, the checksum of the filter_fnv1a64 lines. */
extern uint64_t vec_fnv1a64(const uint8_t *data, size_t len);

/* Write bytes as lowercase hex, nothing for the empty string. */
extern void vec_write_hex(FILE *out, const uint8_t *data, size_t len);

/* Is a key valid UTF-8 (RFC 3629, as PostgreSQL checks it) without NUL? */
extern bool vec_is_text(const uint8_t *data, size_t len);

/*
 * What the programs that read the vectors share:
 *
 * vec_check_usage: argv must hold the words of args ("VECTOR_DIR OUT_DIR")
 * after the program's name; else a usage line on stderr, and exit 2.
 *
 * vec_summary: prints a run's last line, "NAME: N passed, N failed", and
 * returns the exit status: 1 if anything failed, else 0.
 */
extern void vec_check_usage(int argc, char **argv, const char *args);
extern int	vec_summary(const char *name, unsigned long passed,
						unsigned long failed);

#endif							/* BLOOM_TEST_VECTORS_H */
