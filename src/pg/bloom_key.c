/*
 * bloom_key.c
 *		bloom_key(VARIADIC "any"): one key of several values, and the error
 *		for a key of a type the filters do not take.
 *
 * A multi-column key is, for each value in order, its length as 4 bytes
 * (most significant first) and then its bytes; a NULL is the length
 * 0xFFFFFFFF alone (bloom_keys.h).  A value's bytes:
 *	- smallint, integer, bigint: the 8 bytes of an integer key, so the
 *	  width of the column does not matter;
 *	- uuid: its 16 bytes;
 *	- text, varchar, bytea, name: their bytes (text in the database
 *	  encoding), as a key of their own is hashed;
 *	- char(n): its characters without the padding, as char(n)::text, which
 *	  is what a char(n) key of its own is;
 *	- an enum: its label;
 *	- any other type: its binary send form.
 * A domain is its base type.  The bytes of text, char(n), name and enum
 * values are taken as stored, not through their send functions, which
 * would convert them to the session's client encoding.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/uuid.h"

#include "bloom_keys.h"
#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_key);
PG_FUNCTION_INFO_V1(bloom_unsupported_key);
PG_FUNCTION_INFO_V1(bloom_unsupported_key_support);

/* How a value of one type becomes a field's bytes. */
typedef enum FieldKind
{
	FIELD_INT2,
	FIELD_INT4,
	FIELD_INT8,
	FIELD_UUID,
	FIELD_VARLENA,				/* text, varchar, bytea: the bytes */
	FIELD_BPCHAR,				/* char(n): the bytes without trailing spaces */
	FIELD_NAME,
	FIELD_CSTRING,				/* an untyped literal, and an enum's label */
	FIELD_SEND					/* the binary send form */
} FieldKind;

typedef struct FieldType
{
	FieldKind	kind;
	bool		is_enum;		/* FIELD_CSTRING through the output function */
	FmgrInfo	proc;			/* send or output function, where used */
} FieldType;

/* A call site's field types, found on its first call. */
typedef struct FieldTypes
{
	int			ntypes;
	FieldType	types[FLEXIBLE_ARRAY_MEMBER];
} FieldTypes;

static void
field_type_init(FieldType *ft, Oid type, MemoryContext mcxt)
{
	Oid			base = getBaseType(type);
	Oid			proc;
	bool		varlena;

	ft->is_enum = false;
	switch (base)
	{
		case INT2OID:
			ft->kind = FIELD_INT2;
			return;
		case INT4OID:
			ft->kind = FIELD_INT4;
			return;
		case INT8OID:
			ft->kind = FIELD_INT8;
			return;
		case UUIDOID:
			ft->kind = FIELD_UUID;
			return;
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			ft->kind = FIELD_VARLENA;
			return;
		case BPCHAROID:
			ft->kind = FIELD_BPCHAR;
			return;
		case NAMEOID:
			ft->kind = FIELD_NAME;
			return;
		case UNKNOWNOID:
			ft->kind = FIELD_CSTRING;
			return;
		default:
			break;
	}
	if (type_is_enum(base))
	{
		ft->kind = FIELD_CSTRING;
		ft->is_enum = true;
		getTypeOutputInfo(base, &proc, &varlena);
	}
	else
	{
		ft->kind = FIELD_SEND;
		/* ERROR 42883 for a type with no binary output */
		getTypeBinaryOutputInfo(base, &proc, &varlena);
	}
	fmgr_info_cxt(proc, &ft->proc, mcxt);
}

/*
 * The call site's field types, found on its first call: a call site's
 * argument types, and the element type of its VARIADIC array, never change.
 */
