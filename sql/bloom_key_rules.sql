--
-- The rule of every key: values equal under their type's "=" give the same
-- key bytes.  For each accepted type, a set of values holding many spellings
-- of equal values is crossed with itself; every pair that "=" calls equal
-- must have equal bloom_key bytes (equal_but_apart = 0), and the test
-- must have found such pairs between different spellings (spellings > 0).
-- Then filters built from the values, serially and in parallel, must pass
-- every equal value, whatever the session's settings.
--
SET extra_float_digits = 0;

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE TYPE money_pair AS (amount numeric, span interval);

-- candidate values, as text, of each type; equal values spelled apart
CREATE TEMP TABLE spellings (typ text, v text);
INSERT INTO spellings
SELECT 'numeric', s FROM unnest(ARRAY[
  '0', '0.0', '-0.000', '1', '1.0', '1.00', '-1', '-1.0', '1.5', '1.50', '1.500',
  '-0.25', '-0.2500', '123456789012345678901234', '123456789012345678901234.000',
  '9223372036854775807', '9223372036854775807.0', '9223372036854775808', '9223372036854775808.00',
  '-9223372036854775808', '-9223372036854775808.0', '0.1', '0.10', 'NaN', 'nan', '1e3', '1000.0']) s
UNION ALL
SELECT 'float8', s FROM unnest(ARRAY['0', '-0', '0.0', '1.5', '1.50', '-2', 'NaN', 'Infinity',
  '-Infinity', '1e300', '1.0e300', '5e-324']) s
UNION ALL
SELECT 'float4', s FROM unnest(ARRAY['0', '-0', '1.5', '1.50', 'NaN', 'Infinity', '-1e30']) s
UNION ALL
SELECT 'interval', s FROM unnest(ARRAY['1 day', '24 hours', '1440 minutes', '1 month', '30 days',
  '720 hours', '1 month -1 day', '29 days', '-1 hour', '-1 day 23 hours', '1 year', '12 mons',
  '360 days', '0', '0 days', '1 mon 1 day 1 hour', '31 days 01:00', '-1 month 1 day', '-29 days',
  '1.5 days', '36 hours', '1 day 12:00']) s
UNION ALL
SELECT 'timestamptz', s FROM unnest(ARRAY['2026-01-02 12:00:00+00', '2026-01-02 14:00:00+02',
  '2026-01-02 07:00:00-05', '2026-01-02 12:00:00.000001+00', 'infinity', '-infinity']) s
UNION ALL
SELECT 'timetz', s FROM unnest(ARRAY['12:00+02', '10:00+00', '12:00:00+02', '12:00:00.000+02:00']) s
UNION ALL
SELECT 'char4', s FROM unnest(ARRAY['a', 'a ', 'a   ', 'ab', ' a', '']) s
UNION ALL
SELECT 'jsonb', s FROM unnest(ARRAY['{"a": 1, "b": [1, 2.0]}', '{"b":[1.00,2],"a":1.0}',
  ' { "a" : 1.000 , "b" : [ 1 , 2 ] } ', '{"a": 1, "a": 2, "b": [1, 2]}', '{"b": [1, 2], "a": 2}',
  '[1]', '1', '1.0', '"1"', '[1.0]', '{"a": null}', '{}', '[]', 'true', 'null', '"é"',
  '{"x": {"y": [0, -0.0, 0e5]}}', '{"x":{"y":[0,0,0]}}']) s
UNION ALL
SELECT 'numrange', s FROM unnest(ARRAY['[1.0,2.0)', '[1,2.00)', '[1,2]', '[1.0,2.0]', '(,5)',
  '(,5.0)', '[,5.0)', 'empty', '[3,3)', '(1,1]', '[1,)', '[1.00,]']) s
UNION ALL
SELECT 'int4range', s FROM unnest(ARRAY['[1,3)', '[1,2]', '(0,2]', '(0,3)', 'empty', '[2,2)',
  '(,5)', '(,4]', '[1,)', '(0,]']) s
