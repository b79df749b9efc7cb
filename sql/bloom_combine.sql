-- Changing filters: bloom_add, union (|), intersection (&) and the
-- bloom_union_agg aggregate.  None of them writes into its inputs.

-- Adds keys one at a time, for comparisons below.
CREATE FUNCTION add_keys(f bloomfilter, keys text[]) RETURNS bloomfilter
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  k text;
BEGIN
  FOREACH k IN ARRAY keys LOOP
    f := bloom_add(f, k);
  END LOOP;
  RETURN f;
END $$;

-- bloom_add sets the key's bits in the filter's own geometry: adding abc
-- to LevelDB's empty filter of one key at 10 bits a key gives its filter.
SELECT bloom_add('\x000000000000000006'::bloomfilter, 'abc');
SELECT bloom_add('\x000000000000000006'::bloomfilter, 'abc') = bloom_agg('abc'::text, 10) AS same_as_bloom_agg;
-- text keys are added as their bytes
SELECT bloom_add('\x000000000000000006'::bloomfilter, 'abc'::bytea) = bloom_add('\x000000000000000006', 'abc') AS bytea_same,
       bloom_add('\x000000000000000006'::bloomfilter, textsend('abc')) = bloom_add('\x000000000000000006', 'abc') AS textsend_same;
-- adding a key already present changes nothing
SELECT bloom_add(bloom_agg('abc'::text, 10), 'abc') = bloom_agg('abc'::text, 10) AS idempotent;
SELECT bloom_add(NULL, 'abc') IS NULL AS null_filter, bloom_add('\x0001', NULL::text) IS NULL AS null_key;

-- Adding every key, one at a time, to the empty filter of that geometry
-- gives bloom_agg's bytes.
CREATE TABLE keys AS SELECT i, 'key-' || i AS k FROM generate_series(1, 1000) i;
SELECT add_keys(('\x' || repeat('00', 1250) || '06')::bloomfilter, array_agg(k ORDER BY i))
         = bloom_agg(k, 10) AS added_one_by_one_equals_bloom_agg
  FROM keys;

-- Keys past what the filter was sized for: the geometry stays, every key
-- still matches, and the false-positive rate rises.
CREATE TABLE grown AS
  SELECT f AS sized, add_keys(f, (SELECT array_agg('more-' || i) FROM generate_series(1, 1000) i)) AS grown
    FROM (SELECT bloom_agg(k, 10) AS f FROM keys) s;
SELECT (bloom_info(sized)).bytes = (bloom_info(grown)).bytes AS same_size,
       (SELECT count(*) FROM keys WHERE k <~ grown) AS old_keys_found,
       (SELECT count(*) FROM generate_series(1, 1000) i WHERE 'more-' || i <~ grown) AS new_keys_found,
       round((bloom_info(sized)).false_positive_rate::numeric, 3) AS rate_as_sized,
       round((bloom_info(grown)).false_positive_rate::numeric, 3) AS rate_grown
  FROM grown;
DROP TABLE grown;

-- Union and intersection need one geometry: bloom_agg sizes a filter by
-- its number of keys, so groups of 2000 keys each share one.
CREATE TABLE ab AS
  SELECT (SELECT bloom_agg('key-' || i, 10) FROM generate_series(1, 2000) i) AS a,      -- keys 1..2000
         (SELECT bloom_agg('key-' || i, 10) FROM generate_series(1001, 3000) i) AS b;  -- keys 1001..3000
-- a | b is the filter of both key sets, in that geometry
SELECT a | b = add_keys(a, (SELECT array_agg('key-' || i) FROM generate_series(1001, 3000) i)) AS union_is_all_keys,
       a | b = b | a AS commutes,
       bloom_union(a, b) = a | b AS function_form,
       (SELECT count(*) FROM generate_series(1, 3000) i WHERE 'key-' || i <~ (a | b)) AS union_members_found
  FROM ab;
-- a & b matches every key of both (1001..2000), and has no bit that is
-- not in both
SELECT (SELECT count(*) FROM generate_series(1001, 2000) i WHERE 'key-' || i <~ (a & b)) AS common_found,
       a & b = b & a AS commutes,
       bloom_intersect(a, b) = a & b AS function_form,
       (a & b) | a = a AND (a & b) | b = b AS within_both,
       (bloom_info(a & b)).bits_set <= least((bloom_info(a)).bits_set, (bloom_info(b)).bits_set) AS fewer_bits
  FROM ab;
