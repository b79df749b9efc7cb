/*
 * bloomfilter.c
 *		libbloomfilter: the public face of the core in src/core.
 *
 * Every byte and answer comes from the same core the PostgreSQL extension
 * calls; this file only gives it stable names, checks what arrives from
 * outside, and owns memory with malloc.  The core's own symbols are hidden
 * (bloom_core.h), so a program that links this library and another copy
 * of the core, or loads the extension, gets no clash.
 */
#include "bloomfilter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_core.h"
#include "bloom_keys.h"
#include "bloom_scheme.h"
#include "bloom_setops.h"
#include "bloom_stats.h"

/* The smallest allocation a builder's hash array grows from. */
#define BUILDER_INITIAL_HASHES	1024

struct bloomfilter_builder
{
	int			bits_per_key;
	uint32_t   *hashes;
	size_t		count;
	size_t		capacity;
};

const char *
bloomfilter_version(void)
{
	return BLOOMFILTER_VERSION;
}

/*
 * The core statuses the functions here can meet and their public codes;
 * where core_message, the public code's message is the core's.
 */
static const struct
{
	bloom_status status;
	bloomfilter_error error;
	bool		core_message;
}			status_errors[] = {
	{BLOOM_OK, BLOOMFILTER_OK, false},
	{BLOOM_ERR_FILTER_TOO_SHORT, BLOOMFILTER_ERR_TOO_SHORT, true},
	{BLOOM_ERR_K_ZERO, BLOOMFILTER_ERR_K_ZERO, true},
	{BLOOM_ERR_K_RESERVED, BLOOMFILTER_ERR_K_RESERVED, true},
	{BLOOM_ERR_HEX_PREFIX, BLOOMFILTER_ERR_HEX_PREFIX, true},
	{BLOOM_ERR_HEX_ODD, BLOOMFILTER_ERR_HEX_ODD, true},
	{BLOOM_ERR_HEX_DIGIT, BLOOMFILTER_ERR_HEX_DIGIT, true},
	{BLOOM_ERR_NEGATIVE_BITS_PER_KEY, BLOOMFILTER_ERR_ARGUMENT, false},
	{BLOOM_ERR_SIZE_OVERFLOW, BLOOMFILTER_ERR_TOO_LARGE, false},
	{BLOOM_ERR_NO_MEMORY, BLOOMFILTER_ERR_NO_MEMORY, false},
};

#define N_STATUS_ERRORS (sizeof(status_errors) / sizeof(status_errors[0]))

const char *
bloomfilter_strerror(int error)
{
	for (size_t i = 0; i < N_STATUS_ERRORS; i++)
		if (status_errors[i].core_message && (int) status_errors[i].error == error)
			return bloom_status_message(status_errors[i].status);
	switch ((bloomfilter_error) error)
	{
		case BLOOMFILTER_OK:
			return "No error.";
		case BLOOMFILTER_ERR_ARGUMENT:
			return "An argument was NULL or out of range: bits_per_key must not be negative.";
		case BLOOMFILTER_ERR_TOO_LARGE:
			return "The filter or key would be larger than this machine can address.";
		case BLOOMFILTER_ERR_NO_MEMORY:
			return "Memory could not be allocated.";
		case BLOOMFILTER_ERR_GEOMETRY:
			return "Filters can be combined only when they have the same size and the same k.";
		case BLOOMFILTER_ERR_TEXT:
			return "The input is text but not a filter's text form (\\x and an even number of hex digits, then only white space), and text is not taken for a filter's raw bytes.";
		case BLOOMFILTER_ERR_PSQL_TABLE:
			return "The input is psql's table output (a header, the value and a row count), not a filter: fetch the filter with psql -XAt (unaligned, tuples only).";
		default:
			/* the core's messages, above */
			break;
	}
	return "Unknown error.";
}

void
bloomfilter_free(void *memory)
{
	free(memory);
}

