-- bloom_hostile: a role with no privileges beyond the defaults (a
-- temporary schema of its own) calls every support function of the
-- extension's aggregates through plain and moving aggregates of its own,
-- whose inverse functions hand over stored values in every form a varlena
-- takes: a short header (a small value read from a table), compressed
-- (STORAGE MAIN), out of line (STORAGE EXTERNAL), and forged bytes.  Each
-- call gives a result or a clean error, and the server stays up (a crash
-- shows as "server closed the connection").  Then, as superuser, an
-- operator of other types naming the extension's estimator.

CREATE ROLE regress_bloom_hostile;
SET ROLE regress_bloom_hostile;

------------------------------------------------------------------------
-- 1. The crash of issue 41, exactly as reported: an inverse function hands
-- bloom_agg_fixed_transfn a 19-byte filter read from a table (a short
-- header) whose bytes, read as a 4-byte header, claim the size of the
-- filter the aggregate reserved.
------------------------------------------------------------------------

CREATE TEMP TABLE evil(f bloomfilter);
INSERT INTO evil VALUES ('\x00003800000000000000000000000000000005');
CREATE FUNCTION pg_temp.inv(bloomfilter,int,int,bigint) RETURNS bloomfilter LANGUAGE sql AS $$SELECT f FROM pg_temp.evil LIMIT 1$$;
CREATE AGGREGATE pg_temp.mov(int,int,bigint)(SFUNC=bloom_agg_fixed_transfn,STYPE=bloomfilter,
  MSFUNC=bloom_agg_fixed_transfn,MINVFUNC=pg_temp.inv,MSTYPE=bloomfilter);
SELECT pg_temp.mov(i,8,234881029) OVER (ORDER BY i ROWS 1 PRECEDING) FROM generate_series(1,4) i;
SELECT 1 AS still_up;

