#!/usr/bin/env bash
#
# test/memory_check.sh -- a backend's memory while probing and while
# aggregating millions of rows: flat, apart from the aggregate's state and
# its result.
#
#   test/memory_check.sh                 1 million and 10 million rows
#   test/memory_check.sh --rows 20000000 1 million and 20 million rows
#
# On a throw-away cluster (the extension must be installed: make install).
# Each query runs over a million rows and over --rows rows, each time in a
# session of its own that first warms up (library, caches) on 1000 rows.
# Then the backend's peak resident size (VmHWM in /proc/PID/status) is reset
# to its current size by writing 5 to /proc/PID/clear_refs (this needs
# root, or the server's user), the query runs, and the peak is read again:
# its growth is what the query needed.  Rows come from generate_series in
# the select list, which streams; the filters probed are one small enough
# to be stored inline and one of 1.25 MB stored out of line (detoasted once
# per call site by the cache).  Parallel query is off, so that all the work
# is in the one backend measured.
#
# Checks:
#   probes     the growth is the same for both row counts (within 2 MB): no
#              memory per row;
#   bloom_agg  the growth beyond the state's hashes (4 bytes a key), the
#              result filter (10 bits a key) and the final function's own
#              memory (for filters of 4 MB and more: a copy of the bit array
#              per extra thread, or scratch of half the filter, 4 to 64 MB;
#              scratch_kb below) is the same for both row counts
#              (within 8 MB): nothing else grows with the rows;
#   repeats    bloom_agg over 50,000,000 rows of only 1,000 distinct keys
#              ((i % 1000)::text), work_mem 4MB: the growth is below 160 MB,
#              the 62.5 MB filter included (the state keeps each distinct
#              hash once), and the filter is libleveldb's for those 50M keys
#              (test/leveldb/leveldb_diff filter-cycle).
#
# Prints a table of the figures (in MB) and
#   memory: N passed, N failed

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

SMALL=1000000
ROWS=10000000
bf_options '--rows:ROWS' "$@"
[ "$ROWS" -gt "$SMALL" ] || {
	echo "memory_check.sh: --rows must be more than $SMALL" >&2
	exit 2
}

# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh
finish() {
	check_summary memory
}

start_test_cluster memory
PSQL=("$(bf_pg_bindir)/psql" -X -q -v ON_ERROR_STOP=1)

# mem.sh reset|read PID LABEL: one line "LABEL reset|read ok VmHWM VmRSS RssAnon" (kB)
cat >"$WORK/mem.sh" <<'EOF'
#!/bin/sh
what=$1 pid=$2 label=$3 ok=-
if [ "$what" = reset ]; then
	if { printf '5\n' >"/proc/$pid/clear_refs"; } 2>/dev/null; then ok=1; else ok=0; fi
fi
awk -v l="$label" -v w="$what" -v ok="$ok" '
	/^(VmHWM|VmRSS|RssAnon):/ { v[substr($1, 1, length($1) - 1)] = $2 }
	END { printf "%s %s %s %d %d %d\n", l, w, ok, v["VmHWM"], v["VmRSS"], v["RssAnon"] }' "/proc/$pid/status"
EOF
chmod 755 "$WORK/mem.sh"

"${PSQL[@]}" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (name text PRIMARY KEY, f bloomfilter);
INSERT INTO filters SELECT 'small', bloom_agg(i::text, 10) FROM generate_series(1, 1000) i;
INSERT INTO filters SELECT 'big', bloom_agg(i::text, 10) FROM generate_series(1, 1000000) i;
SQL
"${PSQL[@]}" -At -c "SELECT name, octet_length(f::text) / 2 - 1, pg_column_size(f) FROM filters ORDER BY name" |
	while IFS='|' read -r name bytes stored; do
		bf_log "filter $name: $bytes bytes, $stored bytes stored"
	done

# ---- one session per query: warm up, reset, query, read ------------------------

