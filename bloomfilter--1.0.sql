/* bloomfilter--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

------------------------------------------------------------------------
-- The bloomfilter type: exactly the bytes of a LevelDB bloom filter.
------------------------------------------------------------------------

CREATE TYPE bloomfilter;

CREATE FUNCTION bloomfilter_in(cstring) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_out(bloomfilter) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_recv(internal) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_send(bloomfilter) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- external: the bits are random and never compress, so skip the attempt
CREATE TYPE bloomfilter (
	INPUT = bloomfilter_in,
	OUTPUT = bloomfilter_out,
	RECEIVE = bloomfilter_recv,
	SEND = bloomfilter_send,
	INTERNALLENGTH = VARIABLE,
	STORAGE = external
);

COMMENT ON TYPE bloomfilter IS 'a LevelDB bloom filter: the bit array followed by one byte holding k';
COMMENT ON FUNCTION bloomfilter_in(cstring) IS 'bloomfilter input: \x followed by hex digits, validated';
COMMENT ON FUNCTION bloomfilter_out(bloomfilter) IS 'bloomfilter output: \x followed by lowercase hex digits';
COMMENT ON FUNCTION bloomfilter_recv(internal) IS 'bloomfilter binary input: the filter bytes, validated';
COMMENT ON FUNCTION bloomfilter_send(bloomfilter) IS 'bloomfilter binary output: the filter bytes';

------------------------------------------------------------------------
-- bloom_agg_state: the aggregate's transition state, an ordinary type so
-- that partial states can travel between processes and nodes.
------------------------------------------------------------------------

CREATE TYPE bloom_agg_state;

CREATE FUNCTION bloom_agg_state_in(cstring) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_agg_state_out(bloom_agg_state) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_agg_state_recv(internal) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_agg_state_send(bloom_agg_state) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloom_agg_state (
	INPUT = bloom_agg_state_in,
	OUTPUT = bloom_agg_state_out,
	RECEIVE = bloom_agg_state_recv,
	SEND = bloom_agg_state_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE bloom_agg_state IS 'partial state of bloom_agg: bits_per_key and the 32-bit hashes of the keys';
COMMENT ON FUNCTION bloom_agg_state_in(cstring) IS 'bloom_agg_state input: base64 of the binary form, validated';
COMMENT ON FUNCTION bloom_agg_state_out(bloom_agg_state) IS 'bloom_agg_state output: base64 of the binary form';
COMMENT ON FUNCTION bloom_agg_state_recv(internal) IS 'bloom_agg_state binary input, validated';
COMMENT ON FUNCTION bloom_agg_state_send(bloom_agg_state) IS 'bloom_agg_state binary output';

------------------------------------------------------------------------
-- bloom_agg(key, bits_per_key)
------------------------------------------------------------------------

-- not strict: the first row starts the state, NULL keys are skipped
CREATE FUNCTION bloom_agg_transfn(bloom_agg_state, text, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_agg_transfn(bloom_agg_state, bytea, integer) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_agg_combinefn(bloom_agg_state, bloom_agg_state) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_agg_finalfn(bloom_agg_state) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(text, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

CREATE AGGREGATE bloom_agg(bytea, integer) (
	SFUNC = bloom_agg_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_agg_combinefn,
	SSPACE = 1024,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION bloom_agg_transfn(bloom_agg_state, text, integer) IS 'bloom_agg transition: adds the hash of a text key';
COMMENT ON FUNCTION bloom_agg_transfn(bloom_agg_state, bytea, integer) IS 'bloom_agg transition: adds the hash of a bytea key';
COMMENT ON FUNCTION bloom_agg_combinefn(bloom_agg_state, bloom_agg_state) IS 'bloom_agg combine: the keys of two partial states';
COMMENT ON FUNCTION bloom_agg_finalfn(bloom_agg_state) IS 'bloom_agg final: the LevelDB filter of the keys';
COMMENT ON AGGREGATE bloom_agg(text, integer) IS 'the LevelDB bloom filter of the non-NULL text keys, at bits_per_key bits a key';
COMMENT ON AGGREGATE bloom_agg(bytea, integer) IS 'the LevelDB bloom filter of the non-NULL bytea keys, at bits_per_key bits a key';

------------------------------------------------------------------------
-- May-contain: key <~ filter, filter ~> key (LevelDB's KeyMayMatch)
------------------------------------------------------------------------

CREATE FUNCTION bloom_may_contain(text, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_may_contain(bytea, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_key_may_match' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_may_contain(bloomfilter, text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_filter_may_contain' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_may_contain(bloomfilter, bytea) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_filter_may_contain' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <~ (
	LEFTARG = text,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>
);

CREATE OPERATOR <~ (
	LEFTARG = bytea,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = text,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = bytea,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~
);

COMMENT ON FUNCTION bloom_may_contain(text, bloomfilter) IS 'false if the text key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bytea, bloomfilter) IS 'false if the bytea key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, text) IS 'false if the text key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, bytea) IS 'false if the bytea key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON OPERATOR <~ (text, bloomfilter) IS 'may contain: false means the text key is certainly absent';
COMMENT ON OPERATOR <~ (bytea, bloomfilter) IS 'may contain: false means the bytea key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, text) IS 'may contain: false means the text key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, bytea) IS 'may contain: false means the bytea key is certainly absent';
