#!/usr/bin/env bash
#
# bench/final_bench.sh -- bloom_agg's scaling: the final's threads, parallel
# workers, and where the parallel time goes.  Every query is timed by
# pgbench (bench_time: a session of its own, whose settings are made in an
# untimed first transaction; per-transaction log), the variants interleaved
# round by round, so that the ratios come from one run on the same load.
#
#   bench/final_bench.sh                 10,000,000 md5 keys, 5 rounds
#   bench/final_bench.sh --quick         200,000 keys, 1 round (a smoke test)
#   bench/final_bench.sh --scaling       time and speed-up of count(k),
#                                        hll_add_agg, bloom_agg and
#                                        bloom_agg_partial for 0, 1, 2, 4, 8
#                                        and 15 workers (those the machine
#                                        allows)
#   options: --keys N, --reps R, --no-build
#
# With PG_CONFIG (or PGBIN) naming a PostgreSQL of its own, such as the
# benchmarks' kit on a machine with no package archive, it runs that one
# and installs no package; --no-build then uses the extension (and hll)
# already installed there:
#   PG_CONFIG=/opt/pgdev/bin/pg_config bench/final_bench.sh --scaling --keys 100000000 --no-build
#
# Tables:
#   1. serial: count(k), bloom_agg(k, 10) with bloomfilter.max_final_threads
#      1, 2 and 4, hll_add_agg(hll_hash_text(k)) when postgresql-hll is
#      installed, and the floor (below); ratios to count(k) and hll;
#   2. 2 workers: bloom_agg, count(k) and the floor, and their speed-up
#      over serial;
#   3. the final alone, bloom_agg_finalfn over a stored state of all keys,
#      by bloomfilter.max_final_threads (decoding the state included);
#      then the targets as the time they leave past the floor;
#   4. the parallel plan's parts, from EXPLAIN ANALYZE (the workers' partial
#      aggregates, the leader's combine and final), and the size of a
#      worker's state in its binary and text forms.
# Results are saved as bench/out/final-<UTC time>.md too.

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'KEYS=10000000 REPS=5 scaling=' '--keys:KEYS --reps:REPS --scaling:scaling=1' 'KEYS=200000 REPS=1' "$@"

bench_cluster
CORES=$(nproc)
MAX_WORKERS=15
shared_mb=$(bench_shared_buffers_mb $((KEYS / 10000 * 2)) 256)
bf_log "configuring: shared_buffers = ${shared_mb}MB, jit off, $MAX_WORKERS parallel workers at most"
bench_configure "shared_buffers = '${shared_mb}MB'" "jit = off" "autovacuum = off" \
	"max_worker_processes = $((MAX_WORKERS + 2))" "max_parallel_workers = $MAX_WORKERS"
bench_create_extensions
bf_log "making $KEYS md5 keys"
psql_c "CREATE TABLE k AS SELECT md5(i::text) AS k FROM generate_series(1, $KEYS) i" >/dev/null
psql_c "VACUUM ANALYZE k" >/dev/null
# The planner gives a table 1 worker and one more for each tripling of its
# size past min_parallel_table_scan_size (13 for 100M keys), whatever a
# query allows: --scaling's 15 workers need the table's own setting.
psql_c "ALTER TABLE k SET (parallel_workers = $MAX_WORKERS)" >/dev/null
psql_c "SELECT count(*) FROM k" >/dev/null
# warm LABEL SETTINGS QUERY: QUERY timed after one untimed run in the same
# session.  A new backend's first scan maps the table's shared buffers into
# its page table, a page fault for each 4 kB page without huge pages: about
# 850 ms for this 650 MB table here, whatever the query.  Parallel workers
# are new processes every time and pay it on their share of the pages.
warm() {
	bench_time "$1" "$3" "$2 $3"
}

serial="SET max_parallel_workers_per_gather = 0;"
two="SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = on;"
# The floor: about what bloom_agg cannot do without.  Every key is read and
# LevelDB-hashed by one of our C calls per row, as the transition does, and
# nothing is stored: the probe of an empty 8-byte filter (a constant, cached
# by the call site) stops at its first clear bit.  Its qual and probe cost a
# little that the transition does not pay, so it is an estimate, not a bound.
floor="SELECT count(*) FILTER (WHERE k <~ bloom_empty(1, 10)) FROM k;"
: >"$WORK/times"
for round in $(seq 1 "$REPS"); do
	bf_log "round $round of $REPS"
	warm "count serial" "$serial" "SELECT count(k) FROM k;"
	for t in 1 2 4; do
		warm "bloom_agg serial, $t final threads" "$serial SET bloomfilter.max_final_threads = $t;" "SELECT length(bloom_agg(k, 10)::bytea) FROM k;"
	done
	[ -z "$HLL" ] || warm "hll serial" "$serial" "SELECT hll_cardinality(hll_add_agg(hll_hash_text(k))) FROM k;"
	warm "floor serial" "$serial" "$floor"
	warm "count 2 workers" "$two" "SELECT count(k) FROM k;"
	warm "floor 2 workers" "$two" "$floor"
	warm "bloom_agg 2 workers" "$two" "SELECT length(bloom_agg(k, 10)::bytea) FROM k;"
