/*
 * bloom_key_encode.c
 *		A value's bytes as a field of bloom_key, by its type, so that two
 *		values that their type's "=" calls equal always have the same bytes.
 *
 * A filter promises that a key it was built from always passes.  A join or
 * a lookup that a filter pre-checks compares values with "=", so the bytes
 * of a key must be the same for every two values "=" calls equal: in any
 * session, database and process, whatever the client encoding, DateStyle,
 * TimeZone, extra_float_digits, search_path or the types' OIDs.  Binary
 * send forms fail that (text converted to the client encoding, element and
 * column type OIDs, numeric scales, interval fields), so each accepted type
 * is written here by a rule of its own, and every other type is refused.
 *
 * A value's bytes (doc/format.md's key table says the same):
 *	- smallint, integer, bigint: 8 bytes, the value as a signed 64-bit
 *	  integer, most significant byte first;
 *	- numeric: an integral value that fits in a bigint as that integer (so
 *	  5::numeric is 5's key, as 5 = 5::numeric); any other value its digits
 *	  without trailing fractional zeros, as numeric_out writes them ("1.5",
 *	  "-0.25", "NaN", "Infinity");
 *	- real, double precision: the IEEE bits, 4 and 8 bytes, most significant
 *	  first, with -0 written as 0 and every NaN as the one quiet NaN;
 *	- text, varchar, bytea, name: their bytes (text in the database
 *	  encoding, as stored); char(n) without its trailing spaces; an untyped
 *	  literal as text;
 *	- "char", boolean: one byte; date: the day number, 4 bytes; time,
 *	  timestamp, timestamptz: the microseconds, 8 bytes; timetz: the
 *	  microseconds, 8 bytes, then the zone's seconds, 4 bytes (timetz's "="
 *	  compares both); all big-endian, as their send functions write them;
 *	- interval: its length as "=" measures it (a month is 30 days, a day
 *	  24 hours) as whole days and the microseconds left, 8 bytes each;
 *	- uuid: its 16 bytes;
 *	- an enum: its label (the label survives a dump, the OID does not);
 *	- an array: the number of dimensions, then each dimension's length and
 *	  lower bound, 4 bytes each, then each element as a field;
 *	- a composite or record: the number of columns, 4 bytes, then each
 *	  column as a field (dropped columns are not columns);
 *	- a range: one byte of flags (empty 1, lower infinite 2, upper infinite
 *	  4, lower inclusive 8, upper inclusive 16), then each finite bound as a
 *	  field;
 *	- jsonb: its tokens in stored order (jsonb keeps an object's keys sorted
 *	  and unique): a byte for each, a key or string as a field of its bytes,
 *	  a number as a field of its numeric bytes, a boolean as a byte;
 *	- a domain: its base type.
 * A field is its length as 4 bytes, most significant first, then its bytes;
 * a NULL is the length 0xFFFFFFFF alone (bloom_keys.h).
 *
 * Text compared under a nondeterministic collation is refused, in every
 * container too: such a collation calls different bytes equal.  So are
 * json and xml (they have no "="), citext (its "=" ignores case) and every
 * type not listed.
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "bloom_compat.h"

/* htup_details.h (and, before 16, what it brings in) */
BLOOM_SERVER_HEADERS_BEGIN
#include "access/htup_details.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rangetypes.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/uuid.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_key_arg.h"
#include "bloom_key_encode.h"
#include "bloom_keys.h"

/* How a value of one type becomes bytes. */
typedef enum KeyKind
{
	KIND_INT2,
	KIND_INT4,
	KIND_INT8,
	KIND_NUMERIC,
	KIND_FLOAT4,
	KIND_FLOAT8,
	KIND_TEXT,					/* text, varchar: bytes under a collation */
	KIND_BYTEA,
	KIND_BPCHAR,
	KIND_NAME,
	KIND_UNKNOWN,				/* an untyped literal: a C string */
	KIND_CHAR,
	KIND_BOOL,
	KIND_DATE,
	KIND_TIME,
	KIND_TIMETZ,
	KIND_TIMESTAMP,				/* timestamp and timestamptz */
	KIND_INTERVAL,
	KIND_UUID,
	KIND_ENUM,
	KIND_ARRAY,
	KIND_RECORD,
	KIND_RANGE,
	KIND_JSONB,
	KIND_REFUSED
} KeyKind;

