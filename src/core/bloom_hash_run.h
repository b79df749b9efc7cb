/*
 * bloom_hash_run.h
 *		Runs of key hashes, plain or gap-coded, as the final (bloom_final.h)
 *		and the flatten (bloom_flatten.h) take them.  No PostgreSQL
 *		dependency.
 */
#ifndef BLOOM_HASH_RUN_H
#define BLOOM_HASH_RUN_H

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * Some hashes: every one of them sets its key's bits.  A run may come as
 * the gap code of n sorted distinct hashes (bloom_gaps.h, with parameter
 * bloom_gaps_rice_param(n)): code is then not NULL, and the hashes are
 * decoded into decode_into (room for n), at which hashes points.  The
 * decoding is fully checked, and spread over the threads with the rest.
 */
typedef struct bloom_hash_run
{
	const uint32_t *hashes;
	size_t		n;
	const uint8_t *code;
	size_t		code_len;
	uint32_t   *decode_into;
} bloom_hash_run;

/* Hashes a coded run's decoding takes between two asks whether to go on. */
#define BLOOM_DECODE_PART	((size_t) 1 << 18)

/*
 * Decode a coded run (nothing to do for another), BLOOM_DECODE_PART hashes
 * at a time, asking go_on(arg) before each part when go_on is not NULL: a
 * run of a hundred million hashes takes most of a second to decode, and
 * whoever decodes it may be asked to stop meanwhile.  BLOOM_ERR_CANCELLED
 * when go_on says no; go_on may also leave by longjmp, since the decoding
 * holds nothing of its own.
 */
extern bloom_status bloom_hash_run_decode(const bloom_hash_run *run,
										  bool (*go_on) (void *arg), void *arg);

/*
 * Where each run starts among all the runs' hashes: nruns + 1 offsets,
 * the last the total, malloc'd (NULL when there is no memory).  Threads
 * that share out hashes across runs (the final's stripes, the flatten's
 * shares) find a hash's run by them.
 */
extern uint64_t *bloom_hash_run_starts(const bloom_hash_run *runs, size_t nruns);

BLOOM_END_PRIVATE

#endif							/* BLOOM_HASH_RUN_H */