UNION ALL
SELECT 'numeric[]', s FROM unnest(ARRAY['{1,2}', '{1.0,2.00}', '{1,NULL}', '{1.0,NULL}', '{}',
  '{{1,2},{3,4}}', '{{1.0,2},{3,4.0}}', '[0:1]={1,2}', '[0:1]={1.0,2}', '{NaN}', '{nan}']) s
UNION ALL
SELECT 'interval[]', s FROM unnest(ARRAY['{"1 day","1 month"}', '{"24 hours","30 days"}',
  '{"1 day",NULL}', '{"24 hours",NULL}']) s
UNION ALL
SELECT 'money_pair', s FROM unnest(ARRAY['(1.0,"1 day")', '(1,"24 hours")', '(1.50,)',
  '(1.5,)', '(,)', '(2,"1 mon")', '(2.000,"30 days")']) s
UNION ALL
SELECT 'jsonb[]', s FROM unnest(ARRAY['{"{\"a\": 1}","[1.0]"}', '{"{\"a\":1.00}","[1]"}']) s
UNION ALL
SELECT 'bigint', s FROM unnest(ARRAY['1', '01', '+1', ' 1', '-0', '0', '9223372036854775807']) s
UNION ALL
SELECT 'smallint[]', s FROM unnest(ARRAY['{1,2}', '{01,+2}', '{1,NULL}', '{ 1 , NULL }']) s
UNION ALL
SELECT 'posint[]', s FROM unnest(ARRAY['{1,2}', '{01,2}', '{2,1}']) s
UNION ALL
SELECT 'uuid', s FROM unnest(ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
  '{a0eebc999c0b4ef8bb6d6bb9bd380a11}', 'a0eebc999c0b4ef8bb6d6bb9bd380a11', '00000000-0000-0000-0000-000000000000']) s
UNION ALL
SELECT 'bytea', s FROM unnest(ARRAY['\x41', 'A', '\101', '\x', '']) s
UNION ALL
SELECT 'varchar', s FROM unnest(ARRAY['a', 'a ', 'A', 'é']) s
UNION ALL
SELECT 'name', s FROM unnest(ARRAY['a', 'a ', 'A']) s
UNION ALL
SELECT '"char"', s FROM unnest(ARRAY['a', 'ab', 'b']) s
UNION ALL
SELECT 'boolean', s FROM unnest(ARRAY['t', 'true', 'yes', 'on', '1', 'f', 'no', 'off', '0']) s
UNION ALL
SELECT 'date', s FROM unnest(ARRAY['2026-01-02', '20260102', '2026-1-2', 'January 2, 2026', 'infinity']) s
UNION ALL
SELECT 'time', s FROM unnest(ARRAY['12:00', '12:00:00', '12:00:00.000000', '12:00:00.000001', '24:00']) s
UNION ALL
SELECT 'timestamp', s FROM unnest(ARRAY['2026-01-02 12:00', '2026-01-02T12:00:00', '2026-01-02 12:00:00.000',
  'January 2 2026 12:00', '2026-01-02 12:00:01']) s
UNION ALL
SELECT 'mood', s FROM unnest(ARRAY['ok', 'happy', 'sad']) s
UNION ALL
SELECT 'mood[]', s FROM unnest(ARRAY['{ok,sad}', '{ ok , sad }', '{"ok","sad"}', '{sad,ok}']) s;

-- every pair of values of a type, with their equality and their keys
CREATE FUNCTION pg_temp.key_pairs(t text)
RETURNS TABLE (equal boolean, same_key boolean, same_text boolean)
LANGUAGE plpgsql AS $$
DECLARE
  sqltype text := CASE t WHEN 'char4' THEN 'char(4)' ELSE t END;
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT a.v::%1$s = b.v::%1$s, bloom_key(a.v::%1$s) = bloom_key(b.v::%1$s), a.v = b.v
       FROM spellings a, spellings b WHERE a.typ = %2$L AND b.typ = %2$L', sqltype, t);
END $$;

