/*
 * vectors2tsv.c
 *		Export the LevelDB known-answer vectors for the SQL-level tests.
 *
 *		test/unit/vectors2tsv VECTOR_DIR OUT_DIR
 *
 * Writes three files in PostgreSQL's COPY text format (TAB separated, \N
 * for NULL, no header), the same format another tool writes for random
 * LevelDB cases, so that one SQL script loads either:
 *
 *	 cases.tsv	 case_id, kind, bpk, nkeys, text_ok, filter_hex, filter_sha256
 *	 keys.tsv	 case_id, ord, key_hex				(create cases)
 *	 probes.tsv  case_id, ord, key_hex, expected
 *
 * Hex is lowercase without a prefix; the empty key is an empty field.
 * Match cases whose filter bloom_validate rejects are left out: the SQL
 * type cannot hold them, and test_core covers them.  Nothing is written
 * unless the whole vector set reads cleanly.
 */
#define _GNU_SOURCE				/* asprintf */

#include "bloom_core.h"
#include "vectors.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * A text field of COPY's text format: backslash and controls escaped.  The
 * two strings pair each character that is escaped with the letter that
 * follows the backslash.
 */
static void
put_text(FILE *out, const char *s)
{
	static const char escaped[] = "\\\b\f\n\r\t\v";
	static const char letters[] = "\\bfnrtv";

	for (; *s; s++)
	{
		const char *e = strchr(escaped, *s);

		if (e != NULL)
		{
			putc('\\', out);
			putc(letters[e - escaped], out);
		}
		else
			putc(*s, out);
	}
}

static bool
case_is_text(const vec_case *c)
{
	size_t		i;

	if (c->kind == VEC_CREATE)
		for (i = 0; i < c->nkeys; i++)
			if (!vec_is_text(c->keys[i].data, c->keys[i].len))
				return false;
	for (i = 0; i < c->nprobes; i++)
		if (!vec_is_text(c->probes[i].key.data, c->probes[i].key.len))
			return false;
	return true;
}

static void
write_case(FILE *cases, FILE *keys, FILE *probes, const vec_case *c)
{
	size_t		i;

	put_text(cases, c->id);
	if (c->kind == VEC_CREATE)
		fprintf(cases, "\tcreate\t%" PRId64 "\t%" PRIu64, c->bpk, c->nkeys);
	else
		fputs("\tmatch\t\\N\t\\N", cases);
	fprintf(cases, "\t%c\t", case_is_text(c) ? 't' : 'f');
	if (c->has_filter)
		vec_write_hex(cases, c->filter.data, c->filter.len);
	else
		fputs("\\N", cases);
	putc('\t', cases);
	fputs(c->kind == VEC_CREATE ? c->filter_sha256 : "\\N", cases);
	putc('\n', cases);

	if (c->kind == VEC_CREATE)
		for (i = 0; i < c->nkeys; i++)
		{
			put_text(keys, c->id);
			fprintf(keys, "\t%zu\t", i);
			vec_write_hex(keys, c->keys[i].data, c->keys[i].len);
			putc('\n', keys);
		}

	for (i = 0; i < c->nprobes; i++)
	{
		put_text(probes, c->id);
		fprintf(probes, "\t%zu\t", i);
		vec_write_hex(probes, c->probes[i].key.data, c->probes[i].key.len);
		fprintf(probes, "\t%c\n", c->probes[i].expected ? 't' : 'f');
	}
}

static FILE *
open_out(const char *dir, const char *name, char **path)
{
	FILE	   *f;

	if (asprintf(path, "%s/%s", dir, name) < 0)
	{
		fprintf(stderr, "vectors2tsv: out of memory\n");
		exit(2);
	}
	f = fopen(*path, "w");
	if (f == NULL)
		fprintf(stderr, "vectors2tsv: cannot create %s: %s\n", *path,
				strerror(errno));
	return f;
}

/* Buffered write errors (a full disk) only show at the end. */
static bool
close_out(FILE *f, const char *path)
{
	bool		bad = ferror(f) != 0;

	if (fclose(f) != 0 || bad)
	{
		fprintf(stderr, "vectors2tsv: error writing %s: %s\n", path,
				strerror(errno ? errno : EIO));
		return false;
	}
	return true;
}

int
main(int argc, char **argv)
{
	vec_set		set;
	size_t		f,
				i,
				exported = 0,
				skipped = 0;
	bool		ok = true;
	FILE	   *cases,
			   *keys,
			   *probes;
	char	   *cases_path,
			   *keys_path,
			   *probes_path;

	vec_check_usage(argc, argv, "VECTOR_DIR OUT_DIR");

	vec_load_dir(argv[1], &set);
	for (i = 0; i < set.nerrors; i++)
	{
		fprintf(stderr, "vectors2tsv: %s\n", set.errors[i]);
		ok = false;
	}
	for (i = 0; i < vec_n_expected_files; i++)
		if (vec_find_file(&set, vec_expected_files[i]) == NULL)
		{
			fprintf(stderr, "vectors2tsv: %s/%s is missing\n", argv[1],
					vec_expected_files[i]);
			ok = false;
		}
	for (f = 0; f < set.nfiles; f++)
		if (set.files[f].declared_cases != (long) set.files[f].ncases)
		{
			fprintf(stderr, "vectors2tsv: %s: \"# cases=%ld\" but %zu cases\n",
					set.files[f].name, set.files[f].declared_cases,
					set.files[f].ncases);
			ok = false;
		}
	if (!ok)
	{
		fprintf(stderr, "vectors2tsv: nothing written\n");
		vec_set_free(&set);
		return 1;
	}

	if (mkdir(argv[2], 0777) != 0 && errno != EEXIST)
	{
		fprintf(stderr, "vectors2tsv: cannot create %s: %s\n", argv[2],
				strerror(errno));
		vec_set_free(&set);
		return 1;
	}
	cases = open_out(argv[2], "cases.tsv", &cases_path);
	keys = open_out(argv[2], "keys.tsv", &keys_path);
	probes = open_out(argv[2], "probes.tsv", &probes_path);
	if (cases == NULL || keys == NULL || probes == NULL)
	{
		if (cases)
			fclose(cases);
		if (keys)
			fclose(keys);
		if (probes)
			fclose(probes);
		free(cases_path);
		free(keys_path);
		free(probes_path);
		vec_set_free(&set);
		return 1;
	}

	for (f = 0; f < set.nfiles; f++)
		for (i = 0; i < set.files[f].ncases; i++)
		{
			const vec_case *c = &set.files[f].cases[i];

			if (c->kind == VEC_MATCH &&
				bloom_validate(c->filter.data, c->filter.len) != BLOOM_OK)
			{
				skipped++;
				continue;
			}
			write_case(cases, keys, probes, c);
			exported++;
		}

	ok = close_out(cases, cases_path) & close_out(keys, keys_path) &
		close_out(probes, probes_path);
	fprintf(stderr, "vectors2tsv: exported %zu cases to %s; skipped %zu "
			"match cases whose filter bloom_validate rejects\n",
			exported, argv[2], skipped);
	free(cases_path);
	free(keys_path);
	free(probes_path);
	vec_set_free(&set);
	return ok ? 0 : 1;
}
