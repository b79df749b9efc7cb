/*
 * bloomfilter.h
 *		libbloomfilter: LevelDB's bloom filters, byte for byte, outside the
 *		database.
 *
 * A filter is LevelDB's filter bytes (util/bloom.cc, 1.23): the bit array,
 * then one byte holding k, the probes a key makes.  The bytes this library
 * writes are those libleveldb's CreateFilter writes for the same keys and
 * bits_per_key, and those the bloomfilter PostgreSQL extension's bloom_agg
 * writes; its answers are KeyMayMatch's and the <~ operator's.  A filter
 * can go from one to the other as it is: a bytea column, a file, a network
 * message.
 *
 * Keys are byte strings.  Keys of other types are written as bytes first,
 * the same way the SQL functions write them, so a filter built here from
 * integers answers for integer keys in SQL and the other way round:
 *
 *	- an integer of any width: its value as a signed 64-bit integer, most
 *	  significant byte first (8 bytes; PostgreSQL's int8send);
 *	- a uuid: its 16 bytes in their written order (uuid_send);
 *	- text: its bytes (UTF-8 in a UTF-8 database);
 *	- several values (SQL's bloom_key): for each value in order, its length
 *	  as 4 bytes, most significant first, then its bytes; a NULL value is
 *	  the length 0xFFFFFFFF with no bytes.
 *
 * Conventions: functions that can fail return an int, BLOOMFILTER_OK (0)
 * or a bloomfilter_error, and bloomfilter_strerror says what was wrong in
 * a sentence.  Memory the library hands out is freed with bloomfilter_free.
 * Nothing here keeps global state; distinct objects may be used from
 * distinct threads at once, and a filter's bytes may be probed from any
 * number of threads.
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#if defined(__GNUC__)
#define BLOOMFILTER_API __attribute__((visibility("default")))
#else
#define BLOOMFILTER_API
#endif

#define BLOOMFILTER_VERSION_MAJOR	1
#define BLOOMFILTER_VERSION_MINOR	4
#define BLOOMFILTER_VERSION_PATCH	0
#define BLOOMFILTER_VERSION			"1.4.0"

/* The library's version at run time, which may differ from the header's. */
BLOOMFILTER_API const char *bloomfilter_version(void);

typedef enum bloomfilter_error
{
	BLOOMFILTER_OK = 0,
	BLOOMFILTER_ERR_ARGUMENT,		/* a NULL pointer or a negative bits_per_key */
	BLOOMFILTER_ERR_TOO_LARGE,		/* the filter or key would not fit in memory */
	BLOOMFILTER_ERR_NO_MEMORY,		/* an allocation failed */
	BLOOMFILTER_ERR_TOO_SHORT,		/* filter bytes: fewer than 2 */
	BLOOMFILTER_ERR_K_ZERO,			/* filter bytes: the final byte is 0 */
	BLOOMFILTER_ERR_K_RESERVED,		/* filter bytes: the final byte is over 30 */
	BLOOMFILTER_ERR_HEX_PREFIX,		/* text form: no leading \x */
	BLOOMFILTER_ERR_HEX_ODD,		/* text form: an odd number of digits */
	BLOOMFILTER_ERR_HEX_DIGIT,		/* text form: a character not a hex digit */
	BLOOMFILTER_ERR_GEOMETRY,		/* union/intersection: sizes or k differ */
	BLOOMFILTER_ERR_TEXT,			/* parsing: text, but not the text form */
	BLOOMFILTER_ERR_PSQL_TABLE		/* parsing: psql's table output, not -At's */
} bloomfilter_error;

/* What an error code means, as a full sentence; never NULL. */
BLOOMFILTER_API const char *bloomfilter_strerror(int error);

/* Frees memory this library returned (filters, text); NULL is fine. */
BLOOMFILTER_API void bloomfilter_free(void *memory);

/* ---- keys ---------------------------------------------------------- */

#define BLOOMFILTER_INT64_KEY_BYTES	8
#define BLOOMFILTER_UUID_KEY_BYTES	16

