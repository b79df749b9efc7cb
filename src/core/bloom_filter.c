/*
 * bloom_filter.c
 *		Geometry, build, probe and validation of LevelDB bloom filters.
 *
 * Mirrors LevelDB's BloomFilterPolicy (util/bloom.cc, 1.23): CreateFilter
 * and KeyMayMatch.  Sizes are computed in 64 bits, where LevelDB uses int
 * for n * bits_per_key; the two agree wherever LevelDB's product does not
 * overflow, i.e. for every filter LevelDB itself can write.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* posix_memalign under -std=c99 */
#endif
#include "bloom_core.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#if defined(__linux__)
#include <sys/mman.h>
#endif

unsigned
bloom_k_for_bits_per_key(int64_t bits_per_key)
{
	/*
	 * LevelDB truncates bits_per_key * 0.69 (a double) to size_t.  The
	 * clamp comes first so that a huge bits_per_key never reaches a
	 * double-to-integer conversion that could overflow.
	 */
	double		k;

	if (bits_per_key <= 0)
		return 1;
	k = (double) bits_per_key * 0.69;
	if (k >= BLOOM_MAX_K)
		return BLOOM_MAX_K;
	if (k < 1)
		return 1;
	return (unsigned) k;
}

bloom_status
bloom_geometry_for(uint64_t nkeys, int64_t bits_per_key,
				   bloom_geometry *geometry)
{
	uint64_t	bits;
	uint64_t	bytes;

	if (bits_per_key < 0)
		return BLOOM_ERR_NEGATIVE_BITS_PER_KEY;
	if (bits_per_key > 0 && nkeys > UINT64_MAX / (uint64_t) bits_per_key)
		return BLOOM_ERR_SIZE_OVERFLOW;
	bits = nkeys * (uint64_t) bits_per_key;
	if (bits < BLOOM_MIN_BITS)
		bits = BLOOM_MIN_BITS;
	/* rounding up to whole bytes must not wrap the bit count to 0 */
	if (bits > UINT64_MAX - 7)
		return BLOOM_ERR_SIZE_OVERFLOW;
	bytes = (bits + 7) / 8;

	geometry->filter_bytes = bytes + 1;
	geometry->bits = bytes * 8;
	geometry->k = bloom_k_for_bits_per_key(bits_per_key);
	return BLOOM_OK;
}

/*
 * The probe sequence of LevelDB's double hashing [Kirsch, Mitzenmacher
 * 2006]: h, h + delta, h + 2 delta, ... in 32-bit arithmetic, each taken
 * modulo the bit count in 64 bits.  A filter of more than 2^32 bits is
 * therefore only ever touched in its first 2^32 bits, as in LevelDB.  The
 * modulo is bloom_prepared_bitpos (see bloom_core.h): no division per
 * probe, and a position always fits in 32 bits.
 */
void
bloom_set_hash(uint8_t *bit_array, uint64_t nbits, unsigned k, uint32_t hash)
{
	bloom_prepared p;

	bloom_prepare(&p, nbits, k);
	bloom_prepared_set_hashes(&p, bit_array, &hash, 1);
}

/*
 * Keys per batch of bloom_prepared_set_hashes: their probe positions are
 * computed and their cache lines prefetched before any bit is set, so that
 * the batch's cache misses overlap instead of each write waiting for its
 * own.  64 keys of up to 30 probes take 7.5 kB of positions, well inside
 * the L1 cache.
 */
#define SET_BATCH	64

#if defined(__GNUC__) || defined(__clang__)
#define prefetch_for_write(addr)	__builtin_prefetch((addr), 1, 3)
#define unlikely_core(x)			__builtin_expect((x) != 0, 0)
#else
#define prefetch_for_write(addr)	((void) 0)
#define unlikely_core(x)			(x)
#endif

