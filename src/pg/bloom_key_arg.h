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

#include "fmgr.h"
#include "utils/uuid.h"

#include "bloom_compat.h"
#include "bloom_keys.h"

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
 * X(suffix) for each typed key: the C entry points of a function that
 * takes them are named by suffix, and hash with bloom_<suffix>_arg_hash.
 * (text and bytea share the unsuffixed entry points of 1.0.)
 */
#define BLOOM_TYPED_KEYS(X) X(int2) X(int4) X(int8) X(uuid)

#endif							/* BLOOM_KEY_ARG_H */
