/*
 * bloom_hex.c
 *		The text form of a filter: "\x" then two hex digits a byte.
 *
 * It is bytea's hex output, so a filter pasted from either type reads the
 * same.  One linear pass checks, one decodes: input is never trusted and
 * never copied more than once.
 */
#include "bloom_core.h"

static const char hex_digits[] = "0123456789abcdef";

/* -1 for anything but a hex digit, in either case */
static inline int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t
bloom_hex_encode(const uint8_t *bytes, size_t len, char *out)
{
	size_t		i;
	char	   *p = out;

	*p++ = '\\';
	*p++ = 'x';
	for (i = 0; i < len; i++)
	{
		*p++ = hex_digits[bytes[i] >> 4];
		*p++ = hex_digits[bytes[i] & 0xf];
	}
	return (size_t) (p - out);
}

bloom_status
bloom_hex_check(const char *text, size_t textlen, size_t *decoded_len)
{
	size_t		i;

	if (textlen < 2 || text[0] != '\\' || text[1] != 'x')
		return BLOOM_ERR_HEX_PREFIX;
	for (i = 2; i < textlen; i++)
		if (hex_value((unsigned char) text[i]) < 0)
			return BLOOM_ERR_HEX_DIGIT;
	if ((textlen - 2) % 2 != 0)
		return BLOOM_ERR_HEX_ODD;
	*decoded_len = (textlen - 2) / 2;
	return BLOOM_OK;
}

void
bloom_hex_decode(const char *text, size_t textlen, uint8_t *out)
{
	size_t		i;

	for (i = 2; i + 1 < textlen; i += 2)
		*out++ = (uint8_t) ((hex_value((unsigned char) text[i]) << 4) |
							hex_value((unsigned char) text[i + 1]));
}