-- a filter with itself is itself
SELECT a | a = a AS union_self, a & a = a AS intersect_self FROM ab;
SELECT NULL::bloomfilter | '\x0001' IS NULL AS null_union, '\x0001' & NULL::bloomfilter IS NULL AS null_intersect;
DROP TABLE ab;

-- Different geometries do not combine (22023); the message gives both.
\set VERBOSITY default
SELECT '\x000006'::bloomfilter | '\x000007'::bloomfilter;
SELECT '\x000820208080000206'::bloomfilter & '\x0006'::bloomfilter;
SELECT bloom_union_agg(f) FROM (VALUES ('\x000820208080000206'::bloomfilter), ('\x0006')) v(f);
\set VERBOSITY sqlstate
SELECT '\x000006'::bloomfilter | '\x000007'::bloomfilter;
SELECT '\x000820208080000206'::bloomfilter & '\x0006'::bloomfilter;
SELECT bloom_union_agg(f) FROM (VALUES ('\x000820208080000206'::bloomfilter), ('\x0006')) v(f);
\set VERBOSITY default

-- bloom_union_agg: per-group filters of one geometry (16 groups of 500
-- keys each), stored inline, then their union.
CREATE TABLE group_keys AS SELECT i, i % 16 AS g, 'gk-' || i AS k FROM generate_series(1, 8000) i;
CREATE TABLE group_filters AS SELECT g, bloom_agg(k, 10) AS f FROM group_keys GROUP BY g;
SELECT count(DISTINCT (bloom_info(f)).bytes) AS geometries, count(*) AS groups FROM group_filters;
-- the union equals OR-ing the filters one after another
WITH RECURSIVE fold AS (
  SELECT g, f FROM group_filters WHERE g = 0
  UNION ALL
  SELECT n.g, fold.f | n.f FROM fold JOIN group_filters n ON n.g = fold.g + 1)
SELECT (SELECT f FROM fold WHERE g = 15) = (SELECT bloom_union_agg(f) FROM group_filters) AS union_agg_equals_fold;
-- and the filter of all the keys in that geometry; every key matches
SELECT bloom_union_agg(f) = add_keys((SELECT f FROM group_filters WHERE g = 0),
                                     (SELECT array_agg(k) FROM group_keys WHERE g <> 0)) AS union_is_all_keys,
       (SELECT count(*) FROM group_keys WHERE NOT k <~ (SELECT bloom_union_agg(f) FROM group_filters)) AS keys_missed
  FROM group_filters;
-- the order of the rows does not matter, and neither do NULLs
SELECT count(*) AS distinct_results FROM (SELECT DISTINCT u FROM (
  SELECT bloom_union_agg(f ORDER BY g) AS u FROM group_filters
  UNION ALL SELECT bloom_union_agg(f ORDER BY g DESC) FROM group_filters
  UNION ALL SELECT bloom_union_agg(f ORDER BY md5(g::text)) FROM group_filters
  UNION ALL SELECT bloom_union_agg(f) FROM (SELECT f FROM group_filters UNION ALL SELECT NULL) x) r) d;
SELECT bloom_union_agg(f) IS NULL AS no_rows FROM group_filters WHERE false;
SELECT bloom_union_agg(NULL::bloomfilter) IS NULL AS only_nulls FROM generate_series(1, 3);
-- one filter: itself
SELECT bloom_union_agg(f) = f AS single FROM group_filters WHERE g = 3 GROUP BY f;
-- GROUP BY, sorted and hashed: the union of the filters of each half
CREATE TABLE halves AS
  SELECT h, add_keys((SELECT f FROM group_filters WHERE g = h),
                     (SELECT array_agg(k) FROM group_keys WHERE g % 2 = h AND g <> h)) AS f
    FROM generate_series(0, 1) h;
CREATE VIEW halves_union AS
  SELECT g % 2 AS half, bloom_union_agg(f) AS u FROM group_filters GROUP BY 1;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g % 2, bloom_union_agg(f) FROM group_filters GROUP BY 1;
