/*
 * make_corpus.c
 *		Seed corpora for the fuzz targets, made from the public LevelDB
 *		vectors in test/data/vectors.
 *
 *		make_corpus VECTOR_DIR OUT_DIR
 *
 * Writes OUT_DIR/probe, OUT_DIR/hex, OUT_DIR/state, OUT_DIR/build and
 * OUT_DIR/stats, one
 * file per seed input, in the input layout of each target (see the
 * comments of fuzz_*.c).  test/fuzz/run.sh runs it into a temporary
 * directory on every run, so no binary corpus is kept in the repository.
 * Prints the number of seeds written per target.
 */
#define _GNU_SOURCE				/* asprintf */

#include "bloom_core.h"
#include "bloom_gaps.h"
#include "bloom_sort.h"
#include "bloom_state.h"
#include "vectors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Seeds larger than this are left out: they slow mutation down. */
#define MAX_SEED_BYTES		16384
/* Keys of one build seed, and hashes of one state seed, at most. */
#define MAX_BUILD_KEYS		256
#define MAX_STATE_HASHES	2048

static const char *out_dir;
enum
{
	T_PROBE, T_HEX, T_STATE, T_BUILD, T_STATS, T_GAPS, N_TARGETS
};

static unsigned long nseeds[N_TARGETS];
static const char *const target_names[N_TARGETS] = {
	"probe", "hex", "state", "build", "stats", "gaps"
};

typedef struct buf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} buf;

static void
put(buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap)
	{
		b->cap = (b->len + len) * 2 + 64;
		b->data = realloc(b->data, b->cap);
		if (b->data == NULL)
		{
			fprintf(stderr, "make_corpus: out of memory\n");
			exit(2);
		}
	}
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
}

static void
put_le(buf *b, uint64_t v, int nbytes)
{
	for (int i = 0; i < nbytes; i++, v >>= 8)
	{
		uint8_t		c = (uint8_t) v;

		put(b, &c, 1);
	}
}