/* The public code of a core status the functions here can meet. */
static int
from_status(bloom_status status)
{
	for (size_t i = 0; i < N_STATUS_ERRORS; i++)
		if (status_errors[i].status == status)
			return status_errors[i].error;
	/* aggregate-state and thread statuses never arise here */
	return BLOOMFILTER_ERR_ARGUMENT;
}

/* ---- keys ---- */

void
bloomfilter_int64_key(int64_t value, uint8_t out[BLOOMFILTER_INT64_KEY_BYTES])
{
	bloom_int_key_bytes(value, out);
}

size_t
bloomfilter_key_size(const bloomfilter_field *fields, size_t nfields)
{
	size_t		size = 0;
	size_t		i;

	if (fields == NULL || nfields == 0)
		return 0;
	for (i = 0; i < nfields; i++)
	{
		size_t		field = BLOOM_FIELD_HEADER_BYTES;

		if (fields[i].bytes != NULL)
		{
			if (fields[i].len > BLOOM_FIELD_MAX_BYTES)
				return 0;
			field += fields[i].len;
		}
		if (size > SIZE_MAX - field)
			return 0;
		size += field;
	}
	return size;
}

size_t
bloomfilter_compose_key(const bloomfilter_field *fields, size_t nfields,
						uint8_t *out)
{
	size_t		size = bloomfilter_key_size(fields, nfields);
	size_t		at = 0;
	size_t		i;

	if (size == 0 || out == NULL)
		return 0;
	for (i = 0; i < nfields; i++)
	{
		if (fields[i].bytes == NULL)
			at += bloom_put_null_field(out + at);
		else
			at += bloom_put_field(out + at, fields[i].bytes,
								  (uint32_t) fields[i].len);
	}
	return at;
}

uint32_t
bloomfilter_hash(const void *key, size_t len)
{
	return bloom_key_hash(key, len);
}

uint32_t
bloomfilter_hash_int64(int64_t value)
{
	return bloom_int_key_hash(value);
}

uint32_t
bloomfilter_hash_uuid(const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES])
{
	return bloom_uuid_key_hash(uuid);
}

/* ---- building ---- */

