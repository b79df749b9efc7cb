-- The planner's estimate for <~ and ~> with a constant filter: the filter
-- probed on the column's most common values and histogram, and never below
-- what its false-positive rate implies.  30,000 rows, so that ANALYZE
-- reads them all and the statistics do not depend on a sample.
CREATE TABLE estimate_keys AS
  SELECT i, md5(i::text) AS k FROM generate_series(1, 28000) i;
INSERT INTO estimate_keys SELECT 0, 'hot' || (i % 20) FROM generate_series(1, 2000) i;
ANALYZE estimate_keys;

-- est(query): EXPLAIN's row estimate of the query.
CREATE FUNCTION est(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  EXECUTE 'EXPLAIN ' || query INTO line;
  RETURN substring(line FROM 'rows=([0-9]+)')::bigint;
END
$$;

-- within_3x(keys, col, f): the rows of table keys whose column col f holds
-- (actual), and whether the planner's estimates of them, the key left of
-- <~ and the filter left of ~>, are within 3x of that, both ways round.
CREATE FUNCTION within_3x(keys text, col text, f bloomfilter, OUT actual bigint,
                          OUT key_left_within_3x boolean, OUT filter_left_within_3x boolean)
LANGUAGE plpgsql AS $$
DECLARE
  estimated bigint := est(format('SELECT * FROM %I WHERE %I <~ %L::bloomfilter', keys, col, f));
  estimated_right bigint := est(format('SELECT * FROM %I WHERE %L::bloomfilter ~> %I', keys, f, col));
BEGIN
  EXECUTE format('SELECT count(*) FROM %I WHERE %I <~ $1', keys, col) INTO actual USING f;
  key_left_within_3x := estimated BETWEEN actual / 3.0 AND actual * 3.0;
  filter_left_within_3x := estimated_right BETWEEN actual / 3.0 AND actual * 3.0;
END
$$;

CREATE TABLE estimate_filters (name text, f bloomfilter);
INSERT INTO estimate_filters
  SELECT 'the 20 hot keys', bloom_agg('hot' || i, 10) FROM generate_series(0, 19) i
  UNION ALL
  SELECT 'half the cold keys', bloom_agg(md5(i::text), 10) FROM generate_series(1, 14000) i
  UNION ALL
  SELECT 'none of the keys', bloom_agg('absent' || i, 10) FROM generate_series(1, 50) i
  UNION ALL
  SELECT 'every key', bloom_agg(k, 10) FROM estimate_keys;

-- Within 3x of the actual rows, both ways round.
SELECT name, w.*
  FROM estimate_filters, LATERAL within_3x('estimate_keys', 'k', f) w
 ORDER BY w.actual;

-- A filter that holds none of the sampled values is still estimated at
-- least at its false-positive rate.
SELECT est(format('SELECT * FROM estimate_keys WHERE k <~ %L::bloomfilter', f))
         >= floor(30000 * (bloom_info(f)).false_positive_rate) AS at_least_fpr
  FROM estimate_filters WHERE name = 'none of the keys';

-- Not a constant.  A join uses matchingjoinsel.  A subquery's stored
-- filter is estimated from ANALYZE's summary of the column (the mean key
-- count and rate of its four filters, about 10,000 keys, against the column's
-- 28,020 distinct values), not a fixed default (bloom_subquery_estimates
-- tests that estimate against the rows that pass).
ANALYZE estimate_filters;
SELECT est('SELECT * FROM estimate_keys, estimate_filters WHERE k <~ f') AS join_rows,
       est('SELECT * FROM estimate_keys WHERE k <~ (SELECT f FROM estimate_filters LIMIT 1)') AS subquery_rows;

-- The same for typed keys: a bigint column probed with filters of bigint
-- keys, and an integer key against the same filters.
CREATE TABLE estimate_ids AS
  SELECT i::bigint AS id FROM generate_series(1, 28000) i;
INSERT INTO estimate_ids SELECT -(i % 20) - 1 FROM generate_series(1, 2000) i;
ANALYZE estimate_ids;
CREATE TABLE estimate_id_filters (name text, f bloomfilter);
INSERT INTO estimate_id_filters
  SELECT 'the 20 hot keys', bloom_agg(-i, 10) FROM generate_series(1, 20) i
  UNION ALL
  SELECT 'half the cold keys', bloom_agg(i, 10) FROM generate_series(1, 14000) i
  UNION ALL
  SELECT 'none of the keys', bloom_agg(i, 10) FROM generate_series(100001, 100050) i
  UNION ALL
  SELECT 'every key', bloom_agg(id, 10) FROM estimate_ids;
SELECT name, w.*
  FROM estimate_id_filters, LATERAL within_3x('estimate_ids', 'id', f) w
 WHERE name <> 'none of the keys'
 ORDER BY w.actual;
-- A filter of none of the values is left out above: LevelDB's hash of
-- nearby integers spreads less than of random keys, and such a filter
-- matches fewer of them than its false-positive rate, which is the floor
-- of the estimate.
SELECT est(format('SELECT * FROM estimate_ids WHERE id <~ %L::bloomfilter', f))
         >= floor(30000 * (bloom_info(f)).false_positive_rate) AS at_least_fpr,
       est(format('SELECT * FROM estimate_ids WHERE %L::bloomfilter ~> id', f))
         >= floor(30000 * (bloom_info(f)).false_positive_rate) AS at_least_fpr_right
  FROM estimate_id_filters WHERE name = 'none of the keys';

DROP FUNCTION within_3x(text, text, bloomfilter);
DROP FUNCTION est(text);
DROP TABLE estimate_keys, estimate_filters, estimate_ids, estimate_id_filters;
