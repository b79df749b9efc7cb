-- Typed keys (smallint, integer, bigint, uuid) and multi-column keys
-- (bloom_key): each is the bytes its encoding says, in every function.

-- An integer key is int8send(key::bigint): the filter of integers is the
-- filter of those 8-byte strings, whatever the integer's width.
CREATE TABLE ints AS
  SELECT i::bigint AS i8, i::integer AS i4, i::smallint AS i2
  FROM generate_series(-2000, 2000) i;
INSERT INTO ints VALUES (0, 0, 0), (-1, -1, -1), (NULL, NULL, NULL);

SELECT bloom_agg(i8, 10) = bloom_agg(int8send(i8), 10) AS bigint_is_int8send,
       bloom_agg(i4, 10) = bloom_agg(int8send(i4), 10) AS integer_is_int8send,
       bloom_agg(i2, 10) = bloom_agg(int8send(i2), 10) AS smallint_is_int8send
  FROM ints;

-- the same value is the same key at every width
SELECT bloom_agg(5::smallint, 10) = bloom_agg(5, 10) AS smallint_5_is_integer_5,
       bloom_agg(5, 10) = bloom_agg(5::bigint, 10) AS integer_5_is_bigint_5;

-- the bytes, for the edges of each width: most significant byte first,
-- two's complement
SELECT v, int8send(v), bloom_agg(v, 20) = bloom_agg(int8send(v), 20) AS same_filter
  FROM (VALUES (0::bigint), (1), (-1), (255), (256),
               (9223372036854775807), (-9223372036854775808)) t(v)
 GROUP BY v ORDER BY v;
SELECT v, bloom_agg(v, 20) = bloom_agg(int8send(v), 20) AS same_filter,
       v <~ bloom_agg(int8send(v), 20) AS found
  FROM (VALUES (2147483647), (-2147483648), (0), (-1)) t(v)
 GROUP BY v ORDER BY v;
SELECT v, bloom_agg(v, 20) = bloom_agg(int8send(v), 20) AS same_filter,
       v <~ bloom_agg(int8send(v), 20) AS found
  FROM (VALUES (32767::smallint), ((-32768)::smallint), (0::smallint), ((-1)::smallint)) t(v)
 GROUP BY v ORDER BY v;

-- probes: any width against a filter of any width, both operators
CREATE TABLE int_filters AS
  SELECT bloom_agg(i8, 10) AS f8, bloom_agg(i4, 10) AS f4, bloom_agg(i2, 10) AS f2 FROM ints;
SELECT count(*) FILTER (WHERE i4 <~ f8) AS integer_in_bigint_filter,
       count(*) FILTER (WHERE i8 <~ f4) AS bigint_in_integer_filter,
       count(*) FILTER (WHERE i2 <~ f8) AS smallint_in_bigint_filter,
       count(*) FILTER (WHERE f2 ~> i2) AS smallint_commuted,
       count(*) FILTER (WHERE f8 ~> i8 AND f8 ~> i4 AND f8 ~> i2) AS all_commuted,
       count(*) FILTER (WHERE (i8 <~ f8) = (int8send(i8) <~ f8)) AS same_as_int8send,
       count(i8) AS keys
  FROM ints, int_filters;
-- keys that are not in the filter: at most the false positives
SELECT count(*) FILTER (WHERE i <~ f8) < 50 AS few_false_positives,
       count(*) FILTER (WHERE (i <~ f8) = (int8send(i) <~ f8)) AS same_as_int8send
  FROM generate_series(1000000::bigint, 1004000) i, int_filters;

-- uuid keys are their 16 bytes (uuid_send)
CREATE TABLE uuids AS
  SELECT md5(i::text)::uuid AS u FROM generate_series(1, 3000) i;
INSERT INTO uuids VALUES ('00000000-0000-0000-0000-000000000000'),
  ('ffffffff-ffff-ffff-ffff-ffffffffffff'), (NULL);
SELECT bloom_agg(u, 10) = bloom_agg(uuid_send(u), 10) AS uuid_is_uuid_send FROM uuids;
SELECT count(*) FILTER (WHERE u <~ f) AS found,
       count(*) FILTER (WHERE f ~> u) AS found_commuted,
       count(*) FILTER (WHERE (u <~ f) = (uuid_send(u) <~ f)) AS same_as_uuid_send,
       count(u) AS keys
  FROM uuids, (SELECT bloom_agg(u, 10) AS f FROM uuids) f;