/* Range flags, in the byte that leads a range's bytes. */
#define RANGE_KEY_EMPTY			0x01
#define RANGE_KEY_LOWER_INF		0x02
#define RANGE_KEY_UPPER_INF		0x04
#define RANGE_KEY_LOWER_INC		0x08
#define RANGE_KEY_UPPER_INC		0x10

/* The byte of each jsonb token; a scalar's byte says its kind. */
#define JSONB_KEY_BEGIN_ARRAY	'['
#define JSONB_KEY_END_ARRAY		']'
#define JSONB_KEY_BEGIN_OBJECT	'{'
#define JSONB_KEY_END_OBJECT	'}'
#define JSONB_KEY_KEY			'k'
#define JSONB_KEY_NULL			'n'
#define JSONB_KEY_STRING		's'
#define JSONB_KEY_NUMBER		'#'
#define JSONB_KEY_BOOL			'b'

/* The one NaN of each width: any NaN is equal to any other under "=". */
#define FLOAT4_KEY_NAN			UINT32_C(0x7fc00000)
#define FLOAT8_KEY_NAN			UINT64_C(0x7ff8000000000000)

static KeyKind
key_kind(Oid base)
{
	char		typtype;

	switch (base)
	{
		case INT2OID:
			return KIND_INT2;
		case INT4OID:
			return KIND_INT4;
		case INT8OID:
			return KIND_INT8;
		case NUMERICOID:
			return KIND_NUMERIC;
		case FLOAT4OID:
			return KIND_FLOAT4;
		case FLOAT8OID:
			return KIND_FLOAT8;
		case TEXTOID:
		case VARCHAROID:
			return KIND_TEXT;
		case BYTEAOID:
			return KIND_BYTEA;
		case BPCHAROID:
			return KIND_BPCHAR;
		case NAMEOID:
			return KIND_NAME;
		case UNKNOWNOID:
			return KIND_UNKNOWN;
		case CHAROID:
			return KIND_CHAR;
		case BOOLOID:
			return KIND_BOOL;
		case DATEOID:
			return KIND_DATE;
		case TIMEOID:
			return KIND_TIME;
		case TIMETZOID:
			return KIND_TIMETZ;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return KIND_TIMESTAMP;
		case INTERVALOID:
			return KIND_INTERVAL;
		case UUIDOID:
			return KIND_UUID;
		case JSONBOID:
			return KIND_JSONB;
		case RECORDOID:
			return KIND_RECORD;
		default:
			break;
	}
	typtype = get_typtype(base);
	if (typtype == TYPTYPE_ENUM)
		return KIND_ENUM;
	if (typtype == TYPTYPE_COMPOSITE)
		return KIND_RECORD;
	if (typtype == TYPTYPE_RANGE)
		return KIND_RANGE;
	if (OidIsValid(get_element_type(base)))
		return KIND_ARRAY;
	return KIND_REFUSED;
}

/*
 * type's base type and how it is written, for values compared under
 * collation; no check (bloom_key_check_type is the check).
 */
static void
resolve(BloomKeyType *type, Oid typid, Oid collation)
{
	type->type = typid;
	type->kind = (int) key_kind(getBaseType(typid));
	type->collation = collation;
}

/* The refusal of a type, with the way around that fits it. */
pg_noreturn static void
report_refused_type(Oid type)
{
	Oid			base = getBaseType(type);
	const char *name = format_type_be(type);
	const char *detail;
	const char *hint;

	if (base == JSONOID)
	{
		detail = "Type json has no equality operator; equal documents can be written in many ways.";
		hint = "Use jsonb, whose \"=\" ignores whitespace and key order: bloom_key(x::jsonb).";
	}
	else if (base == XMLOID)
	{
		detail = "Type xml has no equality operator; equal documents can be written in many ways.";
		hint = "Key on text that is written the same way whenever the documents are equal, for example bloom_key(x::text) of documents that your application writes canonically.";
	}
	else if (strcmp(format_type_be(base), "citext") == 0)
	{
		detail = "Values that citext's \"=\" calls equal differ in case, so their bytes differ.";
		hint = "Key on bloom_key(lower(x::text)), which is equal exactly when citext's \"=\" says so, on both sides.";
	}
	else
	{
		detail = "bloom_key takes only types whose equal values can be written as the same bytes: smallint, integer, bigint, numeric, real, double precision, text, varchar, char(n), name, \"char\", bytea, uuid, boolean, date, time, timetz, timestamp, timestamptz, interval, jsonb, enums, and arrays, composites, ranges and domains of these.";
		hint = "Cast the value to one of those types, for example to text where equal values are always written the same way.";
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("bloom_key cannot take a value of type %s", name),
			 errdetail("%s", detail),
			 errhint("%s", hint)));
	pg_unreachable();
}

