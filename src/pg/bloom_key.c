/*
 * bloom_key.c
 *		bloom_key(VARIADIC "any"): one key of several values, and the error
 *		for a key of a type the filters do not take.
 *
 * A multi-column key is, for each value in order, its length as 4 bytes
 * (most significant first) and then its bytes; a NULL is the length
 * 0xFFFFFFFF alone (bloom_keys.h).  A value's bytes are the same for every
 * two values its type's "=" calls equal, whatever the session's settings
 * or the types' OIDs; a type whose values cannot be written so is refused
 * (bloom_key_encode.c has the rule of each type).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "bloom_key_encode.h"
#include "bloom_keys.h"
#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_key);
PG_FUNCTION_INFO_V1(bloom_key_support);
PG_FUNCTION_INFO_V1(bloom_unsupported_key);
PG_FUNCTION_INFO_V1(bloom_unsupported_key_support);

/* A call site's field types, with the collations they compare under. */
typedef struct FieldTypes
{
	int			ntypes;
	BloomKeyType fields[FLEXIBLE_ARRAY_MEMBER];
} FieldTypes;

/*
 * The collation argument argno is compared under: its expression's own,
 * which tells two arguments of different collations apart (the call's
 * input collation is none when they conflict).
 */
static Oid
arg_collation(FunctionCallInfo fcinfo, int argno)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;
	List	   *args = NIL;

	if (expr != NULL && IsA(expr, FuncExpr))
		args = ((FuncExpr *) expr)->args;
	if (argno < list_length(args))
		return exprCollation((Node *) list_nth(args, argno));
	return PG_GET_COLLATION();
}

/*
 * The call site's field types, checked on its first call: a call site's
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
								   offsetof(FieldTypes, fields) +
								   ntypes * sizeof(cache->fields[0]));
	cache->ntypes = ntypes;
	for (i = 0; i < ntypes; i++)
	{
		Oid			type = variadic_array ? elemtype : get_fn_expr_argtype(flinfo, i);

		if (!OidIsValid(type))
			elog(ERROR, "bloom_key: could not determine the type of argument %d", i + 1);
		bloom_key_type_init(&cache->fields[i], type, arg_collation(fcinfo, i));
	}
	flinfo->fn_extra = cache;
	return cache;
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
	StringInfoData buf;
	int			i;

	/* the key is built after room for its varlena header */
	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, VARHDRSZ);
	if (variadic_array)
	{
		ArrayType  *array;
		ArrayIterator it;
		Datum		element;
		bool		isnull;

		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		array = PG_GETARG_ARRAYTYPE_P(0);
		types = field_types(fcinfo, true, ARR_ELEMTYPE(array));
		it = array_create_iterator(array, 0, NULL);
		while (array_iterate(it, &element, &isnull))
			bloom_key_append_field(&buf, &types->fields[0], element, isnull);
		array_free_iterator(it);
	}
	else
	{
		types = field_types(fcinfo, false, InvalidOid);
		for (i = 0; i < PG_NARGS(); i++)
			bloom_key_append_field(&buf, &types->fields[i],
								   PG_GETARG_DATUM(i), PG_ARGISNULL(i));
	}
	SET_VARSIZE(buf.data, buf.len);
	PG_RETURN_BYTEA_P((bytea *) buf.data);
}

/*
 * bloom_key's planner support: a value of a type it refuses is an error
 * when the query is planned, before any row (and also when no row comes).
 */
Datum
bloom_key_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSimplify))
	{
		FuncExpr   *call = ((SupportRequestSimplify *) rawreq)->fcall;
		ListCell   *lc;

		foreach(lc, call->args)
		{
			Node	   *arg = (Node *) lfirst(lc);
			Oid			type = exprType(arg);

			/* VARIADIC array: its elements are the fields */
			if (call->funcvariadic && OidIsValid(get_element_type(type)))
				type = get_element_type(type);
			bloom_key_check_type(type, -1, exprCollation(arg));
		}
	}
	PG_RETURN_POINTER(NULL);
}

/* ---- keys of other types ---- */

pg_noreturn static void
report_unsupported_key(Oid type)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("a bloom filter key cannot be of type %s", format_type_be(type)),
			 errdetail("Keys are text, bytea, smallint, integer, bigint or uuid values."),
			 errhint("bloom_key(...) makes one bytea key of values of other types (numeric, dates and times, arrays, rows, ...), for example bloom_agg(bloom_key(x), 10) and bloom_key(x) <~ filter.")));
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
