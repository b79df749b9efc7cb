#!/usr/bin/env bash
#
# test/upgrade_chain_test.sh -- ALTER EXTENSION bloomfilter UPDATE gives
# what a fresh CREATE EXTENSION gives, and keeps what users stored.
#
# On a throw-away cluster of BF_PG_MAJOR (default the host's), where the
# extension is installed:
#   1. one database installs the oldest version (bloomfilter--1.0.sql),
#      stores filters (inline and out of line) and bloom_agg_state values,
#      and a view over them that calls the extension's functions and
#      operators, then walks ALTER EXTENSION ... UPDATE TO every later
#      version of the bloomfilter--A--B.sql scripts, one step at a time, to
#      the control file's default_version; no step drops a function or
#      aggregate or changes its pg_proc or pg_aggregate row, but for
#      giving names to parameters that had none;
#   2. another database runs a fresh CREATE EXTENSION bloomfilter;
#   3. the two have the same member objects: by pg_describe_object, with
#      each function's signature and parameter names, volatility, parallel
#      safety, strictness, cost, C symbol and support function, each
#      aggregate's support functions,
#      each operator's estimators, commutator, negator and hash/merge flags,
#      each operator class's operators and functions, each type's I/O, each
#      cast, and every COMMENT;
#   4. the stored values keep their bytes and probe the same, and the view
#      its definition and rows;
#   5. the whole regression suite passes on the updated database.
#
# Every later version adds its upgrade script, and this test walks it.
# Prints "upgrade-chain: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh
# shellcheck source=test/lib/stored_values.sh
. test/lib/stored_values.sh

start_test_cluster upgrade-chain
BINDIR=$(bf_pg_bindir)
q() {
	local db=$1
	shift
	"$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -At -d "$db" "$@"
}

default_version=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" bloomfilter.control)
# The chain from the base script's version: each step's target, in order.
base=$(ls bloomfilter--*.sql | grep -v -- '--.*--' | sed -E 's/^bloomfilter--(.*)\.sql$/\1/' | sort -V | head -n 1)
steps=()
from=$base
while next=$(ls "bloomfilter--$from--"*.sql 2>/dev/null | sed -E "s/^bloomfilter--$from--(.*)\.sql$/\1/" | sort -V | tail -n 1) &&
	[ -n "$next" ]; do
	steps+=("$next")
	from=$next
done
if [ "$from" = "$default_version" ]; then
	pass "the upgrade scripts lead from $base to default_version $default_version (${steps[*]:-no step})"
else
	fail "the upgrade scripts lead from $base to $from, but default_version is $default_version"
fi

# 1. the oldest version, with stored values
q postgres -c "CREATE DATABASE chain_updated" -c "CREATE DATABASE chain_fresh"
q chain_updated -c "CREATE EXTENSION bloomfilter VERSION '$base'"
stored_values_create chain_updated chain_stored
before=$(stored_values_digests chain_updated chain_stored)
# a user's view over the extension's functions and operators: the update
# scripts must keep the objects it depends on
q chain_updated -c "CREATE VIEW chain_stored.uses AS
  SELECT id, bloom_add(f, 'x'::text) = f AS has_x, 'k1'::text <~ f AS has_k1,
         bloom_union(f, f) = f AS union_self, bloom_cardinality(f) > 0 AS some_keys
    FROM chain_stored.filters"
view_rows() { q chain_updated -c "SELECT * FROM chain_stored.uses ORDER BY id"; }
view_def() { q chain_updated -c "SELECT pg_get_viewdef('chain_stored.uses'::regclass)"; }
view_rows_before=$(view_rows)
view_def_before=$(view_def)