SELECT x.half, x.u = h.f AS by_sort FROM halves_union x JOIN halves h ON h.h = x.half ORDER BY 1;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g % 2, bloom_union_agg(f) FROM group_filters GROUP BY 1;
SELECT x.half, x.u = h.f AS by_hash FROM halves_union x JOIN halves h ON h.h = x.half ORDER BY 1;
RESET enable_sort;
DROP VIEW halves_union;
-- a window: each row sees the union of the filters so far
WITH RECURSIVE fold AS (
  SELECT g, f FROM group_filters WHERE g = 0
  UNION ALL
  SELECT n.g, fold.f | n.f FROM fold JOIN group_filters n ON n.g = fold.g + 1)
SELECT count(*) AS window_rows, count(*) FILTER (WHERE w.u = fold.f) AS same_as_fold
  FROM (SELECT g, bloom_union_agg(f) OVER (ORDER BY g) AS u FROM group_filters) w
  JOIN fold USING (g);
-- and a sliding frame, which restarts the aggregate row after row
SELECT count(*) AS window_rows, count(*) FILTER (WHERE u = coalesce(f | prev, f)) AS same_as_pairs
  FROM (SELECT f, lag(f) OVER (ORDER BY g) AS prev,
               bloom_union_agg(f) OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS u
          FROM group_filters) w;

-- Each way a state can start: a short inline value (a 9-byte filter), a
-- 4-byte-header inline value (251 bytes), and a TOAST pointer (filters
-- stored out of line).  The first value becomes the state as it is stored,
-- and the result must still differ from it.
CREATE TABLE sized (size text, g int, f bloomfilter);
INSERT INTO sized
  SELECT 'tiny', g, bloom_agg('t' || g, 10) FROM generate_series(1, 4) g GROUP BY g;
INSERT INTO sized
  SELECT 'inline', g, bloom_agg('i' || g || '-' || i, 10) FROM generate_series(1, 4) g, generate_series(1, 200) i GROUP BY g;
INSERT INTO sized
  SELECT 'toasted', g, bloom_agg('o' || g || '-' || i, 10) FROM generate_series(1, 4) g, generate_series(1, 20000) i GROUP BY g;
SELECT size, min(pg_column_size(f)) AS stored_bytes FROM sized GROUP BY size ORDER BY 2;
WITH RECURSIVE fold AS (
  SELECT size, g, f FROM sized WHERE g = 1
  UNION ALL
  SELECT n.size, n.g, fold.f | n.f FROM fold JOIN sized n ON n.size = fold.size AND n.g = fold.g + 1)
SELECT s.size, s.u = fold.f AS equals_fold, s.u_sorted = fold.f AS sorted_input_equals_fold,
       s.u <> first_f AS differs_from_first
  FROM (SELECT size, bloom_union_agg(f) AS u, bloom_union_agg(f ORDER BY g) AS u_sorted,
               (array_agg(f ORDER BY g))[1] AS first_f
          FROM sized GROUP BY size) s
  JOIN fold ON fold.size = s.size AND fold.g = 4
 ORDER BY 1;
-- the stored values are unchanged
SELECT size, count(*) FILTER (WHERE f = (SELECT bloom_agg(k, 10) FROM (
         SELECT CASE size WHEN 'tiny' THEN 't' || g
                          WHEN 'inline' THEN 'i' || g || '-' || i
                          ELSE 'o' || g || '-' || i END AS k
           FROM generate_series(1, CASE size WHEN 'tiny' THEN 1 WHEN 'inline' THEN 200 ELSE 20000 END) i) x))
         AS unchanged
  FROM sized GROUP BY size ORDER BY size;

-- Forced parallel plans: every filter reaches the leader through a
-- worker's partial state and the combine function.
CREATE TABLE many_filters AS
  SELECT i, i % 4 AS grp, bloom_agg('m' || i || '-' || j, 10) AS f
    FROM generate_series(1, 400) i, generate_series(1, 50) j GROUP BY i;
ANALYZE many_filters;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial_union AS
  SELECT NULL::int AS grp, bloom_union_agg(f) AS f FROM many_filters
  UNION ALL SELECT grp, bloom_union_agg(f) FROM many_filters GROUP BY grp;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM many_filters;
SELECT bloom_union_agg(f) = (SELECT f FROM serial_union WHERE grp IS NULL) AS parallel_equals_serial
  FROM many_filters;