# A session of its own for each query, so that memory freed by an earlier
# query (and kept by the allocator) cannot hide what this one needs.
run_session() {
	local label=$1 sql=$2 script=$WORK/$1.sql
	cat >"$script" <<SQL
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT pg_backend_pid() AS pid \gset
\setenv BF_MEM_PID :pid
-- warm up: the library, the catalog caches, the filters' pages
SELECT count(*) FROM (SELECT generate_series(1, 1000)::text AS k) s
 WHERE k <~ (SELECT f FROM filters WHERE name = 'big')
   AND k <~ (SELECT f FROM filters WHERE name = 'small')
   AND (SELECT f FROM filters WHERE name = 'big') ~> k::bytea;
SELECT bloom_agg(k, 10) IS NOT NULL FROM (SELECT generate_series(1, 1000)::text AS k) s;
\! "$WORK/mem.sh" reset "\$BF_MEM_PID" $label
$sql;
\! "$WORK/mem.sh" read "\$BF_MEM_PID" $label
SQL
	chmod 644 "$script"
	"${PSQL[@]}" -At -f "$script" >>"$WORK/session.out" 2>&1
}

start=$(date +%s)
for n in "$SMALL" "$ROWS"; do
	while IFS='|' read -r label sql; do
		if ! run_session "$label-$n" "${sql//@N@/$n}"; then
			cat "$WORK/session.out"
			fail "the measuring session for $label over $n rows failed"
			finish
			exit 1
		fi
	done <<'QUERIES'
rows|SELECT count(*) FROM (SELECT generate_series(1, @N@)::text AS k) s
probe-inline|SELECT count(*) FROM (SELECT generate_series(1, @N@)::text AS k) s WHERE k <~ (SELECT f FROM filters WHERE name = 'small')
probe-stored|SELECT count(*) FROM (SELECT generate_series(1, @N@)::text AS k) s WHERE k <~ (SELECT f FROM filters WHERE name = 'big')
probe-bytea|SELECT count(*) FROM (SELECT int4send(generate_series(1, @N@)) AS k) s WHERE (SELECT f FROM filters WHERE name = 'big') ~> k
bloom_agg|SELECT bloom_agg(k, 10) IS NOT NULL FROM (SELECT generate_series(1, @N@)::text AS k) s
QUERIES
done
# 50M rows of 1,000 distinct keys: memory follows the distinct keys
REPEATS=50000000
if ! run_session repeats "SET work_mem = '4MB'; SELECT 'md5=' || md5(bloom_agg((i % 1000)::text, 10)::bytea) FROM generate_series(1, $REPEATS) i"; then
	cat "$WORK/session.out"
	fail "the measuring session for the repeated keys failed"
	finish
	exit 1
fi
bf_log "measured in $(($(date +%s) - start)) s"
if grep -q ' reset 0 ' "$WORK/session.out"; then
	fail "could not reset VmHWM (writing /proc/PID/clear_refs needs root or the server's user)"
	finish
	exit 1
fi

# ---- figures ---------------------------------------------------------------------

# growth LABEL: peak after the query minus the size at the reset, in kB
growth() {
	awk -v l="$1" '
		$1 == l && $2 == "reset" { base = $5 }
		$1 == l && $2 == "read" { peak = $4 }
		END { if (base == "" || peak == "") exit 1; print peak - base }' "$WORK/session.out"
}
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# the state's hashes of n keys: 4 bytes a key (in chunks that grow with the
# state and are never copied; only the part written is resident)
state_kb() { awk -v n="$1" 'BEGIN { printf "%d", n * 4 / 1024 }'; }
# the filter of n keys at 10 bits per key
filter_kb() { awk -v n="$1" 'BEGIN { printf "%d", (n * 10 / 8 + 1) / 1024 }'; }
# the final's own memory for that filter (src/core/bloom_final.c), for a
# filter of at least 2^25 bits: on T threads (bloomfilter.max_final_threads'
# default, the CPUs the server may run on, at most 64 and one per 2^18
# keys), a copy of the bit array for each thread but the first when each is
# at most 8 MB and they take at most 64 MB; else scratch of a 4-byte
# position per 64 bits, within 2^20 and 2^24 positions.  nproc counts the
# CPUs of the affinity mask, as the server does.
CPUS=$(nproc 2>/dev/null || echo 1)
scratch_kb() {
	awk -v n="$1" -v cpus="$CPUS" 'BEGIN {
		bits = n * 10; words = int(bits / 64); bytes = int((bits + 7) / 8)
		if (bits < 2 ^ 25) { print 0; exit }
		t = cpus; if (t > 64) t = 64; if (int(n / 2 ^ 18) < t) t = int(n / 2 ^ 18)
		if (t >= 2 && bytes <= 8 * 2 ^ 20 && (t - 1) * bytes <= 64 * 2 ^ 20) { printf "%d", (t - 1) * bytes / 1024; exit }
		if (words < 2 ^ 20) words = 2 ^ 20
		if (words > 2 ^ 24) words = 2 ^ 24
		printf "%d", words * 4 / 1024 }'
}

