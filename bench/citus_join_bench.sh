#!/usr/bin/env bash
#
# bench/citus_join_bench.sh -- a Citus distributed table joined with a
# small table of the coordinator: does a pre-check written by hand,
# AND e.user_id <~ (SELECT bloom_agg(user_id, 20) FROM vip), make the
# join faster, and where does the time go without it?  One command from
# a clone:
#
#     bench/citus_join_bench.sh            # 2,000,000 distributed events, 3 rounds
#     bench/citus_join_bench.sh --quick    # 200,000 events, 1 round (smoke test)
#
# It builds and installs the extension (unless --no-build), starts a Citus
# coordinator and two workers (the kit's citus-cluster.sh, at
# BLOOM_CITUS_KIT, else ../shared/citus beside the checkout, with Citus
# installed in the PostgreSQL used: the kit's build-citus.sh installs it;
# without them it says why and stops), measures, prints Markdown tables
# and stops the cluster.  Every figure it prints is measured in this run;
# the report is also saved under bench/out/.
#
# Options:
#   --rows N          distributed events (default 2000000), 1% of them by
#                     a user of vip
#   --vip N           keys of vip (default 10000)
#   --bits B          the pre-check's bits per key (default 20)
#   --rounds R        timed rounds (default 3)
#   --quick           --rows 200000 --rounds 1 (explicit options win): a
#                     smoke test
#   --no-build        use the extension already installed
#   -h, --help        this text
#
# The cluster: Citus's default settings (citus.shard_count among them),
# serial plans, no JIT and no autovacuum on every node, shared_buffers to
# hold a worker's shards.  The data: events(user_id bigint, payload text)
# distributed by user_id, N rows, each hundredth by one of the users
# 1..VIP, the others by one of N/10 other users (bench_events_select), its
# shards read into the workers' shared buffers; vip(user_id bigint primary
# key) of the users 1..VIP three times: vip, a table of the coordinator
# that Citus does not know; vip_ref, a reference table (a copy on every
# node); vip_cl, a Citus local table (citus_add_local_table_to_metadata:
# on the coordinator, known to Citus).  All analyzed.
#
# Timed, for each of the three vip tables, under citus.local_table_join_policy
# 'auto' (the default) and 'prefer-distributed', and for each form of the
# join (JOIN ... ON, IN (SELECT ...), EXISTS (SELECT ... WHERE v.user_id =
# e.user_id)), each query SELECT count(*) || ':' || sum(length(e.payload)):
#   off        as it is
#   hand       with the pre-check written by hand:
#              AND e.user_id <~ (SELECT bloom_agg(user_id, B) FROM <that vip>)
#   sub        the same pre-check inside a derived table that takes
#              events' place: (SELECT e.user_id, e.payload FROM events e
#              WHERE <the pre-check>) e, so that where Citus plans events
#              recursively its subplan carries the probe
#   derived    that derived table without the pre-check: what the
#              derived table changes by itself
# and the ratios off / hand, off / sub (a filter pays where one is >= 5)
# and derived / sub (what the pre-check gains in the derived table).
# A query Citus refuses is reported with its error and left out of the
# rounds.
#
# The plans: EXPLAIN (VERBOSE, COSTS OFF) of each query in a session set
# as its timed ones are (what Citus plans recursively, as distributed
# subplans, and what the workers' tasks run), and EXPLAIN (ANALYZE, COSTS
# OFF) of each, run once after the rounds: the intermediate results' sizes
# and where they went.  Under bloomfilter.join_filter = on, whether the
# planner's filter is added to the JOIN with vip (it handles foreign
# tables only).
#
# Each time is the second run of the query in a session of its own
# (bench_time in bench/lib/common.sh), every query in the same rounds,
# whose order rotates; the tables give medians.  The checks, never of
# times (every variant's answer equals off's, every run the same answer,
# off's count is the one the data was made with), are counted in the last
# line: "citus-join-bench: N passed, N failed".

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'ROWS=2000000 VIP=10000 BITS=20 REPS=3' \
	'--rows:ROWS:100 --vip:VIP --bits:BITS --rounds:REPS' \
	'ROWS=200000 REPS=1' "$@"

# ---- the cluster and the data ------------------------------------------------------

bench_prepare "$BUILD"
bench_citus_skip 1
if [ -n "$CITUS_SKIP" ]; then
	bf_err "no Citus: $CITUS_SKIP"
	exit 1
fi
# a worker holds half of the events, about 80 bytes a row
SB_MB=$(bench_shared_buffers_mb $((ROWS * 40 / 1048576 + 128)) 256)
bench_citus_cluster "$(bench__serial_setting_list "$SB_MB" | sed "s/ = /=/; s/'//g; s/^/-c /" | paste -sd ' ')"
bench_report_start "run:         --rows $ROWS --vip $VIP --bits $BITS --rounds $REPS; the same settings on the coordinator and both workers"