-- try(stmt): the first column of stmt's first row as text, or its error
CREATE FUNCTION pg_temp.try(stmt text, OUT code text, OUT result text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt INTO result;
  code := '00000';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, result = MESSAGE_TEXT;
END $$;

------------------------------------------------------------------------
-- 2. Filters in every form.  The filters of 10 keys at 8 bits a key have
-- 11 bytes; those of 20,000 keys 20,001.
------------------------------------------------------------------------

-- a short header: a small value, read from a table
CREATE TEMP TABLE f_short(f bloomfilter);
INSERT INTO f_short VALUES (bloom_add(bloom_empty(10, 8), 1001));
-- compressed, inline: many zero bytes, STORAGE MAIN
CREATE TEMP TABLE f_main(f bloomfilter);
ALTER TABLE f_main ALTER COLUMN f SET STORAGE MAIN;
INSERT INTO f_main VALUES (bloom_add(bloom_empty(20000, 8), 1001));
-- out of line and not compressed: STORAGE EXTERNAL (bloomfilter's own)
CREATE TEMP TABLE f_ext(f bloomfilter);
ALTER TABLE f_ext ALTER COLUMN f SET STORAGE EXTERNAL;
INSERT INTO f_ext SELECT bloom_add(bloom_agg(k, 8, 20000), 1001) FROM generate_series(1, 20000) k;
-- (how much compression saves depends on the major's default method)
SELECT form, bytes, CASE WHEN stored = bytes + 1 THEN 'short header'
                         WHEN stored < bytes / 4 THEN 'compressed'
                         WHEN stored = bytes THEN 'uncompressed'
                         ELSE stored::text END AS stored
  FROM (SELECT 'short' AS form, pg_column_size(f) AS stored, octet_length(f::bytea) AS bytes FROM f_short
        UNION ALL SELECT 'main', pg_column_size(f), octet_length(f::bytea) FROM f_main
        UNION ALL SELECT 'external', pg_column_size(f), octet_length(f::bytea) FROM f_ext) t;

-- the form an inverse function hands over: pg_temp.cur, replaced per case
CREATE TEMP VIEW cur AS SELECT f FROM f_short;
CREATE FUNCTION pg_temp.inv_fixed(bloomfilter, int, int, bigint) RETURNS bloomfilter
  LANGUAGE sql AS $$SELECT f FROM pg_temp.cur$$;
CREATE FUNCTION pg_temp.inv_union(bloomfilter, bloomfilter) RETURNS bloomfilter
  LANGUAGE sql STRICT AS $$SELECT f FROM pg_temp.cur$$;
CREATE AGGREGATE pg_temp.fixed(int, int, bigint) (
  SFUNC = bloom_agg_fixed_transfn, STYPE = bloomfilter,
  MSFUNC = bloom_agg_fixed_transfn, MINVFUNC = pg_temp.inv_fixed, MSTYPE = bloomfilter);
CREATE AGGREGATE pg_temp.uni(bloomfilter) (
  SFUNC = bloom_union_agg_transfn, STYPE = bloomfilter,
  MSFUNC = bloom_union_agg_transfn, MINVFUNC = pg_temp.inv_union, MSTYPE = bloomfilter);

-- Each window's filter: the stored one (with key 1001) or the keys of the
-- frame, then the frame's new keys.  Every row's key and 1001 must match.
CREATE FUNCTION pg_temp.fixed_case(nkeys bigint) RETURNS text LANGUAGE sql AS $$
  SELECT count(*) || ' rows, own key ' || bool_and(i <~ w) || ', 1001 ' || bool_and(i < 3 OR 1001 <~ w)
    FROM (SELECT i, pg_temp.fixed(i, 8, nkeys) OVER (ORDER BY i ROWS 1 PRECEDING) AS w
            FROM generate_series(1, 6) i) s
$$;
CREATE FUNCTION pg_temp.union_case() RETURNS text LANGUAGE sql AS $$
  SELECT count(*) || ' rows, 1001 ' || bool_and(1001 <~ w) || ', same geometry ' ||
         bool_and(octet_length(w::bytea) = (SELECT octet_length(f::bytea) FROM pg_temp.cur))
    FROM (SELECT pg_temp.uni(f) OVER (ORDER BY i ROWS 1 PRECEDING) AS w
            FROM pg_temp.cur, generate_series(1, 6) i) s
$$;

SELECT 'short' AS form, r.* FROM pg_temp.try('SELECT pg_temp.fixed_case(10)') r
UNION ALL SELECT 'short, other geometry', r.* FROM pg_temp.try('SELECT pg_temp.fixed_case(20000)') r
UNION ALL SELECT 'short, union', r.* FROM pg_temp.try('SELECT pg_temp.union_case()') r;
CREATE OR REPLACE TEMP VIEW cur AS SELECT f FROM f_main;
SELECT 'main' AS form, r.* FROM pg_temp.try('SELECT pg_temp.fixed_case(20000)') r
UNION ALL SELECT 'main, other geometry', r.* FROM pg_temp.try('SELECT pg_temp.fixed_case(10)') r
UNION ALL SELECT 'main, union', r.* FROM pg_temp.try('SELECT pg_temp.union_case()') r;
CREATE OR REPLACE TEMP VIEW cur AS SELECT f FROM f_ext;
SELECT 'external' AS form, r.* FROM pg_temp.try('SELECT pg_temp.fixed_case(20000)') r
UNION ALL SELECT 'external, other geometry', r.* FROM pg_temp.try('SELECT pg_temp.fixed_case(10)') r
UNION ALL SELECT 'external, union', r.* FROM pg_temp.try('SELECT pg_temp.union_case()') r;

-- The plain aggregates over stored values: the first becomes the state as
-- it is stored.
SELECT 'short' AS form, bloom_union_agg(f) = (SELECT f FROM f_short) AS same FROM f_short, generate_series(1, 3)
UNION ALL SELECT 'main', bloom_union_agg(f) = (SELECT f FROM f_main) FROM f_main, generate_series(1, 3)
UNION ALL SELECT 'external', bloom_union_agg(f) = (SELECT f FROM f_ext) FROM f_ext, generate_series(1, 3);
-- An initial value is a filter checked by its input (a forged one when the
-- aggregate is made), and of the geometry.
CREATE AGGREGATE pg_temp.fixed_init(int, int, bigint) (
  SFUNC = bloom_agg_fixed_transfn, STYPE = bloomfilter, INITCOND = '\x000000000000000005');
CREATE AGGREGATE pg_temp.fixed_forged(int, int, bigint) (
  SFUNC = bloom_agg_fixed_transfn, STYPE = bloomfilter, INITCOND = '\x0000000000000000ff');
SELECT label, r.*
  FROM (VALUES
    ('initial value', 'SELECT bool_and(k <~ f)::text FROM (SELECT pg_temp.fixed_init(k, 8, 2) OVER () AS f, k FROM generate_series(1, 5) k) s'),
    ('initial value, other geometry', 'SELECT pg_temp.fixed_init(k, 8, 100) FROM generate_series(1, 5) k'),
    ('forged filter, cast', $$SELECT '\x00ff'::bytea::bloomfilter$$),
    ('forged filter, text', $$SELECT '\x0000'::bloomfilter$$)
  ) AS cases(label, stmt),
  LATERAL pg_temp.try(stmt) r;

-- An ordered-set aggregate's final function gets its direct arguments: it
-- sets them in a copy, never in the state the three aggregates share
-- (READ_ONLY final functions), which stays empty.
CREATE FUNCTION pg_temp.keep(bloomfilter, int) RETURNS bloomfilter
  LANGUAGE sql AS $$SELECT coalesce($1, bloom_empty(10, 8))$$;
CREATE FUNCTION pg_temp.as_is(bloomfilter, int, int, bigint) RETURNS bloomfilter
  LANGUAGE sql AS $$SELECT $1$$;
CREATE AGGREGATE pg_temp.os_fixed(int, int, bigint ORDER BY int) (
  SFUNC = pg_temp.keep, STYPE = bloomfilter, FINALFUNC = bloom_agg_fixed_transfn,
  FINALFUNC_MODIFY = READ_ONLY);
CREATE AGGREGATE pg_temp.os_union(bloomfilter ORDER BY int) (
  SFUNC = pg_temp.keep, STYPE = bloomfilter, FINALFUNC = bloom_union_agg_transfn,
  FINALFUNC_MODIFY = READ_ONLY);
CREATE AGGREGATE pg_temp.os_plain(int, int, bigint ORDER BY int) (
  SFUNC = pg_temp.keep, STYPE = bloomfilter, FINALFUNC = pg_temp.as_is,
  FINALFUNC_MODIFY = READ_ONLY);
SELECT pg_temp.os_fixed(1, 8, 10) WITHIN GROUP (ORDER BY k) AS with_key,
       pg_temp.os_union(bloom_add(bloom_empty(10, 8), 2)) WITHIN GROUP (ORDER BY k) AS with_union,
       pg_temp.os_plain(1, 8, 10) WITHIN GROUP (ORDER BY k) AS state
  FROM generate_series(1, 3) k;

------------------------------------------------------------------------
-- 3. Every function taking a bloomfilter, on each form.
------------------------------------------------------------------------

CREATE FUNCTION pg_temp.all_functions(f bloomfilter) RETURNS text LANGUAGE sql AS $$
  SELECT concat_ws(' ', 1001 <~ f, f ~> 1001, '1001'::text <~ f, f ~> '\x01'::bytea,
                   bloom_add(f, 7) ~> 7, bloom_add(f, ARRAY[8, 9]) ~> 9, bloom_add(f, 'x'::text) ~> 'x'::text,
                   (f | f) = f, (f & f) = f, bloom_union(f, f) = f, bloom_intersect(f, f) = f,
                   (bloom_info(f)).k, bloom_cardinality(f) >= 1,
                   f = f, f <> f, f < f, f <= f, f > f, f >= f, bloomfilter_cmp(f, f),
                   bloomfilter_hash(f) = hashtext(''), bloomfilter_hash_extended(f, 1) = 0,
                   length(bloomfilter_send(f)), length(f::text), f::bytea::bloomfilter = f)
$$;
SELECT 'short' AS form, pg_temp.all_functions(f) FROM f_short
UNION ALL SELECT 'main', pg_temp.all_functions(f) FROM f_main
UNION ALL SELECT 'external', pg_temp.all_functions(f) FROM f_ext;

------------------------------------------------------------------------
-- 4. bloom_agg_state in every form, through bloom_agg_transfn,
-- bloom_agg_combinefn and bloom_agg_finalfn.  (The aggregates have no
-- serial or deserial functions: the state is a type with its own
-- input and output.)
------------------------------------------------------------------------

-- a short header: one key's state, through its text form (an aggregate's
-- state may reach the table as an expanded value, which PostgreSQL 17 and
-- later store with a 4-byte header)
CREATE TEMP TABLE s_short(s bloom_agg_state);
INSERT INTO s_short SELECT bloom_agg_partial(1001, 10)::text::bloom_agg_state;
-- compressed, inline: a version 1 state of 3,000 equal hashes
CREATE TEMP TABLE s_main(s bloom_agg_state);
ALTER TABLE s_main ALTER COLUMN s SET STORAGE MAIN;
INSERT INTO s_main SELECT translate(encode(decode('010000000a000000b80b000000000000' ||
                                                 repeat('01020304', 3000), 'hex'), 'base64'),
                                 E'\n', '')::bloom_agg_state;
-- out of line: 20,000 keys' state
CREATE TEMP TABLE s_ext(s bloom_agg_state);
ALTER TABLE s_ext ALTER COLUMN s SET STORAGE EXTERNAL;
INSERT INTO s_ext SELECT bloom_agg_partial(k, 10) FROM generate_series(1, 20000) k;
SELECT form, bytes, CASE WHEN stored = bytes + 1 THEN 'short header'
                         WHEN stored < bytes / 4 THEN 'compressed'
                         WHEN stored = bytes THEN 'uncompressed'
                         ELSE stored::text END AS stored
  FROM (SELECT 'short' AS form, pg_column_size(s) AS stored, length(bloom_agg_state_send(s)) AS bytes FROM s_short
        UNION ALL SELECT 'main', pg_column_size(s), length(bloom_agg_state_send(s)) FROM s_main
        UNION ALL SELECT 'external', pg_column_size(s), length(bloom_agg_state_send(s)) FROM s_ext) t;

CREATE TEMP VIEW scur AS SELECT s FROM s_short;
CREATE FUNCTION pg_temp.inv_state(bloom_agg_state, int, int) RETURNS bloom_agg_state
  LANGUAGE sql AS $$SELECT s FROM pg_temp.scur$$;
CREATE FUNCTION pg_temp.inv_merge(bloom_agg_state, bloom_agg_state) RETURNS bloom_agg_state
  LANGUAGE sql AS $$SELECT s FROM pg_temp.scur$$;
CREATE AGGREGATE pg_temp.moving(int, int) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_finalfn,
  MSFUNC = bloom_agg_transfn, MINVFUNC = pg_temp.inv_state, MSTYPE = bloom_agg_state,
  MFINALFUNC = bloom_agg_finalfn);
CREATE AGGREGATE pg_temp.moving_merge(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_finalfn,
  MSFUNC = bloom_agg_combinefn, MINVFUNC = pg_temp.inv_merge, MSTYPE = bloom_agg_state,
  MFINALFUNC = bloom_agg_finalfn);
CREATE FUNCTION pg_temp.state_case(bpk int) RETURNS text LANGUAGE sql AS $$
  SELECT count(*) || ' rows, own key ' || bool_and(i <~ w)
    FROM (SELECT i, pg_temp.moving(i, bpk) OVER (ORDER BY i ROWS 1 PRECEDING) AS w
            FROM generate_series(1, 6) i) s
$$;
CREATE FUNCTION pg_temp.merge_case() RETURNS text LANGUAGE sql AS $$
  SELECT count(*) || ' rows, ' || count(DISTINCT w) || ' filters'
    FROM (SELECT pg_temp.moving_merge(s) OVER (ORDER BY i ROWS 1 PRECEDING) AS w
            FROM pg_temp.scur, generate_series(1, 6) i) s
$$;
CREATE FUNCTION pg_temp.state_functions() RETURNS text LANGUAGE sql AS $$
  SELECT concat_ws(' ', bloom_agg_finalfn(s) IS NOT NULL, md5(bloom_agg_state_out(s)::text),
                   md5(bloom_agg_state_send(s)), bloom_agg_finalfn(s) = bloom_agg_merge(s) OVER ())
    FROM pg_temp.scur
$$;

SELECT 'short' AS form, r.* FROM pg_temp.try('SELECT pg_temp.state_case(10)') r
UNION ALL SELECT 'short, other bits_per_key', r.* FROM pg_temp.try('SELECT pg_temp.state_case(11)') r
UNION ALL SELECT 'short, merge', r.* FROM pg_temp.try('SELECT pg_temp.merge_case()') r
UNION ALL SELECT 'short, functions', r.* FROM pg_temp.try('SELECT pg_temp.state_functions()') r;
CREATE OR REPLACE TEMP VIEW scur AS SELECT s FROM s_main;
SELECT 'main' AS form, r.* FROM pg_temp.try('SELECT pg_temp.state_case(10)') r
UNION ALL SELECT 'main, other bits_per_key', r.* FROM pg_temp.try('SELECT pg_temp.state_case(11)') r
UNION ALL SELECT 'main, merge', r.* FROM pg_temp.try('SELECT pg_temp.merge_case()') r
UNION ALL SELECT 'main, functions', r.* FROM pg_temp.try('SELECT pg_temp.state_functions()') r;
CREATE OR REPLACE TEMP VIEW scur AS SELECT s FROM s_ext;
SELECT 'external' AS form, r.* FROM pg_temp.try('SELECT pg_temp.state_case(10)') r
UNION ALL SELECT 'external, other bits_per_key', r.* FROM pg_temp.try('SELECT pg_temp.state_case(11)') r
UNION ALL SELECT 'external, merge', r.* FROM pg_temp.try('SELECT pg_temp.merge_case()') r
UNION ALL SELECT 'external, functions', r.* FROM pg_temp.try('SELECT pg_temp.state_functions()') r;

-- Forged states: no input accepts them, an initial value's when the
-- aggregate is made, a parallel query's reference (first byte 0x80 or
-- 0x81, 44 bytes) included; the functions called outside an aggregate.
CREATE AGGREGATE pg_temp.forged_merge(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_finalfn,
  INITCOND = 'AQAAAA==');
