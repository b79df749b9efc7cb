#!/usr/bin/env bash
#
# bench/keys_bench.sh -- typed keys: what a bigint key costs bloom_agg and
# <~, against hll_add_agg of the same key, against formatting it as text,
# and against a scan that hashes it.  One command from a clone:
#
#     bench/keys_bench.sh            # 10,000,000 bigint keys, 5 rounds
#     bench/keys_bench.sh --quick    # 100,000 keys, 1 round (smoke test)
#
# It checks the Debian packages (installing them as root, postgresql-15-hll
# among them), builds and installs the extension, starts a throw-away
# PostgreSQL 15 cluster, measures, prints a report, and stops the cluster.
# Every figure it prints is measured in this run; the report is also saved
# under bench/out/.
#
# Options:
#   --keys N          rows of the table ids(id bigint) (default 10000000)
#   --filter-keys M   keys of the large stored filter the probe scan reads,
#                     every 10th id up to M of them (default 1000000: 1.25 MB)
#   --small-keys S    keys of the small one, every 100th id up to S of them
#                     (default 10000: 12.5 kB)
#   --reps R          timed rounds (default 5)
#   --quick           --keys 100000 --filter-keys 10000 --small-keys 100 --reps 1
#   --no-build        use the extension already installed
#   -h, --help        this text
#
# The queries, serial (max_parallel_workers_per_gather = 0), jit off, the
# table in shared buffers:
#   count      count(id), for scale
#   bloom      bloom_agg(id, 10)
#   hll        hll_add_agg(hll_hash_bigint(id))
#   bloom_text bloom_agg(id::text, 10): the key formatted as text
#   probe_small, probe_large
#              count(*) WHERE id <~ (SELECT f FROM stored_filters WHERE ...),
#              the small filter and the large one
#   hashmod    count(*) WHERE hashint8(id) % 1000 = 0: a scan that hashes
#              every key and keeps a few rows, as the probe does
# and the targets, on the medians of this run: bloom / hll <= 1.0,
# bloom / bloom_text < 0.5, and each probe scan / hashmod <= 1.0.
# The queries run in rounds whose order rotates; each run is in a session of
# its own, after an untimed run of the same query (bench_time).  The last
# line counts the checks, which are never of times: "keys-bench: N passed,
# N failed" (the smoke test scripts/test.sh runs is --quick).

set -euo pipefail
export LC_ALL=C
unset LANGUAGE

KEYS=10000000
FILTER_KEYS=1000000
SMALL_KEYS=10000
REPS=5
BITS=10

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_options '--keys:KEYS --filter-keys:FILTER_KEYS --small-keys:SMALL_KEYS --reps:REPS' \
	'KEYS=100000 FILTER_KEYS=10000 SMALL_KEYS=100 REPS=1' "$@"
if [ "$((FILTER_KEYS * 10))" -gt "$KEYS" ] || [ "$((SMALL_KEYS * 100))" -gt "$KEYS" ]; then
	printf 'keys_bench.sh: --filter-keys (%s) must be at most a tenth of --keys (%s), --small-keys (%s) a hundredth\n' \
		"$FILTER_KEYS" "$KEYS" "$SMALL_KEYS" >&2
	exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

OUT_DIR=$REPO/bench/out
STAMP=$(date -u +%Y%m%d-%H%M%S)

# ---- build, install, cluster ----------------------------------------------

bench_ensure_deps --bench
bench_prepare "$BUILD"
bf_cluster_start

# ids is about 36 bytes a row
SB_MB=$(bench_shared_buffers_mb $((KEYS * 40 / 1048576 + 128)) 512)
bench_serial_settings "$SB_MB"

REPORT=$WORK/report.txt
{
	bench_machine_report \
		"settings:    shared_buffers=$(psql_c "SHOW shared_buffers") jit=$(psql_c "SHOW jit") max_parallel_workers_per_gather=$(psql_c "SHOW max_parallel_workers_per_gather")" \
		"run:         --keys $KEYS --filter-keys $FILTER_KEYS --small-keys $SMALL_KEYS --reps $REPS, bits_per_key $BITS"
	echo
} | tee "$REPORT"

# ---- data -------------------------------------------------------------------

bf_log "creating ids ($KEYS rows) and the stored filters ($FILTER_KEYS and $SMALL_KEYS keys)"
"${PSQL[@]}" >/dev/null <<EOF
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
CREATE EXTENSION hll;
CREATE EXTENSION pg_prewarm;
CREATE TABLE ids AS SELECT i::bigint AS id FROM generate_series(1, $KEYS) i;
CREATE TABLE stored_filters (id int PRIMARY KEY, f bloomfilter);
INSERT INTO stored_filters
	SELECT 1, bloom_agg(i * 10, $BITS) FROM generate_series(1::bigint, $FILTER_KEYS) i
	UNION ALL SELECT 2, bloom_agg(i * 100, $BITS) FROM generate_series(1::bigint, $SMALL_KEYS) i;
