-- bloom_agg in parallel and partial plans gives the serial bytes.

CREATE TABLE big AS
  SELECT i, md5(i::text) AS k, i % 5 AS g FROM generate_series(1, 200000) i;
ANALYZE big;
-- and typed keys: bigint, uuid and a multi-column key of both
CREATE TABLE big_keys AS
  SELECT i::bigint * 7919 AS id, md5(i::text)::uuid AS u FROM generate_series(1, 200000) i;
ANALYZE big_keys;

SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial_result AS
  SELECT NULL::int AS g, bloom_agg(k, 10)::text AS f FROM big
  UNION ALL SELECT g, bloom_agg(k, 10)::text FROM big GROUP BY g;
CREATE TABLE serial_partial AS
  SELECT bloom_agg_state_send(bloom_agg_partial(k, 10)) AS s FROM big;
CREATE TABLE serial_keys AS
  SELECT bloom_agg(id, 10) AS fi, bloom_agg(u, 10) AS fu,
         bloom_agg(bloom_key(id, u), 10) AS fk FROM big_keys;

-- Forced parallel plan; the leader does not scan, so every key reaches the
-- final through a worker's flattened state and the combine function.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT bloom_agg(k, 10) FROM big;
SELECT bloom_agg(k, 10)::text = (SELECT f FROM serial_result WHERE g IS NULL)
  AS parallel_equals_serial
  FROM big;
SELECT bloom_agg(textsend(k), 10)::text = (SELECT f FROM serial_result WHERE g IS NULL)
  AS parallel_bytea_equals_serial
  FROM big;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(k, 10) FROM big GROUP BY g;
SELECT count(*) AS groups, count(*) FILTER (WHERE p.f::text = s.f) AS same_as_serial
  FROM (SELECT g, bloom_agg(k, 10) AS f FROM big GROUP BY g) p
  JOIN serial_result s USING (g);
-- The workers hand their hashes to the leader in the query's shared
-- memory (each has more than 2^16); sent sorted and coded through the
-- tuple queue instead, the bytes are the same.
SHOW bloomfilter.parallel_handoff;
SET bloomfilter.parallel_handoff = off;
SELECT bloom_agg(k, 10)::text = (SELECT f FROM serial_result WHERE g IS NULL)
  AS queued_equals_serial
  FROM big;
RESET bloomfilter.parallel_handoff;
-- The two-phase state of a parallel plan is the serial one, byte for byte.
SELECT bloom_agg_state_send(bloom_agg_partial(k, 10)) = (SELECT s FROM serial_partial)
  AS parallel_partial_equals_serial
  FROM big;
-- The leader scanning too: its own state goes to the final where it lies.
SET parallel_leader_participation = on;
SELECT bloom_agg(k, 10)::text = (SELECT f FROM serial_result WHERE g IS NULL)
  AS with_leader_equals_serial,
       bloom_agg_state_send(bloom_agg_partial(k, 10)) = (SELECT s FROM serial_partial)
  AS with_leader_partial_equals_serial
  FROM big;
-- A group of every key, sorted, its workers' references through a Gather
-- Merge.
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT i > 0 AS all_rows, bloom_agg(k, 10) FROM big GROUP BY 1;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE f = (SELECT f FROM serial_result WHERE g IS NULL)) AS same_as_serial
  FROM (SELECT i > 0 AS all_rows, bloom_agg(k, 10)::text AS f FROM big GROUP BY 1) p;
RESET enable_hashagg;
-- The parallel aggregate rerun: the inner side of a nested loop, which
-- rescans its Gather for every outer row.  Each run's workers hand their
-- hashes off anew in the same shared memory, and every run's filter and
-- state are the serial ones.
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
  SELECT v.x, b.f FROM (VALUES (1), (2), (3)) v(x)
  CROSS JOIN LATERAL (SELECT bloom_agg(k, 10) AS f, v.x AS y FROM big) b;
SELECT v.x, b.f::text = (SELECT f FROM serial_result WHERE g IS NULL)
         AS rerun_equals_serial,
       bloom_agg_state_send(b.s) = (SELECT s FROM serial_partial)
         AS rerun_partial_equals_serial
  FROM (VALUES (1), (2), (3)) v(x)
  CROSS JOIN LATERAL (SELECT bloom_agg(k, 10) AS f, bloom_agg_partial(k, 10) AS s,
                             v.x AS y FROM big) b
  ORDER BY v.x;
