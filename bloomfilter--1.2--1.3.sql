/* bloomfilter--1.2--1.3.sql: 1.2 databases update to 1.3 with it.  A fresh
 * install of 1.3 is bloomfilter--1.1.sql, bloomfilter--1.1--1.2.sql and
 * then this script.
 *
 * The script is in sections, each headed by a ruled comment that says what
 * it changes and why; a change of 1.3 goes into the section it belongs to,
 * or into a new one at the end, listed here:
 *   1. Parameter names: every function and aggregate a query calls takes
 *      the names of doc/reference.md.
 *   2. Keys: bloom_key's planner support, which refuses a type whose equal
 *      values could have different bytes when the query is planned.
 */

-- complain if script is sourced in psql, rather than via CREATE or ALTER EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" or "ALTER EXTENSION bloomfilter UPDATE TO '1.3'" to load this file. \quit

------------------------------------------------------------------------
-- 1. Parameter names.  Every function and aggregate that a query calls
-- (but the function of ~>, below) gets the names doc/reference.md gives
-- its parameters: \df shows them, and a function takes them in named
-- notation (bloom_add(filter => f, key => 'x')).  Aggregates take names
-- too, for \df and for a call as a window function; a plain aggregate
-- call takes its arguments by position (a rule of PostgreSQL's), and so
-- do the cast function bloomfilter(bytea) and the support functions of
-- types, operators, operator classes and aggregates (bloomfilter_in,
-- bloomfilter_eq, bloom_agg_transfn, ...), whose parameters stay unnamed
-- as PostgreSQL's own are.  Everything else about each object is as
-- before: the same symbol, volatility, strictness, parallel safety and
-- support function for a function, the same transition, final and combine
-- functions, state, SSPACE and FINALFUNC_EXTRA for an aggregate
-- (test/upgrade_chain_test.sh compares their catalog rows across this
-- update, the names aside).
--
-- OR REPLACE, where the other scripts use plain CREATE: the objects exist
-- and must keep their OIDs, since operators, aggregates, users' views and
-- users' own aggregates depend on them, so dropping and creating them
-- again is not possible.  PostgreSQL lets CREATE OR REPLACE give names to
-- parameters that had none (it refuses to rename one), and in an update
-- script it replaces only objects that are members of this extension
-- already.
------------------------------------------------------------------------

-- bloom_agg(key, bits_per_key): 1.0 (text, bytea), 1.2 (the other key types)

CREATE OR REPLACE AGGREGATE bloom_agg(key text, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key bytea, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key smallint, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key integer, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key bigint, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key uuid, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key anyelement, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_unsupported_finalfn,
	FINALFUNC_EXTRA,
	PARALLEL = SAFE
);

-- bloom_agg(key, bits_per_key, expected_keys): 1.1 (text, bytea), 1.2

CREATE OR REPLACE AGGREGATE bloom_agg(key text, bits_per_key integer, expected_keys bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key bytea, bits_per_key integer, expected_keys bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key smallint, bits_per_key integer, expected_keys bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key integer, bits_per_key integer, expected_keys bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key bigint, bits_per_key integer, expected_keys bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key uuid, bits_per_key integer, expected_keys bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg(key anyelement, bits_per_key integer, expected_keys bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	FINALFUNC = bloom_agg_unsupported_finalfn,
	FINALFUNC_EXTRA,
	PARALLEL = SAFE
);

-- bloom_agg_partial(key, bits_per_key) and bloom_agg_merge(state): 1.1, 1.2

CREATE OR REPLACE AGGREGATE bloom_agg_partial(key text, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg_partial(key bytea, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg_partial(key smallint, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg_partial(key integer, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg_partial(key bigint, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg_partial(key uuid, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg_partial(key anyelement, bits_per_key integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_partial_unsupported_finalfn,
	FINALFUNC_EXTRA,
	PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE bloom_agg_merge(state bloom_agg_state) (
	SFUNC = bloom_agg_combinefn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

-- bloom_union_agg(filter): 1.0

CREATE OR REPLACE AGGREGATE bloom_union_agg(filter bloomfilter) (
	SFUNC = bloom_union_agg_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

-- bloom_may_contain(key, filter), the function of <~.  The function of ~>,
-- bloom_may_contain(bloomfilter, key), keeps its parameters unnamed: with
-- the same names, a call in named notation (key => k, filter => f) would
-- fit both forms, and PostgreSQL would refuse it as ambiguous.

CREATE OR REPLACE FUNCTION bloom_may_contain(key text, filter bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_may_contain(key bytea, filter bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_may_contain(key smallint, filter bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_may_contain(key integer, filter bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_may_contain(key bigint, filter bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_may_contain(key uuid, filter bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_may_contain(key anyelement, filter bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_unsupported_key_support;

-- bloom_add(filter, key) and bloom_add(filter, keys)

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, key text) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, keys text[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, key bytea) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, keys bytea[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, key smallint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, keys smallint[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, key integer) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, keys integer[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, key bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, keys bigint[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, key uuid) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, keys uuid[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_add(filter bloomfilter, key anynonarray) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_unsupported_key_support;

-- bloom_union(a, b), bloom_intersect(a, b): the functions of | and &

CREATE OR REPLACE FUNCTION bloom_union(a bloomfilter, b bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_intersect(a bloomfilter, b bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- bloom_info(filter), bloom_cardinality(filter)

CREATE OR REPLACE FUNCTION bloom_info(filter bloomfilter,
	OUT bytes bigint,
	OUT bits bigint,
	OUT k integer,
	OUT bits_set bigint,
	OUT fill_ratio double precision,
	OUT estimated_keys double precision,
	OUT false_positive_rate double precision)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION bloom_cardinality(filter bloomfilter) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- bloom_key(VARIADIC fields): not strict, a NULL value is a field of the key

CREATE OR REPLACE FUNCTION bloom_key(VARIADIC fields "any") RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- bloom_empty, bloom_expected_fpr and bloom_bits_per_key had their names
-- from the start.

------------------------------------------------------------------------
-- 2. Keys.  bloom_key writes each value so that values its type's "="
-- calls equal have the same bytes, and refuses a type for which that
-- cannot hold (json, xml, citext, text under a nondeterministic
-- collation, types it has no rule for: doc/format.md's key table).  Its
-- planner support raises that error when the query is planned, before any
-- row and also when no row comes; the function itself checks its types on
-- its first call, and the values inside records whose type only the
-- values tell as it goes.  The typed key functions (text, bytea, integers,
-- uuid) refuse a nondeterministic collation themselves.
------------------------------------------------------------------------

CREATE FUNCTION bloom_key_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

ALTER FUNCTION bloom_key(VARIADIC "any") SUPPORT bloom_key_support;

COMMENT ON FUNCTION bloom_key_support(internal) IS 'planner support of bloom_key: the error for a type whose equal values could have different key bytes, when the query is planned';
COMMENT ON FUNCTION bloom_key(VARIADIC "any") IS 'one bytea key of several values: each value''s length (4 bytes, big-endian; 0xFFFFFFFF for NULL) and bytes, equal for values that "=" calls equal';
