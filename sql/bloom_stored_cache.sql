-- The session's cache of stored filters (bloomfilter.stored_filter_cache):
-- a filter stored out of line is read once and kept for later queries, and
-- every change of the stored value (UPDATE, DELETE, VACUUM, VACUUM FULL,
-- TRUNCATE, CLUSTER) is seen at once.  Each probe through the cache is
-- checked against the same probe of a copy that bypasses it (the cast to
-- bytea and back reads the stored value afresh), key by key; the DEBUG1
-- line "read a stored filter ... into the session's cache" shows each
-- time the cache reads a value, and its absence each time it answers
-- (DEBUG1 is on around the probes only: commands that rebuild a table
-- say more at that level).
CREATE TABLE sf (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE sf ALTER COLUMN f SET STORAGE EXTERNAL;
-- filter 1 of the keys 'a1' ... 'a80000', filter 2 of 'b1' ... (100 kB each)
INSERT INTO sf SELECT id, bloom_agg(chr(96 + id) || i, 10)
  FROM generate_series(1, 2) id, generate_series(1, 80000) i GROUP BY id;
SELECT id, pg_column_size(f) AS stored_bytes FROM sf ORDER BY id;
-- probes: 2000 keys each of the sets a, b and c
CREATE TABLE probes AS
  SELECT chr(97 + n % 3) || (1 + n * 37 % 80000) AS k FROM generate_series(0, 5999) n;
-- the filter id 1 holds now, probed through the cache and afresh
CREATE VIEW check1 AS
  SELECT count(*) FILTER (WHERE k <~ (SELECT f FROM sf WHERE id = 1) AND k LIKE 'a%') AS found_a,
         count(*) FILTER (WHERE k <~ (SELECT f FROM sf WHERE id = 1) AND k LIKE 'b%') AS found_b,
         count(*) FILTER (WHERE k <~ (SELECT f FROM sf WHERE id = 1) AND k LIKE 'c%') AS found_c,
         count(*) FILTER (WHERE (k <~ (SELECT f FROM sf WHERE id = 1)) IS DISTINCT FROM
                                (k <~ (SELECT f::bytea::bloomfilter FROM sf WHERE id = 1))) AS mismatches
    FROM probes;
SET client_min_messages = debug1;
-- read once, then answered from the cache
SELECT * FROM check1;
SELECT * FROM check1;
SELECT * FROM check1;
-- a new value: read again
UPDATE sf SET f = (SELECT bloom_agg('c' || i, 10) FROM generate_series(1, 80000) i) WHERE id = 1;
SELECT * FROM check1;
SELECT * FROM check1;
-- an UPDATE of the row that keeps the value keeps the cache
ALTER TABLE sf ADD COLUMN note text;
UPDATE sf SET note = 'touched' WHERE id = 1;
SELECT * FROM check1;
-- gone, then back under a new value
DELETE FROM sf WHERE id = 1;
SELECT * FROM check1;
INSERT INTO sf (id, f) SELECT 1, bloom_agg('a' || i, 10) FROM generate_series(1, 80000) i;
SELECT * FROM check1;
SELECT * FROM check1;
-- VACUUM frees the dead values and leaves the live one
RESET client_min_messages;
VACUUM sf;
SET client_min_messages = debug1;
SELECT * FROM check1;
-- VACUUM FULL and CLUSTER write every value anew (the same bytes)
RESET client_min_messages;
VACUUM FULL sf;
SET client_min_messages = debug1;
SELECT * FROM check1;
SELECT * FROM check1;
RESET client_min_messages;
CLUSTER sf USING sf_pkey;
SET client_min_messages = debug1;
SELECT * FROM check1;
-- TRUNCATE, then another value under id 1
RESET client_min_messages;
TRUNCATE sf;
SET client_min_messages = debug1;
SELECT * FROM check1;
INSERT INTO sf (id, f) SELECT id, bloom_agg(chr(97 + id) || i, 10)
  FROM generate_series(1, 2) id, generate_series(1, 80000) i GROUP BY id;
SELECT * FROM check1;
SELECT * FROM check1;
-- an error in the middle of a query lets go of the filter it held
SELECT count(*) FILTER (WHERE 1 / (3000 - n) > -1 AND k <~ (SELECT f FROM sf WHERE id = 1))
  FROM (SELECT k, row_number() OVER () AS n FROM probes) p;
SELECT * FROM check1;
-- a prepared statement, run again and again
PREPARE probe2 AS
  SELECT count(*) FILTER (WHERE k <~ (SELECT f FROM sf WHERE id = 2)) AS found,
         count(*) FILTER (WHERE (k <~ (SELECT f FROM sf WHERE id = 2)) IS DISTINCT FROM
                                (k <~ (SELECT f::bytea::bloomfilter FROM sf WHERE id = 2))) AS mismatches
    FROM probes;
EXECUTE probe2;
EXECUTE probe2;
UPDATE sf SET f = (SELECT bloom_agg('a' || i, 10) FROM generate_series(1, 80000) i) WHERE id = 2;
EXECUTE probe2;
EXECUTE probe2;
DEALLOCATE probe2;
-- off: every query reads the value, and the cache is emptied
SET bloomfilter.stored_filter_cache = 0;
SELECT * FROM check1;
SELECT * FROM check1;
-- smaller than the filter: not kept
SET bloomfilter.stored_filter_cache = '64kB';
SELECT * FROM check1;
SELECT * FROM check1;
-- room for one filter: a query that probes both keeps the first (pinned
-- by its call site, so that the second cannot evict it) and reads the
-- other for its own call site only; the first comes from the server's
-- file of it (bloomfilter.shared_filter_cache), which the session wrote
-- when it first read it: the session cache dropped it when turned off
SET bloomfilter.stored_filter_cache = '150kB';
SELECT count(*) FILTER (WHERE k <~ (SELECT f FROM sf WHERE id = 1)) AS found_1,
       count(*) FILTER (WHERE k <~ (SELECT f FROM sf WHERE id = 2)) AS found_2,
       count(*) FILTER (WHERE (k <~ (SELECT f FROM sf WHERE id = 2)) IS DISTINCT FROM
                              (k <~ (SELECT f::bytea::bloomfilter FROM sf WHERE id = 2))) AS mismatches_2
  FROM probes;
-- the next query finds the one it kept
SELECT * FROM check1;
RESET bloomfilter.stored_filter_cache;
SELECT * FROM check1;
SELECT * FROM check1;
-- the type's output and send functions read a stored value through the
-- session's cache too (postgres_fdw sends a filter as text with every
-- remote query): read once, then from the cache, and a new value afresh
UPDATE sf SET f = (SELECT bloom_agg('d' || i, 10) FROM generate_series(1, 80000) i) WHERE id = 1;
SELECT f::text = '\x' || encode(f::bytea, 'hex') AS text_form FROM sf WHERE id = 1;
SELECT f::text = '\x' || encode(f::bytea, 'hex') AS text_form FROM sf WHERE id = 1;
SELECT bloomfilter_send(f) = f::bytea AS binary_form FROM sf WHERE id = 1;
UPDATE sf SET f = (SELECT bloom_agg('e' || i, 10) FROM generate_series(1, 80000) i) WHERE id = 1;
SELECT f::text = '\x' || encode(f::bytea, 'hex') AS text_form FROM sf WHERE id = 1;
SELECT bloomfilter_send(f) = f::bytea AS binary_form FROM sf WHERE id = 1;
RESET client_min_messages;
SHOW bloomfilter.stored_filter_cache;
DROP VIEW check1;
DROP TABLE sf, probes;