VACUUM (ANALYZE) ids, stored_filters;
CHECKPOINT;
SELECT pg_prewarm('ids'), pg_prewarm('stored_filters'),
       pg_prewarm(reltoastrelid) FROM pg_class WHERE relname = 'stored_filters';
EOF
{
	echo "== Data"
	echo "ids:     $KEYS bigint keys 1..$KEYS, $(psql_c "SELECT pg_size_pretty(pg_relation_size('ids'))")"
	echo "filters: $FILTER_KEYS keys (every 10th id) and $SMALL_KEYS keys (every 100th) at $BITS bits a key," \
		"$(psql_c "SELECT string_agg(octet_length(f::bytea)::text, ' and ' ORDER BY id) FROM stored_filters") bytes"
	echo
} | tee -a "$REPORT"

# ---- timing -----------------------------------------------------------------

QUERIES=(count bloom hll bloom_text probe_small probe_large hashmod)
declare -A Q_SQL=(
	[count]="SELECT count(id) AS v FROM ids"
	[bloom]="SELECT octet_length(bloom_agg(id, $BITS)::bytea) AS v FROM ids"
	[hll]="SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL AS v FROM ids"
	[bloom_text]="SELECT octet_length(bloom_agg(id::text, $BITS)::bytea) AS v FROM ids"
	[probe_small]="SELECT count(*) AS v FROM ids WHERE id <~ (SELECT f FROM stored_filters WHERE id = 2)"
	[probe_large]="SELECT count(*) AS v FROM ids WHERE id <~ (SELECT f FROM stored_filters WHERE id = 1)"
	[hashmod]="SELECT count(*) AS v FROM ids WHERE hashint8(id) % 1000 = 0"
)
declare -A Q_NAME=(
	[count]="count(id), for scale"
	[bloom]="bloom_agg(id, $BITS)"
	[hll]="hll_add_agg(hll_hash_bigint(id))"
	[bloom_text]="bloom_agg(id::text, $BITS)"
	[probe_small]="count(*) WHERE id <~ filter of $SMALL_KEYS"
	[probe_large]="count(*) WHERE id <~ filter of $FILTER_KEYS"
	[hashmod]="count(*) WHERE hashint8(id) % 1000 = 0"
)

bench_rounds "${QUERIES[@]}"

# Checks, never of times: every run of a query gives the same answer, and a
# probe finds at least its filter's keys.
checks_passed=0
checks_failed=0
check() {
	if [ "$2" = ok ]; then
		checks_passed=$((checks_passed + 1))
	else
		bf_err "$1"
		checks_failed=$((checks_failed + 1))
	fi
}
for q in "${QUERIES[@]}"; do
	n=$(bench_answers "$q")
	check "query $q gave $n different answers across runs" "$([ "$n" -eq 1 ] && echo ok)"
done
answer() { bench_answer "$1"; }
for probe in probe_small:$SMALL_KEYS probe_large:$FILTER_KEYS; do
	check "${probe%%:*} found $(answer "${probe%%:*}") rows, fewer than its filter's ${probe#*:} keys" \
		"$([ "$(answer "${probe%%:*}")" -ge "${probe#*:}" ] && echo ok)"
done

bench_read_stats "$WORK/times"
# target_row NAME A B OP LIMIT: the ratio of A's median to B's, and whether
# it meets "ratio OP LIMIT"
target_row() {
	local r verdict
	r=$(bench_ratio "${MED[$2]}" "${MED[$3]}")
	verdict=$(awk -v r="$r" -v op="$4" -v t="$5" \
		'BEGIN { ok = (op == "<=") ? r <= t : r < t; print (ok ? "met" : "NOT met") }')
	printf '%-34s %6s   target %s %s: %s\n' "$1" "$r" "$4" "$5" "$verdict"
}
{
	echo "== Results ($REPS round(s); ms)"
	printf '%-42s %10s %10s %10s\n' query median min max
	for q in "${QUERIES[@]}"; do
		printf '%-42s %10.1f %10.1f %10.1f\n' "${Q_NAME[$q]}" "${MED[$q]}" "${MIN[$q]}" "${MAX[$q]}"
	done
	echo
	echo "probe rows that passed: $(answer probe_small) and $(answer probe_large) of $KEYS" \
		"($SMALL_KEYS and $FILTER_KEYS in the filters, the rest false positives)"
	echo
	echo "== Ratios (medians)"
	target_row "bloom_agg / hll_add_agg" bloom hll '<=' 1.0
	target_row "bloom_agg(id) / bloom_agg(id::text)" bloom bloom_text '<' 0.5
	target_row "probe, small filter / hashint8 scan" probe_small hashmod '<=' 1.0
	target_row "probe, large filter / hashint8 scan" probe_large hashmod '<=' 1.0
	echo "load after the run: $(bench_load)"
} | tee -a "$REPORT"

mkdir -p "$OUT_DIR"
cp "$REPORT" "$OUT_DIR/keys_bench-$STAMP.txt"
bf_log "report saved as bench/out/keys_bench-$STAMP.txt"
echo "keys-bench: $checks_passed passed, $checks_failed failed"
[ "$checks_failed" -eq 0 ]
