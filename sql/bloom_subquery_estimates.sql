-- The planner's estimate of key <~ (SELECT ...): the filter is not built
-- yet when the query is planned, so the estimate comes from what the
-- subquery's planner knows (the key's distinct values among the rows
-- bloom_agg reads, and bits_per_key), or, for a stored filter, from what
-- ANALYZE kept of the column's filters.  Each case compares the rows EXPLAIN
-- estimates for the probing scan with the rows that pass, and must be
-- within 3 times; a case that is not prints both.
SET max_parallel_workers_per_gather = 0;

-- the estimated and actual rows of the node that probes with <~ or ~>
CREATE FUNCTION probe_rows(query text, OUT estimated float8, OUT actual float8)
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
	node jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
	node := jsonb_path_query_first(plan, 'lax $.** ? (@.Filter like_regex "<~|~>")');
	estimated := (node ->> 'Plan Rows')::float8;
	actual := (node ->> 'Actual Rows')::float8;
END $$;

CREATE FUNCTION within_3x(label text, query text) RETURNS text
LANGUAGE sql AS $$
	SELECT label || ': ' || CASE
		WHEN r.estimated BETWEEN r.actual / 3 AND r.actual * 3 THEN 'within 3 times'
		ELSE format('estimated %s rows, %s passed', r.estimated, r.actual) END
	FROM probe_rows(query) r
$$;

-- The README's pre-check: 100,000 users in a stored filter; 50,000 orders
-- of which 14,285 are users' and the rest pass at the filter's rate.
CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
INSERT INTO users SELECT i, 'user' || i || '@example.com' FROM generate_series(1, 100000) i;
CREATE TABLE filters (name text PRIMARY KEY, f bloomfilter NOT NULL);
INSERT INTO filters SELECT 'emails', bloom_agg(email, 10) FROM users;
CREATE TABLE orders (order_id bigint, email text);
INSERT INTO orders SELECT i, 'user' || (i * 7) || '@example.com' FROM generate_series(1, 50000) i;
ANALYZE users, filters, orders;

-- ANALYZE kept the filters' summary: one filter, of about 100,000 keys
SELECT s.stanumbers[1] BETWEEN 95000 AND 105000 AS keys_about_100000,
       s.stanumbers[2] BETWEEN 0.005 AND 0.03 AS rate_about_1_percent,
       s.stanumbers[3] AS filters
  FROM pg_statistic p,
       LATERAL (SELECT CASE 12117
                  WHEN p.stakind1 THEN p.stanumbers1 WHEN p.stakind2 THEN p.stanumbers2
                  WHEN p.stakind3 THEN p.stanumbers3 WHEN p.stakind4 THEN p.stanumbers4
                  WHEN p.stakind5 THEN p.stanumbers5 END AS stanumbers) s
 WHERE p.starelid = 'filters'::regclass AND p.staattnum = 2;

SELECT within_3x('README, stored filter',
  $q$SELECT count(*) FROM orders o WHERE o.email <~ (SELECT f FROM filters WHERE name = 'emails')$q$);
SELECT within_3x('README, bloom_agg in the subquery',
  $q$SELECT count(*) FROM orders o WHERE o.email <~ (SELECT bloom_agg(email, 10) FROM users)$q$);
SELECT within_3x('README, the filter on the left',
  $q$SELECT count(*) FROM orders o WHERE (SELECT f FROM filters WHERE name = 'emails') ~> o.email$q$);

-- A matrix of match rates, 0.1% to 100%: 100,000 distinct keys probed
-- (integers and text), filters of a subset of them, built by the
-- subquery and stored.
CREATE TABLE probed (k bigint, t text);
INSERT INTO probed SELECT i, 'key ' || i FROM generate_series(1, 100000) i;
CREATE TABLE source (k bigint, t text);
INSERT INTO source SELECT i, 'key ' || i FROM generate_series(1, 100000) i;
CREATE TABLE stored (name text, fk bloomfilter, ft bloomfilter);
ANALYZE probed, source;

CREATE FUNCTION matrix_case(share numeric) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	n bigint := (100000 * share / 100)::bigint;
BEGIN
	TRUNCATE stored;
	EXECUTE format('INSERT INTO stored SELECT %L, bloom_agg(k, 10), bloom_agg(t, 10) FROM source WHERE k <= %s', 'm', n);
	ANALYZE stored;
	RETURN NEXT within_3x(share || '%, integer keys, bloom_agg',
		format('SELECT count(*) FROM probed p WHERE p.k <~ (SELECT bloom_agg(k, 10) FROM source WHERE k <= %s)', n));
	RETURN NEXT within_3x(share || '%, text keys, bloom_agg',
		format('SELECT count(*) FROM probed p WHERE p.t <~ (SELECT bloom_agg(t, 10) FROM source WHERE k <= %s)', n));
	RETURN NEXT within_3x(share || '%, integer keys, stored',
		'SELECT count(*) FROM probed p WHERE p.k <~ (SELECT fk FROM stored WHERE name = ''m'')');
	RETURN NEXT within_3x(share || '%, text keys, stored',
		'SELECT count(*) FROM probed p WHERE p.t <~ (SELECT ft FROM stored WHERE name = ''m'')');