done

stats=$(bench_stats <"$WORK/times" | sort)
med() { awk -F'|' -v l="$1" '$1 == l { print $2 }' <<<"$stats"; }

REPORT=$OUT_DIR/final-$STAMP.md
mkdir -p "$OUT_DIR"
{
	bench_machine_report "keys:        $KEYS md5 keys, $REPS rounds, timed by pgbench after an untimed run in the same session" \
		"final threads: at most the $CORES CPUs online, whatever bloomfilter.max_final_threads asks for" \
		"shared memory on huge pages: $(psql_c "SHOW huge_pages") asked; HugePages_Free now $(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)"
	echo
	echo "#### 1. Serial, ms (median, min-max of $REPS)"
	echo
	echo "| query | median | min | max | / count(k) |"
	echo "|---|---|---|---|---|"
	while IFS='|' read -r label m lo hi _; do
		case $label in *serial*) ;; *) continue ;; esac
		echo "| $label | $m | $lo | $hi | $(bench_ratio "$m" "$(med "count serial")") |"
	done <<<"$stats"
	if [ -n "$HLL" ]; then
		for t in 1 2 4; do
			echo "bloom_agg ($t final threads) / hll_add_agg: $(bench_ratio "$(med "bloom_agg serial, $t final threads")" "$(med "hll serial")")"
		done
	else
		echo "hll: not installed (postgresql-15-hll), no comparison"
	fi
	echo
	echo "#### 2. 2 workers, ms"
	echo
	echo "| query | median | serial / 2 workers |"
	echo "|---|---|---|"
	echo "| count(k) | $(med "count 2 workers") | $(bench_ratio "$(med "count serial")" "$(med "count 2 workers")") |"
	echo "| floor (keys read and hashed, nothing stored) | $(med "floor 2 workers") | $(bench_ratio "$(med "floor serial")" "$(med "floor 2 workers")") |"
	echo "| bloom_agg(k, 10) | $(med "bloom_agg 2 workers") | $(bench_ratio "$(med "bloom_agg serial, 4 final threads")" "$(med "bloom_agg 2 workers")") (against 4 final threads serial) |"
} | tee "$REPORT"

# ---- 3. the final alone, by threads ------------------------------------------

psql_c "SET max_parallel_workers_per_gather = 0; CREATE TABLE st AS SELECT bloom_agg_partial(k, 10) AS s FROM k" >/dev/null
: >"$WORK/times"
for round in $(seq 1 "$REPS"); do
	for t in 1 2 4 8; do
		warm "$t" "SET bloomfilter.max_final_threads = $t;" "SELECT length(bloom_agg_finalfn(s)::bytea) FROM st;"
	done
done
final_stats=$(bench_stats <"$WORK/times" | sort -n)
{
	echo
	echo "#### 3. bloom_agg_finalfn over a stored state of $KEYS keys, by bloomfilter.max_final_threads, ms"
	echo
	echo "| threads | median | min | max | speed-up |"
	echo "|---|---|---|---|---|"
	one=$(awk -F'|' '$1 == "1" { print $2 }' <<<"$final_stats")
	while IFS='|' read -r t m lo hi _; do
		echo "| $t | $m | $lo | $hi | $(bench_ratio "$one" "$m") |"
	done <<<"$final_stats"
} | tee -a "$REPORT"

# ---- what the floor leaves ----------------------------------------------------

# The targets as budgets: the time left past the floor for all that
# bloom_agg does besides reading and hashing the keys (storing the hashes,
# moving and merging the states, the final), against what it takes now.
fastest_final=$(awk -F'|' 'NR == 1 || $2 < m { m = $2 } END { print m }' <<<"$final_stats")
# target_row LABEL MOST FLOOR NOW: MOST is the most bloom_agg may take, NOW
# what it takes.
target_row() {
	awk -v l="$1" -v most="$2" -v f="$3" -v now="$4" \
		'BEGIN { printf "| %s | %.0f | %s | %.0f | %.0f |\n", l, most, f, most - f, now - f }'
}
{
	echo
	echo "#### What the floor leaves (every key read and hashed, nothing stored), ms"
	echo
	b1=$(med "bloom_agg serial, 4 final threads")
	c1=$(med "count serial")
	f1=$(med "floor serial")
	f2=$(med "floor 2 workers")
	echo "| target | bloom_agg must take at most | floor | left for storing, moving and the final | taken now |"
	echo "|---|---|---|---|---|"
	target_row "serial ≤ 1.3× count(k)" "$(awk -v c="$c1" 'BEGIN { print 1.3 * c }')" "$f1" "$b1"
	[ -z "$HLL" ] || target_row "serial faster than hll_add_agg" "$(med "hll serial")" "$f1" "$b1"
	target_row "2 workers ≥ 1.6× serial" "$(awk -v b="$b1" 'BEGIN { print b / 1.6 }')" "$f2" "$(med "bloom_agg 2 workers")"
	echo
	echo "bloom_agg serial is taken with 4 final threads asked. The final alone (table 3's fastest, a stored state's decoding included): $fastest_final."
} | tee -a "$REPORT"

