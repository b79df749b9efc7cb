/*
 * bloom_key_arg.h
 *		The hash of a key argument of each key type the SQL functions take,
 *		and the list of those types for defining their entry points.
 *
 * text and bytea keys are their bytes (text in the database encoding);
 * integers and uuids are the bytes of bloom_keys.h, hashed from the value
 * with no bytes written.  Called per row: nothing is allocated, and the
 * key is read in place (a compressed or out-of-line text or bytea key is
 * detoasted, as it must be to be read at all).
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_KEY_ARG_H
#define BLOOM_KEY_ARG_H

#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "utils/uuid.h"

#include "bloom_compat.h"
#include "bloom_keys.h"

/*
 * A text key compared under a nondeterministic collation could be equal to
 * another under "=" with other bytes, and a filter would drop it: ERROR
 * 0A000 for such a collation.  The last collation found deterministic is
 * remembered (bloom_key_collation.c), so a call per row costs a compare.
 */
BLOOM_BEGIN_PRIVATE
extern Oid bloom_deterministic_collation;
extern void bloom_key_collation_check_slow(Oid collation);
BLOOM_END_PRIVATE

static inline void
bloom_key_collation_check(Oid collation)
{
	if (likely(collation == bloom_deterministic_collation ||
			   collation == C_COLLATION_OID || !OidIsValid(collation)))
		return;
	bloom_key_collation_check_slow(collation);
}

/* A text or bytea key, neither compressed nor out of line: its bytes. */
static inline uint32
bloom_varlena_key_hash(const struct varlena *key)
{
	return bloom_key_hash(VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));
}

static inline uint32
bloom_varlena_arg_hash(FunctionCallInfo fcinfo, int argno)
{
	struct varlena *key = (struct varlena *) PG_GETARG_POINTER(argno);

	/* bytea has no collation; text has the one its "=" would use */
	bloom_key_collation_check(PG_GET_COLLATION());
	/* PG_GETARG_VARLENA_PP, with no call for a key read in place */
	if (unlikely(VARATT_IS_EXTERNAL(key) || VARATT_IS_COMPRESSED(key)))
		key = pg_detoast_datum_packed(key);
	return bloom_varlena_key_hash(key);
}

static inline uint32
bloom_int2_arg_hash(FunctionCallInfo fcinfo, int argno)
{
	return bloom_int_key_hash(PG_GETARG_INT16(argno));
}

static inline uint32
bloom_int4_arg_hash(FunctionCallInfo fcinfo, int argno)
{
	return bloom_int_key_hash(PG_GETARG_INT32(argno));
}

static inline uint32
bloom_int8_arg_hash(FunctionCallInfo fcinfo, int argno)
{
	return bloom_int_key_hash(PG_GETARG_INT64(argno));
}

static inline uint32
bloom_uuid_arg_hash(FunctionCallInfo fcinfo, int argno)
{
	return bloom_uuid_key_hash(PG_GETARG_UUID_P(argno)->data);
}

/*
 * The C entry point of a function over keys of one type: it returns
 * impl(fcinfo, bloom_<type>_arg_hash), impl's Datum.
 */
#define BLOOM_KEY_ENTRY(entry, impl, type) \
PG_FUNCTION_INFO_V1(entry); \
Datum \
entry(PG_FUNCTION_ARGS) \
{ \
	return impl(fcinfo, bloom_##type##_arg_hash); \
}

/*
 * Every C entry point of a function over keys: name for text and bytea
 * keys (1.0's, which both share: either key is its bytes), and
 * name_<suffix> for each typed key, hashed by bloom_<suffix>_arg_hash.
 */
#define BLOOM_KEY_ENTRY_POINTS(name, impl) \
	BLOOM_KEY_ENTRY(name, impl, varlena) \
	BLOOM_KEY_ENTRY(name##_int2, impl, int2) \
	BLOOM_KEY_ENTRY(name##_int4, impl, int4) \
	BLOOM_KEY_ENTRY(name##_int8, impl, int8) \
	BLOOM_KEY_ENTRY(name##_uuid, impl, uuid)

#endif							/* BLOOM_KEY_ARG_H */
