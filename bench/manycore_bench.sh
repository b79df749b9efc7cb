#!/usr/bin/env bash
#
# bench/manycore_bench.sh -- bloom_agg on a many-core machine: count(k),
# hll_add_agg, bloom_agg, bloom_agg_partial and the floor at each worker
# count, and where a parallel bloom_agg's time goes, step by step.  Made
# for a machine with no package archive: run it against a PostgreSQL of
# its own (the benchmarks' kit), with the extension and hll installed
# there; nothing is built or installed from a package archive.
#
#   PG_CONFIG=/opt/pgdev/bin/pg_config bench/manycore_bench.sh --no-build \
#       --trace-lib /path/to/bloomfilter-trace.so
#   bench/manycore_bench.sh --quick     200,000 keys, 0 and 2 workers
#   options: --keys N (100,000,000), --reps R (2), --workers LIST
#            (0,1,2,4,8,15: those above twice the CPUs are skipped),
#            --trace-lib FILE, --trace-workers LIST (the largest count
#            run), --build-trace, --compare-lib FILE, --no-build
#
# The keys are md5(i::text) for i in 1..N, made by one session a CPU, and
# held in shared buffers.  For each worker count, one session loads the
# libraries and scans the table once untimed (a new backend's first scan
# maps the shared buffers into its page table, which on some machines costs
# more than the query), then runs R rounds of the queries in turn, timed by
# psql; the table
# gives the lower of the R times, and the ratios bloom_agg / hll_add_agg
# (target at most 1.5) and bloom_agg_partial / bloom_agg (target at most 1)
# from the same run, and bloom_agg's time against its time with
# bloomfilter.parallel_handoff off (the workers' states queued).  Every
# worker count's filter must be the serial one, byte for byte.
#
# --trace-lib names a bloomfilter.so built with make BLOOM_TRACE=1: for the
# table of steps it stands in for the installed library (a new backend
# loads it) while bloom_agg, bloom_agg queued and bloom_agg_partial run
# once each at the largest worker count (or each of --trace-workers), and
# the steps' times are read from the server log.
# The timed queries run on the installed library.  --build-trace builds
# that library first, from a copy of this tree, against the same
# PostgreSQL (the smoke test of the test command does).
#
# --compare-lib names another build of bloomfilter.so (say, the code before
# a change, built against the same PostgreSQL): after each worker count's
# session, a second session on that library (swapped in for it, and then
# back) runs bloom_agg and bloom_agg_partial the same R rounds after the
# same untimed scan, and a second table sets the two builds' times side by
# side.  Its filters must be the serial one's bytes too.  The installed
# library is put back after a swapped-in one's sessions also when the
# bench fails or is interrupted meanwhile.
#
# Results are saved as bench/out/manycore-<UTC time>.md too.

set -euo pipefail

MAX_WORKERS=15
# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'KEYS=100000000 REPS=2 WORKERS=0,1,2,4,8,15 TRACE_LIB= COMPARE_LIB= TRACE_WORKERS= BUILD_TRACE=' \
	'--keys:KEYS --reps:REPS --workers:WORKERS:list --trace-lib:TRACE_LIB:file --compare-lib:COMPARE_LIB:file --trace-workers:TRACE_WORKERS:list --build-trace:BUILD_TRACE=1' \
	'KEYS=200000 REPS=1 WORKERS=0,2' "$@"
