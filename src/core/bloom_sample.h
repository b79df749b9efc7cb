/*
 * bloom_sample.h
 *		Whether a buffer of 32-bit hashes holds repeats, told from a sample
 *		of it.  No PostgreSQL dependency.
 *
 * The sample is every hash below a threshold at which about
 * BLOOM_SAMPLE_TARGET of the buffer's hashes fall, were they distinct.  It
 * is taken by value, not by position, so a hash's repeats are all in it or
 * all out of it: the share of the sampled hashes that are distinct
 * estimates the share of the buffer's that are, and is exactly 1 when all
 * of the buffer's are, whatever order they came in.  (The distinct count
 * estimated from the sample's K smallest hashes, set against the buffer's
 * length, is off by about 3% either way, and took a buffer of distinct
 * keys for one with repeats about once in several thousand.)
 *
 * bloom_agg's state samples each full buffer to choose between keeping it
 * as it came and sorting it, which drops its repeats; the sample's K
 * smallest hashes are then the buffer's part of the runs' sketch
 * (bloom_kmv.h).
 */
#ifndef BLOOM_SAMPLE_H
#define BLOOM_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "bloom_core.h"
#include "bloom_kmv.h"

BLOOM_BEGIN_PRIVATE

/* Hashes below the threshold, were the buffer's distinct. */
#define BLOOM_SAMPLE_TARGET		(2 * BLOOM_KMV_SIZE)

/*
 * Hashes a sample holds at most: twice the target, which as many
 * distinct uniform hashes as the buffer holds pass with a chance below
 * 10^-300; more fall below the threshold only when the hashes are far
 * from uniform or a few of them repeat often.
 */
#define BLOOM_SAMPLE_MAX		(2 * BLOOM_SAMPLE_TARGET)

typedef struct bloom_sample
{
	uint64_t	threshold;		/* hashes below it are taken */
	size_t		nbelow;			/* how many fell below it, repeats too */
	size_t		ndistinct;		/* after bloom_sample_finish */
	bool		overflowed;		/* more than BLOOM_SAMPLE_MAX fell below */
	uint32_t	hashes[BLOOM_SAMPLE_MAX];
} bloom_sample;

/* An empty sample of a buffer of n hashes. */
extern void bloom_sample_begin(bloom_sample *sample, uint64_t n);

/* Take the hashes of one part of the buffer that fall below the threshold. */
extern void bloom_sample_add(bloom_sample *sample, const uint32_t *hashes,
							 size_t n);

/*
 * Sort the sample's hashes and drop their repeats (scratch holds
 * BLOOM_SAMPLE_MAX hashes): hashes[0 .. ndistinct - 1] then increase
 * strictly.  False, with nothing sorted, when the sample overflowed.
 */
extern bool bloom_sample_finish(bloom_sample *sample, uint32_t *scratch);

/*
 * Whether a finished sample says the buffer's hashes are distinct enough
 * to keep as they came: at least BLOOM_KMV_SIZE distinct hashes (so that
 * they hold the buffer's K smallest), and at least 9 in 10 of the sampled
 * hashes distinct.
 */
extern bool bloom_sample_mostly_distinct(const bloom_sample *sample);

BLOOM_END_PRIVATE

#endif							/* BLOOM_SAMPLE_H */
