/*
 * keys.c
 *		Keys as written on a line or the command line, and what the library
 *		does with each type.
 *
 * int64 and uuid keys go to the library's typed entry points rather than
 * through bytes of our own making, so that the tool cannot drift from the
 * encoding SQL uses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

bool
tool_key_type_from_name(const char *name, tool_key_type *type)
{
	static const struct
	{
		const char *name;
		tool_key_type type;
	}			names[] = {
		{"text", KEY_TEXT}, {"hex", KEY_HEX}, {"int64", KEY_INT64}, {"uuid", KEY_UUID},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, name) == 0)
		{
			*type = names[i].type;
			return true;
		}
	return false;
}

/*
 * The value of a hex digit of either case, or -1: its place among the
 * lower-case digits, the upper-case letters standing 6 places after them.
 */
static int
hex_digit(unsigned char c)
{
	static const char digits[] = "0123456789abcdefABCDEF";
	const char *at = c != '\0' ? strchr(digits, c) : NULL;

	if (at == NULL)
		return -1;
	return (int) (at - digits < 16 ? at - digits : at - digits - 6);
}

static const char *
complain(char *why, size_t whysize, const char *text, size_t len,
		 const char *what)
{
	char		q[TOOL_QUOTE_BUF];

	snprintf(why, whysize, "%s %s", tool_quote(text, len, q, sizeof(q)), what);
	return why;
}

static const char *
parse_hex(tool_key *key, const char *text, size_t len, char *why,
		  size_t whysize)
{
	const char *digits = text;
	size_t		ndigits = len;

	if (len >= 2 && text[0] == '\\' && text[1] == 'x')
	{
		digits += 2;
		ndigits -= 2;
	}
	for (size_t i = 0; i < ndigits; i++)
		if (hex_digit((unsigned char) digits[i]) < 0)
		{
			char		what[64];
			unsigned char c = (unsigned char) digits[i];

			if (c > 0x20 && c < 0x7f)
				snprintf(what, sizeof(what), "is not hex: '%c' is not a hex digit", c);
			else
				snprintf(what, sizeof(what), "is not hex: byte 0x%02x is not a hex digit", c);
			return complain(why, whysize, text, len, what);
		}
	if (ndigits % 2 != 0)
		return complain(why, whysize, text, len,
						"is not hex: it has an odd number of hex digits");

	if (key->cap < ndigits / 2)
	{
		key->cap = ndigits / 2;
		key->buf = tool_xrealloc(key->buf, key->cap);
	}
	for (size_t i = 0; i < ndigits / 2; i++)
		key->buf[i] = (uint8_t) (hex_digit((unsigned char) digits[2 * i]) << 4 |
								 hex_digit((unsigned char) digits[2 * i + 1]));
	key->bytes = key->buf;
	key->len = ndigits / 2;
	return NULL;
}

static const char *
parse_int64(tool_key *key, const char *text, size_t len, char *why,
			size_t whysize)
{
	size_t		i = 0;
	bool		negative = false;
	uint64_t	magnitude = 0;
	const uint64_t limit_pos = (uint64_t) INT64_MAX;
	const uint64_t limit_neg = (uint64_t) INT64_MAX + 1;

	/*
	 * By hand rather than strtoll: no leading spaces, no embedded NUL
	 * slipping past, and "out of range" told apart from "not a number".
	 */
	if (i < len && (text[i] == '-' || text[i] == '+'))
		negative = text[i++] == '-';
	if (i == len)
		return complain(why, whysize, text, len, "is not a 64-bit integer");
	for (; i < len; i++)
	{
		unsigned	d;

		if (text[i] < '0' || text[i] > '9')
			return complain(why, whysize, text, len, "is not a 64-bit integer");
		d = (unsigned) (text[i] - '0');
		if (magnitude > (limit_neg - d) / 10)
			magnitude = limit_neg + 1;	/* sticks as out of range */
		else
			magnitude = magnitude * 10 + d;
	}
	if (magnitude > (negative ? limit_neg : limit_pos))
		return complain(why, whysize, text, len,
						"is out of range for a 64-bit integer");
	if (negative)
		key->int64 = magnitude == limit_neg ? INT64_MIN : -(int64_t) magnitude;
	else
		key->int64 = (int64_t) magnitude;
	return NULL;
}

