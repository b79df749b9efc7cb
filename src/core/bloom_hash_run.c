/*
 * bloom_hash_run.c
 *		Runs of key hashes: a coded run's decoding, and where each run
 *		starts among all of them (see bloom_hash_run.h).
 */
#include <stdlib.h>

#include "bloom_gaps.h"
#include "bloom_hash_run.h"

uint64_t *
bloom_hash_run_starts(const bloom_hash_run *runs, size_t nruns)
{
	uint64_t   *start = malloc((nruns + 1) * sizeof(uint64_t));

	if (start == NULL)
		return NULL;
	start[0] = 0;
	for (size_t r = 0; r < nruns; r++)
		start[r + 1] = start[r] + runs[r].n;
	return start;
}

bloom_status
bloom_hash_run_decode(const bloom_hash_run *run, bool (*go_on) (void *arg),
					  void *arg)
{
	bloom_gaps_reader reader;

	if (run->code == NULL)
		return BLOOM_OK;
	bloom_gaps_reader_init(&reader, run->code, run->code_len,
						   bloom_gaps_rice_param(run->n));
	for (size_t done = 0; done < run->n; done += BLOOM_DECODE_PART)
	{
		size_t		part = run->n - done;
		bloom_status status;

		if (go_on != NULL && !go_on(arg))
			return BLOOM_ERR_CANCELLED;
		if (part > BLOOM_DECODE_PART)
			part = BLOOM_DECODE_PART;
		status = bloom_gaps_reader_take(&reader, part, run->decode_into + done);
		if (status != BLOOM_OK)
			return status;
	}
	return bloom_gaps_reader_end(&reader);
}
