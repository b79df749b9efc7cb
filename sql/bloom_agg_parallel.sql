-- bloom_agg in parallel and partial plans gives the serial bytes.

CREATE TABLE big AS
  SELECT i, md5(i::text) AS k, i % 5 AS g FROM generate_series(1, 200000) i;
ANALYZE big;

SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial_result AS
  SELECT NULL::int AS g, bloom_agg(k, 10)::text AS f FROM big
  UNION ALL SELECT g, bloom_agg(k, 10)::text FROM big GROUP BY g;

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

DROP TABLE big, serial_result, parted, partitionwise_on, partitionwise_off;
