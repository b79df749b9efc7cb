/*
 * bloom_setops.h
 *		Union and intersection of two filters of one geometry.  No
 *		PostgreSQL dependency.
 *
 * A filter is an OR over its keys' bits, so OR-ing two filters of the same
 * size and k gives exactly the filter of both key sets, and AND-ing them
 * gives a filter that matches every key of both (and possibly keys of
 * either alone).  Filters of different geometries set different bits for
 * the same key and cannot be combined.
 */
#ifndef BLOOM_SETOPS_H
#define BLOOM_SETOPS_H

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/* Same length and the same final byte (k): the bits line up. */
static inline bool
bloom_same_geometry(const uint8_t *a, size_t alen,
					const uint8_t *b, size_t blen)
{
	return alen == blen && alen >= 1 && a[alen - 1] == b[blen - 1];
}

/*
 * dst |= src, or dst &= src, over the bit arrays of two filters of the
 * same geometry and len bytes each; the k byte is left alone.  dst and src
 * may be the same buffer.
 */
extern void bloom_union_into(uint8_t *dst, const uint8_t *src, size_t len);
extern void bloom_intersect_into(uint8_t *dst, const uint8_t *src, size_t len);

/* dst |= src over nbytes bytes, all of them (a part of a bit array). */
extern void bloom_or_bytes(uint8_t *dst, const uint8_t *src, size_t nbytes);

BLOOM_END_PRIVATE

#endif							/* BLOOM_SETOPS_H */
