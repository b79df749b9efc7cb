-- The bloomfilter type: text form, validation, storage, and the catalog.

-- The text form is bytea's hex form; it round-trips exactly.
SELECT '\x000820208080000206'::bloomfilter;
SELECT '\x000820208080000206'::bloomfilter::text = '\x000820208080000206';
-- hex digits in either case; output is lowercase
SELECT '\xABCDEF0123456789FF0A'::bloomfilter;
-- the smallest valid filter: one byte of bits and k
SELECT '\x0001'::bloomfilter, '\xff1e'::bloomfilter;

-- Everything else is rejected with 22P02 and the rule it broke.
\set VERBOSITY default
SELECT ''::bloomfilter;
SELECT 'x0001'::bloomfilter;
SELECT '0001'::bloomfilter;
SELECT '\X0001'::bloomfilter;
SELECT '\x'::bloomfilter;
SELECT '\x01'::bloomfilter;
SELECT '\x001'::bloomfilter;
SELECT '\x00 01'::bloomfilter;
SELECT '\x0g01'::bloomfilter;
SELECT '\x0000'::bloomfilter;
SELECT '\x001f'::bloomfilter;
SELECT '\x00ff'::bloomfilter;
SELECT ' \x0001'::bloomfilter;
-- the SQLSTATE, for all of them
\set VERBOSITY sqlstate
SELECT '\x0080'::bloomfilter;
SELECT 'nonsense'::bloomfilter;
\set VERBOSITY default

-- NULL stays NULL
SELECT NULL::bloomfilter IS NULL AS is_null;

-- Stored in a column, read back byte for byte.
CREATE TABLE filter_store (id int PRIMARY KEY, f bloomfilter);
INSERT INTO filter_store VALUES (1, '\x000820208080000206'), (2, NULL), (3, '\x0001');
SELECT id, f FROM filter_store ORDER BY id;
-- a large filter goes out of line, uncompressed (STORAGE external)
INSERT INTO filter_store
  SELECT 4, bloom_agg(i::text, 10) FROM generate_series(1, 100000) i;
SELECT pg_column_size(f) > 125000 AS stored_uncompressed,
       octet_length(f::text) = 2 + 2 * 125001 AS text_length
  FROM filter_store WHERE id = 4;
SELECT f::text = (SELECT bloom_agg(i::text, 10)::text FROM generate_series(1, 100000) i)
  AS same_after_storage
  FROM filter_store WHERE id = 4;
DROP TABLE filter_store;

-- The type's definition.
SELECT typname, typlen, typstorage, typtype
  FROM pg_type WHERE typname IN ('bloomfilter', 'bloom_agg_state') ORDER BY typname;

-- Every function of the extension is strict, immutable and parallel safe,
-- except the aggregate support functions that must see NULL states.
SELECT p.oid::regprocedure AS function, p.proisstrict, p.provolatile, p.proparallel
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
  JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
 WHERE e.extname = 'bloomfilter'
   AND (NOT p.proisstrict OR p.provolatile <> 'i' OR p.proparallel <> 's')
 ORDER BY p.oid::regprocedure::text;

-- Every object of the extension has a comment.  (16 and later also record
-- each type's array type as a member; an array type has no comment of its
-- own, so array types are left out on every major.)
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS uncommented
  FROM pg_depend d
  JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
 WHERE e.extname = 'bloomfilter' AND d.deptype = 'e'
   AND obj_description(d.objid, d.classid::regclass::name) IS NULL
   AND NOT (d.classid = 'pg_type'::regclass
            AND (SELECT typcategory FROM pg_type WHERE oid = d.objid) = 'A')
 ORDER BY 1;