/* The 8 bytes of an integer key. */
BLOOMFILTER_API void bloomfilter_int64_key(int64_t value,
										   uint8_t out[BLOOMFILTER_INT64_KEY_BYTES]);

/* One value of a multi-column key; bytes == NULL is SQL's NULL. */
typedef struct bloomfilter_field
{
	const void *bytes;
	size_t		len;
} bloomfilter_field;

/*
 * The length of the multi-column key of nfields fields; 0 when it would
 * not fit in a size_t or a field is longer than 0xFFFFFFFE bytes (no key
 * of at least one field is empty).
 */
BLOOMFILTER_API size_t bloomfilter_key_size(const bloomfilter_field *fields,
											size_t nfields);

/*
 * Writes the multi-column key of nfields fields to out, which has room
 * for bloomfilter_key_size(fields, nfields) bytes; returns the bytes
 * written, 0 where bloomfilter_key_size is 0 (then nothing is written).
 */
BLOOMFILTER_API size_t bloomfilter_compose_key(const bloomfilter_field *fields,
											   size_t nfields, uint8_t *out);

/* LevelDB's hash of a key (Hash with seed 0xbc9f1d34): what probes use. */
BLOOMFILTER_API uint32_t bloomfilter_hash(const void *key, size_t len);
BLOOMFILTER_API uint32_t bloomfilter_hash_int64(int64_t value);
BLOOMFILTER_API uint32_t bloomfilter_hash_uuid(const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES]);

/* ---- building ------------------------------------------------------ */

/*
 * A filter's size depends on how many keys it holds, so a builder keeps
 * each key's 4-byte hash until bloomfilter_builder_finish sizes and sets
 * the filter, as LevelDB's CreateFilter and bloom_agg do.  Every key
 * counts, duplicates included.
 */
typedef struct bloomfilter_builder bloomfilter_builder;

/* A builder for a filter of bits_per_key (0 or more) bits a key. */
BLOOMFILTER_API int bloomfilter_builder_new(int bits_per_key,
											bloomfilter_builder **builder);
BLOOMFILTER_API int bloomfilter_builder_add(bloomfilter_builder *builder,
											const void *key, size_t len);
BLOOMFILTER_API int bloomfilter_builder_add_int64(bloomfilter_builder *builder,
												  int64_t value);
BLOOMFILTER_API int bloomfilter_builder_add_uuid(bloomfilter_builder *builder,
												 const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES]);
/* A key given by its bloomfilter_hash. */
BLOOMFILTER_API int bloomfilter_builder_add_hash(bloomfilter_builder *builder,
												 uint32_t hash);
/* Keys added so far. */
BLOOMFILTER_API uint64_t bloomfilter_builder_count(const bloomfilter_builder *builder);

/*
 * The filter of the keys added, in a new allocation of *len bytes; the
 * builder is then empty again, for another filter of the same bits_per_key.
 */
BLOOMFILTER_API int bloomfilter_builder_finish(bloomfilter_builder *builder,
											   uint8_t **filter, size_t *len);
BLOOMFILTER_API void bloomfilter_builder_free(bloomfilter_builder *builder);

/* The k LevelDB uses at bits_per_key: floor(bits_per_key * 0.69), 1..30. */
BLOOMFILTER_API unsigned bloomfilter_k_for_bits_per_key(int bits_per_key);

/* ---- reserved filters: sized first, keys added later --------------- */

/*
 * SQL's bloom_empty(expected_keys, bits_per_key): the filter CreateFilter
 * sizes for expected_keys keys, no bit set (max(64, expected_keys *
 * bits_per_key) bits rounded up to bytes, then k), in a new allocation of
 * *len bytes.  bloomfilter_bits_per_key_for_fpr turns a target rate into
 * bits_per_key.
 */
BLOOMFILTER_API int bloomfilter_empty(uint64_t expected_keys, int bits_per_key,
									  uint8_t **filter, size_t *len);

