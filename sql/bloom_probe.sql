-- key <~ filter and filter ~> key: LevelDB's KeyMayMatch.

CREATE TABLE members AS
  SELECT 'member-' || i AS k FROM generate_series(1, 20000) i;
CREATE TABLE strangers AS
  SELECT 'stranger-' || i AS k FROM generate_series(1, 100000) i;
CREATE TABLE filters (name text PRIMARY KEY, bpk int, f bloomfilter);
INSERT INTO filters
  SELECT 'members-' || bpk, bpk, bloom_agg(k, bpk) FROM members, (VALUES (5), (10), (20)) b(bpk)
  GROUP BY bpk;

-- Members always match, through every operator form.
SELECT name,
       count(*) FILTER (WHERE k <~ f) AS text_left,
       count(*) FILTER (WHERE f ~> k) AS text_right,
       count(*) FILTER (WHERE textsend(k) <~ f) AS bytea_left,
       count(*) FILTER (WHERE f ~> textsend(k)) AS bytea_right,
       count(*) FILTER (WHERE bloom_may_contain(k, f)) AS function_form
  FROM members, filters GROUP BY name, bpk ORDER BY bpk;

-- Non-members: false positives at about LevelDB's rate for the chosen
-- bits per key (near 9% at 5, 1% at 10, 0.01-0.1% at 20).
SELECT name, round(100.0 * count(*) FILTER (WHERE k <~ f) / count(*), 2) AS false_positive_pct
  FROM strangers, filters GROUP BY name, bpk ORDER BY bpk;
SELECT count(*) FILTER (WHERE k <~ f) BETWEEN 700 AND 1300 AS near_one_percent
  FROM strangers, filters WHERE name = 'members-10';

-- Operators agree with each other on every probe.
SELECT count(*) AS disagreements
  FROM strangers, filters
 WHERE (k <~ f) IS DISTINCT FROM (f ~> k)
    OR (k <~ f) IS DISTINCT FROM (textsend(k) <~ f);

-- NULL in, NULL out.
SELECT NULL::text <~ f AS null_key, 'x' <~ NULL::bloomfilter AS null_filter
  FROM filters WHERE name = 'members-10';

-- Hand-written filters follow KeyMayMatch: all bits set matches anything;
-- no bits set matches nothing.
SELECT 'anything' <~ '\xffffffffffffffff06'::bloomfilter AS all_ones,
       'anything' <~ '\x000000000000000006'::bloomfilter AS all_zeros,
       '' <~ '\x000000000000000006'::bloomfilter AS empty_key;

-- A join pre-check: only candidates that pass the filter reach the join.
CREATE TABLE lookups AS
  SELECT 'member-' || i AS k FROM generate_series(1, 2000) i
  UNION ALL SELECT 'stranger-' || i FROM generate_series(1, 2000) i;
SELECT count(*) AS candidates,
       count(m.k) AS real_matches
  FROM lookups l
  LEFT JOIN members m ON m.k = l.k
 WHERE l.k <~ (SELECT f FROM filters WHERE name = 'members-10');

-- Filters stored out of line (over 1 MB each), probed row after row with
-- the filter changing between rows: each stored value is detoasted once and
-- reused while it stays the same, and a different value is never mistaken
-- for the cached one.
CREATE TABLE stored (id int PRIMARY KEY, f bloomfilter);
-- filter 1 of the keys 'a1', 'a2', ..., filter 2 of 'b1', 'b2', ...
INSERT INTO stored
  SELECT id, bloom_agg(chr(96 + id) || i, 10)
    FROM generate_series(1, 2) id, generate_series(1, 1000000) i GROUP BY id;
SELECT id, pg_column_size(f) > 1000000 AS over_1mb FROM stored ORDER BY id;
CREATE TABLE probe_rows AS
  SELECT n, 1 + n % 2 AS id, (CASE n % 2 WHEN 0 THEN 'a' ELSE 'b' END) || n AS k
    FROM generate_series(1, 4000) n;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
-- the filter alternates from one probe row to the next
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE p.k <~ s.f) FROM probe_rows p JOIN stored s ON s.id = p.id;
SELECT count(*) AS probes,
       count(*) FILTER (WHERE p.k <~ s.f) AS members_found,
       count(*) FILTER (WHERE s.f ~> p.k) AS members_found_commuted
  FROM probe_rows p JOIN stored s ON s.id = p.id;
-- and the other filter does not hold them (about 1% false positives)
SELECT count(*) FILTER (WHERE p.k <~ s.f) < 100 AS strangers_mostly_rejected
  FROM probe_rows p JOIN stored s ON s.id = 3 - p.id;
-- a scalar subquery hands over the stored value's TOAST pointer
SELECT count(*) FILTER (WHERE k <~ (SELECT f FROM stored WHERE id = 1)) AS found_via_subquery
  FROM probe_rows WHERE id = 1;
RESET enable_hashjoin;
RESET enable_mergejoin;
DROP TABLE stored, probe_rows;

-- The operators are each other's commutators.
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, c.oprname AS commutator
  FROM pg_operator o JOIN pg_operator c ON c.oid = o.oprcom
 WHERE o.oprname IN ('<~', '~>') AND 'bloomfilter'::regtype IN (o.oprleft, o.oprright)
 ORDER BY 1, 2, 3;

DROP TABLE members, strangers, filters, lookups;
