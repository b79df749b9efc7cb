#!/usr/bin/env bash
#
# test/sqlsmith_run.sh -- random SQL (sqlsmith) against the extension, on a
# throw-away cluster; the server must never crash.
#
#   test/sqlsmith_run.sh                   2000 queries, a new seed
#   test/sqlsmith_run.sh --queries 20000   more
#   test/sqlsmith_run.sh --seed 1234       replay a run
#
# Needs the extension installed (make install) and the Debian package
# sqlsmith (installed with apt-get when run as root).  A database owned by
# an ordinary role gets the extension (it is trusted) and tables holding
# bloomfilter and bloom_agg_state values, small and large (stored out of
# line), with NULLs; parallel plans are made cheaper, so that partial
# states cross processes.  sqlsmith then sends --max-queries random queries built
# from those tables and every function and operator of the catalog.  Errors
# are expected and fine; a crash is not.  Afterwards the server log is
# searched for a backend killed by a signal and for PANIC, and the server
# must still answer.
#
# Prints the number of queries run, how many used the extension, and
#   sqlsmith: N passed, N failed      (one test: no crash)
#
# Environment: BLOOM_SQLSMITH_SEED (as --seed), BLOOM_SQLSMITH_TIMEOUT
# (seconds sqlsmith may run in all, default 600).

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

QUERIES=2000
SEED=${BLOOM_SQLSMITH_SEED:-}
RUN_TIMEOUT=${BLOOM_SQLSMITH_TIMEOUT:-600}

bf_options '--queries:QUERIES --seed:SEED' "$@"
[ -n "$SEED" ] || SEED=$(bf_random_seed)
case $RUN_TIMEOUT in '' | *[!0-9]*)
	echo "sqlsmith_run.sh: BLOOM_SQLSMITH_TIMEOUT takes a whole number of seconds" >&2
	exit 2
	;;
esac

failed_early() {
	echo "sqlsmith: $*"
	echo "sqlsmith: 0 passed, 1 failed"
	exit 1
}

if ! command -v sqlsmith >/dev/null 2>&1; then
	if bf_is_root; then
		bf_log "installing sqlsmith"
		DEBIAN_FRONTEND=noninteractive apt-get install -y sqlsmith >/dev/null ||
			{ apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y sqlsmith >/dev/null; } ||
			failed_early "could not install the sqlsmith package"
	else
		failed_early "sqlsmith not found; install it with: sudo apt-get install -y sqlsmith"
	fi
fi

# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh
start_test_cluster sqlsmith
PSQL=("$(bf_pg_bindir)/psql" -X -q -v ON_ERROR_STOP=1)

# ---- the database sqlsmith works on ------------------------------------------

"${PSQL[@]}" <<'SQL'
CREATE ROLE smith LOGIN;
CREATE DATABASE smith OWNER smith;
-- no query may hold the run up; parallel plans cheaper than by default (at
-- no cost at all, every query would wait for workers to start)
ALTER DATABASE smith SET statement_timeout = '5s';
ALTER DATABASE smith SET lock_timeout = '1s';
ALTER DATABASE smith SET parallel_setup_cost = 100;
ALTER DATABASE smith SET parallel_tuple_cost = 0.001;
ALTER DATABASE smith SET min_parallel_table_scan_size = 0;
SQL

# As the database owner: the extension is trusted, no superuser needed.
"${PSQL[@]}" -U smith -d smith <<'SQL'
CREATE EXTENSION bloomfilter;

-- partial states, as a parallel worker or a Citus node makes them
CREATE AGGREGATE bloom_partial(text, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);

CREATE TABLE keys (id int PRIMARY KEY, k text, kb bytea);
INSERT INTO keys
  SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE 'key-' || i END,
         decode(md5(i::text), 'hex')
    FROM generate_series(1, 1000) i;

CREATE TABLE filters (id int PRIMARY KEY, bpk int, f bloomfilter);
INSERT INTO filters
  SELECT g, g, bloom_agg(k, g) FROM keys, generate_series(0, 20) g
   WHERE keys.id % (g + 1) = 0 GROUP BY g;
INSERT INTO filters VALUES (100, NULL, NULL), (101, NULL, '\x0001'), (102, NULL, '\xff1e');
-- large filters, stored out of line
INSERT INTO filters
  SELECT 200 + g, 10, bloom_agg(i::text, 10) FROM generate_series(1, 100000) i,
         generate_series(0, 1) g GROUP BY g;

CREATE TABLE states (id int PRIMARY KEY, bpk int, s bloom_agg_state);
INSERT INTO states
  SELECT g, 10, bloom_partial(k, 10) FROM keys, generate_series(1, 10) g
   WHERE keys.id % g = 0 GROUP BY g;
INSERT INTO states VALUES (100, NULL, NULL);
INSERT INTO states SELECT 200, 10, bloom_partial(i::text, 10) FROM generate_series(1, 50000) i;