/*
 * SQL's bloom_add(filter, key), in place: sets the key's bits where
 * CreateFilter sets them in a filter of that size and k, which do not
 * change.  Adding n keys one at a time to bloomfilter_empty(n, bpk) gives
 * the bytes a builder of bpk finishes for the same n keys.  The filter
 * must validate (else its error, and nothing is written).  Past the keys a
 * filter was sized for, its false positive rate rises.  Not safe while
 * another thread reads or writes the same bytes.
 */
BLOOMFILTER_API int bloomfilter_add(uint8_t *filter, size_t len,
									const void *key, size_t keylen);
BLOOMFILTER_API int bloomfilter_add_int64(uint8_t *filter, size_t len,
										  int64_t value);
BLOOMFILTER_API int bloomfilter_add_uuid(uint8_t *filter, size_t len,
										 const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES]);
/* A key given by its bloomfilter_hash. */
BLOOMFILTER_API int bloomfilter_add_hash(uint8_t *filter, size_t len,
										 uint32_t hash);

/* ---- reading ------------------------------------------------------- */

/*
 * OK when the bytes are a filter a LevelDB writer can produce: at least 2
 * bytes, k from 1 to 30.  Check bytes from outside before storing them;
 * the probes below answer for any bytes, as KeyMayMatch does.
 */
BLOOMFILTER_API int bloomfilter_validate(const uint8_t *filter, size_t len);

/*
 * LevelDB's KeyMayMatch: false means the key was certainly not added.  On
 * bytes that do not validate: fewer than 2 bytes match nothing, a k of 0
 * or over 30 matches everything.
 */
BLOOMFILTER_API bool bloomfilter_may_contain(const uint8_t *filter, size_t len,
											 const void *key, size_t keylen);
BLOOMFILTER_API bool bloomfilter_may_contain_int64(const uint8_t *filter,
												   size_t len, int64_t value);
BLOOMFILTER_API bool bloomfilter_may_contain_uuid(const uint8_t *filter,
												  size_t len,
												  const uint8_t uuid[BLOOMFILTER_UUID_KEY_BYTES]);
BLOOMFILTER_API bool bloomfilter_may_contain_hash(const uint8_t *filter,
												  size_t len, uint32_t hash);

/*
 * Many probes of one filter: answers[i] is bloomfilter_may_contain_hash
 * of hashes[i]; returns how many are true.  The filter is read once per
 * call rather than once per key.
 */
BLOOMFILTER_API size_t bloomfilter_may_contain_hashes(const uint8_t *filter,
													  size_t len,
													  const uint32_t *hashes,
													  size_t n, bool *answers);

/*
 * The bits a key of that hash reads, in probe order, written to
 * positions (room for 30); returns how many (k), 0 for bytes that do not
 * validate.  Bit b is bit b % 8 of byte b / 8.
 */
BLOOMFILTER_API unsigned bloomfilter_probe_positions(const uint8_t *filter,
													 size_t len, uint32_t hash,
													 uint64_t positions[30]);

/* ---- combining: both filters must validate and have one geometry ---- */

/* dst |= src: dst then may contain every key either held. */
BLOOMFILTER_API int bloomfilter_union_into(uint8_t *dst, size_t dst_len,
										   const uint8_t *src, size_t src_len);
/* dst &= src: may contain the keys both held (and more). */
BLOOMFILTER_API int bloomfilter_intersect_into(uint8_t *dst, size_t dst_len,
											   const uint8_t *src, size_t src_len);

/* ---- statistics: the same figures as SQL's bloom_info ---------------- */

typedef struct bloomfilter_info
{
	uint64_t	bytes;			/* the whole filter, k byte included */
	uint64_t	bits;			/* the bit array */
	unsigned	k;				/* probes a key makes */
	uint64_t	bits_set;		/* 1 bits in the bit array */
	double		fill_ratio;		/* fraction of the reachable bits set */
	double		estimated_keys; /* distinct keys that most likely set them */
	double		false_positive_rate;	/* for a key not added */
} bloomfilter_info;

/*
 * bloom_info's figures, to the last bit: estimated_keys by replaying
 * LevelDB's probe scheme into a bit array of the filter's size, and
 * false_positive_rate by probing the filter with up to 4 million random
 * hashes (doc/statistics.md).  That costs about as much as building the
 * filter again: milliseconds for a small filter, seconds for 100 MB.
 */
