/*
 * test_library.c
 *		libbloomfilter through its public header only, as a program outside
 *		the database sees it: the known-answer vectors of libleveldb, the
 *		typed keys' bytes, the text form, combining, statistics, and the
 *		errors of bytes from outside.
 *
 * Linked against the shared library, so it also checks that everything it
 * calls is exported.  The expected bytes of typed keys are written out here
 * from the documented encoding, not taken from the library.
 *
 * usage: test_library VECTOR_DIR; ends with "library: N passed, N failed".
 */
#include "bloomfilter.h"
#include "vectors.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long n_passed;
static unsigned long n_failed;

static bool
check(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool
check(bool cond, const char *fmt, ...)
{
	va_list		ap;

	if (cond)
	{
		n_passed++;
		return true;
	}
	n_failed++;
	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return false;
}

/* The filter of n keys of len bytes each at bpk, built from their bytes. */
static uint8_t *
build_bytes(int bpk, const vec_bytes *keys, size_t n, size_t *len)
{
	bloomfilter_builder *b;
	uint8_t    *filter = NULL;
	size_t		i;

	if (bloomfilter_builder_new(bpk, &b) != BLOOMFILTER_OK)
		return NULL;
	for (i = 0; i < n; i++)
		bloomfilter_builder_add(b, keys[i].data, keys[i].len);
	if (bloomfilter_builder_finish(b, &filter, len) != BLOOMFILTER_OK)
		filter = NULL;
	bloomfilter_builder_free(b);
	return filter;
}

/*
 * bloomfilter_empty sized for the case's keys, then bloomfilter_add of
 * each key in place: libleveldb's CreateFilter bytes for the same keys (as
 * SQL's bloom_add(bloom_empty(n, bpk), key) gives them).
 */
static void
check_added_one_by_one(const vec_case *vc)
{
	uint8_t    *filter = NULL;
	size_t		len = 0,
				i;
	int			error = BLOOMFILTER_OK;

	if (!check(bloomfilter_empty(vc->nkeys, (int) vc->bpk, &filter, &len) == BLOOMFILTER_OK &&
			   len == vc->filter.len,
			   "%s: bloomfilter_empty(%zu, %d) has libleveldb's size", vc->id,
			   vc->nkeys, (int) vc->bpk))
	{
		bloomfilter_free(filter);
		return;
	}
	for (i = 0; i < vc->nkeys && error == BLOOMFILTER_OK; i++)
		error = bloomfilter_add(filter, len, vc->keys[i].data, vc->keys[i].len);
	check(error == BLOOMFILTER_OK &&
		  memcmp(filter, vc->filter.data, len) == 0,
		  "%s: bloomfilter_add of each key to bloomfilter_empty is libleveldb's filter", vc->id);
	bloomfilter_free(filter);
}

static void
test_vectors(const char *dir)
{
	vec_set		set;
	size_t		f,
				c,
				i;
	size_t		cases = 0;

	check(vec_load_dir(dir, &set), "the vectors in %s load without errors", dir);
	for (f = 0; f < set.nfiles; f++)
		for (c = 0; c < set.files[f].ncases; c++)
		{
			const vec_case *vc = &set.files[f].cases[c];
			const uint8_t *filter = vc->filter.data;
			size_t		len = vc->filter.len;
			uint8_t    *built = NULL;
			uint32_t   *hashes;
			bool	   *answers;

			cases++;
			if (vc->kind == VEC_CREATE)
			{
				if (vc->bpk > INT32_MAX)
					continue;
				built = build_bytes((int) vc->bpk, vc->keys, vc->nkeys, &len);
				if (!check(built != NULL && len == vc->filter_len,
						   "%s: the built filter has %zu bytes, libleveldb's %" PRIu64,
						   vc->id, len, vc->filter_len))
				{
					free(built);
					continue;
				}
				check(vec_fnv1a64(built, len) == vc->filter_fnv1a64,
					  "%s: the built filter's checksum is libleveldb's", vc->id);
				if (vc->has_filter)
					check(memcmp(built, vc->filter.data, len) == 0,
						  "%s: the built filter is libleveldb's, byte for byte", vc->id);
				check(bloomfilter_validate(built, len) == BLOOMFILTER_OK,
					  "%s: the built filter validates", vc->id);
				if (vc->has_filter && vc->bpk >= 0)
					check_added_one_by_one(vc);
				filter = built;
			}
			hashes = calloc(vc->nprobes + 1, sizeof(uint32_t));
			answers = calloc(vc->nprobes + 1, sizeof(bool));
			for (i = 0; i < vc->nprobes; i++)
			{
				const vec_probe *p = &vc->probes[i];

				check(bloomfilter_may_contain(filter, len, p->key.data, p->key.len) == p->expected,
					  "%s: probe %zu answers as KeyMayMatch", vc->id, i);
				hashes[i] = bloomfilter_hash(p->key.data, p->key.len);
			}
			bloomfilter_may_contain_hashes(filter, len, hashes, vc->nprobes, answers);
			for (i = 0; i < vc->nprobes; i++)
				check(answers[i] == vc->probes[i].expected,
					  "%s: batched probe %zu answers as KeyMayMatch", vc->id, i);
			free(hashes);
			free(answers);
			free(built);
		}
	check(cases > 0, "the vector set has cases (%zu)", cases);
	vec_set_free(&set);
}

/* An integer key as the documented encoding writes it, by hand. */
static void
int64_bytes_by_hand(int64_t v, uint8_t out[8])
{
	uint64_t	u = (uint64_t) v;
	int			i;

	for (i = 7; i >= 0; i--)
	{
		out[i] = (uint8_t) (u & 0xff);
		u >>= 8;
	}
}

static void
test_typed_keys(void)
{
	static const int64_t values[] = {0, 1, -1, 5, 255, 256, -256, INT32_MAX,
	INT32_MIN, INT64_MAX, INT64_MIN, 1234567890123LL};
	const size_t nvalues = sizeof(values) / sizeof(values[0]);
	uint8_t		bytes[sizeof(values) / sizeof(values[0])][8];
	vec_bytes	keys[sizeof(values) / sizeof(values[0])];
	bloomfilter_builder *b;
	uint8_t    *by_value,
			   *by_bytes;
	size_t		len_value,
				len_bytes,
				i;
	uint8_t		uuid[16];
	uint8_t		composed[64];
	bloomfilter_field fields[3];
	static const uint8_t expected_composed[] = {
		0, 0, 0, 2, 'a', 'b',	/* 'ab' */
		0xff, 0xff, 0xff, 0xff,	/* NULL */
		0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe	/* -2 */
	};
	uint8_t		minus_two[8];

	for (i = 0; i < nvalues; i++)
	{
		uint8_t		lib[8];

		int64_bytes_by_hand(values[i], bytes[i]);
		bloomfilter_int64_key(values[i], lib);
		check(memcmp(lib, bytes[i], 8) == 0, "int64 key %" PRId64 ": 8 big-endian bytes", values[i]);
		check(bloomfilter_hash_int64(values[i]) == bloomfilter_hash(bytes[i], 8),
			  "int64 key %" PRId64 ": its hash is the hash of its bytes", values[i]);
		keys[i].data = bytes[i];
		keys[i].len = 8;
	}
	bloomfilter_builder_new(10, &b);
	for (i = 0; i < nvalues; i++)
		bloomfilter_builder_add_int64(b, values[i]);
	check(bloomfilter_builder_count(b) == nvalues, "the builder counts its keys");
	bloomfilter_builder_finish(b, &by_value, &len_value);
	check(bloomfilter_builder_count(b) == 0, "a finished builder is empty again");
	by_bytes = build_bytes(10, keys, nvalues, &len_bytes);
	check(len_value == len_bytes && memcmp(by_value, by_bytes, len_bytes) == 0,
		  "a filter of int64 keys is the filter of their bytes");
	for (i = 0; i < nvalues; i++)
		check(bloomfilter_may_contain_int64(by_value, len_value, values[i]),
			  "int64 key %" PRId64 " is found", values[i]);
	free(by_bytes);
	bloomfilter_free(by_value);

	for (i = 0; i < 16; i++)
		uuid[i] = (uint8_t) (0xa0 + i * 7);
	check(bloomfilter_hash_uuid(uuid) == bloomfilter_hash(uuid, 16),
		  "a uuid key's hash is the hash of its 16 bytes");
	bloomfilter_builder_add_uuid(b, uuid);
	bloomfilter_builder_finish(b, &by_value, &len_value);
	check(bloomfilter_may_contain(by_value, len_value, uuid, 16) &&
		  bloomfilter_may_contain_uuid(by_value, len_value, uuid),
		  "a uuid key is found by value and by bytes");
	bloomfilter_free(by_value);
	bloomfilter_builder_free(b);

	bloomfilter_int64_key(-2, minus_two);
	fields[0].bytes = "ab";
	fields[0].len = 2;
	fields[1].bytes = NULL;
	fields[1].len = 99;
	fields[2].bytes = minus_two;
	fields[2].len = 8;
	check(bloomfilter_key_size(fields, 3) == sizeof(expected_composed),
		  "a multi-column key's size");
	check(bloomfilter_compose_key(fields, 3, composed) == sizeof(expected_composed) &&
		  memcmp(composed, expected_composed, sizeof(expected_composed)) == 0,
		  "a multi-column key: 4-byte big-endian lengths, NULL as 0xFFFFFFFF");
	fields[0].len = (size_t) UINT32_MAX;
	check(bloomfilter_key_size(fields, 1) == 0, "a field of 2^32 - 1 bytes is refused");
	check(bloomfilter_key_size(fields, 0) == 0, "a key of no fields is refused");
}

static void
test_text_and_errors(void)
{
	static const uint8_t raw[] = {0x5c, 0x78, 0x00, 0xff, 0x10, 0x20, 0x30, 0x40, 6};
	static const uint8_t short_filter[] = {6};
	static const uint8_t k_zero[] = {1, 2, 0};
	static const uint8_t k_31[] = {1, 2, 31};
	uint8_t    *parsed;
	size_t		len;
	char	   *text;
	char		with_newline[64];
	int			e;

	check(bloomfilter_to_text(raw, sizeof(raw), &text) == BLOOMFILTER_OK &&
		  strcmp(text, "\\x5c7800ff102030400" "6") == 0, "the text form is \\x and lowercase hex");
	snprintf(with_newline, sizeof(with_newline), "%s\n", text);
	for (size_t i = 2; with_newline[i]; i++)
		if (with_newline[i] >= 'a' && with_newline[i] <= 'f')
			with_newline[i] -= 'a' - 'A';
	bloomfilter_free(text);
	check(bloomfilter_parse((const uint8_t *) with_newline, strlen(with_newline), &parsed, &len) == BLOOMFILTER_OK &&
		  len == sizeof(raw) && memcmp(parsed, raw, len) == 0,
		  "the text form in upper case with a newline parses");
	bloomfilter_free(parsed);
	check(bloomfilter_parse(raw, sizeof(raw), &parsed, &len) == BLOOMFILTER_OK &&
		  len == sizeof(raw) && memcmp(parsed, raw, len) == 0,
		  "raw bytes that start with \\x parse as raw bytes");
	bloomfilter_free(parsed);

	check(bloomfilter_parse(short_filter, 1, &parsed, &len) == BLOOMFILTER_ERR_TOO_SHORT && parsed == NULL,
		  "a 1-byte filter is refused");
	check(bloomfilter_parse(k_zero, 3, &parsed, &len) == BLOOMFILTER_ERR_K_ZERO, "k 0 is refused");
	check(bloomfilter_parse(k_31, 3, &parsed, &len) == BLOOMFILTER_ERR_K_RESERVED, "k 31 is refused");
	check(bloomfilter_parse((const uint8_t *) "\\x0102g6", 8, &parsed, &len) == BLOOMFILTER_ERR_HEX_DIGIT,
		  "text with a non-hex character says so");
	check(bloomfilter_parse((const uint8_t *) "\\x01020", 7, &parsed, &len) == BLOOMFILTER_ERR_HEX_ODD,
		  "text with an odd number of digits says so");
	check(bloomfilter_parse((const uint8_t *) "\\x0100", 6, &parsed, &len) == BLOOMFILTER_ERR_K_ZERO,
		  "text that decodes to k 0 is refused");
	check(bloomfilter_read((const uint8_t *) "\\x0100\n", 7, &parsed, &len) == BLOOMFILTER_OK &&
		  len == 2 && parsed[0] == 1 && parsed[1] == 0,
		  "read decodes the text form of bytes that do not validate");
	bloomfilter_free(parsed);
	check(bloomfilter_read((const uint8_t *) "\\x01g\x01", 6, &parsed, &len) == BLOOMFILTER_OK &&
		  len == 6 && memcmp(parsed, "\\x01g\x01", 6) == 0,
		  "read takes what is neither of the text form's shape nor text as raw bytes");
	bloomfilter_free(parsed);
	check(bloomfilter_read((const uint8_t *) "\\x01g\n", 6, &parsed, &len) == BLOOMFILTER_ERR_HEX_DIGIT &&
		  parsed == NULL, "read refuses text that starts as the text form with its error");
	{
		/* psql 15's aligned output of the filter 11 81 41 31 03 a9 5d 37 06 */
		static const char aligned[] =
			"      bloom_agg       \n----------------------\n"
			" \\x1181413103a95d3706\n(1 row)\n\n";
		static const char expanded[] = "-[ RECORD 1 ]-----------\nf | \\x1181413103a95d3706\n\n";
		static const char utf8[] = "caf\xc3\xa9\n";
		static const uint8_t printable_k10[] = "abcdefgh\n";
		static const uint8_t not_utf8[] = "abcdefg\xc3\n";

		check(bloomfilter_parse((const uint8_t *) aligned, strlen(aligned), &parsed, &len) ==
			  BLOOMFILTER_ERR_PSQL_TABLE && parsed == NULL, "parse refuses psql's aligned output");
		check(bloomfilter_read((const uint8_t *) aligned, strlen(aligned), &parsed, &len) ==
			  BLOOMFILTER_ERR_PSQL_TABLE && parsed == NULL, "read refuses psql's aligned output");
		check(bloomfilter_parse_text(aligned, strlen(aligned), &parsed, &len) ==
			  BLOOMFILTER_ERR_PSQL_TABLE, "parse_text refuses psql's aligned output as such");
		check(bloomfilter_parse((const uint8_t *) expanded, strlen(expanded), &parsed, &len) ==
			  BLOOMFILTER_ERR_PSQL_TABLE, "parse refuses psql's expanded output");
		check(bloomfilter_parse((const uint8_t *) "0102\n", 5, &parsed, &len) == BLOOMFILTER_ERR_TEXT,
			  "parse refuses hex without \\x as text");
		check(bloomfilter_parse((const uint8_t *) utf8, strlen(utf8), &parsed, &len) == BLOOMFILTER_ERR_TEXT,
			  "parse refuses UTF-8 text");
		check(bloomfilter_parse(printable_k10, 9, &parsed, &len) == BLOOMFILTER_ERR_TEXT,
			  "parse refuses raw bytes that are all text (validate takes them)");
		check(bloomfilter_validate(printable_k10, 9) == BLOOMFILTER_OK, "... which do validate");
		check(bloomfilter_parse(not_utf8, 9, &parsed, &len) == BLOOMFILTER_OK && len == 9,
			  "a byte that is not UTF-8 makes them raw bytes");
		bloomfilter_free(parsed);
		check(strstr(bloomfilter_strerror(BLOOMFILTER_ERR_PSQL_TABLE), "psql -XAt") != NULL,
			  "the psql error suggests psql -XAt");
	}
	check(bloomfilter_parse_text("\\x01020306", 10, &parsed, &len) == BLOOMFILTER_OK &&
		  len == 4 && parsed[3] == 6, "parse_text reads the text form");
	bloomfilter_free(parsed);
	check(bloomfilter_parse_text((const char *) raw, sizeof(raw), &parsed, &len) == BLOOMFILTER_ERR_HEX_DIGIT &&
		  parsed == NULL, "parse_text takes no raw bytes, even those starting with \\x");
	check(bloomfilter_parse_text("0102", 4, &parsed, &len) == BLOOMFILTER_ERR_HEX_PREFIX,
		  "parse_text wants the \\x");
	check(bloomfilter_parse_text("\\x0100", 6, &parsed, &len) == BLOOMFILTER_ERR_K_ZERO,
		  "parse_text validates");
	check(bloomfilter_validate(NULL, 0) == BLOOMFILTER_ERR_TOO_SHORT, "no bytes do not validate");
	check(!bloomfilter_may_contain(short_filter, 1, "a", 1), "a 1-byte filter matches nothing");
	check(bloomfilter_may_contain(k_31, 3, "a", 1), "a reserved k matches everything");
	for (e = BLOOMFILTER_OK; e <= BLOOMFILTER_ERR_PSQL_TABLE; e++)
		check(strlen(bloomfilter_strerror(e)) > 5 &&
			  bloomfilter_strerror(e)[strlen(bloomfilter_strerror(e)) - 1] == '.',
			  "error %d has a sentence", e);
	check(bloomfilter_builder_new(-1, &(bloomfilter_builder *) {NULL}) == BLOOMFILTER_ERR_ARGUMENT,
		  "a negative bits_per_key is refused");
}

static void
test_combine_and_info(void)
{
	bloomfilter_builder *b;
	uint8_t    *a,
			   *c,
			   *other,
			   *copy;
	size_t		alen,
				clen,
				olen,
				i;
	uint64_t	set = 0;
	bloomfilter_info info;
	uint64_t	positions[30];
	unsigned	k;
	uint32_t	h,
				delta;
	char		key[32];

	bloomfilter_builder_new(10, &b);
	for (i = 0; i < 1000; i++)
	{
		snprintf(key, sizeof(key), "a%zu", i);
		bloomfilter_builder_add(b, key, strlen(key));
	}
	bloomfilter_builder_finish(b, &a, &alen);
	for (i = 0; i < 1000; i++)
	{
		snprintf(key, sizeof(key), "c%zu", i);
		bloomfilter_builder_add(b, key, strlen(key));
	}
	bloomfilter_builder_finish(b, &c, &clen);
	bloomfilter_builder_add(b, "x", 1);
	bloomfilter_builder_finish(b, &other, &olen);
	bloomfilter_builder_free(b);

	copy = malloc(alen);
	memcpy(copy, a, alen);
	check(bloomfilter_union_into(copy, alen, c, clen) == BLOOMFILTER_OK, "union of one geometry");
	for (i = 0; i + 1 < alen; i++)
		if (copy[i] != (a[i] | c[i]))
			break;
	check(i + 1 == alen && copy[alen - 1] == a[alen - 1], "union is the bytes' OR, k kept");
	memcpy(copy, a, alen);
	check(bloomfilter_intersect_into(copy, alen, c, clen) == BLOOMFILTER_OK, "intersection of one geometry");
	for (i = 0; i + 1 < alen; i++)
		if (copy[i] != (a[i] & c[i]))
			break;
	check(i + 1 == alen, "intersection is the bytes' AND");
	check(bloomfilter_union_into(copy, alen, other, olen) == BLOOMFILTER_ERR_GEOMETRY,
		  "filters of different sizes do not combine");

	check(bloomfilter_get_info(a, alen, &info) == BLOOMFILTER_OK, "info of a filter");
	for (i = 0; i + 1 < alen; i++)
		set += (uint64_t) __builtin_popcount(a[i]);
	check(info.bytes == alen && info.bits == (alen - 1) * 8 && info.k == 6 &&
		  info.bits_set == set, "info: bytes, bits, k and the bits set");
	check(fabs(info.fill_ratio - (double) set / (double) info.bits) < 1e-12, "info: the fill ratio");
	check(info.estimated_keys > 900 && info.estimated_keys < 1100,
		  "info: about 1000 keys estimated (%g)", info.estimated_keys);
	check(info.false_positive_rate > 0.003 && info.false_positive_rate < 0.03,
		  "info: a false-positive rate near 1%% (%g)", info.false_positive_rate);
	check(bloomfilter_get_info(a, 1, &info) == BLOOMFILTER_ERR_TOO_SHORT, "info of bad bytes is refused");
	{
		bloomfilter_info fast;
		double		fill = (double) set / (double) info.bits;

		check(bloomfilter_get_info_fast(a, alen, &fast) == BLOOMFILTER_OK &&
			  fast.bytes == info.bytes && fast.bits == info.bits && fast.k == info.k &&
			  fast.bits_set == info.bits_set && fast.fill_ratio == info.fill_ratio,
			  "fast info: the counts of info");
		check(fabs(fast.estimated_keys + (double) info.bits / 6 * log1p(-fill)) <
			  1e-9 * fast.estimated_keys && fabs(fast.false_positive_rate - pow(fill, 6)) <
			  1e-12 * fast.false_positive_rate, "fast info: the ideal filter's formulas");
		check(bloomfilter_get_info_fast(a, 1, &fast) == BLOOMFILTER_ERR_TOO_SHORT &&
			  bloomfilter_get_info_fast(a, alen, NULL) == BLOOMFILTER_ERR_ARGUMENT,
			  "fast info of bad bytes or no result is refused");
	}

	/* LevelDB's probe loop, written out: h % bits by division */
	h = bloomfilter_hash("a1", 2);
	delta = (h >> 17) | (h << 15);
	k = bloomfilter_probe_positions(a, alen, h, positions);
	check(k == 6, "a key makes k probes");
	for (i = 0; i < k; i++)
	{
		check(positions[i] == (uint64_t) h % ((alen - 1) * 8), "probe %zu's position", i);
		check((a[positions[i] / 8] >> (positions[i] % 8)) & 1, "an added key's probe %zu is set", i);
		h += delta;
	}

	check(bloomfilter_k_for_bits_per_key(10) == 6 && bloomfilter_k_for_bits_per_key(0) == 1 &&
		  bloomfilter_k_for_bits_per_key(100) == 30, "k for bits_per_key 10, 0 and 100");
	check(bloomfilter_expected_fpr(10) > 0.005 && bloomfilter_expected_fpr(10) < 0.02 &&
		  bloomfilter_expected_fpr(20) < bloomfilter_expected_fpr(10), "expected rates fall with bits");
	check(bloomfilter_bits_per_key_for_fpr(0.01) >= 9 && bloomfilter_bits_per_key_for_fpr(0.01) <= 11 &&
		  bloomfilter_expected_fpr(bloomfilter_bits_per_key_for_fpr(0.01)) <= 0.01,
		  "bits_per_key for 1%%");
	check(bloomfilter_bits_per_key_for_fpr(1e-9) == -1 && bloomfilter_bits_per_key_for_fpr(NAN) == -1,
		  "unreachable and NaN targets");
	check(strcmp(bloomfilter_version(), BLOOMFILTER_VERSION) == 0, "the library's version is the header's");
	free(copy);
	bloomfilter_free(a);
	bloomfilter_free(c);
	bloomfilter_free(other);
}

/* bloomfilter_empty and bloomfilter_add*: SQL's bloom_empty and bloom_add. */
static void
test_reserved(void)
{
	static const uint8_t empty_0_10[] = {0, 0, 0, 0, 0, 0, 0, 0, 6};
	static const int64_t ints[] = {0, 1, -1, 42, INT64_MAX, INT64_MIN};
	uint8_t		uuids[3][BLOOMFILTER_UUID_KEY_BYTES];
	bloomfilter_builder *b;
	uint8_t    *filter = NULL,
			   *built = NULL,
			   *copy;
	size_t		len = 0,
				built_len = 0,
				i;
	uint8_t		tiny[2] = {0, 0};
	uint8_t		bad_k[9] = {0, 0, 0, 0, 0, 0, 0, 0, 31};

	/* SELECT bloom_empty(0, 10) is \x000000000000000006 (doc/reference.md) */
	check(bloomfilter_empty(0, 10, &filter, &len) == BLOOMFILTER_OK &&
		  len == sizeof(empty_0_10) && memcmp(filter, empty_0_10, len) == 0,
		  "bloomfilter_empty(0, 10) is SQL's bloom_empty(0, 10)");
	bloomfilter_free(filter);
	check(bloomfilter_empty(1000, 10, &filter, &len) == BLOOMFILTER_OK &&
		  len == 1251 && filter[len - 1] == 6 &&
		  bloomfilter_validate(filter, len) == BLOOMFILTER_OK,
		  "bloomfilter_empty(1000, 10): 1,250 bytes of bits and k 6");
	bloomfilter_free(filter);
	check(bloomfilter_empty(10, -1, &filter, &len) == BLOOMFILTER_ERR_ARGUMENT &&
		  filter == NULL && len == 0,
		  "bloomfilter_empty of a negative bits_per_key fails, writing NULL");
	check(bloomfilter_empty(10, 10, NULL, &len) == BLOOMFILTER_ERR_ARGUMENT,
		  "bloomfilter_empty of a NULL filter pointer fails");

	/* integer and uuid keys: the builder's bytes for the same keys */
	for (i = 0; i < 3; i++)
		memset(uuids[i], (int) (i * 37 + 1), BLOOMFILTER_UUID_KEY_BYTES);
	bloomfilter_builder_new(7, &b);
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		bloomfilter_builder_add_int64(b, ints[i]);
	for (i = 0; i < 3; i++)
		bloomfilter_builder_add_uuid(b, uuids[i]);
	bloomfilter_builder_add(b, "apple", 5);
	bloomfilter_builder_add_hash(b, 0xdeadbeef);
	bloomfilter_builder_finish(b, &built, &built_len);
	bloomfilter_builder_free(b);
	bloomfilter_empty(sizeof(ints) / sizeof(ints[0]) + 5, 7, &filter, &len);
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		check(bloomfilter_add_int64(filter, len, ints[i]) == BLOOMFILTER_OK,
			  "bloomfilter_add_int64 of %" PRId64, ints[i]);
	for (i = 0; i < 3; i++)
		check(bloomfilter_add_uuid(filter, len, uuids[i]) == BLOOMFILTER_OK,
			  "bloomfilter_add_uuid %zu", i);
	check(bloomfilter_add(filter, len, "apple", 5) == BLOOMFILTER_OK &&
		  bloomfilter_add_hash(filter, len, 0xdeadbeef) == BLOOMFILTER_OK,
		  "bloomfilter_add and bloomfilter_add_hash succeed");
	check(built != NULL && len == built_len && memcmp(filter, built, len) == 0,
		  "typed keys added one by one give the builder's bytes");
	check(bloomfilter_may_contain_int64(filter, len, INT64_MIN) &&
		  bloomfilter_may_contain_uuid(filter, len, uuids[2]) &&
		  bloomfilter_may_contain(filter, len, "apple", 5),
		  "the keys added may be contained");

	/* adding again changes nothing; the geometry never changes */
	copy = malloc(len);
	memcpy(copy, filter, len);
	bloomfilter_add(filter, len, "apple", 5);
	check(memcmp(copy, filter, len) == 0, "adding a key again changes no byte");
	free(copy);

	/* refused: nothing is written */
	check(bloomfilter_add(tiny, 1, "x", 1) == BLOOMFILTER_ERR_TOO_SHORT &&
		  tiny[0] == 0, "bloomfilter_add to 1 byte fails (too short)");
	check(bloomfilter_add(tiny, 2, "x", 1) == BLOOMFILTER_ERR_K_ZERO &&
		  tiny[0] == 0, "bloomfilter_add to a filter of k 0 fails");
	check(bloomfilter_add(bad_k, sizeof(bad_k), "x", 1) == BLOOMFILTER_ERR_K_RESERVED &&
		  bad_k[0] == 0, "bloomfilter_add to a filter of k 31 fails");
	check(bloomfilter_add(NULL, 9, "x", 1) == BLOOMFILTER_ERR_ARGUMENT &&
		  bloomfilter_add(filter, len, NULL, 1) == BLOOMFILTER_ERR_ARGUMENT &&
		  bloomfilter_add_uuid(filter, len, NULL) == BLOOMFILTER_ERR_ARGUMENT,
		  "bloomfilter_add* of NULL pointers fail");
	check(bloomfilter_add(filter, len, NULL, 0) == BLOOMFILTER_OK,
		  "bloomfilter_add of the empty key (NULL, 0) succeeds");
	bloomfilter_free(filter);
	bloomfilter_free(built);
}

int
main(int argc, char **argv)
{
	vec_check_usage(argc, argv, "VECTOR_DIR");
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_vectors(argv[1]);
	test_typed_keys();
	test_text_and_errors();
	test_combine_and_info();
	test_reserved();
	return vec_summary("library", n_passed, n_failed);
}
