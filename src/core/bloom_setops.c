/*
 * bloom_setops.c
 *		Union and intersection of filters, eight bytes at a time.
 *
 * memcpy keeps the word loads and stores legal at any alignment (a short
 * varlena header leaves the bytes at an odd address); compilers turn each
 * into a single instruction.
 */
#include "bloom_setops.h"

#include <string.h>

/*
 * dst op= src over nbytes bytes.  Inlined into each caller with intersect
 * a constant, so each gets its own branch-free loop.
 */
static inline void
combine_bytes(uint8_t *dst, const uint8_t *src, size_t nbytes, bool intersect)
{
	size_t		i = 0;

	for (; nbytes - i >= 8; i += 8)
	{
		uint64_t	d,
					s;

		memcpy(&d, dst + i, sizeof(d));
		memcpy(&s, src + i, sizeof(s));
		d = intersect ? d & s : d | s;
		memcpy(dst + i, &d, sizeof(d));
	}
	for (; i < nbytes; i++)
		dst[i] = intersect ? dst[i] & src[i] : dst[i] | src[i];
}

void
bloom_union_into(uint8_t *dst, const uint8_t *src, size_t len)
{
	combine_bytes(dst, src, len < 1 ? 0 : len - 1, false);
}

void
bloom_intersect_into(uint8_t *dst, const uint8_t *src, size_t len)
{
	combine_bytes(dst, src, len < 1 ? 0 : len - 1, true);
}

void
bloom_or_bytes(uint8_t *dst, const uint8_t *src, size_t nbytes)
{
	combine_bytes(dst, src, nbytes, false);
}
