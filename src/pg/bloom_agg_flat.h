/*
 * bloom_agg_flat.h
 *		An expanded bloom_agg state's flat form, for the output functions
 *		(bloom_agg_state_io.c); PostgreSQL asks for it through the
 *		expanded object's methods (bloom_agg_state_methods).
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_AGG_FLAT_H
#define BLOOM_AGG_FLAT_H

#include "bloom_agg_state.h"

BLOOM_BEGIN_PRIVATE

/*
 * The flat form of an expanded state, made and kept in the state
 * (state->flat, state->flat_size) while its keys hold.
 */
extern void bloom_agg_state_make_flat(BloomAggState *state);

BLOOM_END_PRIVATE

#endif							/* BLOOM_AGG_FLAT_H */