static void
write_seed(int target, const char *id, const buf *b)
{
	char	   *path;
	FILE	   *f;

	if (b->len > MAX_SEED_BYTES)
		return;
	if (asprintf(&path, "%s/%s/%s-%lu", out_dir, target_names[target], id,
				 nseeds[target]) < 0)
		exit(2);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0)
	{
		fprintf(stderr, "make_corpus: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	nseeds[target]++;
	free(path);
}

static void
probe_seed(const char *id, const vec_bytes *filter, const vec_bytes *key)
{
	buf			b = {0};

	put_le(&b, key->len, 2);
	put(&b, key->data, key->len);
	put(&b, filter->data, filter->len);
	write_seed(T_PROBE, id, &b);
	free(b.data);
}

/* A LevelDB filter, a key, and the filter again as the source of b. */
static void
stats_seed(const char *id, const vec_bytes *filter, const vec_bytes *key)
{
	buf			b = {0};
	size_t		keylen = key->len < 255 ? key->len : 255;

	if (filter->len > 0xffff)
		return;
	put_le(&b, filter->len, 2);
	put_le(&b, keylen, 1);
	put(&b, filter->data, filter->len);
	put(&b, key->data, keylen);
	put(&b, filter->data, filter->len);
	write_seed(T_STATS, id, &b);
	free(b.data);
}

static void
hex_seed(const char *id, const vec_bytes *filter, bool upper)
{
	buf			b = {0};
	char	   *text = malloc(bloom_hex_encoded_len(filter->len));
	size_t		n = bloom_hex_encode(filter->data, filter->len, text);

	if (upper)
		for (size_t i = 2; i < n; i++)
			if (text[i] >= 'a' && text[i] <= 'f')
				text[i] -= 'a' - 'A';
	put(&b, text, n);
	write_seed(T_HEX, id, &b);
	free(b.data);
	free(text);
}

static void
state_seed(const vec_case *c)
{
	buf			b = {0};
	uint8_t		header[BLOOM_STATE_HEADER_BYTES];
	bloom_state_header h;
	uint64_t	n = c->nkeys < MAX_STATE_HASHES ? c->nkeys : MAX_STATE_HASHES;

	h.bits_per_key = (int32_t) c->bpk;
	h.nhashes = n;
	bloom_state_write_header(header, &h);
	put(&b, header, sizeof(header));
	for (uint64_t i = 0; i < n; i++)
		put_le(&b, bloom_key_hash(c->keys[i].data, c->keys[i].len), 4);
	write_seed(T_STATE, c->id, &b);
	free(b.data);
}

/* The code of a case's distinct key hashes: r, n, then the Rice code. */
static void
gaps_seed(const vec_case *c)
{
	buf			b = {0};
	uint64_t	n = c->nkeys < MAX_STATE_HASHES ? c->nkeys : MAX_STATE_HASHES,
				m;
	uint32_t   *h = malloc((n + 1) * sizeof(uint32_t));
	uint32_t   *scratch = malloc((n + 1) * sizeof(uint32_t));
	uint8_t    *code;
	unsigned	r;

	for (uint64_t i = 0; i < n; i++)
		h[i] = bloom_key_hash(c->keys[i].data, c->keys[i].len);
	m = bloom_sort_unique_hashes(h, (size_t) n, scratch);
	free(scratch);
	r = bloom_gaps_rice_param(m);
	code = malloc(bloom_gaps_max_bytes(m, r));
	put_le(&b, r, 1);
	put_le(&b, m, 2);
	put(&b, code, bloom_gaps_encode(h, m, r, code));
	write_seed(T_GAPS, c->id, &b);
	free(b.data);
	free(code);

	/* and the version 2 aggregate state of the same keys */
	code = malloc((size_t) bloom_state_v2_max_size(m));
	b = (buf) {0};
	put(&b, code, bloom_state_v2_write(code, (int32_t) c->bpk, n, h, m));
	write_seed(T_STATE, c->id, &b);
	free(b.data);
	free(code);
	free(h);
}

static void
build_seed(const vec_case *c)
{
	buf			b = {0};
	size_t		n = 0;

	put_le(&b, (uint64_t) c->bpk, 8);
	put_le(&b, 0, 8);
	put_le(&b, 1, 1);
	for (size_t i = 0; i < c->nkeys && n < MAX_BUILD_KEYS; i++)
	{
		if (c->keys[i].len > 255)
			continue;
		put_le(&b, c->keys[i].len, 1);
		put(&b, c->keys[i].data, c->keys[i].len);
		n++;
	}
	write_seed(T_BUILD, c->id, &b);
	free(b.data);
}

static void
one_case(const vec_case *c)
{
	if (c->has_filter)
	{
		/* the first, a middle and the last probe: inserted and absent keys */
		size_t		picks[3] = {0, c->nprobes / 2, c->nprobes ? c->nprobes - 1 : 0};

		for (int i = 0; i < 3; i++)
			if (picks[i] < c->nprobes && (i == 0 || picks[i] != picks[i - 1]))
				probe_seed(c->id, &c->filter, &c->probes[picks[i]].key);
		if (c->nprobes > 0)
			stats_seed(c->id, &c->filter, &c->probes[0].key);
		if (c->nprobes == 0)
		{
			vec_bytes	empty = {(uint8_t *) "", 0};

			probe_seed(c->id, &c->filter, &empty);
		}
		hex_seed(c->id, &c->filter, false);
		if (c->filter.len < 64)
			hex_seed(c->id, &c->filter, true);
	}
	if (c->kind == VEC_CREATE && c->bpk >= 0 && c->bpk <= INT32_MAX)
	{
		state_seed(c);
		build_seed(c);
		gaps_seed(c);
	}
}

/* Hand-made text seeds for the error paths of the hex parser. */
static void
bad_hex_seeds(void)
{
	static const char *const texts[] = {
		"", "\\", "\\x", "\\x0", "\\x00", "\\x0g", "x0001", "\\X0001",
		"\\x00 01", " \\x0001", "\\x0001\n", "\\\\x0001",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
	{
		buf			b = {0};

		put(&b, texts[i], strlen(texts[i]));
		write_seed(T_HEX, "bad", &b);
		free(b.data);
	}
}

int
main(int argc, char **argv)
{
	vec_set		set;

	vec_check_usage(argc, argv, "VECTOR_DIR OUT_DIR");
	out_dir = argv[2];
	for (int t = 0; t < N_TARGETS; t++)
	{
		char	   *path;

		if (asprintf(&path, "%s/%s", out_dir, target_names[t]) < 0)
			return 2;
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
		{
			fprintf(stderr, "make_corpus: cannot create %s: %s\n", path, strerror(errno));
			return 2;
		}
		free(path);
	}

	if (!vec_load_dir(argv[1], &set))
	{
		for (size_t i = 0; i < set.nerrors; i++)
			fprintf(stderr, "make_corpus: %s\n", set.errors[i]);
		vec_set_free(&set);
		return 1;
	}
	for (size_t f = 0; f < set.nfiles; f++)
		for (size_t c = 0; c < set.files[f].ncases; c++)
			one_case(&set.files[f].cases[c]);
	bad_hex_seeds();
	vec_set_free(&set);

	for (int t = 0; t < N_TARGETS; t++)
		printf("seeds %s: %lu\n", target_names[t], nseeds[t]);
	return 0;
}
