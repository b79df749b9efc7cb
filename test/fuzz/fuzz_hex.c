/*
 * fuzz_hex.c
 *		libFuzzer target: the "\x" hex text form of a filter.
 *
 * The input is used twice:
 *	- as text (not NUL-terminated, exactly its size): bloom_hex_decode must
 *	  give the status a plain reading of the rules gives (prefix, then
 *	  digits, then an even count), stay within bloom_hex_decoded_max bytes,
 *	  and on success give the right length and the bytes of a reference
 *	  decode; encoding them again must give the input with its digits in
 *	  lowercase;
 *	- as bytes: encode and decode must give them back.
 * Every buffer is exactly the size the API promises, so that a write or
 * read past it is an AddressSanitizer report.
 */
#include "fuzz_common.h"

static bloom_status
ref_check(const char *t, size_t n)
{
	if (n < 2 || t[0] != '\\' || t[1] != 'x')
		return BLOOM_ERR_HEX_PREFIX;
	for (size_t i = 2; i < n; i++)
		if (ref_hex_value(t[i]) < 0)
			return BLOOM_ERR_HEX_DIGIT;
	if (n % 2 != 0)
		return BLOOM_ERR_HEX_ODD;
	return BLOOM_OK;
}

static char
lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char) (c - 'A' + 'a') : c;
}

/* decode text as bytes */
static void
text_case(const uint8_t *data, size_t size)
{
	char	   *text = (char *) fuzz_dup(data, size);
	size_t		dlen = (size_t) -1;
	uint8_t    *out = fuzz_alloc(bloom_hex_decoded_max(size));
	bloom_status st = bloom_hex_decode(text, size, out, &dlen);
	char	   *again;
	size_t		n;

	FUZZ_CHECK(st == ref_check(text, size), "bloom_hex_decode says %d, reference %d",
			   (int) st, (int) ref_check(text, size));
	if (st != BLOOM_OK)
	{
		free(out);
		free(text);
		return;
	}
	FUZZ_CHECK(dlen == (size - 2) / 2, "decoded length %zu for %zu characters",
			   dlen, size);
	for (size_t i = 0; i < dlen; i++)
	{
		int			want = ref_hex_value(text[2 + 2 * i]) * 16 +
			ref_hex_value(text[3 + 2 * i]);

		FUZZ_CHECK(out[i] == want, "byte %zu decoded as %02x, expected %02x",
				   i, out[i], want);
	}

	FUZZ_CHECK(bloom_hex_encoded_len(dlen) == size, "encoded length %zu, text %zu",
			   bloom_hex_encoded_len(dlen), size);
	again = (char *) fuzz_alloc(bloom_hex_encoded_len(dlen));
	n = bloom_hex_encode(out, dlen, again);
	FUZZ_CHECK(n == size, "encode wrote %zu characters, expected %zu", n, size);
	for (size_t i = 0; i < size; i++)
		FUZZ_CHECK(again[i] == lower(text[i]),
				   "character %zu re-encoded as %c from %c", i, again[i], text[i]);

	free(again);
	free(out);
	free(text);
}

/* encode bytes as text, then back */
static void
bytes_case(const uint8_t *data, size_t size)
{
	size_t		tlen = bloom_hex_encoded_len(size);
	char	   *text = (char *) fuzz_alloc(tlen);
	size_t		n = bloom_hex_encode(data, size, text);
	size_t		dlen = (size_t) -1;
	uint8_t    *out;

	FUZZ_CHECK(n == tlen, "encode wrote %zu characters, expected %zu", n, tlen);
	for (size_t i = 2; i < n; i++)
		FUZZ_CHECK((text[i] >= '0' && text[i] <= '9') ||
				   (text[i] >= 'a' && text[i] <= 'f'),
				   "encode wrote %c, not a lowercase hex digit", text[i]);
	out = fuzz_alloc(size);
	FUZZ_CHECK(bloom_hex_decode(text, n, out, &dlen) == BLOOM_OK && dlen == size,
			   "encoded text of %zu bytes not accepted (decoded length %zu)",
			   size, dlen);
	FUZZ_CHECK(size == 0 || memcmp(out, data, size) == 0,
			   "round trip of %zu bytes changed them", size);
	free(out);
	free(text);
}

FUZZ_TARGET_OF(text_case, bytes_case)
