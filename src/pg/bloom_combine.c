/*
 * bloom_combine.c
 *		Changing filters: bloom_add, bloom_union (|), bloom_intersect (&)
 *		and the bloom_union_agg aggregate.
 *
 * The functions return new values and never write into their inputs, which
 * may be a stored tuple's bytes or our per-call-site cache.  The one
 * exception is the aggregate's transition function, which owns its state.
 */
#include "postgres.h"

#include "bloom_key_arg.h"
#include "bloom_pg.h"
#include "bloom_setops.h"

PG_FUNCTION_INFO_V1(bloom_union);
PG_FUNCTION_INFO_V1(bloom_intersect);
PG_FUNCTION_INFO_V1(bloom_union_agg_transfn);

/* A new plain (4-byte header) filter value holding a copy of f. */
static bytea *
copy_filter(const bytea *f)
{
	Size		len = BloomFilterLength(f);
	bytea	   *copy = (bytea *) palloc(VARHDRSZ + len);

	SET_VARSIZE(copy, VARHDRSZ + len);
	memcpy(VARDATA(copy), BloomFilterBytes(f), len);
	return copy;
}

static void
check_same_geometry(const bytea *a, const bytea *b, const char *funcname)
{
	const uint8 *ab = BloomFilterBytes(a);
	const uint8 *bb = BloomFilterBytes(b);
	Size		alen = BloomFilterLength(a);
	Size		blen = BloomFilterLength(b);

	if (!bloom_same_geometry(ab, alen, bb, blen))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs filters of the same size and k", funcname),
				 errdetail("The first filter has %zu bytes and k = %u; the second has %zu bytes and k = %u.",
						   alen, (unsigned) ab[alen - 1],
						   blen, (unsigned) bb[blen - 1]),
				 errhint("Filters of one size come from bloom_agg over the same number of keys at the same bits_per_key, or from bloom_add on empty filters of that size.")));
}

/*
 * bloom_add(filter, key): a copy of the filter with the key's bits set, in
 * the filter's own geometry, as CreateFilter would have set them.  The
 * filter is usually the same stored value row after row, so it is read
 * through the cache.
 */
static pg_attribute_always_inline Datum
add_key(FunctionCallInfo fcinfo,
		uint32 (*key_hash) (FunctionCallInfo fcinfo, int argno))
{
	bytea	   *filter = bloom_filter_arg_cached(fcinfo, 0);
	Size		len = BloomFilterLength(filter);
	bytea	   *result = copy_filter(filter);
	uint8	   *bytes = (uint8 *) VARDATA(result);

	bloom_set_hash(bytes, (uint64) (len - 1) * 8, bytes[len - 1],
				   key_hash(fcinfo, 1));
	PG_RETURN_BYTEA_P(result);
}

BLOOM_KEY_ENTRY_POINTS(bloom_add, add_key)

typedef void (*bits_op) (uint8_t *dst, const uint8_t *src, size_t len);

/* A new filter: a copy of argument 0 combined with argument 1 by op. */
static bytea *
combine_args(FunctionCallInfo fcinfo, bits_op op, const char *funcname)
{
	bytea	   *a = bloom_filter_arg_cached(fcinfo, 0);
	bytea	   *b = bloom_filter_arg_cached(fcinfo, 1);
	bytea	   *result;

	check_same_geometry(a, b, funcname);
	result = copy_filter(a);
	op((uint8 *) VARDATA(result), BloomFilterBytes(b), BloomFilterLength(b));
	return result;
}

/* a | b */
Datum
bloom_union(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(combine_args(fcinfo, bloom_union_into, "bloom_union"));
}

/* a & b */
Datum
bloom_intersect(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(combine_args(fcinfo, bloom_intersect_into, "bloom_intersect"));
}

/*
 * bloom_union_agg's transition and combine function: state | filter.
 *
 * Strict, with no initial value: PostgreSQL makes the first non-NULL input
 * the state by copying it into the aggregate context, so from then on the
 * state is the executor's and is OR-ed into in place, one pass over the
 * bits a row.  That copy keeps the datum as it was, though: a short
 * header, compressed, or the TOAST pointer of a stored filter; and a
 * user's aggregate may hand over any filter as its state (an inverse
 * function's result, an initial value).  Such a state is replaced once by
 * a checked plain copy, made in the per-call context: the executor copies
 * a new state into the aggregate context itself and frees the old one, so
 * a copy made there would only be left behind.  Outside an aggregate, and
 * as an ordered-set aggregate's final function (bloom_agg_may_write_state),
 * the function is bloom_union.
 */
Datum
bloom_union_agg_transfn(PG_FUNCTION_ARGS)
{
	struct varlena *state = (struct varlena *) PG_GETARG_POINTER(0);
	bytea	   *filter = PG_GETARG_BLOOMFILTER_CHECKED(1);
	bytea	   *result;

	if (!VARATT_IS_EXTENDED(state) && bloom_agg_may_write_state(fcinfo))
		result = (bytea *) state;
	else
		result = (bytea *) PG_DETOAST_DATUM_COPY(PointerGetDatum(state));
	bloomfilter_check(BloomFilterBytes(result), BloomFilterLength(result),
					  ERRCODE_DATA_CORRUPTED);

	check_same_geometry(result, filter, "bloom_union_agg");
	bloom_union_into((uint8 *) VARDATA(result), BloomFilterBytes(filter),
					 BloomFilterLength(filter));
	PG_RETURN_BYTEA_P(result);
}