/* Check a row type's columns (its tuple descriptor, released here). */
static void
check_columns(TupleDesc tupdesc)
{
	int			i;

	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (!att->attisdropped)
			bloom_key_check_type(att->atttypid, att->atttypmod, att->attcollation);
	}
	ReleaseTupleDesc(tupdesc);
}

void
bloom_key_check_type(Oid typid, int32 typmod, Oid collation)
{
	Oid			base;
	TypeCacheEntry *typcache;

	check_stack_depth();
	base = getBaseTypeAndTypmod(typid, &typmod);
	switch (key_kind(base))
	{
		case KIND_TEXT:
		case KIND_BPCHAR:
		case KIND_NAME:
		case KIND_UNKNOWN:
			bloom_key_collation_check(collation);
			return;
		case KIND_JSONB:
			/* jsonb compares its strings under the database's collation */
			bloom_key_collation_check(DEFAULT_COLLATION_OID);
			return;
		case KIND_ARRAY:
			bloom_key_check_type(get_element_type(base), typmod, collation);
			return;
		case KIND_RECORD:
			/* an anonymous record's columns are known from its values */
			if (base != RECORDOID || typmod >= 0)
				check_columns(lookup_rowtype_tupdesc(base, typmod));
			return;
		case KIND_RANGE:
			typcache = lookup_type_cache(base, TYPECACHE_RANGE_INFO);
			bloom_key_check_type(typcache->rngelemtype->type_id, -1,
								 typcache->rng_collation);
			return;
		case KIND_REFUSED:
			report_refused_type(typid);
		default:
			return;
	}
}

void
bloom_key_type_init(BloomKeyType *type, Oid typid, Oid collation)
{
	bloom_key_check_type(typid, -1, collation);
	resolve(type, typid, collation);
}

/* ---- writing the bytes ---- */

static inline void
append_be32(StringInfo buf, uint32 v)
{
	uint8		b[4];

	bloom_put_be32(b, v);
	appendBinaryStringInfo(buf, (const char *) b, 4);
}

static inline void
append_be64(StringInfo buf, uint64 v)
{
	append_be32(buf, (uint32) (v >> 32));
	append_be32(buf, (uint32) v);
}

static inline void
append_int_key(StringInfo buf, int64 v)
{
	uint8		b[BLOOM_INT_KEY_BYTES];

	bloom_int_key_bytes(v, b);
	appendBinaryStringInfo(buf, (const char *) b, BLOOM_INT_KEY_BYTES);
}

/*
 * numeric: an integral value within bigint as that integer's 8 bytes, and
 * any other value as numeric_out's digits with no trailing fractional
 * zeros (numeric_out writes every digit, never an exponent, and zero with
 * no sign), so 1.0, 1.00 and 1 are one key, and 1.50 is 1.5.
 */
static void
append_numeric(StringInfo buf, Datum value)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	size_t		len = strlen(s);
	char	   *end;
	long long	v;

	if (strchr(s, '.') != NULL)
	{
		while (s[len - 1] == '0')
			len--;
		if (s[len - 1] == '.')
			len--;
		s[len] = '\0';
	}
	if (strchr(s, '.') == NULL && (s[0] == '-' || isdigit((unsigned char) s[0])))
	{
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno == 0 && *end == '\0')
		{
			append_int_key(buf, (int64) v);
			pfree(s);
			return;
		}
	}
	appendBinaryStringInfo(buf, s, (int) len);
	pfree(s);
}

/*
 * float4 (single) and float8: "=" holds every NaN equal, and -0 equal to
 * 0, so each is one key; any other value is its own bits, big-endian, in
 * its type's width.  A float4 comes as the float8 it converts to exactly.
 */
