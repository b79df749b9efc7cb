-- bloomfilter.final_threads_limit: the ceiling over every role's
-- bloomfilter.max_final_threads, which only a superuser (or a role granted
-- SET on it) changes.  The final uses the lower of the two (and of the
-- CPUs, which this test leaves out: its DEBUG1 message gives the lower of
-- the settings, its detail, hidden by VERBOSITY terse, the machine's share).

-- the settings exist once the library is loaded
SELECT bloom_empty(0, 10) IS NOT NULL AS loaded;
SELECT name, context, min_val, max_val,
       CASE name WHEN 'bloomfilter.final_threads_limit' THEN boot_val ELSE 'the CPUs' END AS default
  FROM pg_settings WHERE name IN ('bloomfilter.max_final_threads', 'bloomfilter.final_threads_limit')
 ORDER BY name;
SHOW bloomfilter.final_threads_limit;

-- a role that is not a superuser sets its own max_final_threads, and
-- cannot raise (or set at all) the limit: 42501
CREATE ROLE regress_bloom_threads;
SET ROLE regress_bloom_threads;
SET bloomfilter.max_final_threads = 8;
SHOW bloomfilter.max_final_threads;
\set VERBOSITY sqlstate
SET bloomfilter.final_threads_limit = 64;
SELECT set_config('bloomfilter.final_threads_limit', '64', false);
\set VERBOSITY default
SET bloomfilter.final_threads_limit = 64;
SHOW bloomfilter.final_threads_limit;
RESET ROLE;

-- a superuser can: the final then uses the lower of the two.  A filter of
-- 4.8 MB over 600,000 keys is one that threads pay for, so the final says
-- at DEBUG1 how many the settings allow.
SET bloomfilter.final_threads_limit = 1;
SET bloomfilter.max_final_threads = 8;
CREATE TABLE threads_keys AS SELECT i FROM generate_series(1, 600000) i;
GRANT SELECT ON threads_keys TO regress_bloom_threads;
-- serially: a parallel plan's workers would say more at DEBUG1
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = debug1;
\set VERBOSITY terse
SELECT md5(bloom_agg(i, 64)::bytea) AS limit_1 FROM threads_keys \gset
RESET bloomfilter.final_threads_limit;
SELECT md5(bloom_agg(i, 64)::bytea) AS limit_default FROM threads_keys \gset
SET bloomfilter.final_threads_limit = 3;
SELECT md5(bloom_agg(i, 64)::bytea) AS limit_3 FROM threads_keys \gset
SET bloomfilter.max_final_threads = 2;
SELECT md5(bloom_agg(i, 64)::bytea) AS max_2 FROM threads_keys \gset
-- a small filter does not consider threads, and says nothing
SELECT length(bloom_agg(i, 10)::bytea) AS small FROM generate_series(1, 1000) i;
RESET client_min_messages;
\set VERBOSITY default
-- the same bytes whatever the threads
SELECT :'limit_1' = :'limit_default' AND :'limit_1' = :'limit_3' AND :'limit_1' = :'max_2' AS same_bytes;

-- the role, under the limit a superuser set for it: its own SET of
-- max_final_threads above it gives the limit
ALTER ROLE regress_bloom_threads SET bloomfilter.final_threads_limit = 2;
SELECT unnest(setconfig) AS role_setting FROM pg_db_role_setting
 WHERE setrole = 'regress_bloom_threads'::regrole;
SET bloomfilter.final_threads_limit = 2;
SET ROLE regress_bloom_threads;
SET bloomfilter.max_final_threads = 64;
SET client_min_messages = debug1;
\set VERBOSITY terse
SELECT md5(bloom_agg(i, 64)::bytea) = :'limit_1' AS same_bytes FROM threads_keys;
RESET client_min_messages;
\set VERBOSITY default
RESET ROLE;
RESET bloomfilter.final_threads_limit;
RESET bloomfilter.max_final_threads;
RESET max_parallel_workers_per_gather;
DROP TABLE threads_keys;
ALTER ROLE regress_bloom_threads RESET ALL;
DROP ROLE regress_bloom_threads;
