/*
 * bloom_key_encode.h
 *		The bytes of a value as a field of bloom_key: the same bytes for
 *		every two values its type's "=" calls equal, or an error for a type
 *		whose values cannot be written so (bloom_key_encode.c).
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_KEY_ENCODE_H
#define BLOOM_KEY_ENCODE_H

#include "fmgr.h"
#include "lib/stringinfo.h"

#include "bloom_compat.h"
#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * ERROR (0A000) unless values of type typid (a domain is its base type)
 * compared under collation can be written as key bytes that are equal
 * exactly when "=" says the values are; the error names the type, why, and
 * the usual way around.  Looks into element, column and range subtypes.
 */
extern void bloom_key_check_type(Oid typid, int32 typmod, Oid collation);

/*
 * A type as bloom_key writes it: found once (for a call site's argument,
 * for all the elements of an array) rather than for every value.
 */
typedef struct BloomKeyType
{
	Oid			type;			/* as given: a domain, an array type, ... */
	int			kind;			/* how its base type is written */
	Oid			collation;		/* what its values are compared under */
} BloomKeyType;

/*
 * bloom_key_check_type (typmod unknown: a record's columns are checked as
 * its values come), then how values of typid compared under collation are
 * written.
 */
extern void bloom_key_type_init(BloomKeyType *type, Oid typid, Oid collation);

/*
 * Append value, of the type given, to buf as one field: its length as 4
 * bytes, most significant first, then its bytes; a NULL is the length
 * 0xFFFFFFFF alone.
 */
extern void bloom_key_append_field(StringInfo buf, const BloomKeyType *type,
								   Datum value, bool isnull);

BLOOM_END_PRIVATE

#endif							/* BLOOM_KEY_ENCODE_H */
