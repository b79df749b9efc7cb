/*
 * bloom_reserved.c
 *		Filters sized before their keys arrive: bloom_empty, bloom_add of an
 *		array of keys, and the fixed-geometry bloom_agg(key, bits_per_key,
 *		expected_keys).
 *
 * A reserved filter has the geometry CreateFilter gives expected_keys keys.
 * Filling it with exactly that many keys gives CreateFilter's bytes; with
 * more or fewer it is still a valid LevelDB filter of that geometry (every
 * key added matches), only its false-positive rate differs.  Filters of one
 * geometry can be OR-ed (bloom_union), across days, shards or workers.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "bloom_key_arg.h"
#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_empty);
PG_FUNCTION_INFO_V1(bloom_add_array);

/* The geometry of expected_keys keys at bits_per_key, both checked. */
static void
reserved_geometry(int64 expected_keys, int32 bits_per_key,
				  bloom_geometry *geometry)
{
	bloom_check_key_count("expected_keys", expected_keys);
	bloom_check_bits_per_key(bits_per_key);
	bloom_value_geometry((uint64) expected_keys, bits_per_key, geometry);
}

/* bloom_empty(expected_keys, bits_per_key): no key yet, the geometry of expected_keys. */
Datum
bloom_empty(PG_FUNCTION_ARGS)
{
	bloom_geometry geometry;

	reserved_geometry(PG_GETARG_INT64(0), PG_GETARG_INT32(1), &geometry);
	PG_RETURN_BYTEA_P(bloom_new_empty_filter(&geometry));
}

/*
 * The hash of an array element of type elemtype: one of the key types, or
 * a type that reached text[] or bytea[] as its binary-compatible array
 * (varchar[]), whose elements are text's.
 */
static inline uint32
element_hash(Oid elemtype, Datum element)
{
	switch (elemtype)
	{
		case INT2OID:
			return bloom_int_key_hash(DatumGetInt16(element));
		case INT4OID:
			return bloom_int_key_hash(DatumGetInt32(element));
		case INT8OID:
			return bloom_int_key_hash(DatumGetInt64(element));
		case UUIDOID:
			return bloom_uuid_key_hash(DatumGetUUIDP(element)->data);
		default:
			/* an array holds its elements inline, never compressed */
			return bloom_varlena_key_hash((struct varlena *) DatumGetPointer(element));
	}
}

/*
 * bloom_add(filter, keys[]): a copy of the filter with every non-NULL
 * element's bits set, in the filter's own geometry.  One copy of the
 * filter for the whole array; every key array type shares this function.
 */
Datum
bloom_add_array(PG_FUNCTION_ARGS)
{
	bytea	   *filter = bloom_filter_arg_cached(fcinfo, 0);
	ArrayType  *keys = PG_GETARG_ARRAYTYPE_P(1);
	Oid			elemtype = ARR_ELEMTYPE(keys);
	Size		len = BloomFilterLength(filter);
	bytea	   *result;
	uint8	   *bytes;
	bloom_prepared prepared;
	ArrayIterator it;
	Datum		element;
	bool		isnull;

	/* text keys: the collation of the array, as text[]'s "=" would use */
	bloom_key_collation_check(PG_GET_COLLATION());
	/* the SQL functions are declared for key arrays alone */
	if (!(elemtype == INT2OID || elemtype == INT4OID || elemtype == INT8OID ||
		  elemtype == UUIDOID || get_typlen(elemtype) == -1))
		elog(ERROR, "bloom_add: arrays of type %u are not key arrays", elemtype);

	result = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	bytes = (uint8 *) VARDATA(result);
	memcpy(bytes, BloomFilterBytes(filter), len);
	bloom_prepare(&prepared, (uint64) (len - 1) * 8, bytes[len - 1]);

	it = array_create_iterator(keys, 0, NULL);
	while (array_iterate(it, &element, &isnull))
	{
		uint32		hash;

		if (isnull)
			continue;
		hash = element_hash(elemtype, element);
		bloom_prepared_set_hashes(&prepared, bytes, &hash, 1);
	}
	array_free_iterator(it);
	PG_RETURN_BYTEA_P(result);
}

/*
 * The geometry of the last (bits_per_key, expected_keys) a call site saw,
 * so that rows after the first check their arguments with no division;
 * and whether the call site may set bits in its state where it lies.
 */
typedef struct FixedAggCache
{
	int32		bits_per_key;
	int64		expected_keys;
	bloom_geometry geometry;
	bloom_prepared prepared;
	bool		in_place;		/* bloom_agg_may_write_state */
} FixedAggCache;