static void
append_float(StringInfo buf, float8 f, bool single)
{
	uint64		bits;

	if (isnan(f))
		bits = single ? FLOAT4_KEY_NAN : FLOAT8_KEY_NAN;
	else if (f == 0)
		bits = 0;				/* -0 = 0 */
	else if (single)
	{
		float4		f4 = (float4) f;
		uint32		bits4;

		memcpy(&bits4, &f4, sizeof(bits4));
		bits = bits4;
	}
	else
		memcpy(&bits, &f, sizeof(bits));
	if (!single)
		append_be32(buf, (uint32) (bits >> 32));
	append_be32(buf, (uint32) bits);
}

/*
 * interval: "=" compares time + (30 × months + days) × a day's
 * microseconds, exactly (interval_cmp_value, in 128 bits).  That length
 * written as whole days (floor) and the microseconds left, both 8 bytes,
 * is one pair for each length, and fits: the days are at most about 6.6
 * × 10^10.
 */
static void
append_interval(StringInfo buf, const Interval *iv)
{
	int64		days = (int64) iv->month * DAYS_PER_MONTH + iv->day;
	int64		whole = iv->time / USECS_PER_DAY;
	int64		left = iv->time % USECS_PER_DAY;

	if (left < 0)
	{
		left += USECS_PER_DAY;
		whole--;
	}
	append_be64(buf, (uint64) (days + whole));
	append_be64(buf, (uint64) left);
}

static void
append_enum_label(StringInfo buf, Datum value)
{
	Oid			enumval = DatumGetObjectId(value);
	HeapTuple	tup = SearchSysCache1(ENUMOID, ObjectIdGetDatum(enumval));
	const char *label;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid internal value for enum: %u", enumval)));
	label = NameStr(((Form_pg_enum) GETSTRUCT(tup))->enumlabel);
	appendBinaryStringInfo(buf, label, (int) strlen(label));
	ReleaseSysCache(tup);
}


static void
append_array(StringInfo buf, Datum value, Oid collation)
{
	ArrayType  *array = DatumGetArrayTypeP(value);
	int			ndims = ARR_NDIM(array);
	BloomKeyType elemtype;
	ArrayIterator it;
	Datum		element;
	bool		isnull;
	int			i;

	append_be32(buf, (uint32) ndims);
	for (i = 0; i < ndims; i++)
	{
		/* array_eq compares the lower bounds too */
		append_be32(buf, (uint32) ARR_DIMS(array)[i]);
		append_be32(buf, (uint32) ARR_LBOUND(array)[i]);
	}
	/* every element has the array's element type: resolved once */
	resolve(&elemtype, ARR_ELEMTYPE(array), collation);
	it = array_create_iterator(array, 0, NULL);
	while (array_iterate(it, &element, &isnull))
		bloom_key_append_field(buf, &elemtype, element, isnull);
	array_free_iterator(it);
}

static void
append_record(StringInfo buf, Datum value)
{
	HeapTupleHeader rec = DatumGetHeapTupleHeader(value);
	TupleDesc	tupdesc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(rec),
												 HeapTupleHeaderGetTypMod(rec));
	HeapTupleData tuple;
	Datum	   *values;
	bool	   *nulls;
	uint32		ncolumns = 0;
	int			i;

	tuple.t_len = HeapTupleHeaderGetDatumLength(rec);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = rec;
	values = palloc(Max(tupdesc->natts, 1) * sizeof(Datum));
	nulls = palloc(Max(tupdesc->natts, 1) * sizeof(bool));
	heap_deform_tuple(&tuple, tupdesc, values, nulls);

	for (i = 0; i < tupdesc->natts; i++)
		if (!TupleDescAttr(tupdesc, i)->attisdropped)
			ncolumns++;
	append_be32(buf, ncolumns);
	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		BloomKeyType column;

		if (att->attisdropped)
			continue;
		resolve(&column, att->atttypid, att->attcollation);
		bloom_key_append_field(buf, &column, values[i], nulls[i]);
	}
	ReleaseTupleDesc(tupdesc);
	pfree(values);
	pfree(nulls);
}

