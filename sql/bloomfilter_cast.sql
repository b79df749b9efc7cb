-- Filters that travel: binary COPY, and the casts to and from bytea.

-- A table of filters: small ones stored inline, a large one out of line,
-- and a NULL.
CREATE TABLE travel (id int PRIMARY KEY, f bloomfilter, note text);
INSERT INTO travel VALUES
  (1, '\x000820208080000206', 'abc at 10 bits a key'),
  (2, '\x0001', 'smallest valid'),
  (3, NULL, 'no filter');
INSERT INTO travel
  SELECT 4, bloom_agg('key-' || i, 10), '100000 keys' FROM generate_series(1, 100000) i;
CREATE TABLE travel_before AS SELECT id, f::text AS f_text FROM travel;

-- Binary COPY writes the filter bytes as they are, and reads them back
-- through the same validation.
\copy travel TO 'results/bloomfilter_cast.bin' (FORMAT binary)
TRUNCATE travel;
\copy travel FROM 'results/bloomfilter_cast.bin' (FORMAT binary)
SELECT count(*) AS rows,
       count(*) FILTER (WHERE t.f::text IS NOT DISTINCT FROM b.f_text) AS unchanged
  FROM travel t JOIN travel_before b USING (id);
SELECT id, f IS NULL AS is_null, octet_length(f::bytea) AS bytes FROM travel ORDER BY id;

-- Bad bytes in the binary form are refused with 22P03, whichever rule
-- they break: binary COPY of a bytea column writes raw bytes that are
-- then read as a bloomfilter.
CREATE TABLE raw_bytes (id int, b bytea);
CREATE TABLE filter_copy (id int, f bloomfilter);
INSERT INTO raw_bytes VALUES (1, '\x0000');          -- k = 0
\copy raw_bytes TO 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
\set VERBOSITY default
\copy filter_copy FROM 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy filter_copy FROM 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
\set VERBOSITY default
TRUNCATE raw_bytes;
INSERT INTO raw_bytes VALUES (2, '\x001f');          -- k = 31, reserved
\copy raw_bytes TO 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
\copy filter_copy FROM 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
TRUNCATE raw_bytes;
INSERT INTO raw_bytes VALUES (3, '\x06');            -- too short
\copy raw_bytes TO 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
\copy filter_copy FROM 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
TRUNCATE raw_bytes;
INSERT INTO raw_bytes VALUES (4, '');                -- empty
\copy raw_bytes TO 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
\copy filter_copy FROM 'results/bloomfilter_cast_raw.bin' (FORMAT binary)
-- and nothing was loaded
SELECT count(*) AS loaded FROM filter_copy;

-- bloomfilter -> bytea: free, the same bytes.
SELECT '\x000820208080000206'::bloomfilter::bytea;
SELECT f::bytea = decode(substr(f::text, 3), 'hex') AS same_bytes
  FROM travel WHERE f IS NOT NULL ORDER BY id;
-- so bytea functions work on the filter bytes
SELECT length(f::bytea) AS bytes, get_byte(f::bytea, length(f::bytea) - 1) AS k
  FROM travel WHERE id = 1;

-- bytea -> bloomfilter: explicit, and validated.  Importing a LevelDB
-- filter of the key abc:
SELECT decode('000820208080000206', 'hex')::bloomfilter;
SELECT 'abc' <~ decode('000820208080000206', 'hex')::bloomfilter AS abc_found;
SELECT bloomfilter('\x0001'::bytea);
-- a round trip through bytea changes nothing, large filter included
SELECT id, f::bytea::bloomfilter::text = f::text AS round_trip
  FROM travel WHERE f IS NOT NULL ORDER BY id;
SELECT NULL::bytea::bloomfilter IS NULL AS null_stays_null;
-- invalid bytes: 22P03, the bytes are a binary representation
\set VERBOSITY default
SELECT '\x0000'::bytea::bloomfilter;
SELECT '\x00ff'::bytea::bloomfilter;
SELECT ''::bytea::bloomfilter;
\set VERBOSITY sqlstate
SELECT '\x0000'::bytea::bloomfilter;
SELECT '\x06'::bytea::bloomfilter;
\set VERBOSITY default

-- Neither cast is implicit: a bytea is not taken for a filter by accident.
SELECT c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure,
       c.castcontext, c.castmethod
  FROM pg_cast c
 WHERE 'bloomfilter'::regtype IN (c.castsource, c.casttarget)
 ORDER BY 1, 2;
INSERT INTO filter_copy VALUES (9, '\x0001'::bytea);

DROP TABLE travel, travel_before, raw_bytes, filter_copy;
