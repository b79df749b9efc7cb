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

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'KEYS=10000000 FILTER_KEYS=1000000 SMALL_KEYS=10000 REPS=5 BITS=10' \
	'--keys:KEYS --filter-keys:FILTER_KEYS --small-keys:SMALL_KEYS --reps:REPS' \
	'KEYS=100000 FILTER_KEYS=10000 SMALL_KEYS=100 REPS=1' "$@"
if [ "$((FILTER_KEYS * 10))" -gt "$KEYS" ] || [ "$((SMALL_KEYS * 100))" -gt "$KEYS" ]; then
	printf 'keys_bench.sh: --filter-keys (%s) must be at most a tenth of --keys (%s), --small-keys (%s) a hundredth\n' \
		"$FILTER_KEYS" "$KEYS" "$SMALL_KEYS" >&2
	exit 2
fi

# ---- build, install, cluster ----------------------------------------------

bench_cluster --bench
# ids is about 36 bytes a row
bench_serial_settings "$(bench_shared_buffers_mb $((KEYS * 40 / 1048576 + 128)) 512)"

bench_report_start "run:         --keys $KEYS --filter-keys $FILTER_KEYS --small-keys $SMALL_KEYS --reps $REPS, bits_per_key $BITS"

# ---- data -------------------------------------------------------------------

bf_log "creating ids ($KEYS rows) and the stored filters ($FILTER_KEYS and $SMALL_KEYS keys)"
bench_tables 'ids stored_filters' hll <<EOF
CREATE TABLE ids AS SELECT i::bigint AS id FROM generate_series(1, $KEYS) i;
CREATE TABLE stored_filters (id int PRIMARY KEY, f bloomfilter);
INSERT INTO stored_filters
	SELECT 1, bloom_agg(i * 10, $BITS) FROM generate_series(1::bigint, $FILTER_KEYS) i
	UNION ALL SELECT 2, bloom_agg(i * 100, $BITS) FROM generate_series(1::bigint, $SMALL_KEYS) i;
EOF
{
	echo "== Data"
	echo "ids:     $KEYS bigint keys 1..$KEYS, $(psql_c "SELECT pg_size_pretty(pg_relation_size('ids'))")"
	echo "filters: $FILTER_KEYS keys (every 10th id) and $SMALL_KEYS keys (every 100th) at $BITS bits a key," \
		"$(psql_c "SELECT string_agg(octet_length(f::bytea)::text, ' and ' ORDER BY id) FROM stored_filters") bytes"
	echo
} | tee -a "$REPORT"

# ---- timing -----------------------------------------------------------------

bench_queries <<EOF
count|count(id), for scale|SELECT count(id) AS v FROM ids
bloom|bloom_agg(id, $BITS)|SELECT octet_length(bloom_agg(id, $BITS)::bytea) AS v FROM ids
hll|hll_add_agg(hll_hash_bigint(id))|SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL AS v FROM ids
bloom_text|bloom_agg(id::text, $BITS)|SELECT octet_length(bloom_agg(id::text, $BITS)::bytea) AS v FROM ids
probe_small|count(*) WHERE id <~ filter of $SMALL_KEYS|SELECT count(*) AS v FROM ids WHERE id <~ (SELECT f FROM stored_filters WHERE id = 2)
probe_large|count(*) WHERE id <~ filter of $FILTER_KEYS|SELECT count(*) AS v FROM ids WHERE id <~ (SELECT f FROM stored_filters WHERE id = 1)
hashmod|count(*) WHERE hashint8(id) % 1000 = 0|SELECT count(*) AS v FROM ids WHERE hashint8(id) % 1000 = 0
EOF
bench_rounds "${QUERIES[@]}"

# Checks, never of times: every run of a query gives the same answer, and a
# probe finds at least its filter's keys.
for q in "${QUERIES[@]}"; do
	n=$(bench_answers "$q")
	bench_check "query $q gave $n different answers across runs" [ "$n" -eq 1 ]
done
for probe in probe_small:$SMALL_KEYS probe_large:$FILTER_KEYS; do
	found=$(bench_answer "${probe%%:*}")
	bench_check "${probe%%:*} found $found rows, fewer than its filter's ${probe#*:} keys" [ "$found" -ge "${probe#*:}" ]
done

bench_read_stats "$WORK/times"
# target_row NAME A B OP LIMIT: the ratio of A's median to B's, and whether
# it meets "ratio OP LIMIT"
target_row() {
	local r
	r=$(bench_ratio "${MED[$2]}" "${MED[$3]}")
	printf '%-34s %6s   target %s %s: %s\n' "$1" "$r" "$4" "$5" "$(bench_verdict "$r" "$4" "$5")"
}
{
	bench_results_table 42 10 "${QUERIES[@]}"
	echo
	echo "probe rows that passed: $(bench_answer probe_small) and $(bench_answer probe_large) of $KEYS" \
		"($SMALL_KEYS and $FILTER_KEYS in the filters, the rest false positives)"
	echo
	echo "== Ratios (medians)"
	target_row "bloom_agg / hll_add_agg" bloom hll '<=' 1.0
	target_row "bloom_agg(id) / bloom_agg(id::text)" bloom bloom_text '<' 0.5
	target_row "probe, small filter / hashint8 scan" probe_small hashmod '<=' 1.0
	target_row "probe, large filter / hashint8 scan" probe_large hashmod '<=' 1.0
	echo "load after the run: $(bench_load)"
} | tee -a "$REPORT"

bench_save "$REPORT" "keys_bench-$STAMP.txt"
bench_checks_line keys-bench
