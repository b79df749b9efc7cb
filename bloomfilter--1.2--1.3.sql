/* bloomfilter--1.2--1.3.sql: 1.2 databases update to 1.3 with it.  A fresh
 * install of 1.3 is bloomfilter--1.1.sql, bloomfilter--1.1--1.2.sql and
 * then this script.
 *
 * The script is in sections, each headed by a ruled comment that says what
 * it changes and why; a change of 1.3 goes into the section it belongs to,
 * or into a new one at the end, listed here.
 */

-- complain if script is sourced in psql, rather than via CREATE or ALTER EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" or "ALTER EXTENSION bloomfilter UPDATE TO '1.3'" to load this file. \quit
