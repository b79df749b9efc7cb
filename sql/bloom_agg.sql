-- bloom_agg(key, bits_per_key): LevelDB's CreateFilter over the rows.
-- (Byte-for-byte agreement with the real LevelDB is checked by
-- test/sql_diff.sh against libleveldb's own output; this file covers the
-- SQL behaviour around it.)

CREATE TABLE keys AS
  SELECT i, 'key-' || i AS k, i % 10 AS g FROM generate_series(1, 10000) i;

-- One key: the filter LevelDB writes for abc at 10 bits a key.
SELECT bloom_agg('abc'::text, 10);
SELECT bloom_agg('\x616263'::bytea, 10);

-- text keys are hashed as their bytes in the database encoding
SELECT bloom_agg(k, 10)::text = bloom_agg(textsend(k), 10)::text AS text_equals_bytes
  FROM keys;

-- Geometry: max(64, n * bits_per_key) bits in whole bytes, then k.
SELECT bpk, n, octet_length(f::text) / 2 - 1 AS filter_bytes, right(f::text, 2) AS k_hex
  FROM (VALUES (0), (1), (2), (3), (10), (20), (43), (44), (100), (1000)) b(bpk),
       (VALUES (1), (7), (100)) c(n),
       LATERAL (SELECT bloom_agg(i::text, bpk) AS f FROM generate_series(1, n) i) a
 ORDER BY bpk, n;

-- Duplicates count toward the size, as in LevelDB.
SELECT octet_length(bloom_agg(k, 10)::text) / 2 - 1 AS bytes_for_100_copies
  FROM (SELECT 'same' AS k FROM generate_series(1, 100)) d;

-- NULL keys are skipped; no key at all gives NULL.
SELECT bloom_agg(k, 10)::text = (SELECT bloom_agg(k, 10)::text FROM (VALUES ('a'), ('b')) v(k))
  AS nulls_skipped
  FROM (VALUES ('a'), (NULL), ('b'), (NULL)) v(k);
SELECT bloom_agg(k, 10) IS NULL AS no_rows FROM keys WHERE false;
SELECT bloom_agg(NULL::text, 10) IS NULL AS only_null_keys FROM generate_series(1, 3);
-- the empty filter LevelDB writes for zero keys, when NULL will not do
SELECT COALESCE(bloom_agg(k, 10), '\x000000000000000006'::bloomfilter) AS empty_filter
  FROM keys WHERE false;
-- the empty key is a key like any other
SELECT bloom_agg(''::text, 10), '' <~ bloom_agg(''::text, 10) AS found;

-- The order of the rows does not matter.
SELECT count(DISTINCT f::text) AS distinct_results FROM (
  SELECT bloom_agg(k, 10 ORDER BY i) AS f FROM keys
  UNION ALL SELECT bloom_agg(k, 10 ORDER BY i DESC) FROM keys
  UNION ALL SELECT bloom_agg(k, 10 ORDER BY md5(k)) FROM keys) r;

-- Every member matches.
SELECT count(*) AS members_missed
  FROM keys, (SELECT bloom_agg(k, 10) AS f FROM keys) b
 WHERE NOT k <~ f;

-- GROUP BY: each group's filter is the filter of that group alone,
-- with sorted and with hashed grouping.
CREATE TABLE many_groups AS
  SELECT i, 'k' || i AS k, i % 1000 AS g FROM generate_series(1, 20000) i;
SET enable_hashagg = off;
CREATE TABLE by_sort AS SELECT g, bloom_agg(k, 10) AS f FROM many_groups GROUP BY g;
RESET enable_hashagg;
SET enable_sort = off;
SET work_mem = '64kB';  -- small enough for the hash aggregate to spill
CREATE TABLE by_hash AS SELECT g, bloom_agg(k, 10) AS f FROM many_groups GROUP BY g;
RESET work_mem;
RESET enable_sort;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE s.f::text = h.f::text) AS same_by_sort_and_hash,
       count(*) FILTER (WHERE s.f::text = (SELECT bloom_agg(k, 10)::text
                                             FROM many_groups m WHERE m.g = s.g))
         AS same_as_alone
  FROM by_sort s JOIN by_hash h USING (g);

DROP TABLE by_sort, by_hash, many_groups;

-- A window with ORDER BY: each row sees the filter of the rows so far,
-- and the final function leaves the state intact for the next row.
SELECT i, bloom_agg(k, 10) OVER (ORDER BY i) AS running
  FROM keys WHERE i <= 4 ORDER BY i;
SELECT count(*) AS window_rows,
       count(*) FILTER (WHERE w.f::text = (SELECT bloom_agg(k, 10)::text
                                             FROM keys k2 WHERE k2.i <= w.i))
         AS same_as_prefix
  FROM (SELECT i, bloom_agg(k, 10) OVER (ORDER BY i) AS f FROM keys WHERE i <= 300) w;
-- and per partition, with a frame that restarts
SELECT g, count(DISTINCT f::text) AS distinct_filters
  FROM (SELECT g, bloom_agg(k, 10) OVER (PARTITION BY g) AS f FROM keys WHERE g < 3) w
 GROUP BY g ORDER BY g;

-- Errors.
\set VERBOSITY default
SELECT bloom_agg(k, -1) FROM keys;
SELECT bloom_agg(k, CASE WHEN i < 5 THEN 10 ELSE 11 END) FROM keys;
SELECT bloom_agg(k, NULL) FROM keys;
-- too large for a value: refused before anything is allocated
SELECT bloom_agg(k, 2147483647) FROM keys;
\set VERBOSITY sqlstate
SELECT bloom_agg(k, -1) FROM keys;
SELECT bloom_agg(k, CASE WHEN i < 5 THEN 10 ELSE 11 END) FROM keys;
SELECT bloom_agg(k, NULL) FROM keys;
SELECT bloom_agg(k, 2147483647) FROM keys;
\set VERBOSITY default
-- a large bits_per_key is fine while the filter fits
SELECT octet_length(f::text) / 2 - 1 AS bytes, right(f::text, 2) AS k_hex
  FROM (SELECT bloom_agg(k, 100000) AS f FROM (VALUES ('one')) v(k)) a;

-- The support functions only run inside an aggregate.
SELECT bloom_agg_transfn(NULL, 'a'::text, 10);

DROP TABLE keys;
