-- Parameter names (1.3): every function and aggregate a query calls has
-- the names of doc/reference.md, and the functions take them in named
-- notation.  Aggregates have them too, but PostgreSQL takes named
-- arguments only in an aggregate called as a window function.

-- what keeps unnamed parameters: the support functions of types,
-- operators, operator classes and aggregates, the cast, and the function
-- of ~> (named like <~'s, a named call would fit both)
SELECT DISTINCT p.proname
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
 WHERE p.proargnames IS NULL
 ORDER BY 1;
SELECT count(*) AS bloom_may_contain_filter_first_unnamed
  FROM pg_proc
 WHERE proname = 'bloom_may_contain' AND proargtypes[0] = 'bloomfilter'::regtype AND proargnames IS NULL;

-- every aggregate has its names
SELECT p.oid::regprocedure AS aggregate, pg_get_function_arguments(p.oid) AS arguments
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
 WHERE p.prokind = 'a'
 ORDER BY p.oid::regprocedure::text;

-- functions, in named notation, in any order, and mixed
SELECT bloom_add(filter => bloom_empty(expected_keys => 100, bits_per_key => 10), key => 'x')
       = bloom_add(bloom_empty(100, 10), 'x') AS add_text,
       bloom_add(key => 'x'::bytea, filter => bloom_empty(bits_per_key => 10, expected_keys => 100))
       = bloom_add(bloom_empty(100, 10), 'x'::bytea) AS add_bytea,
       bloom_add(bloom_empty(100, 10), key => 7::smallint) = bloom_add(bloom_empty(100, 10), 7) AS add_smallint,
       bloom_add(filter => bloom_empty(100, 10), key => 7) = bloom_add(bloom_empty(100, 10), 7::bigint) AS add_integer,
       bloom_add(filter => bloom_empty(100, 10), key => 7::bigint) = bloom_add(bloom_empty(100, 10), 7) AS add_bigint,
       bloom_add(filter => bloom_empty(100, 10), key => '00000000-0000-0000-0000-000000000007'::uuid)
       = bloom_add(bloom_empty(100, 10), '00000000-0000-0000-0000-000000000007'::uuid) AS add_uuid;
SELECT bloom_add(filter => bloom_empty(100, 10), keys => ARRAY['a', 'b'])
       = bloom_add(bloom_add(bloom_empty(100, 10), 'a'), 'b') AS add_text_array,
       bloom_add(filter => bloom_empty(100, 10), keys => ARRAY['a'::bytea]) = bloom_add(bloom_empty(100, 10), 'a'::bytea) AS add_bytea_array,
       bloom_add(filter => bloom_empty(100, 10), keys => ARRAY[1::smallint, 2::smallint])
       = bloom_add(keys => ARRAY[1, 2], filter => bloom_empty(100, 10)) AS add_smallint_integer_arrays,
       bloom_add(filter => bloom_empty(100, 10), keys => ARRAY[1::bigint]) = bloom_add(bloom_empty(100, 10), 1) AS add_bigint_array,
       bloom_add(filter => bloom_empty(100, 10), keys => ARRAY['00000000-0000-0000-0000-000000000001'::uuid])
       = bloom_add(bloom_empty(100, 10), '00000000-0000-0000-0000-000000000001'::uuid) AS add_uuid_array;
SELECT bloom_may_contain(key => 'x', filter => bloom_add(bloom_empty(100, 10), 'x')) AS text_key,
       bloom_may_contain(filter => bloom_add(bloom_empty(100, 10), 'x'::bytea), key => 'x'::bytea) AS bytea_key,
       bloom_may_contain(key => 7::smallint, filter => bloom_add(bloom_empty(100, 10), 7)) AS smallint_key,
       bloom_may_contain(key => 7, filter => bloom_add(bloom_empty(100, 10), 7)) AS integer_key,
       bloom_may_contain(key => 7::bigint, filter => bloom_add(bloom_empty(100, 10), 7)) AS bigint_key,
       bloom_may_contain(key => '00000000-0000-0000-0000-000000000007'::uuid,
                         filter => bloom_add(bloom_empty(100, 10), '00000000-0000-0000-0000-000000000007'::uuid)) AS uuid_key,
       bloom_may_contain(bloom_add(bloom_empty(100, 10), 7), 7) AS filter_first_by_position;
SELECT bloom_union(a => bloom_add(bloom_empty(100, 10), 'a'), b => bloom_add(bloom_empty(100, 10), 'b'))
       = bloom_add(bloom_add(bloom_empty(100, 10), 'a'), 'b') AS union_named,
       bloom_intersect(b => bloom_empty(100, 10), a => bloom_add(bloom_empty(100, 10), 'a'))
       = bloom_empty(100, 10) AS intersect_named;
SELECT k, bits_set, bloom_cardinality(filter => bloom_add(bloom_empty(100, 10), 'a')) > 0 AS cardinality_named
  FROM bloom_info(filter => bloom_add(bloom_empty(100, 10), 'a'));
SELECT bloom_expected_fpr(bits_per_key => 10) = bloom_expected_fpr(10) AS expected_fpr,
       bloom_expected_fpr(keys => 1000, bits_per_key => 10) = bloom_expected_fpr(10, 1000) AS expected_fpr_keys,
       bloom_bits_per_key(target_fpr => 0.01) AS bits_per_key,
       bloom_bits_per_key(keys => 50000, target_fpr => 0.001) AS bits_per_key_keys;
SELECT bloom_key(VARIADIC fields => ARRAY[3, 4]) = bloom_key(3, 4) AS key_named;

-- a key of another type named is the same error as by position
\set VERBOSITY sqlstate
SELECT bloom_add(filter => bloom_empty(100, 10), key => 1.5);
SELECT bloom_may_contain(key => 1.5, filter => bloom_empty(100, 10));
SELECT bloom_agg(key => x, bits_per_key => 10) OVER () FROM (VALUES (1.5)) t(x);
-- a plain aggregate call takes its arguments by position (PostgreSQL: 0A000)
SELECT bloom_agg(x, bits_per_key => 10) FROM (VALUES ('a')) t(x);
\set VERBOSITY default

-- aggregates called as window functions take named arguments
CREATE TABLE names_keys AS SELECT i, 'k' || i AS t FROM generate_series(1, 200) i;
SELECT DISTINCT bloom_agg(t, bits_per_key => 10) OVER () = (SELECT bloom_agg(t, 10) FROM names_keys) AS agg_window_named
  FROM names_keys;
SELECT DISTINCT bloom_agg(key => i, bits_per_key => 10) OVER () = (SELECT bloom_agg(i, 10) FROM names_keys) AS agg_integer_window_named
  FROM names_keys;
SELECT DISTINCT bloom_agg(key => t, expected_keys => 200, bits_per_key => 10) OVER ()
       = (SELECT bloom_agg(t, 10, 200) FROM names_keys) AS agg_reserved_window_named
  FROM names_keys;
SELECT DISTINCT bloom_agg_finalfn(bloom_agg_partial(key => t, bits_per_key => 10) OVER ())
       = (SELECT bloom_agg(t, 10) FROM names_keys) AS partial_window_named
  FROM names_keys;
SELECT DISTINCT bloom_agg_merge(state => s) OVER () = (SELECT bloom_agg(t, 10) FROM names_keys) AS merge_window_named
  FROM (SELECT i % 3 AS part, bloom_agg_partial(t, 10) AS s FROM names_keys GROUP BY 1) p;
SELECT DISTINCT bloom_union_agg(filter => f) OVER () = (SELECT bloom_agg(t, 10, 200) FROM names_keys) AS union_agg_window_named
  FROM (SELECT i % 3 AS part, bloom_agg(t, 10, 200) AS f FROM names_keys GROUP BY 1) p;
DROP TABLE names_keys;
