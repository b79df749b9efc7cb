#!/usr/bin/env bash
#
# test/concurrency_test.sh -- many sessions changing and reading the same
# filters at once: no error, no crash, no lost key.
#
#   test/concurrency_test.sh              8 clients for 60 s
#   test/concurrency_test.sh --time 600   longer
#
# On a throw-away cluster (the extension must be installed: make install),
# pgbench runs three scripts at once on a shared table of 20 filters (half
# small and stored inline, half of 12.5 kB and stored out of line):
#
#   add    (weight 5)  in one transaction: UPDATE filters SET f =
#                      bloom_add(f, key) for a random filter, and INSERT the
#                      key into a log table
#   probe  (weight 4)  every logged key of a random filter must match it
#                      (<~); both tables are read under one snapshot, so a
#                      key committed without its bits would show here
#   build  (weight 1)  bloom_agg over a filter's logged keys, which must then
#                      match every one of them
#
# A failed check raises an error inside pgbench (a division by zero), which
# fails the run.  Afterwards: pgbench reported no failed or aborted
# transaction; every logged key and every initial key matches its filter;
# every filter kept its size and k; the server log shows no crash.
#
# Prints "concurrency: N passed, N failed".

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

DURATION=60
CLIENTS=8
while [ $# -gt 0 ]; do
	case $1 in
	--time)
		DURATION=${2:?--time needs seconds}
		shift 2
		;;
	--clients)
		CLIENTS=${2:?--clients needs a number}
		shift 2
		;;
	-h | --help)
		sed -n '3,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "concurrency_test.sh: unknown argument $1" >&2
		exit 2
		;;
	esac
done
for v in "$DURATION" "$CLIENTS"; do
	case $v in '' | *[!0-9]*)
		echo "concurrency_test.sh: --time and --clients take whole numbers" >&2
		exit 2
		;;
	esac
done

# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh
finish() {
	check_summary concurrency
}

start_test_cluster concurrency
BIN=$(bf_pg_bindir)
PSQL=("$BIN/psql" -X -q -v ON_ERROR_STOP=1)
q() { "${PSQL[@]}" -At -c "$1"; }

"${PSQL[@]}" <<'SQL'
CREATE EXTENSION bloomfilter;
-- the keys each filter starts with: 100 (inline) or 10000 (out of line)
CREATE TABLE initial (fid int, key text);
INSERT INTO initial
  SELECT fid, 'init-' || fid || '-' || i
    FROM generate_series(1, 20) fid,
         LATERAL generate_series(1, CASE WHEN fid <= 10 THEN 100 ELSE 10000 END) i;
CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter NOT NULL);
INSERT INTO filters SELECT fid, bloom_agg(key, 10) FROM initial GROUP BY fid;
CREATE TABLE shape AS SELECT id, octet_length(f::text) AS textlen, right(f::text, 2) AS kbyte FROM filters;
-- every key bloom_add put in, logged in the same transaction
CREATE TABLE added (fid int NOT NULL, key text NOT NULL);
CREATE INDEX ON added (fid);
SQL
bf_log "filters: $(q "SELECT count(*) FILTER (WHERE pg_column_size(f) < 2000) || ' inline, ' ||
                             count(*) FILTER (WHERE pg_column_size(f) >= 2000) || ' out of line' FROM filters")"

cat >"$WORK/add.sql" <<'SQL'
\set fid random(1, 20)
\set n random(1, 2000000000)
BEGIN;
UPDATE filters SET f = bloom_add(f, 'key-' || :client_id || '-' || :n) WHERE id = :fid;
INSERT INTO added VALUES (:fid, 'key-' || :client_id || '-' || :n);
COMMIT;
SQL
cat >"$WORK/probe.sql" <<'SQL'
\set fid random(1, 20)
SELECT 1 / (count(*) = 0)::int AS no_key_lost
  FROM added a JOIN filters f ON f.id = a.fid
 WHERE a.fid = :fid AND NOT (a.key <~ f.f);
SQL
cat >"$WORK/build.sql" <<'SQL'
\set fid random(1, 20)
SELECT 1 / (count(*) = 0)::int AS built_filter_matches
  FROM added a
 WHERE a.fid = :fid
   AND NOT (a.key <~ (SELECT bloom_agg(key, 10) FROM added WHERE fid = :fid));
SQL
chmod 644 "$WORK"/*.sql

echo "concurrency: pgbench, $CLIENTS clients for $DURATION s: add (5) / probe (4) / build (1)"
rc=0
"$BIN/pgbench" -n -c "$CLIENTS" -j 2 -T "$DURATION" -P 10 \
	-f "$WORK/add.sql@5" -f "$WORK/probe.sql@4" -f "$WORK/build.sql@1" \
	>"$WORK/pgbench.log" 2>&1 || rc=$?
grep -vE '^(pgbench \(|transaction type|scaling factor|query mode|number of threads|maximum number of tries|duration|initial connection time|latency stddev)' \
	"$WORK/pgbench.log" | sed 's/^/  /'

processed=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$WORK/pgbench.log" | head -n 1)
failed_tx=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$WORK/pgbench.log" | head -n 1)
if [ "$rc" -eq 0 ] && [ -n "$processed" ] && [ "$processed" -gt 0 ] && [ "${failed_tx:-0}" -eq 0 ] &&
	! grep -qiE 'aborted|error' "$WORK/pgbench.log"; then
	pass "pgbench: $processed transactions, none failed or aborted"
else
	fail "pgbench: exit $rc, ${processed:-no} transactions processed, ${failed_tx:-?} failed"
fi

added=$(q "SELECT count(*) FROM added")
lost=$(q "SELECT count(*) FROM added a JOIN filters f ON f.id = a.fid WHERE NOT (a.key <~ f.f)")
if [ "$added" -gt 0 ] && [ "$lost" -eq 0 ]; then
	pass "every one of $added keys added by bloom_add matches its filter"
else
	fail "$lost of $added added keys do not match their filter"
fi

lost=$(q "SELECT count(*) FROM initial i JOIN filters f ON f.id = i.fid WHERE NOT (i.key <~ f.f)")
total=$(q "SELECT count(*) FROM initial")
if [ "$lost" -eq 0 ]; then
	pass "every one of $total initial keys still matches its filter"
else
	fail "$lost of $total initial keys no longer match their filter"
fi

changed=$(q "SELECT count(*) FROM filters f JOIN shape s USING (id)
              WHERE octet_length(f.f::text) <> s.textlen OR right(f.f::text, 2) <> s.kbyte")
if [ "$changed" -eq 0 ]; then
	pass "every filter kept its size and k"
else
	fail "$changed filters changed size or k"
fi

crash=$(grep -E 'terminated by signal|server process .* was terminated|PANIC' "$BF_PGLOG" || true)
if [ -z "$crash" ] && q "SELECT 1" >/dev/null 2>&1; then
	pass "server log shows no crash, server still answering"
else
	fail "server crashed: $crash"
fi

finish