void
bloom_prepared_set_hashes(const bloom_prepared *p, uint8_t *bit_array,
						  const uint32_t *hashes, size_t nhashes)
{
	uint32_t	pos[SET_BATCH * BLOOM_MAX_K];
	unsigned	k = p->k;
	size_t		i;

	if (k > BLOOM_MAX_K)
	{
		/* no filter has this many probes; set them one by one */
		for (i = 0; i < nhashes; i++)
		{
			uint32_t	h = hashes[i];
			uint32_t	delta = bloom_probe_delta(h);
			unsigned	t;

			for (t = 0; t < k; t++)
			{
				uint32_t	bitpos = bloom_prepared_bitpos(p, h);

				bit_array[bitpos >> 3] |= (uint8_t) (1u << (bitpos & 7));
				h += delta;
			}
		}
		return;
	}

	for (i = 0; i < nhashes; i += SET_BATCH)
	{
		size_t		batch = nhashes - i < SET_BATCH ? nhashes - i : SET_BATCH;
		size_t		npos = 0;
		size_t		j;

		for (j = 0; j < batch; j++)
		{
			uint32_t	h = hashes[i + j];
			uint32_t	delta = bloom_probe_delta(h);
			unsigned	t;

			for (t = 0; t < k; t++)
			{
				uint32_t	bitpos = bloom_prepared_bitpos(p, h);

				prefetch_for_write(bit_array + (bitpos >> 3));
				pos[npos++] = bitpos;
				h += delta;
			}
		}
		for (j = 0; j < npos; j++)
			bit_array[pos[j] >> 3] |= (uint8_t) (1u << (pos[j] & 7));
	}
}

size_t
bloom_huge_page_slack(size_t len)
{
	return len >= BLOOM_HUGE_PAGES_MIN_BYTES ? BLOOM_HUGE_PAGE_BYTES : 0;
}

void *
bloom_huge_page_start(void *at, size_t len)
{
	uintptr_t	start = (uintptr_t) at;

	if (len < BLOOM_HUGE_PAGES_MIN_BYTES)
		return at;
	start = (start + BLOOM_HUGE_PAGE_BYTES - 1) & ~(uintptr_t) (BLOOM_HUGE_PAGE_BYTES - 1);
	bloom_advise_huge_pages((void *) start, len);
	return (void *) start;
}

void *
bloom_malloc_huge(size_t bytes)
{
	void	   *area = NULL;
	size_t		rounded;

	if (bytes < BLOOM_HUGE_PAGE_BYTES)
		return malloc(bytes);
	rounded = (bytes + BLOOM_HUGE_PAGE_BYTES - 1) & ~(BLOOM_HUGE_PAGE_BYTES - 1);
	if (rounded < BLOOM_HUGE_PAGES_MIN_BYTES)
		rounded = BLOOM_HUGE_PAGES_MIN_BYTES;
	if (posix_memalign(&area, BLOOM_HUGE_PAGE_BYTES, rounded) != 0)
		return NULL;
	bloom_advise_huge_pages(area, rounded);
	return area;
}

void
bloom_advise_huge_pages(void *area, size_t len)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t) 2 << 20;
	uintptr_t	start = ((uintptr_t) area + huge - 1) & ~(huge - 1);
	uintptr_t	end = ((uintptr_t) area + len) & ~(huge - 1);

	if (len >= BLOOM_HUGE_PAGES_MIN_BYTES && end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#else
	(void) area;
	(void) len;
#endif
}

/*
 * Buffered setting, for a bit array larger than the CPU caches.  Setting a
 * key's k bits then costs k cache lines fetched from memory, and written
 * back later, however they are prefetched: the memory, not the CPU, sets
 * the pace.  Instead, the probe positions are first appended to one of up
 * to BLOOM_BUCKET_REGIONS_MAX buckets by region of the array (256 kB or
 * more of bits), and when a bucket is full every bucket is set, a region at
 * a time: its cache lines are fetched once and then take many bits each, so
 * far fewer lines cross from memory.  The bits are the same: setting bits
 * commutes.  One thread and the threaded final (bloom_final.c) use the same
 * regions, and read a region ahead the same way.
 */
#define SET_SCRATCH_MIN		((size_t) 1 << 20)	/* 4 MB of positions */
#define SET_SCRATCH_MAX		((size_t) 1 << 24)	/* 64 MB */
#define SET_BUFFERED_MIN_BITS (UINT64_C(1) << 25)	/* 4 MB arrays */
#define SET_MIN_BUCKET		1024
#define SET_PREFETCH_AHEAD	32

size_t
bloom_set_scratch_size(uint64_t nbits)
{
	uint64_t	words = nbits / 64;

	/*
	 * A position for every 64 bits: a bucket then holds about 8 positions
	 * for every cache line of its region when it is set, whatever the size
	 * of the array (half the array's size in scratch, within bounds).
	 */
	if (nbits < SET_BUFFERED_MIN_BITS)
		return 0;
	if (words < SET_SCRATCH_MIN)
		return SET_SCRATCH_MIN;
	if (words > SET_SCRATCH_MAX)
		return SET_SCRATCH_MAX;
	return (size_t) words;
}

/* 1 << i for i < 8: one load instead of a shift by a variable count */
static const uint8_t bit_mask[8] = {1, 2, 4, 8, 16, 32, 64, 128};

