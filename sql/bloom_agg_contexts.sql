-- All groups' states share one memory context.  A context per state made a
-- hashed GROUP BY quadratic: the hash aggregate adds up the memory of every
-- child context for each new group.  Read while a cursor holds the hash
-- table of 1000 groups (the first FETCH has built it).
--
-- PostgreSQL 13 has no pg_backend_memory_contexts (it came in 14), so there
-- the check is skipped: expected/bloom_agg_contexts_1.out is 13's output.
CREATE TABLE many_groups AS
  SELECT i, 'k' || i AS k, i % 1000 AS g FROM generate_series(1, 20000) i;
SELECT current_setting('server_version_num')::int >= 140000 AS has_context_view \gset
\if :has_context_view
SET enable_sort = off;
BEGIN;
DECLARE c CURSOR FOR SELECT g, bloom_agg(k, 10) FROM many_groups GROUP BY g;
FETCH 1 FROM c \gset ignored_
SELECT count(*) AS state_contexts
  FROM pg_backend_memory_contexts WHERE name = 'bloom_agg states';
COMMIT;
RESET enable_sort;
\else
\echo skipped: no pg_backend_memory_contexts before PostgreSQL 14
\endif
DROP TABLE many_groups;