bf_log "events of $ROWS rows, distributed; vip of $VIP keys as a table of the coordinator, a reference table and a Citus local table"
{
	echo "SET client_min_messages = warning;"
	echo "CREATE EXTENSION pg_prewarm;"
	echo "CREATE TABLE events (user_id bigint, payload text);"
	echo "SELECT create_distributed_table('events', 'user_id');"
	echo "INSERT INTO events SELECT user_id, payload FROM ($(bench_events_select "$ROWS" "$VIP")) s;"
	for t in vip vip_ref vip_cl; do
		echo "CREATE TABLE $t (user_id bigint PRIMARY KEY);"
		echo "INSERT INTO $t SELECT i FROM generate_series(1, $VIP) i;"
	done
	echo "SELECT create_reference_table('vip_ref');"
	echo "SELECT citus_add_local_table_to_metadata('vip_cl');"
	echo "VACUUM (ANALYZE) events, vip, vip_ref, vip_cl;"
	echo "CHECKPOINT;"
	echo "SELECT run_command_on_shards('events', \$\$SELECT pg_prewarm('%s')\$\$);"
	echo "SELECT pg_prewarm(t) FROM unnest(ARRAY['vip', 'vip_ref', 'vip_cl']::regclass[]) t;"
} | "${PSQL[@]}" >/dev/null
SHARDS=$(psql_c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'events'::regclass")
PLACEMENTS=$(psql_c "SELECT string_agg(n || ' on ' || nodeport, ', ' ORDER BY nodeport)
	FROM (SELECT nodeport, count(*) AS n FROM citus_shards WHERE table_name = 'events'::regclass GROUP BY nodeport) s")
CITUS_LINE="Citus $(psql_c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"): a coordinator and 2 workers;$(
	psql_c "SELECT string_agg(' ' || name || '=' || current_setting(name), ',' ORDER BY name) FROM pg_settings
		WHERE name IN ('citus.shard_count', 'citus.local_table_join_policy', 'citus.max_adaptive_executor_pool_size',
			'citus.max_cached_conns_per_worker', 'citus.executor_slow_start_interval', 'citus.max_intermediate_result_size')")"
{
	echo "$CITUS_LINE"
	echo "events: $SHARDS shards (placements: $PLACEMENTS), $(psql_c "SELECT pg_size_pretty(citus_table_size('events'))")"
	echo
} | tee -a "$REPORT"

# ---- the queries -------------------------------------------------------------------

SELECT_E="SELECT count(*) || ':' || sum(length(e.payload)) AS v"
FORMS=(join in exists)
declare -A FORM_LABEL=([join]='JOIN ... ON' [in]='IN (SELECT ...)' [exists]='EXISTS (...)')
# form_sql FORM VIP [EVENTS]: the query of FORM with the table VIP, and
# EVENTS (default events) as e
form_sql() {
	local e="${3:-events} e"
	case $1 in
	join) echo "$SELECT_E FROM $e JOIN $2 v ON v.user_id = e.user_id" ;;
	in) echo "$SELECT_E FROM $e WHERE e.user_id IN (SELECT user_id FROM $2)" ;;
	exists) echo "$SELECT_E FROM $e WHERE EXISTS (SELECT 1 FROM $2 v WHERE v.user_id = e.user_id)" ;;
	esac
}
VIP_TABLES=(vip vip_ref vip_cl)
declare -A VIP_LABEL=([vip]='coordinator table' [vip_ref]='reference table' [vip_cl]='Citus local table')
POLICIES=(auto pd)
declare -A POLICY_LABEL=([auto]='auto (default)' [pd]='prefer-distributed')
declare -A POLICY_SETUP=([auto]='' [pd]="SET citus.local_table_join_policy = 'prefer-distributed';")

VARIANTS=(off hand sub derived)
declare -A VARIANT_LABEL=([off]=off [hand]='pre-check by hand' [sub]='pre-check by hand in a derived table'
	[derived]='the derived table without the pre-check')

