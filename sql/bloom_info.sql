-- Looking into a filter: bloom_info and bloom_cardinality.  Sizing one:
-- bloom_expected_fpr and bloom_bits_per_key.

-- The filter of abc at 10 bits a key: 9 bytes, 64 bits, k = 6, and the
-- key's 6 probes set 6 distinct bits.
SELECT * FROM bloom_info('\x000820208080000206');
-- The rate is measured on the filter with LevelDB's own probe scheme, so
-- it is what keys not in the filter see: a key's 6 probes form one
-- arithmetic progression modulo 64, and a fresh key finds its bits set far
-- more often than the ideal (6/64)^6 = 6.8e-7.  Here 200000 md5 keys not in
-- it count the matches in SQL: within 10% of the estimate, or 3 binomial
-- standard errors when that is wider.
SELECT false_positive_rate > 1000 * power(6.0 / 64, 6) AS far_above_ideal,
       abs(observed - false_positive_rate) <=
         greatest(0.1 * observed, 3 * sqrt(observed * (1 - observed) / 200000)) AS observed_near_estimate,
       round(estimated_keys::numeric, 1) AS keys
  FROM bloom_info('\x000820208080000206'),
       LATERAL (SELECT count(*) FILTER (WHERE md5('fresh-' || j) <~ '\x000820208080000206'::bloomfilter)::float8 / count(*) AS observed
                  FROM generate_series(1, 200000) j) o;
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
-- for these filters of md5 keys, the estimate is within 3% of the number
-- of keys, or within 3 of its standard errors where that is wider (small
-- filters): sqrt(f / (bits (1 - f))) / -ln(1 - f) of the estimate, f the
-- fill ratio
SELECT n, bpk, round((100 * se)::numeric, 1) AS se_percent,
       abs(bloom_cardinality(f) - n) / n <= greatest(0.03, 3 * se) AS estimate_within_3_percent_or_3_se
  FROM info_filters, bloom_info(f) i,
       LATERAL (SELECT sqrt(i.fill_ratio / (i.bits * (1 - i.fill_ratio))) / -ln(1 - i.fill_ratio) AS se) s
 ORDER BY n, bpk;
-- the rate estimate against the observed rate of 100000 keys not in the
-- filter (10000 keys at 10 bits a key), by the same rule
SELECT round(false_positive_rate::numeric, 3) AS estimated_rate,
       abs(observed - false_positive_rate) <=
         greatest(0.1 * observed, 3 * sqrt(observed * (1 - observed) / 100000)) AS observed_near_estimate
  FROM info_filters, bloom_info(f),
       LATERAL (SELECT count(*) FILTER (WHERE md5('absent-' || j) <~ f)::float8 / count(*) AS observed
                  FROM generate_series(1, 100000) j) o
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
-- million keys they overlap more than independent probes would and fewer
-- bits are set.  The estimate replays that scheme, so it is not 14% low as
-- the ideal filter's formula would be.)
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

-- bloom_expected_fpr(bits_per_key): the rate measured on LevelDB's scheme
-- for 1,000,000 keys (above the ideal (1 - e^(-k/bpk))^k, shown beside it),
-- and never below that many keys' 32-bit hash collisions, 2.3e-4.
SELECT bpk, floor(bpk * 0.69) AS k_unclamped,
       round(bloom_expected_fpr(bpk)::numeric, 8) AS expected_fpr,
       round(CASE WHEN bpk = 0 THEN 1 ELSE power(1 - exp(-k / bpk), k) END::numeric, 8) AS ideal_fpr
  FROM (VALUES (0), (1), (2), (5), (9), (10), (15), (16), (20), (43), (44), (100)) v(bpk),
       LATERAL (SELECT greatest(1, least(30, floor(bpk * 0.69)))::float8 AS k) kk
 ORDER BY bpk;
SELECT count(*) FILTER (WHERE bloom_expected_fpr(b) >= 0.9 * power(1 - exp(-k / b), k)
                          AND bloom_expected_fpr(b) >= 2.3e-4) AS above_ideal_and_collisions,
       count(*) AS tried
  FROM generate_series(1, 100) b,
       LATERAL (SELECT greatest(1, least(30, floor(b * 0.69)))::float8 AS k) kk;
-- past the measured table (20 bits a key) it never rises
SELECT count(*) AS rises
  FROM (SELECT b, bloom_expected_fpr(b) - lag(bloom_expected_fpr(b)) OVER (ORDER BY b) AS change
          FROM generate_series(20, 10000) b) c
 WHERE change > 0;

