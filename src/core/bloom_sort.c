/*
 * bloom_sort.c
 *		Sorted sets of distinct 32-bit hashes, made from any hashes (see
 *		bloom_sort.h).
 */
#include "bloom_sort.h"

#include <string.h>

/*
 * LSD radix sort, the passes' counts taken in one read, ping-ponging
 * between the array and scratch; then one pass drops repeats.  Linear in n.
 *
 * A whole array (bloom_sort_unique_hashes), larger than the caches, is
 * sorted on 8-bit digits: 256 buckets a pass keep every bucket's write
 * position in a few cache lines, which pays for the fourth pass: three
 * passes of 2,048 buckets scatter their writes over more lines than the
 * first-level cache holds.  A bucket of bloom_sort_unique_parts is sorted
 * while it and tmp are in a second-level cache, where writes scattered over
 * more lines cost less than a pass more: digits of up to DIGIT_BITS_MAX
 * bits take the 23 or 24 bits left below the top bits of a few million
 * hashes in two passes instead of three (make gaps-bench times both sorts;
 * its "by parts" column is the buckets').
 */
#define RADIX_BITS		8
#define RADIX_BUCKETS	(1u << RADIX_BITS)
#define DIGIT_BITS_MAX	12
#define PASSES_MAX		(32 / RADIX_BITS)

/* One pass: each hash of from to its digit's next place in to. */
static inline void
scatter_by_digit(const uint32_t *restrict from, uint32_t *restrict to,
				 size_t *restrict next, size_t n, unsigned shift, size_t mask)
{
	for (size_t i = 0; i < n; i++)
		to[next[(from[i] >> shift) & mask]++] = from[i];
}

/*
 * LSD sort of a on its low npasses * digit bits (the rest are equal),
 * through tmp.  Inlined for each count of passes, so that the counting
 * loop is unrolled.
 */
static inline void
sort_passes(uint32_t *a, size_t n, unsigned digit, unsigned npasses,
			uint32_t *tmp)
{
	size_t		counts[PASSES_MAX][(size_t) 1 << DIGIT_BITS_MAX];
	size_t		ndigits = (size_t) 1 << digit;
	size_t		mask = ndigits - 1;
	uint32_t   *from = a,
			   *to = tmp;
	size_t		i;
	unsigned	pass;

	for (pass = 0; pass < npasses; pass++)
		memset(counts[pass], 0, ndigits * sizeof(size_t));
	for (i = 0; i < n; i++)
		for (pass = 0; pass < npasses; pass++)
			counts[pass][(a[i] >> (pass * digit)) & mask]++;
	for (pass = 0; pass < npasses; pass++)
	{
		size_t	   *c = counts[pass];
		size_t		sum = 0;
		uint32_t   *t;

		for (i = 0; i < ndigits; i++)
		{
			size_t		x = c[i];

			c[i] = sum;
			sum += x;
		}
		scatter_by_digit(from, to, c, n, pass * digit, mask);
		t = from;
		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(uint32_t));
}

/*
 * LSD sort of a on its low bits (<= 32; the rest are equal), through tmp,
 * in as few passes of equal digits of at most digit_max bits as cover them.
 */
static void
sort_low_bits(uint32_t *a, size_t n, unsigned bits, unsigned digit_max,
			  uint32_t *tmp)
{
	unsigned	npasses = (bits + digit_max - 1) / digit_max;
	unsigned	digit = npasses > 0 ? (bits + npasses - 1) / npasses : 0;

	switch (npasses)
	{
		case 0:
			break;
		case 1:
			sort_passes(a, n, digit, 1, tmp);
			break;
		case 2:
			sort_passes(a, n, digit, 2, tmp);
			break;
		case 3:
			sort_passes(a, n, digit, 3, tmp);
			break;
		default:
			sort_passes(a, n, digit, 4, tmp);
			break;
	}
}

size_t
bloom_sort_unique_hashes(uint32_t *hashes, size_t n, uint32_t *scratch)
{
	size_t		i,
				m;

	if (n < 2)
		return n;
	sort_low_bits(hashes, n, 32, RADIX_BITS, scratch);
	m = 1;
	for (i = 1; i < n; i++)
		if (hashes[i] != hashes[m - 1])
			hashes[m++] = hashes[i];
	return m;
}

/*
 * bloom_sort_unique_parts: one pass scatters the hashes by their top bits
 * into out, in buckets small enough for the CPU's first caches (the count
 * that places them is a read before it); each bucket is then sorted on its
 * other bits where it lies, through tmp, and its distinct hashes moved down
 * to follow the previous bucket's.  The buckets are disjoint ranges, so
 * repeats can only be within one.  Two passes over memory, where a whole
 * LSD sort makes five and needs scratch the input's size: the input is a
 * worker's state of up to hundreds of MB, its scratch new pages.
 *
 * Hashes average at most this many a bucket (128 kB), so that a bucket and
 * tmp stay in a second-level cache while the bucket is sorted (smaller
 * buckets gain nothing; make gaps-bench times this sort against the whole
 * LSD sort), and a quarter of tmp, so that a bucket nearly always fits tmp
 * even with repeats or chance; one that does not is sorted in place
 * (american_flag_sort, half as fast).
 */
#define BUCKET_TARGET	32768
#define TOP_BITS_MAX	12

/*
 * An in-place MSD radix sort of hashes that are equal above bit shift + 8,
 * on the 8 bits from shift (from 0 once shift is negative: the bits above
 * the lowest 8 are then equal too).
 */
