/* bloomfilter--1.1.sql: a fresh install of 1.1 (1.0 installs update with bloomfilter--1.0--1.1.sql) */

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

CREATE FUNCTION bloom_may_contain_sel(internal, oid, internal, integer) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <~ (
	LEFTARG = text,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE OPERATOR <~ (
	LEFTARG = bytea,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = ~>,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = text,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

CREATE OPERATOR ~> (
	LEFTARG = bloomfilter,
	RIGHTARG = bytea,
	FUNCTION = bloom_may_contain,
	COMMUTATOR = <~,
	RESTRICT = bloom_may_contain_sel,
	JOIN = matchingjoinsel
);

COMMENT ON FUNCTION bloom_may_contain(text, bloomfilter) IS 'false if the text key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bytea, bloomfilter) IS 'false if the bytea key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, text) IS 'false if the text key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON FUNCTION bloom_may_contain(bloomfilter, bytea) IS 'false if the bytea key is certainly not in the filter (LevelDB KeyMayMatch)';
COMMENT ON OPERATOR <~ (text, bloomfilter) IS 'may contain: false means the text key is certainly absent';
COMMENT ON OPERATOR <~ (bytea, bloomfilter) IS 'may contain: false means the bytea key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, text) IS 'may contain: false means the text key is certainly absent';
COMMENT ON OPERATOR ~> (bloomfilter, bytea) IS 'may contain: false means the bytea key is certainly absent';
COMMENT ON FUNCTION bloom_may_contain_sel(internal, oid, internal, integer) IS 'restriction selectivity of <~ and ~>: the filter probed on the column''s statistics, at least its false-positive rate';

------------------------------------------------------------------------
-- Casts: a filter's bytes are its binary form, both ways.
------------------------------------------------------------------------

-- free: a bloomfilter and a bytea have the same varlena layout
CREATE CAST (bloomfilter AS bytea) WITHOUT FUNCTION;

CREATE FUNCTION bloomfilter(bytea) RETURNS bloomfilter
	AS 'MODULE_PATHNAME', 'bloomfilter_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- explicit: bytes become a filter only when asked to, and only valid ones
CREATE CAST (bytea AS bloomfilter) WITH FUNCTION bloomfilter(bytea);

COMMENT ON CAST (bloomfilter AS bytea) IS 'the filter bytes, unchanged';
COMMENT ON FUNCTION bloomfilter(bytea) IS 'the bytes of a LevelDB filter as a bloomfilter, validated as binary input';
COMMENT ON CAST (bytea AS bloomfilter) IS 'the bytes of a LevelDB filter, validated as binary input';

------------------------------------------------------------------------
-- Equality: the same bytes.  Hashable, for DISTINCT, GROUP BY, hash joins;
-- mergeable with the B-tree order below.
------------------------------------------------------------------------

CREATE FUNCTION bloomfilter_eq(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_ne(bloomfilter, bloomfilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_hash(bloomfilter) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_hash_extended(bloomfilter, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_eq,
	COMMUTATOR = '=',
	NEGATOR = '<>',
	RESTRICT = eqsel,
	JOIN = eqjoinsel,
	HASHES,
	MERGES
);

CREATE OPERATOR <> (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_ne,
	COMMUTATOR = '<>',
	NEGATOR = '=',
	RESTRICT = neqsel,
	JOIN = neqjoinsel
);

CREATE OPERATOR CLASS bloomfilter_ops
	DEFAULT FOR TYPE bloomfilter USING hash AS
	OPERATOR 1 = ,
	FUNCTION 1 bloomfilter_hash(bloomfilter),
	FUNCTION 2 bloomfilter_hash_extended(bloomfilter, bigint);

COMMENT ON FUNCTION bloomfilter_eq(bloomfilter, bloomfilter) IS 'true if the two filters have the same bytes';
COMMENT ON FUNCTION bloomfilter_ne(bloomfilter, bloomfilter) IS 'true if the two filters differ in any byte';
COMMENT ON FUNCTION bloomfilter_hash(bloomfilter) IS 'hash of the filter bytes, for hash joins and hash indexes';
COMMENT ON FUNCTION bloomfilter_hash_extended(bloomfilter, bigint) IS 'seeded 64-bit hash of the filter bytes, for hash partitioning';
COMMENT ON OPERATOR = (bloomfilter, bloomfilter) IS 'equal: the same bytes';
COMMENT ON OPERATOR <> (bloomfilter, bloomfilter) IS 'not equal: different bytes';
COMMENT ON OPERATOR FAMILY bloomfilter_ops USING hash IS 'hashing of bloomfilter values by their bytes';
COMMENT ON OPERATOR CLASS bloomfilter_ops USING hash IS 'hashing of bloomfilter values by their bytes';

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
-- Introspection and sizing
------------------------------------------------------------------------

CREATE FUNCTION bloom_info(bloomfilter,
	OUT bytes bigint,
	OUT bits bigint,
	OUT k integer,
	OUT bits_set bigint,
	OUT fill_ratio double precision,
	OUT estimated_keys double precision,
	OUT false_positive_rate double precision)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_cardinality(bloomfilter) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_expected_fpr(bits_per_key integer) RETURNS double precision
	AS 'MODULE_PATHNAME', 'bloom_expected_fpr_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_bits_per_key(target_fpr double precision) RETURNS integer
	AS 'MODULE_PATHNAME', 'bloom_bits_per_key_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_expected_fpr(bits_per_key integer, keys bigint) RETURNS double precision
	AS 'MODULE_PATHNAME', 'bloom_expected_fpr_keys' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_bits_per_key(target_fpr double precision, keys bigint) RETURNS integer
	AS 'MODULE_PATHNAME', 'bloom_bits_per_key_keys' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloom_info(bloomfilter) IS 'size, k, bits set, and the keys and false-positive rate they suggest';
COMMENT ON FUNCTION bloom_cardinality(bloomfilter) IS 'estimated number of distinct keys in the filter';
COMMENT ON FUNCTION bloom_expected_fpr(integer) IS 'false-positive rate LevelDB''s filter gives 1,000,000 keys at bits_per_key bits a key, as measured';
COMMENT ON FUNCTION bloom_bits_per_key(double precision) IS 'smallest bits_per_key whose false-positive rate for 1,000,000 keys is at most the target';
COMMENT ON FUNCTION bloom_expected_fpr(integer, bigint) IS 'false-positive rate LevelDB''s filter gives that many keys at bits_per_key bits a key, measured on a simulated filter';
COMMENT ON FUNCTION bloom_bits_per_key(double precision, bigint) IS 'smallest bits_per_key whose false-positive rate for that many keys is at most the target';

------------------------------------------------------------------------
-- Changing filters: bloom_add, union (|), intersection (&), bloom_union_agg
------------------------------------------------------------------------

CREATE FUNCTION bloom_add(bloomfilter, text) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, bytea) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_union(bloomfilter, bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_intersect(bloomfilter, bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR | (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_union,
	COMMUTATOR = '|'
);

CREATE OPERATOR & (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloom_intersect,
	COMMUTATOR = '&'
);

-- strict: the first non-NULL filter becomes the state
CREATE FUNCTION bloom_union_agg_transfn(bloomfilter, bloomfilter) RETURNS bloomfilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE bloom_union_agg(bloomfilter) (
	SFUNC = bloom_union_agg_transfn,
	STYPE = bloomfilter,
	COMBINEFUNC = bloom_union_agg_transfn,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION bloom_add(bloomfilter, text) IS 'a copy of the filter with the text key added, in the same geometry';
COMMENT ON FUNCTION bloom_add(bloomfilter, bytea) IS 'a copy of the filter with the bytea key added, in the same geometry';
COMMENT ON FUNCTION bloom_union(bloomfilter, bloomfilter) IS 'the filter of the keys of both: bitwise OR of filters of the same geometry';
COMMENT ON FUNCTION bloom_intersect(bloomfilter, bloomfilter) IS 'a filter matching the keys common to both: bitwise AND of filters of the same geometry';
COMMENT ON OPERATOR | (bloomfilter, bloomfilter) IS 'union: the filter of the keys of both';
COMMENT ON OPERATOR & (bloomfilter, bloomfilter) IS 'intersection: a filter matching the keys common to both';
COMMENT ON FUNCTION bloom_union_agg_transfn(bloomfilter, bloomfilter) IS 'bloom_union_agg transition and combine: ORs the filter into the state';
COMMENT ON AGGREGATE bloom_union_agg(bloomfilter) IS 'the union of the non-NULL filters, which must share one geometry';

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
