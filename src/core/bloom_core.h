/*
 * bloom_core.h
 *		LevelDB-compatible bloom filters, with no PostgreSQL dependency.
 *
 * Everything that decides a filter byte lives behind this header: the SQL
 * functions, the unit tests, the LevelDB differential test and the fuzzers
 * all call the same code, so there is exactly one reading of the format.
 *
 * The format is LevelDB's util/bloom.cc (1.23): the filter is ceil(bits/8)
 * bytes of bit array followed by one byte holding k, the number of probes.
 * Problems are reported by status codes; callers decide how to raise them.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Our C symbols are private to the module (or program) that links them.
 * PostgreSQL loads modules with RTLD_GLOBAL, so an exported bloom_* name
 * could bind to another module's function of the same name; a hidden one
 * cannot, and calls into it need no PLT jump.  Only the SQL-callable
 * functions, declared by PG_FUNCTION_INFO_V1, stay exported.  Put these
 * around declarations only, after every #include.
 */
#if defined(__GNUC__)
#define BLOOM_BEGIN_PRIVATE	_Pragma("GCC visibility push(hidden)")
#define BLOOM_END_PRIVATE	_Pragma("GCC visibility pop")
#else
#define BLOOM_BEGIN_PRIVATE
#define BLOOM_END_PRIVATE
#endif

BLOOM_BEGIN_PRIVATE

/* Seed LevelDB's BloomHash passes to Hash(). */
#define BLOOM_HASH_SEED		UINT32_C(0xbc9f1d34)

/* LevelDB clamps k to this; a larger k byte is a reserved encoding. */
#define BLOOM_MAX_K			30

/* LevelDB enforces this many bits at least, to keep tiny filters useful. */
#define BLOOM_MIN_BITS		64

typedef enum bloom_status
{
	BLOOM_OK = 0,
	BLOOM_ERR_NEGATIVE_BITS_PER_KEY,	/* bits_per_key < 0 */
	BLOOM_ERR_SIZE_OVERFLOW,	/* n * bits_per_key does not fit in 64 bits */
	BLOOM_ERR_FILTER_TOO_SHORT, /* fewer than 2 bytes: no bit array */
	BLOOM_ERR_K_ZERO,			/* k byte 0: LevelDB never writes it */
	BLOOM_ERR_K_RESERVED,		/* k byte > 30: reserved by LevelDB */
	BLOOM_ERR_HEX_PREFIX,		/* text does not start with \x */
	BLOOM_ERR_HEX_ODD,			/* odd number of hex digits */
	BLOOM_ERR_HEX_DIGIT,		/* a character that is not a hex digit */
	BLOOM_ERR_STATE_TOO_SHORT,	/* aggregate state shorter than its header */
	BLOOM_ERR_STATE_VERSION,	/* unknown aggregate state version */
	BLOOM_ERR_STATE_RESERVED,	/* nonzero reserved aggregate state bits */
	BLOOM_ERR_STATE_COUNT,		/* counts disagree with each other or the length */
	BLOOM_ERR_GAPS_CODE,		/* a gap-coded hash set that does not decode */
	BLOOM_ERR_NO_MEMORY,		/* the core could not allocate its memory */
	BLOOM_ERR_THREAD,			/* a thread could not be started */
	BLOOM_ERR_CANCELLED			/* threaded work stopped by its caller */
} bloom_status;

/* The rule a status says was broken, as a full sentence. */
extern const char *bloom_status_message(bloom_status status);

/* ---- hashing (bloom_hash.c) ---- */

/* LevelDB's Hash(data, n, seed): tail bytes read as unsigned, as in >= 1.18. */
extern uint32_t bloom_leveldb_hash(const void *data, size_t len, uint32_t seed);

/* The multiplier of LevelDB's Hash. */
#define BLOOM_HASH_M		UINT32_C(0xc6a4a793)

/*
 * Hash's state before the first word of len bytes.  LevelDB multiplies in
 * size_t and keeps the low 32 bits, which the 32-bit product is.
 */
static inline uint32_t
bloom_hash_start(uint32_t seed, size_t len)
{
	return seed ^ ((uint32_t) len * BLOOM_HASH_M);
}

/* One round of Hash over a whole 4-byte word, read little-endian. */
static inline uint32_t
bloom_hash_word(uint32_t h, uint32_t word)
{
	h += word;
	h *= BLOOM_HASH_M;
	return h ^ (h >> 16);
}

