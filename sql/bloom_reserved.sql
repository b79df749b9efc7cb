-- Reserved filters: bloom_empty, bloom_add of an array, and
-- bloom_agg(key, bits_per_key, expected_keys), which sets bits as rows
-- arrive in a filter of a fixed geometry.
CREATE TABLE reserved_keys AS
  SELECT i, 'r' || i AS k, ('r' || i)::bytea AS b FROM generate_series(1, 5000) i;

-- bloom_empty: LevelDB's geometry for that many keys, no bit set.
SELECT bloom_empty(0, 10) AS no_keys, bloom_empty(3, 10) AS three_keys, bloom_empty(10, 1) AS k_one;
SELECT (bloom_info(bloom_empty(5000, 10))).*;
SELECT bloom_info(bloom_empty(n, bpk)) = bloom_info(bloom_empty(n, bpk)) AS stable,
       length(bloom_empty(n, bpk)::bytea) = length((SELECT bloom_agg(k, bpk) FROM reserved_keys WHERE i <= n)::bytea) AS same_size_as_bloom_agg
  FROM (VALUES (1, 10), (7, 4), (100, 20), (5000, 10)) v(n, bpk);

-- With exactly expected_keys keys, all three give bloom_agg's bytes.
SELECT bloom_add(bloom_empty(5000, 10), array_agg(k)) = bloom_agg(k, 10) AS add_text_array,
       bloom_add(bloom_empty(5000, 10), array_agg(b)) = bloom_agg(b, 10) AS add_bytea_array,
       bloom_agg(k, 10, 5000) = bloom_agg(k, 10) AS reserved_agg_text,
       bloom_agg(b, 10, 5000) = bloom_agg(b, 10) AS reserved_agg_bytea
  FROM reserved_keys;
-- Duplicates count, as in bloom_agg.
SELECT bloom_agg(k, 10, 10000) = bloom_agg(k, 10) AS duplicates_counted
  FROM (SELECT k FROM reserved_keys UNION ALL SELECT k FROM reserved_keys) d;
-- NULL keys and NULL array elements are skipped.
SELECT bloom_add(bloom_empty(2, 10), ARRAY['a', NULL, 'b']) = bloom_agg(x, 10) AS null_elements_skipped
  FROM unnest(ARRAY['a', 'b']) x;
SELECT bloom_agg(x, 10, 2) = bloom_agg(x, 10) AS null_keys_skipped
  FROM unnest(ARRAY['a', NULL, 'b']) x;
SELECT bloom_agg(x, 10, 2) IS NULL AS no_rows_is_null FROM unnest(ARRAY[]::text[]) x;
SELECT bloom_add(bloom_empty(2, 10), ARRAY[]::text[]) = bloom_empty(2, 10) AS empty_array_adds_nothing;

-- With fewer or more keys than expected: the reserved geometry, every key
-- matches, and filters of one geometry union into the filter of all keys.
WITH days AS (
  SELECT i % 7 AS day, bloom_agg(k, 10, 5000) AS f FROM reserved_keys GROUP BY i % 7)
SELECT count(*) AS days,
       bool_and(length(f::bytea) = length(bloom_empty(5000, 10)::bytea)) AS one_geometry,
       (SELECT bloom_union_agg(f) FROM days) = (SELECT bloom_agg(k, 10, 5000) FROM reserved_keys) AS union_of_days
  FROM days;
SELECT count(*) FILTER (WHERE NOT k <~ f) AS false_negatives
  FROM reserved_keys, (SELECT bloom_agg(k, 10, 100) AS f FROM reserved_keys) s;
SELECT count(*) FILTER (WHERE NOT k <~ f) AS false_negatives_add
  FROM reserved_keys, (SELECT bloom_add(bloom_empty(100000, 10), array_agg(k)) AS f FROM reserved_keys) s;

-- Parallel: workers' filters are OR-ed into the serial bytes.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT bloom_agg(k, 10, 5000) FROM reserved_keys;
SELECT bloom_agg(k, 10, 5000) = (SELECT bloom_agg(k, 10) FROM reserved_keys) AS parallel_is_serial
  FROM reserved_keys;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- A window: each row sees the filter of the rows so far.
SELECT i, f = (SELECT bloom_agg(k, 10, 3) FROM reserved_keys r WHERE r.i <= w.i) AS running
  FROM (SELECT i, bloom_agg(k, 10, 3) OVER (ORDER BY i) AS f FROM reserved_keys WHERE i <= 3) w
 ORDER BY i;

-- Bad arguments: clear errors, no huge allocation.
SELECT bloom_empty(-1, 10);
SELECT bloom_empty(10, -1);
SELECT bloom_empty(1000000000000, 10);
SELECT bloom_empty(9223372036854775807, 2147483647);
SELECT bloom_agg(k, 10, -5) FROM reserved_keys;
SELECT bloom_agg(k, -1, 5) FROM reserved_keys;
SELECT bloom_agg(k, 10, 1000000000000) FROM reserved_keys;
SELECT bloom_agg(k, NULL, 5) FROM reserved_keys;
SELECT bloom_agg(k, 10, NULL) FROM reserved_keys;
SELECT bloom_agg(k, 10, CASE WHEN i < 10 THEN 5000 ELSE 5001 END) FROM reserved_keys;
SELECT bloom_agg(k, CASE WHEN i < 10 THEN 10 ELSE 11 END, 5000) FROM reserved_keys;
SELECT bloom_agg_fixed_transfn(NULL, 'a'::text, 10, 5);
SELECT bloom_add('\x0001'::bloomfilter, ARRAY[['a', 'b'], ['c', 'd']]) = bloom_add(bloom_add('\x0001'::bloomfilter, ARRAY['a', 'b']), ARRAY['c', 'd']) AS two_dimensional;
DROP TABLE reserved_keys;