EXPLAIN (COSTS OFF) SELECT grp, bloom_union_agg(f) FROM many_filters GROUP BY grp;
SELECT count(*) AS groups, count(*) FILTER (WHERE p.f = s.f) AS same_as_serial
  FROM (SELECT grp, bloom_union_agg(f) AS f FROM many_filters GROUP BY grp) p
  JOIN serial_union s USING (grp);
RESET parallel_leader_participation;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT (SELECT count(*) FROM many_filters m, generate_series(1, 50) j
         WHERE 'm' || m.i || '-' || j <~ (SELECT f FROM serial_union WHERE grp IS NULL)) AS members_found;

-- Stored filters over 1 MB, used row after row: each stored value is read
-- once per call site and argument, and never changed.
CREATE TABLE stored (id int PRIMARY KEY, f bloomfilter);
-- filter 1 of the keys 'a1', 'a2', ..., filter 2 of 'b1', 'b2', ...
INSERT INTO stored
  SELECT id, bloom_agg(chr(96 + id) || i, 10)
    FROM generate_series(1, 2) id, generate_series(1, 900000) i GROUP BY id;
SELECT id, pg_column_size(f) > 1000000 AS over_1mb FROM stored ORDER BY id;
CREATE TABLE stored_before AS SELECT id, md5(f::text) AS digest FROM stored;
-- bloom_add from 200 rows: each result is the stored filter plus one key,
-- never plus the keys of the rows before
SELECT count(*) AS rows,
       count(*) FILTER (WHERE 'new-' || g <~ bloom_add(f, 'new-' || g)) AS key_found,
       count(*) FILTER (WHERE (bloom_info(bloom_add(f, 'new-' || g))).bits_set
                              - (bloom_info(f)).bits_set BETWEEN 0 AND 6) AS at_most_k_new_bits
  FROM stored, generate_series(1, 200) g WHERE id = 1;
SELECT count(*) FILTER (WHERE bloom_add(f, 'new-' || g) = add_keys(f::bytea::bloomfilter, ARRAY['new-' || g]))
         AS same_as_uncached
  FROM stored, generate_series(1, 20) g WHERE id = 1;
-- union and intersection with one argument fixed and the other changing
-- from row to row, against copies that bypass the cache (a cast detoasts)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT a.id AS a, b.id AS b,
       a.f | b.f = a.f::bytea::bloomfilter | b.f::bytea::bloomfilter AS union_right,
       a.f & b.f = a.f::bytea::bloomfilter & b.f::bytea::bloomfilter AS intersect_right
  FROM stored a, stored b, generate_series(1, 3) g
 ORDER BY g, a, b;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- a scalar subquery hands over the stored value's TOAST pointer
SELECT count(*) FILTER (WHERE (SELECT f FROM stored WHERE id = 1) | (SELECT f FROM stored WHERE id = 2) =
                              (SELECT bloom_union_agg(f) FROM stored)) AS union_via_subquery
  FROM generate_series(1, 10) g;
-- the aggregate over out-of-line values: every key of both
SELECT (SELECT count(*) FROM generate_series(1, 900000, 997) i
         WHERE NOT ('a' || i) <~ u OR NOT ('b' || i) <~ u) AS keys_missed
  FROM (SELECT bloom_union_agg(f) AS u FROM stored) x;
SELECT count(*) FILTER (WHERE md5(s.f::text) = b.digest) AS unchanged FROM stored s JOIN stored_before b USING (id);

-- The operators in the catalog.
SELECT o.oprname, o.oprcode, o.oprcom::regoperator AS commutator
  FROM pg_operator o
 WHERE o.oprleft = 'bloomfilter'::regtype AND o.oprright = 'bloomfilter'::regtype
   AND o.oprname IN ('|', '&')
 ORDER BY 1;
SELECT a.aggfnoid::regprocedure, a.aggtransfn, a.aggcombinefn, a.aggtranstype::regtype,
       a.aggfinalfn, p.proparallel
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
 WHERE p.proname = 'bloom_union_agg';

DROP TABLE keys, group_keys, group_filters, halves, sized, many_filters, serial_union, stored, stored_before;
DROP FUNCTION add_keys(bloomfilter, text[]);
