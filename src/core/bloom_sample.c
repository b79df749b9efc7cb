/*
 * bloom_sample.c
 *		A threshold sample of a buffer of hashes (see bloom_sample.h).
 */
#include "bloom_sample.h"

#include "bloom_sort.h"

void
bloom_sample_begin(bloom_sample *sample, uint64_t n)
{
	sample->threshold = ((uint64_t) BLOOM_SAMPLE_TARGET << 32) / (n > 0 ? n : 1);
	sample->nbelow = 0;
	sample->ndistinct = 0;
	sample->overflowed = false;
}

void
bloom_sample_add(bloom_sample *sample, const uint32_t *hashes, size_t n)
{
	uint64_t	threshold = sample->threshold;
	size_t		nbelow = sample->nbelow;

	if (sample->overflowed)
		return;
	for (size_t i = 0; i < n; i++)
		if (hashes[i] < threshold)
		{
			if (nbelow == BLOOM_SAMPLE_MAX)
			{
				sample->overflowed = true;
				break;
			}
			sample->hashes[nbelow++] = hashes[i];
		}
	sample->nbelow = nbelow;
}

bool
bloom_sample_finish(bloom_sample *sample, uint32_t *scratch)
{
	if (sample->overflowed)
		return false;
	sample->ndistinct = bloom_sort_unique_hashes(sample->hashes, sample->nbelow,
												 scratch);
	return true;
}

bool
bloom_sample_mostly_distinct(const bloom_sample *sample)
{
	return !sample->overflowed &&
		sample->ndistinct >= BLOOM_KMV_SIZE &&
		10 * sample->ndistinct >= 9 * sample->nbelow;
}
