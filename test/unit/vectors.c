/*
 * vectors.c
 *		Reader for the LevelDB known-answer vectors (see vectors.h).
 */
#define _GNU_SOURCE				/* getline, asprintf */

#include "vectors.h"
#include "../lib/bloom_reference.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const vec_expected_files[] = {
	"basic.tsv", "bpk.tsv", "dup.tsv", "hand.tsv", "size.tsv", "tail.tsv",
	"utf8.tsv",
};
const size_t vec_n_expected_files =
	sizeof(vec_expected_files) / sizeof(vec_expected_files[0]);

/*
 * Counts in a file are trusted only this far, so that a corrupted nkeys or
 * keygen line is reported instead of exhausting memory.  The real set has
 * 100000 keys at most.
 */
#define VEC_MAX_COUNT	UINT64_C(10000000)

/* More fields than any line kind has; a line with more is malformed. */
#define VEC_MAX_FIELDS	5

/* Bits of vec_parser.seen: which single-valued lines a case has had. */
enum
{
	SEEN_BPK = 1 << 0,
	SEEN_NKEYS = 1 << 1,
	SEEN_KEYGEN = 1 << 2,
	SEEN_FILTER_LEN = 1 << 3,
	SEEN_FILTER_K = 1 << 4,
	SEEN_FILTER = 1 << 5,
	SEEN_SHA256 = 1 << 6,
	SEEN_HEX_SHA256 = 1 << 7,
	SEEN_FNV = 1 << 8,
	SEEN_NPROBES = 1 << 9,
};

typedef struct vec_parser
{
	vec_set    *set;
	vec_file   *file;
	long		lineno;
	bool		in_case;
	bool		skipping;		/* the current case is broken: wait for end */
	vec_case	cur;
	unsigned	seen;
	size_t		nkeys_read;
	size_t		keys_cap;
	size_t		nprobes_read;
} vec_parser;