/* Set the bits at positions pos[0..n-1], fetching ahead. */
void
bloom_set_positions(uint8_t *bit_array, const uint32_t *pos, size_t n)
{
	size_t		j = 0;

	for (; j + SET_PREFETCH_AHEAD < n; j++)
	{
		prefetch_for_write(bit_array + (pos[j + SET_PREFETCH_AHEAD] >> 3));
		bit_array[pos[j] >> 3] |= bit_mask[pos[j] & 7];
	}
	for (; j < n; j++)
		bit_array[pos[j] >> 3] |= bit_mask[pos[j] & 7];
}

/*
 * A region's lines are mostly not in cache when its bucket is set (the
 * whole array passes through the caches once a round), and the stores of
 * random positions each wait for their line, a few at a time however far
 * ahead they are prefetched.  Read in order first, the lines come in as a
 * stream the hardware prefetchers follow, at the memory's full speed, and
 * the stores then find them in the caches.  A region is at most 2 MB (2^32
 * positions in BLOOM_BUCKET_REGIONS_MAX regions), and even that, twice a
 * second-level cache of 1 MB, was set faster read ahead than not, on one
 * thread and on two (doc/performance.md).
 */
void
bloom_fetch_region(const uint8_t *bit_array, size_t array_bytes,
				   unsigned shift, size_t r)
{
	const volatile uint8_t *bytes = bit_array;
	size_t		from = r << (shift - 3);
	size_t		to = from + ((size_t) 1 << (shift - 3));

	if (to > array_bytes)
		to = array_bytes;
	for (size_t at = from; at < to; at += 64)
		(void) bytes[at];
}

unsigned
bloom_region_shift(uint64_t mod_d, size_t max_regions)
{
	unsigned	shift = BLOOM_REGION_SHIFT_MIN;

	while (bloom_region_count(mod_d, shift) > max_regions)
		shift++;
	return shift;
}

/*
 * The buckets are many streams of writes, 64 to 256, which the CPU's
 * prefetchers do not follow: a store of one position into a line not in
 * cache first reads that line from memory, and the stores behind it wait.
 * Staged in the writer (in the first-level cache) and written out a whole
 * line at a time with non-temporal stores, a bucket's lines are never read
 * before being written, and do not push the filter's region out of the
 * caches either.
 *
 * A staged line is cut at the next 64-byte boundary of its bucket, or at
 * the bucket's end if that comes first; line_room gives the positions from
 * at to there, kept as a byte a region, so that the append's check of a
 * full line reads one byte, not two pointers.
 */
static inline uint8_t
line_room(const bloom_bucket_writer *w, size_t r, const uint32_t *at)
{
	const uint32_t *boundary = (const uint32_t *) (((uintptr_t) at + 64) & ~(uintptr_t) 63);
	const uint32_t *bucket_end = bloom_bucket_start(w, r + 1);

	return (uint8_t) ((boundary < bucket_end ? boundary : bucket_end) - at);
}

static inline void
write_line(uint32_t *to, const uint32_t *line, unsigned n)
{
#ifdef __SSE2__
	if (n == BLOOM_BUCKET_LINE && ((uintptr_t) to & 63) == 0)
	{
		const __m128i *from = (const __m128i *) line;

		_mm_stream_si128((__m128i *) to, _mm_load_si128(from));
		_mm_stream_si128((__m128i *) to + 1, _mm_load_si128(from + 1));
		_mm_stream_si128((__m128i *) to + 2, _mm_load_si128(from + 2));
		_mm_stream_si128((__m128i *) to + 3, _mm_load_si128(from + 3));
		return;
	}
#endif
	memcpy(to, line, n * sizeof(uint32_t));
}

/*
 * The buckets are sized by their regions' shares of the positions, not
 * equally: a round ends when the first bucket is full.  A position is a
 * 32-bit value modulo mod_d, so when mod_d does not divide 2^32 the
 * positions below 2^32 mod mod_d are each reached by one value more than
 * the others: for a filter of 10^9 bits (100 million keys at 10 bits),
 * the regions in its first 29% get 5 values a position against 4, and
 * equal buckets were at most 86% full when the first of them filled.
 * Each bucket has a floor of BUCKET_FLOOR positions (a hash's positions,
 * at most 30, fit an empty one) and the rest of total by its region's
 * share of the 2^32 values.
 */
#define BUCKET_FLOOR		32

