/* bloomfilter--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

------------------------------------------------------------------------
-- B-tree order: bytea's order of the bytes.  It means nothing about the
-- keys; it is total and stable, and agrees with =.
------------------------------------------------------------------------

CREATE FUNCTION bloomfilter_cmp(bloomfilter, bloomfilter) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_lt(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_le(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_gt(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_ge(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR < (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_lt,
	COMMUTATOR = '>',
	NEGATOR = '>=',
	RESTRICT = scalarltsel,
	JOIN = scalarltjoinsel
);

CREATE OPERATOR <= (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_le,
	COMMUTATOR = '>=',
	NEGATOR = '>',
	RESTRICT = scalarlesel,
	JOIN = scalarlejoinsel
);

CREATE OPERATOR > (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_gt,
	COMMUTATOR = '<',
	NEGATOR = '<=',
	RESTRICT = scalargtsel,
	JOIN = scalargtjoinsel
);

CREATE OPERATOR >= (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_ge,
	COMMUTATOR = '<=',
	NEGATOR = '<',
	RESTRICT = scalargesel,
	JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS bloomfilter_ops
	DEFAULT FOR TYPE bloomfilter USING btree AS
	OPERATOR 1 < ,
	OPERATOR 2 <= ,
	OPERATOR 3 = ,
	OPERATOR 4 >= ,
	OPERATOR 5 > ,
	FUNCTION 1 bloomfilter_cmp(bloomfilter, bloomfilter);

-- = can now merge-join.  ALTER OPERATOR ... SET (MERGES) exists from
-- PostgreSQL 17; before it the flag is set in the catalog directly, which
-- is what that command does.
DO $$
BEGIN
	IF current_setting('server_version_num')::integer >= 170000 THEN
		EXECUTE 'ALTER OPERATOR = (bloomfilter, bloomfilter) SET (MERGES)';
	ELSE
		UPDATE pg_catalog.pg_operator SET oprcanmerge = true
		 WHERE oid = '=(bloomfilter, bloomfilter)'::pg_catalog.regoperator;
	END IF;
END
$$;

COMMENT ON FUNCTION bloomfilter_cmp(bloomfilter, bloomfilter) IS 'B-tree order of filters: their bytes compared as bytea compares them';
COMMENT ON FUNCTION bloomfilter_lt(bloomfilter, bloomfilter) IS 'true if the first filter''s bytes sort before the second''s';
COMMENT ON FUNCTION bloomfilter_le(bloomfilter, bloomfilter) IS 'true if the first filter''s bytes sort before or equal the second''s';
COMMENT ON FUNCTION bloomfilter_gt(bloomfilter, bloomfilter) IS 'true if the first filter''s bytes sort after the second''s';
COMMENT ON FUNCTION bloomfilter_ge(bloomfilter, bloomfilter) IS 'true if the first filter''s bytes sort after or equal the second''s';
COMMENT ON OPERATOR < (bloomfilter, bloomfilter) IS 'sorts before, by bytes (an arbitrary but total order)';
COMMENT ON OPERATOR <= (bloomfilter, bloomfilter) IS 'sorts before or equal, by bytes (an arbitrary but total order)';
COMMENT ON OPERATOR > (bloomfilter, bloomfilter) IS 'sorts after, by bytes (an arbitrary but total order)';
COMMENT ON OPERATOR >= (bloomfilter, bloomfilter) IS 'sorts after or equal, by bytes (an arbitrary but total order)';
COMMENT ON OPERATOR FAMILY bloomfilter_ops USING btree IS 'order of bloomfilter values by their bytes, as bytea';
COMMENT ON OPERATOR CLASS bloomfilter_ops USING btree IS 'order of bloomfilter values by their bytes, as bytea';

------------------------------------------------------------------------
-- The planner's estimate for <~ and ~>
------------------------------------------------------------------------

CREATE FUNCTION bloom_may_contain_sel(internal, oid, internal, integer) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

ALTER OPERATOR <~ (text, bloomfilter) SET (RESTRICT = bloom_may_contain_sel, JOIN = matchingjoinsel);
ALTER OPERATOR <~ (bytea, bloomfilter) SET (RESTRICT = bloom_may_contain_sel, JOIN = matchingjoinsel);
ALTER OPERATOR ~> (bloomfilter, text) SET (RESTRICT = bloom_may_contain_sel, JOIN = matchingjoinsel);
ALTER OPERATOR ~> (bloomfilter, bytea) SET (RESTRICT = bloom_may_contain_sel, JOIN = matchingjoinsel);

COMMENT ON FUNCTION bloom_may_contain_sel(internal, oid, internal, integer) IS 'restriction selectivity of <~ and ~>: the filter probed on the column''s statistics, at least its false-positive rate';

------------------------------------------------------------------------
-- Reserved filters: sized first, filled later
------------------------------------------------------------------------

CREATE FUNCTION bloom_empty(expected_keys bigint, bits_per_key integer) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, keys text[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, keys bytea[]) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloom_add_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- not strict: the first row makes the filter, NULL keys are skipped
CREATE FUNCTION bloom_agg_fixed_transfn(bloomfilter, text, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_agg_fixed_transfn(bloomfilter, bytea, integer, bigint) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(text, integer, bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg(bytea, integer, bigint) (
	SFUNC = bloom_agg_fixed_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION bloom_empty(bigint, integer) IS 'a filter with no key yet, in the geometry LevelDB gives expected_keys keys at bits_per_key';
COMMENT ON FUNCTION bloom_add(bloomfilter, text[]) IS 'a copy of the filter with every non-NULL text key of the array added, in the same geometry';
COMMENT ON FUNCTION bloom_add(bloomfilter, bytea[]) IS 'a copy of the filter with every non-NULL bytea key of the array added, in the same geometry';
COMMENT ON FUNCTION bloom_agg_fixed_transfn(bloomfilter, text, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) transition: sets a text key''s bits in the reserved filter';
COMMENT ON FUNCTION bloom_agg_fixed_transfn(bloomfilter, bytea, integer, bigint) IS 'bloom_agg(key, bits_per_key, expected_keys) transition: sets a bytea key''s bits in the reserved filter';
COMMENT ON AGGREGATE bloom_agg(text, integer, bigint) IS 'the filter of the non-NULL text keys in the geometry of expected_keys keys, set as rows arrive';
COMMENT ON AGGREGATE bloom_agg(bytea, integer, bigint) IS 'the filter of the non-NULL bytea keys in the geometry of expected_keys keys, set as rows arrive';

------------------------------------------------------------------------
-- Two-phase bloom_agg: partial states per shard or server, merged into
-- the one filter over all rows.
------------------------------------------------------------------------

CREATE AGGREGATE bloom_agg_partial(text, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg_partial(bytea, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg_merge(bloom_agg_state) (
	SFUNC = bloom_agg_combinefn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloom_agg_partial(text, integer) IS 'the bloom_agg state of the non-NULL text keys, to merge with bloom_agg_merge';
COMMENT ON AGGREGATE bloom_agg_partial(bytea, integer) IS 'the bloom_agg state of the non-NULL bytea keys, to merge with bloom_agg_merge';
COMMENT ON AGGREGATE bloom_agg_merge(bloom_agg_state) IS 'the LevelDB filter of the keys of all the non-NULL states: bloom_agg over all their rows';

------------------------------------------------------------------------
-- Sizing measured on LevelDB's probe scheme, for a named key count
------------------------------------------------------------------------

CREATE FUNCTION bloom_expected_fpr(bits_per_key integer, keys bigint) RETURNS double precision
	AS 'MODULE_PATHNAME', 'bloom_expected_fpr_keys' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_bits_per_key(target_fpr double precision, keys bigint) RETURNS integer
	AS 'MODULE_PATHNAME', 'bloom_bits_per_key_keys' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloom_expected_fpr(integer) IS 'false-positive rate LevelDB''s filter gives 1,000,000 keys at bits_per_key bits a key, as measured';
COMMENT ON FUNCTION bloom_bits_per_key(double precision) IS 'smallest bits_per_key whose false-positive rate for 1,000,000 keys is at most the target';
COMMENT ON FUNCTION bloom_expected_fpr(integer, bigint) IS 'false-positive rate LevelDB''s filter gives that many keys at bits_per_key bits a key, measured on a simulated filter';
COMMENT ON FUNCTION bloom_bits_per_key(double precision, bigint) IS 'smallest bits_per_key whose false-positive rate for that many keys is at most the target';