-- bloom_bits_per_key: the smallest bits_per_key whose rate for 1,000,000
-- keys is at most the target.
SELECT target, bloom_bits_per_key(target) AS bits_per_key,
       bloom_expected_fpr(bloom_bits_per_key(target)) <= target AS reaches,
       (SELECT bool_and(bloom_expected_fpr(b) > target)
          FROM generate_series(0, bloom_bits_per_key(target) - 1) b) AS smallest
  FROM (VALUES (0.5::float8), (0.1), (0.05), (0.01), (0.005), (0.001), (0.0003)) v(target)
 ORDER BY target DESC;
SELECT count(*) FILTER (WHERE bloom_bits_per_key(bloom_expected_fpr(b)) <= b) AS at_most_b,
       count(*) AS tried
  FROM generate_series(1, 40) b;
-- what a user writes: a filter with at most 0.1% false positives
SELECT bloom_bits_per_key(0.001) AS bpk,
       right(bloom_agg('key-' || i, bloom_bits_per_key(0.001))::text, 2) AS k_hex
  FROM generate_series(1, 1000) i;

-- For a key count of one's own: the rate measured on filters of that
-- geometry.  It differs between key counts in no smooth way (LevelDB's
-- probes step modulo 2^32, then modulo the bit count), so here each is
-- checked against 200000 md5 keys probing a real filter of that many
-- keys, by the rule above.
CREATE TABLE sized AS
  SELECT n, bpk, bloom_agg(md5(i::text), bpk) AS f
    FROM (VALUES (1000), (100000), (150000)) a(n), (VALUES (8), (10)) b(bpk),
         generate_series(1, n) i
   GROUP BY n, bpk;
SELECT n, bpk, round(bloom_expected_fpr(bpk, n)::numeric, 3) AS expected,
       abs(observed - bloom_expected_fpr(bpk, n)) <=
         greatest(0.1 * observed, 3 * sqrt(observed * (1 - observed) / 200000)) AS observed_near_expected
  FROM sized,
       LATERAL (SELECT count(*) FILTER (WHERE md5('fresh-' || j) <~ f)::float8 / count(*) AS observed
                  FROM generate_series(1, 200000) j) o
 ORDER BY n, bpk;
DROP TABLE sized;
-- no keys: nothing matches; bits_per_key 0: everything does
SELECT bloom_expected_fpr(10, 0) AS no_keys, bloom_expected_fpr(0, 1000) AS no_bits;
-- sizing for a key count: fewer keys collide less, so smaller rates are in
-- reach (1e-4 is not for 10^6 keys, whose hashes alone collide at 2.3e-4)
SELECT target, n, bloom_bits_per_key(target, n) AS bits_per_key,
       bloom_expected_fpr(bloom_bits_per_key(target, n), n) <= target AS reaches,
       bloom_expected_fpr(bloom_bits_per_key(target, n) - 1, n) > target AS one_less_does_not
  FROM (VALUES (0.01::float8, 1000::bigint), (0.01, 100000), (0.001, 100000), (0.0001, 10000)) v(target, n)
 ORDER BY n, target DESC;

-- Errors.
\set VERBOSITY default
SELECT bloom_expected_fpr(-1);
SELECT bloom_bits_per_key(0);
SELECT bloom_bits_per_key(1);
SELECT bloom_bits_per_key(-0.5);
SELECT bloom_bits_per_key('NaN');
SELECT bloom_bits_per_key('Infinity');
SELECT bloom_bits_per_key(1e-300);
SELECT bloom_bits_per_key(0.0001);
SELECT bloom_bits_per_key(0.0001, 1000000);
SELECT bloom_bits_per_key(0.01, -1);
SELECT bloom_bits_per_key(2, 1000);
SELECT bloom_expected_fpr(10, -1);
SELECT bloom_expected_fpr(-1, 1000);
SELECT bloom_expected_fpr(1000, 9000000000000000000);
\set VERBOSITY sqlstate
SELECT bloom_expected_fpr(-1);
SELECT bloom_bits_per_key(0);
SELECT bloom_bits_per_key('NaN');
SELECT bloom_bits_per_key(1e-300);
SELECT bloom_bits_per_key(0.01, -1);
SELECT bloom_expected_fpr(1000, 9000000000000000000);
\set VERBOSITY default

-- A long simulation (268 million keys) stops at a statement timeout.
SET statement_timeout = '300ms';
SELECT bloom_expected_fpr(1, 268000000);
RESET statement_timeout;
