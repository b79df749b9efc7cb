/*
 * bloom_agg_state.c
 *		The bloom_agg_state type: text/binary I/O, flat form, expanded form.
 *
 * Every way in (text, binary, a flat datum handed to the aggregate support
 * functions) goes through bloom_state_check, so a forged or truncated state
 * gets an error, never a read past its end.
 */
#include "postgres.h"

#include "common/base64.h"
#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "bloom_agg_state.h"
#include "bloom_pg.h"
#include "bloom_state.h"

PG_FUNCTION_INFO_V1(bloom_agg_state_in);
PG_FUNCTION_INFO_V1(bloom_agg_state_out);
PG_FUNCTION_INFO_V1(bloom_agg_state_recv);
PG_FUNCTION_INFO_V1(bloom_agg_state_send);

/*
 * A new state has room for this many hashes, and each new chunk for as many
 * as the state holds (up to BLOOM_AGG_CHUNK_MAX), so a GROUP BY over a
 * million groups of a few keys reserves little per group.
 */
#define INITIAL_CAPACITY	4

/*
 * Every state of one aggregate context lives in one shared child context,
 * found by this name's address.  A context per state would be simpler, but
 * a hash aggregate adds up the memory of all child contexts for every new
 * group, which makes a GROUP BY quadratic in the number of groups.  The
 * shared context is still a child of the aggregate context, which is what
 * lets the executor adopt a read/write state without copying it.  It must
 * never be deleted through one state: the executor deletes an expanded
 * transition value only when the transition function returns a different
 * one, and ours always return the state they were given (or create the
 * first one), so the states go away with the aggregate context's reset.
 */
static const char states_context_name[] = "bloom_agg states";

static MemoryContext
states_context(MemoryContext aggcontext)
{
	MemoryContext child;

	for (child = aggcontext->firstchild; child != NULL; child = child->nextchild)
		if (child->name == states_context_name)
			return child;
	return AllocSetContextCreateInternal(aggcontext, states_context_name,
										 ALLOCSET_DEFAULT_SIZES);
}

static Size bloom_agg_state_flat_size(ExpandedObjectHeader *eohptr);
static void bloom_agg_state_flatten(ExpandedObjectHeader *eohptr,
									void *result, Size allocated_size);

const ExpandedObjectMethods bloom_agg_state_methods = {
	bloom_agg_state_flat_size,
	bloom_agg_state_flatten
};

static BloomAggChunk *
new_chunk(MemoryContext cxt, uint64 capacity)
{
	BloomAggChunk *chunk;
	Size		bytes = offsetof(BloomAggChunk, hashes) + capacity * sizeof(uint32);

	chunk = MemoryContextAlloc(cxt, bytes);
	chunk->next = NULL;
	chunk->nhashes = 0;
	chunk->capacity = capacity;
	/* the hashes are written only now: huge pages mean far fewer faults */
	bloom_advise_huge_pages(chunk->hashes, capacity * sizeof(uint32));
	return chunk;
}

BloomAggState *
bloom_agg_state_create(MemoryContext aggcontext, int32 bits_per_key)
{
	MemoryContext objcxt = states_context(aggcontext);
	BloomAggState *state;

	state = MemoryContextAlloc(objcxt, sizeof(BloomAggState));
	EOH_init_header(&state->hdr, &bloom_agg_state_methods, objcxt);
	state->bits_per_key = bits_per_key;
	state->nhashes = 0;
	state->first = state->last = new_chunk(objcxt, INITIAL_CAPACITY);
	return state;
}

BloomAggChunk *
bloom_agg_state_add_chunk(BloomAggState *state, uint64 extra)
{
	uint64		capacity;
	BloomAggChunk *chunk;

	/*
	 * Keeps the count, and every size computed from it, far from overflow;
	 * no filter could be made of this many keys anyway.
	 */
	if (extra > MaxAllocHugeSize / sizeof(uint32) - state->nhashes)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg state cannot hold more keys"),
				 errdetail("The state would hold " UINT64_FORMAT " keys.",
						   state->nhashes + extra)));
	capacity = Max(extra, state->nhashes);
	capacity = Min(capacity, BLOOM_AGG_CHUNK_MAX);
	capacity = Max(capacity, INITIAL_CAPACITY);

	chunk = new_chunk(state->hdr.eoh_context, capacity);
	state->last->next = chunk;
	state->last = chunk;
	return chunk;
}