/* The 32-bit hash LevelDB's bloom filter derives every probe from. */
static inline uint32_t
bloom_key_hash(const void *key, size_t len)
{
	return bloom_leveldb_hash(key, len, BLOOM_HASH_SEED);
}

/* ---- geometry, build, probe, validation (bloom_filter.c) ---- */

typedef struct bloom_geometry
{
	uint64_t	filter_bytes;	/* whole filter, including the k byte */
	uint64_t	bits;			/* size of the bit array in bits */
	unsigned	k;				/* probes per key, 1..30 */
} bloom_geometry;

/* k as LevelDB's BloomFilterPolicy picks it: floor(bpk * 0.69), 1..30. */
extern unsigned bloom_k_for_bits_per_key(int64_t bits_per_key);

/*
 * The filter CreateFilter writes for nkeys keys (duplicates counted).
 * Fails only for a negative bits_per_key or a size beyond 64 bits; the
 * caller applies its own, smaller, allocation limit to filter_bytes.
 */
extern bloom_status bloom_geometry_for(uint64_t nkeys, int64_t bits_per_key,
									   bloom_geometry *geometry);

/*
 * Fill a zeroed buffer of geometry->filter_bytes bytes with the filter of
 * the keys whose bloom_key_hash values are given, in any order.
 */
extern void bloom_build_from_hashes(uint8_t *filter,
									const bloom_geometry *geometry,
									const uint32_t *hashes, size_t nhashes);

/*
 * The same, faster for a large filter, given scratch space of
 * bloom_set_scratch_size(geometry->bits) 32-bit words (or NULL, 0).
 */
extern void bloom_build_from_hashes_scratch(uint8_t *filter,
											const bloom_geometry *geometry,
											const uint32_t *hashes,
											size_t nhashes,
											uint32_t *scratch,
											size_t scratch_size);

/* Set the k bits of one key hash in a bit array of nbits bits. */
extern void bloom_set_hash(uint8_t *bit_array, uint64_t nbits, unsigned k,
						   uint32_t hash);

/*
 * ---- prepared geometry: what build and probe share, per filter ----
 *
 * Every probe position is h % bits for a 32-bit h, which LevelDB computes
 * with a 64-bit division per probe.  Since bits is fixed per filter, the
 * remainder is computed instead by two multiplications with a reciprocal
 * prepared once: Lemire, Kaser and Kurz, "Faster remainder by direct
 * computation" (2019).  With d = min(bits, 2^32) and
 * m = floor((2^64 - 1) / d) + 1 (mod 2^64), for every 32-bit h and every
 * 1 <= d <= 2^32,
 *
 *		h % d = ((m * h mod 2^64) * d) >> 64.
 *
 * When bits >= 2^32, h % bits = h, and d = 2^32 (m = 2^32) gives exactly
 * that, so there is no special case.  h % bits = h % d in every case.
 */
typedef struct bloom_prepared
{
	uint64_t	mod_m;			/* the reciprocal m above */
	uint64_t	mod_d;			/* min(bits, 2^32) */
	unsigned	k;				/* probes; for a probe, 0 = every key matches */
	bool		empty;			/* probe only: no bit array, no key matches */
} bloom_prepared;

#define BLOOM_FASTMOD_MAX_D		(UINT64_C(1) << 32)

/* The reciprocal of d, 1 <= d <= 2^32. */
static inline uint64_t
bloom_fastmod_reciprocal(uint64_t d)
{
	return UINT64_MAX / d + 1;
}

/* h % d given m = bloom_fastmod_reciprocal(d), 1 <= d <= 2^32. */
static inline uint32_t
bloom_fastmod(uint32_t h, uint64_t m, uint64_t d)
{
#ifdef __SIZEOF_INT128__
	return (uint32_t) (((unsigned __int128) (m * h) * d) >> 64);
#else
	(void) m;
	return (uint32_t) (h % d);
#endif
}

/*
 * For setting bits: nbits >= 1 bits and k probes per key.  Filters that
 * bloom_geometry_for sizes are prepared with (geometry->bits, geometry->k).
 */