void
bloom_bucket_writer_start(bloom_bucket_writer *w, uint32_t *base, size_t total,
						  size_t nregions, unsigned shift, uint64_t mod_d)
{
	const uint64_t values = UINT64_C(1) << 32;
	uint64_t	each = values / mod_d;	/* values a position, at least */
	uint64_t	more = values % mod_d;	/* positions below it get one more */
	size_t		spread = total - nregions * BUCKET_FLOOR;
	uint32_t   *at = base;

	w->nregions = nregions;
	for (size_t r = 0; r < nregions; r++)
	{
		uint64_t	from = (uint64_t) r << shift;
		uint64_t	to = (uint64_t) (r + 1) << shift;
		uint64_t	share;

		if (to > mod_d)
			to = mod_d;
		share = (to - from) * each + (more > from ? (more < to ? more : to) - from : 0);
		w->start[r] = at;
		/* share <= 2^32 (the shares add up to 2^32), spread < 2^31 */
		at += BUCKET_FLOOR + (size_t) ((uint64_t) spread * share / values);
	}
	w->start[nregions] = at;
	bloom_bucket_writer_reset(w);
}

void
bloom_bucket_writer_reset(bloom_bucket_writer *w)
{
	for (size_t r = 0; r < w->nregions; r++)
	{
		w->cursor[r] = bloom_bucket_start(w, r);
		w->room[r] = line_room(w, r, w->cursor[r]);
		w->staged[r] = 0;
	}
}

size_t
bloom_bucket_positions(const bloom_prepared *p, unsigned shift,
					   bloom_bucket_writer *w,
					   const uint32_t *hashes, size_t from, size_t n)
{
	const uint64_t mod_m = p->mod_m;
	const uint64_t mod_d = p->mod_d;
	const unsigned k = p->k;
	size_t		i;

	for (i = from; i < n; i++)
	{
		uint32_t	h = hashes[i];
		uint32_t	delta = bloom_probe_delta(h);

		for (unsigned t = 0; t < k; t++)
		{
			uint32_t	bitpos = bloom_fastmod(h, mod_m, mod_d);
			size_t		r = bitpos >> shift;
			unsigned	s = w->staged[r];

			w->line[r][s++] = bitpos;
			if (s == w->room[r])
			{
				uint32_t   *c = w->cursor[r];

				write_line(c, w->line[r], s);
				w->cursor[r] = c += s;
				s = 0;
				if (unlikely_core(c == bloom_bucket_start(w, r + 1)))
				{
					w->staged[r] = 0;
					return i;	/* full: the buckets are set before more */
				}
				w->room[r] = line_room(w, r, c);
			}
			w->staged[r] = (uint8_t) s;
			h += delta;
		}
	}
	return n;
}

void
bloom_bucket_writer_flush(bloom_bucket_writer *w)
{
	for (size_t r = 0; r < w->nregions; r++)
	{
		write_line(w->cursor[r], w->line[r], w->staged[r]);
		w->cursor[r] += w->staged[r];
		w->room[r] = line_room(w, r, w->cursor[r]);
		w->staged[r] = 0;
	}
#ifdef __SSE2__
	/* non-temporal stores are ordered by nothing weaker */
	_mm_sfence();
#endif
}

bool
bloom_buffered_set_start(bloom_buffered_set *set, const bloom_prepared *p,
						 uint8_t *bit_array, uint32_t *scratch,
						 size_t scratch_size)
{
	unsigned	shift = bloom_region_shift(p->mod_d, BLOOM_BUCKET_REGIONS_MAX);
	size_t		nregions = bloom_region_count(p->mod_d, shift);
	size_t		cap = scratch == NULL ? 0 : scratch_size / nregions;

	/* too small to gain from it, too little scratch, or k past a bucket's floor */
	if (nregions < 2 || cap < SET_MIN_BUCKET || p->k > BLOOM_MAX_K)
		return false;
	set->prepared = *p;
	set->bit_array = bit_array;
	set->shift = shift;
	bloom_bucket_writer_start(&set->writer, scratch, cap * nregions, nregions,
							  shift, p->mod_d);
	return true;
}

/* Every bucket into its region, and the buckets emptied. */
static void
set_buckets(bloom_buffered_set *set)
{
	bloom_bucket_writer *w = &set->writer;
	/* the bytes the positions reach, below mod_d */
	size_t		reached = (size_t) ((set->prepared.mod_d + 7) / 8);

	bloom_bucket_writer_flush(w);
	for (size_t r = 0; r < w->nregions; r++)
	{
		bloom_fetch_region(set->bit_array, reached, set->shift, r);
		bloom_set_positions(set->bit_array, bloom_bucket_start(w, r),
							bloom_bucket_length(w, r));
	}
	bloom_bucket_writer_reset(w);
}

