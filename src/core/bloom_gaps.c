/*
 * bloom_gaps.c
 *		Rice-coded gaps of a sorted set of distinct 32-bit hashes (layout
 *		in bloom_gaps.h).
 *
 * Both directions move whole 64-bit words, with as few branches as a hash
 * allows: the encoder puts a hash's bits into an accumulator at once and
 * stores all of it every time, the decoder tops up a 64-bit buffer a word
 * at a time and finds each unary run's end with one count-trailing-zeros.
 * Words are stored and loaded little-endian (byte-swapped on big-endian
 * machines), so the code is the same everywhere.
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

typedef bloom_gaps_writer bit_writer;

static inline void
store_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, sizeof(v));
}

/*
 * Append the low nbits (<= 56) bits of v.  The writer keeps fewer than 8
 * bits pending: each call stores the whole accumulator, without a branch,
 * and moves on by the bytes it completed (the bytes past them are stored
 * again by the next call, or by finish).
 */
static inline void
put_bits(bit_writer *w, uint64_t v, unsigned nbits)
{
	w->acc |= v << w->nacc;
	w->nacc += nbits;
	store_le64(w->out + w->pos, w->acc);
	w->pos += w->nacc >> 3;
	w->acc >>= w->nacc & ~7u;
	w->nacc &= 7;
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

void
bloom_gaps_writer_init(bloom_gaps_writer *w, uint8_t *out, unsigned r,
					   uint64_t prev_plus_one, unsigned lead_bits)
{
	w->out = out;
	w->pos = 0;
	w->acc = 0;
	w->nacc = lead_bits;
	w->r = r;
	w->prev_plus_one = prev_plus_one;
}

void
bloom_gaps_writer_put(bloom_gaps_writer *w, const uint32_t *hashes, uint64_t n)
{
	uint64_t	low_mask = ((uint64_t) 1 << w->r) - 1;
	unsigned	r = w->r;
	uint64_t	prev_plus_one = w->prev_plus_one;

	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	gap = (uint64_t) hashes[i] - prev_plus_one;
		uint64_t	q = gap >> r;

		if (q + 1 + r <= 56)
			/* the unary run, its stop bit and the low bits at once */
			put_bits(w, ((gap & low_mask) << (q + 1)) | ((uint64_t) 1 << q),
					 (unsigned) (q + 1 + r));
		else
		{
			put_unary(w, q);
			if (r > 0)
				put_bits(w, gap & low_mask, r);
		}
		prev_plus_one = (uint64_t) hashes[i] + 1;
	}
	w->prev_plus_one = prev_plus_one;
}

size_t
bloom_gaps_writer_finish(bloom_gaps_writer *w)
{
	/* the partial byte */
	if (w->nacc > 0)
	{
		w->out[w->pos++] = (uint8_t) w->acc;
		w->acc = 0;
		w->nacc = 0;
	}
	return w->pos;
}

void
bloom_gaps_writer_move(bloom_gaps_writer *w, uint8_t *out)
{
	w->out = out;
	w->pos = 0;
}

uint64_t
bloom_gaps_code_bits(const uint32_t *hashes, uint64_t n, unsigned r,
					 uint64_t *prev_plus_one)
{
	uint64_t	bits = n * (r + 1);
	uint64_t	prev = *prev_plus_one;

	for (uint64_t i = 0; i < n; i++)
	{
		bits += ((uint64_t) hashes[i] - prev) >> r;
		prev = (uint64_t) hashes[i] + 1;
	}
	*prev_plus_one = prev;
	return bits;
}

size_t
bloom_gaps_encode(const uint32_t *hashes, uint64_t n, unsigned r, uint8_t *out)
{
	bloom_gaps_writer w;

	bloom_gaps_writer_init(&w, out, r, 0, 0);
	bloom_gaps_writer_put(&w, hashes, n);
	return bloom_gaps_writer_finish(&w);
}

/* ---- decoding ---------------------------------------------------------- */

/* 8 bytes of the code as a little-endian word. */
static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t	w;

	memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/*
 * The reader's bits not yet used, from bit 0 up, topped up a byte at a
 * time from the code: at most 64, never a bit past the code's end.  A
 * part's decoding works on a copy of them in locals.
 */
typedef struct bit_reader
{
	const uint8_t *code;
	size_t		len;
	size_t		pos;			/* next byte to load */
	uint64_t	buf;
	unsigned	avail;			/* bits in buf */
} bit_reader;

/* Top the buffer up to more than 56 bits, or to the end of the code. */
static inline void
refill(bit_reader *rd)
{
	if (rd->pos + 8 <= rd->len && rd->avail <= 56)
	{
		/* a whole word, of which the bytes that fit */
		uint64_t	w = load_le64(rd->code + rd->pos);
		unsigned	take = (64 - rd->avail) / 8;

		if (take < 8)
			w &= ((uint64_t) 1 << (8 * take)) - 1;
		rd->buf |= w << rd->avail;
		rd->avail += 8 * take;
		rd->pos += take;
		return;
	}
	while (rd->avail <= 56 && rd->pos < rd->len)
	{
		rd->buf |= (uint64_t) rd->code[rd->pos++] << rd->avail;
		rd->avail += 8;
	}
}

/*
 * Decode the reader's next n hashes into out.
 *
 * While a whole word of the code is left to load, the buffer is topped up
 * without a branch to 56..63 bits (the bits above those are the code's next
 * ones, and a later top-up ORs the same bits in again), and a hash whose
 * unary run, stop bit and low bits are all among them is taken at once:
 * every hash but the ones with unary runs longer than 55 - r bits, and the
 * last few.  Any other goes the careful way below, which checks each step.
 */
