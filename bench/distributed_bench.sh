#!/usr/bin/env bash
#
# bench/distributed_bench.sh -- pre-checks across servers against the same
# probe on one server: how much slower is `k <~ (SELECT f FROM ...)` when
# the rows are in Citus shards or behind postgres_fdw?  One command from a
# clone:
#
#     bench/distributed_bench.sh            # filters of 125 kB, 1.25 MB and 12.5 MB, 5 rounds
#     bench/distributed_bench.sh --quick    # tiny filters, 1 round (smoke test)
#
# It builds and installs the extension (unless --no-build), starts its own
# clusters, measures, prints Markdown tables and stops the clusters.  Every
# figure it prints is measured in this run, each against a local probe of
# the same run; the report is also saved under bench/out/.
#
# Options:
#   --rows N          rows probed: (i, md5(i::text)) for i in 1..N
#                     (default 200000)
#   --sizes LIST      keys of each filter, md5(i::text) for i in 1..M, at
#                     10 bits a key (default 100000,1000000,10000000:
#                     125 kB, 1.25 MB and 12.5 MB)
#   --shards LIST     shard counts of the distributed tables (default 8,32)
#   --rounds R        timed rounds (default 5)
#   --no-citus        leave out the Citus part
#   --no-fdw          leave out the postgres_fdw part
#   --quick           --rows 20000 --sizes 1000,10000 --rounds 1 (explicit
#                     options win): a smoke test of about a minute
#   --no-build        use the extension already installed
#   -h, --help        this text
#
# Citus (when Citus is installed in the PostgreSQL used, and the kit's
# citus-cluster.sh is at BLOOM_CITUS_KIT, else ../shared/citus beside the
# checkout; otherwise the part is skipped, and says so): a coordinator and
# two workers with Citus's default settings (serial plans on every node,
# as on the local side).  The rows are in a table distributed over each
# shard count, and in a local table on the coordinator.  The filters are
# in a reference table and in a local table on the coordinator.  Timed,
# for each filter:
#   local      SELECT count(*) FROM local_rows WHERE k <~ (SELECT f FROM filters_local WHERE id = M)
#   ref S      the distributed table of S shards, the filter from the reference table
#   ref S, one connection a worker
#              the same after SET citus.max_adaptive_executor_pool_size = 1:
#              what the query costs when Citus opens no connection beyond the
#              one it keeps to each worker
#   ref S, connections kept
#              the same after SET citus.max_cached_conns_per_worker = 16: the
#              second run finds the connections, and the filters, that the
#              first opened
#   coord S    the same, the filter from the coordinator's table
# and the ratios to local, and the worker sessions that the second run of
# "ref S" in a session starts (counted in the workers' logs): Citus opens
# more connections to a worker while its tasks take longer than
# citus.executor_slow_start_interval.
#
# postgres_fdw: a local and a remote cluster; the server lists
# extensions 'bloomfilter', so that the probe is pushed down with the
# filter as a parameter.  Timed, for each filter:
#   local      SELECT count(*) FROM local_rows WHERE k <~ (SELECT f FROM local_filters WHERE id = M)
#   fdw        the same over remote_ft, the foreign table of the same rows
#   join       remote_ft joined to the same filter stored on the remote
#              server, FROM remote_ft r JOIN remote_filters_ft f ON f.id = M
#              AND r.k <~ f.f: postgres_fdw pushes the join and the count
#              down, and no filter is sent
#   remote     the same count run on the remote server itself, the filter
#              from a table there: the probe without the sending
#   out        SELECT octet_length(f::text) FROM local_filters ...: the
#              text form postgres_fdw sends (bloomfilter_out, the detoast
#              and one copy)
#   in         SELECT octet_length(t::bloomfilter::bytea) on the remote
#              side over that text stored out of line: what reading it
#              back costs there (bloomfilter_in, the detoast and a copy)
# and the ratios fdw / local and join / local, with fdw - remote, what
# sending the filter costs.  EXPLAIN VERBOSE must show the count pushed
# down and the filter as $1 (and the join pushed down); the remote server's
# log (log_statement = all, for one query) must show one statement with one
# parameter.
#
# Each time is the second run of the query in a session of its own
# (bench_time in bench/lib/common.sh), in rounds whose order rotates; the
# tables give medians.  The checks, never of times (every distributed or
# foreign count equals the local one, every run the same answer, the plans
# and the parameter), are counted in the last line:
# "distributed-bench: N passed, N failed".

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'ROWS=200000 SIZES=100000,1000000,10000000 SHARDS=8,32 REPS=5 BITS=10 CITUS=1 FDW=1' \
	'--rows:ROWS --sizes:SIZES:list --shards:SHARDS:list --rounds:REPS --no-citus:CITUS= --no-fdw:FDW=' \
	'ROWS=20000 SIZES=1000,10000 REPS=1' "$@"