BLOOMFILTER_API int bloomfilter_get_info(const uint8_t *filter, size_t len,
										 bloomfilter_info *info);

/*
 * The same figures in one pass over the bytes: bytes, bits, k, bits_set
 * and fill_ratio as bloomfilter_get_info (and bloom_info) give them, and
 * the two estimates by the ideal filter's formulas, which the planner uses
 * too: estimated_keys = -bits / k * ln(1 - fill_ratio) (+Infinity when
 * every bit is set) and false_positive_rate = fill_ratio^k.  LevelDB's
 * probes fall short of an ideal filter's, so both read low for large
 * filters: at 10 bits a key and a million keys, 14% fewer keys and a
 * third of the rate that bloomfilter_get_info measures.
 */
BLOOMFILTER_API int bloomfilter_get_info_fast(const uint8_t *filter, size_t len,
											  bloomfilter_info *info);

/* SQL's bloom_expected_fpr(bits_per_key) and bloom_bits_per_key(target). */
BLOOMFILTER_API double bloomfilter_expected_fpr(int bits_per_key);
/* -1 when no bits_per_key reaches the target; target must be in (0, 1). */
BLOOMFILTER_API int bloomfilter_bits_per_key_for_fpr(double target);

/* ---- text form: SQL's, "\x" then two hex digits a byte ---------------- */

/*
 * The text form of a filter in a new allocation: 2 + 2 * len characters
 * and a terminating NUL.
 */
BLOOMFILTER_API int bloomfilter_to_text(const uint8_t *filter, size_t len,
										char **text);

/*
 * A filter read from its raw bytes or its text form, validated, in a new
 * allocation.  The input is taken as:
 *
 *	- the text form, where it has its shape: "\x" and an even number of hex
 *	  digits (either case), then nothing but white space; the filter in it
 *	  must validate;
 *	- nothing, where it is text from end to end (printable ASCII, white
 *	  space and UTF-8) but not the text form: BLOOMFILTER_ERR_PSQL_TABLE
 *	  for psql's table output (a line "(N rows)", or a "-[ RECORD N ]"
 *	  line), which holds the text form among a header and a row count, the
 *	  text form's error where it starts with "\x", else BLOOMFILTER_ERR_TEXT;
 *	- raw bytes otherwise, which must validate.
 *
 * A filter's raw bytes are text throughout only by a rare chance: k must be
 * 9 to 13 (the white space characters; no other text byte is a k from 1 to
 * 30) and every byte of the bit array printable.  Text read as raw bytes
 * would be a filter of k 10 (a final newline) that answers at random, so it
 * is refused; a caller that knows it holds raw bytes uses
 * bloomfilter_validate instead.  Raw bytes of the text form's shape are
 * rarer still, and read as the text form.
 */
BLOOMFILTER_API int bloomfilter_parse(const uint8_t *input, size_t input_len,
									  uint8_t **filter, size_t *len);

/*
 * A filter from its text form only, validated, in a new allocation; input
 * without the leading "\x" is BLOOMFILTER_ERR_PSQL_TABLE where it is psql's
 * table output (as above), else BLOOMFILTER_ERR_HEX_PREFIX.
 */
BLOOMFILTER_API int bloomfilter_parse_text(const char *text, size_t text_len,
										   uint8_t **filter, size_t *len);

/*
 * The bytes bloomfilter_parse would read, by the same rule, without
 * validating them: for probing any bytes the way KeyMayMatch does (a tool
 * that shows what LevelDB answers for a damaged filter).  Fails for a NULL
 * argument, want of memory, and text that bloomfilter_parse refuses as
 * text (its errors above); a caller that knows it holds raw bytes uses them
 * as they are.
 */
BLOOMFILTER_API int bloomfilter_read(const uint8_t *input, size_t input_len,
									 uint8_t **bytes, size_t *len);

#ifdef __cplusplus
}
#endif

#endif							/* BLOOMFILTER_H */
