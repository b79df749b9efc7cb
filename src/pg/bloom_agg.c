/*
 * bloom_agg.c
 *		bloom_agg(key, bits_per_key): transition, combine and final functions.
 *
 * The state keeps only 32-bit key hashes, because the filter's size depends
 * on the total number of keys, known only at the end.  The filter bits are
 * an OR over keys, so the result is the same for any order of the rows and
 * any split of them between partial aggregates.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "bloom_agg_state.h"
#include "bloom_key_arg.h"
#include "bloom_pg.h"
#include "bloom_trace_pg.h"

PG_FUNCTION_INFO_V1(bloom_agg_combinefn);
PG_FUNCTION_INFO_V1(bloom_agg_finalfn);

static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *funcname)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as part of an aggregate", funcname)));
	return aggcontext;
}

static void
check_same_bits_per_key(int32 state_bpk, int32 other_bpk)
{
	if (state_bpk != other_bpk)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_agg bits_per_key must be the same for every row of a group"),
				 errdetail("The group started with %d bits per key and then got %d.",
						   state_bpk, other_bpk)));
}

/*
 * writable_state's first call of a group: a new state, holding a copy of a
 * flat or read-only input.  Out of line, so that the per-row path keeps no
 * view on its stack (and so no stack protector) and saves fewer registers.
 */
static pg_noinline BloomAggState *
new_writable_state(FunctionCallInfo fcinfo, int32 bits_per_key, const char *funcname)
{
	BloomAggState *state;
	BloomAggStateView input;

	BLOOM_TRACE_LOG("new state %s", funcname);
	if (PG_ARGISNULL(0))
	{
		state = bloom_agg_state_create(aggregate_context(fcinfo, funcname),
									   bits_per_key);
		bloom_handoff_target(fcinfo, &state->handoff);
		return state;
	}

	bloom_agg_state_view(PG_GETARG_DATUM(0), &input);
	state = bloom_agg_state_create(aggregate_context(fcinfo, funcname),
								   input.bits_per_key);
	bloom_agg_state_absorb(state, PG_GETARG_DATUM(0));
	return state;
}

/*
 * The state we may append to: the read/write expanded state the executor
 * hands back row after row, or else (first row, or a flat or read-only
 * input) a new one in the aggregate context holding a copy.
 */
static inline BloomAggState *
writable_state(FunctionCallInfo fcinfo, int32 bits_per_key, const char *funcname)
{
	/* the per-row case first: only the executor holds a read/write pointer */
	if (likely(!PG_ARGISNULL(0)))
	{
		BloomAggState *state = bloom_agg_state_if_rw(PG_GETARG_DATUM(0));

		if (likely(state != NULL))
			return state;
	}
	return new_writable_state(fcinfo, bits_per_key, funcname);
}

/*
 * bloom_agg's transition: bloom_agg_transfn(state, key, bits_per_key) for
 * each key type, the key's hash given by key_hash.
 *
 * Per row: one hash and one store, no allocation but the amortised growth
 * of the buffer, and its sort into a run each BLOOM_AGG_BUFFER_MAX keys.
 */
static pg_attribute_always_inline Datum
agg_transfn(FunctionCallInfo fcinfo,
			uint32 (*key_hash) (FunctionCallInfo fcinfo, int argno))
{
	BloomAggState *state;
	int32		bits_per_key;

	if (PG_ARGISNULL(1))
	{
		/*
		 * NULL keys are skipped, and leave the state as it was; outside an
		 * aggregate, the same error as for any other key.  (A row that adds
		 * a key checks that where it makes its state: only the executor
		 * hands over our read/write state.)
		 */
		(void) aggregate_context(fcinfo, "bloom_agg_transfn");
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bits_per_key must not be null"),
				 errhint("bloom_bits_per_key(target_fpr) gives the bits_per_key for a false-positive rate; 11 give about 1%%.")));
	bits_per_key = PG_GETARG_INT32(2);

	if (PG_ARGISNULL(0))
		bloom_check_bits_per_key(bits_per_key);
	state = writable_state(fcinfo, bits_per_key, "bloom_agg_transfn");
	check_same_bits_per_key(state->bits_per_key, bits_per_key);

	bloom_agg_state_append(state, key_hash(fcinfo, 1));
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

BLOOM_KEY_ENTRY_POINTS(bloom_agg_transfn, agg_transfn)

/*
 * bloom_agg_combinefn(state, state): the keys of both.  The second input is
 * only read; the first is appended to in place when it is our read/write
 * expanded state, otherwise copied first.  Only inside an aggregate, NULL
 * states included, as bloom_agg_transfn: outside one it is an error
 * (0A000), never a result.
 */
Datum
bloom_agg_combinefn(PG_FUNCTION_ARGS)
{
	BloomAggState *state;
	BloomAggStateView other;
	BloomHandoffHashes shared;
	bool		handed_off;
	int32		bits_per_key;

	(void) aggregate_context(fcinfo, "bloom_agg_combinefn");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	/* a parallel worker's state handed off in shared memory, or any other */
	handed_off = bloom_handoff_is_reference(PG_GETARG_DATUM(1));
	if (handed_off)
	{
		BLOOM_TRACE_LOG("absorb start");
		bloom_handoff_read(fcinfo, PG_GETARG_DATUM(1), &shared);
		bits_per_key = shared.bits_per_key;
	}
	else
	{
		bloom_agg_state_view(PG_GETARG_DATUM(1), &other);
		bits_per_key = other.bits_per_key;
	}

	if (PG_ARGISNULL(0))
		state = bloom_agg_state_create(aggregate_context(fcinfo, "bloom_agg_combinefn"),
									   bits_per_key);
	else
		state = writable_state(fcinfo, bits_per_key, "bloom_agg_combinefn");
	check_same_bits_per_key(state->bits_per_key, bits_per_key);

	if (handed_off)
	{
		bloom_agg_state_absorb_shared(state, &shared);
		BLOOM_TRACE_LOG("absorb end hashes=" UINT64_FORMAT, shared.nhashes);
	}
	else
		bloom_agg_state_absorb(state, PG_GETARG_DATUM(1));
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

/*
 * bloom_agg_finalfn(state): the LevelDB filter of all keys.  Only reads the
 * state, so it can run once per row of a window.
 */
Datum
bloom_agg_finalfn(PG_FUNCTION_ARGS)
{
	BloomAggStateView view;
	bloom_geometry geometry;
	bytea	   *result;

	BLOOM_TRACE_LOG("final start");
	bloom_agg_state_view(PG_GETARG_DATUM(0), &view);

	/* A state's fields were checked when it was read; only the size can fail. */
	bloom_value_geometry(view.nkeys, view.bits_per_key, &geometry);
	result = bloom_new_unzeroed_filter(&geometry);
	bloom_build_filter_from_runs((uint8 *) VARDATA(result), &geometry,
								 view.runs, view.nruns, view.nhashes);
	BLOOM_TRACE_LOG("final end keys=" UINT64_FORMAT " hashes=" UINT64_FORMAT " runs=%d",
					view.nkeys, view.nhashes, view.nruns);
	PG_RETURN_POINTER(result);
}