IFS=, read -r -a SIZE_LIST <<<"$SIZES"
IFS=, read -r -a SHARD_LIST <<<"$SHARDS"
for n in "${SIZE_LIST[@]}" "${SHARD_LIST[@]}"; do
	bench_need_int '--sizes/--shards' "$n"
done

# ---- build, install, the local cluster ----------------------------------------

bench_cluster
bench_serial_settings "$(bench_shared_buffers_mb $((ROWS * 80 / 1048576 + 256)) 512)"
LOCAL_SERVER="$PGHOST $PGPORT"

bench_report_start "run:         --rows $ROWS --sizes $SIZES --shards $SHARDS --rounds $REPS, bits_per_key $BITS"

SUMMARY=$WORK/summary.md
: >"$SUMMARY"
: >"$WORK/times.all"
: >"$WORK/answers.all"
# the SQL of the filters of every size, in a table TABLE(id, keys, f)
filters_sql() {
	local n
	echo "CREATE TABLE $1 (id int PRIMARY KEY, f bloomfilter);"
	for n in "${SIZE_LIST[@]}"; do
		echo "INSERT INTO $1 SELECT $n, bloom_agg(md5(i::text), $BITS) FROM generate_series(1, $n) i;"
	done
}
# keep: the rounds' times and answers, for the figures at the end
keep_rounds() {
	cat "$WORK/times" >>"$WORK/times.all"
	cat "$WORK/answers" >>"$WORK/answers.all"
}
mb() { awk -v b="$1" 'BEGIN { if (b >= 1e6) printf "%.2f MB", b / 1e6; else printf "%.1f kB", b / 1e3 }'; }

# ---- Citus ----------------------------------------------------------------------

bench_citus_skip "$CITUS"

# worker_sessions SQL: the sessions the workers start for the second run of
# SQL in a session on the coordinator, as in a timed run (Citus keeps one
# connection to each worker between queries, and opens others when a
# worker's tasks take long)
worker_sessions() {
	local count="cat $CITUS_BASE/worker1.log $CITUS_BASE/worker2.log | grep -c 'connection authorized'"
	"${PSQL[@]}" -c "$1" -c "\\! $count >$WORK/sessions.before" -c "$1" -c "\\! $count >$WORK/sessions.after" >/dev/null
	echo $(($(cat "$WORK/sessions.after") - $(cat "$WORK/sessions.before")))
}

