/*
 * bloom_type_ops.c
 *		Equality, order and hashing of bloomfilter values, and the bytea
 *		cast.
 *
 * Two filters are equal when their bytes are: the same geometry and the
 * same bits.  Hashing covers the same bytes, so that equal values hash
 * alike whatever their varlena header (short, 4-byte or toasted).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "common/hashfn.h"

#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloomfilter_eq);
PG_FUNCTION_INFO_V1(bloomfilter_ne);
PG_FUNCTION_INFO_V1(bloomfilter_hash);
PG_FUNCTION_INFO_V1(bloomfilter_hash_extended);
PG_FUNCTION_INFO_V1(bloomfilter_from_bytea);
PG_FUNCTION_INFO_V1(bloomfilter_cmp);
PG_FUNCTION_INFO_V1(bloomfilter_lt);
PG_FUNCTION_INFO_V1(bloomfilter_le);
PG_FUNCTION_INFO_V1(bloomfilter_gt);
PG_FUNCTION_INFO_V1(bloomfilter_ge);

static bool
filters_equal(FunctionCallInfo fcinfo)
{
	Datum		a = PG_GETARG_DATUM(0);
	Datum		b = PG_GETARG_DATUM(1);
	bytea	   *fa;
	bytea	   *fb;
	Size		len;
	bool		result;

	/*
	 * Filters of different sizes differ; the sizes are known without
	 * fetching a stored filter, as in byteaeq.
	 */
	len = toast_raw_datum_size(a);
	if (len != toast_raw_datum_size(b))
		return false;

	fa = bloom_filter_datum_checked(a);
	fb = bloom_filter_datum_checked(b);
	result = memcmp(BloomFilterBytes(fa), BloomFilterBytes(fb),
					BloomFilterLength(fa)) == 0;
	PG_FREE_IF_COPY(fa, 0);
	PG_FREE_IF_COPY(fb, 1);
	return result;
}

Datum
bloomfilter_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_equal(fcinfo));
}

Datum
bloomfilter_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!filters_equal(fcinfo));
}

Datum
bloomfilter_hash(PG_FUNCTION_ARGS)
{
	bytea	   *f = PG_GETARG_BLOOMFILTER_CHECKED(0);
	Datum		result;

	result = hash_any(BloomFilterBytes(f), (int) BloomFilterLength(f));
	PG_FREE_IF_COPY(f, 0);
	return result;
}

Datum
bloomfilter_hash_extended(PG_FUNCTION_ARGS)
{
	bytea	   *f = PG_GETARG_BLOOMFILTER_CHECKED(0);
	Datum		result;

	result = hash_any_extended(BloomFilterBytes(f), (int) BloomFilterLength(f),
							   PG_GETARG_INT64(1));
	PG_FREE_IF_COPY(f, 0);
	return result;
}

/*
 * bytea -> bloomfilter: the bytes are a filter's binary representation,
 * so they pass the same validator as binary input, with its SQLSTATE.
 * The layouts are the same, so a valid value is returned as it is.
 */
Datum
bloomfilter_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *bytes = PG_GETARG_BYTEA_P(0);

	bloomfilter_check((const uint8 *) VARDATA(bytes), VARSIZE(bytes) - VARHDRSZ,
					  ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_BYTEA_P(bytes);
}

/*
 * The B-tree order: bytea's, the bytes compared unsigned, a prefix before
 * the longer value.  It means nothing about the keys; it is total and
 * stable, so that filters sort, index, merge-join and DISTINCT like any
 * stored value, and it agrees with = (equal exactly when the bytes are).
 */
static int
filters_cmp(FunctionCallInfo fcinfo)
{
	bytea	   *fa = PG_GETARG_BLOOMFILTER_CHECKED(0);
	bytea	   *fb = PG_GETARG_BLOOMFILTER_CHECKED(1);
	Size		alen = BloomFilterLength(fa);
	Size		blen = BloomFilterLength(fb);
	int			cmp;

	cmp = memcmp(BloomFilterBytes(fa), BloomFilterBytes(fb), Min(alen, blen));
	if (cmp == 0 && alen != blen)
		cmp = alen < blen ? -1 : 1;
	PG_FREE_IF_COPY(fa, 0);
	PG_FREE_IF_COPY(fb, 1);
	return cmp;
}

Datum
bloomfilter_cmp(PG_FUNCTION_ARGS)
{
	int			cmp = filters_cmp(fcinfo);

	PG_RETURN_INT32(cmp < 0 ? -1 : (cmp > 0 ? 1 : 0));
}

Datum
bloomfilter_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_cmp(fcinfo) < 0);
}

Datum
bloomfilter_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_cmp(fcinfo) <= 0);
}

Datum
bloomfilter_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_cmp(fcinfo) > 0);
}

Datum
bloomfilter_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_cmp(fcinfo) >= 0);
}
