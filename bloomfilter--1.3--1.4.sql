/* bloomfilter--1.3--1.4.sql: 1.3 databases update to 1.4 with it.  A fresh
 * install of 1.4 is bloomfilter--1.1.sql, then the update scripts to 1.2,
 * 1.3 and this one.
 *
 * The script is in sections, each headed by a ruled comment that says what
 * it changes and why; a change of 1.4 goes into the section it belongs to,
 * or into a new one at the end, listed here:
 *   1. Statistics: ANALYZE summarises a bloomfilter column's filters, so
 *      that the planner can estimate key <~ (SELECT f FROM t WHERE ...).
 */

-- complain if script is sourced in psql, rather than via CREATE or ALTER EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" or "ALTER EXTENSION bloomfilter UPDATE TO '1.4'" to load this file. \quit

------------------------------------------------------------------------
-- 1. Statistics.  A stored filter is mostly wider than the 1 kB past
-- which ANALYZE leaves a value out of its statistics, so nothing told the
-- planner what a filter column holds.  The type's ANALYZE function keeps
-- the standard statistics and adds a summary of the sampled filters (their
-- mean estimated key count and false-positive rate), which the estimator
-- of <~ and ~> reads when the filter is a subquery's column.  Setting a
-- type's ANALYZE function needs a superuser, which an extension script
-- (trusted or not) runs as.  STABLE PARALLEL SAFE as PostgreSQL's own
-- ANALYZE functions (array_typanalyze) are.  It takes internal, so no query can
-- call it; only ANALYZE does.
CREATE FUNCTION bloomfilter_analyze(internal) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_analyze(internal) IS 'ANALYZE support for bloomfilter columns: the standard statistics and a summary of the filters'' key counts and false-positive rates, for the planner';
ALTER TYPE bloomfilter SET (ANALYZE = bloomfilter_analyze);
