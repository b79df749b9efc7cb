-- examples/demo.sql -- a short tour of the bloomfilter extension.
--
-- Run it with  scripts/demo.sh  (a throw-away cluster), or against any
-- database where you may create an extension and a schema:
--
--     psql -v ON_ERROR_STOP=1 -f examples/demo.sql
--
-- It works in its own schema, bloom_demo, which it drops and recreates.

\set ON_ERROR_STOP 1
\set QUIET on
SET client_min_messages = warning;

\echo
\echo '=== bloomfilter: LevelDB bloom filters, byte for byte, in PostgreSQL ==='
\echo

CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP SCHEMA IF EXISTS bloom_demo CASCADE;
CREATE SCHEMA bloom_demo;
SET search_path = bloom_demo, public;

\echo '--- A filter is its LevelDB bytes: the bit array, then one byte holding k.'
\echo '--- Two keys at 10 bits per key: 64 bits (LevelDB''s minimum) = 8 bytes, and k = 6.'
SELECT bloom_agg(key, 10) AS filter
FROM (VALUES ('apple'), ('banana')) AS v(key);

\echo '--- key <~ filter asks "may the filter contain key?" (LevelDB''s KeyMayMatch).'
\echo '--- false means certainly absent; true means present, or a false positive:'
\echo '--- here cherry is one, and LevelDB says true for it as well.'
SELECT k AS key, k <~ f AS may_contain, f ~> k AS "same, commuted"
FROM (SELECT bloom_agg(key, 10) AS f FROM (VALUES ('apple'), ('banana')) AS v(key)) AS s,
     (VALUES ('apple'), ('banana'), ('cherry'), ('durian'), ('fig')) AS probe(k);

\echo
\echo '--- 1. A table of 1,000,000 users, keyed user-1 .. user-1000000.'
CREATE TABLE users AS
SELECT i AS id, 'user-' || i AS key
FROM generate_series(1, 1000000) AS i;

\echo '--- 2. One filter over all the keys, 10 bits per key, stored in a table column.'
CREATE TABLE filters (name text PRIMARY KEY, filter bloomfilter);
\timing on
INSERT INTO filters (name, filter)
SELECT 'users', bloom_agg(key, 10) FROM users;
\timing off

\echo '--- 3. Its size: 1,000,000 keys x 10 bits = 1,250,000 bytes of bits, plus the k byte.'
\echo '---    (The text form is \\x and two hex digits a byte.)'
SELECT name,
       octet_length(filter::text) / 2 - 1 AS filter_bytes,
       pg_size_pretty((octet_length(filter::text) / 2 - 1)::bigint) AS size,
       ('x' || right(filter::text, 2))::bit(8)::int AS k
FROM filters;

\echo
\echo '--- 4. Lookups: 100,000 keys, half of them users, half not.'
CREATE TABLE lookups AS
SELECT 'user-' || (i * 19) AS key, true AS is_user          -- user-19 .. user-950000
FROM generate_series(1, 50000) AS i
UNION ALL
SELECT 'user-' || (1000000 + i), false                       -- past the last user
FROM generate_series(1, 50000) AS i;
ANALYZE users;
ANALYZE lookups;

\echo '--- 5. Pre-check with the filter before the join: only keys that pass'
\echo '---    (the users, and about 1% false positives) go on to the join.'
\timing on
SELECT count(*) AS lookups,
       count(*) FILTER (WHERE l.key <~ (SELECT filter FROM filters WHERE name = 'users'))
           AS pass_filter
FROM lookups AS l;
\timing off

\echo '--- ... and the join on the candidates only:'
SELECT count(*) AS candidates,
       count(u.id) AS real_matches,
       count(*) - count(u.id) AS false_positives
FROM lookups AS l
LEFT JOIN users AS u ON u.key = l.key
WHERE l.key <~ (SELECT filter FROM filters WHERE name = 'users');

\echo '--- 6. No false negatives: every user key passes.  The false-positive rate among'
\echo '---    absent keys is near 1% at 10 bits per key (LevelDB''s own figure; its 32-bit'
\echo '---    hash does a little worse than the textbook 0.84% on keys this alike).'
SELECT count(*) FILTER (WHERE is_user) AS users_looked_up,
       count(*) FILTER (WHERE is_user AND NOT passes) AS false_negatives,
       count(*) FILTER (WHERE NOT is_user) AS absent_looked_up,
       count(*) FILTER (WHERE NOT is_user AND passes) AS false_positives,
       round(100.0 * count(*) FILTER (WHERE NOT is_user AND passes)
                   / nullif(count(*) FILTER (WHERE NOT is_user), 0), 2) AS fp_rate_percent
FROM (
    SELECT l.is_user, l.key <~ f.filter AS passes
    FROM lookups AS l, filters AS f
    WHERE f.name = 'users'
) AS s;

\echo
\echo '--- The filter is the very bytes LevelDB''s NewBloomFilterPolicy(10) writes for these'
\echo '--- keys (LevelDB finds the same 660 false positives), so filters can travel between'
\echo '--- PostgreSQL and LevelDB-format tools.'
\echo '--- Clean up with:  DROP SCHEMA bloom_demo CASCADE;'
\echo
