/*
 * fuzz_library.c
 *		libFuzzer target: libbloomfilter's reading of bytes from outside
 *		(lib/bloomfilter.h), as a program hands it a file or a message.
 *
 * The input goes to bloomfilter_parse, raw or in the text form, and then
 * through what a reader does with a filter:
 *	- parse accepts valid raw bytes unless they have the text form's shape,
 *	  and reads input of that shape as text; its result always validates;
 *	- read takes the same form without validating, the same bytes where
 *	  parse accepts;
 *	- the text form of the result parses back to the same bytes;
 *	- each probe position lies in the bit array, and a key whose probes
 *	  all read set bits is the key may_contain says may be there;
 *	- info (on a sample of the inputs) counts no more bits set than there
 *	  are bits, and a filter united with itself is unchanged.
 * The reference decides validity on its own (test/lib/bloom_reference.h).
 */
#include "bloomfilter.h"
#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* bounds the share of inputs that pay for bloomfilter_get_info */
#define INFO_EVERY	256

static bool
raw_is_valid(const uint8_t *data, size_t size)
{
	return size >= 2 && data[size - 1] >= 1 && data[size - 1] <= 30;
}

/*
 * "\x", an even number of hex digits, then only whitespace: the text form,
 * of *bytes bytes.
 */
static bool
has_text_shape(const uint8_t *data, size_t size, size_t *bytes)
{
	size_t		end = size;
	size_t		i;

	if (size < 2 || data[0] != '\\' || data[1] != 'x')
		return false;
	while (end > 2 && strchr(" \t\n\r\f\v", data[end - 1]) != NULL && data[end - 1] != 0)
		end--;
	for (i = 2; i < end; i++)
		if (ref_hex_value((char) data[i]) < 0)
			return false;
	*bytes = (end - 2) / 2;
	return (end - 2) % 2 == 0;
}

/*
 * A byte that no text holds (a control character other than white space):
 * the library takes such input for raw bytes, never for text.
 */
static bool
has_control_byte(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((p[i] < 0x20 && !(p[i] >= 9 && p[i] <= 13)) || p[i] == 0x7f)
			return true;
	return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *input = fuzz_dup(data, size);
	uint8_t    *filter = NULL,
			   *again = NULL,
			   *copy;
	size_t		len = 0,
				again_len = 0;
	char	   *text = NULL;
	int			error = bloomfilter_parse(input, size, &filter, &len);
	uint64_t	positions[30];
	bloomfilter_info info;
	unsigned	k,
				j;
	uint32_t	h;
	bool		all_set = true;
	size_t		text_bytes = 0;
	bool		text_shape = has_text_shape(input, size, &text_bytes);

	bool		binary = has_control_byte(input, size);
	int			read_error;

	/* text throughout may be refused as text; anything else may not */
	if (raw_is_valid(input, size) && !text_shape && binary)
		FUZZ_CHECK(error == BLOOMFILTER_OK, "valid raw bytes refused: %d", error);
	if (error == BLOOMFILTER_ERR_TEXT || error == BLOOMFILTER_ERR_PSQL_TABLE)
		FUZZ_CHECK(!binary && !text_shape, "input refused as text is not text: %d", error);
	if (text_shape && error == BLOOMFILTER_OK)
		FUZZ_CHECK(len == text_bytes, "input of the text form's shape was not read as text");
	read_error = bloomfilter_read(input, size, &again, &again_len);
	FUZZ_CHECK(read_error == BLOOMFILTER_OK || (!binary && !text_shape),
			   "read refused input that is not text: %d", read_error);
	if (read_error != BLOOMFILTER_OK)
	{
		FUZZ_CHECK(error != BLOOMFILTER_OK, "read refused what parse took");
		FUZZ_CHECK(filter == NULL, "a refused parse returned a filter");
		free(input);
		return 0;
	}
	FUZZ_CHECK(again_len == (text_shape ? text_bytes : size), "read the wrong form");
	if (error == BLOOMFILTER_OK)
		FUZZ_CHECK(again_len == len && memcmp(again, filter, len) == 0,
				   "read and parse disagree on a valid filter");
	bloomfilter_free(again);
	again = NULL;
	again_len = 0;
	if (error != BLOOMFILTER_OK)
	{
		FUZZ_CHECK(filter == NULL, "a refused parse returned a filter");
		free(input);
		return 0;
	}
	FUZZ_CHECK(bloomfilter_validate(filter, len) == BLOOMFILTER_OK &&
			   raw_is_valid(filter, len), "parse returned bytes that do not validate");
	if (!text_shape)
		FUZZ_CHECK(len == size && memcmp(filter, input, size) == 0,
				   "raw bytes did not come back as they are");

	FUZZ_CHECK(bloomfilter_to_text(filter, len, &text) == BLOOMFILTER_OK, "to_text failed");
	FUZZ_CHECK(bloomfilter_parse((const uint8_t *) text, strlen(text), &again, &again_len) == BLOOMFILTER_OK &&
			   again_len == len && memcmp(again, filter, len) == 0,
			   "the text form does not parse back to the same bytes");

	h = bloomfilter_hash(input, size);
	k = bloomfilter_probe_positions(filter, len, h, positions);
	FUZZ_CHECK(k == filter[len - 1], "%u probes for k %u", k, filter[len - 1]);
	for (j = 0; j < k; j++)
	{
		FUZZ_CHECK(positions[j] < (uint64_t) (len - 1) * 8, "probe %u past the bit array", j);
		all_set &= (filter[positions[j] / 8] >> (positions[j] % 8)) & 1;
	}
	FUZZ_CHECK(all_set == bloomfilter_may_contain_hash(filter, len, h),
			   "may_contain disagrees with the probe positions' bits");

	/*
	 * info measures the false-positive rate with millions of probes: on one
	 * input in INFO_EVERY, or the run would do little else.
	 */
	if (h % INFO_EVERY == 0)
		FUZZ_CHECK(bloomfilter_get_info(filter, len, &info) == BLOOMFILTER_OK &&
				   info.bits_set <= info.bits && info.bytes == len && info.k == k &&
				   info.false_positive_rate >= 0 && info.false_positive_rate <= 1,
				   "info out of range");
	{
		/* one pass: bloomfilter_get_info's counts, and estimates in range */
		bloomfilter_info fast;

		FUZZ_CHECK(bloomfilter_get_info_fast(filter, len, &fast) == BLOOMFILTER_OK &&
				   fast.bytes == len && fast.k == k &&
				   fast.bits == (uint64_t) (len - 1) * 8 && fast.bits_set <= fast.bits &&
				   fast.false_positive_rate >= 0 && fast.false_positive_rate <= 1 &&
				   fast.estimated_keys >= 0, "fast info out of range");
		if (h % INFO_EVERY == 0)
			FUZZ_CHECK(fast.bits_set == info.bits_set && fast.fill_ratio == info.fill_ratio,
					   "fast info's counts differ from info's");
	}
	copy = fuzz_dup(filter, len);
	FUZZ_CHECK(bloomfilter_union_into(copy, len, filter, len) == BLOOMFILTER_OK &&
			   memcmp(copy, filter, len) == 0, "a filter united with itself changed");

	free(copy);
	bloomfilter_free(text);
	bloomfilter_free(again);
	bloomfilter_free(filter);
	free(input);
	return 0;
}