void
bloom_agg_state_append_all(BloomAggState *state, const BloomAggStateView *other)
{
	BloomAggRunCursor cursor;
	const uint32 *hashes;
	uint64		nhashes;

	bloom_agg_view_runs(other, &cursor);
	while (bloom_agg_view_next_run(&cursor, &hashes, &nhashes))
	{
		while (nhashes > 0)
		{
			BloomAggChunk *chunk = state->last;
			uint64		n;

			if (chunk->nhashes == chunk->capacity)
				chunk = bloom_agg_state_add_chunk(state, nhashes);
			n = Min(nhashes, chunk->capacity - chunk->nhashes);
			memcpy(chunk->hashes + chunk->nhashes, hashes, n * sizeof(uint32));
			chunk->nhashes += n;
			state->nhashes += n;
			hashes += n;
			nhashes -= n;
		}
	}
}

/* ---- flat form ---- */

static Size
flat_size_for(uint64 nhashes)
{
	uint64		size = bloom_state_size(nhashes);

	if (size == 0 || size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg state too large to pass as a value"),
				 errdetail("A state of " UINT64_FORMAT " keys takes more than the 1 GB a value may hold; it must be passed as a value to leave a parallel worker, to spill to disk or to be stored.",
						   nhashes),
				 errhint("Give each worker fewer keys, or aggregate serially with SET max_parallel_workers_per_gather = 0.")));
	return VARHDRSZ + (Size) size;
}

static Size
bloom_agg_state_flat_size(ExpandedObjectHeader *eohptr)
{
	return flat_size_for(((BloomAggState *) eohptr)->nhashes);
}

static void
write_flat(void *result, const BloomAggStateView *view)
{
	uint8	   *out = (uint8 *) VARDATA(result);
	bloom_state_header header = {view->bits_per_key, view->nhashes};
	BloomAggRunCursor cursor;
	const uint32 *hashes;
	uint64		nhashes;

	SET_VARSIZE(result, VARHDRSZ + bloom_state_size(view->nhashes));
	bloom_state_write_header(out, &header);
	out += BLOOM_STATE_HEADER_BYTES;
	bloom_agg_view_runs(view, &cursor);
	while (bloom_agg_view_next_run(&cursor, &hashes, &nhashes))
	{
#ifdef WORDS_BIGENDIAN
		for (uint64 i = 0; i < nhashes; i++)
		{
			uint32		h = pg_bswap32(hashes[i]);

			memcpy(out + 4 * i, &h, 4);
		}
#else
		memcpy(out, hashes, nhashes * sizeof(uint32));
#endif
		out += 4 * nhashes;
	}
}

static void
view_of_expanded(const BloomAggState *state, BloomAggStateView *view)
{
	view->bits_per_key = state->bits_per_key;
	view->nhashes = state->nhashes;
	view->chunks = state->first;
	view->flat_hashes = NULL;
}

static void
bloom_agg_state_flatten(ExpandedObjectHeader *eohptr, void *result,
						Size allocated_size)
{
	BloomAggStateView view;

	view_of_expanded((BloomAggState *) eohptr, &view);
	Assert(allocated_size == flat_size_for(view.nhashes));
	(void) allocated_size;		/* read only by the assertion */
	write_flat(result, &view);
}

/*
 * Check a serialized state and return it as a new flat datum: the one
 * entry point for bytes from outside.
 */
static struct varlena *
flat_from_bytes(const uint8 *bytes, Size len, int sqlstate)
{
	bloom_state_header header;
	bloom_status status = bloom_state_check(bytes, len, &header);
	struct varlena *result;

	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloom_agg_state value");
	result = palloc(flat_size_for(header.nhashes));
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	return result;
}