static FieldTypes *
field_types(FunctionCallInfo fcinfo, bool variadic_array, Oid elemtype)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	FieldTypes *cache = (FieldTypes *) flinfo->fn_extra;
	int			ntypes = variadic_array ? 1 : PG_NARGS();
	int			i;

	if (cache != NULL)
		return cache;

	cache = MemoryContextAllocZero(flinfo->fn_mcxt,
								   offsetof(FieldTypes, types) + ntypes * sizeof(FieldType));
	cache->ntypes = ntypes;
	for (i = 0; i < ntypes; i++)
	{
		Oid			type = variadic_array ? elemtype : get_fn_expr_argtype(flinfo, i);

		if (!OidIsValid(type))
			elog(ERROR, "bloom_key: could not determine the type of argument %d", i + 1);
		field_type_init(&cache->types[i], type, flinfo->fn_mcxt);
	}
	flinfo->fn_extra = cache;
	return cache;
}

/*
 * A value's bytes as a field, in *bytes and *len; int_buf holds an integer
 * key's bytes when the value is an integer.
 */
static void
field_bytes(FieldType *ft, Datum value, uint8 int_buf[BLOOM_INT_KEY_BYTES],
			const void **bytes, Size *len)
{
	struct varlena *v;
	const char *s;

	switch (ft->kind)
	{
		case FIELD_INT2:
			bloom_int_key_bytes(DatumGetInt16(value), int_buf);
			*bytes = int_buf;
			*len = BLOOM_INT_KEY_BYTES;
			return;
		case FIELD_INT4:
			bloom_int_key_bytes(DatumGetInt32(value), int_buf);
			*bytes = int_buf;
			*len = BLOOM_INT_KEY_BYTES;
			return;
		case FIELD_INT8:
			bloom_int_key_bytes(DatumGetInt64(value), int_buf);
			*bytes = int_buf;
			*len = BLOOM_INT_KEY_BYTES;
			return;
		case FIELD_UUID:
			*bytes = DatumGetUUIDP(value)->data;
			*len = BLOOM_UUID_KEY_BYTES;
			return;
		case FIELD_VARLENA:
		case FIELD_BPCHAR:
			v = PG_DETOAST_DATUM_PACKED(value);
			*bytes = VARDATA_ANY(v);
			*len = VARSIZE_ANY_EXHDR(v);
			if (ft->kind == FIELD_BPCHAR)
				while (*len > 0 && ((const char *) *bytes)[*len - 1] == ' ')
					(*len)--;
			return;
		case FIELD_NAME:
			s = NameStr(*DatumGetName(value));
			*bytes = s;
			*len = strnlen(s, NAMEDATALEN);
			return;
		case FIELD_CSTRING:
			s = ft->is_enum ? OutputFunctionCall(&ft->proc, value) : DatumGetCString(value);
			*bytes = s;
			*len = strlen(s);
			return;
		case FIELD_SEND:
			v = (struct varlena *) SendFunctionCall(&ft->proc, value);
			*bytes = VARDATA(v);
			*len = VARSIZE(v) - VARHDRSZ;
			return;
	}
	elog(ERROR, "bloom_key: unknown field kind %d", (int) ft->kind);
}

/*
 * bloom_key(VARIADIC "any") -> bytea.  Not strict: a NULL value is a
 * field.  bloom_key(VARIADIC NULL::sometype[]) is NULL, as format() is.
 */
