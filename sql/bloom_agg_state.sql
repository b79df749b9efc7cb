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
CREATE AGGREGATE bloom_combine_state(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state);

-- The text form is base64 of the binary form: version 2, flags and reserved
-- zero, bits_per_key, the key count and the distinct-hash count
-- (little-endian), then the distinct hashes' Rice-coded gaps.
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
SELECT 'AwAAAAoAAAAAAAAAAAAAAA=='::bloom_agg_state;      -- version 3
SELECT 'AgAAAAoAAAAAAAAAAAAAAA=='::bloom_agg_state;      -- version 2, header cut short
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

-- Version 1 states, written by 1.0 (every key's hash in order), are still
-- read by every way in.  These two were made by bloom_agg_transfn of 1.0:
-- 300 keys of which 100 distinct at 10 bits per key, and 20 keys at 7.
CREATE TABLE v1 (name text, s bloom_agg_state, want bloomfilter);
INSERT INTO v1 VALUES
  ('300 keys, 100 distinct', 'AQAAAAoAAAAsAQAAAAAAAFzuRD/zlekFRT2OzI/lMpP2jNdZYjR8IDLbIOfFg8WtjypqdDS/WhGTUgK2f+WpWtp4Uf+GC/mjbZ6gSMgxSO20xO+RE1eXNv7qPttvZv/XxPmmfJmMTiF9H/bF0rKdardFRQ8L2Oyz4GuUWEX+O/0ZkeOh1Q6kngihS0OsNPPnx8eajHpaQjGe7enVMYCRelQTOR+IpuDDIzmIaLu1SGXXSPAJcNuXro1uP1MpAef3QpSOnJ8nNkE7ut3lVE2FivHgLC9aXe0rofCU0ASDPHVoFuQZz6mLvhI8M2N2z9oH3WKCrCD1KVGEiNH19gWS8pOYOZc/K+E75L6I4IFRMIUt5Ncpynd/zncKJ3MTnc4XuDB2vC6sNrnKP95dldKFAjBlLafc+NRLZ4t88AIeJJWuscs5SURz3hTXGoNVVNt/DueCJON6KslHDdJtOKB5Ep0zIbdxxshbKllwAI/sF6Vjf79J+/t/RlaOJ+syIc+PibR2NGRHHtnA2sV9n21tInoAFcfWk7xrrSZkEKhGoHhc7kQ/85XpBUU9jsyP5TKT9ozXWWI0fCAy2yDnxYPFrY8qanQ0v1oRk1ICtn/lqVraeFH/hgv5o22eoEjIMUjttMTvkRNXlzb+6j7bb2b/18T5pnyZjE4hfR/2xdKynWq3RUUPC9jss+BrlFhF/jv9GZHjodUOpJ4IoUtDrDTz58fHmox6WkIxnu3p1TGAkXpUEzkfiKbgwyM5iGi7tUhl10jwCXDbl66Nbj9TKQHn90KUjpyfJzZBO7rd5VRNhYrx4CwvWl3tK6HwlNAEgzx1aBbkGc+pi74SPDNjds/aB91igqwg9SlRhIjR9fYFkvKTmDmXPyvhO+S+iOCBUTCFLeTXKcp3f853CidzE53OF7gwdrwurDa5yj/eXZXShQIwZS2n3PjUS2eLfPACHiSVrrHLOUlEc94U1xqDVVTbfw7ngiTjeirJRw3SbTigeRKdMyG3ccbIWypZcACP7BelY3+/Sfv7f0ZWjifrMiHPj4m0djRkRx7ZwNrFfZ9tbSJ6ABXH1pO8a60mZBCoRqB4XO5EP/OV6QVFPY7Mj+Uyk/aM11liNHwgMtsg58WDxa2PKmp0NL9aEZNSArZ/5ala2nhR/4YL+aNtnqBIyDFI7bTE75ETV5c2/uo+229m/9fE+aZ8mYxOIX0f9sXSsp1qt0VFDwvY7LPga5RYRf47/RmR46HVDqSeCKFLQ6w08+fHx5qMelpCMZ7t6dUxgJF6VBM5H4im4MMjOYhou7VIZddI8Alw25eujW4/UykB5/dClI6cnyc2QTu63eVUTYWK8eAsL1pd7Suh8JTQBIM8dWgW5BnPqYu+EjwzY3bP2gfdYoKsIPUpUYSI0fX2BZLyk5g5lz8r4TvkvojggVEwhS3k1ynKd3/OdwoncxOdzhe4MHa8Lqw2uco/3l2V0oUCMGUtp9z41Etni3zwAh4kla6xyzlJRHPeFNcag1VU238O54Ik43oqyUcN0m04oHkSnTMht3HGyFsqWXAAj+wXpWN/v0n7+39GVo4n6zIhz4+JtHY0ZEce2cDaxX2fbW0iegAVx9aTvGutJmQQqEageA==',
   (SELECT bloom_agg('key-' || (i % 100), 10) FROM generate_series(1, 300) i)),
  ('20 keys, bpk 7', 'AQAAAAcAAAAUAAAAAAAAAFzuRD/zlekFRT2OzI/lMpP2jNdZYjR8IDLbIOfFg8WtjypqdDS/WhGTUgK2f+WpWtp4Uf+GC/mjbZ6gSMgxSO20xO+RE1eXNv7qPttvZv/X',
   (SELECT bloom_agg('key-' || i, 7) FROM generate_series(1, 20) i));
SELECT name, bloom_agg_finalfn(s) = want AS final_same,
       substring(s::text, 1, 2) AS version_1_text,
       bloom_agg_finalfn(c) = want AS combined_same,
       substring(c::text, 1, 2) AS combined_writes_version_2
  FROM v1, LATERAL (SELECT bloom_combine_state(v.s) AS c FROM (SELECT v1.s) v) x
 ORDER BY name;
-- combined with version 2 states of more keys
SELECT bloom_combine(s) = (SELECT bloom_agg('key-' || (i % 100), 10)
                             FROM generate_series(1, 1300) i) AS v1_v2_combined
  FROM (SELECT s FROM v1 WHERE name LIKE '300%'
        UNION ALL
        SELECT bloom_partial('key-' || (i % 100), 10) FROM generate_series(301, 1300) i
         GROUP BY i % 3) x;
-- the binary input (22P03 rules) reads them too
TRUNCATE raw_bytes, state_copy;
INSERT INTO raw_bytes SELECT decode(s::text, 'base64') FROM v1 ORDER BY name;
\copy raw_bytes TO 'results/bloom_agg_state_raw.bin' (FORMAT binary)
\copy state_copy FROM 'results/bloom_agg_state_raw.bin' (FORMAT binary)
SELECT count(*) AS v1_binary_same FROM state_copy c JOIN v1 ON bloom_agg_finalfn(c.s) = v1.want;

-- A state buffers its latest hashes and sorts each 2^20 of them into a run
-- of distinct hashes; runs are merged when that halves them.  Past those
-- sizes, with distinct keys (runs never merged), 300,000 distinct keys
-- (runs merged) and 1,000 (runs merged at once), the filter from the
-- expanded state, the one from its flat copy (the value bloom_partial
-- returns), the one through the text form and the one from three combined
-- parts are the same, and every key matches.  The flat state of repeated
-- keys takes about 1.3 bytes a distinct key, and nothing for a repeat.
CREATE TABLE many AS SELECT i, md5(i::text) AS k, md5((i % 300000)::text) AS k300k,
                            md5((i % 1000)::text) AS k1k
                       FROM generate_series(1, 2200000) i;
CREATE TABLE many_keys (name text, k text, i int);
INSERT INTO many_keys SELECT 'distinct', k, i FROM many;
INSERT INTO many_keys SELECT '300000 distinct', k300k, i FROM many;
INSERT INTO many_keys SELECT '1000 distinct', k1k, i FROM many;
WITH f AS (SELECT name, bloom_agg(k, 10) AS serial,
                  bloom_agg_finalfn(bloom_partial(k, 10)) AS from_flat,
                  bloom_agg_finalfn(bloom_partial(k, 10)::text::bloom_agg_state) AS from_text,
                  pg_column_size(bloom_partial(k, 10)) AS state_bytes,
                  count(DISTINCT k) AS keys
             FROM many_keys GROUP BY name),
     parts AS (SELECT name, bloom_partial(k, 10) AS s FROM many_keys GROUP BY name, i % 3)
SELECT name, octet_length(serial::bytea) AS bytes,
       serial = from_flat AS flat_same,
       serial = from_text AS text_same,
       serial = (SELECT bloom_combine(s) FROM parts WHERE parts.name = f.name) AS combined_same,
       (SELECT count(*) FROM many_keys m WHERE m.name = f.name AND NOT m.k <~ serial) AS keys_missing,
       round(state_bytes::numeric / keys, 1) AS state_bytes_per_distinct_key
  FROM f ORDER BY name;

-- A large state (sorted on threads) flattened twice: from PostgreSQL 16 on
-- an aggregate's result is not copied, and each of a new table's two
-- columns flattens it, the first straight into the tuple, the second after
-- a new sort, from the flat form then kept.  The same bytes both times.
CREATE TABLE flat_twice AS
  SELECT s AS a, s AS b
    FROM (SELECT bloom_partial(k, 10) AS s FROM many_keys WHERE name = 'distinct') x;
SELECT bloom_agg_state_send(a) = bloom_agg_state_send(b) AS same_bytes,
       bloom_agg_finalfn(a) = (SELECT bloom_agg(k, 10) FROM many_keys
                                WHERE name = 'distinct') AS filter_same
  FROM flat_twice;
DROP TABLE flat_twice;

DROP TABLE parts, states, state_copy, raw_bytes, many, many_keys, v1;
DROP AGGREGATE bloom_partial(text, integer);
DROP AGGREGATE bloom_combine(bloom_agg_state);
DROP AGGREGATE bloom_combine_state(bloom_agg_state);