SELECT typ,
       count(*) FILTER (WHERE equal AND NOT same_text) AS spellings,
       count(*) FILTER (WHERE equal AND NOT same_key) AS equal_but_apart,
       count(*) FILTER (WHERE NOT equal AND same_key) AS apart_but_same
  FROM (SELECT DISTINCT typ FROM spellings) t, pg_temp.key_pairs(typ)
 GROUP BY typ ORDER BY typ;

-- integers of every width are one key, in arrays and as numeric too
SELECT bloom_key(ARRAY[1, 2]::smallint[]) = bloom_key(ARRAY[1, 2]::bigint[]) AS arrays_any_width,
       bloom_key(5::numeric) = bloom_key(5::bigint) AS integral_numeric_is_the_integer,
       bloom_key(5.0::numeric, 7::smallint) = bloom_key(5, 7::numeric) AS multi_column,
       bloom_key(ARRAY[1::posint]) = bloom_key(ARRAY[1]) AS domain_array_is_base_array,
       bloom_key(ARRAY['ok'::mood]) = bloom_key(ARRAY['ok'::text]) AS enum_array_is_its_labels,
       bloom_key(ROW(1, 'a')) = bloom_key(ROW(1::bigint, 'a'::text)) AS row_of_literals,
       bloom_key('NaN'::float8) = bloom_key('Infinity'::float8 - 'Infinity'::float8) AS every_nan;

