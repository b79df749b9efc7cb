-- bad_input: every way a value gets into the extension, given bad values.
--
-- Text input of bloomfilter and bloom_agg_state, their binary input
-- (binary COPY), the bytea cast and the functions' arguments all get
-- truncated, empty, oversized, wrong-k, odd-hex and random values.  Each
-- must be refused with a clear error and the SQLSTATE doc/reference.md promises:
--   22P02 bad text, 22P03 bad binary, 22023 bad parameter,
--   22004 NULL bits_per_key, 54000 too large, 0A000 outside an aggregate.
-- The "random" values are md5-derived, so the output is stable.  The last
-- statement checks that the server still answers.

-- try(stmt): run stmt and report how it ended, so that many cases fit in one
-- table: the SQLSTATE (00000 when accepted), the message and the detail.
CREATE FUNCTION try(stmt text, OUT code text, OUT message text, OUT detail text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt;
  code := '00000';
  message := 'accepted';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE,
                          message = MESSAGE_TEXT,
                          detail = PG_EXCEPTION_DETAIL;
END $$;

-- n deterministic pseudo-random bytes, from the md5 of a label
CREATE FUNCTION prand(label text, n integer) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT substring(string_agg(decode(md5(label || ':' || i), 'hex'), ''::bytea ORDER BY i)
                   FROM 1 FOR n)
    FROM generate_series(0, n / 16) i
$$;

-- The rule every filter obeys: at least 2 bytes, final byte (k) 1..30.
CREATE FUNCTION filter_rule_ok(b bytea) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT length(b) >= 2 AND get_byte(b, length(b) - 1) BETWEEN 1 AND 30
$$;

-- A bloom_agg_state in its binary form: header, then the hashes.
CREATE FUNCTION state_bytes(version int, flags int, bpk int, nhashes bigint, hashes bytea)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT set_byte(set_byte('\x00000000'::bytea, 0, version), 1, flags)
      || decode(lpad(to_hex(bpk), 8, '0'), 'hex')            -- big-endian ...
      || decode(lpad(to_hex(nhashes), 16, '0'), 'hex')
      || hashes
$$;
-- ... so reverse the integer fields into little-endian
CREATE FUNCTION le_state(version int, flags int, bpk int, nhashes bigint, hashes bytea)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT substring(b FROM 1 FOR 4)
      || (SELECT string_agg(substring(b FROM 5 + 3 - i FOR 1), ''::bytea ORDER BY i)
            FROM generate_series(0, 3) i)
      || (SELECT string_agg(substring(b FROM 9 + 7 - i FOR 1), ''::bytea ORDER BY i)
            FROM generate_series(0, 7) i)
      || substring(b FROM 17)
    FROM state_bytes(version, flags, bpk, nhashes, hashes) b
$$;
-- Version 2: version, flags, 2 reserved bytes, bits_per_key, the key count,
-- the distinct-hash count, then the gap code.
CREATE FUNCTION le_state2(flags int, bpk int, nkeys bigint, ndistinct bigint, code bytea)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT le_state(2, flags, bpk, nkeys, '')
      || substring(le_state(0, 0, 0, ndistinct, '') FROM 9 FOR 8)
      || code
$$;
-- sanity: the state of the one key 'abc' at 10 bits per key, as
-- bloom_agg_state.sql shows bloom_agg_transfn writes it
SELECT encode(le_state2(0, 10, 1, 1, '\xbe04741500'), 'base64') = 'AgAAAAoAAAABAAAAAAAAAAEAAAAAAAAAvgR0FQA=' AS layout2_ok;
-- sanity: the empty state at 10 bits per key, as bloom_agg_state.sql writes it
SELECT encode(le_state(1, 0, 10, 0, ''), 'base64') = 'AQAAAAoAAAAAAAAAAAAAAA==' AS layout_ok;
SELECT encode(le_state(1, 0, 10, 2, '\x0102030405060708'), 'hex') AS two_hashes;

------------------------------------------------------------------------
-- 1. bloomfilter text input (22P02)
------------------------------------------------------------------------

\set VERBOSITY default
-- as a client sees it: message, detail, hint
SELECT '\x000820208080000206'::bloomfilter AS valid;
SELECT '\x00082020808000020'::bloomfilter;      -- truncated: odd digit count
SELECT '\x0008202080800000'::bloomfilter;       -- truncated before k: k = 0
SELECT '\x000820208080000220'::bloomfilter;     -- wrong k: 32
\set VERBOSITY sqlstate
SELECT '\x0001zz'::bloomfilter;
\set VERBOSITY default

SELECT label, r.*
  FROM (VALUES
    ('empty',                 ''),
    ('backslash only',        '\'),
    ('prefix only',           '\x'),
    ('one digit',             '\x0'),
    ('one byte',              '\x06'),
    ('k = 0',                 '\x000820208080000200'),
    ('k = 31',                '\x00082020808000021f'),
    ('k = 128 (signed -128)', '\x000820208080000280'),
    ('k = 255',               '\x0008202080800002ff'),
    ('odd digits',            '\x0008202080800002060'),
    ('non-hex digit',         '\x00082020808g000206'),
    ('upper-case X prefix',   '\X000820208080000206'),
    ('no prefix',             '000820208080000206'),
    ('0x prefix',             '0x000820208080000206'),
    ('double backslash',      '\\x000820208080000206'),
    ('inner space',           '\x0008 20208080000206'),
    ('leading space',         ' \x000820208080000206'),
    ('trailing space',        '\x000820208080000206 '),
    ('trailing newline',      E'\\x000820208080000206\n'),
    ('bytea escape form',     '\000\010'),
    ('random text',           md5('random text')),
    ('random bytes, bad k',   '\x' || encode(prand('t1', 40) || '\xc8'::bytea, 'hex')),
    ('random bytes, k = 7',   '\x' || encode(prand('t2', 40) || '\x07'::bytea, 'hex'))
  ) AS cases(label, input),
  LATERAL try(format('SELECT %L::bloomfilter', input)) r;

-- Oversized: a 2 MB text, valid, then with one bad character at its very end.
SELECT octet_length(f::text) AS two_mb_filter_text
  FROM (SELECT ('\x' || repeat('ab', 1048576) || '1e')::bloomfilter AS f) x;
SELECT label, r.*
  FROM (VALUES
    ('2 MB, odd digit count',    '\x' || repeat('ab', 1048576) || '1'),
    ('2 MB, bad last character', '\x' || repeat('ab', 1048576) || '1x'),
    ('2 MB, k = 0',              '\x' || repeat('ab', 1048576) || '00'),
    ('2 MB, k = 200',            '\x' || repeat('ab', 1048576) || 'c8')
  ) AS cases(label, input),
  LATERAL try(format('SELECT %L::bloomfilter', input)) r;

-- Other text paths: arrays and rows of bloomfilter use the same input.
CREATE TYPE filter_row AS (f bloomfilter);
SELECT label, r.*
  FROM (VALUES
    ('array, second bad',  '{"\\x0001","\\x00"}', 'bloomfilter[]'),
    ('array, odd hex',     '{"\\x000"}',          'bloomfilter[]'),
    ('array, valid',       '{"\\x0001",NULL}',     'bloomfilter[]'),
    ('row, k = 0',         '("\\x0000")',         'filter_row'),
    ('row, valid',         '("\\x0001")',         'filter_row')
  ) AS cases(label, input, typ),
  LATERAL try(format('SELECT %L::%s', input, typ)) r;

-- Deterministic random filters: 300 byte strings of 0..39 bytes (their
-- final byte spread over 0..255), as text.  Accepted exactly when the rule
-- holds; every refusal is 22P02.
CREATE TABLE random_filters AS
  SELECT i, prand('f' || i, i % 40) AS b FROM generate_series(1, 300) i;
SELECT r.code, filter_rule_ok(b) AS rule_ok, count(*)
  FROM random_filters,
       LATERAL try(format('SELECT %L::bloomfilter', '\x' || encode(b, 'hex'))) r
 GROUP BY 1, 2 ORDER BY 1, 2;
-- and cut to an odd digit count: always refused
SELECT r.code, count(*)
  FROM random_filters,
       LATERAL try(format('SELECT %L::bloomfilter', '\x' || encode(b, 'hex') || 'f')) r
 GROUP BY 1 ORDER BY 1;

------------------------------------------------------------------------
-- 2. bytea -> bloomfilter cast (validated as binary input: 22P03)
------------------------------------------------------------------------

SELECT label, r.*
  FROM (VALUES
    ('empty',               '\x'),
    ('one byte',            '\x06'),
    ('truncated before k',  '\x0008202080800000'),
    ('k = 0',               '\x0000'),
    ('k = 31',              '\x001f'),
    ('k = 255',             '\x00ff'),
    ('random, bad k',       encode(prand('c1', 20) || '\xf0'::bytea, 'hex')),
    ('valid',               '\x000820208080000206')
  ) AS cases(label, input),
  LATERAL try(format('SELECT %L::bytea::bloomfilter', input)) r;
-- the same rule as text input, on the random filters
SELECT r.code, filter_rule_ok(b) AS rule_ok, count(*)
  FROM random_filters, LATERAL try(format('SELECT %L::bytea::bloomfilter', b)) r
 GROUP BY 1, 2 ORDER BY 1, 2;

------------------------------------------------------------------------
-- 3. bloomfilter binary input (binary COPY: 22P03)
------------------------------------------------------------------------

-- Raw bytes go out through a binary COPY of a bytea column and come back
-- into a bloomfilter column: the server then reads them with
-- bloomfilter_recv.
CREATE TABLE raw_in (id int PRIMARY KEY, b bytea);
CREATE TABLE filter_in (f bloomfilter);
-- copy_cases(target, ids, terse): the psql commands that take each row of
-- raw_in named in ids, in that order, alone through a binary COPY into the
-- table target.  Written to a file and run with \i: a COPY stops at the
-- first bad row, so every case has a COPY of its own.  Errors are shown in
-- full, but for the ids in terse (messages not ours): their SQLSTATE only.
CREATE FUNCTION copy_cases(target text, ids int[], terse int[]) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(format(E'\\set VERBOSITY %s\n'
                           '\\copy (SELECT b FROM raw_in WHERE id = %s) TO ''results/bad_input_raw.bin'' (FORMAT binary)\n'
                           '\\copy %s FROM ''results/bad_input_raw.bin'' (FORMAT binary)',
                           CASE WHEN id = ANY (terse) THEN 'sqlstate' ELSE 'default' END, id, target),
                    E'\n' ORDER BY n)
    FROM unnest(ids) WITH ORDINALITY AS u(id, n)
$$;
INSERT INTO raw_in VALUES
  (1, ''),                                    -- empty
  (2, '\x06'),                                -- one byte
  (3, '\x0008202080800000'),                  -- truncated before k: k = 0
  (4, '\x00082020808000021f'),                -- k = 31
  (5, '\x0008202080800002ff'),                -- k = 255
  (6, prand('b1', 64) || '\x80'::bytea),      -- random, k = 128
  (7, '\x000820208080000206');                -- valid
-- the valid one (7) is read, and the others left nothing behind
SELECT copy_cases('filter_in', '{1,2,3,4,5,6,7}', '{4,5,6}')
\g (format=unaligned tuples_only=on) results/bad_input_copies.sql
\i results/bad_input_copies.sql
SELECT f FROM filter_in;
-- one bad row among good ones refuses the whole COPY
TRUNCATE raw_in;
INSERT INTO raw_in SELECT i, b FROM random_filters WHERE filter_rule_ok(b) AND i <= 100;
INSERT INTO raw_in VALUES (1000, prand('b2', 30) || '\x00'::bytea);
\copy (SELECT b FROM raw_in ORDER BY id) TO 'results/bad_input_raw.bin' (FORMAT binary)
\set VERBOSITY sqlstate
\copy filter_in FROM 'results/bad_input_raw.bin' (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_after_failed_copy FROM filter_in;

------------------------------------------------------------------------
-- 4. bloom_agg_state text input (base64 of the binary form: 22P02)
------------------------------------------------------------------------

SELECT label, r.*
  FROM (VALUES
    ('empty',                 ''),
    ('not base64',            'not base64!'),
    ('base64 cut mid-group',  'AQAAAAoAAAAAAAAAAAAAAA='),
    ('base64 cut to 3 chars', 'AQA'),
    ('header cut short',      encode(substring(le_state(1, 0, 10, 0, '') FROM 1 FOR 15), 'base64')),
    ('version 0',             encode(le_state(0, 0, 10, 0, ''), 'base64')),
    ('version 3',             encode(le_state(3, 0, 10, 0, ''), 'base64')),
    ('worker reference mark', encode('\x80'::bytea || prand('r1', 47), 'base64')),
    ('leader reference mark', encode('\x81'::bytea || prand('r2', 47), 'base64')),
    ('v2 header cut short',   encode(substring(le_state2(0, 10, 0, 0, '') FROM 1 FOR 23), 'base64')),
    ('v2 flag set',           encode(le_state2(1, 10, 1, 1, '\xbe04741500'), 'base64')),
    ('v2 bits_per_key -1',    encode(le_state2(0, -1, 1, 1, '\xbe04741500'), 'base64')),
    ('v2 empty with a byte',  encode(le_state2(0, 10, 0, 0, '\x00'), 'base64')),
    ('v2 keys, no hashes',    encode(le_state2(0, 10, 1, 0, ''), 'base64')),
    ('v2 hashes, no keys',    encode(le_state2(0, 10, 0, 1, '\xbe04741500'), 'base64')),
    ('v2 hashes > keys',      encode(le_state2(0, 10, 1, 2, '\xbe04741500'), 'base64')),
    ('v2 hashes 2^32 + 1',    encode(le_state2(0, 10, 8589934592, 4294967297, '\x00'), 'base64')),
    ('v2 hashes -1 (2^64-1)', encode(le_state2(0, 10, -1, -1, '\x00'), 'base64')),
    ('v2 more than its code', encode(le_state2(0, 10, 1000, 1000, '\xbe04741500'), 'base64')),
    ('v2 code cut short',     encode(le_state2(0, 10, 1, 1, '\xbe047415'), 'base64')),
    ('v2 trailing byte',      encode(le_state2(0, 10, 1, 1, '\xbe0474150000'), 'base64')),
    ('v2 padding bit set',    encode(le_state2(0, 10, 1, 1, '\xbe04741580'), 'base64')),
    ('v2 hash past 2^32 - 1', encode(le_state2(0, 10, 1, 1, '\x0400000000'), 'base64')),
    ('v2 valid, empty',       encode(le_state2(0, 10, 0, 0, ''), 'base64')),
    ('v2 valid, 5 keys of 1', encode(le_state2(0, 10, 5, 1, '\xbe04741500'), 'base64')),
    ('a flag set',            encode(le_state(1, 1, 10, 0, ''), 'base64')),
    ('reserved byte set',     encode(set_byte(le_state(1, 0, 10, 0, ''), 3, 1), 'base64')),
    ('bits_per_key -1',       encode(le_state(1, 0, -1, 0, ''), 'base64')),
    ('bits_per_key min int',  encode(le_state(1, 0, -2147483648, 0, ''), 'base64')),
    ('hashes cut short',      encode(le_state(1, 0, 10, 2, '\x01020304050607'), 'base64')),
    ('a hash too many',       encode(le_state(1, 0, 10, 1, '\x0102030405060708'), 'base64')),
    ('trailing byte',         encode(le_state(1, 0, 10, 1, '\x0102030405'), 'base64')),
    ('count 2^62',            encode(le_state(1, 0, 10, 4611686018427387904, '\x01020304'), 'base64')),
    ('count 2^63 - 1',        encode(le_state(1, 0, 10, 9223372036854775807, ''), 'base64')),
    ('count -1 (2^64 - 1)',   encode(le_state(1, 0, 10, -1, ''), 'base64')),
    ('random bytes',          encode(prand('s1', 48), 'base64')),
    ('valid, 2 hashes',       encode(le_state(1, 0, 10, 2, '\x0102030405060708'), 'base64'))
  ) AS cases(label, input),
  LATERAL try(format('SELECT %L::bloom_agg_state', input)) r;

-- Deterministic random states: a valid header claiming 0..7 hashes, then
-- 2 bytes too few up to 3 bytes too many.  Accepted exactly when the
-- length matches the count.
CREATE TABLE random_states AS
  SELECT i, n, pad,
         substring(le_state(1, 0, i % 50, n, prand('h' || i, 4 * n + 5)) FROM 1 FOR 16 + 4 * n + pad - 2) AS b
    FROM (SELECT i, i % 8 AS n, i % 6 AS pad FROM generate_series(1, 240) i) x;
SELECT r.code, length(b) = 16 + 4 * n AS length_ok, count(*)
  FROM random_states,
       LATERAL try(format('SELECT %L::bloom_agg_state', encode(b, 'base64'))) r
 GROUP BY 1, 2 ORDER BY 1, 2;

------------------------------------------------------------------------
-- 5. bloom_agg_state binary input (binary COPY: 22P03)
------------------------------------------------------------------------

CREATE TABLE state_in (s bloom_agg_state);
TRUNCATE raw_in;
INSERT INTO raw_in VALUES
  (1, ''),                                                   -- empty
  (2, substring(le_state(1, 0, 10, 0, '') FROM 1 FOR 12)),    -- header cut short
  (3, le_state(2, 0, 10, 0, '')),                             -- version 2 cut short
  (4, le_state(1, 0, -5, 0, '')),                             -- negative bits_per_key
  (5, le_state(1, 0, 10, 3, '\x0102030405060708')),           -- hashes cut short
  (6, le_state(1, 0, 10, 1, '\x010203040506')),               -- trailing bytes
  (7, le_state(1, 0, 10, 4611686018427387904, '')),           -- forged count
  (8, prand('s2', 40)),                                       -- random
  (9, le_state(1, 0, 10, 2, '\x0102030405060708')),          -- valid
  (10, le_state2(0, 10, 1000, 1000, '\xbe04741500')),         -- v2 more than its code
  (11, le_state2(0, 10, 1, 1, '\xbe04741580')),               -- v2 padding bit set
  (12, le_state2(0, 10, 3, 1, '\xbe04741500'));               -- v2 valid
SELECT copy_cases('state_in', '{1,5,2,3,4,6,7,8,10,11,12,9}', '{2,3,4,6,7,8,10}')
\g (format=unaligned tuples_only=on) results/bad_input_copies.sql
\i results/bad_input_copies.sql
SELECT s, bloom_agg_finalfn(s) FROM state_in ORDER BY s::text;
-- 3 keys whose one distinct hash is that of 'abc': the filter of 'abc' 3 times
SELECT (SELECT bloom_agg('abc', 10) FROM generate_series(1, 3)) = bloom_agg_finalfn(s) AS v2_abc_3_times
  FROM state_in WHERE s::text LIKE 'Ag%';

------------------------------------------------------------------------
-- 6. Function arguments
------------------------------------------------------------------------

-- bloom_agg: bits_per_key negative (22023), NULL (22004), changing within
-- a group (22023), or so large that the filter would pass 1 GB (54000).
SELECT label, r.*
  FROM (VALUES
    ('bits_per_key -1',          'SELECT bloom_agg(x::text, -1) FROM generate_series(1, 3) x'),
    ('bits_per_key min int',     'SELECT bloom_agg(x::text, -2147483648) FROM generate_series(1, 3) x'),
    ('bits_per_key NULL',        'SELECT bloom_agg(x::text, NULL) FROM generate_series(1, 3) x'),
    ('bits_per_key NULL, bytea', 'SELECT bloom_agg(x::text::bytea, NULL) FROM generate_series(1, 3) x'),
    ('bits_per_key changes',     'SELECT bloom_agg(x::text, 10 + x / 3) FROM generate_series(1, 3) x'),
    ('bits_per_key max int',     'SELECT bloom_agg(x::text, 2147483647) FROM generate_series(1, 5) x'),
    ('bits_per_key huge, group', 'SELECT bloom_agg(x::text, 2147483647) FROM generate_series(1, 10) x GROUP BY x % 2'),
    ('bits_per_key -1, window',  'SELECT bloom_agg(x::text, -1) OVER (ORDER BY x) FROM generate_series(1, 3) x')
  ) AS cases(label, stmt),
  LATERAL try(stmt) r;

-- The aggregate support functions, called directly.
SELECT label, r.*
  FROM (VALUES
    ('transfn outside an aggregate',   $$SELECT bloom_agg_transfn(NULL, 'a'::text, 10)$$),
    ('transfn, bytea key',             $$SELECT bloom_agg_transfn(NULL, '\x01'::bytea, 10)$$),
    ('transfn, negative bpk',          $$SELECT bloom_agg_transfn(NULL, 'a'::text, -1)$$),
    ('transfn, NULL bpk',              $$SELECT bloom_agg_transfn(NULL, 'a'::text, NULL)$$),
    ('transfn, state given',           format($$SELECT bloom_agg_transfn(%L::bloom_agg_state, 'a'::text, 10)$$,
                                              encode(le_state(1, 0, 10, 0, ''), 'base64'))),
    ('combinefn outside an aggregate', format($$SELECT bloom_agg_combinefn(NULL, %L::bloom_agg_state)$$,
                                              encode(le_state(1, 0, 10, 0, ''), 'base64'))),
    ('combinefn, two states',          format($$SELECT bloom_agg_combinefn(%1$L::bloom_agg_state, %1$L::bloom_agg_state)$$,
                                              encode(le_state(1, 0, 10, 0, ''), 'base64'))),
    ('finalfn, filter over 1 GB',      format($$SELECT bloom_agg_finalfn(%L::bloom_agg_state)$$,
                                              encode(le_state(1, 0, 2147483647, 5, prand('x', 20)), 'base64'))),
    ('finalfn, corrupt state text',    $$SELECT bloom_agg_finalfn('AQAAAA=='::bloom_agg_state)$$)
  ) AS cases(label, stmt),
  LATERAL try(stmt) r;
-- NULL key or NULL state: outside an aggregate the same error (0A000)
SELECT label, r.*
  FROM (VALUES
    ('transfn, NULL key and state',    $$SELECT bloom_agg_transfn(NULL, NULL::text, 10)$$),
    ('combinefn, NULL states',         $$SELECT bloom_agg_combinefn(NULL, NULL)$$)
  ) AS cases(label, stmt),
  LATERAL try(stmt) r;
-- inside one: no error, nothing added
SELECT bloom_agg_merge(s) IS NULL AS null_states
  FROM (VALUES (NULL::bloom_agg_state), (NULL)) v(s);

-- Partial states of different bits_per_key do not combine (22023).
CREATE AGGREGATE bad_input_combine(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_finalfn);
SELECT * FROM try(format($$SELECT bad_input_combine(s) FROM (VALUES (%L::bloom_agg_state), (%L::bloom_agg_state)) v(s)$$,
                        encode(le_state(1, 0, 10, 1, '\x01020304'), 'base64'),
                        encode(le_state(1, 0, 11, 1, '\x01020304'), 'base64')));

-- The probe operators: a bad filter literal is refused by its input
-- (22P02); a NULL on either side gives NULL.
SELECT label, r.*
  FROM (VALUES
    ('text <~ k = 0',        $$SELECT 'a'::text <~ '\x0000'::bloomfilter$$),
    ('bytea <~ odd hex',     $$SELECT '\x01'::bytea <~ '\x000'::bloomfilter$$),
    ('~> empty',             $$SELECT ''::bloomfilter ~> 'a'::text$$),
    ('~> bytea, one byte',   $$SELECT '\x06'::bloomfilter ~> '\x01'::bytea$$),
    ('bloom_may_contain k = 99', $$SELECT bloom_may_contain('a'::text, '\x0063'::bloomfilter)$$)
  ) AS cases(label, stmt),
  LATERAL try(stmt) r;
SELECT 'a'::text <~ NULL::bloomfilter AS null_filter,
       NULL::text <~ '\x000820208080000206'::bloomfilter AS null_key;

-- Functions on filters: a bad filter is refused by its input (22P02 text,
-- 22P03 bytea); filters of different geometries do not combine, and
-- parameters out of range are refused (22023).  Only the SQLSTATE is shown.
SELECT label, r.code
  FROM (VALUES
    ('bloom_add, k = 0',               $$SELECT bloom_add('\x0000'::bloomfilter, 'a'::text)$$),
    ('bloom_add, bytea cast, 1 byte',  $$SELECT bloom_add('\x06'::bytea::bloomfilter, '\x01'::bytea)$$),
    ('bloom_union, bad literal',       $$SELECT bloom_union('\x0001'::bloomfilter, '\x00'::bloomfilter)$$),
    ('bloom_union, sizes differ',      $$SELECT bloom_union('\x0001'::bloomfilter, '\x000001'::bloomfilter)$$),
    ('bloom_union, k differs',         $$SELECT bloom_union('\x0001'::bloomfilter, '\x0002'::bloomfilter)$$),
    ('|, sizes differ',                $$SELECT '\x0001'::bloomfilter | '\x000001'::bloomfilter$$),
    ('bloom_intersect, k differs',     $$SELECT bloom_intersect('\x0001'::bloomfilter, '\x0002'::bloomfilter)$$),
    ('&, sizes differ',                $$SELECT '\x000001'::bloomfilter & '\x0001'::bloomfilter$$),
    ('bloom_union_agg, mixed',         $$SELECT bloom_union_agg(f) FROM (VALUES ('\x0001'::bloomfilter), (NULL), ('\x000001')) v(f)$$),
    ('bloom_union_agg_transfn, mixed', $$SELECT bloom_union_agg_transfn('\x0001'::bloomfilter, '\x0002'::bloomfilter)$$),
    ('bloom_info, odd hex',            $$SELECT bloom_info('\x000'::bloomfilter)$$),
    ('bloom_cardinality, k = 31',      $$SELECT bloom_cardinality('\x001f'::bloomfilter)$$),
    ('=, empty',                       $$SELECT '\x0001'::bloomfilter = ''::bloomfilter$$),
    ('bloomfilter_hash, k = 0',        $$SELECT bloomfilter_hash('\x0000'::bloomfilter)$$),
    ('bloom_expected_fpr(-1)',         $$SELECT bloom_expected_fpr(-1)$$),
    ('bloom_expected_fpr(min int)',    $$SELECT bloom_expected_fpr(-2147483648)$$),
    ('bloom_bits_per_key(0)',          $$SELECT bloom_bits_per_key(0)$$),
    ('bloom_bits_per_key(1)',          $$SELECT bloom_bits_per_key(1)$$),
    ('bloom_bits_per_key(-0.5)',       $$SELECT bloom_bits_per_key(-0.5)$$),
    ('bloom_bits_per_key(NaN)',        $$SELECT bloom_bits_per_key('NaN')$$),
    ('bloom_bits_per_key(Infinity)',   $$SELECT bloom_bits_per_key('Infinity')$$),
    ('bloom_bits_per_key(-Infinity)',  $$SELECT bloom_bits_per_key('-Infinity')$$),
    ('bloom_bits_per_key(1e-300)',     $$SELECT bloom_bits_per_key(1e-300)$$)
  ) AS cases(label, stmt),
  LATERAL try(stmt) r;
-- NULL arguments give NULL (the functions are strict)
SELECT bloom_add(NULL, 'a'::text) IS NULL AS add_null_filter,
       bloom_add('\x0001', NULL::text) IS NULL AS add_null_key,
       bloom_union('\x0001', NULL) IS NULL AS union_null,
       bloom_bits_per_key(NULL) IS NULL AS bpk_null;

------------------------------------------------------------------------
-- 7. The server still answers
------------------------------------------------------------------------

SELECT 1 AS still_answering;

DROP AGGREGATE bad_input_combine(bloom_agg_state);
DROP TABLE raw_in, filter_in, state_in, random_filters, random_states;
DROP TYPE filter_row;
DROP FUNCTION try(text), prand(text, integer), filter_rule_ok(bytea),
              le_state2(integer, integer, bigint, bigint, bytea),
              state_bytes(int, int, int, bigint, bytea), le_state(int, int, int, bigint, bytea),
              copy_cases(text, int[], int[]);
