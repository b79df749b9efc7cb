#!/usr/bin/env bash
#
# bench/run.sh -- is bloomfilter faster than LevelDB itself, byte for byte,
# and what does it cost in SQL?  One command from a clone:
#
#     bench/run.sh            # the full run, a few minutes on 2 cores
#     bench/run.sh --quick    # smoke test: tiny data, 1 run; checks that
#                             # everything runs and the filters are identical
#
# It installs the Debian packages it needs (as root: PostgreSQL 15, its
# server headers, libleveldb-dev, postgresql-15-hll), builds the extension
# and bench/core_bench, installs the extension, starts a throw-away
# PostgreSQL 15 cluster, measures, prints Markdown tables, and stops the
# cluster.  Every figure is measured in this run, on the machine it runs
# on; nothing is hard-coded.  The report is also saved as
# bench/out/run-<UTC time>.md.
#
# Options:
#   --keys N      rows of the SQL table (default 10000000)
#   --reps R      timed runs of each figure (default 5; SQL queries also get
#                 a warm-up round under EXPLAIN ANALYZE, and an untimed run
#                 before each timed one)
#   --core-keys LIST   key counts of the core benchmark (default
#                 1000000,10000000)
#   --quick       --keys 20000 --reps 1 and a core run of 20000 keys;
#                 explicit options win
#   --no-build    use the extension already installed (bench/core_bench is
#                 still brought up to date)
#   --no-core     skip the core benchmark
#   --no-sql      skip the SQL benchmarks
#   -h, --help    this text
# An option's value may also follow an "=" (--keys=N), as in the other
# benchmark scripts.
#
# What is measured:
#   1. Core vs LevelDB (bench/core_bench): build and probe with the C core
#      and with libleveldb's NewBloomFilterPolicy(bpk), on the same keys, in
#      ns per key of the benchmark thread's CPU time; the filters are
#      compared byte for byte after every build.
#   2. SQL aggregates over N keys md5(i::text) (32 characters), serially and
#      with 2 parallel workers plus the leader: count(k), bloom_agg(k, 10),
#      bloom_agg without its final function, hll_add_agg(hll_hash_text(k)).
#   3. Probe scan: count(*) WHERE k <~ (a stored filter, read by a scalar
#      subquery) against count(*) WHERE hashtext(k) % 1000 = 0, serially.
#   4. Join pre-check: a 100,000-key set, half of it absent from the N-row
#      table, joined with IN, with and without a <~ pre-check, both ways
#      round.
# SQL times are pgbench's latency of a one-row query, each run in a session
# of its own right after an untimed run of the same query (bench_time in
# bench/lib/common.sh), in rounds whose order rotates, with the tables in
# shared buffers and JIT off.
#
# Ends with "bench-smoke: N passed, N failed" (--quick) or "bench-checks:
# N passed, N failed": the checks that filters are identical and that
# queries with and without the pre-check agree.  Timings are never checks.

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'KEYS=10000000 REPS=5 CORE_KEYS=1000000,10000000 BITS=10 DO_CORE=1 DO_SQL=1' \
	'--keys:KEYS:1000 --reps:REPS --core-keys:CORE_KEYS:list --no-core:DO_CORE= --no-sql:DO_SQL=' \
	'KEYS=20000 REPS=1 CORE_KEYS=20000' "$@"
SMOKE_LABEL=bench-checks
[ -z "$QUICK" ] || SMOKE_LABEL=bench-smoke

# ---- checks (never timings) -------------------------------------------------