-- bloom_add, one key and arrays, in the filter's own geometry
SELECT bloom_add(bloom_add(bloom_empty(2, 10), 7::smallint), 8) = bloom_agg(x, 10) AS add_integers,
       bloom_add(bloom_empty(2, 10), ARRAY[7, 8]::bigint[]) = bloom_agg(x, 10) AS add_bigint_array,
       bloom_add(bloom_empty(2, 10), ARRAY[7, NULL, 8]::smallint[]) = bloom_agg(x, 10) AS add_smallint_array,
       bloom_add(bloom_empty(2, 10), ARRAY[7, 8]) = bloom_agg(x, 10) AS add_integer_array
  FROM (VALUES (7::bigint), (8)) t(x);
SELECT bloom_add(bloom_empty(2, 10), '00000000-0000-0000-0000-000000000001'::uuid)
         = bloom_add(bloom_empty(2, 10), uuid_send('00000000-0000-0000-0000-000000000001')) AS add_uuid,
       bloom_add(bloom_empty(3, 10), ARRAY(SELECT u FROM uuids WHERE u IS NOT NULL LIMIT 3))
         = bloom_add(bloom_empty(3, 10), ARRAY(SELECT uuid_send(u) FROM uuids WHERE u IS NOT NULL LIMIT 3)) AS add_uuid_array;

-- the fixed geometry and the two-phase aggregates give the same bytes
SELECT bloom_agg(i8, 10, 4003) = bloom_agg(int8send(i8), 10, 4003) AS fixed_bigint,
       bloom_agg(i4, 10, 4003) = bloom_agg(i8, 10, 4003) AS fixed_integer,
       bloom_agg(i2, 10, 4003) = bloom_agg(int8send(i2), 10, 4003) AS fixed_smallint,
       bloom_agg(i8, 10, 4003) = bloom_add(bloom_empty(4003, 10), array_agg(i8)) AS fixed_is_add
  FROM ints;
SELECT bloom_agg(u, 10, 3002) = bloom_agg(uuid_send(u), 10, 3002) AS fixed_uuid FROM uuids;
SELECT bloom_agg_merge(s) = (SELECT bloom_agg(i8, 10) FROM ints) AS merged_integers
  FROM (SELECT bloom_agg_partial(i8, 10) AS s FROM ints WHERE i8 < 0
        UNION ALL SELECT bloom_agg_partial(i4, 10) FROM ints WHERE i4 >= 0
        UNION ALL SELECT bloom_agg_partial(i2, 10) FROM ints WHERE i2 IS NULL) p;
SELECT bloom_agg_merge(s) = (SELECT bloom_agg(u, 10) FROM uuids) AS merged_uuids
  FROM (SELECT bloom_agg_partial(u, 10) AS s FROM uuids GROUP BY u::text < '8') p;

-- GROUP BY and windows
SELECT count(*) AS groups,
       count(*) FILTER (WHERE a IS NOT DISTINCT FROM b) AS same_bytes
  FROM (SELECT i8 % 7 AS g, bloom_agg(i8, 10) AS a, bloom_agg(int8send(i8), 10) AS b
          FROM ints GROUP BY 1) g;
SELECT count(*) FILTER (WHERE a = b) AS same_window_bytes, count(*) AS rows
  FROM (SELECT bloom_agg(i4, 10) OVER w AS a, bloom_agg(int8send(i4), 10) OVER w AS b
          FROM ints WINDOW w AS (ORDER BY i8 ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)) t;

