#!/usr/bin/env bash
#
# bench/probe_bench.sh -- does a filter stored in a table probe as fast as
# one computed in the query?  One command from a clone:
#
#     bench/probe_bench.sh            # 10,000,000 probes, 5 repetitions
#     bench/probe_bench.sh --quick    # 100,000 probes, 1 repetition (smoke test)
#
# It checks the Debian packages (installing them as root), builds and installs
# the extension, starts a throw-away PostgreSQL 15 cluster, measures, prints a
# report, and stops the cluster.  Every figure it prints is measured in this
# run; nothing is hard-coded.  The report is also saved under bench/out/.
#
# Options:
#   --keys N          probe keys, md5 of a counter (default 10000000)
#   --filter-keys M   keys in the filter, the first M probe keys (default
#                     1000000: a 1.2 MB filter, stored out of line)
#   --reps R          timed repetitions of each query (default 5; each
#                     runs right after an untimed run of the same query)
#   --quick           --keys 100000 --filter-keys 10000 --reps 1
#                     (explicit options win)
#   --no-build        use the extension already installed
#   -h, --help        this text
#
# The queries, each counting the probe keys that may be in the filter:
#   (a)  the filter computed in the query by a scalar subquery,
#        k <~ (SELECT bloom_agg(k, 10) FROM filter_keys)
#   (b1) the same filter stored in a table, by scalar subquery:
#        k <~ (SELECT f FROM stored_filters WHERE id = 1)
#   (b2) the same stored filter, joined:
#        FROM probe_keys p JOIN stored_filters s ON s.id = 1 WHERE p.k <~ s.f
# and for scale: a plain count(k) over the probe keys, building the filter
# alone, and
#   (a') the computed filter in (b2)'s plan shape, a Nested Loop whose join
#        filter reads it from a one-row subquery (OFFSET 0 keeps it a join),
# so that (b2) can be compared with a query that differs from it only in
# where the filter comes from.  (a) includes building the filter; (b) reads a TOAST
# pointer per row and must detoast the filter once per query, not per row.
# The target is (b) / (a) <= 1.2.
#
# Queries run serially (max_parallel_workers_per_gather = 0) with jit off,
# the tables in shared buffers; pgbench's latency of one-row results is
# recorded (bench_time in bench/lib/common.sh: each run in a session of its
# own, after an untimed run of the same query), in rounds whose order
# rotates.

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'KEYS=10000000 FILTER_KEYS=1000000 REPS=5 BITS=10 TARGET=1.2' \
	'--keys:KEYS --filter-keys:FILTER_KEYS --reps:REPS' 'KEYS=100000 FILTER_KEYS=10000 REPS=1' "$@"
if [ "$FILTER_KEYS" -gt "$KEYS" ]; then
	printf 'probe_bench.sh: --filter-keys (%s) must not exceed --keys (%s)\n' "$FILTER_KEYS" "$KEYS" >&2
	exit 2
fi

# ---- build, install, cluster ----------------------------------------------

bench_cluster
# The probe table is about 65 bytes a row; shared buffers hold it with room
# to spare, at least 512 MB.
bench_serial_settings "$(bench_shared_buffers_mb $((KEYS * 80 / 1048576 + 128)) 512)"

# ---- machine ----------------------------------------------------------------

bench_report_start "run:         --keys $KEYS --filter-keys $FILTER_KEYS --reps $REPS, bits_per_key $BITS"

# ---- data -------------------------------------------------------------------