bloom_status
bloom_gaps_reader_take(bloom_gaps_reader *reader, uint64_t n, uint32_t *out)
{
	bit_reader	rd = {reader->code, reader->len, reader->pos, reader->buf,
	reader->avail};
	uint64_t	next = reader->next;
	unsigned	r = reader->r;
	uint64_t	low_mask = ((uint64_t) 1 << r) - 1;
	uint64_t	i = 0;

	if (r > 31)
		return BLOOM_ERR_GAPS_CODE;
	while (i < n)
	{
		uint64_t	q = 0,
					gap;
		unsigned	zeros;

		if (rd.pos + 8 <= rd.len)
		{
			uint64_t	from = i;

			rd.buf |= load_le64(rd.code + rd.pos) << rd.avail;
			rd.pos += (63 - rd.avail) >> 3;
			rd.avail |= 56;
			while (i < n && rd.buf != 0)
			{
				unsigned	used;

				zeros = (unsigned) __builtin_ctzll(rd.buf);
				used = zeros + 1 + r;
				if (used > rd.avail)
					break;
				/* used <= 63: both shifts are defined */
				gap = ((uint64_t) zeros << r) | ((rd.buf >> (zeros + 1)) & low_mask);
				rd.buf >>= used;
				rd.avail -= used;
				if (next + gap > UINT64_C(0xffffffff))
					return BLOOM_ERR_GAPS_CODE;
				out[i++] = (uint32_t) (next + gap);
				next = next + gap + 1;
			}
			/* the careful way, and the end's checks, want no bits above avail */
			rd.buf &= ((uint64_t) 1 << rd.avail) - 1;
			if (i > from || i == n)
				continue;
		}

		/* the unary part: count 0 bits up to the next 1 */
		refill(&rd);
		while (rd.buf == 0)
		{
			if (rd.avail == 0)
				return BLOOM_ERR_GAPS_CODE;
			q += rd.avail;
			rd.avail = 0;
			if (q > (UINT64_C(1) << 32))
				return BLOOM_ERR_GAPS_CODE;
			refill(&rd);
		}
		zeros = (unsigned) __builtin_ctzll(rd.buf);
		q += zeros;
		if (q > (UINT64_C(1) << 32))
			return BLOOM_ERR_GAPS_CODE;
		rd.buf = zeros + 1 < 64 ? rd.buf >> (zeros + 1) : 0;
		rd.avail -= zeros + 1;

		/* the low bits */
		if (rd.avail < r)
		{
			refill(&rd);
			if (rd.avail < r)
				return BLOOM_ERR_GAPS_CODE;
		}
		gap = (q << r) | (rd.buf & low_mask);
		rd.buf = r < 64 ? rd.buf >> r : 0;
		rd.avail -= r;

		/* next <= 2^32 and gap < 2^63: the sum cannot wrap */
		if (next + gap > UINT64_C(0xffffffff))
			return BLOOM_ERR_GAPS_CODE;
		out[i++] = (uint32_t) (next + gap);
		next = next + gap + 1;
	}

	/* buf holds no bits above avail here, as the next part's top-up wants */
	reader->pos = rd.pos;
	reader->buf = rd.buf;
	reader->avail = rd.avail;
	reader->next = next;
	return BLOOM_OK;
}

void
bloom_gaps_reader_init(bloom_gaps_reader *reader, const uint8_t *code,
					   size_t len, unsigned r)
{
	reader->code = code;
	reader->len = len;
	reader->pos = 0;
	reader->buf = 0;
	reader->avail = 0;
	reader->r = r;
	reader->next = 0;
}

bloom_status
bloom_gaps_reader_end(const bloom_gaps_reader *reader)
{
	/*
	 * Canonical: the code ends in the byte holding its last bit, and the
	 * rest of that byte is 0.  The unread bits are buf's avail bits and the
	 * bytes not loaded: fewer than 8 in all, and all 0.
	 */
	if (reader->pos != reader->len || reader->avail >= 8 || reader->buf != 0)
		return BLOOM_ERR_GAPS_CODE;
	return BLOOM_OK;
}

bloom_status
bloom_gaps_decode(const uint8_t *code, size_t len, uint64_t n, unsigned r,
				  uint32_t *out)
{
	bloom_gaps_reader reader;
	bloom_status status;

	bloom_gaps_reader_init(&reader, code, len, r);
	status = bloom_gaps_reader_take(&reader, n, out);
	return status != BLOOM_OK ? status : bloom_gaps_reader_end(&reader);
}

/* Hashes bloom_gaps_check decodes into its buffer at a time. */
#define CHECK_PART	4096

bloom_status
bloom_gaps_check(const uint8_t *code, size_t len, uint64_t n, unsigned r)
{
	uint32_t	part[CHECK_PART];
	bloom_gaps_reader reader;

	bloom_gaps_reader_init(&reader, code, len, r);
	for (uint64_t done = 0; done < n; done += CHECK_PART)
	{
		uint64_t	take = n - done < CHECK_PART ? n - done : CHECK_PART;
		bloom_status status = bloom_gaps_reader_take(&reader, take, part);

		if (status != BLOOM_OK)
			return status;
	}
	return bloom_gaps_reader_end(&reader);
}

bloom_status
bloom_gaps_decode_prefix(const uint8_t *code, size_t len, uint64_t m,
						 unsigned r, uint32_t *out)
{
	bloom_gaps_reader reader;

	bloom_gaps_reader_init(&reader, code, len, r);
	return bloom_gaps_reader_take(&reader, m, out);
}
