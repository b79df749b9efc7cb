/*
 * test_hex.c
 *		Unit tests of the core: the text form.
 */
#include "unit.h"

static void
expect_hex_status(const char *text, size_t len, bloom_status want,
				  const char *what)
{
	size_t		decoded;
	uint8_t    *buf = malloc(bloom_hex_decoded_max(len) + 1);

	expect_status(bloom_hex_decode(text, len, buf, &decoded), want, "%s", what);
	free(buf);
}

void
test_hex(void)
{
	uint8_t		bytes[300],
				back[300];
	char		text[2 + 2 * 300 + 1];
	size_t		len,
				n,
				decoded,
				i;
	int			round;
	bloom_status st;

	group_begin("hex text form");

	test_begin("encode and decode round trip, lowercase output");
	for (round = 0; round < 300; round++)
	{
		len = round < 20 ? (size_t) round : rng_next() % sizeof(bytes);
		rng_bytes(bytes, len);
		n = bloom_hex_encode(bytes, len, text);
		if (!check(n == bloom_hex_encoded_len(len) && n == 2 + 2 * len,
				   "len %zu: encoded to %zu characters", len, n))
			continue;
		check(text[0] == '\\' && text[1] == 'x', "len %zu: prefix", len);
		for (i = 2; i < n; i++)
			check((text[i] >= '0' && text[i] <= '9') ||
				  (text[i] >= 'a' && text[i] <= 'f'),
				  "len %zu: character %zu is '%c'", len, i, text[i]);
		for (i = 0; i < len; i++)
		{
			static const char digits[] = "0123456789abcdef";

			check(text[2 + 2 * i] == digits[bytes[i] >> 4] &&
				  text[3 + 2 * i] == digits[bytes[i] & 15],
				  "len %zu: byte %zu (%02x) encoded as %.2s", len, i,
				  bytes[i], text + 2 + 2 * i);
		}
		memset(back, 0xa5, sizeof(back));
		st = bloom_hex_decode(text, n, back, &decoded);
		if (!check(st == BLOOM_OK && decoded == len, "len %zu: decode %s, %zu",
				   len, status_name(st), decoded))
			continue;
		check(memcmp(back, bytes, len) == 0, "len %zu: decoded differently",
			  len);
		check(len == sizeof(back) || back[len] == 0xa5,
			  "len %zu: decode wrote past the end", len);
	}
	test_end();

	test_begin("upper-case digits are accepted");
	for (i = 0; i < 256; i++)
		bytes[i] = (uint8_t) i;
	n = bloom_hex_encode(bytes, 256, text);
	for (i = 2; i < n; i++)
		if (text[i] >= 'a' && text[i] <= 'f')
			text[i] = (char) (text[i] - 'a' + 'A');
	st = bloom_hex_decode(text, n, back, &decoded);
	if (check(st == BLOOM_OK && decoded == 256, "decode: %s", status_name(st)))
		check(memcmp(back, bytes, 256) == 0, "decoded differently");
	test_end();

	test_begin("every character: accepted exactly when a hex digit");
	for (i = 0; i < 256; i++)
	{
		char		t[4] = {'\\', 'x', '0', (char) i};
		bool		digit = (i >= '0' && i <= '9') || (i >= 'a' && i <= 'f') ||
			(i >= 'A' && i <= 'F');

		st = bloom_hex_decode(t, 4, back, &decoded);
		check(st == (digit ? BLOOM_OK : BLOOM_ERR_HEX_DIGIT),
			  "character 0x%02zx: %s", i, status_name(st));
		t[2] = t[3];
		t[3] = '0';
		st = bloom_hex_decode(t, 4, back, &decoded);
		check(st == (digit ? BLOOM_OK : BLOOM_ERR_HEX_DIGIT),
			  "character 0x%02zx as high digit: %s", i, status_name(st));
	}
	test_end();

	/*
	 * Texts are decoded 32 digits a step where the CPU allows, the rest one
	 * digit pair at a time: every length and every position of a character
	 * must give the answers of the byte-at-a-time code.
	 */
	test_begin("every length up to 100 bytes: round trip, read within the text");
	for (len = 0; len <= 100; len++)
	{
		char	   *exact;

		rng_bytes(bytes, len);
		n = bloom_hex_encode(bytes, len, text);
		/* a copy of exactly n characters: a read past it is caught by ASan */
		exact = malloc(n);
		memcpy(exact, text, n);
		memset(back, 0xa5, sizeof(back));
		st = bloom_hex_decode(exact, n, back, &decoded);
		if (check(st == BLOOM_OK && decoded == len, "len %zu: decode %s, %zu",
				  len, status_name(st), decoded))
			check(memcmp(back, bytes, len) == 0 && back[len] == 0xa5,
				  "len %zu: decoded differently, or past the end", len);
		/* the last digit missing: odd, whatever block it ends in */
		if (len > 0)
			check(bloom_hex_decode(exact, n - 1, back, &decoded) == BLOOM_ERR_HEX_ODD,
				  "len %zu: %zu characters are odd", len, n - 1);
		free(exact);
	}
	test_end();

	test_begin("every character at every position of 35 bytes' digits");
	for (len = 0; len < 35; len++)
		bytes[len] = (uint8_t) (len * 37 + 11);
	n = bloom_hex_encode(bytes, 35, text);
	for (size_t pos = 2; pos < n; pos++)
	{
		char		saved = text[pos];
		int			failures = 0;

		for (i = 0; i < 256; i++)
		{
			bool		digit = (i >= '0' && i <= '9') || (i >= 'a' && i <= 'f') ||
				(i >= 'A' && i <= 'F');
			unsigned	value = i <= '9' ? i - '0' : (i | 0x20) - 'a' + 10;
			size_t		byte = (pos - 2) / 2;
			bool		high = (pos - 2) % 2 == 0;

			text[pos] = (char) i;
			st = bloom_hex_decode(text, n, back, &decoded);
			if (st != (digit ? BLOOM_OK : BLOOM_ERR_HEX_DIGIT))
				failures++;
			else if (digit &&
					 (back[byte] != (high ? (value << 4) | (bytes[byte] & 15)
									 : (bytes[byte] & 0xf0) | value) ||
					  memcmp(back, bytes, byte) != 0 ||
					  memcmp(back + byte + 1, bytes + byte + 1, 34 - byte) != 0))
				failures++;
			/* with one digit more, the text is odd: a stray one still wins */
			text[n] = '0';
			st = bloom_hex_decode(text, n + 1, back, &decoded);
			if (st != (digit ? BLOOM_ERR_HEX_ODD : BLOOM_ERR_HEX_DIGIT))
				failures++;
		}
		text[pos] = saved;
		check(failures == 0, "position %zu: %d of 768 answers wrong", pos, failures);
	}
	test_end();

	test_begin("empty payload \\x decodes to 0 bytes");
	decoded = 99;
	memset(back, 0xa5, 4);
	st = bloom_hex_decode("\\x", 2, back, &decoded);
	check(st == BLOOM_OK && decoded == 0, "%s, %zu bytes", status_name(st),
		  decoded);
	check(back[0] == 0xa5, "decode wrote a byte");
	test_end();

	test_begin("only textlen characters are read");
	st = bloom_hex_decode("\\x00ffzz", 4, back, &decoded);
	check(st == BLOOM_OK && decoded == 1, "%s, %zu bytes", status_name(st),
		  decoded);
	test_end();

	expect_hex_status("", 0, BLOOM_ERR_HEX_PREFIX, "empty text");
	expect_hex_status("\\", 1, BLOOM_ERR_HEX_PREFIX, "lone backslash");
	expect_hex_status("x00", 3, BLOOM_ERR_HEX_PREFIX, "missing backslash");
	expect_hex_status("00ff", 4, BLOOM_ERR_HEX_PREFIX, "no prefix");
	expect_hex_status("\\X00", 4, BLOOM_ERR_HEX_PREFIX, "upper-case \\X");
	expect_hex_status("/x00", 4, BLOOM_ERR_HEX_PREFIX, "slash for backslash");
	expect_hex_status("\\\\x00", 5, BLOOM_ERR_HEX_PREFIX, "doubled backslash");
	expect_hex_status("\\x0", 3, BLOOM_ERR_HEX_ODD, "one digit");
	expect_hex_status("\\x123", 5, BLOOM_ERR_HEX_ODD, "three digits");
	expect_hex_status("\\x0g", 4, BLOOM_ERR_HEX_DIGIT, "g");
	expect_hex_status("\\x 00", 5, BLOOM_ERR_HEX_DIGIT, "space");
	expect_hex_status("\\x00\n", 5, BLOOM_ERR_HEX_DIGIT, "trailing newline");
	expect_hex_status("\\x0\0", 4, BLOOM_ERR_HEX_DIGIT, "embedded NUL");
	expect_hex_status("\\x\xc3\xa4", 4, BLOOM_ERR_HEX_DIGIT, "non-ASCII");

	group_end();
}