# every query: VIP_POLICY_FORM_VARIANT; BASES, each VIP_POLICY_FORM, and
# its cells of the tables
ALL=() BASES=()
declare -A BASE_CELLS=()
declare -A ALL_SQL=() ALL_LABEL=() ALL_SETUP=()
for t in "${VIP_TABLES[@]}"; do
	for p in "${POLICIES[@]}"; do
		for f in "${FORMS[@]}"; do
			base=${t}_${p}_$f
			BASES+=("$base")
			BASE_CELLS[$base]="${VIP_LABEL[$t]} | ${POLICY_LABEL[$p]} | ${FORM_LABEL[$f]}"
			sql=$(form_sql "$f" "$t")
			check="e.user_id <~ (SELECT bloom_agg(user_id, $BITS) FROM $t)"
			ALL+=("${base}_off" "${base}_hand" "${base}_sub" "${base}_derived")
			ALL_SQL[${base}_off]=$sql
			ALL_SQL[${base}_hand]="$sql $([ "$f" = join ] && echo WHERE || echo AND) $check"
			ALL_SQL[${base}_sub]=$(form_sql "$f" "$t" "(SELECT e.user_id, e.payload FROM events e WHERE $check)")
			ALL_SQL[${base}_derived]=$(form_sql "$f" "$t" "(SELECT e.user_id, e.payload FROM events e)")
			for v in "${VARIANTS[@]}"; do
				ALL_LABEL[${base}_$v]="${VIP_LABEL[$t]}, ${POLICY_LABEL[$p]}, ${FORM_LABEL[$f]}, ${VARIANT_LABEL[$v]}"
				ALL_SETUP[${base}_$v]=${POLICY_SETUP[$p]}
			done
		done
	done
done

# ---- the plans ---------------------------------------------------------------------

# in_session QUERY SQL: SQL in a session set up as QUERY's timed ones
# are; Citus's connections to the coordinator itself (EXPLAIN of a task it
# runs) go to the cluster's socket directory, as it listens on no TCP port
in_session() {
	local args=(-c 'SET client_min_messages = warning;' -c "SET citus.local_hostname = '$CITUS_BASE';")
	[ -z "${ALL_SETUP[$1]}" ] || args+=(-c "${ALL_SETUP[$1]}")
	"${PSQL[@]}" "${args[@]}" -c "$2" 2>&1
}
PLANS=$WORK/plans.txt
: >"$PLANS"
REFUSED=()
declare -A ERROR=()
for q in "${ALL[@]}"; do
	if ! plan=$(in_session "$q" "EXPLAIN (VERBOSE, COSTS OFF) ${ALL_SQL[$q]}"); then
		ERROR[$q]=$(sed -n 's/^.*ERROR: *//p' <<<"$plan" | head -n 1)
		REFUSED+=("$q")
	fi
	printf '== %s (%s)\n%s;\n%s\n\n' "$q" "${ALL_LABEL[$q]}" "${ALL_SQL[$q]}" "$plan" >>"$PLANS"
done
for q in "${REFUSED[@]}"; do
	bf_warn "Citus refuses $q: ${ERROR[$q]}"
done
JOIN_FILTER_PLAN=$("${PSQL[@]}" -c "LOAD 'bloomfilter'" -c "SET bloomfilter.join_filter = on" \
	-c "EXPLAIN (VERBOSE, COSTS OFF) ${ALL_SQL[vip_auto_join_off]}" 2>&1 || true)
JOIN_FILTER_ADDS=no
if grep -q 'bloom_agg' <<<"$JOIN_FILTER_PLAN"; then
	JOIN_FILTER_ADDS=yes
fi

# ---- the rounds --------------------------------------------------------------------

bench_queries < <(for q in "${ALL[@]}"; do
	[ -z "${ERROR[$q]:-}" ] && echo "$q|${ALL_LABEL[$q]}|${ALL_SQL[$q]}"
done)
for q in "${QUERIES[@]}"; do
	Q_SETUP[$q]=${ALL_SETUP[$q]}
done
bench_rounds_against_off "${QUERIES[@]}"
for q in "${QUERIES[@]}"; do
	[[ $q == *_off ]] || continue
	bench_check "${Q_NAME[$q]}: the count the data was made with ($((ROWS / 100)): $(bench_answer "$q"))" \
		[ "$(bench_answer "$q" | cut -d: -f1)" = "$((ROWS / 100))" ]
done

# ---- where the time goes: EXPLAIN ANALYZE, once each --------------------------------

bf_log "EXPLAIN ANALYZE of each query, once"
ANALYZED=$WORK/analyzed.txt
: >"$ANALYZED"
for q in "${QUERIES[@]}"; do
	printf '== %s (%s)\n%s\n\n' "$q" "${Q_NAME[$q]}" \
		"$(in_session "$q" "EXPLAIN (ANALYZE, COSTS OFF) ${Q_SQL[$q]}" || true)" >>"$ANALYZED"