static const char *
parse_uuid(tool_key *key, const char *text, size_t len, char *why,
		   size_t whysize)
{
	const char *p = text;
	const char *end = text + len;
	bool		braces = false;

	/*
	 * PostgreSQL's uuid_in's rule: optional braces, 32 hex digits, and a
	 * hyphen allowed after any group of four digits but the last.  So the
	 * standard 8-4-4-4-12 form, the bare 32 digits and whatever else SQL
	 * reads as a uuid are read the same here.
	 */
	if (p < end && *p == '{')
	{
		braces = true;
		p++;
	}
	for (int i = 0; i < BLOOMFILTER_UUID_KEY_BYTES; i++)
	{
		int			hi,
					lo;

		if (end - p < 2 ||
			(hi = hex_digit((unsigned char) p[0])) < 0 ||
			(lo = hex_digit((unsigned char) p[1])) < 0)
			goto bad;
		key->uuid[i] = (uint8_t) (hi << 4 | lo);
		p += 2;
		if (p < end && *p == '-' && i % 2 == 1 && i < 15)
			p++;
	}
	if (braces)
	{
		if (p == end || *p != '}')
			goto bad;
		p++;
	}
	if (p != end)
		goto bad;
	return NULL;

bad:
	return complain(why, whysize, text, len,
					"is not a uuid (8-4-4-4-12 hex digits)");
}

const char *
tool_key_parse(tool_key *key, const char *text, size_t len, char *why,
			   size_t whysize)
{
	switch (key->type)
	{
		case KEY_TEXT:
			key->bytes = (const uint8_t *) text;
			key->len = len;
			return NULL;
		case KEY_HEX:
			return parse_hex(key, text, len, why, whysize);
		case KEY_INT64:
			return parse_int64(key, text, len, why, whysize);
		case KEY_UUID:
			return parse_uuid(key, text, len, why, whysize);
	}
	return complain(why, whysize, text, len, "has an unknown key type");
}

void
tool_key_free(tool_key *key)
{
	free(key->buf);
	key->buf = NULL;
	key->cap = 0;
}

const uint8_t *
tool_key_bytes(const tool_key *key, uint8_t *scratch, size_t *len)
{
	switch (key->type)
	{
		case KEY_INT64:
			bloomfilter_int64_key(key->int64, scratch);
			*len = BLOOMFILTER_INT64_KEY_BYTES;
			return scratch;
		case KEY_UUID:
			*len = BLOOMFILTER_UUID_KEY_BYTES;
			return key->uuid;
		case KEY_TEXT:
		case KEY_HEX:
			break;
	}
	*len = key->len;
	return key->bytes;
}

uint32_t
tool_key_hash(const tool_key *key)
{
	switch (key->type)
	{
		case KEY_INT64:
			return bloomfilter_hash_int64(key->int64);
		case KEY_UUID:
			return bloomfilter_hash_uuid(key->uuid);
		case KEY_TEXT:
		case KEY_HEX:
			break;
	}
	return bloomfilter_hash(key->bytes, key->len);
}

bool
tool_key_may_contain(const tool_key *key, const uint8_t *filter, size_t len)
{
	switch (key->type)
	{
		case KEY_INT64:
			return bloomfilter_may_contain_int64(filter, len, key->int64);
		case KEY_UUID:
			return bloomfilter_may_contain_uuid(filter, len, key->uuid);
		case KEY_TEXT:
		case KEY_HEX:
			break;
	}
	return bloomfilter_may_contain(filter, len, key->bytes, key->len);
}

int
tool_key_add(const tool_key *key, bloomfilter_builder *builder)
{
	switch (key->type)
	{
		case KEY_INT64:
			return bloomfilter_builder_add_int64(builder, key->int64);
		case KEY_UUID:
			return bloomfilter_builder_add_uuid(builder, key->uuid);
		case KEY_TEXT:
		case KEY_HEX:
			break;
	}
	return bloomfilter_builder_add(builder, key->bytes, key->len);
}
