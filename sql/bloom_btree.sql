-- The B-tree operator class: filters ordered by their bytes, as bytea
-- orders bytes.  The order means nothing about the keys; it is total,
-- stable, and agrees with = and with the hash class.
CREATE TABLE sorted_filters (id int, f bloomfilter);
INSERT INTO sorted_filters
  SELECT g, bloom_agg('k' || (g * 100 + i), 10) FROM generate_series(1, 20) g, generate_series(1, 5) i GROUP BY g;
INSERT INTO sorted_filters VALUES
  (21, '\x0001'), (22, '\x000101'), (23, '\x0101'), (24, '\xff01'), (25, NULL),
  (26, (SELECT f FROM sorted_filters WHERE id = 3));

-- The same order as the bytes cast to bytea, and the same equality.
SELECT bool_and((a.f < b.f) = (a.f::bytea < b.f::bytea)) AS lt,
       bool_and((a.f <= b.f) = (a.f::bytea <= b.f::bytea)) AS le,
       bool_and((a.f > b.f) = (a.f::bytea > b.f::bytea)) AS gt,
       bool_and((a.f >= b.f) = (a.f::bytea >= b.f::bytea)) AS ge,
       bool_and((bloomfilter_cmp(a.f, b.f) = 0) = (a.f = b.f)) AS cmp_agrees_with_eq,
       bool_and(bloomfilter_cmp(a.f, b.f) = -bloomfilter_cmp(b.f, a.f)) AS antisymmetric
  FROM sorted_filters a, sorted_filters b WHERE a.f IS NOT NULL AND b.f IS NOT NULL;
-- A prefix sorts first; bytes compare unsigned.
SELECT '\x0001'::bloomfilter < '\x000101'::bloomfilter AS shorter_first_when_prefix,
       '\x0101'::bloomfilter < '\xff01'::bloomfilter AS unsigned_bytes;

-- ORDER BY, count(DISTINCT), UNION, the first in order
SELECT id FROM sorted_filters WHERE id > 20 ORDER BY f, id;
SELECT count(DISTINCT f) AS distinct_filters, count(*) AS rows FROM sorted_filters;
SELECT count(*) AS union_rows FROM (SELECT f FROM sorted_filters UNION SELECT f FROM sorted_filters) u;
SELECT (SELECT id FROM sorted_filters WHERE f IS NOT NULL ORDER BY f LIMIT 1) AS smallest;

-- A B-tree index, used for equality and order.
CREATE INDEX sorted_filters_f ON sorted_filters (f);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sorted_filters WHERE f = '\x0101';
SELECT id FROM sorted_filters WHERE f = '\x0101';
SELECT id FROM sorted_filters WHERE f = (SELECT f FROM sorted_filters WHERE id = 3) ORDER BY id;
RESET enable_seqscan;

-- A merge join on =.
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM sorted_filters a JOIN sorted_filters b ON a.f = b.f;
SELECT a.id, b.id FROM sorted_filters a JOIN sorted_filters b ON a.f = b.f AND a.id <> b.id ORDER BY 1, 2;
RESET enable_hashjoin;
RESET enable_nestloop;

-- A filter too large for a B-tree entry gets PostgreSQL's own error.
INSERT INTO sorted_filters SELECT 30, bloom_agg('big' || i, 10) FROM generate_series(1, 10000) i;
DROP TABLE sorted_filters;