# the steps have the workers' rows only where there are workers
for w in ${TRACE_WORKERS//,/ }; do
	if [ "$w" -lt 1 ] || [ "$w" -gt "$MAX_WORKERS" ]; then
		echo "${0##*/}: --trace-workers: $w is not a worker count from 1 to $MAX_WORKERS" >&2
		exit 2
	fi
done

bench_cluster
if [ -n "$BUILD_TRACE" ]; then
	bf_log "building the library with BLOOM_TRACE=1 from a copy of the tree"
	bf_copy_tree "$WORK/trace-build"
	if ! make -C "$WORK/trace-build" PG_CONFIG="$(bf_pg_config)" BLOOM_TRACE=1 >"$WORK/trace-build.log" 2>&1; then
		tail -n 30 "$WORK/trace-build.log" >&2
		bf_err "the trace build failed"
		exit 1
	fi
	TRACE_LIB=$WORK/trace-build/bloomfilter.so
fi
CORES=$(nproc)
shared_mb=$(bench_shared_buffers_mb $((KEYS / 10000 * 2)) 256)
bf_log "configuring: shared_buffers = ${shared_mb}MB, jit off, $MAX_WORKERS parallel workers at most"
# Room for twice the workers a query asks for: the workers of the query
# before may still be leaving when the next starts, and their slots are
# not free until the postmaster has reaped them.
bench_configure "shared_buffers = '${shared_mb}MB'" "jit = off" "autovacuum = off" \
	"max_worker_processes = $((2 * MAX_WORKERS + 2))" "max_parallel_workers = $((2 * MAX_WORKERS))" \
	"max_wal_size = '16GB'" "log_min_messages = log"
bench_create_extensions

# ---- the keys, one session a CPU --------------------------------------------

bf_log "making $KEYS md5 keys in $CORES sessions"
t0=$(date +%s.%N)
psql_c "CREATE UNLOGGED TABLE k (k text)" >/dev/null
pids=()
per=$(((KEYS + CORES - 1) / CORES))
for ((s = 0; s < CORES; s++)); do
	lo=$((s * per + 1))
	hi=$(((s + 1) * per < KEYS ? (s + 1) * per : KEYS))
	[ "$lo" -le "$hi" ] || continue
	psql_c "INSERT INTO k SELECT md5(i::text) FROM generate_series($lo, $hi) i" >/dev/null &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p"
done
psql_c "ANALYZE k" >/dev/null
# The planner gives a table of 6.5 GB 13 workers at most (one more for each
# tripling of its size), whatever max_parallel_workers_per_gather allows.
psql_c "ALTER TABLE k SET (parallel_workers = $MAX_WORKERS)" >/dev/null
# every tuple's hint bits set now, by a parallel scan, not by the first query timed
psql_c "SET max_parallel_workers_per_gather = $MAX_WORKERS; SET parallel_setup_cost = 0; SET min_parallel_table_scan_size = 0; SELECT count(*) FROM k" >/dev/null
rows=$(psql_c "SELECT count(*) FROM k")
[ "$rows" = "$KEYS" ] || {
	bf_err "the table has $rows rows, not $KEYS"
	exit 1
}
bf_log "keys made in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}') s: $(psql_c "SELECT pg_size_pretty(pg_relation_size('k'))")"

# ---- time by worker count ---------------------------------------------------------

# The floor: every key read and LevelDB-hashed by one of our C calls a row,
# nothing stored (the probe of an empty filter stops at its first bit).
declare -A QUERY=(
	[count]="SELECT count(k) FROM k"
	[floor]="SELECT count(*) FILTER (WHERE k <~ bloom_empty(1, 10)) FROM k"
	[bloom_agg]="SELECT length(bloom_agg(k, 10)::bytea) FROM k"
	[partial]="SELECT pg_column_size(bloom_agg_partial(k, 10)) FROM k"
	[queued]="SELECT length(bloom_agg(k, 10)::bytea) FROM k"
)
# bloom_agg with the workers' states sorted, coded and sent through the
# tuple queues, as before the hand-off in shared memory: set before the
# query's mark and reset after its time, so neither statement is timed.
# Last in each round, so that bloom_agg_partial follows bloom_agg as the
# two targets' queries did before it.
declare -A BEFORE=([queued]="SET bloomfilter.parallel_handoff = off;")
declare -A AFTER=([queued]="RESET bloomfilter.parallel_handoff;")
NAMES=(count floor bloom_agg partial queued)
if [ -n "$HLL" ]; then
	QUERY[hll]="SELECT hll_cardinality(hll_add_agg(hll_hash_text(k))) FROM k"
	NAMES=(count hll floor bloom_agg partial queued)
fi
set_workers() {
	echo "SET max_parallel_workers_per_gather = $1; SET parallel_setup_cost = 0; SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = on;"
}

# Another library stands in for the installed one for the sessions that
# start while it is there (a backend loads it once), put back after them,
# and also when the bench fails or is interrupted meanwhile.  By rename,
# never rewritten in place: a process may still map the old one.
libdir=$("$(bf_pg_config)" --pkglibdir)
cp "$libdir/bloomfilter.so" "$WORK/bloomfilter.so.installed"
lib_swapped=
install_lib() {
	cp "$1" "$libdir/.bloomfilter.so.new" && mv -f "$libdir/.bloomfilter.so.new" "$libdir/bloomfilter.so"
}
swap_in_lib() {
	lib_swapped=1
	install_lib "$1"
}
put_back_lib() {
	if [ -n "$lib_swapped" ]; then
		install_lib "$WORK/bloomfilter.so.installed"
		lib_swapped=
	fi
}
bf_at_exit put_back_lib

# session_sql WORKERS QUERY...: a session's script: the settings, the
# libraries loaded and the table scanned untimed, then $REPS rounds of the
# queries named, each timed under its name, then the filter's md5.
session_sql() {
	local w=$1 q
	shift
	set_workers "$w"
	echo "LOAD 'bloomfilter';"
	[ -z "$HLL" ] || echo "LOAD 'hll';"
	echo "${QUERY[count]};"
	printf '%s\n' '\timing on'
	for _ in $(seq 1 "$REPS"); do
		for q in "$@"; do
			echo "${BEFORE[$q]-}"
			echo "\\echo @ $q"
			echo "${QUERY[$q]};"
			echo "${AFTER[$q]-}"
		done
	done
	# the filter's bytes, for the identity check (untimed)
	printf '%s\n' '\timing off'
	echo "\\echo @ md5"
	echo "SELECT md5(bloom_agg(k, 10)::bytea) FROM k;"
}

# session_times WORKERS PREFIX < OUTPUT: NAME|WORKERS|ms lines, each name
# after PREFIX, and md5|WORKERS|hex
session_times() {
	awk -v w="$1" -v prefix="$2" '
		$1 == "@" { q = $2; next }
		q == "md5" && /^[0-9a-f]+$/ { print "md5|" w "|" $1; q = ""; next }
		q != "" && /^Time: / { print prefix q "|" w "|" $2; q = "" }'
}

bench_worker_counts "$WORKERS" "$MAX_WORKERS"
TRACE_WORKERS=${TRACE_WORKERS:-${WORKER_COUNTS[-1]}}

# awk over $WORK/times: the lower time of each query at each worker count
# in t[query, workers], the counts in order[1..n], the workers launched in
# launched[]; cell() and ratio() format them for a table's END block.
LOWEST_TIMES='
	function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
	function cell(q, w) { return ((q, w) in t) ? sprintf("%.0f", t[q, w]) : "-" }
	$1 == "launched" { launched[$2] = $3; next }
	$1 == "md5" { next }
	{ if (!(($1, $2) in t) || $3 + 0 < t[$1, $2]) t[$1, $2] = $3 + 0
	  if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }'

: >"$WORK/times"
for w in "${WORKER_COUNTS[@]}"; do
	bf_log "$w workers: ${NAMES[*]}, $REPS rounds after an untimed scan"
	session_sql "$w" "${NAMES[@]}" >"$WORK/w$w.sql"
	"${PSQL[@]}" -f "$WORK/w$w.sql" >"$WORK/w$w.out"
	session_times "$w" "" <"$WORK/w$w.out" >>"$WORK/times"
	if [ -n "$COMPARE_LIB" ]; then
		bf_log "$w workers: bloom_agg and bloom_agg_partial on $COMPARE_LIB"
		session_sql "$w" bloom_agg partial >"$WORK/c$w.sql"
		swap_in_lib "$COMPARE_LIB"
		"${PSQL[@]}" -f "$WORK/c$w.sql" >"$WORK/c$w.out"
		put_back_lib
		session_times "$w" "cmp_" <"$WORK/c$w.out" >>"$WORK/times"
	fi
	# workers the plan got, from count(k)'s plan with the same settings
	launched=$("${PSQL[@]}" -c "$(set_workers "$w") EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) ${QUERY[count]}" |
		awk '/Workers Launched/ {print $3}')
	echo "launched|$w|${launched:-0}" >>"$WORK/times"
	# as they come, for a run cut short by the many-core machine's time limit
	bf_log "$w workers, lowest ms: $(awk -F'|' -v w="$w" -v names="${NAMES[*]}${COMPARE_LIB:+ cmp_bloom_agg cmp_partial}" "$LOWEST_TIMES"'
		END { n = split(names, q, " "); for (i = 1; i <= n; i++) printf "%s%s %s", (i > 1 ? ", " : ""), q[i], cell(q[i], w) }' "$WORK/times")"
done

# lowest_table: a Markdown table of the lowest times, a row a worker count
# w, whose columns are stdin's lines "HEADING|AWK EXPRESSION" (over the
# arrays of LOWEST_TIMES).
lowest_table() {
	local heading expr headings='' align='' format='' exprs=''
	while IFS='|' read -r heading expr; do
		headings+=" $heading |"
		align+="---:|"
		format+=" %s |"
		exprs+=", $expr"
	done
	echo "|$headings"
	echo "|$align"
	awk -F'|' "$LOWEST_TIMES"'
		END { for (i = 1; i <= n; i++) { w = order[i]; printf "|'"$format"'\n"'"$exprs"' } }' "$WORK/times"
}

REPORT=$OUT_DIR/manycore-$STAMP.md
mkdir -p "$OUT_DIR"
{
	bench_machine_report "keys:        $KEYS md5 keys ($(psql_c "SELECT pg_size_pretty(pg_relation_size('k'))")) in shared buffers, $REPS rounds after an untimed scan, the lower time" \
		"final threads: bloomfilter.max_final_threads = $(psql_c "LOAD 'bloomfilter'; SHOW bloomfilter.max_final_threads") by default here"
	echo
	echo "#### Scaling over parallel workers, $KEYS keys, ms (the lower of $REPS)"
	echo
	lowest_table <<'EOF'
workers|w
launched|launched[w]
count(k)|cell("count", w)
hll_add_agg|cell("hll", w)
floor|cell("floor", w)
bloom_agg|cell("bloom_agg", w)
bloom_agg / hll (≤ 1.5)|ratio(t["bloom_agg", w], t["hll", w])
bloom_agg_partial|cell("partial", w)
partial / bloom_agg (≤ 1)|ratio(t["partial", w], t["bloom_agg", w])
bloom_agg speed-up|ratio(t["bloom_agg", order[1]], t["bloom_agg", w])
bloom_agg, states queued|cell("queued", w)
bloom_agg / queued|ratio(t["bloom_agg", w], t["queued", w])
EOF
	[ "${#SKIPPED_COUNTS[@]}" -eq 0 ] || echo "skipped worker counts: ${SKIPPED_COUNTS[*]} (the machine has $CORES CPUs)"
	echo
	if [ -n "$COMPARE_LIB" ]; then
		echo "#### This build against $COMPARE_LIB, ms (the lower of $REPS; each worker count's two sessions back to back)"
		echo
		lowest_table <<'EOF'
workers|w
bloom_agg|cell("bloom_agg", w)
compared|cell("cmp_bloom_agg", w)
this / compared|ratio(t["bloom_agg", w], t["cmp_bloom_agg", w])
bloom_agg_partial|cell("partial", w)
compared|cell("cmp_partial", w)
this / compared|ratio(t["partial", w], t["cmp_partial", w])
EOF
		echo
	fi
	md5s=$(awk -F'|' '$1 == "md5" {print $3}' "$WORK/times" | sort -u | wc -l)
	if [ "$md5s" -eq 1 ]; then
		echo "filters: the same bytes at every worker count${COMPARE_LIB:+, on both builds} (md5 $(awk -F'|' '$1 == "md5" {print $3; exit}' "$WORK/times"))"
	else
		echo "filters: DIFFER between worker counts:"
		awk -F'|' '$1 == "md5" {print "  " $2 " workers: " $3}' "$WORK/times"
	fi
} | tee "$REPORT"
md5s=$(awk -F'|' '$1 == "md5" {print $3}' "$WORK/times" | sort -u | wc -l)
bench_check "the filters differ between worker counts" [ "$md5s" -eq 1 ]
# every worker count timed on the compared build too, and its filter read
if [ -n "$COMPARE_LIB" ]; then
	for w in "${WORKER_COUNTS[@]}"; do
		timed=$(awk -F'|' -v w="$w" '$2 == w && ($1 == "cmp_bloom_agg" || $1 == "cmp_partial") {n++} END {print n + 0}' "$WORK/times")
		filters=$(awk -F'|' -v w="$w" '$1 == "md5" && $2 == w' "$WORK/times" | wc -l)
		bench_check "the compared build's times or filter at $w workers are missing" \
			[ "$timed $filters" = "$((2 * REPS)) 2" ]
	done
fi

# ---- the steps, from the trace library's log lines ------------------------------

if [ -n "$TRACE_LIB" ]; then
	swap_in_lib "$TRACE_LIB"
	for w in ${TRACE_WORKERS//,/ }; do
		for q in bloom_agg partial queued; do
			psql_c "DO \$\$BEGIN RAISE LOG 'bloom-mark $q $w'; END\$\$" >/dev/null || true
			psql_c "$(set_workers "$w") ${BEFORE[$q]-} ${QUERY[$q]}" >/dev/null || true
		done
	done
	psql_c "DO \$\$BEGIN RAISE LOG 'bloom-mark end'; END\$\$" >/dev/null || true
	put_back_lib
	sleep 1
	awk -f bench/lib/trace_steps.awk "$BF_PGLOG" >"$WORK/steps.md"
	tee -a "$REPORT" <"$WORK/steps.md"
	# each traced query's table has its workers' and its leader's steps
	for w in ${TRACE_WORKERS//,/ }; do
		for q in bloom_agg partial queued; do
			# shellcheck disable=SC2016 # awk's $0
			bench_check "the steps of $q at $w workers are missing from the server log" \
				awk -v head="#### Steps of $q, $w workers " 'index($0, head) == 1 {on = 1}
					on && /workers: state ready to send/ {w = 1}
					on && /leader: (final function returns|state coded)/ {l = 1}
					on && /^$/ && w && l {exit} END {exit !(w && l)}' "$WORK/steps.md"
		done
	done
fi
echo
bf_log "saved to $REPORT"
bench_checks_line manycore-bench
