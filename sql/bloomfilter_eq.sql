-- Equality of filters: the same bytes.  Hashable, so DISTINCT, GROUP BY
-- and hash joins work on filter columns.

SELECT '\x000820208080000206'::bloomfilter = '\x000820208080000206'::bloomfilter AS same,
       '\x000820208080000206'::bloomfilter = '\x000820208080000006'::bloomfilter AS other_bits,
       '\x0001'::bloomfilter = '\x0002'::bloomfilter AS other_k,
       '\x0001'::bloomfilter = '\x000001'::bloomfilter AS other_length,
       '\x0001'::bloomfilter <> '\x000001'::bloomfilter AS not_equal,
       '\x0001'::bloomfilter <> '\x0001'::bloomfilter AS not_not_equal,
       NULL::bloomfilter = '\x0001'::bloomfilter AS null_input;

-- Filters per group, some identical: three groups of keys, each built twice
-- (at 10 bits a key), plus a group at 5 bits a key.
CREATE TABLE day_filters AS
  SELECT d, copy, bloom_agg('user-' || (d * 1000 + i), bpk) AS f
    FROM generate_series(1, 3) d, generate_series(1, 2) copy,
         generate_series(1, 500) i, (VALUES (10)) b(bpk)
   GROUP BY d, copy, bpk
  UNION ALL
  SELECT 4, 1, bloom_agg('user-' || (1000 + i), 5) FROM generate_series(1, 500) i;
-- a large one, stored out of line, twice
INSERT INTO day_filters
  SELECT 5, copy, bloom_agg('big-' || i, 10) FROM generate_series(1, 200000) i, generate_series(1, 2) copy
   GROUP BY copy;
-- and a tiny one, stored with a 1-byte header, twice
INSERT INTO day_filters VALUES (6, 1, '\x000820208080000206'), (6, 2, '\x000820208080000206');
ANALYZE day_filters;

-- Equal filters hash alike, whatever their varlena header: the stored
-- values (short inline, 4-byte inline, out of line) and computed copies.
SELECT d, count(DISTINCT bloomfilter_hash(f)) AS hashes,
       count(DISTINCT bloomfilter_hash_extended(f, 42)) AS extended_hashes
  FROM day_filters GROUP BY d ORDER BY d;
SELECT bloomfilter_hash('\x000820208080000206') = bloomfilter_hash(bloom_agg('abc'::text, 10)) AS computed_hash,
       bloomfilter_hash_extended('\x000820208080000206', 0) =
         bloomfilter_hash_extended(bloom_agg('abc'::text, 10), 0) AS computed_extended,
       bloomfilter_hash_extended('\x000820208080000206', 0) <>
         bloomfilter_hash_extended('\x000820208080000206', 1) AS seed_matters
  FROM (VALUES (1)) v;

-- DISTINCT and GROUP BY hash the filters.
EXPLAIN (COSTS OFF) SELECT DISTINCT f FROM day_filters;
SELECT count(*) AS distinct_filters FROM (SELECT DISTINCT f FROM day_filters) x;
SELECT count(*) AS copies, min(d), max(d)
  FROM day_filters GROUP BY f ORDER BY min(d);
-- Filters sort by their bytes (1.1's B-tree class), so aggregates that
-- sort work too.
SELECT d, copy FROM day_filters ORDER BY f, d, copy;
SELECT count(DISTINCT f) FROM day_filters;

-- A hash join on filter equality.
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
  SELECT a.d FROM day_filters a JOIN day_filters b ON a.f = b.f AND a.copy = 1 AND b.copy = 2;
SELECT a.d, b.d AS same_as_d, a.f = b.f AS equal
  FROM day_filters a JOIN day_filters b ON a.f = b.f AND a.copy = 1 AND b.copy = 2
 ORDER BY a.d;
-- freshly computed filters (in memory, 4-byte headers) find their stored
-- copies, whatever those are stored as.  Only the plan's join lines are
-- shown: how the CTE itself is planned differs between majors.
CREATE FUNCTION plan_joins(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line ~ 'Join|Cond' THEN
      RETURN NEXT line;
    END IF;
  END LOOP;
END
$$;
-- The query, planned and then run: a view, written once.
CREATE VIEW fresh_matches AS
  WITH fresh AS MATERIALIZED (
    SELECT d, bloom_agg('user-' || (d * 1000 + i), 10) AS f
      FROM generate_series(1, 3) d, generate_series(1, 500) i GROUP BY d
    UNION ALL SELECT 5, bloom_agg('big-' || i, 10) FROM generate_series(1, 200000) i
    UNION ALL SELECT 6, bloom_agg('abc'::text, 10))
  SELECT fresh.d, s.d AS stored_d, s.copy FROM fresh JOIN day_filters s ON s.f = fresh.f;
SELECT plan_joins('SELECT * FROM fresh_matches');
DROP FUNCTION plan_joins(text);
SELECT * FROM fresh_matches ORDER BY 1, 3;
DROP VIEW fresh_matches;
RESET enable_mergejoin;
RESET enable_nestloop;
-- and <> is its negator
SELECT count(*) AS unequal_pairs FROM day_filters a, day_filters b WHERE a.f <> b.f;
SELECT count(*) AS not_equal_pairs FROM day_filters a, day_filters b WHERE NOT (a.f = b.f);

-- A hash index on a filter column.
CREATE INDEX day_filters_f ON day_filters USING hash (f);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT d FROM day_filters WHERE f = '\x000820208080000206';
SELECT d, copy FROM day_filters WHERE f = '\x000820208080000206' ORDER BY copy;
SELECT d, copy FROM day_filters
 WHERE f = (SELECT bloom_agg('user-' || (2000 + i), 10) FROM generate_series(1, 500) i)
 ORDER BY copy;
RESET enable_seqscan;

-- The operators and the operator class in the catalog.
SELECT o.oprname, o.oprcom::regoperator AS commutator, o.oprnegate::regoperator AS negator,
       o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge
  FROM pg_operator o
 WHERE o.oprleft = 'bloomfilter'::regtype AND o.oprright = 'bloomfilter'::regtype
   AND o.oprname IN ('=', '<>')
 ORDER BY 1;
SELECT c.opcname, am.amname, c.opcdefault, f.opfname,
       (SELECT array_agg(p.amproc::regprocedure ORDER BY p.amprocnum)
          FROM pg_amproc p WHERE p.amprocfamily = c.opcfamily) AS support
  FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
  JOIN pg_opfamily f ON f.oid = c.opcfamily
 WHERE c.opcintype = 'bloomfilter'::regtype;

DROP TABLE day_filters;
