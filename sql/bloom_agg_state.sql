-- bloom_agg_state: the aggregate's transition type, an ordinary type whose
-- values can leave the process (parallel workers, Citus worker nodes).

-- Not a pseudo-type: planners that push partial aggregation to other nodes
-- require that.
SELECT a.aggfnoid::regprocedure AS aggregate, t.typname, t.typtype,
       a.aggcombinefn::regproc AS combine, p.proparallel
  FROM pg_aggregate a
  JOIN pg_type t ON t.oid = a.aggtranstype
  JOIN pg_proc p ON p.oid = a.aggfnoid
 WHERE p.proname = 'bloom_agg'
 ORDER BY a.aggfnoid::regprocedure::text;

-- Partial states, made by an aggregate without a final function.
CREATE AGGREGATE bloom_partial(text, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);
CREATE AGGREGATE bloom_combine(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_finalfn);

-- The text form is base64 of the binary form: version 1, flags and reserved
-- zero, bits_per_key and the count (little-endian), then the hashes.
SELECT bloom_partial('abc', 10);
SELECT encode(bloom_agg_state_send(bloom_partial('abc', 10)), 'hex');
SELECT bloom_agg_finalfn(bloom_partial('abc', 10));

-- Partial states of any split, combined, give the serial filter.
CREATE TABLE parts AS SELECT i, 'key-' || i AS k FROM generate_series(1, 5000) i;
CREATE TABLE states AS
  SELECT i % 7 AS part, bloom_partial(k, 10) AS s FROM parts GROUP BY i % 7;
SELECT (SELECT bloom_combine(s) FROM states)::text
     = (SELECT bloom_agg(k, 10) FROM parts)::text AS combined_equals_serial;
-- through the text form and back (how Citus moves states between nodes)
SELECT (SELECT bloom_combine(s::text::bloom_agg_state) FROM states)::text
     = (SELECT bloom_agg(k, 10) FROM parts)::text AS text_round_trip;
-- NULL states are skipped
SELECT (SELECT bloom_combine(s) FROM (SELECT s FROM states UNION ALL SELECT NULL) x)::text
     = (SELECT bloom_agg(k, 10) FROM parts)::text AS null_state_skipped;
-- an empty state is valid, and finalizes to the zero-key filter
SELECT bloom_agg_finalfn('AQAAAAoAAAAAAAAAAAAAAA=='::bloom_agg_state);

-- States with different bits_per_key do not combine.
\set VERBOSITY default
SELECT bloom_combine(s) FROM (SELECT bloom_partial('a', 10) AS s
                              UNION ALL SELECT bloom_partial('b', 11)) x;
\set VERBOSITY sqlstate
SELECT bloom_combine(s) FROM (SELECT bloom_partial('a', 10) AS s
                              UNION ALL SELECT bloom_partial('b', 11)) x;
\set VERBOSITY default

-- Corrupt states are refused by every way in, never trusted.
SELECT 'not base64!'::bloom_agg_state;
SELECT ''::bloom_agg_state;
SELECT 'AQAAAA=='::bloom_agg_state;                      -- header cut short
SELECT 'AgAAAAoAAAAAAAAAAAAAAA=='::bloom_agg_state;      -- version 2
SELECT 'AQEAAAoAAAAAAAAAAAAAAA=='::bloom_agg_state;      -- a flag set
SELECT 'AQAAAP////8AAAAAAAAAAA=='::bloom_agg_state;      -- bits_per_key -1
SELECT 'AQAAAAoAAAABAAAAAAAAAA=='::bloom_agg_state;      -- one hash claimed, none there
SELECT 'AQAAAAoAAAD/////////fwAAAAA='::bloom_agg_state;  -- forged huge count
\set VERBOSITY sqlstate
SELECT 'AQAAAA=='::bloom_agg_state;
SELECT 'AQAAAAoAAAABAAAAAAAAAA=='::bloom_agg_state;
\set VERBOSITY default
-- the binary input checks the same rules (22P03): raw bytes written by a
-- binary COPY of bytea are read back as bloom_agg_state
CREATE TABLE raw_bytes (b bytea);
INSERT INTO raw_bytes VALUES ('\x010000000a0000000100000000000000');  -- a hash missing
\copy raw_bytes TO 'results/bloom_agg_state_raw.bin' (FORMAT binary)
CREATE TABLE state_copy (s bloom_agg_state);
\copy state_copy FROM 'results/bloom_agg_state_raw.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy state_copy FROM 'results/bloom_agg_state_raw.bin' (FORMAT binary)
\set VERBOSITY default
TRUNCATE raw_bytes;
INSERT INTO raw_bytes VALUES ('\x030000000a00000000000000000000');  -- short, bad version
\copy raw_bytes TO 'results/bloom_agg_state_raw.bin' (FORMAT binary)
\copy state_copy FROM 'results/bloom_agg_state_raw.bin' (FORMAT binary)
-- and a good state survives a binary round trip
INSERT INTO state_copy SELECT bloom_partial(k, 10) FROM parts;
\copy state_copy TO 'results/bloom_agg_state.bin' (FORMAT binary)
TRUNCATE state_copy;
\copy state_copy FROM 'results/bloom_agg_state.bin' (FORMAT binary)
SELECT bloom_agg_finalfn(s)::text = (SELECT bloom_agg(k, 10) FROM parts)::text AS binary_round_trip
  FROM state_copy;

-- A state keeps its hashes in chunks of at most 2^21.  Past that many
-- keys, the filter from the chunked state, the one from its flat copy (the
-- value bloom_partial returns), and the one from two combined halves are
-- the same, and every key matches.
CREATE TABLE many AS SELECT i, md5(i::text) AS k FROM generate_series(1, 2200000) i;
WITH f AS (SELECT bloom_agg(k, 10) AS serial,
                  bloom_agg_finalfn(bloom_partial(k, 10)) AS from_flat
             FROM many),
     halves AS (SELECT bloom_partial(k, 10) AS s FROM many GROUP BY i % 2)
SELECT octet_length(serial::bytea) AS bytes,
       serial = from_flat AS flat_same,
       serial = (SELECT bloom_combine(s) FROM halves) AS combined_same,
       (SELECT count(*) FROM many WHERE NOT k <~ serial) AS keys_missing
  FROM f;

DROP TABLE parts, states, state_copy, raw_bytes, many;
DROP AGGREGATE bloom_partial(text, integer);
DROP AGGREGATE bloom_combine(bloom_agg_state);