# Each step keeps every function and aggregate it finds, with its catalog
# rows; it may only give names to parameters that had none, and a planner
# support function to a function that had none (1.3's bloom_key).
member_procs="SELECT d.objid FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = e.oid WHERE e.extname = 'bloomfilter' AND d.deptype = 'e' AND d.classid = 'pg_proc'::regclass"
q chain_updated -c "CREATE SCHEMA chain_catalog"
catalog_snapshot() {
	q chain_updated -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS chain_catalog.before" -c "CREATE TABLE chain_catalog.before AS
  SELECT p.oid, p.oid::regprocedure::text AS sig, to_jsonb(p) - 'proargnames' AS proc, p.proargnames,
         (SELECT to_jsonb(a) FROM pg_aggregate a WHERE a.aggfnoid = p.oid) AS agg
    FROM pg_proc p WHERE p.oid IN ($member_procs)"
}
catalog_check() {
	local step=$1 gone changed renamed named
	gone=$(q chain_updated -c "SELECT string_agg(b.sig, ', ') FROM chain_catalog.before b
  WHERE NOT EXISTS (SELECT FROM pg_proc p WHERE p.oid = b.oid)")
	changed=$(q chain_updated -c "SELECT string_agg(b.sig, ', ') FROM chain_catalog.before b JOIN pg_proc p ON p.oid = b.oid
  WHERE to_jsonb(p) - 'proargnames' - 'prosupport' IS DISTINCT FROM b.proc - 'prosupport'
     OR (p.prosupport::text <> b.proc->>'prosupport' AND b.proc->>'prosupport' <> '-')
     OR (SELECT to_jsonb(a) FROM pg_aggregate a WHERE a.aggfnoid = p.oid) IS DISTINCT FROM b.agg")
	renamed=$(q chain_updated -c "SELECT string_agg(b.sig, ', ') FROM chain_catalog.before b JOIN pg_proc p ON p.oid = b.oid
  WHERE EXISTS (SELECT FROM generate_subscripts(b.proargnames, 1) i
                 WHERE b.proargnames[i] <> '' AND b.proargnames[i] IS DISTINCT FROM p.proargnames[i])")
	named=$(q chain_updated -c "SELECT count(*) FROM chain_catalog.before b JOIN pg_proc p ON p.oid = b.oid
  WHERE p.proargnames IS DISTINCT FROM b.proargnames")
	if [ -z "$gone$changed$renamed" ]; then
		pass "update to $step: every function and aggregate of before keeps its pg_proc and pg_aggregate rows but for its parameters' names ($named given names)"
	else
		fail "update to $step: dropped: ${gone:-none}; rows changed: ${changed:-none}; parameters renamed: ${renamed:-none}"
	fi
}

for step in "${steps[@]}"; do
	catalog_snapshot
	if q chain_updated -c "ALTER EXTENSION bloomfilter UPDATE TO '$step'"; then
		pass "ALTER EXTENSION bloomfilter UPDATE TO '$step' with stored filters and states"
	else
		fail "ALTER EXTENSION bloomfilter UPDATE TO '$step' failed"
	fi
	catalog_check "$step"
done
q chain_updated -c "SET client_min_messages = warning" -c "DROP SCHEMA chain_catalog CASCADE"
got=$(q chain_updated -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")
[ "$got" = "$default_version" ] && pass "the updated database is at $default_version" ||
	fail "the updated database is at $got, not $default_version"

# 2. fresh
q chain_fresh -c "CREATE EXTENSION bloomfilter"
got=$(q chain_fresh -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")
[ "$got" = "$default_version" ] && pass "a fresh CREATE EXTENSION installs $default_version" ||
	fail "a fresh CREATE EXTENSION installs $got, not $default_version"

# 3. the same member objects
members() {
	q "$1" <<'SQL'
WITH members AS (
  SELECT d.classid, d.objid, d.objsubid
    FROM pg_depend d
    JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
   WHERE e.extname = 'bloomfilter' AND d.deptype = 'e')
SELECT pg_describe_object(m.classid, m.objid, m.objsubid)
       || ' | comment: ' || COALESCE(obj_description(m.objid, m.classid::regclass::name), '<none>')
       || COALESCE((SELECT format(' | arguments (%s), names %s, returns %s, volatility %s, parallel %s, strict %s, kind %s, symbol %s, support %s, cost %s, rows %s, set %s, security definer %s, leakproof %s, config %s',
                                  pg_get_function_arguments(p.oid), p.proargnames,
                                  p.prorettype::regtype, p.provolatile, p.proparallel, p.proisstrict,
                                  p.prokind, p.prosrc, p.prosupport, p.procost, p.prorows, p.proretset,
                                  p.prosecdef, p.proleakproof, p.proconfig)
                      FROM pg_proc p WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid), '')
       || COALESCE((SELECT format(' | transition %s, final %s, combine %s, serial %s, deserial %s, state %s, init %s, space %s, final modify %s',
                                  a.aggtransfn::regprocedure, a.aggfinalfn, a.aggcombinefn, a.aggserialfn,
                                  a.aggdeserialfn, a.aggtranstype::regtype, a.agginitval, a.aggtransspace,
                                  a.aggfinalmodify)
                      FROM pg_aggregate a WHERE m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid), '')
       || COALESCE((SELECT format(' | function %s, restrict %s, join %s, commutator %s, negator %s, hashes %s, merges %s',
                                  o.oprcode, o.oprrest, o.oprjoin, o.oprcom::regoperator,
                                  o.oprnegate::regoperator, o.oprcanhash, o.oprcanmerge)
                      FROM pg_operator o WHERE m.classid = 'pg_operator'::regclass AND o.oid = m.objid), '')
       || COALESCE((SELECT format(' | default %s, operators %s, functions %s', c.opcdefault,
                                  (SELECT string_agg(format('%s %s', ao.amopstrategy, ao.amopopr::regoperator), ', ' ORDER BY ao.amopstrategy)
                                     FROM pg_amop ao WHERE ao.amopfamily = c.opcfamily),
                                  (SELECT string_agg(format('%s %s', ap.amprocnum, ap.amproc::regprocedure), ', ' ORDER BY ap.amprocnum)
                                     FROM pg_amproc ap WHERE ap.amprocfamily = c.opcfamily))
                      FROM pg_opclass c WHERE m.classid = 'pg_opclass'::regclass AND c.oid = m.objid), '')
       || COALESCE((SELECT format(' | input %s, output %s, receive %s, send %s, length %s, align %s, storage %s',
                                  t.typinput, t.typoutput, t.typreceive, t.typsend, t.typlen, t.typalign, t.typstorage)
                      FROM pg_type t WHERE m.classid = 'pg_type'::regclass AND t.oid = m.objid), '')
       || COALESCE((SELECT format(' | function %s, context %s, method %s',
                                  CASE WHEN c.castfunc = 0 THEN '-' ELSE c.castfunc::regprocedure::text END,
                                  c.castcontext, c.castmethod)
                      FROM pg_cast c WHERE m.classid = 'pg_cast'::regclass AND c.oid = m.objid), '')
  FROM members m
 ORDER BY 1;
SQL
}
members chain_updated >"$WORK/updated.txt"
members chain_fresh >"$WORK/fresh.txt"
if [ ! -s "$WORK/fresh.txt" ]; then
	fail "no member objects listed"
elif diff -u "$WORK/fresh.txt" "$WORK/updated.txt"; then
	pass "updated and fresh have the same $(wc -l <"$WORK/fresh.txt") member objects, properties and comments"
else
	fail "updated and fresh differ in their member objects (diff above: - fresh, + updated)"
fi

# 4. the stored values, and the view over them
compare_rows "across the update" "$before" "$(stored_values_digests chain_updated chain_stored)"
if [ "$(view_def)" = "$view_def_before" ] && [ "$(view_rows)" = "$view_rows_before" ]; then
	pass "a user's view over the extension's functions keeps its definition and its $(wc -l <<<"$view_rows_before") rows"
else
	fail "the view changed: was '$view_def_before' giving '$view_rows_before', is '$(view_def)' giving '$(view_rows)'"
fi

# 5. the regression suite on the updated database
pg_regress="$(dirname "$("$(bf_pg_config)" --pgxs)")/../../src/test/regress/pg_regress"
# the Makefile's REGRESS list, continuation lines joined
tests=$(awk '/^REGRESS =/ { on = 1 } on { line = $0; sub(/^REGRESS =/, "", line); cont = sub(/\\$/, "", line); printf "%s ", line; if (!cont) exit }' Makefile)
mkdir -p "$WORK/regress"
# the tests' \copy writes results/ of the directory psql runs in, which
# only make installcheck makes
mkdir -p results
if "$pg_regress" --inputdir=. --outputdir="$WORK/regress" --bindir="$BINDIR" \
	--use-existing --dbname=chain_updated $tests >"$WORK/regress.log" 2>&1; then
	pass "the whole regression suite passes on the updated database ($(wc -w <<<"$tests") tests)"
else
	cat "$WORK/regress.log"
	[ -f "$WORK/regress/regression.diffs" ] && head -n 100 "$WORK/regress/regression.diffs"
	fail "the regression suite fails on the updated database"
fi

check_summary upgrade-chain