done
# subplans QUERY: the distributed subplans of QUERY's EXPLAIN ANALYZE, each
# as "what it read (its size in its time, where it went)", then the tasks
# of the outer plan and the whole time: "N tasks, T ms in all"
subplans() {
	sed -n "/^== $1 /,/^\$/p" "$ANALYZED" | awk '
		/Distributed Subplan/ { if (n) print part; n++; part = ""; rel = ""; size = ""; dur = ""; dest = ""; next }
		/Subplan Duration:/ { sub(/.*Subplan Duration: */, ""); sub(/\.[0-9]* ms$/, " ms"); dur = $0 }
		/Intermediate Data Size:/ { sub(/.*Intermediate Data Size: */, ""); size = $0 }
		/Result destination:/ { sub(/.*Result destination: */, ""); dest = $0 }
		/^Execution Time:/ { total = $3; sub(/\..*/, "", total) }
		/Seq Scan on|Index Only Scan using|Index Scan using/ && rel == "" && n {
			r = $0; sub(/.*(Seq Scan on|Scan using [^ ]+ on) */, "", r); sub(/ .*/, "", r); sub(/_[0-9]+$/, "", r); rel = r }
		{ if (n) part = (rel == "" ? "?" : rel) " (" size " in " dur ", " dest ")" }
		/Task Count:/ { tasks = $NF }
		/^ERROR:/ { err = $0 }
		END {
			if (n) print part
			if (err != "") print err
			print tasks " tasks, " total " ms in all"
		}' | paste -sd ';' | sed 's/;/; /g'
}

# ---- the tables --------------------------------------------------------------------

bench_read_stats "$WORK/times"
ms_or_refused() {
	if [ -n "${ERROR[$1]:-}" ]; then echo refused; else bench_ms "$1"; fi
}
# ratio_cell A B: A's median / B's, with its verdict against 5
ratio_cell() {
	local r
	if [ -n "${ERROR[$1]:-}${ERROR[$2]:-}" ]; then
		echo '–'
	else
		r=$(bench_med_ratio "$1" "$2")
		echo "$r ($(bench_verdict "$r" '>=' 5))"
	fi
}
{
	bench_tables_title "Distributed events of $ROWS rows over $SHARDS shards (Citus's default shard count) on 2 workers," \
		"1% of them by one of vip's $VIP users, vip on the coordinator; medians of $REPS round(s), each the second run" \
		"of its query in a session; ms.  By hand: \`AND e.user_id <~ (SELECT bloom_agg(user_id, $BITS) FROM vip)\`;" \
		"in a derived table: \`FROM (SELECT e.user_id, e.payload FROM events e WHERE e.user_id <~ (SELECT bloom_agg(user_id, $BITS) FROM vip)) e\`, the derived table alone the same without its WHERE."
	echo "### off against the pre-check by hand"
	echo
	echo "| vip is | local_table_join_policy | form | off ms | by hand ms | in a derived table ms | the derived table alone ms | off / by hand | off / in a derived table | the derived table alone / in a derived table |"
	echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
	for b in "${BASES[@]}"; do
		echo "| ${BASE_CELLS[$b]} | $(ms_or_refused "${b}_off") | $(ms_or_refused "${b}_hand")" \
			"| $(ms_or_refused "${b}_sub") | $(ms_or_refused "${b}_derived") | $(ratio_cell "${b}_off" "${b}_hand")" \
			"| $(ratio_cell "${b}_off" "${b}_sub") | $(ratio_cell "${b}_derived" "${b}_sub") |"
	done
	echo
	echo "A filter pays where a ratio is at least 5 (met); \"refused\": Citus refuses the query (the plans in the report give its error)."
	echo
	echo "### Where the rows go (EXPLAIN ANALYZE, once each: the distributed subplans, what each read, its intermediate result and where it went; the outer plan's tasks)"
	echo
	echo "| vip is | local_table_join_policy | form | off | by hand | in a derived table | the derived table alone |"
	echo "|---|---|---|---|---|---|---|"
	for b in "${BASES[@]}"; do
		line="| ${BASE_CELLS[$b]} |"
		for v in "${VARIANTS[@]}"; do
			if [ -n "${ERROR[${b}_$v]:-}" ]; then
				line+=" refused: ${ERROR[${b}_$v]} |"
			else
				line+=" $(subplans "${b}_$v") |"
			fi
		done
		echo "$line"
	done
	echo
	echo "bloomfilter.join_filter = on adds a filter to the JOIN with the coordinator's vip: $JOIN_FILTER_ADDS."
	echo
	echo "$SHARE"
	echo
} >"$WORK/tables.md"

{
	echo
	bench_every_query 24 "${QUERIES[@]}"
	for q in "${REFUSED[@]}"; do
		printf '%-24s refused: %s\n' "$q" "${ERROR[$q]}"
	done
	echo
	echo "== Plans (EXPLAIN VERBOSE, COSTS OFF)"
	echo
	cat "$PLANS"
	echo "== bloomfilter.join_filter = on, the JOIN with the coordinator's vip"
	echo "$JOIN_FILTER_PLAN"
	echo
	echo "== EXPLAIN (ANALYZE, COSTS OFF), once each after the rounds"
	echo
	cat "$ANALYZED"
} | tee -a "$REPORT" >/dev/null

bench_finish citus_join_bench citus-join-bench