static inline void
bloom_prepare(bloom_prepared *p, uint64_t nbits, unsigned k)
{
	p->mod_d = nbits < BLOOM_FASTMOD_MAX_D ? nbits : BLOOM_FASTMOD_MAX_D;
	p->mod_m = bloom_fastmod_reciprocal(p->mod_d);
	p->k = k;
	p->empty = false;
}

/*
 * For probing any filter bytes by KeyMayMatch's rules: a filter shorter
 * than 2 bytes matches nothing, a k byte above 30 (reserved) or of 0
 * matches everything.  Depends only on len and the k byte.
 */
static inline void
bloom_prepare_probe(bloom_prepared *p, const uint8_t *filter, size_t len)
{
	unsigned	k;

	if (len < 2)
	{
		bloom_prepare(p, 8, 0);
		p->empty = true;
		return;
	}
	k = filter[len - 1];
	bloom_prepare(p, (uint64_t) (len - 1) * 8, k > BLOOM_MAX_K ? 0 : k);
}

/* The bit a probe of hash h reads or sets: h % bits. */
static inline uint32_t
bloom_prepared_bitpos(const bloom_prepared *p, uint32_t h)
{
	return bloom_fastmod(h, p->mod_m, p->mod_d);
}

/* The step between a key's probes (LevelDB: rotate right by 17). */
static inline uint32_t
bloom_probe_delta(uint32_t hash)
{
	return (hash >> 17) | (hash << 15);
}

/* Bit bitpos of a bit array, as 0 or 1. */
static inline unsigned
bloom_bit(const uint8_t *bit_array, uint32_t bitpos)
{
	return (bit_array[bitpos >> 3] >> (bitpos & 7)) & 1u;
}

/*
 * KeyMayMatch on a filter prepared with bloom_prepare_probe: one hash in,
 * at most k memory reads, no division.
 *
 * The first two bits are read with no branch between them: a key that is
 * absent usually fails at one of them, and whether it does is a coin toss
 * the CPU cannot predict, so one branch on both (instead of one on each)
 * halves the mispredictions, and both reads are in flight at once.  The
 * answer is the same as reading the bits one by one.
 */
static inline bool
bloom_prepared_may_contain(const bloom_prepared *p, const uint8_t *filter,
						   uint32_t hash)
{
	uint32_t	delta = bloom_probe_delta(hash);
	unsigned	k = p->k;
	unsigned	j;

	if (p->empty)
		return false;
	if (k < 2)
		return k == 0 || bloom_bit(filter, bloom_prepared_bitpos(p, hash));
	if ((bloom_bit(filter, bloom_prepared_bitpos(p, hash)) &
		 bloom_bit(filter, bloom_prepared_bitpos(p, hash + delta))) == 0)
		return false;
	hash += 2 * delta;
	for (j = 2; j < k; j++)
	{
		if (!bloom_bit(filter, bloom_prepared_bitpos(p, hash)))
			return false;
		hash += delta;
	}
	return true;
}

/*
 * Set the bits of nhashes key hashes in a bit array prepared with
 * bloom_prepare: the same bits as bloom_set_hash on each, in batches whose
 * cache lines are fetched ahead of the writes.
 */
extern void bloom_prepared_set_hashes(const bloom_prepared *p,
									  uint8_t *bit_array,
									  const uint32_t *hashes, size_t nhashes);

/*
 * For a bit array larger than the CPU caches: scratch space, in 32-bit
 * words, with which bloom_prepared_set_hashes_buffered sets bits faster;
 * 0 when the array is too small to gain from it.
 */
extern size_t bloom_set_scratch_size(uint64_t nbits);

/* Set the bits at positions pos[0..n-1] of a bit array. */
extern void bloom_set_positions(uint8_t *bit_array, const uint32_t *pos,
								size_t n);

/*
 * Reads region r (2^shift bits, see below) of a bit array of array_bytes
 * once, a cache line at a time, before the positions of its bucket are set.
 */
extern void bloom_fetch_region(const uint8_t *bit_array, size_t array_bytes,
							   unsigned shift, size_t r);

/*
 * Buckets of probe positions by region of a bit array, the way a large
 * array is set with few cache misses (bloom_filter.c): the regions are
 * 2^shift bits of the positions' range [0, mod_d), at least
 * 2^BLOOM_REGION_SHIFT_MIN bits (256 kB) and as few as keep them at most
 * max_regions.
 */