END $$;

SELECT matrix_case(0.1);
SELECT matrix_case(1);
SELECT matrix_case(10);
SELECT matrix_case(50);
SELECT matrix_case(100);

-- Few bits a key: most absent keys pass, and the estimate says so.
SELECT within_3x('1%, 2 bits a key',
  'SELECT count(*) FROM probed p WHERE p.k <~ (SELECT bloom_agg(k, 2) FROM source WHERE k <= 1000)');

-- A subquery that is not a filter of these kinds keeps the default
-- estimate; the query still runs.
SELECT count(*) > 0 AS runs FROM probed p
 WHERE p.k <~ (SELECT bloom_union_agg(fk) FROM stored);

-- NULL keys never pass, and both estimates count the other rows only: a
-- column whose keys are 90% NULL (20,000 rows, so that ANALYZE reads them
-- all and the statistics are the same each run), probed by a constant
-- filter of keys it does not hold at 4 bits a key (about 5% of the other
-- keys pass as false positives, and the estimate is that rate), and by a
-- subquery's filter that holds half of the other keys.
CREATE TABLE sparse (k bigint);
INSERT INTO sparse SELECT CASE WHEN i % 10 = 0 THEN i END FROM generate_series(1, 20000) i;
ANALYZE sparse;
SELECT within_3x('90% NULL keys, a constant filter of other keys',
  format('SELECT count(*) FROM sparse s WHERE s.k <~ %L::bloomfilter',
         (SELECT bloom_agg(-i::bigint, 4) FROM generate_series(1, 2000) i)));
SELECT within_3x('90% NULL keys, bloom_agg',
  'SELECT count(*) FROM sparse s WHERE s.k <~ (SELECT bloom_agg(k, 10) FROM source WHERE k <= 10000)');

-- The estimator knows bloom_agg by the C function behind its final
-- function, whatever that function's name and OID, and remembers what it
-- found until pg_proc changes.  An aggregate of this test's own whose final
-- function runs bloom_agg_finalfn's code is estimated as bloom_agg is;
-- replaced by SQL under the same OID, it gets the default estimate of a
-- subquery it does not know; given the C code again, it is known again.
CREATE FUNCTION own_final(bloom_agg_state) RETURNS bloomfilter
	AS '$libdir/bloomfilter', 'bloom_agg_finalfn' LANGUAGE C IMMUTABLE STRICT;
CREATE AGGREGATE own_bloom_agg(text, integer) (
	SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state, FINALFUNC = own_final);
CREATE FUNCTION own_agg_estimated_as(reference text) RETURNS boolean
LANGUAGE sql AS $$
	SELECT (SELECT estimated FROM probe_rows('SELECT count(*) FROM probed p
	         WHERE p.t <~ (SELECT own_bloom_agg(t, 10) FROM source WHERE k <= 10000)'))
	     = (SELECT estimated FROM probe_rows(reference))
$$;
SELECT own_agg_estimated_as('SELECT count(*) FROM probed p
  WHERE p.t <~ (SELECT bloom_agg(t, 10) FROM source WHERE k <= 10000)') AS as_bloom_agg;
CREATE OR REPLACE FUNCTION own_final(bloom_agg_state) RETURNS bloomfilter
	AS 'SELECT NULL::bloomfilter' LANGUAGE sql IMMUTABLE STRICT;
SELECT own_agg_estimated_as('SELECT count(*) FROM probed p
  WHERE p.t <~ (SELECT bloom_union_agg(ft) FROM stored)') AS as_unknown_subquery;
CREATE OR REPLACE FUNCTION own_final(bloom_agg_state) RETURNS bloomfilter
	AS '$libdir/bloomfilter', 'bloom_agg_finalfn' LANGUAGE C IMMUTABLE STRICT;
SELECT own_agg_estimated_as('SELECT count(*) FROM probed p
  WHERE p.t <~ (SELECT bloom_agg(t, 10) FROM source WHERE k <= 10000)') AS as_bloom_agg_again;
DROP AGGREGATE own_bloom_agg(text, integer);
DROP FUNCTION own_final(bloom_agg_state), own_agg_estimated_as(text);

-- ANALYZE of a column of NULLs only, and of an empty table, keeps no
-- summary and no error.
CREATE TABLE nothing (f bloomfilter);
ANALYZE nothing;
INSERT INTO nothing VALUES (NULL), (NULL);
ANALYZE nothing;
SELECT count(*) AS summaries FROM pg_statistic
 WHERE starelid = 'nothing'::regclass AND 12117 IN (stakind1, stakind2, stakind3, stakind4, stakind5);

DROP TABLE users, filters, orders, probed, source, stored, sparse, nothing;
DROP FUNCTION matrix_case(numeric), within_3x(text, text), probe_rows(text);
RESET max_parallel_workers_per_gather;