void
bloom_buffered_set_hashes(bloom_buffered_set *set, const uint32_t *hashes,
						  size_t n)
{
	size_t		i = 0;

	while ((i = bloom_bucket_positions(&set->prepared, set->shift, &set->writer,
									   hashes, i, n)) < n)
		set_buckets(set);
}

void
bloom_buffered_set_finish(bloom_buffered_set *set)
{
	set_buckets(set);
}

void
bloom_prepared_set_hashes_buffered(const bloom_prepared *p, uint8_t *bit_array,
								   const uint32_t *hashes, size_t nhashes,
								   uint32_t *scratch, size_t scratch_size)
{
	bloom_buffered_set set;

	if (!bloom_buffered_set_start(&set, p, bit_array, scratch, scratch_size))
	{
		bloom_prepared_set_hashes(p, bit_array, hashes, nhashes);
		return;
	}
	bloom_buffered_set_hashes(&set, hashes, nhashes);
	bloom_buffered_set_finish(&set);
}

void
bloom_build_from_hashes_scratch(uint8_t *filter, const bloom_geometry *geometry,
								const uint32_t *hashes, size_t nhashes,
								uint32_t *scratch, size_t scratch_size)
{
	bloom_prepared p;

	bloom_prepare(&p, geometry->bits, geometry->k);
	bloom_prepared_set_hashes_buffered(&p, filter, hashes, nhashes,
									   scratch, scratch_size);
	filter[geometry->filter_bytes - 1] = (uint8_t) geometry->k;
}

void
bloom_build_from_hashes(uint8_t *filter, const bloom_geometry *geometry,
						const uint32_t *hashes, size_t nhashes)
{
	bloom_build_from_hashes_scratch(filter, geometry, hashes, nhashes, NULL, 0);
}

bool
bloom_may_contain_hash(const uint8_t *filter, size_t len, uint32_t hash)
{
	bloom_prepared p;

	bloom_prepare_probe(&p, filter, len);
	return bloom_prepared_may_contain(&p, filter, hash);
}

bloom_status
bloom_validate(const uint8_t *filter, size_t len)
{
	if (len < 2)
		return BLOOM_ERR_FILTER_TOO_SHORT;
	if (filter[len - 1] == 0)
		return BLOOM_ERR_K_ZERO;
	if (filter[len - 1] > BLOOM_MAX_K)
		return BLOOM_ERR_K_RESERVED;
	return BLOOM_OK;
}

const char *
bloom_status_message(bloom_status status)
{
	switch (status)
	{
		case BLOOM_OK:
			return "No error.";
		case BLOOM_ERR_NEGATIVE_BITS_PER_KEY:
			return "bits_per_key must not be negative.";
		case BLOOM_ERR_SIZE_OVERFLOW:
			return "The filter size must fit in 64 bits.";
		case BLOOM_ERR_FILTER_TOO_SHORT:
			return "A filter must have at least 2 bytes: the bit array and the final byte holding k.";
		case BLOOM_ERR_K_ZERO:
			return "The final byte (k, the number of probes) must not be 0: LevelDB never writes it.";
		case BLOOM_ERR_K_RESERVED:
			return "The final byte (k, the number of probes) must be at most 30: LevelDB reserves larger values for other encodings.";
		case BLOOM_ERR_HEX_PREFIX:
			return "The text form must start with \\x.";
		case BLOOM_ERR_HEX_ODD:
			return "The text form must have two hex digits for every byte; it has an odd number.";
		case BLOOM_ERR_HEX_DIGIT:
			return "The text form must have only hex digits after \\x.";
		case BLOOM_ERR_STATE_TOO_SHORT:
			return "An aggregate state must have at least its header: 16 bytes in version 1, 24 in version 2.";
		case BLOOM_ERR_STATE_VERSION:
			return "An aggregate state must have version 1 or 2.";
		case BLOOM_ERR_STATE_RESERVED:
			return "An aggregate state's flags and reserved bytes must be zero.";
		case BLOOM_ERR_STATE_COUNT:
			return "An aggregate state's key and hash counts must agree with each other and with its length.";
		case BLOOM_ERR_GAPS_CODE:
			return "A coded hash set must decode to exactly its hash count, each hash below 2^32, with no bits left over.";
		case BLOOM_ERR_NO_MEMORY:
			return "The memory the threads need could not be allocated.";
		case BLOOM_ERR_THREAD:
			return "A thread could not be started.";
		case BLOOM_ERR_CANCELLED:
			return "The work was cancelled before it was done.";
	}
	return "Unknown error.";
}
