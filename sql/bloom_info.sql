-- Looking into a filter: bloom_info and bloom_cardinality.  Sizing one:
-- bloom_expected_fpr and bloom_bits_per_key.

-- The filter of abc at 10 bits a key: 9 bytes, 64 bits, k = 6, and the
-- key's 6 probes set 6 distinct bits.
SELECT * FROM bloom_info('\x000820208080000206');
-- the estimates, from the formulas: -64/6 ln(1 - 6/64) and (6/64)^6
SELECT abs(estimated_keys - (-64.0 / 6 * ln(1 - 6.0 / 64))) < 1e-12 AS estimate_formula,
       abs(false_positive_rate - power(6.0 / 64, 6)) < 1e-18 AS rate_formula
  FROM bloom_info('\x000820208080000206');
-- no bit set: no keys, and nothing matches; every bit set: any number of
-- keys, and everything matches
SELECT * FROM bloom_info('\x000000000000000006');
SELECT * FROM bloom_info('\xffffffffffffffff06');
SELECT bloom_cardinality('\xffffffffffffffff06') = 'Infinity' AS infinite;
SELECT bloom_info(NULL) IS NULL AS null_info, bloom_cardinality(NULL) IS NULL AS null_cardinality;

-- bits_set counts exactly the set bits (checked bit by bit here), and
-- the estimates follow from it.
CREATE TABLE info_filters AS
  SELECT n, bpk, bloom_agg(md5(i::text), bpk) AS f
    FROM (VALUES (100), (1000), (10000)) a(n), (VALUES (5), (10), (20)) b(bpk),
         generate_series(1, n) i
   GROUP BY n, bpk;
SELECT n, bpk, i.bytes, i.bits, i.k,
       i.bits_set = (SELECT count(*) FROM generate_series(0, i.bits - 1) b
                      WHERE get_bit(f::bytea, b::int) = 1) AS bits_set_exact,
       i.fill_ratio = i.bits_set::float8 / i.bits AS fill_exact
  FROM info_filters, bloom_info(f) i
 ORDER BY n, bpk;
-- for these filters of md5 keys, the estimate is within 5% of the number
-- of keys
SELECT n, bpk, abs(bloom_cardinality(f) - n) / n < 0.05 AS estimate_within_5_percent
  FROM info_filters ORDER BY n, bpk;
-- the rate estimate against the observed rate of 100000 keys not in the
-- filter (10000 keys at 10 bits a key)
SELECT round(false_positive_rate::numeric, 4) AS estimated_rate,
       (SELECT count(*) FILTER (WHERE md5('absent-' || j) <~ f)::float8 / count(*)
          FROM generate_series(1, 100000) j) BETWEEN 0.5 * false_positive_rate
                                                 AND 1.5 * false_positive_rate AS observed_near_estimate
  FROM info_filters, bloom_info(f)
 WHERE n = 10000 AND bpk = 10;
-- duplicates set no new bits: bloom_agg sizes for 10000 keys, the estimate
-- sees 100
SELECT round(bloom_cardinality(bloom_agg(md5((i % 100)::text), 10))) AS distinct_estimate
  FROM generate_series(1, 10000) i;

-- A filter over 1 MB, stored out of line: read once per call site while it
-- is the same row after row.
CREATE TABLE big_info (id int PRIMARY KEY, f bloomfilter);
INSERT INTO big_info SELECT 1, bloom_agg('k' || i, 10) FROM generate_series(1, 1000000) i;
SELECT pg_column_size(f) > 1000000 AS over_1mb FROM big_info;
-- (LevelDB derives a key's k probes from one 32-bit hash; in a filter of a
-- million keys they overlap more than independent probes would, fewer bits
-- are set, and the estimate comes out about 14% low)
SELECT bytes, bits, k, bits_set > 0 AS some_bits_set, round((estimated_keys / 1e6)::numeric, 1) AS millions_of_keys
  FROM big_info, bloom_info(f);
-- the same value, probed from 100 rows: the same answer each time
SELECT count(DISTINCT (bloom_info(f)).bits_set) AS distinct_answers,
       count(DISTINCT bloom_cardinality(f)) AS distinct_cardinalities, count(*) AS calls
  FROM big_info, generate_series(1, 100) g;
SELECT count(*) FILTER (WHERE bloom_cardinality((SELECT f FROM big_info WHERE id = 1)) =
                              (SELECT bloom_cardinality(f) FROM big_info WHERE id = 1)) AS same_via_subquery
  FROM generate_series(1, 100) g;
DROP TABLE big_info, info_filters;

-- bloom_expected_fpr: (1 - e^(-k/bpk))^k with LevelDB's k.
SELECT bpk, floor(bpk * 0.69) AS k_unclamped,
       round(bloom_expected_fpr(bpk)::numeric, 8) AS expected_fpr
  FROM (VALUES (0), (1), (2), (5), (9), (10), (15), (16), (20), (43), (44), (100)) v(bpk)
 ORDER BY bpk;
-- the formula, written out in SQL for bits_per_key 1..100
SELECT count(*) FILTER (WHERE abs(bloom_expected_fpr(b) - power(1 - exp(-k / b), k)) <= 1e-12 * bloom_expected_fpr(b))
         AS same_as_formula,
       count(*) AS tried
  FROM generate_series(1, 100) b,
       LATERAL (SELECT greatest(1, least(30, floor(b * 0.69)))::float8 AS k) kk;
-- it never rises with bits_per_key
SELECT count(*) AS rises
  FROM (SELECT b, bloom_expected_fpr(b) - lag(bloom_expected_fpr(b)) OVER (ORDER BY b) AS change
          FROM generate_series(0, 10000) b) c
 WHERE change > 0;

-- bloom_bits_per_key: the smallest bits_per_key whose expected rate is at
-- most the target.
SELECT target, bloom_bits_per_key(target) AS bits_per_key,
       bloom_expected_fpr(bloom_bits_per_key(target)) <= target AS reaches,
       bloom_expected_fpr(bloom_bits_per_key(target) - 1) > target AS smallest
  FROM (VALUES (0.5::float8), (0.1), (0.05), (0.01), (0.001), (0.0001), (1e-6), (1e-9), (1e-20), (1e-100)) v(target)
 ORDER BY target DESC;
SELECT count(*) FILTER (WHERE bloom_bits_per_key(bloom_expected_fpr(b)) <= b) AS at_most_b,
       count(*) AS tried
  FROM generate_series(1, 2000) b;
-- what a user writes: a filter with at most 0.1% false positives
SELECT bloom_bits_per_key(0.001) AS bpk,
       right(bloom_agg('key-' || i, bloom_bits_per_key(0.001))::text, 2) AS k_hex
  FROM generate_series(1, 1000) i;

-- Errors.
\set VERBOSITY default
SELECT bloom_expected_fpr(-1);
SELECT bloom_bits_per_key(0);
SELECT bloom_bits_per_key(1);
SELECT bloom_bits_per_key(-0.5);
SELECT bloom_bits_per_key('NaN');
SELECT bloom_bits_per_key('Infinity');
SELECT bloom_bits_per_key(1e-300);
\set VERBOSITY sqlstate
SELECT bloom_expected_fpr(-1);
SELECT bloom_bits_per_key(0);
SELECT bloom_bits_per_key('NaN');
SELECT bloom_bits_per_key(1e-300);
\set VERBOSITY default
