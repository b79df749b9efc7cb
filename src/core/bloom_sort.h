/*
 * bloom_sort.h
 *		Sorted sets of distinct 32-bit hashes, made from any hashes in time
 *		linear in their number.  No PostgreSQL dependency.
 *
 * The filter's bits depend only on which hashes occur, so bloom_agg's state
 * may keep each distinct hash once, sorted: that is what bloom_gaps.h
 * codes, and what lets repeated keys cost no memory.
 */
#ifndef BLOOM_SORT_H
#define BLOOM_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * Sort n hashes and drop repeats, in place: the first (returned) count of
 * hashes then increase strictly.  scratch holds n hashes.  Linear in n.
 */
extern size_t bloom_sort_unique_hashes(uint32_t *hashes, size_t n,
									   uint32_t *scratch);

/* Hashes of tmp that bloom_sort_unique_parts wants, at least. */
#define BLOOM_SORT_TMP_MIN	((size_t) 1 << 17)

/* bloom_sort_unique_parts' answer when its go_on said no */
#define BLOOM_SORT_STOPPED	SIZE_MAX

/*
 * Hashes bloom_sort_unique_parts reads or sorts, at most, between two asks
 * of its go_on: what bounds the wait of a cancel.
 */
#define BLOOM_SORT_ASK_EVERY	((size_t) 1 << 20)

/*
 * The hashes of several arrays (parts[i] holding lens[i]), sorted into out
 * (room for all of them) with repeats dropped; returns how many are left,
 * strictly increasing.  The parts are only read.  tmp holds tmp_len >=
 * BLOOM_SORT_TMP_MIN hashes: unlike bloom_sort_unique_hashes, no scratch
 * as large as the input.  Linear in the hashes for any input.
 *
 * go_on, where not NULL, is asked before every BLOOM_SORT_ASK_EVERY
 * hashes or fewer of each pass (a bucket of the partition is not divided:
 * it holds more only where the parts repeat a hash many times or hold over
 * 2^32 hashes); a no stops the sort, which then returns
 * BLOOM_SORT_STOPPED with out's contents undefined.  It holds nothing
 * between two asks, so a go_on may also leave by longjmp.
 */
extern size_t bloom_sort_unique_parts(const uint32_t *const *parts,
									  const size_t *lens, size_t nparts,
									  uint32_t *out, uint32_t *tmp,
									  size_t tmp_len,
									  bool (*go_on) (void *arg), void *arg);

/*
 * The top bits bloom_sort_unique_parts partitions n hashes by, so that a
 * partition's bucket stays in a second-level cache while it is sorted.
 */
extern unsigned bloom_sort_top_bits(uint64_t n);

/*
 * n hashes equal above their low bits bits (one bucket of such a
 * partition), sorted where they lie through tmp (tmp_len hashes; a bucket
 * larger than that is sorted in place, half as fast) with repeats dropped;
 * returns how many are left, strictly increasing.
 */
extern size_t bloom_sort_bucket_unique(uint32_t *a, size_t n, unsigned bits,
									   uint32_t *tmp, size_t tmp_len);

BLOOM_END_PRIVATE

#endif							/* BLOOM_SORT_H */
