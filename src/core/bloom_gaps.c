/*
 * bloom_gaps.c
 *		Rice-coded gaps of a sorted set of distinct 32-bit hashes (layout
 *		in bloom_gaps.h).
 *
 * Both directions move whole 64-bit words: the encoder collects bits in an
 * accumulator and stores it 8 bytes at a time, the decoder finds each unary
 * run's end with one count-trailing-zeros.  Words are assembled from bytes
 * explicitly, so the code is the same on big- and little-endian machines.
 */
#include "bloom_gaps.h"

#include <string.h>

unsigned
bloom_gaps_rice_param(uint64_t n)
{
	/*
	 * The best Rice parameter for geometric gaps of mean m is about
	 * log2(m ln 2); here m = 2^32 / n, so r = 32 - ceil(log2(n / ln 2)),
	 * computed on integers: the largest r with n * 2^r * 0.6931 <= 2^32.
	 */
	unsigned	r = 31;

	if (n <= 1)
		return 31;
	while (r > 0 && (double) n * (double) ((uint64_t) 1 << r) * 0.6931471805599453 >
		   4294967296.0)
		r--;
	return r;
}

uint64_t
bloom_gaps_max_bytes(uint64_t n, unsigned r)
{
	if (n > UINT64_C(1) << 32 || r > 31)
		return 0;
	return (n * (r + 1) + (UINT64_C(1) << 32 >> r) + 7) / 8 + 8;
}

/* ---- encoding ---------------------------------------------------------- */

typedef struct bit_writer
{
	uint8_t    *out;
	size_t		pos;			/* bytes stored */
	uint64_t	acc;			/* pending bits, from bit 0 up */
	unsigned	nacc;			/* how many, < 64 */
} bit_writer;

static inline void
store_le64(uint8_t *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t) v;
}

/* Append the low nbits (<= 32) bits of v. */
static inline void
put_bits(bit_writer *w, uint64_t v, unsigned nbits)
{
	w->acc |= v << w->nacc;
	w->nacc += nbits;
	if (w->nacc >= 64)
	{
		store_le64(w->out + w->pos, w->acc);
		w->pos += 8;
		w->nacc -= 64;
		/* the bits of v that did not fit */
		w->acc = w->nacc ? v >> (nbits - w->nacc) : 0;
	}
}

/* Append q zero bits and a one bit. */
static inline void
put_unary(bit_writer *w, uint64_t q)
{
	while (q >= 32)
	{
		put_bits(w, 0, 32);
		q -= 32;
	}
	put_bits(w, (uint64_t) 1 << q, (unsigned) q + 1);
}

size_t
bloom_gaps_encode(const uint32_t *hashes, uint64_t n, unsigned r, uint8_t *out)
{
	bit_writer	w = {out, 0, 0, 0};
	uint64_t	prev_plus_one = 0;	/* h_(i-1) + 1, 0 before the first */
	uint64_t	i;
	uint64_t	low_mask = ((uint64_t) 1 << r) - 1;

	for (i = 0; i < n; i++)
	{
		uint64_t	gap = (uint64_t) hashes[i] - prev_plus_one;

		put_unary(&w, gap >> r);
		if (r > 0)
			put_bits(&w, gap & low_mask, r);
		prev_plus_one = (uint64_t) hashes[i] + 1;
	}
	/* the partial word, in as many bytes as it needs */
	while (w.nacc > 0)
	{
		out[w.pos++] = (uint8_t) w.acc;
		w.acc >>= 8;
		w.nacc = w.nacc > 8 ? w.nacc - 8 : 0;
	}
	return w.pos;
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct bit_reader
{
	const uint8_t *code;
	size_t		len;
	uint64_t	bitpos;			/* next bit to read */
	uint64_t	nbits;			/* 8 * len */
} bit_reader;

/* 8 bytes as a little-endian word, at any alignment, on any machine */
static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The 64 bits from bit bitpos on (bits past the end read as 0). */
static inline uint64_t
peek64(const bit_reader *rd)
{
	size_t		byte = (size_t) (rd->bitpos >> 3);
	unsigned	shift = (unsigned) (rd->bitpos & 7);
	uint64_t	v = 0;
	int			i;

	if (byte + 9 <= rd->len)
	{
		v = load_le64(rd->code + byte);
		if (shift)
			v = (v >> shift) | ((uint64_t) rd->code[byte + 8] << (64 - shift));
		return v;
	}
	for (i = 8; i >= 0; i--)
	{
		uint64_t	b = byte + i < rd->len ? rd->code[byte + i] : 0;

		if (i == 8)
			v = shift ? b << (64 - shift) : 0;
		else
			v |= (b << (8 * i)) >> shift;
	}
	return v;
}

bloom_status
bloom_gaps_decode(const uint8_t *code, size_t len, uint64_t n, unsigned r,
				  uint32_t *out)
{
	bit_reader	rd = {code, len, 0, (uint64_t) len * 8};
	uint64_t	next = 0;		/* the smallest value the next hash may take */
	uint64_t	low_mask = ((uint64_t) 1 << r) - 1;
	uint64_t	i;

	if (r > 31)
		return BLOOM_ERR_GAPS_CODE;
	for (i = 0; i < n; i++)
	{
		uint64_t	q = 0,
					word,
					gap;

		/* the unary part: count 0 bits up to the next 1 */
		for (;;)
		{
			if (rd.bitpos >= rd.nbits)
				return BLOOM_ERR_GAPS_CODE;
			word = peek64(&rd);
			if (word != 0)
				break;
			q += 64;
			rd.bitpos += 64;
			if (q > (UINT64_C(1) << 32))
				return BLOOM_ERR_GAPS_CODE;
		}
		{
			unsigned	zeros = (unsigned) __builtin_ctzll(word);

			q += zeros;
			rd.bitpos += zeros + 1;
			if (rd.bitpos + r > rd.nbits || q > (UINT64_C(1) << 32))
				return BLOOM_ERR_GAPS_CODE;
			/* the low bits, from the same word when they are all in it */
			if (r == 0)
				gap = q;
			else if (zeros + 1 + r <= 64)
				gap = (q << r) | ((word >> zeros >> 1) & low_mask);
			else
				gap = (q << r) | (peek64(&rd) & low_mask);
		}
		rd.bitpos += r;
		/* next <= 2^32 and gap < 2^63: the sum cannot wrap */
		if (next + gap > UINT64_C(0xffffffff))
			return BLOOM_ERR_GAPS_CODE;
		out[i] = (uint32_t) (next + gap);
		next = next + gap + 1;
	}

	/*
	 * Canonical: the code ends in the byte holding its last bit, and the
	 * rest of that byte is 0.
	 */
	if ((rd.bitpos + 7) / 8 != len)
		return BLOOM_ERR_GAPS_CODE;
	if ((rd.bitpos & 7) != 0 && (code[len - 1] >> (rd.bitpos & 7)) != 0)
		return BLOOM_ERR_GAPS_CODE;
	return BLOOM_OK;
}