SET parallel_leader_participation = off;
SELECT v.x, b.f::text = (SELECT f FROM serial_result WHERE g IS NULL)
         AS rerun_workers_only_equals_serial
  FROM (VALUES (1), (2), (3)) v(x)
  CROSS JOIN LATERAL (SELECT bloom_agg(k, 10) AS f, v.x AS y FROM big) b
  ORDER BY v.x;
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- typed keys in the workers give the serial bytes
EXPLAIN (COSTS OFF) SELECT bloom_agg(id, 10) FROM big_keys;
SELECT bloom_agg(id, 10) = (SELECT fi FROM serial_keys) AS parallel_bigint,
       bloom_agg(u, 10) = (SELECT fu FROM serial_keys) AS parallel_uuid,
       bloom_agg(bloom_key(id, u), 10) = (SELECT fk FROM serial_keys) AS parallel_multi_column
  FROM big_keys;
-- the probe runs in the workers' scans (the plan's lines, not its text:
-- majors print the subquery's parameter differently)
CREATE FUNCTION plan_lines(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    RETURN NEXT line;
  END LOOP;
END
$$;
SELECT count(*) FILTER (WHERE l ~ 'Parallel Seq Scan on big_keys') AS parallel_scan,
       count(*) FILTER (WHERE l ~ 'Filter: \(\(id\)::integer <~ ') AS probe_in_the_scan
  FROM plan_lines('SELECT count(*) FROM big_keys WHERE id::integer <~ (SELECT fi FROM serial_keys)') l;
SELECT count(*) AS parallel_probe FROM big_keys WHERE id::integer <~ (SELECT fi FROM serial_keys);
RESET parallel_leader_participation;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- Partitioned tables: per-partition aggregation, then combined, gives the
-- same bytes whether partitionwise aggregation is on or off.
CREATE TABLE parted (i int, k text, g int) PARTITION BY RANGE (i);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (1) TO (70000);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (70000) TO (140000);
CREATE TABLE parted_3 PARTITION OF parted FOR VALUES FROM (140000) TO (MAXVALUE);
INSERT INTO parted SELECT * FROM big;
ANALYZE parted;
SET max_parallel_workers_per_gather = 0;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(k, 10) FROM parted GROUP BY g;
CREATE TABLE partitionwise_on AS SELECT g, bloom_agg(k, 10)::text AS f FROM parted GROUP BY g;
SET enable_partitionwise_aggregate = off;
CREATE TABLE partitionwise_off AS SELECT g, bloom_agg(k, 10)::text AS f FROM parted GROUP BY g;
RESET enable_partitionwise_aggregate;
RESET max_parallel_workers_per_gather;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE n.f = o.f AND o.f = s.f) AS all_equal
  FROM partitionwise_on n JOIN partitionwise_off o USING (g) JOIN serial_result s USING (g);

-- The whole plan in one worker under a single-copy Gather (what
-- debug_parallel_query, force_parallel_mode before 16, puts on top): the
-- partitions' partial aggregates and their Finalize Aggregate run in that
-- worker, which reads its own handed-off states.
CREATE FUNCTION plan_has(query text, pattern text) RETURNS boolean LANGUAGE sql AS
  $$SELECT EXISTS (SELECT FROM plan_lines(query) l WHERE l LIKE pattern)$$;
SET enable_partitionwise_aggregate = on;
SET parallel_setup_cost = 1e9;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
                  'on', false) AS single_copy_gather;
SELECT plan_has($$SELECT bloom_agg(k, 10)::text AS f,
                          bloom_agg_state_send(bloom_agg_partial(k, 10)) AS s FROM parted$$,
                '%Single Copy%')
   AND plan_has($$SELECT bloom_agg(k, 10)::text AS f,
                          bloom_agg_state_send(bloom_agg_partial(k, 10)) AS s FROM parted$$,
                '%Partial Aggregate%') AS plan_as_meant;
CREATE TABLE one_worker AS
  SELECT bloom_agg(k, 10)::text AS f,
         bloom_agg_state_send(bloom_agg_partial(k, 10)) AS s FROM parted;
RESET parallel_setup_cost;
RESET enable_partitionwise_aggregate;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
                  'off', false) AS single_copy_gather;
SELECT f = (SELECT f FROM serial_result WHERE g IS NULL) AS one_worker_equals_serial,
       s = (SELECT s FROM serial_partial) AS one_worker_partial_equals_serial
  FROM one_worker;
DROP TABLE one_worker;
DROP FUNCTION plan_has(text, text);
DROP FUNCTION plan_lines(text);

DROP TABLE big, big_keys, serial_result, serial_partial, serial_keys, parted,
  partitionwise_on, partitionwise_off;