/* Allocation failure is not a property of the vectors: stop outright. */
static void *
xrealloc(void *p, size_t n)
{
	void	   *q = realloc(p, n ? n : 1);

	if (q == NULL)
	{
		fprintf(stderr, "vectors: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return q;
}

static char *
xstrdup(const char *s)
{
	size_t		n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

static void
add_error(vec_set *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* vasprintf, or exit: the messages are all the parser reports */
static char *
xvasprintf(const char *fmt, va_list ap)
{
	char	   *msg;

	if (vasprintf(&msg, fmt, ap) < 0)
	{
		fprintf(stderr, "vectors: out of memory\n");
		exit(2);
	}
	return msg;
}

/* Appends a message to the set's list, which takes it over. */
static void
keep_error(vec_set *set, char *msg)
{
	set->errors = xrealloc(set->errors, (set->nerrors + 1) * sizeof(char *));
	set->errors[set->nerrors++] = msg;
}

static void
add_error(vec_set *set, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	keep_error(set, xvasprintf(fmt, ap));
	va_end(ap);
}

static void
free_case(vec_case *c)
{
	size_t		i;

	free(c->id);
	if (c->keys)
		for (i = 0; i < c->nkeys; i++)
			free(c->keys[i].data);
	free(c->keys);
	free(c->filter.data);
	if (c->probes)
		for (i = 0; i < c->nprobes; i++)
			free(c->probes[i].key.data);
	free(c->probes);
	memset(c, 0, sizeof(*c));
}

static void
parse_error(vec_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Record a problem at the current line.  Inside a case the case is dropped
 * and the rest of it skipped, so that one broken line yields one message.
 */
static void
parse_error(vec_parser *p, const char *fmt, ...)
{
	va_list		ap;
	char	   *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (p->in_case && !p->skipping)
	{
		add_error(p->set, "%s:%ld: case %s: %s", p->file->name, p->lineno,
				  p->cur.id, msg);
		/* the key array may be only partly filled: free what exists */
		p->cur.nkeys = p->nkeys_read;
		free_case(&p->cur);
		p->skipping = true;
	}
	else
		add_error(p->set, "%s:%ld: %s", p->file->name, p->lineno, msg);
	free(msg);
}

/* A byte string field: hex digits, or "-" for the empty string. */
static bool
parse_bytes(const char *s, vec_bytes *out)
{
	size_t		n = strlen(s);
	size_t		i;

	if (strcmp(s, "-") == 0)
	{
		out->data = xrealloc(NULL, 1);
		out->len = 0;
		return true;
	}
	if (n == 0 || n % 2 != 0)
		return false;
	for (i = 0; i < n; i++)
		if (ref_hex_value(s[i]) < 0)
			return false;
	out->len = n / 2;
	out->data = xrealloc(NULL, out->len);
	for (i = 0; i < out->len; i++)
		out->data[i] = (uint8_t) (ref_hex_value(s[2 * i]) << 4 |
								  ref_hex_value(s[2 * i + 1]));
	return true;
}

static bool
parse_u64(const char *s, uint64_t *out)
{
	uint64_t	v = 0;

	if (*s == '\0')
		return false;
	for (; *s; s++)
	{
		if (*s < '0' || *s > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t) (*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t) (*s - '0');
	}
	*out = v;
	return true;
}

static bool
parse_i64(const char *s, int64_t *out)
{
	bool		neg = (*s == '-');
	uint64_t	mag;

	if (!parse_u64(s + neg, &mag))
		return false;
	if (neg ? mag > (uint64_t) INT64_MAX + 1 : mag > (uint64_t) INT64_MAX)
		return false;
	/* through uint64 arithmetic, so that INT64_MIN does not overflow */
	*out = neg ? (int64_t) (0 - mag) : (int64_t) mag;
	return true;
}

/*
 * Digests are compared as text by the SQL tests, so only the form the
 * generator writes (lowercase, exact length) is accepted.
 */
static bool
is_lower_hex(const char *s, size_t n)
{
	size_t		i;

	if (strlen(s) != n)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool
case_id_taken(const vec_parser *p, const char *id)
{
	size_t		f,
				i;

	/* set->nfiles does not count the file being read yet */
	for (f = 0; f < p->set->nfiles; f++)
		for (i = 0; i < p->set->files[f].ncases; i++)
			if (strcmp(p->set->files[f].cases[i].id, id) == 0)
				return true;
	for (i = 0; i < p->file->ncases; i++)
		if (strcmp(p->file->cases[i].id, id) == 0)
			return true;
	return false;
}

/* Materialize keygen keys: i in decimal, or as 3 or 4 little-endian bytes. */
static bool
generate_keys(vec_parser *p, const char *scheme, uint64_t n)
{
	uint64_t	i;
	size_t		width;

	if (strcmp(scheme, "dec") == 0)
		width = 0;
	else if (strcmp(scheme, "le32") == 0)
		width = 4;
	else if (strcmp(scheme, "le24") == 0)
		width = 3;
	else
	{
		parse_error(p, "unknown keygen scheme \"%s\"", scheme);
		return false;
	}
	if (width > 0 && n > (UINT64_C(1) << (8 * width)))
	{
		parse_error(p, "keygen %s cannot make %llu distinct keys", scheme,
					(unsigned long long) n);
		return false;
	}

	p->cur.keys = xrealloc(p->cur.keys, (size_t) n * sizeof(vec_bytes));
	p->keys_cap = (size_t) n;
	for (i = 0; i < n; i++)
	{
		vec_bytes  *k = &p->cur.keys[i];

		if (width == 0)
		{
			char		buf[24];

			k->len = (size_t) snprintf(buf, sizeof(buf), "%llu",
									   (unsigned long long) i);
			k->data = xrealloc(NULL, k->len);
			memcpy(k->data, buf, k->len);
		}
		else
		{
			size_t		b;

			k->len = width;
			k->data = xrealloc(NULL, width);
			for (b = 0; b < width; b++)
				k->data[b] = (uint8_t) (i >> (8 * b));
		}
		p->nkeys_read++;
	}
	return true;
}

/* The end of a case: everything its kind requires must be there. */
static void
finish_case(vec_parser *p)
{
	vec_case   *c = &p->cur;
	unsigned	need;
	vec_file   *f = p->file;

	need = SEEN_FILTER_LEN | SEEN_NPROBES;
	if (c->kind == VEC_CREATE)
		need |= SEEN_BPK | SEEN_NKEYS | SEEN_FILTER_K | SEEN_SHA256 |
			SEEN_HEX_SHA256 | SEEN_FNV;
	else
		need |= SEEN_FILTER;
	if ((p->seen & need) != need)
	{
		static const char *const names[] = {
			"bpk", "nkeys", "keygen", "filter_len", "filter_k", "filter",
			"filter_sha256", "filter_hex_sha256", "filter_fnv1a64", "nprobes",
		};
		unsigned	missing = need & ~p->seen;
		int			b = 0;

		while (!(missing & (1u << b)))
			b++;
		parse_error(p, "case ends without a %s line", names[b]);
		return;
	}
	if (c->kind == VEC_CREATE && p->nkeys_read != c->nkeys)
	{
		parse_error(p, "nkeys is %llu but %zu keys were given",
					(unsigned long long) c->nkeys, p->nkeys_read);
		return;
	}
	if (p->nprobes_read != c->nprobes)
	{
		parse_error(p, "nprobes is %zu but %zu probes were given",
					c->nprobes, p->nprobes_read);
		return;
	}
	if (c->has_filter && c->filter.len != c->filter_len)
	{
		parse_error(p, "filter has %zu bytes but filter_len is %llu",
					c->filter.len, (unsigned long long) c->filter_len);
		return;
	}

	f->cases = xrealloc(f->cases, (f->ncases + 1) * sizeof(vec_case));
	f->cases[f->ncases++] = *c;
	memset(c, 0, sizeof(*c));
}

static bool
start_case(vec_parser *p, char **fld, int nf)
{
	vec_kind	kind;

	if (nf < 3 || nf > 4)
	{
		parse_error(p, "case line needs ID, KIND and an optional description");
		return false;
	}
	if (strcmp(fld[2], "create") == 0)
		kind = VEC_CREATE;
	else if (strcmp(fld[2], "match") == 0)
		kind = VEC_MATCH;
	else
	{
		parse_error(p, "case %s has unknown kind \"%s\"", fld[1], fld[2]);
		return false;
	}
	if (fld[1][0] == '\0')
	{
		parse_error(p, "case with an empty ID");
		return false;
	}
	if (case_id_taken(p, fld[1]))
	{
		parse_error(p, "case ID %s is used twice", fld[1]);
		return false;
	}

	memset(&p->cur, 0, sizeof(p->cur));
	p->cur.id = xstrdup(fld[1]);
	p->cur.kind = kind;
	p->cur.file = p->file->name;
	p->cur.line = p->lineno;
	p->in_case = true;
	p->skipping = false;
	p->seen = 0;
	p->nkeys_read = 0;
	p->keys_cap = 0;
	p->nprobes_read = 0;
	return true;
}

/* Mark a single-valued line as seen; false (and an error) if it repeats. */
static bool
see_once(vec_parser *p, unsigned bit, const char *what)
{
	if (p->seen & bit)
	{
		parse_error(p, "second %s line", what);
		return false;
	}
	p->seen |= bit;
	return true;
}

static bool
want_fields(vec_parser *p, int nf, int want, const char *what)
{
	if (nf != want)
	{
		parse_error(p, "%s line has %d fields, expected %d", what, nf, want);
		return false;
	}
	return true;
}

static void
parse_case_line(vec_parser *p, char **fld, int nf)
{
	vec_case   *c = &p->cur;
	const char *what = fld[0];
	bool		create_only;
	uint64_t	u;

	create_only = strcmp(what, "bpk") == 0 || strcmp(what, "nkeys") == 0 ||
		strcmp(what, "key") == 0 || strcmp(what, "keygen") == 0 ||
		strcmp(what, "filter_k") == 0 || strcmp(what, "filter_sha256") == 0 ||
		strcmp(what, "filter_hex_sha256") == 0 ||
		strcmp(what, "filter_fnv1a64") == 0;
	if (create_only && c->kind != VEC_CREATE)
	{
		parse_error(p, "%s line in a match case", what);
		return;
	}

	if (strcmp(what, "bpk") == 0)
	{
		if (!want_fields(p, nf, 2, what) || !see_once(p, SEEN_BPK, what))
			return;
		if (!parse_i64(fld[1], &c->bpk))
			parse_error(p, "bad bpk \"%s\"", fld[1]);
	}
	else if (strcmp(what, "nkeys") == 0)
	{
		if (!want_fields(p, nf, 2, what) || !see_once(p, SEEN_NKEYS, what))
			return;
		if (!parse_u64(fld[1], &c->nkeys) || c->nkeys > VEC_MAX_COUNT)
			parse_error(p, "bad or too large nkeys \"%s\"", fld[1]);
	}
	else if (strcmp(what, "key") == 0)
	{
		if (!want_fields(p, nf, 2, what))
			return;
		if (!(p->seen & SEEN_NKEYS) || (p->seen & SEEN_KEYGEN))
		{
			parse_error(p, "key line before nkeys or after keygen");
			return;
		}
		if (p->nkeys_read >= c->nkeys)
		{
			parse_error(p, "more key lines than nkeys (%llu)",
						(unsigned long long) c->nkeys);
			return;
		}
		if (p->nkeys_read == p->keys_cap)
		{
			p->keys_cap = p->keys_cap ? 2 * p->keys_cap : 16;
			c->keys = xrealloc(c->keys, p->keys_cap * sizeof(vec_bytes));
		}
		if (!parse_bytes(fld[1], &c->keys[p->nkeys_read]))
		{
			parse_error(p, "bad key hex \"%.40s\"", fld[1]);
			return;
		}
		p->nkeys_read++;
	}
	else if (strcmp(what, "keygen") == 0)
	{
		if (!want_fields(p, nf, 3, what) || !see_once(p, SEEN_KEYGEN, what))
			return;
		if (!(p->seen & SEEN_NKEYS) || p->nkeys_read != 0)
		{
			parse_error(p, "keygen line before nkeys or after key lines");
			return;
		}
		if (!parse_u64(fld[2], &u) || u != c->nkeys)
		{
			parse_error(p, "keygen count \"%s\" is not nkeys (%llu)", fld[2],
						(unsigned long long) c->nkeys);
			return;
		}
		generate_keys(p, fld[1], u);
	}
	else if (strcmp(what, "filter_len") == 0)
	{
		if (!want_fields(p, nf, 2, what) ||
			!see_once(p, SEEN_FILTER_LEN, what))
			return;
		if (!parse_u64(fld[1], &c->filter_len) ||
			c->filter_len > VEC_MAX_COUNT)
			parse_error(p, "bad or too large filter_len \"%s\"", fld[1]);
	}
	else if (strcmp(what, "filter_k") == 0)
	{
		if (!want_fields(p, nf, 2, what) || !see_once(p, SEEN_FILTER_K, what))
			return;
		if (!parse_u64(fld[1], &u) || u > 255)
			parse_error(p, "bad filter_k \"%s\"", fld[1]);
		else
			c->filter_k = (unsigned) u;
	}
	else if (strcmp(what, "filter") == 0)
	{
		if (!want_fields(p, nf, 2, what) || !see_once(p, SEEN_FILTER, what))
			return;
		if (!parse_bytes(fld[1], &c->filter))
			parse_error(p, "bad filter hex \"%.40s\"", fld[1]);
		else
			c->has_filter = true;
	}
	else if (strcmp(what, "filter_sha256") == 0 ||
			 strcmp(what, "filter_hex_sha256") == 0)
	{
		bool		raw = strcmp(what, "filter_sha256") == 0;

		if (!want_fields(p, nf, 2, what) ||
			!see_once(p, raw ? SEEN_SHA256 : SEEN_HEX_SHA256, what))
			return;
		if (!is_lower_hex(fld[1], 64))
			parse_error(p, "%s is not 64 lowercase hex digits", what);
		else
			strcpy(raw ? c->filter_sha256 : c->filter_hex_sha256, fld[1]);
	}
	else if (strcmp(what, "filter_fnv1a64") == 0)
	{
		if (!want_fields(p, nf, 2, what) || !see_once(p, SEEN_FNV, what))
			return;
		if (!is_lower_hex(fld[1], 16))
			parse_error(p, "filter_fnv1a64 is not 16 lowercase hex digits");
		else
			c->filter_fnv1a64 = strtoull(fld[1], NULL, 16);
	}
	else if (strcmp(what, "nprobes") == 0)
	{
		if (!want_fields(p, nf, 2, what) || !see_once(p, SEEN_NPROBES, what))
			return;
		if (!parse_u64(fld[1], &u) || u > VEC_MAX_COUNT)
		{
			parse_error(p, "bad or too large nprobes \"%s\"", fld[1]);
			return;
		}
		c->nprobes = (size_t) u;
		/* zeroed, so that a case dropped half-way can be freed */
		c->probes = xrealloc(NULL, c->nprobes * sizeof(vec_probe));
		memset(c->probes, 0, c->nprobes * sizeof(vec_probe));
	}
	else if (strcmp(what, "probe") == 0)
	{
		vec_probe  *pr;

		if (!want_fields(p, nf, 3, what))
			return;
		if (!(p->seen & SEEN_NPROBES))
		{
			parse_error(p, "probe line before nprobes");
			return;
		}
		if (p->nprobes_read >= c->nprobes)
		{
			parse_error(p, "more probe lines than nprobes (%zu)", c->nprobes);
			return;
		}
		if (strcmp(fld[2], "0") != 0 && strcmp(fld[2], "1") != 0)
		{
			parse_error(p, "probe answer \"%s\" is not 0 or 1", fld[2]);
			return;
		}
		pr = &c->probes[p->nprobes_read];
		if (!parse_bytes(fld[1], &pr->key))
		{
			parse_error(p, "bad probe key hex \"%.40s\"", fld[1]);
			return;
		}
		pr->expected = fld[2][0] == '1';
		p->nprobes_read++;
	}
	else if (strcmp(what, "end") == 0)
	{
		if (want_fields(p, nf, 1, what))
			finish_case(p);
		/* whether or not the case was good, the next line is outside it */
		p->in_case = p->skipping = false;
	}
	/* any other first field is ignored, as the format asks */
}

/* "# cases=N": the count the test holds the file to. */
static void
parse_comment(vec_parser *p, const char *line)
{
	static const char prefix[] = "# cases=";
	uint64_t	n;

	if (strncmp(line, prefix, sizeof(prefix) - 1) != 0)
		return;
	if (p->file->declared_cases >= 0)
		parse_error(p, "second \"# cases=\" line");
	else if (!parse_u64(line + sizeof(prefix) - 1, &n) || n > VEC_MAX_COUNT)
		parse_error(p, "bad \"# cases=\" line");
	else
		p->file->declared_cases = (long) n;
}

static void
parse_line(vec_parser *p, char *line, size_t len)
{
	char	   *fld[VEC_MAX_FIELDS];
	int			nf = 0;
	char	   *s;

	if (len > 0 && line[len - 1] == '\n')
		line[--len] = '\0';
	/* tolerate CRLF: a Windows checkout should not change what is tested */
	if (len > 0 && line[len - 1] == '\r')
		line[--len] = '\0';
	if (memchr(line, '\0', len) != NULL)
	{
		if (!p->skipping)
			parse_error(p, "NUL byte in line");
		return;
	}
	if (line[0] == '#')
	{
		parse_comment(p, line);
		return;
	}

	/* strtok would merge empty fields; split on every TAB instead */
	for (s = line;; s++)
	{
		char	   *tab = strchr(s, '\t');

		if (nf == VEC_MAX_FIELDS)
		{
			nf++;				/* too many: the field-count checks say so */
			break;
		}
		fld[nf++] = s;
		if (tab == NULL)
			break;
		*tab = '\0';
		s = tab;
	}

	if (strcmp(fld[0], "case") == 0)
	{
		if (p->in_case && !p->skipping)
			parse_error(p, "no end line before the next case");
		p->in_case = false;
		p->skipping = false;
		if (!start_case(p, fld, nf))
		{
			/* the lines up to its end belong to the rejected case */
			memset(&p->cur, 0, sizeof(p->cur));
			p->in_case = p->skipping = true;
		}
		return;
	}
	if (p->skipping)
	{
		if (strcmp(fld[0], "end") == 0)
			p->in_case = p->skipping = false;
		return;
	}
	if (!p->in_case)
	{
		static const char *const known[] = {
			"bpk", "nkeys", "key", "keygen", "filter_len", "filter_k",
			"filter", "filter_sha256", "filter_hex_sha256", "filter_fnv1a64",
			"nprobes", "probe", "end",
		};
		size_t		i;

		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strcmp(fld[0], known[i]) == 0)
				parse_error(p, "%s line outside a case", fld[0]);
		return;
	}
	parse_case_line(p, fld, nf);
}

static void
load_file(vec_set *set, const char *dir, const char *name)
{
	vec_parser	p;
	vec_file   *f;
	char	   *path;
	FILE	   *fp;
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		n;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
	{
		fprintf(stderr, "vectors: out of memory\n");
		exit(2);
	}
	fp = fopen(path, "r");
	if (fp == NULL)
	{
		add_error(set, "%s: cannot open: %s", path, strerror(errno));
		free(path);
		return;
	}

	set->files = xrealloc(set->files, (set->nfiles + 1) * sizeof(vec_file));
	f = &set->files[set->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->declared_cases = -1;

	memset(&p, 0, sizeof(p));
	p.set = set;
	p.file = f;
	errno = 0;
	while ((n = getline(&line, &cap, fp)) >= 0)
	{
		p.lineno++;
		parse_line(&p, line, (size_t) n);
		errno = 0;
	}
	if (errno != 0 || ferror(fp))
		add_error(set, "%s: read error after line %ld: %s", path, p.lineno,
				  strerror(errno ? errno : EIO));
	if (p.in_case && !p.skipping)
		parse_error(&p, "file ends inside the case");
	else if (p.in_case)
		free_case(&p.cur);
	free(line);
	fclose(fp);
	free(path);
	/* counted last: case_id_taken looks only at finished files and cases */
	set->nfiles++;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

bool
vec_load_dir(const char *dir, vec_set *set)
{
	DIR		   *d;
	struct dirent *de;
	char	  **names = NULL;
	size_t		nnames = 0;
	size_t		i;

	memset(set, 0, sizeof(*set));
	d = opendir(dir);
	if (d == NULL)
	{
		add_error(set, "%s: cannot open directory: %s", dir, strerror(errno));
		return false;
	}
	while ((de = readdir(d)) != NULL)
	{
		size_t		n = strlen(de->d_name);

		if (de->d_name[0] == '.' || n < 5 ||
			strcmp(de->d_name + n - 4, ".tsv") != 0)
			continue;
		names = xrealloc(names, (nnames + 1) * sizeof(char *));
		names[nnames++] = xstrdup(de->d_name);
	}
	closedir(d);

	/* a fixed order makes the output and the first-seen duplicate stable */
	if (nnames > 1)
		qsort(names, nnames, sizeof(char *), cmp_names);
	for (i = 0; i < nnames; i++)
	{
		load_file(set, dir, names[i]);
		free(names[i]);
	}
	free(names);
	return set->nerrors == 0;
}

void
vec_set_free(vec_set *set)
{
	size_t		f,
				i;

	for (f = 0; f < set->nfiles; f++)
	{
		for (i = 0; i < set->files[f].ncases; i++)
			free_case(&set->files[f].cases[i]);
		free(set->files[f].cases);
		free(set->files[f].name);
	}
	free(set->files);
	for (i = 0; i < set->nerrors; i++)
		free(set->errors[i]);
	free(set->errors);
	memset(set, 0, sizeof(*set));
}

const vec_file *
vec_find_file(const vec_set *set, const char *name)
{
	size_t		f;

	for (f = 0; f < set->nfiles; f++)
		if (strcmp(set->files[f].name, name) == 0)
			return &set->files[f];
	return NULL;
}

uint64_t
vec_fnv1a64(const uint8_t *data, size_t len)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);
	size_t		i;

	for (i = 0; i < len; i++)
	{
		h ^= data[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

void
vec_write_hex(FILE *out, const uint8_t *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t		i;

	for (i = 0; i < len; i++)
	{
		putc(digits[data[i] >> 4], out);
		putc(digits[data[i] & 0xf], out);
	}
}

bool
vec_is_text(const uint8_t *s, size_t len)
{
	size_t		i = 0;

	while (i < len)
	{
		uint8_t		c = s[i];
		size_t		n,
					j;
		uint8_t		lo = 0x80,
					hi = 0xbf;	/* allowed range of the second byte */

		if (c == 0)
			return false;
		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 2;
		else if (c >= 0xe0 && c <= 0xef)
		{
			n = 3;
			if (c == 0xe0)
				lo = 0xa0;		/* overlong */
			else if (c == 0xed)
				hi = 0x9f;		/* UTF-16 surrogates */
		}
		else if (c >= 0xf0 && c <= 0xf4)
		{
			n = 4;
			if (c == 0xf0)
				lo = 0x90;		/* overlong */
			else if (c == 0xf4)
				hi = 0x8f;		/* beyond U+10FFFF */
		}
		else
			return false;
		if (len - i < n || s[i + 1] < lo || s[i + 1] > hi)
			return false;
		for (j = 2; j < n; j++)
			if (s[i + j] < 0x80 || s[i + j] > 0xbf)
				return false;
		i += n;
	}
	return true;
}

void
vec_check_usage(int argc, char **argv, const char *args)
{
	int			words = 0;

	for (const char *p = args; *p; p++)
		if (*p != ' ' && (p == args || p[-1] == ' '))
			words++;
	if (argc != words + 1)
	{
		fprintf(stderr, "usage: %s %s\n", argv[0], args);
		exit(2);
	}
}

int
vec_summary(const char *name, unsigned long passed, unsigned long failed)
{
	printf("%s: %lu passed, %lu failed\n", name, passed, failed);
	return failed > 0 ? 1 : 0;
}