# ---- 4. the parallel plan's parts ----------------------------------------------

plan=$(psql_c "$two EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) SELECT length(bloom_agg(k, 10)::bytea) FROM k")
third=$((KEYS / 3))
sizes=$(psql_c "$serial SELECT pg_column_size(s), length(s::text) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM (SELECT k FROM k LIMIT $third) x) y")
{
	echo
	echo "#### 4. Where the 2-worker time goes (EXPLAIN ANALYZE, which adds its own overhead), ms"
	echo
	awk '
		/Finalize Aggregate/ { match($0, /actual time=[0-9.]+\.\.[0-9.]+/); split(substr($0, RSTART + 12, RLENGTH - 12), f, "\\.\\."); fin = f[2] }
		/->  Gather/ { match($0, /actual time=[0-9.]+\.\.[0-9.]+/); split(substr($0, RSTART + 12, RLENGTH - 12), g, "\\.\\."); gat = g[2] }
		/->  Partial Aggregate/ { match($0, /actual time=[0-9.]+\.\.[0-9.]+/); split(substr($0, RSTART + 12, RLENGTH - 12), p, "\\.\\."); part = p[2] }
		END {
			printf "| step | ms |\n|---|---|\n"
			printf "| partial aggregates (scan, hashing; per process, average) | %s |\n", part
			printf "| gather done (the states serialized, moved, read) | %s |\n", gat
			printf "| leader: combine and final | %.1f |\n", fin - gat
			printf "| total | %s |\n", fin
		}' <<<"$plan"
	echo
	echo "A worker's state of $third distinct keys: ${sizes%%|*} bytes binary ($(bench_ratio "${sizes%%|*}" "$third") a key), ${sizes#*|} text ($(bench_ratio "${sizes#*|}" "$third") a key)."
} | tee -a "$REPORT"

# ---- scaling over workers ------------------------------------------------------

if [ -n "$scaling" ]; then
	: >"$WORK/times"
	bench_worker_counts 0,1,2,4,8,15 "$MAX_WORKERS"
	for round in $(seq 1 "$REPS"); do
		for w in "${WORKER_COUNTS[@]}"; do
			set_w="SET max_parallel_workers_per_gather = $w; SET parallel_setup_cost = 0; SET min_parallel_table_scan_size = 0;"
			warm "bloom_agg|$w" "$set_w" "SELECT length(bloom_agg(k, 10)::bytea) FROM k;"
			warm "count|$w" "$set_w" "SELECT count(k) FROM k;"
			[ -z "$HLL" ] || warm "hll|$w" "$set_w" "SELECT hll_cardinality(hll_add_agg(hll_hash_text(k))) FROM k;"
			# the two-phase state as a shard sends it: flattened
			warm "partial|$w" "$set_w" "SELECT pg_column_size(bloom_agg_partial(k, 10)) FROM k;"
		done
	done
	{
		echo
		echo "#### Scaling over parallel workers, $KEYS keys, ms (median of $REPS)"
		echo
		echo "| workers | count(k) | speed-up | hll_add_agg | bloom_agg | speed-up | bloom_agg / hll | bloom_agg_partial | partial / bloom_agg |"
		echo "|---|---|---|---|---|---|---|---|---|"
		awk -F'|' '{ print $1 "/" $2 "|" $3 }' "$WORK/times" | bench_stats | awk -F'|' '{ split($1, a, "/"); print a[2] "|" a[1] "|" $2 }' | sort -t'|' -k1,1n |
			awk -F'|' '
				function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
				{ t[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
				END {
					for (i = 1; i <= n; i++) {
						w = order[i]
						printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w,
							t[w, "count"], ratio(t[0, "count"], t[w, "count"]),
							((w, "hll") in t) ? t[w, "hll"] : "-",
							t[w, "bloom_agg"], ratio(t[0, "bloom_agg"], t[w, "bloom_agg"]),
							ratio(t[w, "bloom_agg"], t[w, "hll"]),
							t[w, "partial"], ratio(t[w, "partial"], t[w, "bloom_agg"])
					}
				}'
		[ "${#SKIPPED_COUNTS[@]}" -eq 0 ] || echo "skipped worker counts: ${SKIPPED_COUNTS[*]} (the machine has $CORES cores; counts above twice that only measure contention)"
	} | tee -a "$REPORT"
fi
echo
bf_log "saved to $REPORT"