citus_part() {
	local n s start
	# log_connections: the worker sessions a query opens are counted in the
	# workers' logs
	bench_citus_cluster '-c max_parallel_workers_per_gather=0 -c log_connections=on'
	bf_log "Citus: tables of $ROWS rows over ${SHARDS//,/ and } shards, filters of ${SIZES//,/, } keys"
	{
		echo "SET client_min_messages = warning;"
		echo "CREATE TABLE local_rows AS SELECT i, md5(i::text) AS k FROM generate_series(1, $ROWS) i;"
		for s in "${SHARD_LIST[@]}"; do
			echo "CREATE TABLE dist_$s (i int, k text);"
			echo "SELECT create_distributed_table('dist_$s', 'i', shard_count => $s);"
			echo "INSERT INTO dist_$s SELECT i, k FROM local_rows;"
			echo "VACUUM ANALYZE dist_$s;"
		done
		filters_sql filters_local
		echo "CREATE TABLE filters_ref AS SELECT * FROM filters_local;"
		echo "ALTER TABLE filters_ref ADD PRIMARY KEY (id);"
		echo "SELECT create_reference_table('filters_ref');"
		echo "VACUUM ANALYZE local_rows; VACUUM ANALYZE filters_local; VACUUM ANALYZE filters_ref;"
	} | "${PSQL[@]}" >/dev/null
	{
		echo "Citus $(psql_c "SELECT extversion FROM pg_extension WHERE extname = 'citus'") on the same PostgreSQL:" \
			"a coordinator and 2 workers, settings:$(psql_c "SELECT string_agg(' ' || name || '=' || current_setting(name), ',' ORDER BY name)
				FROM pg_settings WHERE name IN ('citus.max_cached_conns_per_worker', 'citus.max_adaptive_executor_pool_size', 'shared_buffers', 'max_parallel_workers_per_gather', 'jit')")"
	} | tee -a "$REPORT"
	bench_queries < <(
		for n in "${SIZE_LIST[@]}"; do
			echo "c_local_$n|Citus: local rows, filter of $n from a local table|SELECT count(*) AS v FROM local_rows WHERE k <~ (SELECT f FROM filters_local WHERE id = $n)"
			for s in "${SHARD_LIST[@]}"; do
				echo "c_ref_${s}_$n|Citus: $s shards, filter of $n from a reference table|SELECT count(*) AS v FROM dist_$s WHERE k <~ (SELECT f FROM filters_ref WHERE id = $n)"
				echo "c_ref1_${s}_$n|Citus: $s shards, filter of $n from a reference table, one connection a worker|SELECT count(*) AS v FROM dist_$s WHERE k <~ (SELECT f FROM filters_ref WHERE id = $n)"
				echo "c_refk_${s}_$n|Citus: $s shards, filter of $n from a reference table, connections kept|SELECT count(*) AS v FROM dist_$s WHERE k <~ (SELECT f FROM filters_ref WHERE id = $n)"
				echo "c_coord_${s}_$n|Citus: $s shards, filter of $n from a coordinator table|SELECT count(*) AS v FROM dist_$s WHERE k <~ (SELECT f FROM filters_local WHERE id = $n)"
			done
		done
	)
	for n in "${SIZE_LIST[@]}"; do
		for s in "${SHARD_LIST[@]}"; do
			Q_SETUP[c_ref1_${s}_$n]='SET citus.max_adaptive_executor_pool_size = 1;'
			Q_SETUP[c_refk_${s}_$n]='SET citus.max_cached_conns_per_worker = 16;'
		done
	done
	start=$(bench_cpu_ticks)
	bench_rounds "${QUERIES[@]}"
	CITUS_SHARE=$(bench_part_share "$start")
	keep_rounds
	bench_same_answers "${QUERIES[@]}"
	for n in "${SIZE_LIST[@]}"; do
		for s in "${SHARD_LIST[@]}"; do
			for q in ref ref1 refk coord; do
				bench_check "Citus, $s shards, filter of $n keys, way $q: the local count ($(bench_answer "c_${q}_${s}_$n") vs $(bench_answer "c_local_$n"))" \
					[ "$(bench_answer "c_${q}_${s}_$n")" = "$(bench_answer "c_local_$n")" ]
			done
		done
		bench_check "Citus, filter of $n keys: the local count $(bench_answer "c_local_$n") has every key of the filter among the rows" \
			[ "$(bench_answer "c_local_$n")" -ge "$((n < ROWS ? n : ROWS))" ]
	done
	declare -gA CITUS_SESSIONS=()
	for n in "${SIZE_LIST[@]}"; do
		for s in "${SHARD_LIST[@]}"; do
			CITUS_SESSIONS[${s}_$n]=$(worker_sessions "SELECT count(*) FROM dist_$s WHERE k <~ (SELECT f FROM filters_ref WHERE id = $n)")
		done
	done
	n=${SIZE_LIST[-1]}
	s=${SHARD_LIST[-1]}
	plan=$(psql_c "EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM dist_$s WHERE k <~ (SELECT f FROM filters_ref WHERE id = $n)")
	citus_plan_probes() { grep -q "Task Count: $s" <<<"$plan" && grep -qE 'Query: SELECT .*WHERE .*<~' <<<"$plan"; }
	bench_check "Citus: the probe of the reference table's filter is in the $s shard tasks' queries" \
		citus_plan_probes
	CITUS_BYTES=()
	for n in "${SIZE_LIST[@]}"; do
		CITUS_BYTES+=("$(psql_c "SELECT octet_length(f::bytea) FROM filters_local WHERE id = $n")")
	done
	citus_cluster_stop "$BINDIR" "$CITUS_BASE"
	export PGHOST=${LOCAL_SERVER% *} PGPORT=${LOCAL_SERVER#* }
}

if [ -n "$CITUS_SKIP" ]; then
	echo "Citus part skipped: $CITUS_SKIP" | tee -a "$REPORT"
	echo "Citus: skipped ($CITUS_SKIP)" >>"$SUMMARY"
	echo >>"$SUMMARY"
else
	citus_part
fi

# ---- postgres_fdw -----------------------------------------------------------------

FDW_SKIP=''
if [ -z "$FDW" ]; then
	FDW_SKIP='--no-fdw'
elif [ "$(psql_c "SELECT count(*) FROM pg_available_extensions WHERE name = 'postgres_fdw'")" != 1 ]; then
	FDW_SKIP="postgres_fdw is not available in $BINDIR's PostgreSQL (contrib)"
fi

# param_is_filter HEX: the parameter the remote log showed is $1 and starts
# with \x and HEX, and there is no $2
param_is_filter() {
	[[ $FDW_PARAM_SENT == "parameters: \$1 = '\\x$1"* && $FDW_PARAM_SENT != *"\$2"* ]]
}

fdw_part() {
	local n start plan before lines hex8
	bench_remote_cluster 512
	bf_log "postgres_fdw: $ROWS remote rows, filters of ${SIZES//,/, } keys"
	rq >/dev/null <<EOF
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
CREATE TABLE remote_rows AS SELECT i, md5(i::text) AS k FROM generate_series(1, $ROWS) i;
CREATE TABLE remote_filters (id int PRIMARY KEY, f bloomfilter);
-- the text form, out of line and uncompressed, as a parameter arrives
CREATE TABLE filter_texts (id int PRIMARY KEY, t text);
ALTER TABLE filter_texts ALTER t SET STORAGE EXTERNAL;
EOF
	# bench_tables creates the extensions, then vacuums, analyzes and
	# prewarms the local tables
	{
		bench_fdw_server_sql remote
		echo "CREATE FOREIGN TABLE remote_ft (i int, k text) SERVER remote OPTIONS (table_name 'remote_rows');"
		echo "CREATE FOREIGN TABLE remote_filters_ft (id int, f bloomfilter) SERVER remote OPTIONS (table_name 'remote_filters');"
		echo "CREATE TABLE local_rows AS SELECT i, md5(i::text) AS k FROM generate_series(1, $ROWS) i;"
		filters_sql local_filters
		echo "INSERT INTO remote_filters_ft SELECT * FROM local_filters;"
	} | bench_tables 'local_rows local_filters' postgres_fdw
	rq >/dev/null <<EOF
INSERT INTO filter_texts SELECT id, f::text FROM remote_filters;
VACUUM ANALYZE remote_rows; VACUUM ANALYZE remote_filters; VACUUM ANALYZE filter_texts;
CREATE EXTENSION pg_prewarm;
SELECT pg_prewarm('remote_rows');
EOF
	bench_queries < <(
		for n in "${SIZE_LIST[@]}"; do
			echo "f_local_$n|fdw: local rows, filter of $n|SELECT count(*) AS v FROM local_rows WHERE k <~ (SELECT f FROM local_filters WHERE id = $n)"
			echo "f_fdw_$n|fdw: remote_ft, filter of $n|SELECT count(*) AS v FROM remote_ft WHERE k <~ (SELECT f FROM local_filters WHERE id = $n)"
			echo "f_join_$n|fdw: remote_ft joined to the filter stored remotely, filter of $n|SELECT count(*) AS v FROM remote_ft r JOIN remote_filters_ft f ON f.id = $n AND r.k <~ f.f"
			echo "f_remote_$n|fdw: on the remote server, filter of $n|SELECT count(*) AS v FROM remote_rows WHERE k <~ (SELECT f FROM remote_filters WHERE id = $n)"
			echo "f_out_$n|fdw: f::text, filter of $n|SELECT octet_length(f::text) AS v FROM local_filters WHERE id = $n"
			echo "f_in_$n|fdw: text::bloomfilter on the remote server, filter of $n|SELECT octet_length(t::bloomfilter::bytea) AS v FROM filter_texts WHERE id = $n"
		done
	)
	for n in "${SIZE_LIST[@]}"; do
		Q_SERVER[f_remote_$n]="$REMOTE_HOST $REMOTE_PORT"
		Q_SERVER[f_in_$n]="$REMOTE_HOST $REMOTE_PORT"
	done
	start=$(bench_cpu_ticks)
	bench_rounds "${QUERIES[@]}"
	FDW_SHARE=$(bench_part_share "$start")
	keep_rounds
	bench_same_answers "${QUERIES[@]}"
	FDW_BYTES=()
	for n in "${SIZE_LIST[@]}"; do
		FDW_BYTES+=("$(psql_c "SELECT octet_length(f::bytea) FROM local_filters WHERE id = $n")")
		bench_check "fdw, filter of $n keys: the foreign count equals the local one ($(bench_answer "f_fdw_$n") vs $(bench_answer "f_local_$n"))" \
			[ "$(bench_answer "f_fdw_$n")" = "$(bench_answer "f_local_$n")" ]
		bench_check "fdw, filter of $n keys stored remotely, joined: the local count ($(bench_answer "f_join_$n"))" \
			[ "$(bench_answer "f_join_$n")" = "$(bench_answer "f_local_$n")" ]
		bench_check "fdw, filter of $n keys: the remote server's own count equals the local one ($(bench_answer "f_remote_$n"))" \
			[ "$(bench_answer "f_remote_$n")" = "$(bench_answer "f_local_$n")" ]
		bench_check "fdw, filter of $n keys: the local count $(bench_answer "f_local_$n") has every key of the filter among the rows" \
			[ "$(bench_answer "f_local_$n")" -ge "$((n < ROWS ? n : ROWS))" ]
		bench_check "fdw, filter of $n keys: its text form is 2 characters a byte and \\x ($(bench_answer "f_out_$n"))" \
			[ "$(bench_answer "f_out_$n")" -eq $((2 * FDW_BYTES[-1] + 2)) ]
		bench_check "fdw, filter of $n keys: the text read back on the remote side has the filter's bytes" \
			[ "$(bench_answer "f_in_$n")" -eq "${FDW_BYTES[-1]}" ]
	done
	# the largest filter: the count pushed down, the filter sent as $1, once
	n=${SIZE_LIST[-1]}
	plan=$(psql_c "EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM remote_ft WHERE k <~ (SELECT f FROM local_filters WHERE id = $n)")
	FDW_REMOTE_SQL=$(sed -n 's/^ *Remote SQL: //p' <<<"$plan")
	bench_check "fdw: the count is pushed down (Remote SQL: $FDW_REMOTE_SQL)" \
		grep -q '^SELECT count(\*) FROM public.remote_rows WHERE' <<<"$FDW_REMOTE_SQL"
	# shellcheck disable=SC2016 # $1: the parameter, in a regular expression
	bench_check "fdw: the filter is sent as the parameter \$1, and no other" \
		grep -qE 'OPERATOR\(public\.<~\) \$1::public\.bloomfilter\)+$' <<<"$FDW_REMOTE_SQL"
	plan=$(psql_c "EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM remote_ft r JOIN remote_filters_ft f ON f.id = $n AND r.k <~ f.f")
	FDW_JOIN_SQL=$(sed -n 's/^ *Remote SQL: //p' <<<"$plan")
	bench_check "fdw: the join with the filter stored remotely and the count are pushed down (Remote SQL: $FDW_JOIN_SQL)" \
		grep -qE '^SELECT count\(\*\) FROM \(public\.remote_rows r1 INNER JOIN public\.remote_filters r2 ON .*<~' <<<"$FDW_JOIN_SQL"
	rq -c "ALTER SYSTEM SET log_statement = 'all'" -c "ALTER SYSTEM SET log_parameter_max_length = 16" \
		-c "SELECT pg_reload_conf()" >/dev/null
	sleep 1
	before=$(wc -l <"$REMOTE_LOG")
	psql_c "SELECT count(*) FROM remote_ft WHERE k <~ (SELECT f FROM local_filters WHERE id = $n)" >/dev/null
	rq -c "ALTER SYSTEM RESET log_statement" -c "ALTER SYSTEM RESET log_parameter_max_length" \
		-c "SELECT pg_reload_conf()" >/dev/null
	lines=$(tail -n +"$((before + 1))" "$REMOTE_LOG")
	FDW_PARAMS=$(grep -c 'DETAIL: *parameters: ' <<<"$lines" || true)
	FDW_PARAM_SENT=$(grep -o 'parameters: .*' <<<"$lines" | head -n 1)
	bench_check "fdw: one remote statement carries a parameter, once (the remote log has $FDW_PARAMS: $FDW_PARAM_SENT)" \
		[ "$FDW_PARAMS" -eq 1 ]
	hex8=$(psql_c "SELECT substr(f::text, 3, 8) FROM local_filters WHERE id = $n")
	bench_check "fdw: that parameter is the filter's text form (\\x$hex8...), and the only one" \
		param_is_filter "$hex8"
	bf__stop_data "$REMOTE_DATA"
}

if [ -n "$FDW_SKIP" ]; then
	echo "postgres_fdw part skipped: $FDW_SKIP" | tee -a "$REPORT"
	echo "postgres_fdw: skipped ($FDW_SKIP)" >>"$SUMMARY"
else
	fdw_part
fi

# ---- the tables ------------------------------------------------------------------

cp "$WORK/times.all" "$WORK/times"
cp "$WORK/answers.all" "$WORK/answers"
bench_read_stats "$WORK/times"
{
	bench_tables_title "$ROWS rows (md5(i::text)) probed with filters of md5(i::text), i = 1..M, at $BITS bits a key;" \
		"medians of $REPS round(s), each the second run of its query in a session; ms."
	if [ -z "$CITUS_SKIP" ]; then
		echo "### Citus: distributed / local"
		echo
		echo "| filter keys | filter bytes | shards | local ms | reference table ms | ratio | worker sessions started | one connection a worker ms | ratio | connections kept ms | ratio | coordinator table ms | ratio |"
		echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		for i in "${!SIZE_LIST[@]}"; do
			n=${SIZE_LIST[$i]}
			for s in "${SHARD_LIST[@]}"; do
				echo "| $n | ${CITUS_BYTES[$i]} | $s | $(bench_ms "c_local_$n") | $(bench_ms "c_ref_${s}_$n") | $(bench_med_ratio "c_ref_${s}_$n" "c_local_$n")" \
					"| ${CITUS_SESSIONS[${s}_$n]} | $(bench_ms "c_ref1_${s}_$n") | $(bench_med_ratio "c_ref1_${s}_$n" "c_local_$n")" \
					"| $(bench_ms "c_refk_${s}_$n") | $(bench_med_ratio "c_refk_${s}_$n" "c_local_$n")" \
					"| $(bench_ms "c_coord_${s}_$n") | $(bench_med_ratio "c_coord_${s}_$n" "c_local_$n") |"
			done
		done
		echo
		echo "Worker sessions started: by the second run of the reference-table query in a session, over both workers (Citus keeps one connection to each between queries)." \
			"One connection a worker: the same query after SET citus.max_adaptive_executor_pool_size = 1." \
			"Connections kept: after SET citus.max_cached_conns_per_worker = 16, so that the second run finds the first's connections."
		echo
		echo "$CITUS_SHARE"
		echo
	fi
	if [ -z "$FDW_SKIP" ]; then
		echo "### postgres_fdw: foreign / local, and what sending the filter costs"
		echo
		echo "| filter keys | filter bytes | local ms | fdw ms | ratio | remote alone ms | fdw − remote alone ms | f::text ms | text::bloomfilter (remote) ms | filter stored remotely, joined ms | ratio |"
		echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		for i in "${!SIZE_LIST[@]}"; do
			n=${SIZE_LIST[$i]}
			echo "| $n | ${FDW_BYTES[$i]} | $(bench_ms "f_local_$n") | $(bench_ms "f_fdw_$n") | $(bench_med_ratio "f_fdw_$n" "f_local_$n")" \
				"| $(bench_ms "f_remote_$n") | $(awk -v a="${MED[f_fdw_$n]}" -v b="${MED[f_remote_$n]}" 'BEGIN { printf "%.1f", a - b }')" \
				"| $(bench_ms "f_out_$n") | $(bench_ms "f_in_$n") | $(bench_ms "f_join_$n") | $(bench_med_ratio "f_join_$n" "f_local_$n") |"
		done
		echo
		echo "Remote SQL: \`$FDW_REMOTE_SQL\`; the remote server's log of one query: $FDW_PARAMS statement with parameters (\`${FDW_PARAM_SENT}\`)." \
			"Joined to the filter stored remotely, nothing is sent: \`$FDW_JOIN_SQL\`."
		echo
		echo "$FDW_SHARE"
		echo
	fi
	cat "$SUMMARY"
} >"$WORK/tables.md"

{
	echo
	echo "== Every query ($REPS round(s); ms: median, min, max)"
	cut -d'|' -f1 "$WORK/times" | awk '!seen[$0]++' | while read -r q; do
		printf '%-22s %10.1f %10.1f %10.1f\n' "$q" "${MED[$q]}" "${MIN[$q]}" "${MAX[$q]}"
	done
	echo
} | tee -a "$REPORT"

bench_finish distributed_bench distributed-bench