# bench_check's list, and the count the test command reads
finish() {
	echo
	echo "== Checks"
	[ "${#BENCH_CHECK_LINES[@]}" -eq 0 ] || printf '%s\n' "${BENCH_CHECK_LINES[@]}"
	bench_checks_line "$SMOKE_LABEL"
}
# the conditions of the checks
core_identical() { [ "$n_cfg" -gt 0 ] && [ "$n_same" -eq "$n_cfg" ]; }
parallel_identical() { [ -n "$serial_md5" ] && [ "$serial_md5" = "$par_md5" ] && [ "$par_plan" -ge 1 ]; }
both_found() { [ "${VAL[$1]:-x}" = "$HALF" ] && [ "${VAL[$2]:-y}" = "$HALF" ]; }
scans_match() { [ "${VAL[serial.scan.small]:-0}" -ge "$SMALL" ] && [ "${VAL[serial.scan.large]:-0}" -ge "$LARGE" ]; }
launched_two() {
	local k
	for k in "$@"; do
		[ "${LAUNCHED[$k]:-0}" -ge 2 ] || return 1
	done
}

# ---- dependencies, build ----------------------------------------------------

bf_ensure_deps --leveldb --bench
bf_mktemp_dir WORK
chmod 755 "$WORK"

if [ -n "$DO_CORE" ]; then
	bf_log "building bench/core_bench (log: $WORK/build.log)"
	if ! bf_make bench/core_bench >"$WORK/build.log" 2>&1; then
		tail -n 40 "$WORK/build.log" >&2
		bench_check "bench/core_bench builds" false
		finish || exit 1
	fi
fi
if [ -n "$DO_SQL" ] && [ -n "$BUILD" ]; then
	bf_log "building and installing the extension (log: $WORK/build.log)"
	if ! bf_make >>"$WORK/build.log" 2>&1 || ! bf_make_install >>"$WORK/build.log" 2>&1; then
		tail -n 40 "$WORK/build.log" >&2
		bench_check "the extension builds and installs" false
		finish || exit 1
	fi
fi

bench_run_info

REPORT=$WORK/report.md
{
	echo "## bench/run.sh$([ -z "$QUICK" ] || echo ' --quick (smoke test: the times mean nothing)')"
	echo
	echo "$RUN_DATE, bloomfilter at commit $GIT_REV."
	echo
	echo '```'
	bench_machine
	echo '```'
} >"$REPORT"

# ---- 1. core vs LevelDB ------------------------------------------------------