static void
append_range(StringInfo buf, Datum value)
{
	RangeType  *range = DatumGetRangeTypeP(value);
	TypeCacheEntry *typcache = lookup_type_cache(RangeTypeGetOid(range),
												 TYPECACHE_RANGE_INFO);
	RangeBound	lower,
				upper;
	bool		empty;
	uint8		flags = 0;
	BloomKeyType bound;

	range_deserialize(typcache, range, &lower, &upper, &empty);
	if (empty)
	{
		appendStringInfoChar(buf, (char) RANGE_KEY_EMPTY);
		return;
	}
	/* an infinite bound's inclusive flag is not compared */
	if (lower.infinite)
		flags |= RANGE_KEY_LOWER_INF;
	else if (lower.inclusive)
		flags |= RANGE_KEY_LOWER_INC;
	if (upper.infinite)
		flags |= RANGE_KEY_UPPER_INF;
	else if (upper.inclusive)
		flags |= RANGE_KEY_UPPER_INC;
	appendStringInfoChar(buf, (char) flags);
	/* the bounds compare under the range type's collation */
	resolve(&bound, typcache->rngelemtype->type_id, typcache->rng_collation);
	if (!lower.infinite)
		bloom_key_append_field(buf, &bound, lower.val, false);
	if (!upper.infinite)
		bloom_key_append_field(buf, &bound, upper.val, false);
}

/* A jsonb key or string: its length, 4 bytes, then its bytes. */
static void
append_jsonb_string(StringInfo buf, const JsonbValue *v)
{
	append_be32(buf, (uint32) v->val.string.len);
	appendBinaryStringInfo(buf, v->val.string.val, v->val.string.len);
}

/* A jsonb scalar: its kind's byte, then its bytes. */
static void
append_jsonb_scalar(StringInfo buf, const JsonbValue *v)
{
	/* a number is compared as numeric: a field of its numeric bytes */
	static const BloomKeyType numeric_type = {NUMERICOID, KIND_NUMERIC, InvalidOid};

	switch (v->type)
	{
		case jbvNull:
			appendStringInfoChar(buf, JSONB_KEY_NULL);
			return;
		case jbvBool:
			appendStringInfoChar(buf, JSONB_KEY_BOOL);
			appendStringInfoChar(buf, v->val.boolean ? 1 : 0);
			return;
		case jbvString:
			appendStringInfoChar(buf, JSONB_KEY_STRING);
			append_jsonb_string(buf, v);
			return;
		case jbvNumeric:
			appendStringInfoChar(buf, JSONB_KEY_NUMBER);
			bloom_key_append_field(buf, &numeric_type,
								   NumericGetDatum(v->val.numeric), false);
			return;
		default:
			elog(ERROR, "bloom_key: unexpected jsonb value type %d", (int) v->type);
	}
}

/*
 * jsonb: its tokens as its iterator gives them.  jsonb keeps an object's
 * keys unique and sorted, so two documents that jsonb's "=" calls equal
 * give the same tokens; their numbers are compared as numeric, so they are
 * written as numeric keys.
 */
