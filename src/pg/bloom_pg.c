/*
 * bloom_pg.c
 *		Core status codes to PostgreSQL errors, and the shared validator.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "bloom_pg.h"

void
bloom_report_invalid(bloom_status status, int sqlstate, const char *what)
{
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("invalid %s", what),
			 errdetail("%s", bloom_status_message(status))));
	pg_unreachable();
}

void
bloomfilter_check(const uint8 *bytes, Size len, int sqlstate)
{
	bloom_status status = bloom_validate(bytes, len);

	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloomfilter value");
}

bytea *
bloomfilter_from_bytes(const uint8 *bytes, Size len, int sqlstate)
{
	bytea	   *result;

	bloomfilter_check(bytes, len, sqlstate);
	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter value too large"),
				 errdetail("The filter has %zu bytes; a value is limited to %zu bytes.",
						   len, (Size) (MaxAllocSize - VARHDRSZ))));

	result = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	return result;
}

void
bloom_check_bits_per_key(int64 bits_per_key)
{
	if (bits_per_key < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bits_per_key must not be negative"),
				 errdetail("bits_per_key was " INT64_FORMAT ".", bits_per_key),
				 errhint("LevelDB filters use 10 bits per key for about 1%% false positives.")));
}