bf_log "creating probe_keys ($KEYS rows), filter_keys ($FILTER_KEYS rows), stored_filters"
bench_tables 'probe_keys filter_keys stored_filters' <<EOF
CREATE TABLE probe_keys AS SELECT md5(i::text) AS k FROM generate_series(1, $KEYS) i;
CREATE TABLE filter_keys AS SELECT md5(i::text) AS k FROM generate_series(1, $FILTER_KEYS) i;
CREATE TABLE stored_filters (id int PRIMARY KEY, f bloomfilter);
INSERT INTO stored_filters SELECT 1, bloom_agg(k, $BITS) FROM filter_keys;
EOF
IFS='|' read -r filter_bytes stored_bytes out_of_line < <(psql_c "
	SELECT octet_length(f::bytea), pg_column_size(f),
	       (SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE relname = 'stored_filters')
	  FROM stored_filters WHERE id = 1")
{
	echo "== Data"
	echo "probe_keys:      $KEYS keys, $(psql_c "SELECT pg_size_pretty(pg_relation_size('probe_keys'))")"
	echo "filter:          $FILTER_KEYS keys at $BITS bits a key: $filter_bytes bytes; stored as $stored_bytes bytes, out of line: $out_of_line"
	echo
} | tee -a "$REPORT"
if [ "$out_of_line" != t ]; then
	bf_warn "the stored filter is not out of line: (b) does not exercise the detoast cache (use more --filter-keys)"
fi

# ---- timing -----------------------------------------------------------------

bench_queries <<EOF
scan|count(k) over probe_keys, for scale|SELECT count(k) AS v FROM probe_keys
build|building the filter alone|SELECT octet_length(bloom_agg(k, $BITS)::bytea) AS v FROM filter_keys
a|(a)  filter computed in the query|SELECT count(*) AS v FROM probe_keys WHERE k <~ (SELECT bloom_agg(k, $BITS) FROM filter_keys)
b1|(b1) stored filter, scalar subquery|SELECT count(*) AS v FROM probe_keys WHERE k <~ (SELECT f FROM stored_filters WHERE id = 1)
aj|(a') computed filter, joined|SELECT count(*) AS v FROM probe_keys p, (SELECT (SELECT bloom_agg(k, $BITS) FROM filter_keys) AS f OFFSET 0) s WHERE p.k <~ s.f
b2|(b2) stored filter, joined|SELECT count(*) AS v FROM probe_keys p JOIN stored_filters s ON s.id = 1 WHERE p.k <~ s.f
EOF
bench_rounds "${QUERIES[@]}"

# Every run must give the same answer, and (a), (b1), (b2) the same count.
for q in "${QUERIES[@]}"; do
	n=$(bench_answers "$q")
	if [ "$n" -ne 1 ]; then
		bf_err "query $q gave $n different answers across runs"
		exit 1
	fi
done
members=$(bench_answer a)
if [ "$members" != "$(bench_answer b1)" ] || [ "$members" != "$(bench_answer b2)" ]; then
	bf_err "the queries disagree: (a) $members, (b1) $(bench_answer b1), (b2) $(bench_answer b2)"
	exit 1
fi

bench_read_stats "$WORK/times"
ratio() { bench_ratio "$1" "$2" 3; }
# (a) less the build: what (b) pays for reading the filter instead
a_less_build=$(awk -v a="${MED[a]}" -v b="${MED[build]}" 'BEGIN { print a - b }')
{
	bench_results_table 40 12 "${QUERIES[@]}"
	echo
	echo "probes that passed: $members of $KEYS ($FILTER_KEYS members, the rest false positives)"
	echo "per probe, (a) minus the scan and the build: $(awk -v a="${MED[a]}" -v s="${MED[scan]}" -v b="${MED[build]}" -v n="$KEYS" \
		'BEGIN { d = (a - s - b) * 1e6 / n; if (d > 0) printf "%.1f ns", d; else print "lost in the noise at this size" }')"
	echo
	for b in b1 b2; do
		r=$(ratio "${MED[$b]}" "${MED[a]}")
		echo "($b) / (a) = $r   target <= $TARGET: $(bench_verdict "$r" '<=' "$TARGET")"
	done
	# minimums are less disturbed by other work on the machine than medians
	echo "by minimum:  (b1) / (a) = $(ratio "${MIN[b1]}" "${MIN[a]}"),  (b2) / (a) = $(ratio "${MIN[b2]}" "${MIN[a]}"),  (b2) / (a') = $(ratio "${MIN[b2]}" "${MIN[aj]}")"
	# the join's own cost per row, apart from where the filter comes from
	echo "(b2) / (a') = $(ratio "${MED[b2]}" "${MED[aj]}")   (the same Nested Loop plan, filter computed vs. stored)"
	# (a) pays for building the filter, (b) for reading it from the table
	echo "without the build in (a):  (b1) / ((a) - build) = $(ratio "${MED[b1]}" "$a_less_build")," \
		"(b2) / ((a) - build) = $(ratio "${MED[b2]}" "$a_less_build")"
	echo "load after the run: $(bench_load)"
} | tee -a "$REPORT"

bench_save "$REPORT" "probe_bench-$STAMP.txt"
