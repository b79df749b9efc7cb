/*
 * bloom_type_io.c
 *		Text and binary input/output of the bloomfilter type.
 *
 * The text form is bytea's hex form ("\x" and two digits a byte); the
 * binary form is the filter bytes as they are.  Both decode first and then
 * pass through bloomfilter_from_bytes, so they accept exactly the same
 * values.
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "utils/memutils.h"

#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloomfilter_in);
PG_FUNCTION_INFO_V1(bloomfilter_out);
PG_FUNCTION_INFO_V1(bloomfilter_recv);
PG_FUNCTION_INFO_V1(bloomfilter_send);

Datum
bloomfilter_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	size_t		textlen = strlen(text);
	size_t		len;
	uint8	   *bytes;
	bytea	   *result;
	bloom_status status;

	/*
	 * Decode straight into the datum, checking in the same pass: the text
	 * may be hundreds of MB, and is read once after strlen.
	 */
	result = (bytea *) palloc(VARHDRSZ + bloom_hex_decoded_max(textlen));
	bytes = (uint8 *) VARDATA(result);
	status = bloom_hex_decode(text, textlen, bytes, &len);
	if (status != BLOOM_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bloomfilter"),
				 errdetail("%s", bloom_status_message(status)),
				 errhint("A bloomfilter is written as \\x followed by two hex digits a byte, as bytea prints it.")));
	SET_VARSIZE(result, VARHDRSZ + len);

	bloomfilter_check(bytes, len, ERRCODE_INVALID_TEXT_REPRESENTATION);
	PG_RETURN_POINTER(result);
}

Datum
bloomfilter_out(PG_FUNCTION_ARGS)
{
	bytea	   *filter = bloom_filter_arg_for_output(fcinfo, 0);
	Size		len = BloomFilterLength(filter);
	char	   *text;
	size_t		textlen;

	if (len > (MaxAllocSize - 3) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter value too large for its text form"),
				 errdetail("The filter has %zu bytes; its hex text would exceed 1 GB.", len),
				 errhint("Use binary output, for example COPY ... (FORMAT binary).")));

	text = palloc(bloom_hex_encoded_len(len) + 1);
	textlen = bloom_hex_encode(BloomFilterBytes(filter), len, text);
	text[textlen] = '\0';
	PG_RETURN_CSTRING(text);
}

Datum
bloomfilter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	Size		len = buf->len - buf->cursor;
	bytea	   *result;

	result = bloomfilter_from_bytes((const uint8 *) buf->data + buf->cursor,
									len, ERRCODE_INVALID_BINARY_REPRESENTATION);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(result);
}

Datum
bloomfilter_send(PG_FUNCTION_ARGS)
{
	bytea	   *filter = bloom_filter_arg_for_output(fcinfo, 0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) BloomFilterBytes(filter),
				 BloomFilterLength(filter));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