int
bloomfilter_builder_new(int bits_per_key, bloomfilter_builder **builder)
{
	bloomfilter_builder *b;

	if (builder == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	*builder = NULL;
	if (bits_per_key < 0)
		return BLOOMFILTER_ERR_ARGUMENT;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return BLOOMFILTER_ERR_NO_MEMORY;
	b->bits_per_key = bits_per_key;
	*builder = b;
	return BLOOMFILTER_OK;
}

int
bloomfilter_builder_add_hash(bloomfilter_builder *builder, uint32_t hash)
{
	if (builder == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	if (builder->count == builder->capacity)
	{
		size_t		capacity = builder->capacity == 0 ?
			BUILDER_INITIAL_HASHES : builder->capacity;
		uint32_t   *grown;

		if (builder->capacity != 0)
		{
			if (capacity > SIZE_MAX / 2 / sizeof(uint32_t))
				return BLOOMFILTER_ERR_TOO_LARGE;
			capacity *= 2;
		}
		grown = realloc(builder->hashes, capacity * sizeof(uint32_t));
		if (grown == NULL)
			return BLOOMFILTER_ERR_NO_MEMORY;
		builder->hashes = grown;
		builder->capacity = capacity;
	}
	builder->hashes[builder->count++] = hash;
	return BLOOMFILTER_OK;
}

int
bloomfilter_builder_add(bloomfilter_builder *builder, const void *key,
						size_t len)
{
	if (key == NULL && len > 0)
		return BLOOMFILTER_ERR_ARGUMENT;
	return bloomfilter_builder_add_hash(builder, bloom_key_hash(key, len));
}

int
bloomfilter_builder_add_int64(bloomfilter_builder *builder, int64_t value)
{
	return bloomfilter_builder_add_hash(builder, bloom_int_key_hash(value));
}

int
bloomfilter_builder_add_uuid(bloomfilter_builder *builder,
							 const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES])
{
	if (uuid == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	return bloomfilter_builder_add_hash(builder, bloom_uuid_key_hash(uuid));
}

uint64_t
bloomfilter_builder_count(const bloomfilter_builder *builder)
{
	return builder == NULL ? 0 : (uint64_t) builder->count;
}

/*
 * The filter CreateFilter sizes for nkeys keys at bits_per_key, no bit set
 * but its k byte, in a new allocation; *geometry says its size and k.
 */
static int
new_empty_filter(uint64_t nkeys, int bits_per_key, bloom_geometry *geometry,
				 uint8_t **bytes)
{
	bloom_status status = bloom_geometry_for(nkeys, bits_per_key, geometry);

	if (status != BLOOM_OK)
		return from_status(status);
	if (geometry->filter_bytes > SIZE_MAX)
		return BLOOMFILTER_ERR_TOO_LARGE;
	*bytes = calloc(1, (size_t) geometry->filter_bytes);
	if (*bytes == NULL)
		return BLOOMFILTER_ERR_NO_MEMORY;
	(*bytes)[geometry->filter_bytes - 1] = (uint8_t) geometry->k;
	return BLOOMFILTER_OK;
}

int
bloomfilter_builder_finish(bloomfilter_builder *builder, uint8_t **filter,
						   size_t *len)
{
	bloom_geometry geometry;
	uint8_t    *bytes = NULL;
	uint32_t   *scratch;
	size_t		scratch_words;
	int			error;

	if (builder == NULL || filter == NULL || len == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	*filter = NULL;
	*len = 0;
	error = new_empty_filter(builder->count, builder->bits_per_key, &geometry,
							 &bytes);
	if (error != BLOOMFILTER_OK)
		return error;

	/* the scratch only speeds a large filter up: go without it if need be */
	scratch_words = bloom_set_scratch_size(geometry.bits);
	scratch = scratch_words > 0 ? malloc(scratch_words * sizeof(uint32_t)) : NULL;
	if (scratch == NULL)
		scratch_words = 0;
	bloom_build_from_hashes_scratch(bytes, &geometry, builder->hashes,
									builder->count, scratch, scratch_words);
	free(scratch);

	builder->count = 0;
	*filter = bytes;
	*len = (size_t) geometry.filter_bytes;
	return BLOOMFILTER_OK;
}

void
bloomfilter_builder_free(bloomfilter_builder *builder)
{
	if (builder == NULL)
		return;
	free(builder->hashes);
	free(builder);
}

unsigned
bloomfilter_k_for_bits_per_key(int bits_per_key)
{
	return bloom_k_for_bits_per_key(bits_per_key < 0 ? 0 : bits_per_key);
}

/* ---- reserved filters: sized first, keys added in place ---- */

int
bloomfilter_empty(uint64_t expected_keys, int bits_per_key, uint8_t **filter,
				  size_t *len)
{
	bloom_geometry geometry;
	uint8_t    *bytes = NULL;
	int			error;

	if (filter == NULL || len == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	*filter = NULL;
	*len = 0;
	error = new_empty_filter(expected_keys, bits_per_key, &geometry, &bytes);
	if (error != BLOOMFILTER_OK)
		return error;
	*filter = bytes;
	*len = (size_t) geometry.filter_bytes;
	return BLOOMFILTER_OK;
}

int
bloomfilter_add_hash(uint8_t *filter, size_t len, uint32_t hash)
{
	int			error;

	if (filter == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	error = from_status(bloom_validate(filter, len));
	if (error != BLOOMFILTER_OK)
		return error;
	bloom_set_hash(filter, (uint64_t) (len - 1) * 8, filter[len - 1], hash);
	return BLOOMFILTER_OK;
}

int
bloomfilter_add(uint8_t *filter, size_t len, const void *key, size_t keylen)
{
	if (key == NULL && keylen > 0)
		return BLOOMFILTER_ERR_ARGUMENT;
	return bloomfilter_add_hash(filter, len, bloom_key_hash(key, keylen));
}

int
bloomfilter_add_int64(uint8_t *filter, size_t len, int64_t value)
{
	return bloomfilter_add_hash(filter, len, bloom_int_key_hash(value));
}

int
bloomfilter_add_uuid(uint8_t *filter, size_t len,
					 const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES])
{
	if (uuid == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	return bloomfilter_add_hash(filter, len, bloom_uuid_key_hash(uuid));
}

/* ---- reading ---- */

int
bloomfilter_validate(const uint8_t *filter, size_t len)
{
	if (filter == NULL && len > 0)
		return BLOOMFILTER_ERR_ARGUMENT;
	return from_status(bloom_validate(filter, len));
}

bool
bloomfilter_may_contain_hash(const uint8_t *filter, size_t len, uint32_t hash)
{
	if (filter == NULL)
		return false;
	return bloom_may_contain_hash(filter, len, hash);
}

bool
bloomfilter_may_contain(const uint8_t *filter, size_t len, const void *key,
						size_t keylen)
{
	return bloomfilter_may_contain_hash(filter, len,
										bloom_key_hash(key, keylen));
}

bool
bloomfilter_may_contain_int64(const uint8_t *filter, size_t len,
							  int64_t value)
{
	return bloomfilter_may_contain_hash(filter, len, bloom_int_key_hash(value));
}

bool
bloomfilter_may_contain_uuid(const uint8_t *filter, size_t len,
							 const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES])
{
	return bloomfilter_may_contain_hash(filter, len, bloom_uuid_key_hash(uuid));
}

size_t
bloomfilter_may_contain_hashes(const uint8_t *filter, size_t len,
							   const uint32_t *hashes, size_t n, bool *answers)
{
	bloom_prepared p;
	size_t		matches = 0;
	size_t		i;

	if (filter == NULL)
		len = 0;
	bloom_prepare_probe(&p, filter, len);
	for (i = 0; i < n; i++)
	{
		answers[i] = bloom_prepared_may_contain(&p, filter, hashes[i]);
		matches += answers[i];
	}
	return matches;
}

unsigned
bloomfilter_probe_positions(const uint8_t *filter, size_t len, uint32_t hash,
							uint64_t positions[30])
{
	bloom_prepared p;
	uint32_t	delta = bloom_probe_delta(hash);
	unsigned	j;

	if (filter == NULL || bloom_validate(filter, len) != BLOOM_OK)
		return 0;
	bloom_prepare_probe(&p, filter, len);
	for (j = 0; j < p.k; j++)
	{
		positions[j] = bloom_prepared_bitpos(&p, hash);
		hash += delta;
	}
	return p.k;
}

/* ---- combining ---- */

/*
 * op(dst, src) where both filters validate and have one geometry; else
 * why not, and dst is left as it was.
 */
static int
combine_into(uint8_t *dst, size_t dst_len, const uint8_t *src,
			 size_t src_len, void (*op) (uint8_t *, const uint8_t *, size_t))
{
	int			error;

	if (dst == NULL || src == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	if ((error = bloomfilter_validate(dst, dst_len)) != BLOOMFILTER_OK ||
		(error = bloomfilter_validate(src, src_len)) != BLOOMFILTER_OK)
		return error;
	if (!bloom_same_geometry(dst, dst_len, src, src_len))
		return BLOOMFILTER_ERR_GEOMETRY;
	op(dst, src, dst_len);
	return BLOOMFILTER_OK;
}

int
bloomfilter_union_into(uint8_t *dst, size_t dst_len, const uint8_t *src,
					   size_t src_len)
{
	return combine_into(dst, dst_len, src, src_len, bloom_union_into);
}

int
bloomfilter_intersect_into(uint8_t *dst, size_t dst_len, const uint8_t *src,
						   size_t src_len)
{
	return combine_into(dst, dst_len, src, src_len, bloom_intersect_into);
}

/* ---- statistics ---- */

static void
info_of_stats(const bloom_stats *stats, bloomfilter_info *info)
{
	info->bytes = stats->filter_bytes;
	info->bits = stats->bits;
	info->k = stats->k;
	info->bits_set = stats->bits_set;
	info->fill_ratio = stats->fill_ratio;
	info->estimated_keys = stats->estimated_keys;
	info->false_positive_rate = stats->false_positive_rate;
}

int
bloomfilter_get_info_fast(const uint8_t *filter, size_t len,
						  bloomfilter_info *info)
{
	bloom_stats stats;
	int			error;

	if (info == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	if ((error = bloomfilter_validate(filter, len)) != BLOOMFILTER_OK)
		return error;
	/* one popcount pass; the estimates are bloom_stats_of's formulas */
	bloom_stats_of(filter, len, &stats);
	info_of_stats(&stats, info);
	return BLOOMFILTER_OK;
}

int
bloomfilter_get_info(const uint8_t *filter, size_t len, bloomfilter_info *info)
{
	bloom_stats stats;
	uint8_t    *scratch;
	int			error;

	if (info == NULL)
		return BLOOMFILTER_ERR_ARGUMENT;
	if ((error = bloomfilter_validate(filter, len)) != BLOOMFILTER_OK)
		return error;
	scratch = malloc(bloom_scheme_scratch_bytes(len));
	if (scratch == NULL)
		return BLOOMFILTER_ERR_NO_MEMORY;
	/* the figures bloom_info computes, by the same calls */
	bloom_stats_of(filter, len, &stats);
	stats.estimated_keys = bloom_scheme_estimate_keys(len, stats.k,
													  stats.reachable_set,
													  scratch);
	free(scratch);
	stats.false_positive_rate = bloom_scheme_fpr(filter, len,
												 BLOOM_SCHEME_PROBES_DEFAULT,
												 stats.false_positive_rate);
	info_of_stats(&stats, info);
	return BLOOMFILTER_OK;
}

double
bloomfilter_expected_fpr(int bits_per_key)
{
	return bits_per_key < 0 ? NAN : bloom_expected_fpr(bits_per_key);
}

int
bloomfilter_bits_per_key_for_fpr(double target)
{
	/* written so that NaN fails too */
	if (!(target > 0 && target < 1))
		return -1;
	return (int) bloom_bits_per_key_for_fpr(target);
}

/* ---- text form ---- */

int
bloomfilter_to_text(const uint8_t *filter, size_t len, char **text)
{
	char	   *out;
	size_t		written;

	if (text == NULL || (filter == NULL && len > 0))
		return BLOOMFILTER_ERR_ARGUMENT;
	*text = NULL;
	if (len > (SIZE_MAX - 3) / 2)
		return BLOOMFILTER_ERR_TOO_LARGE;
	out = malloc(bloom_hex_encoded_len(len) + 1);
	if (out == NULL)
		return BLOOMFILTER_ERR_NO_MEMORY;
	written = bloom_hex_encode(filter, len, out);
	out[written] = '\0';
	*text = out;
	return BLOOMFILTER_OK;
}

static bool
is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		c == '\v';
}

/* A copy of len bytes, or NULL. */
static uint8_t *
copy_bytes(const uint8_t *bytes, size_t len)
{
	uint8_t    *copy = malloc(len > 0 ? len : 1);

	if (copy != NULL && len > 0)
		memcpy(copy, bytes, len);
	return copy;
}

/*
 * Input of the text form's shape ("\x", hex digits, trailing whitespace)
 * decoded into a new allocation: OK, or the text form's error, or
 * BLOOMFILTER_ERR_NO_MEMORY.
 */
static int
decode_text(const uint8_t *input, size_t input_len, uint8_t **bytes,
			size_t *len)
{
	size_t		text_len = input_len;
	uint8_t    *out;
	int			error;

	*bytes = NULL;
	while (text_len > 2 && is_space(input[text_len - 1]))
		text_len--;
	out = malloc(bloom_hex_decoded_max(text_len) + 1);
	if (out == NULL)
		return BLOOMFILTER_ERR_NO_MEMORY;
	error = from_status(bloom_hex_decode((const char *) input, text_len, out,
										 len));
	if (error != BLOOMFILTER_OK)
	{
		free(out);
		return error;
	}
	*bytes = out;
	return BLOOMFILTER_OK;
}

static bool
starts_as_text(const uint8_t *input, size_t input_len)
{
	return input_len >= 2 && input[0] == '\\' && input[1] == 'x';
}

/*
 * The length of the UTF-8 sequence of two to four bytes at p (at most n
 * bytes), or 0 where none starts there: a lead byte C2 to F4 and its
 * continuation bytes, none overlong, no surrogate, nothing past U+10FFFF.
 */
static size_t
utf8_sequence(const uint8_t *p, size_t n)
{
	size_t		len;
	uint8_t		lo,
				hi;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;

	/*
	 * The second byte's range: narrower after E0 and F0 (overlong forms),
	 * ED (surrogates) and F4 (past U+10FFFF).
	 */
	lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
	hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/*
 * Text from end to end: printable ASCII, white space and UTF-8.  A filter's
 * bit array of any size is that only by chance, and its k byte (1 to 30) is
 * text only as white space (9 to 13), so such input is taken for text.
 */
static bool
is_text(const uint8_t *input, size_t input_len)
{
	size_t		i = 0;

	while (i < input_len)
	{
		uint8_t		c = input[i];

		if ((c >= 0x20 && c < 0x7f) || is_space(c))
			i++;
		else if (c >= 0x80)
		{
			size_t		len = utf8_sequence(input + i, input_len - i);

			if (len == 0)
				return false;
			i += len;
		}
		else
			return false;
	}
	return true;
}

/* A line of psql's table output: "(N row)", "(N rows)" or "-[ RECORD N ]". */
static bool
is_psql_line(const uint8_t *line, size_t len)
{
	size_t		i = 0,
				digits;

	while (len > 0 && is_space(line[len - 1]))
		len--;
	while (i < len && line[i] == ' ')
		i++;
	if (len - i >= 10 && memcmp(line + i, "-[ RECORD ", 10) == 0)
		return true;
	if (i >= len || line[i++] != '(')
		return false;
	for (digits = 0; i < len && line[i] >= '0' && line[i] <= '9'; i++)
		digits++;
	if (digits == 0)
		return false;
	return (len - i == 5 && memcmp(line + i, " row)", 5) == 0) ||
		(len - i == 6 && memcmp(line + i, " rows)", 6) == 0);
}

/* psql's aligned or unaligned output with its row count, or its expanded output. */
static bool
is_psql_table(const uint8_t *input, size_t input_len)
{
	size_t		start = 0;

	while (start < input_len)
	{
		const uint8_t *nl = memchr(input + start, '\n', input_len - start);
		size_t		end = nl ? (size_t) (nl - input) : input_len;

		if (is_psql_line(input + start, end - start))
			return true;
		start = end + 1;
	}
	return false;
}

/*
 * Why input that is not the text form's shape is not a filter's raw bytes
 * either (see bloomfilter_parse), or OK where it may be raw bytes;
 * text_error is what was wrong with it as the text form, if anything.
 */
static int
refuse_text(const uint8_t *input, size_t input_len, int text_error)
{
	/* too short to be a filter: validation says so */
	if (input_len < 2 || !is_text(input, input_len))
		return BLOOMFILTER_OK;
	if (is_psql_table(input, input_len))
		return BLOOMFILTER_ERR_PSQL_TABLE;
	if (text_error != BLOOMFILTER_OK)
		return text_error;

	/*
	 * Text ending in a newline is a file or a command's output, whose
	 * newline would be read as k 10; text ending otherwise is raw bytes
	 * only where its last byte is the k of 9, 11, 12 or 13 (a tab, \v, \f,
	 * \r).  Refusing those too would refuse one small filter in a hundred
	 * of those k (whose few bytes are all printable by chance) and catch
	 * no likely mistake.
	 */
	if (input[input_len - 1] == '\n' ||
		bloomfilter_validate(input, input_len) != BLOOMFILTER_OK)
		return BLOOMFILTER_ERR_TEXT;
	return BLOOMFILTER_OK;
}

/*
 * OK where the bytes of *filter (the caller's new allocation) validate;
 * else frees them, leaves no filter, and returns why.
 */
static int
keep_if_valid(uint8_t **filter, size_t *len)
{
	int			error = bloomfilter_validate(*filter, *len);

	if (error != BLOOMFILTER_OK)
	{
		free(*filter);
		*filter = NULL;
		*len = 0;
	}
	return error;
}

int
bloomfilter_parse_text(const char *text, size_t text_len, uint8_t **filter,
					   size_t *len)
{
	const uint8_t *input = (const uint8_t *) text;
	int			error;

	if (filter == NULL || len == NULL || (text == NULL && text_len > 0))
		return BLOOMFILTER_ERR_ARGUMENT;
	*filter = NULL;
	*len = 0;
	if (!starts_as_text(input, text_len))
		return is_psql_table(input, text_len) ?
			BLOOMFILTER_ERR_PSQL_TABLE : BLOOMFILTER_ERR_HEX_PREFIX;
	if ((error = decode_text(input, text_len, filter, len)) != BLOOMFILTER_OK)
		return error;
	return keep_if_valid(filter, len);
}

/*
 * bloomfilter_parse (validate) and bloomfilter_read (not): the text form
 * where the input has its shape, else raw bytes unless the input is text.
 */
static int
read_input(const uint8_t *input, size_t input_len, bool validate,
		   uint8_t **filter, size_t *len)
{
	int			error;
	int			text_error = BLOOMFILTER_OK;

	if (filter == NULL || len == NULL || (input == NULL && input_len > 0))
		return BLOOMFILTER_ERR_ARGUMENT;
	*filter = NULL;
	*len = 0;

	if (starts_as_text(input, input_len))
	{
		/* OK, want of memory, or a mistake in the digits (odd, not hex) */
		text_error = decode_text(input, input_len, filter, len);
		if (text_error == BLOOMFILTER_OK)
		{
			/* text, by its shape: the filter in it must validate */
			return validate ? keep_if_valid(filter, len) : BLOOMFILTER_OK;
		}
		if (text_error == BLOOMFILTER_ERR_NO_MEMORY)
			return text_error;
	}

	/* text that is not the text form is no filter's raw bytes either */
	if ((error = refuse_text(input, input_len, text_error)) != BLOOMFILTER_OK)
		return error;

	/*
	 * Raw bytes, or text with a mistake in it followed by bytes that are
	 * not text: raw bytes that validate are a filter; otherwise, for input
	 * that starts as text, what is wrong with the text is what its writer
	 * needs to hear.
	 */
	if (validate &&
		(error = bloomfilter_validate(input, input_len)) != BLOOMFILTER_OK)
		return text_error != BLOOMFILTER_OK ? text_error : error;
	if ((*filter = copy_bytes(input, input_len)) == NULL)
		return BLOOMFILTER_ERR_NO_MEMORY;
	*len = input_len;
	return BLOOMFILTER_OK;
}

int
bloomfilter_read(const uint8_t *input, size_t input_len, uint8_t **bytes,
				 size_t *len)
{
	return read_input(input, input_len, false, bytes, len);
}

int
bloomfilter_parse(const uint8_t *input, size_t input_len, uint8_t **filter,
				  size_t *len)
{
	return read_input(input, input_len, true, filter, len);
}