static void
american_flag_sort(uint32_t *a, size_t n, int shift)
{
	size_t		count[RADIX_BUCKETS];
	size_t		start[RADIX_BUCKETS];
	size_t		next[RADIX_BUCKETS];
	size_t		i,
				sum = 0;
	unsigned	b;

	if (shift <= -RADIX_BITS)
		return;					/* every bit used: all equal */
	if (shift < 0)
		shift = 0;
	if (n < 32)
	{
		/* insertion sort: few hashes */
		for (i = 1; i < n; i++)
		{
			uint32_t	v = a[i];
			size_t		j = i;

			for (; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++)
		count[(a[i] >> shift) & (RADIX_BUCKETS - 1)]++;
	for (b = 0; b < RADIX_BUCKETS; b++)
	{
		start[b] = next[b] = sum;
		sum += count[b];
	}
	/* each hash moved straight to its bucket's next free slot */
	for (b = 0; b < RADIX_BUCKETS; b++)
	{
		size_t		end = start[b] + count[b];

		while (next[b] < end)
		{
			uint32_t	v = a[next[b]];
			unsigned	d = (v >> shift) & (RADIX_BUCKETS - 1);

			while (d != b)
			{
				uint32_t	t = a[next[d]];

				a[next[d]++] = v;
				v = t;
				d = (v >> shift) & (RADIX_BUCKETS - 1);
			}
			a[next[b]++] = v;
		}
	}
	for (b = 0; b < RADIX_BUCKETS; b++)
		american_flag_sort(a + start[b], count[b], shift - RADIX_BITS);
}


unsigned
bloom_sort_top_bits(uint64_t n)
{
	unsigned	top = 0;

	while (top < TOP_BITS_MAX && (n >> top) > BUCKET_TARGET)
		top++;
	return top;
}

size_t
bloom_sort_bucket_unique(uint32_t *a, size_t n, unsigned bits, uint32_t *tmp,
						 size_t tmp_len)
{
	size_t		i,
				m = 0;

	if (n <= tmp_len)
		/* wide digits once there are more hashes than one pass's counters */
		sort_low_bits(a, n, bits,
					  n >= ((size_t) 1 << DIGIT_BITS_MAX) ? DIGIT_BITS_MAX : RADIX_BITS, tmp);
	else
		american_flag_sort(a, n, (int) bits - RADIX_BITS);
	for (i = 0; i < n; i++)
		if (m == 0 || a[i] != a[m - 1])
			a[m++] = a[i];
	return m;
}

/*
 * Asks go_on before any stretch of work that would take more than
 * BLOOM_SORT_ASK_EVERY hashes past the last ask.
 */
typedef struct sort_asker
{
	bool		(*go_on) (void *arg);
	void	   *arg;
	size_t		since;			/* hashes taken since the last ask */
} sort_asker;

/* May n more hashes be taken?  false once go_on has said no. */
static inline bool
may_take(sort_asker *asker, size_t n)
{
	if (asker->go_on == NULL)
		return true;
	if (asker->since + n > BLOOM_SORT_ASK_EVERY)
	{
		asker->since = 0;
		if (!asker->go_on(asker->arg))
			return false;
	}
	asker->since += n;
	return true;
}

size_t
bloom_sort_unique_parts(const uint32_t *const *parts, const size_t *lens,
						size_t nparts, uint32_t *out, uint32_t *tmp,
						size_t tmp_len, bool (*go_on) (void *arg), void *arg)
{
	sort_asker	asker = {go_on, arg, 0};
	size_t		total = 0;
	unsigned	top;
	unsigned	shift;
	size_t		nbuckets;
	size_t	   *next;
	size_t		at = 0,
				m = 0;
	size_t		p,
				i,
				b;
	size_t		bucket_start[(size_t) 1 << TOP_BITS_MAX];

	for (p = 0; p < nparts; p++)
		total += lens[p];
	top = bloom_sort_top_bits(total);
	nbuckets = (size_t) 1 << top;
	shift = 32 - top;

	/*
	 * count, then scatter by the top bits (shifted as 64 bits: with no top
	 * bits the shift is 32, and every hash lands in the one bucket), a
	 * slice of a part at a time
	 */
	next = bucket_start;
	memset(next, 0, nbuckets * sizeof(size_t));
	for (int scatter = 0; scatter <= 1; scatter++)
	{
		if (scatter)
			for (b = 0; b < nbuckets; b++)
			{
				size_t		c = next[b];

				next[b] = at;
				at += c;
			}
		for (p = 0; p < nparts; p++)
		{
			const uint32_t *h = parts[p];

			for (size_t from = 0; from < lens[p]; from += BLOOM_SORT_ASK_EVERY)
			{
				size_t		to = lens[p] - from > BLOOM_SORT_ASK_EVERY ?
					from + BLOOM_SORT_ASK_EVERY : lens[p];

				if (!may_take(&asker, to - from))
					return BLOOM_SORT_STOPPED;
				if (scatter)
					for (i = from; i < to; i++)
						out[next[(uint64_t) h[i] >> shift]++] = h[i];
				else
					for (i = from; i < to; i++)
						next[(uint64_t) h[i] >> shift]++;
			}
		}
	}

	/*
	 * next[b] is now the end of bucket b; each begins where the last ends.
	 * A bucket is not divided: it holds about BUCKET_TARGET hashes, more
	 * only past TOP_BITS_MAX or where the parts repeat a hash many times.
	 */
	at = 0;
	for (b = 0; b < nbuckets; b++)
	{
		size_t		end = next[b];
		size_t		d;

		if (!may_take(&asker, end - at))
			return BLOOM_SORT_STOPPED;
		d = bloom_sort_bucket_unique(out + at, end - at, shift, tmp, tmp_len);
		/* the buckets are disjoint ranges: repeats only within one */
		memmove(out + m, out + at, d * sizeof(uint32_t));
		m += d;
		at = end;
	}
	return m;
}