SELECT label, r.*
  FROM (VALUES
    ('reference, text', format('SELECT %L::bloom_agg_state', encode(decode('80' || repeat('00', 43), 'hex'), 'base64'))),
    ('local reference, text', format('SELECT %L::bloom_agg_state', encode(decode('81' || repeat('00', 43), 'hex'), 'base64'))),
    ('transfn outside an aggregate', 'SELECT bloom_agg_transfn(NULL, NULL::int, 10)'),
    ('transfn, a state', 'SELECT bloom_agg_transfn(s, 1, 10) FROM s_short'),
    ('combinefn outside an aggregate', 'SELECT bloom_agg_combinefn(NULL, NULL)'),
    ('combinefn, states', 'SELECT bloom_agg_combinefn(s, s) FROM s_ext'),
    ('fixed outside an aggregate', 'SELECT bloom_agg_fixed_transfn(NULL, NULL::int, 8, 10)'),
    ('fixed, a filter', 'SELECT bloom_agg_fixed_transfn(f, 1, 8, 10) FROM f_short'),
    ('union transfn, as bloom_union', 'SELECT bloom_union_agg_transfn(f, f) = f FROM f_ext'),
    ('finalfn, a state', 'SELECT bloom_agg_finalfn(s) = bloom_agg_finalfn(s) FROM s_main')
  ) AS cases(label, stmt),
  LATERAL pg_temp.try(stmt) r;