#define BLOOM_REGION_SHIFT_MIN	21
extern unsigned bloom_region_shift(uint64_t mod_d, size_t max_regions);

static inline size_t
bloom_region_count(uint64_t mod_d, unsigned shift)
{
	return (size_t) ((mod_d - 1) >> shift) + 1;
}

/*
 * Appends probe positions to the buckets of up to BLOOM_BUCKET_REGIONS_MAX
 * regions (bucket r from start[r] to start[r + 1]) a cache line at a
 * time: the last line of each bucket is staged here and written out whole
 * (bloom_filter.c says why).  Start it on empty buckets, append with
 * bloom_bucket_positions, and flush it before the buckets are read, by this
 * thread or another: then bucket r's positions end at cursor[r].
 */
#define BLOOM_BUCKET_REGIONS_MAX	256
#define BLOOM_BUCKET_LINE			16	/* positions a 64-byte line holds */

typedef struct bloom_bucket_writer
{
	uint32_t	line[BLOOM_BUCKET_REGIONS_MAX][BLOOM_BUCKET_LINE]
				__attribute__((aligned(64)));
	uint32_t   *cursor[BLOOM_BUCKET_REGIONS_MAX];	/* past what is written */
	uint8_t		room[BLOOM_BUCKET_REGIONS_MAX];	/* positions from cursor[r] to
												 * where the line is cut */
	uint8_t		staged[BLOOM_BUCKET_REGIONS_MAX];	/* positions in line[r] */
	uint32_t   *start[BLOOM_BUCKET_REGIONS_MAX + 1];
	size_t		nregions;
} bloom_bucket_writer;

/*
 * Empty buckets for the nregions regions of 2^shift bits of [0, mod_d), in
 * total positions from base (64 * nregions <= total < 2^31; nregions <=
 * BLOOM_BUCKET_REGIONS_MAX), each bucket sized by the share of positions
 * its region gets (bloom_filter.c says why they differ).
 */
extern void bloom_bucket_writer_start(bloom_bucket_writer *w, uint32_t *base,
									  size_t total, size_t nregions,
									  unsigned shift, uint64_t mod_d);

/* The same buckets emptied, once every one of them has been set. */
extern void bloom_bucket_writer_reset(bloom_bucket_writer *w);

/* Where bucket r begins (and bucket r - 1 ends). */
static inline uint32_t *
bloom_bucket_start(const bloom_bucket_writer *w, size_t r)
{
	return w->start[r];
}

/* The positions bucket r holds, from bloom_bucket_start, once flushed. */
static inline size_t
bloom_bucket_length(const bloom_bucket_writer *w, size_t r)
{
	return (size_t) (w->cursor[r] - w->start[r]);
}

/*
 * Append the probe positions of hashes[from..n) to their regions' buckets
 * until a bucket is full; returns the index of the first hash not wholly
 * appended, n when every one was.  A hash cut short is appended again,
 * whole, once the buckets are emptied: setting a bit twice changes nothing.
 */
extern size_t bloom_bucket_positions(const bloom_prepared *p, unsigned shift,
									 bloom_bucket_writer *w,
									 const uint32_t *hashes, size_t from,
									 size_t n);

/* Write out the staged lines, visible to any thread that synchronises after. */
extern void bloom_bucket_writer_flush(bloom_bucket_writer *w);

/*
 * Setting the bits of hashes that come in parts through one thread's
 * buckets (bloom_filter.c): start it on scratch_size words of scratch, add
 * the hashes, in parts of any size, and finish it; the bits are then those
 * of bloom_prepared_set_hashes.  The buckets are set only when one of them
 * is full, or at the finish, however small the parts.  Start returns false,
 * and there is nothing to finish, when the array is too small to gain from
 * buckets or the scratch too little: then set the bits straight.  It holds
 * no memory of its own (the writer is in the struct): a caller may abandon
 * it unfinished.
 */
typedef struct bloom_buffered_set
{
	bloom_bucket_writer writer;
	bloom_prepared prepared;
	uint8_t    *bit_array;
	unsigned	shift;
} bloom_buffered_set;

extern bool bloom_buffered_set_start(bloom_buffered_set *set,
									 const bloom_prepared *p,
									 uint8_t *bit_array, uint32_t *scratch,
									 size_t scratch_size);