static FixedAggCache *
fixed_geometry(FunctionCallInfo fcinfo, int32 bits_per_key, int64 expected_keys)
{
	FixedAggCache *cache = (FixedAggCache *) fcinfo->flinfo->fn_extra;
	bloom_geometry geometry;

	if (cache != NULL && cache->bits_per_key == bits_per_key &&
		cache->expected_keys == expected_keys)
		return cache;

	reserved_geometry(expected_keys, bits_per_key, &geometry);
	if (cache == NULL)
	{
		cache = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(FixedAggCache));
		/* a call site's aggregate, and so its role in it, never changes */
		cache->in_place = bloom_agg_may_write_state(fcinfo);
		fcinfo->flinfo->fn_extra = cache;
	}
	cache->bits_per_key = bits_per_key;
	cache->expected_keys = expected_keys;
	cache->geometry = geometry;
	bloom_prepare(&cache->prepared, geometry.bits, geometry.k);
	return cache;
}

/*
 * A state the row's path cannot set bits in where it lies: in a form other
 * than a plain inline value (a short header, compressed, out of line: what
 * an inverse function, an initial value or a first input may hand over),
 * of another geometry, or in a call that may not change it.  Detoasted,
 * checked like any input, and copied into the per-call context, from which
 * the executor copies what the transition returns into its aggregate
 * context; the next row then gets that copy, plain.
 */
static pg_noinline bytea *
fixed_state_copy(Datum d, const FixedAggCache *cache)
{
	bytea	   *filter = bloom_filter_datum_checked(d);
	const uint8 *bytes = BloomFilterBytes(filter);
	Size		len = BloomFilterLength(filter);
	bytea	   *copy;

	if (len != cache->geometry.filter_bytes || bytes[len - 1] != cache->geometry.k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_agg bits_per_key and expected_keys must be the same for every row of a group"),
				 errdetail("The group's filter has %zu bytes and k = %u; %d bits per key for " INT64_FORMAT " keys gives " UINT64_FORMAT " bytes and k = %u.",
						   len, (unsigned) bytes[len - 1],
						   cache->bits_per_key, cache->expected_keys,
						   cache->geometry.filter_bytes, cache->geometry.k)));
	copy = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(copy, VARHDRSZ + len);
	memcpy(VARDATA(copy), bytes, len);
	return copy;
}

/*
 * bloom_agg(key, bits_per_key, expected_keys)'s transition, for each key
 * type: sets the key's bits in a state that is the filter itself, made on
 * the group's first non-NULL key in the geometry of expected_keys keys.
 * Memory is the filter's, however many rows come, and there is no final
 * pass.  Not strict: NULL keys are skipped.  The combine function is
 * bloom_union_agg_transfn (an OR of filters of one geometry).
 *
 * The state is the executor's: it copies whatever a transition returns
 * that is not its first argument into the aggregate context, and hands
 * that copy to the next call, which PostgreSQL lets a transition change
 * in place.  A user's aggregate can pass anything of type bloomfilter
 * through it, though (an inverse function's result, an initial value), so
 * the state is set in place only as a plain inline value of exactly the
 * geometry's length and k byte, which is a valid filter of that geometry:
 * a test of its header's first word and one byte, row after row, and no
 * copy.  Anything else goes through fixed_state_copy.
 */
static pg_attribute_always_inline Datum
fixed_transfn(FunctionCallInfo fcinfo,
			  uint32 (*key_hash) (FunctionCallInfo fcinfo, int argno))
{
	FixedAggCache *cache;
	bytea	   *state;
	uint32		hash;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloom_agg_fixed_transfn can only be called as part of an aggregate")));

	if (PG_ARGISNULL(1))
	{
		/* NULL keys are skipped, and leave the state as it was */
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", PG_ARGISNULL(2) ? "bits_per_key" : "expected_keys"),
				 errhint("bloom_agg(key, bits_per_key, expected_keys) sizes the filter for expected_keys keys before the first row.")));

	cache = fixed_geometry(fcinfo, PG_GETARG_INT32(2), PG_GETARG_INT64(3));
	if (PG_ARGISNULL(0))
	{
		/*
		 * In the per-call context: the executor copies it into the
		 * aggregate context, and one made there would stay there unused
		 * until the group's end.
		 */
		state = bloom_new_empty_filter(&cache->geometry);
	}
	else
	{
		state = (bytea *) PG_GETARG_POINTER(0);
		if (unlikely(!cache->in_place || VARATT_IS_EXTENDED(state) ||
					 VARSIZE(state) != VARHDRSZ + cache->geometry.filter_bytes ||
					 ((const uint8 *) VARDATA(state))[cache->geometry.filter_bytes - 1] != cache->geometry.k))
			state = fixed_state_copy(PG_GETARG_DATUM(0), cache);
	}

	hash = key_hash(fcinfo, 1);
	bloom_prepared_set_hashes(&cache->prepared, (uint8 *) VARDATA(state), &hash, 1);
	PG_RETURN_BYTEA_P(state);
}

BLOOM_KEY_ENTRY_POINTS(bloom_agg_fixed_transfn, fixed_transfn)