SELECT 1 AS still_up;
RESET ROLE;

------------------------------------------------------------------------
-- 5. The estimator named by an operator of other types: a constant is a
-- filter only when its type is bloomfilter; otherwise the default
-- estimate, and a plan.
------------------------------------------------------------------------

CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq,
                     RESTRICT = bloom_may_contain_sel);
CREATE OPERATOR === (LEFTARG = text, RIGHTARG = text, FUNCTION = texteq,
                     RESTRICT = bloom_may_contain_sel);
CREATE TABLE hostile_sel(i int, t text);
INSERT INTO hostile_sel SELECT k, k::text FROM generate_series(1, 1000) k;
ANALYZE hostile_sel;
EXPLAIN (COSTS OFF) SELECT * FROM hostile_sel WHERE i === 5;
EXPLAIN (COSTS OFF) SELECT * FROM hostile_sel WHERE 5 === i;
EXPLAIN (COSTS OFF) SELECT * FROM hostile_sel WHERE t === '\x0000000000000005';
SELECT count(*) FROM hostile_sel WHERE i === 5;
-- a filter constant still counts
EXPLAIN (COSTS OFF) SELECT * FROM hostile_sel WHERE i <~ bloom_add(bloom_empty(10, 8), 5);
DROP TABLE hostile_sel;
DROP OPERATOR === (int, int);
DROP OPERATOR === (text, text);
DROP OWNED BY regress_bloom_hostile;
DROP ROLE regress_bloom_hostile;
SELECT 1 AS still_up;
