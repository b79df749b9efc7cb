-- Two-phase bloom_agg: bloom_agg_partial over any split of the rows (one
-- shard, partition or server each), bloom_agg_merge over the states, gives
-- exactly bloom_agg's bytes over all the rows.
CREATE TABLE shard_keys AS
  SELECT i, 'k' || i AS k, ('k' || i)::bytea AS b, i % 3 AS shard FROM generate_series(1, 30000) i;
INSERT INTO shard_keys VALUES (0, NULL, NULL, 1), (0, 'k7', 'k7', 2);  -- a NULL key, a duplicate

CREATE TABLE shard_states AS
  SELECT shard, bloom_agg_partial(k, 10) AS s, bloom_agg_partial(b, 10) AS sb
    FROM shard_keys GROUP BY shard;
SELECT (SELECT bloom_agg_merge(s) FROM shard_states) = (SELECT bloom_agg(k, 10) FROM shard_keys) AS text_keys,
       (SELECT bloom_agg_merge(sb) FROM shard_states) = (SELECT bloom_agg(b, 10) FROM shard_keys) AS bytea_keys;
-- any split: by shard through the text form, one state a row, one state
SELECT (SELECT bloom_agg_merge(s::text::bloom_agg_state) FROM shard_states)
         = (SELECT bloom_agg(k, 10) FROM shard_keys) AS through_text,
       (SELECT bloom_agg_merge(p) FROM (SELECT bloom_agg_partial(k, 10) AS p FROM shard_keys GROUP BY i) one_row_each)
         = (SELECT bloom_agg(k, 10) FROM shard_keys) AS one_state_per_row,
       (SELECT bloom_agg_merge(p) FROM (SELECT bloom_agg_partial(k, 10) AS p FROM shard_keys) all_in_one)
         = (SELECT bloom_agg(k, 10) FROM shard_keys) AS one_state;
-- NULL states are skipped; no state, or only NULL keys, gives NULL
SELECT bloom_agg_merge(s) = (SELECT bloom_agg(k, 10) FROM shard_keys) AS null_state_skipped
  FROM (SELECT s FROM shard_states UNION ALL SELECT NULL) x;
SELECT bloom_agg_merge(s) IS NULL AS no_states FROM shard_states WHERE false;
SELECT bloom_agg_partial(k, 10) IS NULL AS only_null_keys FROM shard_keys WHERE k IS NULL;
-- merge in parallel, and GROUP BY
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE many_states AS SELECT i % 500 AS g, bloom_agg_partial(k, 10) AS s FROM shard_keys GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT bloom_agg_merge(s) FROM many_states;
SELECT bloom_agg_merge(s) = (SELECT bloom_agg(k, 10) FROM shard_keys) AS parallel_merge FROM many_states;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT count(*) FILTER (WHERE m = (SELECT bloom_agg(k, 10) FROM shard_keys k2 WHERE k2.i % 500 = g2.g)) AS groups_equal
  FROM (SELECT g % 500 AS g, bloom_agg_merge(s) AS m FROM many_states GROUP BY 1) g2;
-- mixed bits_per_key: an error naming it
SELECT bloom_agg_merge(s) FROM
  (SELECT bloom_agg_partial(k, 10) AS s FROM shard_keys WHERE shard = 0
   UNION ALL SELECT bloom_agg_partial(k, 12) FROM shard_keys WHERE shard = 1) x;
DROP TABLE shard_keys, shard_states, many_states;