if [ -n "$DO_CORE" ]; then
	core_args=(--keys "$CORE_KEYS" --bpk "10,20" --reps "$REPS")
	bf_log "core vs LevelDB: bench/core_bench ${core_args[*]}"
	ticks0=$(bench_cpu_ticks)
	rc=0
	bench/core_bench "${core_args[@]}" >"$WORK/core.out" 2>"$WORK/core.err" || rc=$?
	ticks1=$(bench_cpu_ticks)
	cat "$WORK/core.err" >&2
	bench_check "bench/core_bench runs (exit $rc)" [ "$rc" -eq 0 ]
	n_cfg=$(grep -c '^I|' "$WORK/core.out" || true)
	n_same=$(grep -c '^I|[^|]*|[^|]*|identical|same answers|' "$WORK/core.out" || true)
	bench_check "core filters byte-identical to libleveldb's, same probe answers ($n_same of $n_cfg key counts x bits_per_key)" \
		core_identical
	read -r busy steal <<<"$(bench_cpu_share "$ticks0" "$ticks1")"
	{
		echo
		echo "### 1. Core vs LevelDB: build and probe, ns per key"
		echo
		echo "\`bench/core_bench ${core_args[*]}\`: keys of 32 hex characters; LevelDB is Debian's libleveldb"
		echo "(\`NewBloomFilterPolicy(bpk)\`: \`CreateFilter\`, \`KeyMayMatch\`), the core is this repository's C"
		echo "core compiled with the extension's flags. Build = hash every key + size + set the bits (for"
		echo "the core: hash into an array, then \`bloom_build_from_hashes_scratch\`, as \`bloom_agg\` does). Probe = one"
		echo "call per key, as \`<~\` does per row (the core's prepared geometry is computed once per filter,"
		echo "as the operator's call-site cache does). Each probes the filter its own build wrote (the core"
		echo "asks for huge pages for a big filter, LevelDB's \`std::string\` has none); \"LevelDB on the core's"
		echo "bytes\" probes the core's identical buffer, so that only the probe code differs."
		echo "CPU time of the benchmark thread; median (min–max)"
		echo "of $REPS interleaved runs. Machine busy $busy of the time meanwhile (steal $steal)."
		echo
		echo "| keys | bits/key | operation | LevelDB | LevelDB on the core's bytes | core | speed-up | speed-up, same bytes |"
		echo "|---:|---:|---|---:|---:|---:|---:|---:|"
		awk -F'|' '
			$1 == "R" && $2 ~ /^[0-9]+$/ { k = $2 "|" $3 "|" $4; med[k, $5] = $6; mn[k, $5] = $7; mx[k, $5] = $8; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
			END {
				for (i = 1; i <= n; i++) {
					k = order[i]; split(k, f, "|")
					op = f[3]; sub(/_/, " ", op)
					same = "–"; sameup = "–"
					if ((k, "leveldb_same") in med) {
						same = sprintf("%.1f (%.1f–%.1f)", med[k, "leveldb_same"], mn[k, "leveldb_same"], mx[k, "leveldb_same"])
						sameup = sprintf("%.2f×", med[k, "leveldb_same"] / med[k, "core"])
					}
					printf "| %d | %d | %s | %.1f (%.1f–%.1f) | %s | %.1f (%.1f–%.1f) | %.2f× | %s |\n", f[1], f[2], op,
						med[k, "leveldb"], mn[k, "leveldb"], mx[k, "leveldb"], same,
						med[k, "core"], mn[k, "core"], mx[k, "core"], med[k, "leveldb"] / med[k, "core"], sameup
				}
			}' "$WORK/core.out"
		echo
		if core_identical; then
			echo "Filters byte-identical to libleveldb's after every build, and the same probe answers: **yes** ($n_cfg of $n_cfg)."
		else
			echo "Filters byte-identical to libleveldb's: **NO** ($n_same of $n_cfg); see bench/core_bench's errors."
		fi
	} >>"$REPORT"
fi

# ---- 2-4. SQL -----------------------------------------------------------------

if [ -n "$DO_SQL" ]; then
	bench_psql
	bf_cluster_start
	HALF=$((KEYS >= 2000000 ? 50000 : KEYS / 40)) # keyset: HALF present + HALF absent
	SMALL=$((KEYS / 1000))                        # probe-scan filters: keys in them
	LARGE=$((KEYS / 10))
	[ "$SMALL" -ge 1 ] || SMALL=1
	STEP=$((KEYS / HALF))

	settings=("huge_pages = off" "max_worker_processes = 8" "max_parallel_workers = 8"
		"work_mem = '64MB'" "jit = off" "autovacuum = off" "wal_level = minimal"
		"max_wal_senders = 0" "max_wal_size = '8GB'" "checkpoint_timeout = '1h'")
	if [ -z "$QUICK" ]; then
		SB_MB=$(bench_shared_buffers_mb $((KEYS * 200 / 1048576 + 256)) 1024)
		bf_log "configuring: shared_buffers = ${SB_MB}MB, jit off, restart"
		settings+=("shared_buffers = '${SB_MB}MB'")
	fi
	bench_configure "${settings[@]}"

	bf_log "data: bench_keys ($KEYS rows), bench_keyset ($((2 * HALF)) keys, $HALF absent), an index, stored filters"
	t0=$(date +%s)
	bench_tables 'bench_keys bench_keyset bench_filters' hll <<EOF
CREATE TABLE bench_keys AS
  SELECT i, md5(i::text) AS k FROM generate_series(1, $KEYS) i;
-- $HALF keys of bench_keys (every ${STEP}th) and $HALF keys that are not in it
CREATE TABLE bench_keyset AS
  SELECT md5(i::text) AS k FROM generate_series(1, $((STEP * HALF)), $STEP) i
  UNION ALL
  SELECT md5('absent-' || i) FROM generate_series(1, $HALF) i;
CREATE INDEX bench_keys_k ON bench_keys (k);
CREATE TABLE bench_filters (name text PRIMARY KEY, keys bigint, f bloomfilter NOT NULL);
INSERT INTO bench_filters SELECT 'small', count(*), bloom_agg(k, $BITS) FROM bench_keys WHERE i <= $SMALL;
INSERT INTO bench_filters SELECT 'large', count(*), bloom_agg(k, $BITS) FROM bench_keys WHERE i <= $LARGE;
INSERT INTO bench_filters SELECT 'all', count(*), bloom_agg(k, $BITS) FROM bench_keys;
-- bloom_agg without its final function, to tell the final's share
CREATE AGGREGATE bench_bloom_state(text, integer) (SFUNC = bloom_agg_transfn,
  STYPE = bloom_agg_state, COMBINEFUNC = bloom_agg_combinefn, PARALLEL = SAFE);
$(bench_cpu_fn_sql)
EOF
	bf_log "data ready in $(($(date +%s) - t0)) s"
	filter_sizes=$(psql_c "SELECT string_agg(name || '=' || keys || ':' || octet_length(f::bytea), ' ' ORDER BY name) FROM bench_filters")

	SET_serial="SET max_parallel_workers_per_gather = 0;"
	SET_par2="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = on;"
	# NAME|the report's name for it, where it has one|SQL
	bench_queries <<EOF
agg.count|count(k)|SELECT count(k) AS v FROM bench_keys
agg.bloom|bloom_agg(k, $BITS)|SELECT bloom_agg(k, $BITS) IS NOT NULL AS v FROM bench_keys
agg.state|bloom_agg without its final function|SELECT bench_bloom_state(k, $BITS) IS NOT NULL AS v FROM bench_keys
agg.hll|hll_add_agg(hll_hash_text(k))|SELECT hll_add_agg(hll_hash_text(k)) IS NOT NULL AS v FROM bench_keys
scan.hashtext|count(*) WHERE hashtext(k) % 1000 = 0|SELECT count(*) AS v FROM bench_keys WHERE hashtext(k) % 1000 = 0
scan.small|count(*) WHERE k <~ filter of $SMALL keys|SELECT count(*) AS v FROM bench_keys WHERE k <~ (SELECT f FROM bench_filters WHERE name = 'small')
scan.large|count(*) WHERE k <~ filter of $LARGE keys|SELECT count(*) AS v FROM bench_keys WHERE k <~ (SELECT f FROM bench_filters WHERE name = 'large')
j1.plain||SELECT count(*) AS v FROM bench_keyset s WHERE s.k IN (SELECT k FROM bench_keys)
j1.pre||SELECT count(*) AS v FROM bench_keyset s WHERE s.k <~ (SELECT f FROM bench_filters WHERE name = 'all') AND s.k IN (SELECT k FROM bench_keys)
j2.plain||SELECT count(*) AS v FROM bench_keys b WHERE b.k IN (SELECT k FROM bench_keyset)
j2.pre||SELECT count(*) AS v FROM bench_keys b WHERE b.k <~ (SELECT bloom_agg(k, $BITS) FROM bench_keyset) AND b.k IN (SELECT k FROM bench_keyset)
EOF
	declare -A CFG
	# (config, query) pairs, in the order of a round
	RUNS=(serial:agg.count serial:agg.state serial:agg.bloom serial:agg.hll
		par2:agg.count par2:agg.state par2:agg.bloom par2:agg.hll
		serial:scan.hashtext serial:scan.small serial:scan.large
		serial:j1.plain serial:j1.pre serial:j2.plain serial:j2.pre)
	CFG[serial]=$SET_serial
	CFG[par2]=$SET_par2

	# Round 0, the warm-up, runs each query under EXPLAIN ANALYZE in one psql
	# session (plans and workers launched).  In rounds 1..REPS, whose order
	# rotates so that no query always follows the same one, bench_time runs
	# each in a session of its own: untimed, the settings, the query (which
	# warms the session up) and the backend's CPU time; then the query,
	# timed; then, untimed, the CPU time again and the query's result.
	for run in "${RUNS[@]}"; do
		printf '%s\n\\echo P|%s|%s\n' "${CFG[${run%%:*}]}" "${run%%:*}" "${run#*:}"
		printf 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) %s;\n\\echo E|end\n' "${Q_SQL[${run#*:}]}"
	done >"$WORK/warmup.sql"

	bf_log "SQL: $REPS timed rounds (+1 warm-up) of ${#RUNS[@]} queries, interleaved"
	load0=$(bench_load)
	ticks0=$(bench_cpu_ticks)
	t0=$(date +%s)
	"${PSQL[@]}" -f "$WORK/warmup.sql" >"$WORK/warmup.out"
	: >"$WORK/times"
	: >"$WORK/runs"
	n=${#RUNS[@]}
	for ((rep = 1; rep <= REPS; rep++)); do
		for ((j = 0; j < n; j++)); do
			run=${RUNS[$(((j + rep * 5) % n))]}
			k=${run%%:*}.${run#*:}
			bench_time "$k" "${Q_SQL[${run#*:}]} \gset" \
				"${CFG[${run%%:*}]}"$'\n'"${Q_SQL[${run#*:}]};"$'\n''SELECT bench_cpu_ms() AS c0 \gset' \
				'SELECT bench_cpu_ms() AS c1 \gset'$'\n'"\\shell echo $k :c0 :c1 :v >> $WORK/runs"
		done
	done
	ticks1=$(bench_cpu_ticks)
	bf_log "SQL timing done in $(($(date +%s) - t0)) s"
	read -r busy steal <<<"$(bench_cpu_share "$ticks0" "$ticks1")"

	# times: key|ms; runs: key cpu_before cpu_after result
	bench_read_stats "$WORK/times"
	declare -A VAL LAUNCHED PLAN CPU
	while IFS='|' read -r k med _; do
		CPU[$k]=$med
	done < <(awk '{ print $1 "|" ($3 - $2) }' "$WORK/runs" | bench_stats)
	while read -r k _ _ v; do
		VAL[$k]=$v
	done <"$WORK/runs"
	# plans of the warm-up round: P|cfg|q ... E|end
	awk -F'|' '
		$1 == "P" { key = $2 "." $3; plan = ""; launched = 0; next }
		$1 == "E" { printf "L|%s|%d|%s\n", key, launched, plan; key = ""; next }
		key != "" {
			if ($0 ~ /Workers Launched: /) { l = $0; sub(/.*Workers Launched: /, "", l); launched += l }
			line = $0; sub(/^ *(->)? */, "", line); sub(/  \(.*$/, "", line); sub(/ \(actual.*$/, "", line)
			if (line ~ /^(Aggregate|Finalize|Partial|Gather|Hash|Nested|Seq Scan|Index|Merge|Sort|Bitmap|Result|InitPlan|SubPlan|Memoize)/ && line !~ /(Cond|Filter|Key):/)
				plan = plan (plan == "" ? "" : " > ") line
		}
	' "$WORK/warmup.out" >"$WORK/plans.lines"
	while IFS='|' read -r _ k l p; do
		LAUNCHED[$k]=$l PLAN[$k]=$p
	done <"$WORK/plans.lines"

	# -- checks on the results (never on the times)
	untimed=0
	for run in "${RUNS[@]}"; do
		k=${run%%:*}.${run#*:}
		[ -n "${MED[$k]:-}" ] || untimed=$((untimed + 1))
	done
	bench_check "every SQL query ran and was timed" [ "$untimed" -eq 0 ]
	psql_c "$SET_serial" >/dev/null
	serial_md5=$("${PSQL[@]}" -c "$SET_serial" -c "SELECT md5(bloom_agg(k, $BITS)::bytea) FROM bench_keys")
	par_md5=$("${PSQL[@]}" -c "$SET_par2" -c "SELECT md5(bloom_agg(k, $BITS)::bytea) FROM bench_keys")
	par_plan=$("${PSQL[@]}" -c "$SET_par2" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT md5(bloom_agg(k, $BITS)::bytea) FROM bench_keys" | grep -c 'Workers Launched: [1-9]' || true)
	bench_check "bloom_agg with parallel workers ($par_plan Gather with workers) gives the serial filter's bytes" \
		parallel_identical
	stored_md5=$(psql_c "SELECT md5(f::bytea) FROM bench_filters WHERE name = 'all'")
	bench_check "the stored filter of all keys is the filter bloom_agg computes" [ "$stored_md5" = "$serial_md5" ]
	bench_check "join: IN alone and IN with the <~ pre-check find the same $HALF keys, keyset side (${VAL[serial.j1.plain]:-?} / ${VAL[serial.j1.pre]:-?})" \
		both_found serial.j1.plain serial.j1.pre
	bench_check "join: IN alone and IN with the <~ pre-check find the same $HALF keys, table side (${VAL[serial.j2.plain]:-?} / ${VAL[serial.j2.pre]:-?})" \
		both_found serial.j2.plain serial.j2.pre
	bench_check "probe scans match every key in the filter (${VAL[serial.scan.small]:-?} >= $SMALL, ${VAL[serial.scan.large]:-?} >= $LARGE)" \
		scans_match
	bench_check "parallel runs launched 2 workers (${LAUNCHED[par2.agg.bloom]:-0}, ${LAUNCHED[par2.agg.count]:-0}, ${LAUNCHED[par2.agg.hll]:-0})" \
		launched_two par2.agg.bloom par2.agg.count par2.agg.hll

	# ratio of medians, and of best runs
	rcell() { printf '%s× (best runs %s×)' "$(bench_ratio "${MED[$1]:-0}" "${MED[$2]:-1}")" "$(bench_ratio "${MIN[$1]:-0}" "${MIN[$2]:-1}")"; }
	# the same, with the ratio of the backend's CPU times (serial plans)
	rcellc() { printf '%s× (best runs %s×; CPU time %s×)' "$(bench_ratio "${MED[$1]:-0}" "${MED[$2]:-1}")" "$(bench_ratio "${MIN[$1]:-0}" "${MIN[$2]:-1}")" "$(bench_ratio "${CPU[$1]:-0}" "${CPU[$2]:-1}")"; }
	ccell() { printf '%.0f' "${CPU[$1]:-0}"; }
	pg_version=$(psql_c "SHOW server_version")
	final_ms=$(awk -v a="${MED[serial.agg.bloom]:-0}" -v b="${MED[serial.agg.state]:-0}" 'BEGIN {printf "%.1f", a - b}')
	final_pct=$(awk -v a="${MED[serial.agg.bloom]:-0}" -v f="$final_ms" 'BEGIN {printf "%.0f", (a > 0) ? (100 * f / a) : 0}')
	{
		echo
		echo "### 2. Aggregates over $KEYS keys, ms"
		echo
		echo "PostgreSQL $pg_version; \`bench_keys\` has $KEYS rows \`(i, md5(i::text))\`, in shared buffers; JIT off."
		echo "pgbench's latency of a one-row query, each run in a session of its own after an untimed run of it,"
		echo "median (min–max) of $REPS runs after a warm-up round; the machine"
		echo "was busy $busy of the time during the SQL runs (steal $steal; load average $load0 before)."
		echo "\"2 workers\" is 2 parallel workers plus the leader (Finalize Aggregate > Gather > Partial Aggregate)."
		echo "\"CPU\" is the serial backend's own CPU time (median), which other work on the machine disturbs less."
		echo
		echo "| query | serial | CPU | 2 workers | speed-up |"
		echo "|---|---:|---:|---:|---:|"
		for q in count bloom state hll; do
			echo "| \`${Q_NAME[agg.$q]}\` | $(bench_cell "serial.agg.$q") | $(ccell "serial.agg.$q") | $(bench_cell "par2.agg.$q") | $(bench_ratio "${MED[serial.agg.$q]:-0}" "${MED[par2.agg.$q]:-1}")× |"
		done
		echo
		echo "| ratio | this run |"
		echo "|---|---:|"
		echo "| bloom_agg / count(k), serial | $(rcellc serial.agg.bloom serial.agg.count) |"
		echo "| bloom_agg / hll_add_agg, serial | $(rcellc serial.agg.bloom serial.agg.hll) |"
		echo "| bloom_agg without its final / count(k), serial | $(rcellc serial.agg.state serial.agg.count) |"
		echo "| bloom_agg / count(k), 2 workers | $(rcell par2.agg.bloom par2.agg.count) |"
		echo "| bloom_agg, serial / 2 workers | $(rcell serial.agg.bloom par2.agg.bloom) |"
		echo "| bloom_agg's final function (serial bloom_agg − without final) | $final_ms ms = ${final_pct}% of bloom_agg (CPU: $(awk -v a="${CPU[serial.agg.bloom]:-0}" -v b="${CPU[serial.agg.state]:-0}" 'BEGIN {printf "%.0f ms", a - b}')) |"
		echo
		echo "### 3. Probe scan of $KEYS rows, serial, ms"
		echo
		echo "The filters are stored in \`bench_filters\` (out of line) and read by a scalar subquery, e.g."
		echo "\`SELECT count(*) FROM bench_keys WHERE k <~ (SELECT f FROM bench_filters WHERE name = 'small')\`."
		echo "Filters (name=keys:bytes): $filter_sizes."
		echo
		echo "| query | time | CPU | rows | / hashtext scan |"
		echo "|---|---:|---:|---:|---:|"
		echo "| \`${Q_NAME[scan.hashtext]}\` | $(bench_cell serial.scan.hashtext) | $(ccell serial.scan.hashtext) | ${VAL[serial.scan.hashtext]:-?} | 1.00× |"
		echo "| \`${Q_NAME[scan.small]}\` | $(bench_cell serial.scan.small) | $(ccell serial.scan.small) | ${VAL[serial.scan.small]:-?} | $(rcellc serial.scan.small serial.scan.hashtext) |"
		echo "| \`${Q_NAME[scan.large]}\` | $(bench_cell serial.scan.large) | $(ccell serial.scan.large) | ${VAL[serial.scan.large]:-?} | $(rcellc serial.scan.large serial.scan.hashtext) |"
		echo
		echo "### 4. Join pre-check, serial, ms"
		echo
		echo "\`bench_keyset\` has $((2 * HALF)) keys: $HALF of \`bench_keys\` and $HALF that are not in it."
		echo "\`bench_keys\` has a B-tree index on \`k\`. The pre-check of (a) reads the stored filter of all"
		echo "$KEYS keys; the one of (b) builds the filter of the key set in a scalar subquery."
		echo
		echo "| join | IN alone | IN with \`<~\` pre-check | speed-up |"
		echo "|---|---:|---:|---:|"
		echo "| (a) \`bench_keyset s WHERE s.k IN (SELECT k FROM bench_keys)\` | $(bench_cell serial.j1.plain) | $(bench_cell serial.j1.pre) | $(rcellc serial.j1.plain serial.j1.pre) |"
		echo "| (b) \`bench_keys b WHERE b.k IN (SELECT k FROM bench_keyset)\` | $(bench_cell serial.j2.plain) | $(bench_cell serial.j2.pre) | $(rcellc serial.j2.plain serial.j2.pre) |"
		echo
		echo "Plans (warm-up run):"
		echo
		for k in serial.j1.plain serial.j1.pre serial.j2.plain serial.j2.pre; do
			echo "- ${k#serial.}: ${PLAN[$k]:-?}"
		done
	} >>"$REPORT"
	bf_cluster_stop
fi

# ---- targets -------------------------------------------------------------------

verdict() { # verdict VALUE OP TARGET
	if [ -z "$1" ] || [ "$1" = "?" ]; then
		echo "not measured"
	elif bench_meets "$@"; then
		echo met
	else
		echo "**not met**"
	fi
}
{
	echo
	echo "### Targets, on the medians of this run"
	echo
	echo "| target | this run | |"
	echo "|---|---:|---|"
	if [ -n "$DO_CORE" ]; then
		big=$(awk -F'|' '$1 == "R" {print $2}' "$WORK/core.out" | sort -n | tail -n 1)
		for bpk in 10 20; do
			for op in build probe_present probe_absent; do
				read -r r rs < <(awk -F'|' -v n="$big" -v b="$bpk" -v o="$op" '$1 == "R" && $2 == n && $3 == b && $4 == o {m[$5] = $6}
					END {if (m["core"] > 0) printf "%.2f %s\n", m["leveldb"] / m["core"], ("leveldb_same" in m) ? sprintf("%.2f", m["leveldb_same"] / m["core"]) : "-"; else print "? -"}' "$WORK/core.out")
				t=2
				[ "$op" = build ] || t=1.5
				if [ "$rs" = - ]; then
					echo "| core ${op/_/ } at $big keys, bpk $bpk, ≥ ${t}× LevelDB | ${r}× | $(verdict "$r" '>=' "$t") |"
				else
					# judged on the lower of the two: own buffers, same bytes
					low=$(awk -v a="$r" -v b="$rs" 'BEGIN {print (a < b) ? a : b}')
					echo "| core ${op/_/ } at $big keys, bpk $bpk, ≥ ${t}× LevelDB | ${r}× (same bytes ${rs}×) | $(verdict "$low" '>=' "$t") |"
				fi
			done
		done
		echo "| byte-identical filters | $(core_identical && echo yes || echo NO) | $(core_identical && echo met || echo '**not met**') |"
	fi
	if [ -n "$DO_SQL" ]; then
		r=$(bench_ratio "${MED[serial.agg.bloom]:-0}" "${MED[serial.agg.count]:-1}")
		echo "| bloom_agg ≤ 1.3× count(k), serial | ${r}× | $(verdict "$r" '<=' 1.3) |"
		r=$(bench_ratio "${MED[serial.agg.bloom]:-0}" "${MED[serial.agg.hll]:-1}")
		echo "| bloom_agg faster than hll_add_agg(hll_hash_text(k)), serial | ${r}× | $(verdict "$r" '<' 1) |"
		r=$(bench_ratio "${MED[serial.agg.bloom]:-0}" "${MED[par2.agg.bloom]:-1}")
		echo "| bloom_agg with 2 workers ≥ 1.6× faster than serial | ${r}× | $(verdict "$r" '>=' 1.6) |"
		for f in small large; do
			r=$(bench_ratio "${MED[serial.scan.$f]:-0}" "${MED[serial.scan.hashtext]:-1}")
			echo "| probe scan ≤ 1.0× the hashtext scan, filter of $([ $f = small ] && echo "$SMALL" || echo "$LARGE") keys | ${r}× | $(verdict "$r" '<=' 1.0) |"
		done
	fi
} >>"$REPORT"

mkdir -p "$OUT_DIR"
SAVED=$OUT_DIR/run-$STAMP$([ -z "$QUICK" ] || echo -quick).md
cp "$REPORT" "$SAVED"
echo
cat "$REPORT"
echo
echo "(saved in ${SAVED#"$REPO"/})"
finish