-- bloom_key: for each value, its length (4 bytes, most significant first)
-- and its bytes; NULL is the length ffffffff alone
SELECT bloom_key(1::smallint), bloom_key(1), bloom_key(1::bigint), bloom_key(-2::bigint);
SELECT bloom_key('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);
SELECT bloom_key('ab'::text, 'c'::text), bloom_key('a'::text, 'bc'::text);
SELECT bloom_key('ab'::text, 'c'::text) <> bloom_key('a'::text, 'bc'::text) AS fields_are_apart;
SELECT bloom_key(NULL::int), bloom_key(NULL::text, ''::text), bloom_key(''::bytea, NULL::uuid);
SELECT bloom_key('\x00ff'::bytea), bloom_key('x'::varchar), bloom_key('x'::name),
       bloom_key('x'::char(3)) AS char_without_padding, bloom_key('x') AS untyped_literal;
SELECT bloom_key('é'::text) = bloom_key(convert_to('é', 'UTF8')) AS text_in_database_encoding;
CREATE DOMAIN positive_id AS bigint CHECK (VALUE > 0);
CREATE TYPE mood AS ENUM ('sad', 'happy');
SELECT bloom_key(5::positive_id) = bloom_key(5) AS domain_is_its_base_type,
       bloom_key('happy'::mood) = bloom_key('happy'::text) AS enum_is_its_label;
-- other types: the bytes of their own rule (bloom_key_encode.c)
SELECT bloom_key(true), bloom_key(1.5::float8), bloom_key('2026-01-02'::date);
SELECT bloom_key(1.50::numeric) = bloom_key('1.5'::bytea) AS numeric_digits,
       bloom_key(3.0::numeric) = bloom_key(3) AS integral_numeric_is_the_integer;
-- VARIADIC: the array's elements are the fields
SELECT bloom_key(VARIADIC ARRAY[1, 2]) = bloom_key(1, 2) AS variadic_array,
       bloom_key(VARIADIC ARRAY[1, NULL]) = bloom_key(1, NULL::int) AS variadic_null_element,
       bloom_key(VARIADIC NULL::int[]) IS NULL AS variadic_null_array;
-- a multi-column key, as a user writes it, in the aggregate and the probe
CREATE TABLE orders AS
  SELECT (i % 10)::integer AS tenant_id, i::bigint AS user_id, 'x' || i AS note
  FROM generate_series(1, 1000) i;
SELECT count(*) FILTER (WHERE bloom_key(o.tenant_id, o.user_id) <~ f) AS found,
       count(*) FILTER (WHERE bloom_key(o.tenant_id::bigint, o.user_id::smallint) <~ f) AS found_other_widths,
       count(*) FILTER (WHERE bloom_key(o.user_id, o.tenant_id) <~ f) < 20 AS swapped_mostly_absent
  FROM orders o, (SELECT bloom_agg(bloom_key(tenant_id, user_id), 10) AS f FROM orders) f;
-- the bytes an application makes: 4-byte lengths and the values' bytes
SELECT bloom_key(3, 'ab'::text)
         = '\x00000008'::bytea || int8send(3) || '\x00000002'::bytea || convert_to('ab', 'UTF8')
       AS documented_bytes;

-- keys of other types: an error that names the key types and bloom_key
\set VERBOSITY default
SELECT bloom_agg(1.5, 10);
SELECT bloom_agg(x::numeric, 10) FROM generate_series(1, 0) x;
SELECT bloom_agg_partial(now(), 10);
SELECT bloom_agg(true, 10, 100);
SELECT 1.5 <~ bloom_empty(1, 10);
SELECT bloom_empty(1, 10) ~> 1.5;
SELECT bloom_add(bloom_empty(1, 10), 1.5);
-- (an array of another type is PostgreSQL's own "does not exist": a
-- catch-all for arrays would make varchar[] ambiguous); only its SQLSTATE
-- is shown, as PostgreSQL 19 words that message differently
\set VERBOSITY sqlstate
SELECT bloom_add(bloom_empty(1, 10), ARRAY[1.5]);
\set VERBOSITY default
-- caught when the query is planned, before any row
SELECT 1 FROM generate_series(1, 0) x WHERE x::float8 <~ bloom_empty(1, 10);
\set VERBOSITY terse
-- types that become key types implicitly still do
CREATE DOMAIN label AS text;
SELECT bloom_add(bloom_empty(2, 10), ARRAY['a', 'b']::varchar[]) = bloom_agg(x, 10) AS varchar_array,
       bloom_add(bloom_empty(2, 10), ARRAY['a', 'b']::label[]) = bloom_agg(x, 10) AS domain_array,
       bloom_add(bloom_empty(2, 10), 'a'::varchar) = bloom_add(bloom_empty(2, 10), 'a') AS varchar_key,
       'a'::label <~ bloom_agg(x, 10) AS domain_key,
       'a'::name <~ bloom_agg(x, 10) AS name_key
  FROM (VALUES ('a'), ('b')) t(x);
-- untyped literals and NULLs stay text keys
SELECT bloom_agg('abc', 10) = bloom_agg('abc'::text, 10) AS literal_is_text,
       'abc' <~ bloom_agg('abc', 10) AS literal_probe,
       bloom_add(bloom_empty(1, 10), 'abc') = bloom_agg('abc'::text, 10) AS literal_add,
       bloom_agg(NULL, 10) IS NULL AS null_key_skipped;

DROP TABLE ints, int_filters, uuids, orders;
DROP DOMAIN positive_id, label;
DROP TYPE mood;
