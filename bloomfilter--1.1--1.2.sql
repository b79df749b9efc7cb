/* bloomfilter--1.1--1.2.sql: typed keys (integers, uuid), bloom_key for
 * multi-column keys.  A fresh install of 1.2 is bloomfilter--1.1.sql and
 * then this script. */

-- complain if script is sourced in psql, rather than via CREATE or ALTER EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" or "ALTER EXTENSION bloomfilter UPDATE TO '1.2'" to load this file. \quit

------------------------------------------------------------------------
-- Typed keys.  An integer key of any width is its value as a signed
-- 64-bit integer, most significant byte first (int8send), so 5::smallint,
-- 5 and 5::bigint are one key; a uuid key is its 16 bytes (uuid_send).
-- Each function below hashes those bytes from the value, writing none.
------------------------------------------------------------------------

-- smallint keys

-- not strict: the first row starts the state, NULL keys are skipped
CREATE FUNCTION bloom_agg_transfn(bloom_agg_state, smallint, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_transfn_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(smallint, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg_partial(smallint, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

-- not strict: the first row makes the filter, NULL keys are skipped
CREATE FUNCTION bloom_agg_fixed_transfn(bloomfilter, smallint, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_transfn_int2' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(smallint, integer, bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE FUNCTION bloom_may_contain(smallint, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_may_contain(bloomfilter, smallint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_filter_may_contain_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <~ (
	LEFTARG = smallint,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = smallint,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE FUNCTION bloom_add(bloomfilter, smallint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, keys smallint[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloom_agg_transfn(bloom_agg_state, smallint, integer) IS 'bloom_agg transition: adds the hash of a smallint key';
COMMENT ON AGGREGATE bloom_agg(smallint, integer) IS 'the LevelDB bloom filter of the non-NULL smallint keys, at bits_per_key bits a key';
COMMENT ON AGGREGATE bloom_agg_partial(smallint, integer) IS 'the bloom_agg state of the non-NULL smallint keys, to merge with bloom_agg_merge';
COMMENT ON FUNCTION bloom_agg_fixed_transfn(bloomfilter, smallint, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) transition: sets a smallint key''s bits in the reserved filter';
COMMENT ON AGGREGATE bloom_agg(smallint, integer, bigint) IS 'the filter of the non-NULL smallint keys in the geometry of expected_keys keys, set as rows arrive';
COMMENT ON FUNCTION bloom_may_contain(smallint, bloomfilter) IS 'false if the smallint key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, smallint) IS 'false if the smallint key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON OPERATOR <~ (smallint, bloomfilter) IS 'may contain: false means the smallint key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, smallint) IS 'may contain: false means the smallint key is certainly absent';
COMMENT ON FUNCTION bloom_add(bloomfilter, smallint) IS 'a copy of the filter with the smallint key added, in the same geometry';
COMMENT ON FUNCTION bloom_add(bloomfilter, smallint[]) IS 'a copy of the filter with every non-NULL smallint key of the array added, in the same geometry';

-- integer keys

-- not strict: the first row starts the state, NULL keys are skipped
CREATE FUNCTION bloom_agg_transfn(bloom_agg_state, integer, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_transfn_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(integer, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg_partial(integer, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

-- not strict: the first row makes the filter, NULL keys are skipped
CREATE FUNCTION bloom_agg_fixed_transfn(bloomfilter, integer, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_transfn_int4' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(integer, integer, bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE FUNCTION bloom_may_contain(integer, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_may_contain(bloomfilter, integer) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_filter_may_contain_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <~ (
	LEFTARG = integer,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = integer,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE FUNCTION bloom_add(bloomfilter, integer) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, keys integer[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloom_agg_transfn(bloom_agg_state, integer, integer) IS 'bloom_agg transition: adds the hash of a integer key';
COMMENT ON AGGREGATE bloom_agg(integer, integer) IS 'the LevelDB bloom filter of the non-NULL integer keys, at bits_per_key bits a key';
COMMENT ON AGGREGATE bloom_agg_partial(integer, integer) IS 'the bloom_agg state of the non-NULL integer keys, to merge with bloom_agg_merge';
COMMENT ON FUNCTION bloom_agg_fixed_transfn(bloomfilter, integer, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) transition: sets a integer key''s bits in the reserved filter';
COMMENT ON AGGREGATE bloom_agg(integer, integer, bigint) IS 'the filter of the non-NULL integer keys in the geometry of expected_keys keys, set as rows arrive';
COMMENT ON FUNCTION bloom_may_contain(integer, bloomfilter) IS 'false if the integer key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, integer) IS 'false if the integer key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON OPERATOR <~ (integer, bloomfilter) IS 'may contain: false means the integer key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, integer) IS 'may contain: false means the integer key is certainly absent';
COMMENT ON FUNCTION bloom_add(bloomfilter, integer) IS 'a copy of the filter with the integer key added, in the same geometry';
COMMENT ON FUNCTION bloom_add(bloomfilter, integer[]) IS 'a copy of the filter with every non-NULL integer key of the array added, in the same geometry';

-- bigint keys

-- not strict: the first row starts the state, NULL keys are skipped
CREATE FUNCTION bloom_agg_transfn(bloom_agg_state, bigint, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_transfn_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(bigint, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg_partial(bigint, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

-- not strict: the first row makes the filter, NULL keys are skipped
CREATE FUNCTION bloom_agg_fixed_transfn(bloomfilter, bigint, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_transfn_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(bigint, integer, bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE FUNCTION bloom_may_contain(bigint, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_may_contain(bloomfilter, bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_filter_may_contain_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <~ (
	LEFTARG = bigint,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = bigint,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE FUNCTION bloom_add(bloomfilter, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, keys bigint[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloom_agg_transfn(bloom_agg_state, bigint, integer) IS 'bloom_agg transition: adds the hash of a bigint key';
COMMENT ON AGGREGATE bloom_agg(bigint, integer) IS 'the LevelDB bloom filter of the non-NULL bigint keys, at bits_per_key bits a key';
COMMENT ON AGGREGATE bloom_agg_partial(bigint, integer) IS 'the bloom_agg state of the non-NULL bigint keys, to merge with bloom_agg_merge';
COMMENT ON FUNCTION bloom_agg_fixed_transfn(bloomfilter, bigint, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) transition: sets a bigint key''s bits in the reserved filter';
COMMENT ON AGGREGATE bloom_agg(bigint, integer, bigint) IS 'the filter of the non-NULL bigint keys in the geometry of expected_keys keys, set as rows arrive';
COMMENT ON FUNCTION bloom_may_contain(bigint, bloomfilter) IS 'false if the bigint key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, bigint) IS 'false if the bigint key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON OPERATOR <~ (bigint, bloomfilter) IS 'may contain: false means the bigint key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, bigint) IS 'may contain: false means the bigint key is certainly absent';
COMMENT ON FUNCTION bloom_add(bloomfilter, bigint) IS 'a copy of the filter with the bigint key added, in the same geometry';
COMMENT ON FUNCTION bloom_add(bloomfilter, bigint[]) IS 'a copy of the filter with every non-NULL bigint key of the array added, in the same geometry';

-- uuid keys

-- not strict: the first row starts the state, NULL keys are skipped
CREATE FUNCTION bloom_agg_transfn(bloom_agg_state, uuid, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_transfn_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(uuid, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg_partial(uuid, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

-- not strict: the first row makes the filter, NULL keys are skipped
CREATE FUNCTION bloom_agg_fixed_transfn(bloomfilter, uuid, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_transfn_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(uuid, integer, bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE FUNCTION bloom_may_contain(uuid, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_may_contain(bloomfilter, uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_filter_may_contain_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <~ (
	LEFTARG = uuid,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = uuid,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE FUNCTION bloom_add(bloomfilter, uuid) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, keys uuid[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloom_agg_transfn(bloom_agg_state, uuid, integer) IS 'bloom_agg transition: adds the hash of a uuid key';
COMMENT ON AGGREGATE bloom_agg(uuid, integer) IS 'the LevelDB bloom filter of the non-NULL uuid keys, at bits_per_key bits a key';
COMMENT ON AGGREGATE bloom_agg_partial(uuid, integer) IS 'the bloom_agg state of the non-NULL uuid keys, to merge with bloom_agg_merge';
COMMENT ON FUNCTION bloom_agg_fixed_transfn(bloomfilter, uuid, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) transition: sets a uuid key''s bits in the reserved filter';
COMMENT ON AGGREGATE bloom_agg(uuid, integer, bigint) IS 'the filter of the non-NULL uuid keys in the geometry of expected_keys keys, set as rows arrive';
COMMENT ON FUNCTION bloom_may_contain(uuid, bloomfilter) IS 'false if the uuid key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, uuid) IS 'false if the uuid key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON OPERATOR <~ (uuid, bloomfilter) IS 'may contain: false means the uuid key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, uuid) IS 'may contain: false means the uuid key is certainly absent';
COMMENT ON FUNCTION bloom_add(bloomfilter, uuid) IS 'a copy of the filter with the uuid key added, in the same geometry';
COMMENT ON FUNCTION bloom_add(bloomfilter, uuid[]) IS 'a copy of the filter with every non-NULL uuid key of the array added, in the same geometry';

------------------------------------------------------------------------
-- bloom_key(VARIADIC "any"): one bytea key of several values.  For each
-- value in order: its length as 4 bytes, most significant first, then its
-- bytes (integers and uuids as above, text and bytea as they are, any
-- other type its binary send form); a NULL is the length 0xFFFFFFFF alone.
------------------------------------------------------------------------

-- not strict: a NULL value is a field of the key
CREATE FUNCTION bloom_key(VARIADIC "any") RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloom_key(VARIADIC "any") IS 'one bytea key of several values: each value''s length (4 bytes, big-endian; 0xFFFFFFFF for NULL) and bytes, in order';

------------------------------------------------------------------------
-- Keys of other types.  These take any other type in the key's place, so
-- that such a key is an error that names the key types and bloom_key,
-- raised when the query is planned (functions, operators) or run
-- (aggregates, also over no rows), instead of "does not exist".
------------------------------------------------------------------------

CREATE FUNCTION bloom_unsupported_key_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- not strict: an error for any row, NULL or not
CREATE FUNCTION bloom_agg_transfn(bloom_agg_state, anyelement, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- not strict: an error also when no row came
CREATE FUNCTION bloom_agg_unsupported_finalfn(bloom_agg_state, anyelement, integer) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_agg_partial_unsupported_finalfn(bloom_agg_state, anyelement, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_agg_fixed_transfn(bloomfilter, anyelement, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_agg_unsupported_finalfn(bloomfilter, anyelement, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(anyelement, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_unsupported_finalfn,
	FINALFUNC_EXTRA,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg_partial(anyelement, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_partial_unsupported_finalfn,
	FINALFUNC_EXTRA,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg(anyelement, integer, bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	FINALFUNC = bloom_agg_unsupported_finalfn,
	FINALFUNC_EXTRA,
	PARALLEL = SAFE
);

CREATE FUNCTION bloom_may_contain(anyelement, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_unsupported_key_support;

CREATE FUNCTION bloom_may_contain(bloomfilter, anyelement) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_unsupported_key_support;

CREATE OPERATOR <~ (
	LEFTARG = anyelement,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = anyelement,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~
);

-- anynonarray: an array of a type that becomes a key array (varchar[],
-- an array of a domain over text) keeps resolving to that key array
CREATE FUNCTION bloom_add(bloomfilter, anynonarray) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_unsupported_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_unsupported_key_support;

COMMENT ON FUNCTION bloom_unsupported_key_support(internal) IS 'planner support of the functions taking a key of another type: the error, when the query is planned';
COMMENT ON FUNCTION bloom_agg_transfn(bloom_agg_state, anyelement, integer) IS 'bloom_agg transition for a key of another type: an error naming the key types and bloom_key';
COMMENT ON FUNCTION bloom_agg_unsupported_finalfn(bloom_agg_state, anyelement, integer) IS 'bloom_agg final for a key of another type: an error naming the key types and bloom_key';
COMMENT ON FUNCTION bloom_agg_partial_unsupported_finalfn(bloom_agg_state, anyelement, integer) IS 'bloom_agg_partial final for a key of another type: an error naming the key types and bloom_key';
COMMENT ON FUNCTION bloom_agg_fixed_transfn(bloomfilter, anyelement, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) transition for a key of another type: an error naming the key types and bloom_key';
COMMENT ON FUNCTION bloom_agg_unsupported_finalfn(bloomfilter, anyelement, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) final for a key of another type: an error naming the key types and bloom_key';
COMMENT ON AGGREGATE bloom_agg(anyelement, integer) IS 'a key of another type: an error naming the key types and bloom_key';
COMMENT ON AGGREGATE bloom_agg_partial(anyelement, integer) IS 'a key of another type: an error naming the key types and bloom_key';
COMMENT ON AGGREGATE bloom_agg(anyelement, integer, bigint) IS 'a key of another type: an error naming the key types and bloom_key';
COMMENT ON FUNCTION bloom_may_contain(anyelement, bloomfilter) IS 'a key of another type: an error naming the key types and bloom_key';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, anyelement) IS 'a key of another type: an error naming the key types and bloom_key';
COMMENT ON OPERATOR <~ (anyelement, bloomfilter) IS 'a key of another type: an error naming the key types and bloom_key';
COMMENT ON OPERATOR ~> (bloomfilter, anyelement) IS 'a key of another type: an error naming the key types and bloom_key';
COMMENT ON FUNCTION bloom_add(bloomfilter, anynonarray) IS 'a key of another type: an error naming the key types and bloom_key';