Datum
bloom_key(PG_FUNCTION_ARGS)
{
	bool		variadic_array = get_fn_expr_variadic(fcinfo->flinfo);
	FieldTypes *types;
	Datum	   *values;
	bool	   *nulls;
	int			nfields;
	const void **bytes;
	Size	   *lens;
	uint8	   *int_bufs;
	Size		total = 0;
	bytea	   *result;
	uint8	   *out;
	int			i;

	if (variadic_array)
	{
		ArrayType  *array;
		int16		typlen;
		bool		typbyval;
		char		typalign;

		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		array = PG_GETARG_ARRAYTYPE_P(0);
		types = field_types(fcinfo, true, ARR_ELEMTYPE(array));
		get_typlenbyvalalign(ARR_ELEMTYPE(array), &typlen, &typbyval, &typalign);
		deconstruct_array(array, ARR_ELEMTYPE(array), typlen, typbyval, typalign,
						  &values, &nulls, &nfields);
	}
	else
	{
		types = field_types(fcinfo, false, InvalidOid);
		nfields = PG_NARGS();
		values = palloc(nfields * sizeof(Datum));
		nulls = palloc(nfields * sizeof(bool));
		for (i = 0; i < nfields; i++)
		{
			nulls[i] = PG_ARGISNULL(i);
			values[i] = PG_GETARG_DATUM(i);
		}
	}

	bytes = palloc(Max(nfields, 1) * sizeof(void *));
	lens = palloc(Max(nfields, 1) * sizeof(Size));
	int_bufs = palloc(Max(nfields, 1) * BLOOM_INT_KEY_BYTES);
	for (i = 0; i < nfields; i++)
	{
		FieldType  *ft = &types->types[variadic_array ? 0 : i];

		if (nulls[i])
		{
			bytes[i] = NULL;
			lens[i] = 0;
		}
		else
			field_bytes(ft, values[i], int_bufs + i * BLOOM_INT_KEY_BYTES,
						&bytes[i], &lens[i]);
		total += BLOOM_FIELD_HEADER_BYTES + lens[i];
		if (total > MaxAllocSize - VARHDRSZ)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bloom_key value too large"),
					 errdetail("The key's values take more than %zu bytes.",
							   (Size) (MaxAllocSize - VARHDRSZ))));
	}

	result = (bytea *) palloc(VARHDRSZ + total);
	SET_VARSIZE(result, VARHDRSZ + total);
	out = (uint8 *) VARDATA(result);
	for (i = 0; i < nfields; i++)
		out += nulls[i] ? bloom_put_null_field(out)
			: bloom_put_field(out, bytes[i], (uint32) lens[i]);
	PG_RETURN_BYTEA_P(result);
}

/* ---- keys of other types ---- */

pg_noreturn static void
report_unsupported_key(Oid type)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("a bloom filter key cannot be of type %s", format_type_be(type)),
			 errdetail("Keys are text, bytea, smallint, integer, bigint or uuid values."),
			 errhint("bloom_key(...) makes one bytea key of values of any types, for example bloom_agg(bloom_key(x), 10) and bloom_key(x) <~ filter.")));
	pg_unreachable();
}

/*
 * The position of the key in a call of one of the catch-all functions: the
 * argument declared anyelement or anynonarray, whose actual type is
 * exprType of the call's argument there (or, at run time,
 * get_fn_expr_argtype).
 */
static int
key_position(Oid funcid)
{
	Oid		   *argtypes;
	int			nargs;
	int			i;

	get_func_signature(funcid, &argtypes, &nargs);
	for (i = 0; i < nargs; i++)
		if (argtypes[i] == ANYELEMENTOID || argtypes[i] == ANYNONARRAYOID)
			return i;
	elog(ERROR, "bloom_unsupported_key: function %u has no polymorphic key argument", funcid);
	pg_unreachable();
}

/*
 * The functions and aggregates that take an anyelement key, beside the
 * ones of each key type, are there to say this: no key of any other type
 * reaches a filter.  Called at run time, and not strict: an aggregate's
 * final function gets here even when no row came.
 */
Datum
bloom_unsupported_key(PG_FUNCTION_ARGS)
{
	report_unsupported_key(get_fn_expr_argtype(fcinfo->flinfo,
											   key_position(fcinfo->flinfo->fn_oid)));
}

/* ... and when a query calling one is planned, before any row. */
Datum
bloom_unsupported_key_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSimplify))
	{
		FuncExpr   *call = ((SupportRequestSimplify *) rawreq)->fcall;

		report_unsupported_key(exprType(list_nth(call->args,
												 key_position(call->funcid))));
	}
	PG_RETURN_POINTER(NULL);
}
