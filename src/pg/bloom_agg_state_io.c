/*
 * bloom_agg_state_io.c
 *		The bloom_agg_state type's text and binary I/O, and the reading of
 *		any state datum, flat or expanded (see bloom_agg_state_io.h).
 *
 * Every way in (text, binary, a flat datum handed to the aggregate support
 * functions) goes through bloom_state_check, then bloom_state_check_code
 * or bloom_state_read_hashes,
 * so a forged or truncated state gets an error, never a read past its end.
 */
#include "postgres.h"

#include "common/base64.h"
#include "libpq/pqformat.h"
#include "utils/memutils.h"

#include "bloom_agg_flat.h"
#include "bloom_agg_state.h"
#include "bloom_agg_state_io.h"
#include "bloom_pg.h"
#include "bloom_state.h"

PG_FUNCTION_INFO_V1(bloom_agg_state_in);
PG_FUNCTION_INFO_V1(bloom_agg_state_out);
PG_FUNCTION_INFO_V1(bloom_agg_state_recv);
PG_FUNCTION_INFO_V1(bloom_agg_state_send);

static void
check_bytes(const uint8 *bytes, Size len, int sqlstate,
			bloom_state_header *header)
{
	bloom_status status = bloom_state_check(bytes, len, header);

	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloom_agg_state value");
}

void *
bloom_agg_state_read_hashes(const uint8 *bytes, const bloom_state_header *header,
							int sqlstate, MemoryContext cxt, Size prefix)
{
	void	   *area;
	bloom_status status;

	/* bloom_state_check bounded the count by the bytes it came in */
	area = bloom_alloc_hashes(cxt, prefix, Max(header->nhashes, 1));
	status = bloom_state_read_hashes(bytes, header,
									 (uint32 *) ((char *) area + prefix));
	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloom_agg_state value");
	return area;
}

/*
 * Check a serialized state, a gap code decoded too (its hashes let go as
 * they come, so that a large state's input needs no room for them), and
 * return it as a new flat datum: the one entry point for bytes from
 * outside.
 */
static struct varlena *
flat_from_bytes(const uint8 *bytes, Size len, int sqlstate)
{
	bloom_state_header header;
	struct varlena *result;
	bloom_status status;

	check_bytes(bytes, len, sqlstate, &header);
	status = bloom_state_check_code(bytes, &header);
	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloom_agg_state value");
	result = palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	return result;
}

/* ---- reading any state datum --------------------------------------------- */

BloomAggState *
bloom_agg_state_expanded(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	if (eoh->eoh_methods != &bloom_agg_state_methods)
		elog(ERROR, "expanded object is not a bloom_agg state");
	return (BloomAggState *) eoh;
}

struct varlena *
bloom_agg_state_detoasted(Datum d, bloom_state_header *header)
{
	struct varlena *flat = PG_DETOAST_DATUM(d);

	check_bytes((const uint8 *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ,
				ERRCODE_DATA_CORRUPTED, header);
	return flat;
}

/* Room to decode nhashes hashes into, in the current context. */
static uint32 *
decode_room(uint64 nhashes)
{
	return bloom_alloc_hashes(CurrentMemoryContext, 0, Max(nhashes, 1));
}

void
bloom_agg_state_view(Datum d, BloomAggStateView *view)
{
	BloomAggState *state = bloom_agg_state_expanded(d);
	struct varlena *flat;
	bloom_state_header header;
	const uint8 *bytes;

	if (state != NULL)
	{
		view->bits_per_key = state->bits_per_key;
		view->nkeys = state->nkeys;
		view->nhashes = bloom_agg_state_hashes(state);
		view->sorted = state->nbuffered == 0 && state->shared == NULL;
		for (const BloomAggRun *run = state->runs; run != NULL; run = run->next)
			view->sorted &= run->sorted;
		view->runs = bloom_agg_state_blocks(state, CurrentMemoryContext, true,
											&view->nruns);
		return;
	}

	flat = bloom_agg_state_detoasted(d, &header);
	bytes = (const uint8 *) VARDATA(flat);
	view->bits_per_key = header.bits_per_key;
	view->nkeys = header.nkeys;
	view->nhashes = header.nhashes;
	view->sorted = header.version == BLOOM_STATE_VERSION_GAPS;
	view->runs = palloc0(sizeof(bloom_hash_run));
	view->nruns = header.nhashes > 0 ? 1 : 0;
	view->runs[0].n = header.nhashes;
	if (header.version == BLOOM_STATE_VERSION_GAPS)
	{
		/* decoded, and checked, by the final, on its threads */
		uint32	   *room = decode_room(header.nhashes);

		view->runs[0].hashes = room;
		view->runs[0].decode_into = room;
		view->runs[0].code = bytes + header.payload_offset;
		view->runs[0].code_len = header.payload_len;
		return;
	}
#ifndef WORDS_BIGENDIAN
	view->runs[0].hashes = (const uint32 *) (bytes + header.payload_offset);
#else
	view->runs[0].hashes = bloom_agg_state_read_hashes(bytes, &header,
													   ERRCODE_DATA_CORRUPTED,
													   CurrentMemoryContext, 0);
#endif
}

/* ---- I/O: binary is the serialized layout, text is its base64 ---- */

/*
 * The flat bytes of any state datum: an expanded state's flat form (made
 * and kept), or a flat one as it is, checked as the aggregate functions
 * check it (a parallel query's reference, which no input accepts, is
 * refused here too).
 */
static const uint8 *
serialized_bytes(Datum d, Size *len)
{
	BloomAggState *state = bloom_agg_state_expanded(d);
	struct varlena *flat;
	bloom_state_header header;

	if (state != NULL)
	{
		bloom_agg_state_make_flat(state);
		*len = state->flat_size - VARHDRSZ;
		return state->flat + VARHDRSZ;
	}
	flat = bloom_agg_state_detoasted(d, &header);
	*len = VARSIZE(flat) - VARHDRSZ;
	return (const uint8 *) VARDATA(flat);
}

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
	Size		len;
	const uint8 *bytes = serialized_bytes(PG_GETARG_DATUM(0), &len);
	int			textlen;
	char	   *text;

	if (len > (MaxAllocSize / 4) * 3 - 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg state too large for its text form"),
				 errdetail("A state of %zu bytes would exceed 1 GB as base64 text.",
						   (size_t) len),
				 errhint("Use binary transfer, or give each worker fewer keys.")));
	textlen = pg_b64_enc_len((int) len);
	text = palloc(textlen + 1);
	textlen = pg_b64_encode((const bloom_b64_binary *) bytes, (int) len,
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
	Size		len;
	const uint8 *bytes = serialized_bytes(PG_GETARG_DATUM(0), &len);
	bytea	   *result;

	result = palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	PG_RETURN_BYTEA_P(result);
}