-- the bytes of each rule (doc/format.md's key table)
SELECT bloom_key(1.50::numeric) AS numeric_digits, bloom_key(-0.0::float8) AS zero,
       bloom_key(interval '36 hours') AS interval_days_and_microseconds;
SELECT bloom_key(ARRAY[7]) AS array_dims_then_fields, bloom_key(ROW(7, NULL::text)) AS row_columns;
SELECT bloom_key('[1,3)'::int4range) AS range_flags_then_bounds, bloom_key('empty'::int4range) AS empty_range;
SELECT bloom_key('{"a": [true, null, 1.0, "x"]}'::jsonb) AS jsonb_tokens;

-- filters built from one spelling pass every equal spelling, serial and parallel
CREATE TABLE key_values AS
  SELECT typ, v, i FROM spellings, generate_series(1, 50) i;
ANALYZE key_values;
CREATE FUNCTION pg_temp.missed(t text, parallel boolean)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  sqltype text := CASE t WHEN 'char4' THEN 'char(4)' ELSE t END;
  f bloomfilter;
  n bigint;
BEGIN
  IF parallel THEN
    SET LOCAL parallel_setup_cost = 0;
    SET LOCAL parallel_tuple_cost = 0;
    SET LOCAL min_parallel_table_scan_size = 0;
    SET LOCAL max_parallel_workers_per_gather = 2;
  ELSE
    SET LOCAL max_parallel_workers_per_gather = 0;
  END IF;
  EXECUTE format('SELECT bloom_agg(bloom_key(v::%s, i), 10) FROM key_values WHERE typ = %L', sqltype, t) INTO f;
  EXECUTE format(
    'SELECT count(*) FROM spellings a, spellings b, generate_series(1, 50) i
      WHERE a.typ = %2$L AND b.typ = %2$L AND a.v::%1$s = b.v::%1$s
        AND NOT bloom_key(b.v::%1$s, i) <~ $1', sqltype, t) INTO n USING f;
  RETURN n;
END $$;
SELECT typ, pg_temp.missed(typ, false) AS missed_serial, pg_temp.missed(typ, true) AS missed_parallel
  FROM (SELECT DISTINCT typ FROM spellings) t ORDER BY typ;
-- (the parallel build is one)
BEGIN;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(bloom_key(v::numeric, i), 10) FROM key_values WHERE typ = 'numeric';
COMMIT;

-- the session's settings change no key: keys made under one set of
-- settings, compared in a parallel scan under others
CREATE TYPE settings_row AS (texts text[], doc jsonb, amount numeric, span interval,
  at timestamptz, amounts numrange, code char(3));
CREATE TABLE setting_keys AS
  SELECT v, bloom_key(v) AS k
    FROM (SELECT ROW(ARRAY[U&'\00e9' || i, U&'\00df'], jsonb_build_object(U&'\00f6', U&'\00fc' || i),
                     1.50 + i, interval '1 day' * i, timestamptz '2026-01-02 12:00+00' + interval '1 hour' * i,
                     numrange(1.0, 2.0 + i), 'x')::settings_row
            FROM generate_series(1, 1000) i) t(v);
ANALYZE setting_keys;
SET client_encoding = 'LATIN1';
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'iso_8601';
SET TimeZone = 'Asia/Kathmandu';
SET extra_float_digits = 3;
BEGIN;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM setting_keys WHERE bloom_key(v) <> k;
SELECT count(*) AS keys_changed_by_settings FROM setting_keys WHERE bloom_key(v) <> k;
COMMIT;
-- and under other client encodings, also those that cannot show these characters
CREATE FUNCTION pg_temp.keys_changed_under(enc text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  PERFORM set_config('client_encoding', enc, true);
  SELECT count(*) INTO n FROM setting_keys WHERE bloom_key(v) <> k;
  RETURN n;
END $$;
SELECT enc, pg_temp.keys_changed_under(enc) AS keys_changed
  FROM unnest(ARRAY['UTF8', 'LATIN1', 'LATIN9', 'WIN1252', 'SQL_ASCII', 'EUC_JP', 'UTF8']) enc;
RESET client_encoding;
RESET DateStyle;
RESET IntervalStyle;
RESET TimeZone;
SET extra_float_digits = 0;

-- types whose equal values cannot be written as one key are refused,
-- when the query is planned
SELECT bloom_key('{"a": 1}'::json);
SELECT bloom_key('<a/>'::xml);
SELECT bloom_key(point '(1,2)');
SELECT bloom_key(ARRAY['{}'::json]);
SELECT bloom_key(ROW(1, '{}'::json));
SELECT bloom_key(1, '10.0.0.1'::inet);
SELECT count(bloom_key(x)) FROM (SELECT '{}'::json WHERE false) t(x);
CREATE EXTENSION citext;
SELECT bloom_key('Ann'::citext);
SELECT bloom_key(lower('Ann'::citext::text)) = bloom_key(lower('ANN'::citext::text)) AS the_way_around;
DROP EXTENSION citext;

-- text under a nondeterministic collation is refused wherever a key is made
CREATE COLLATION case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TEMP TABLE users_ci (email text COLLATE case_insensitive, tags text[] COLLATE case_insensitive);
INSERT INTO users_ci VALUES ('Ann@Example.com', '{a}');
SELECT bloom_agg(email, 10) FROM users_ci;
SELECT email <~ bloom_empty(10, 10) FROM users_ci;
SELECT bloom_empty(10, 10) ~> email FROM users_ci;
SELECT bloom_add(bloom_empty(10, 10), email) FROM users_ci;
SELECT bloom_add(bloom_empty(10, 10), tags) FROM users_ci;
SELECT bloom_agg(email, 10, 100) FROM users_ci;
SELECT bloom_agg_partial(email, 10) FROM users_ci;
SELECT bloom_key(email) FROM users_ci;
SELECT bloom_key(tags) FROM users_ci;
SELECT bloom_key(1, 'x' COLLATE case_insensitive);
-- the way around: a normalizing expression under a deterministic collation
SELECT 'ann@example.com' <~ bloom_agg(lower(email) COLLATE "C", 10) AS found FROM users_ci;
SELECT bloom_key(lower(email) COLLATE "C") = bloom_key('ann@example.com'::text) AS same FROM users_ci;
-- deterministic collations keep working, and change nothing
SELECT bloom_key('a' COLLATE "C") = bloom_key('a' COLLATE "POSIX") AS same,
       'a' COLLATE "C" <~ bloom_agg('a'::text COLLATE "POSIX", 10) AS found;

DROP COLLATION case_insensitive CASCADE;
DROP TABLE key_values, setting_keys;
DROP TYPE settings_row;
DROP TYPE money_pair;
DROP DOMAIN posint;
DROP TYPE mood;
