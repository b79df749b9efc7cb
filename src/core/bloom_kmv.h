/*
 * bloom_kmv.h
 *		A K minimum values sketch of 32-bit hashes: the K smallest distinct
 *		hashes of a set say how many distinct hashes it holds.
 *
 * If n distinct hashes are spread evenly over 2^32 values, the K-th
 * smallest lies near K * 2^32 / n, so (K - 1) * 2^32 / (that hash + 1) is
 * an unbiased estimate of n, off by about 1 / sqrt(K - 2) (Bar-Yossef et
 * al., "Counting distinct elements in a data stream", 2002; Beyer et al.,
 * "On synopses for distinct-value estimation under multiset operations",
 * 2007).  The sketch of a union is the K smallest of the two sketches, so
 * sets are counted together without being merged.  bloom_agg's state uses
 * it to tell when its runs share enough hashes that merging them pays.
 */
#ifndef BLOOM_KMV_H
#define BLOOM_KMV_H

#include <stddef.h>
#include <stdint.h>

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * K: the hashes a sketch keeps.  1024 keep the estimate within about 3%,
 * in 4 kB.
 */
#define BLOOM_KMV_SIZE	1024

/*
 * The smallest distinct hashes of two sketches together, at most
 * BLOOM_KMV_SIZE of them, written to out (which may not be a or b);
 * returns how many.  a and b are each strictly increasing.
 */
extern size_t bloom_kmv_merge(const uint32_t *a, size_t na,
							  const uint32_t *b, size_t nb, uint32_t *out);

/*
 * How many distinct hashes a sketch of n hashes stands for: n itself when
 * it is not full (a set of fewer than K distinct hashes is all in its
 * sketch), else the estimate above.
 */
extern double bloom_kmv_estimate(const uint32_t *sketch, size_t n);

BLOOM_END_PRIVATE

#endif							/* BLOOM_KMV_H */
