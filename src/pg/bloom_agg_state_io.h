/*
 * bloom_agg_state_io.h
 *		Reading a bloom_agg_state datum, for the expanded state's files:
 *		ours when it is an expanded one, and a flat one checked as any input
 *		is (bloom_agg_state_io.c).
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_AGG_STATE_IO_H
#define BLOOM_AGG_STATE_IO_H

#include "bloom_agg_state.h"
#include "bloom_state.h"

BLOOM_BEGIN_PRIVATE

/*
 * Our expanded state if d is an expanded object (read-only or read/write),
 * an error if it is another's, else NULL.
 */
extern BloomAggState *bloom_agg_state_expanded(Datum d);

/*
 * A flat state, detoasted and checked (into *header): it may come from a
 * parallel worker, a table or a user, so it is checked as any input.
 * Detoasting gives a 4-byte header and an aligned payload, so a version 1
 * state's hashes are read in place where the byte order allows.
 */
extern struct varlena *bloom_agg_state_detoasted(Datum d,
												 bloom_state_header *header);

/*
 * A checked state's hashes, read (a gap code decoded and checked) into a
 * new allocation in cxt, after prefix bytes left for the caller.
 */
extern void *bloom_agg_state_read_hashes(const uint8 *bytes,
										 const bloom_state_header *header,
										 int sqlstate, MemoryContext cxt,
										 Size prefix);

BLOOM_END_PRIVATE

#endif							/* BLOOM_AGG_STATE_IO_H */