printf '\n%-14s %14s %14s   %s\n' "query" "$SMALL rows" "$ROWS rows" "(growth of the backend's peak RSS, MB)"
for label in rows probe-inline probe-stored probe-bytea bloom_agg; do
	a=$(growth "$label-$SMALL") b=$(growth "$label-$ROWS")
	printf '%-14s %14s %14s\n' "$label" "$(mb "$a")" "$(mb "$b")"
done
echo

for label in probe-inline probe-stored probe-bytea; do
	a=$(growth "$label-$SMALL") b=$(growth "$label-$ROWS")
	if [ $((b - a)) -le 2048 ]; then
		pass "$label: flat, $(mb "$a") MB at $SMALL rows, $(mb "$b") MB at $ROWS rows"
	else
		fail "$label: grows with rows, $(mb "$a") MB at $SMALL rows, $(mb "$b") MB at $ROWS rows"
	fi
done

a=$(growth "bloom_agg-$SMALL") b=$(growth "bloom_agg-$ROWS")
sa=$(state_kb "$SMALL") sb=$(state_kb "$ROWS")
fa=$(filter_kb "$SMALL") fb=$(filter_kb "$ROWS")
ka=$(scratch_kb "$SMALL") kb=$(scratch_kb "$ROWS")
oa=$((a - sa - fa - ka)) ob=$((b - sb - fb - kb))
tolerance=8192
echo "bloom_agg: state $(mb "$sa") / $(mb "$sb") MB, result filter $(mb "$fa") / $(mb "$fb") MB," \
	"final's copies or scratch $(mb "$ka") / $(mb "$kb") MB; growth beyond them $(mb "$oa") / $(mb "$ob") MB ($SMALL / $ROWS rows)"
if [ $((ob - oa)) -le "$tolerance" ]; then
	pass "bloom_agg: apart from the state, the result and the scratch, flat ($(mb "$oa") MB at $SMALL rows, $(mb "$ob") MB at $ROWS rows)"
else
	fail "bloom_agg: beyond the state, the result and the scratch, $(mb "$oa") MB at $SMALL rows but $(mb "$ob") MB at $ROWS rows"
fi


make -s test/leveldb/leveldb_diff >/dev/null
want=$(test/leveldb/leveldb_diff filter-cycle 10 "$REPEATS" 1000 2>/dev/null | md5sum | cut -d' ' -f1)
got=$(sed -n 's/^md5=//p' "$WORK/session.out")
r=$(growth repeats)
echo "repeats: $REPEATS rows of 1000 distinct keys, growth $(mb "$r") MB (limit 160 MB)"
if [ "$r" -lt $((160 * 1024)) ]; then
	pass "repeats: $(mb "$r") MB for $REPEATS rows of 1,000 distinct keys, the 62.5 MB filter included"
else
	fail "repeats: $(mb "$r") MB for $REPEATS rows of 1,000 distinct keys (limit 160 MB)"
fi
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	pass "repeats: the filter is libleveldb's (md5 $want)"
else
	fail "repeats: filter md5 '$got', libleveldb's '$want'"
fi

finish