void
bloom_agg_state_view(Datum d, BloomAggStateView *view)
{
	struct varlena *flat;
	bloom_state_header header;
	bloom_status status;
	const uint8 *hashes;

	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);
		BloomAggState *state = (BloomAggState *) eoh;

		if (eoh->eoh_methods != &bloom_agg_state_methods)
			elog(ERROR, "expanded object is not a bloom_agg state");
		view_of_expanded(state, view);
		return;
	}

	/*
	 * A flat state may come from a parallel worker, a table or a user: check
	 * it as any input.  Detoasting gives a 4-byte header and an aligned
	 * payload, so on little-endian machines the hashes are read in place.
	 */
	flat = PG_DETOAST_DATUM(d);
	status = bloom_state_check((const uint8 *) VARDATA(flat),
							   VARSIZE(flat) - VARHDRSZ, &header);
	if (status != BLOOM_OK)
		bloom_report_invalid(status, ERRCODE_DATA_CORRUPTED,
							 "bloom_agg_state value");
	hashes = (const uint8 *) VARDATA(flat) + BLOOM_STATE_HEADER_BYTES;
	view->bits_per_key = header.bits_per_key;
	view->nhashes = header.nhashes;
	view->chunks = NULL;
#ifdef WORDS_BIGENDIAN
	{
		uint32	   *native = palloc_extended(header.nhashes * sizeof(uint32),
											 MCXT_ALLOC_HUGE);

		for (uint64 i = 0; i < header.nhashes; i++)
			native[i] = bloom_state_hash_at(hashes, i);
		view->flat_hashes = native;
	}
#else
	view->flat_hashes = (const uint32 *) hashes;
#endif
}

/* ---- I/O: binary is the serialized layout, text is its base64 ---- */

Datum
bloom_agg_state_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	size_t		textlen = strlen(text);
	int			maxlen;
	int			len;
	uint8	   *bytes;

	/* base64 needs at most 3 bytes for 4 characters */
	maxlen = pg_b64_dec_len((int) textlen);
	bytes = palloc(maxlen);
	len = pg_b64_decode(text, (int) textlen, (bloom_b64_binary *) bytes, maxlen);
	if (len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bloom_agg_state"),
				 errdetail("The value is not valid base64.")));
	PG_RETURN_POINTER(flat_from_bytes(bytes, len,
									  ERRCODE_INVALID_TEXT_REPRESENTATION));
}

Datum
bloom_agg_state_out(PG_FUNCTION_ARGS)
{
	BloomAggStateView view;
	struct varlena *flat;
	int			textlen;
	char	   *text;
	Size		len;

	bloom_agg_state_view(PG_GETARG_DATUM(0), &view);
	len = flat_size_for(view.nhashes) - VARHDRSZ;
	if (len > (MaxAllocSize / 4) * 3 - 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg state too large for its text form"),
				 errdetail("A state of " UINT64_FORMAT " keys would exceed 1 GB as base64 text.",
						   view.nhashes),
				 errhint("Use binary transfer, or give each worker fewer keys.")));
	flat = palloc(VARHDRSZ + len);
	write_flat(flat, &view);
	textlen = pg_b64_enc_len((int) len);
	text = palloc(textlen + 1);
	textlen = pg_b64_encode((const bloom_b64_binary *) VARDATA(flat), (int) len,
							 text, textlen);
	if (textlen < 0)
		elog(ERROR, "could not encode bloom_agg state as base64");
	text[textlen] = '\0';
	PG_RETURN_CSTRING(text);
}

Datum
bloom_agg_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	struct varlena *result;

	result = flat_from_bytes((const uint8 *) buf->data + buf->cursor,
							 buf->len - buf->cursor,
							 ERRCODE_INVALID_BINARY_REPRESENTATION);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(result);
}

Datum
bloom_agg_state_send(PG_FUNCTION_ARGS)
{
	BloomAggStateView view;
	bytea	   *result;

	bloom_agg_state_view(PG_GETARG_DATUM(0), &view);
	result = palloc(flat_size_for(view.nhashes));
	write_flat(result, &view);
	PG_RETURN_BYTEA_P(result);
}