static void
append_jsonb(StringInfo buf, Datum value)
{
	Jsonb	   *jb = DatumGetJsonbP(value);
	JsonbIterator *it = JsonbIteratorInit(&jb->root);
	JsonbIteratorToken token;
	JsonbValue	v;

	/* the byte a token other than a scalar is written as (0: none) */
	static const char markers[] = {
		[WJB_BEGIN_ARRAY] = JSONB_KEY_BEGIN_ARRAY,
		[WJB_END_ARRAY] = JSONB_KEY_END_ARRAY,
		[WJB_BEGIN_OBJECT] = JSONB_KEY_BEGIN_OBJECT,
		[WJB_END_OBJECT] = JSONB_KEY_END_OBJECT,
		[WJB_KEY] = JSONB_KEY_KEY,
	};

	while ((token = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		if (token == WJB_VALUE || token == WJB_ELEM)
		{
			append_jsonb_scalar(buf, &v);
			continue;
		}
		if ((size_t) token >= lengthof(markers) || markers[token] == 0)
			elog(ERROR, "bloom_key: unexpected jsonb token %d", (int) token);
		appendStringInfoChar(buf, markers[token]);
		if (token == WJB_BEGIN_ARRAY)
			/* '1' and '[1]' differ */
			appendStringInfoChar(buf, v.val.array.rawScalar ? 1 : 0);
		else if (token == WJB_KEY)
			append_jsonb_string(buf, &v);
	}
}

static void
append_value(StringInfo buf, const BloomKeyType *type, Datum value)
{
	Oid			collation = type->collation;
	struct varlena *v;
	const char *s;
	int			len;
	TimeTzADT  *tz;

	check_stack_depth();
	switch ((KeyKind) type->kind)
	{
		case KIND_INT2:
			append_int_key(buf, DatumGetInt16(value));
			return;
		case KIND_INT4:
			append_int_key(buf, DatumGetInt32(value));
			return;
		case KIND_INT8:
			append_int_key(buf, DatumGetInt64(value));
			return;
		case KIND_NUMERIC:
			append_numeric(buf, value);
			return;
		case KIND_FLOAT4:
		case KIND_FLOAT8:
			append_float(buf, type->kind == KIND_FLOAT4 ?
						 DatumGetFloat4(value) : DatumGetFloat8(value),
						 type->kind == KIND_FLOAT4);
			return;
		case KIND_TEXT:
		case KIND_BPCHAR:
		case KIND_BYTEA:
			/* bytea has no collation: InvalidOid passes */
			bloom_key_collation_check(collation);
			v = PG_DETOAST_DATUM_PACKED(value);
			s = VARDATA_ANY(v);
			len = VARSIZE_ANY_EXHDR(v);
			/* char(n)'s "=" ignores trailing spaces, as char(n)::text drops them */
			if (type->kind == KIND_BPCHAR)
				while (len > 0 && s[len - 1] == ' ')
					len--;
			appendBinaryStringInfo(buf, s, len);
			return;
		case KIND_NAME:
			bloom_key_collation_check(collation);
			s = NameStr(*DatumGetName(value));
			appendBinaryStringInfo(buf, s, (int) strnlen(s, NAMEDATALEN));
			return;
		case KIND_UNKNOWN:
			bloom_key_collation_check(collation);
			s = DatumGetCString(value);
			appendBinaryStringInfo(buf, s, (int) strlen(s));
			return;
		case KIND_CHAR:
			appendStringInfoChar(buf, DatumGetChar(value));
			return;
		case KIND_BOOL:
			appendStringInfoChar(buf, DatumGetBool(value) ? 1 : 0);
			return;
		case KIND_DATE:
			append_be32(buf, (uint32) DatumGetDateADT(value));
			return;
		case KIND_TIME:
			append_be64(buf, (uint64) DatumGetTimeADT(value));
			return;
		case KIND_TIMETZ:
			/* timetz's "=" compares the time and the zone */
			tz = DatumGetTimeTzADTP(value);
			append_be64(buf, (uint64) tz->time);
			append_be32(buf, (uint32) tz->zone);
			return;
		case KIND_TIMESTAMP:
			append_be64(buf, (uint64) DatumGetTimestamp(value));
			return;
		case KIND_INTERVAL:
			append_interval(buf, DatumGetIntervalP(value));
			return;
		case KIND_UUID:
			appendBinaryStringInfo(buf, (const char *) DatumGetUUIDP(value)->data,
								   BLOOM_UUID_KEY_BYTES);
			return;
		case KIND_ENUM:
			append_enum_label(buf, value);
			return;
		case KIND_ARRAY:
			append_array(buf, value, collation);
			return;
		case KIND_RECORD:
			append_record(buf, value);
			return;
		case KIND_RANGE:
			append_range(buf, value);
			return;
		case KIND_JSONB:
			bloom_key_collation_check(DEFAULT_COLLATION_OID);
			append_jsonb(buf, value);
			return;
		case KIND_REFUSED:
			report_refused_type(type->type);
	}
	elog(ERROR, "bloom_key: unknown key kind for type %u", type->type);
}

void
bloom_key_append_field(StringInfo buf, const BloomKeyType *type, Datum value,
					   bool isnull)
{
	int			start = buf->len;
	Size		len;

	if (isnull)
	{
		append_be32(buf, BLOOM_FIELD_NULL_LENGTH);
		return;
	}
	append_be32(buf, 0);
	append_value(buf, type, value);
	len = (Size) (buf->len - start - BLOOM_FIELD_HEADER_BYTES);
	/* a StringInfo holds less than 1 GB: every field's length fits */
	Assert(len <= BLOOM_FIELD_MAX_BYTES);
	bloom_put_be32((uint8 *) buf->data + start, (uint32) len);
}