extern void bloom_buffered_set_hashes(bloom_buffered_set *set,
									  const uint32_t *hashes, size_t n);
extern void bloom_buffered_set_finish(bloom_buffered_set *set);

/*
 * The same bits as bloom_prepared_set_hashes, with scratch_size words of
 * scratch: all the hashes through one bloom_buffered_set, or straight when
 * it does not start.
 */
extern void bloom_prepared_set_hashes_buffered(const bloom_prepared *p,
											   uint8_t *bit_array,
											   const uint32_t *hashes,
											   size_t nhashes,
											   uint32_t *scratch,
											   size_t scratch_size);

/*
 * Ask the kernel (Linux: transparent huge pages, where it allows them on
 * request) to back a large memory area that is not yet touched with 2 MB
 * pages: a bit array set or probed at random then does not miss the TLB at
 * nearly every access, and a big array costs a few page faults instead of
 * thousands.  Call it before the memory is first written; it changes no
 * byte, and does nothing for areas under BLOOM_HUGE_PAGES_MIN_BYTES or
 * where there is no such thing.
 */
#define BLOOM_HUGE_PAGES_MIN_BYTES	((size_t) 4 << 20)
/* A huge page; areas that start on such a boundary get huge pages all through. */
#define BLOOM_HUGE_PAGE_BYTES		((size_t) 2 << 20)
extern void bloom_advise_huge_pages(void *area, size_t len);

/*
 * Only the 2 MB-aligned part of an area gets huge pages.  An area of len
 * bytes placed in an allocation bloom_huge_page_slack(len) bytes larger,
 * at bloom_huge_page_start(the allocation's first usable byte, len), starts
 * on a huge page boundary when it is large enough to ask for huge pages
 * (and is asked for them); a smaller one starts where it would have.  The
 * slack before a large area is never touched.
 */
extern size_t bloom_huge_page_slack(size_t len);
extern void *bloom_huge_page_start(void *at, size_t len);

/*
 * malloc'd memory for the threads' work areas (buckets, scratch, sorted
 * hashes): from 2 MB on, whole huge pages from a huge page boundary (only
 * the aligned part of an area gets huge pages: 2 threads' buckets for a
 * 12.5 MB filter are 3.1 MB each, which would otherwise be faulted in 4 kB
 * at a time).  Freed by free; NULL when there is no memory.
 */
extern void *bloom_malloc_huge(size_t bytes);

/* LevelDB's KeyMayMatch on any bytes, given the key's bloom_key_hash. */
extern bool bloom_may_contain_hash(const uint8_t *filter, size_t len,
								   uint32_t hash);

/* LevelDB's KeyMayMatch(key, filter) on any bytes. */
static inline bool
bloom_may_contain(const uint8_t *filter, size_t len,
				  const void *key, size_t keylen)
{
	return bloom_may_contain_hash(filter, len, bloom_key_hash(key, keylen));
}

/*
 * The rule every stored filter obeys: at least 2 bytes and 1 <= k <= 30,
 * which is exactly what a LevelDB writer can produce.
 */
extern bloom_status bloom_validate(const uint8_t *filter, size_t len);

/* ---- text form (bloom_hex.c): "\x" and two hex digits a byte ---- */

/* Characters bloom_hex_encode writes for len bytes, without a terminator. */
static inline size_t
bloom_hex_encoded_len(size_t len)
{
	return 2 + 2 * len;
}

/* Write "\x" and lowercase hex of the bytes; returns characters written. */
extern size_t bloom_hex_encode(const uint8_t *bytes, size_t len, char *out);

/* The most bytes text of textlen characters can decode to. */
static inline size_t
bloom_hex_decoded_max(size_t textlen)
{
	return textlen < 2 ? 0 : (textlen - 2) / 2;
}

/*
 * Decode text of textlen characters in the "\x" form (digits in either
 * case) into out, which holds bloom_hex_decoded_max(textlen) bytes, checking
 * it in the same pass; on BLOOM_OK *decoded_len is the byte count.  On an
 * error out holds garbage: the prefix is checked first, then that every
 * character is a hex digit, then that they pair up.
 */
extern bloom_status bloom_hex_decode(const char *text, size_t textlen,
									 uint8_t *out, size_t *decoded_len);

BLOOM_END_PRIVATE

#endif							/* BLOOM_CORE_H */
