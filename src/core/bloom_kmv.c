/*
 * bloom_kmv.c
 *		The K minimum values sketch (see bloom_kmv.h).
 */
#include "bloom_kmv.h"

size_t
bloom_kmv_merge(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
				uint32_t *out)
{
	size_t		i = 0,
				j = 0,
				m = 0;

	while (m < BLOOM_KMV_SIZE && (i < na || j < nb))
	{
		uint32_t	next;

		if (j >= nb || (i < na && a[i] <= b[j]))
			next = a[i++];
		else
			next = b[j++];
		/* a hash in both sketches once */
		if (m == 0 || out[m - 1] != next)
			out[m++] = next;
	}
	return m;
}

double
bloom_kmv_estimate(const uint32_t *sketch, size_t n)
{
	if (n < BLOOM_KMV_SIZE)
		return (double) n;
	return (BLOOM_KMV_SIZE - 1) * 4294967296.0 /
		((double) sketch[BLOOM_KMV_SIZE - 1] + 1.0);
}