CREATE TABLE mixed (id int, k text, kb bytea, f bloomfilter, s bloom_agg_state);
INSERT INTO mixed
  SELECT k.id, k.k, k.kb, f.f, s.s
    FROM keys k
    LEFT JOIN filters f ON f.id = k.id % 25
    LEFT JOIN states s ON s.id = k.id % 12
   WHERE k.id <= 300;

ANALYZE keys, filters, states, mixed;
SQL

tables=$("${PSQL[@]}" -U smith -d smith -At -c \
	"SELECT format('keys %s, filters %s, states %s, mixed %s rows',
	               (SELECT count(*) FROM keys), (SELECT count(*) FROM filters),
	               (SELECT count(*) FROM states), (SELECT count(*) FROM mixed))")
bf_log "tables: $tables"

# ---- sqlsmith ------------------------------------------------------------------

conninfo="host=$PGHOST port=$PGPORT dbname=smith user=smith"
echo "sqlsmith: $QUERIES queries, seed $SEED (replay: test/sqlsmith_run.sh --queries $QUERIES --seed $SEED)"
start=$(date +%s)
rc=0
timeout -k 10 "$RUN_TIMEOUT" sqlsmith --target="$conninfo" --seed="$SEED" \
	--max-queries="$QUERIES" --exclude-catalog --dump-all-queries --verbose \
	>"$WORK/queries.sql" 2>"$WORK/sqlsmith.err" || rc=$?
elapsed=$(($(date +%s) - start))

ran=$(sed -nE 's/^queries: ([0-9]+).*/\1/p' "$WORK/sqlsmith.err" | tail -n 1)
ran=${ran:-0}
# queries as dumped are separated by ";" lines; count those naming our objects
ext_queries=$(awk 'BEGIN { RS = ";\n" } /bloom|<~|~>/ { n++ } END { print n + 0 }' "$WORK/queries.sql")
errors=$(sed -nE 's/^error rate: ([0-9.]+).*/\1/p' "$WORK/sqlsmith.err" | tail -n 1)
echo "sqlsmith: ran $ran queries in ${elapsed} s; $ext_queries used the extension; error rate ${errors:-?} (errors are expected)"
# sqlsmith reports as it goes; the last report covers the whole run
last=$(grep -n '^queries: ' "$WORK/sqlsmith.err" | tail -n 1 | cut -d: -f1)
timeouts=$(tail -n +"${last:-1}" "$WORK/sqlsmith.err" |
	awk -F '\t' '$2 ~ /canceling statement due to statement timeout/ { n += $1 } END { print n + 0 }')
echo "sqlsmith: $timeouts queries stopped by statement_timeout"
echo "sqlsmith: errors naming the extension's types or functions, by count:"
tail -n +"${last:-1}" "$WORK/sqlsmith.err" | grep -E '^[0-9]+'$'\t''ERROR: ' |
	grep -iE 'bloom|bits_per_key|false-positive' | head -n 15 | sed 's/^/  /' || true

# ---- verdict -----------------------------------------------------------------

problems=()
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	problems+=("sqlsmith did not finish within ${RUN_TIMEOUT} s")
elif [ "$rc" -ne 0 ]; then
	problems+=("sqlsmith exited $rc")
fi
if [ "$ran" -lt "$QUERIES" ]; then
	problems+=("only $ran of $QUERIES queries ran")
fi
crash_lines=$(grep -E 'terminated by signal|server process .* was terminated|PANIC|TRAP:' "$BF_PGLOG" || true)
if [ -n "$crash_lines" ]; then
	problems+=("the server log shows a crash:")
	problems+=("$(head -n 20 <<<"$crash_lines")")
	# the query that killed it, as the log names it
	grep -E -A2 'terminated by signal' "$BF_PGLOG" | grep -E 'Failed process was running' | head -n 3 >&2 || true
fi
if ! "${PSQL[@]}" -U smith -d smith -At -c 'SELECT 1' >/dev/null 2>&1; then
	problems+=("the server no longer answers")
fi

if [ "${#problems[@]}" -eq 0 ]; then
	echo "ok   no crash: $ran random queries, server log clean, server still answering"
	echo "sqlsmith: 1 passed, 0 failed"
else
	echo "FAIL sqlsmith run, seed $SEED:"
	printf '  %s\n' "${problems[@]}"
	tail -n 20 "$WORK/sqlsmith.err" | sed 's/^/  sqlsmith: /'
	keep=${TMPDIR:-/tmp}/bloomfilter-sqlsmith-$SEED
	mkdir -p "$keep"
	cp "$WORK/queries.sql" "$WORK/sqlsmith.err" "$BF_PGLOG" "$keep/" 2>/dev/null || true
	echo "  queries, sqlsmith output and server log kept in $keep"
	echo "sqlsmith: 0 passed, 1 failed"
	exit 1
fi
