/*
 * bloom_hex.c
 *		The text form of a filter: "\x" then two hex digits a byte.
 *
 * It is bytea's hex output, so a filter pasted from either type reads the
 * same.  This is what crosses postgres_fdw as a parameter (tens of MB for a
 * big filter), so both directions work from tables: output writes a byte's
 * two digits with one copy, and input decodes and checks in the same single
 * pass, remembering in one accumulator whether any character was not a hex
 * digit.  Input is never trusted and never copied more than once.
 *
 * Where SSE2 is at hand (every x86-64 CPU has it), both directions take
 * 16 bytes (32 digits) a step in vector registers, three to four times the
 * tables' speed, since postgres_fdw writes and reads a filter's text once
 * per remote query.  The tables do the rest of a text, and all of it on
 * other CPUs; both give the same text and the same answers.
 */
#include "bloom_core.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define BLOOM_HEX_SSE2 1
#endif

/* The two lowercase digits of every byte value, back to back. */
static const char hex_pairs[512 + 1] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/*
 * The value of a hex digit (either case), or HEX_BAD for any other
 * character: OR-ing the lookups of a whole text leaves HEX_BAD set exactly
 * when some character was not a digit.
 */
#define HEX_BAD 0x80
static const uint8_t hex_values[256] = {
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

#ifdef BLOOM_HEX_SSE2
/* Nibbles (0 to 15, one a byte) to their lowercase digits. */
static inline __m128i
nibble_digits(__m128i n)
{
	__m128i		letter = _mm_cmpgt_epi8(n, _mm_set1_epi8(9));

	/* '0' + n, and 'a' - '0' - 10 more for a letter */
	return _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8('0')),
						_mm_and_si128(letter, _mm_set1_epi8('a' - '0' - 10)));
}

/* Encodes len bytes, a multiple of 16, into 2 * len digits. */
static void
encode_blocks(const uint8_t *bytes, size_t len, char *out)
{
	const __m128i low4 = _mm_set1_epi8(0x0f);
	size_t		i;

	for (i = 0; i < len; i += 16, out += 32)
	{
		__m128i		in = _mm_loadu_si128((const __m128i *) (bytes + i));
		__m128i		hi = nibble_digits(_mm_and_si128(_mm_srli_epi16(in, 4), low4));
		__m128i		lo = nibble_digits(_mm_and_si128(in, low4));

		/* each byte's high digit, then its low one */
		_mm_storeu_si128((__m128i *) out, _mm_unpacklo_epi8(hi, lo));
		_mm_storeu_si128((__m128i *) (out + 16), _mm_unpackhi_epi8(hi, lo));
	}
}

/*
 * 16 characters to their values, one a byte; *ok keeps 0xff in the bytes
 * whose characters, in this block and every one before, were hex digits.
 */
static inline __m128i
digit_values(__m128i c, __m128i *ok)
{
	/* c - '0' and (c | 0x20) - 'a', unsigned: digits at most 9 and 5 */
	__m128i		d = _mm_sub_epi8(c, _mm_set1_epi8('0'));
	__m128i		l = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
	__m128i		is_d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
	__m128i		is_l = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);

	*ok = _mm_and_si128(*ok, _mm_or_si128(is_d, is_l));
	return _mm_or_si128(_mm_and_si128(is_d, d),
						_mm_and_si128(is_l, _mm_add_epi8(l, _mm_set1_epi8(10))));
}

/* Two digits' values, a 16-bit lane, to their byte in the lane's low half. */
static inline __m128i
digit_pairs(__m128i v)
{
	/* the first digit is the low byte of the lane (x86 is little-endian) */
	return _mm_and_si128(_mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)),
						 _mm_set1_epi16(0x00ff));
}

/*
 * Decodes ndigits digits, a multiple of 32, into ndigits / 2 bytes; false
 * when some character was not a hex digit (out then holds anything).
 */
static bool
decode_blocks(const unsigned char *t, size_t ndigits, uint8_t *out)
{
	__m128i		ok = _mm_set1_epi8((char) 0xff);
	size_t		i;

	for (i = 0; i < ndigits; i += 32, out += 16)
	{
		__m128i		a = digit_values(_mm_loadu_si128((const __m128i *) (t + i)), &ok);
		__m128i		b = digit_values(_mm_loadu_si128((const __m128i *) (t + i + 16)), &ok);

		_mm_storeu_si128((__m128i *) out, _mm_packus_epi16(digit_pairs(a), digit_pairs(b)));
	}
	return _mm_movemask_epi8(ok) == 0xffff;
}
#endif

size_t
bloom_hex_encode(const uint8_t *bytes, size_t len, char *out)
{
	size_t		i = 0;
	char	   *p = out;

	*p++ = '\\';
	*p++ = 'x';
#ifdef BLOOM_HEX_SSE2
	i = len - len % 16;
	encode_blocks(bytes, i, p);
	p += 2 * i;
#endif
	for (; i < len; i++, p += 2)
		memcpy(p, hex_pairs + 2 * bytes[i], 2);
	return (size_t) (p - out);
}

bloom_status
bloom_hex_decode(const char *text, size_t textlen, uint8_t *out,
				 size_t *decoded_len)
{
	const unsigned char *t = (const unsigned char *) text;
	size_t		ndigits,
				i;
	uint8_t		bad = 0;

	if (textlen < 2 || t[0] != '\\' || t[1] != 'x')
		return BLOOM_ERR_HEX_PREFIX;
	t += 2;
	ndigits = textlen - 2;
	i = 0;
#ifdef BLOOM_HEX_SSE2
	i = ndigits - ndigits % 32;
	if (!decode_blocks(t, i, out))
		bad = HEX_BAD;
	out += i / 2;
#endif
	for (; i + 1 < ndigits; i += 2)
	{
		uint8_t		hi = hex_values[t[i]],
					lo = hex_values[t[i + 1]];

		bad |= hi | lo;
		*out++ = (uint8_t) ((hi << 4) | (lo & 0x0f));
	}
	if (ndigits % 2 != 0)
		bad |= hex_values[t[ndigits - 1]];
	/* a stray character says more than a missing digit: reported first */
	if (bad & HEX_BAD)
		return BLOOM_ERR_HEX_DIGIT;
	if (ndigits % 2 != 0)
		return BLOOM_ERR_HEX_ODD;
	*decoded_len = ndigits / 2;
	return BLOOM_OK;
}
