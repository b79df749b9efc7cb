#!/usr/bin/env bash
#
# bench/join_filter_bench.sh -- bloomfilter.join_filter: a foreign table
# joined with a local one, with the planner's filter (on) against none
# (off) and against the pre-check written by hand, and where a filter
# cannot help, on against off.  One command from a clone:
#
#     bench/join_filter_bench.sh            # 10,000,000 remote events, 3 rounds
#     bench/join_filter_bench.sh --quick    # 1,000,000 events, 1 round (smoke test)
#     bench/join_filter_bench.sh --star     # and a local star join, filters by hand
#
# It builds and installs the extension (unless --no-build), starts two
# clusters, "local" and "remote" (postgres_fdw from local to remote, the
# server with extensions 'bloomfilter'), measures, prints Markdown tables
# and stops the clusters.  Every figure it prints is measured in this run;
# the report is also saved under bench/out/.
#
# Options:
#   --rows N          remote events (default 10000000), 1% of them by a
#                     user of the local vip table
#   --vip N           keys of vip (default 10000)
#   --rounds R        timed rounds (default 3)
#   --star            also time a local star join (below)
#   --star-rows N     the star join's fact rows (default 10000000)
#   --quick           --rows 1000000 --star-rows 1000000 --rounds 1 and
#                     smaller negative cases (explicit options win): a
#                     smoke test
#   --no-build        use the extension already installed
#   -h, --help        this text
#
# The data: on the remote side events(id, user_id bigint, payload text) of
# N rows, each hundredth by one of vip's users (1..VIP), the others by one
# of N/10 other users; orders(id, user_id, amount), every row by one of the
# local users' ids; small_events, 1,000 rows made as events are.  On the
# local side vip(user_id, name), users(user_id, name), local_events (N/10
# rows made as events are), and foreign tables of the remote ones.  Both
# sides analyzed, the foreign tables too.
#
# Timed, for each form of the join with vip (JOIN ... ON, IN (SELECT ...),
# EXISTS (SELECT ... WHERE v.user_id = e.user_id)), each query
# SELECT count(*) || ':' || sum(length(e.payload)) AS v:
#   off        bloomfilter.join_filter = off
#   on         bloomfilter.join_filter = on
#   hand       off, with the pre-check written by hand:
#              AND e.user_id <~ (SELECT bloom_agg(user_id, 10) FROM vip)
# and the ratios off / on (wanted >= 5) and on / hand (wanted <= 1.2).
# Where a filter cannot help, off and on, and on / off (wanted <= 1.05):
#   fk         orders joined with users: every remote row matches
#   small      small_events joined with vip: a small remote side, run
#              SMALL_RUNS (20) times in the timed transaction, whose time
#              (about a millisecond a run) would else be mostly noise
#   local      local_events joined with vip: no foreign table
# Each session runs LOAD 'bloomfilter' and sets join_filter before its
# untimed run.  The plans: EXPLAIN VERBOSE with on must show bloom_agg (a
# filter added) in the three forms and not in the three negative cases.
#
# With --star, a part on the local cluster alone, where the setting adds
# no filter (it filters foreign tables only): does a filter on a local
# fact table pay at all?  sales(id bigint, d1 int, d2 int, amount int) of
# STAR_ROWS rows, d1 and d2 each one of 1..100000 drawn by a hash of i
# (hashint8extended, with seeds 1 and 2: the same rows in every run, in
# no order); dim1 and dim2 (id int primary key, attr int) of 100,000
# rows, attr = id % 100.  The query SELECT count(*) || ':' ||
# sum(s.amount) AS v FROM sales s JOIN dim1 a ON a.id = s.d1 JOIN dim2 b
# ON b.id = s.d2 WHERE a.attr = 7 AND b.attr = 7 keeps 1% of each
# dimension and about 0.01% of the fact rows (its count must be that of
# d1 % 100 = 7 AND d2 % 100 = 7, counted without the dimensions), timed
# with 2 workers a Gather (the default) and serially (none):
#   off        bloomfilter.join_filter = off
#   hand       off, with both pre-checks written by hand:
#              AND s.d1 <~ (SELECT bloom_agg(id, 10) FROM dim1 WHERE attr = 7)
#              AND s.d2 <~ (SELECT bloom_agg(id, 10) FROM dim2 WHERE attr = 7)
#   hand1      off, with the first of them only
#   on         bloomfilter.join_filter = on (2 workers), whose plan must
#              have no filter: it should equal off
# and the ratios off / hand, off / hand1 and on / off, and for the serial
# runs the backend's CPU time too, which the other programs of a busy
# machine lengthen less than the time; its plans with 2 workers must have
# a Gather, the serial ones none, and the report ends with EXPLAIN
# ANALYZE of off and hand, serial, with and without TIMING.  JIT stays
# off.
#
# Each time is the second run of the query in a session of its own
# (bench_time in bench/lib/common.sh), every variant in the same rounds,
# whose order rotates; the tables give medians.  The checks, never of
# times (every variant's answer equals off's, every run the same answer,
# the counts the data was made with, the plans), are counted in the last
# line: "join-filter-bench: N passed, N failed".

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'ROWS=10000000 VIP=10000 REPS=3 BITS=10 USERS=100000 ORDERS=1000000 SMALL=1000 SMALL_RUNS=20 STAR= STAR_ROWS=10000000 DIM=100000' \
	'--rows:ROWS:100 --vip:VIP --rounds:REPS --star:STAR=1 --star-rows:STAR_ROWS:10000' \
	'ROWS=1000000 REPS=1 USERS=10000 ORDERS=100000 STAR_ROWS=1000000' "$@"
LOCAL_ROWS=$((ROWS / 10))
# the star join's tables in shared buffers: about 60 bytes a fact row
STAR_MB=0
if [ -n "$STAR" ]; then
	STAR_MB=$((STAR_ROWS * 60 / 1048576 + 16))
fi

# ---- the clusters and the data --------------------------------------------------

bench_cluster
bench_serial_settings "$(bench_shared_buffers_mb $((LOCAL_ROWS * 100 / 1048576 + 256 + STAR_MB)) 512)"
bench_report_start "run:         --rows $ROWS --vip $VIP --rounds $REPS; users $USERS, orders $ORDERS, small_events $SMALL, local_events $LOCAL_ROWS, bits_per_key $BITS${STAR:+; --star-rows $STAR_ROWS, dimensions of $DIM}"
if [ "$(psql_c "SELECT count(*) FROM pg_available_extensions WHERE name = 'postgres_fdw'")" != 1 ]; then
	bf_err "postgres_fdw is not available in $BINDIR's PostgreSQL (contrib)"
	exit 1
fi
bench_remote_cluster "$(bench_shared_buffers_mb $(((ROWS + ORDERS) * 100 / 1048576 + 256)) 512)"

# events_sql TABLE N: N rows of (id, user_id, payload), each hundredth by
# one of vip's users (bench_events_select)
events_sql() {
	echo "CREATE TABLE $1 AS $(bench_events_select "$2" "$VIP");"
}
bf_log "remote: events of $ROWS rows, orders of $ORDERS, small_events of $SMALL"
{
	echo "SET client_min_messages = warning;"
	echo "CREATE EXTENSION bloomfilter;"
	echo "CREATE EXTENSION pg_prewarm;"
	events_sql events "$ROWS"
	echo "CREATE TABLE orders AS SELECT i AS id, (1 + i % $USERS)::bigint AS user_id, (i % 1000)::int AS amount
		FROM generate_series(1, $ORDERS) i;"
	events_sql small_events "$SMALL"
	echo "VACUUM (ANALYZE) events, orders, small_events;"
	echo "CHECKPOINT;"
	echo "SELECT pg_prewarm(t) FROM unnest(ARRAY['events', 'orders', 'small_events']::regclass[]) t;"
} | rq >/dev/null
bf_log "local: vip of $VIP keys, users of $USERS, local_events of $LOCAL_ROWS${STAR:+, sales of $STAR_ROWS, dim1 and dim2 of $DIM}; the foreign tables analyzed"
{
	bench_fdw_server_sql remote
	echo "CREATE FOREIGN TABLE events (id int, user_id bigint, payload text) SERVER remote OPTIONS (table_name 'events');"
	echo "CREATE FOREIGN TABLE orders (id int, user_id bigint, amount int) SERVER remote OPTIONS (table_name 'orders');"
	echo "CREATE FOREIGN TABLE small_events (id int, user_id bigint, payload text) SERVER remote OPTIONS (table_name 'small_events');"
	echo "CREATE TABLE vip AS SELECT i::bigint AS user_id, 'vip ' || i AS name FROM generate_series(1, $VIP) i;"
	echo "ALTER TABLE vip ADD PRIMARY KEY (user_id);"
	echo "CREATE TABLE users AS SELECT i::bigint AS user_id, 'user ' || i AS name FROM generate_series(1, $USERS) i;"
	echo "ALTER TABLE users ADD PRIMARY KEY (user_id);"
	events_sql local_events "$LOCAL_ROWS"
	if [ -n "$STAR" ]; then
		echo "CREATE TABLE sales AS SELECT i::bigint AS id, (1 + abs(hashint8extended(i, 1) % $DIM))::int AS d1,
			(1 + abs(hashint8extended(i, 2) % $DIM))::int AS d2, (i % 1000)::int AS amount FROM generate_series(1, $STAR_ROWS) i;"
		bench_cpu_fn_sql
		for d in dim1 dim2; do
			echo "CREATE TABLE $d AS SELECT i AS id, i % 100 AS attr FROM generate_series(1, $DIM) i;"
			echo "ALTER TABLE $d ADD PRIMARY KEY (id);"
		done
	fi
	echo "ANALYZE events, orders, small_events;"
} | bench_tables "vip users local_events${STAR:+ sales dim1 dim2}" postgres_fdw

# ---- the queries -------------------------------------------------------------------

SELECT_E="SELECT count(*) || ':' || sum(length(e.payload)) AS v"
PRECHECK="e.user_id <~ (SELECT bloom_agg(user_id, $BITS) FROM vip)"
FORMS=(join in exists)
declare -A FORM_SQL=(
	[join]="$SELECT_E FROM events e JOIN vip v ON v.user_id = e.user_id"
	[in]="$SELECT_E FROM events e WHERE e.user_id IN (SELECT user_id FROM vip)"
	[exists]="$SELECT_E FROM events e WHERE EXISTS (SELECT 1 FROM vip v WHERE v.user_id = e.user_id)"
)
declare -A FORM_LABEL=([join]='JOIN ... ON' [in]='IN (SELECT ...)' [exists]='EXISTS (...)')
NEGATIVES=(fk small local)
declare -A NEG_SQL=(
	[fk]="SELECT count(*) || ':' || sum(o.amount) AS v FROM orders o JOIN users u ON u.user_id = o.user_id"
	[small]="$SELECT_E FROM small_events e JOIN vip v ON v.user_id = e.user_id"
	[local]="$SELECT_E FROM local_events e JOIN vip v ON v.user_id = e.user_id"
)
declare -A NEG_LABEL=(
	[fk]="foreign key: remote orders ($ORDERS) JOIN users ($USERS), every row matches"
	[small]="small remote side: small_events ($SMALL) JOIN vip, $SMALL_RUNS runs"
	[local]="local join: local_events ($LOCAL_ROWS) JOIN vip"
)
# the count of each, as the data was made
declare -A WANT_COUNT=([join]=$((ROWS / 100)) [in]=$((ROWS / 100)) [exists]=$((ROWS / 100))
	[fk]=$ORDERS [small]=$((SMALL / 100)) [local]=$((LOCAL_ROWS / 100)))
# The star join, with 2 workers a Gather (star) and serial (star0): the
# fact rows of both kept dimensions (attr = 7: d1 and d2 are 7 modulo 100),
# counted without joining them.
STARS=()
if [ -n "$STAR" ]; then
	STARS=(star star0)
	declare -A STAR_WORKERS=([star]=2 [star0]=0)
	STAR_SQL="SELECT count(*) || ':' || sum(s.amount) AS v FROM sales s JOIN dim1 a ON a.id = s.d1 JOIN dim2 b ON b.id = s.d2 WHERE a.attr = 7 AND b.attr = 7"
	STAR_F1="s.d1 <~ (SELECT bloom_agg(id, $BITS) FROM dim1 WHERE attr = 7)"
	STAR_F2="s.d2 <~ (SELECT bloom_agg(id, $BITS) FROM dim2 WHERE attr = 7)"
	WANT_COUNT[star]=$(psql_c "SELECT count(*) FROM sales WHERE d1 % 100 = 7 AND d2 % 100 = 7")
	WANT_COUNT[star0]=${WANT_COUNT[star]}
fi

# The setting exists once the library is loaded, in a build that has it;
# a build without it plans "on" as "off", and the plan checks say so.
JOIN_FILTER_GUC=$("${PSQL[@]}" -c "LOAD 'bloomfilter'" \
	-c "SELECT count(*) FROM pg_settings WHERE name = 'bloomfilter.join_filter'")
setup() {
	echo "LOAD 'bloomfilter';"
	if [ "$JOIN_FILTER_GUC" = 1 ]; then
		echo "SET bloomfilter.join_filter = $1;"
	fi
}
if [ "$JOIN_FILTER_GUC" != 1 ]; then
	bf_warn "this build has no setting bloomfilter.join_filter: 'on' runs as 'off'"
fi

bench_queries < <(
	for f in "${FORMS[@]}"; do
		echo "${f}_off|${FORM_LABEL[$f]}, off|${FORM_SQL[$f]}"
		echo "${f}_on|${FORM_LABEL[$f]}, on|${FORM_SQL[$f]}"
		if [ "$f" = join ]; then
			echo "${f}_hand|${FORM_LABEL[$f]}, off, pre-check by hand|${FORM_SQL[$f]} WHERE $PRECHECK"
		else
			echo "${f}_hand|${FORM_LABEL[$f]}, off, pre-check by hand|${FORM_SQL[$f]} AND $PRECHECK"
		fi
	done
	for c in "${NEGATIVES[@]}"; do
		echo "${c}_off|${NEG_LABEL[$c]}, off|${NEG_SQL[$c]}"
		echo "${c}_on|${NEG_LABEL[$c]}, on|${NEG_SQL[$c]}"
	done
	for s in "${STARS[@]}"; do
		w="star join, $([ "${STAR_WORKERS[$s]}" = 0 ] && echo serial || echo "${STAR_WORKERS[$s]} workers")"
		echo "${s}_off|$w, off|$STAR_SQL"
		echo "${s}_hand|$w, off, both pre-checks by hand|$STAR_SQL AND $STAR_F1 AND $STAR_F2"
		echo "${s}_hand1|$w, off, dim1's pre-check by hand|$STAR_SQL AND $STAR_F1"
		[ "${STAR_WORKERS[$s]}" = 0 ] || echo "${s}_on|$w, on|$STAR_SQL"
	done
)
for q in "${QUERIES[@]}"; do
	Q_SETUP[$q]=$(setup "$([[ $q == *_on ]] && echo on || echo off)")
	if [[ $q == star* ]]; then
		Q_SETUP[$q]+=$'\n'"SET max_parallel_workers_per_gather = ${STAR_WORKERS[${q%_*}]};"
	fi
	# a serial query's CPU time is all its backend's
	if [[ $q == star0_* ]]; then
		Q_CPU[$q]=1
	fi
done
# the statement EXPLAIN shows; the small case's timed transaction runs it
# SMALL_RUNS times (the last one's answer kept: \gset ends it)
declare -A ONE_SQL=()
for q in "${QUERIES[@]}"; do
	ONE_SQL[$q]=${Q_SQL[$q]}
done
for q in small_off small_on; do
	Q_SQL[$q]=$(for ((i = 1; i < SMALL_RUNS; i++)); do echo "${ONE_SQL[$q]};"; done)$'\n'${ONE_SQL[$q]}
done

# ---- the plans ---------------------------------------------------------------------

# explain QUERY [OPTIONS]: EXPLAIN (OPTIONS, default VERBOSE, COSTS OFF)
# of QUERY in a session set up as its timed ones are
explain() {
	local args=() line
	while read -r line; do
		args+=(-c "$line")
	done <<<"${Q_SETUP[$1]}"
	"${PSQL[@]}" "${args[@]}" -c "EXPLAIN (${2:-VERBOSE, COSTS OFF}) ${ONE_SQL[$1]}"
}
PLANS=$WORK/plans.txt
: >"$PLANS"
declare -A FILTERED=() REMOTE_SQL=()
for q in "${QUERIES[@]}"; do
	plan=$(explain "$q")
	printf '== %s (%s)\n%s\n\n' "$q" "${Q_NAME[$q]}" "$plan" >>"$PLANS"
	FILTERED[$q]=no
	if grep -q 'bloom_agg' <<<"$plan"; then
		FILTERED[$q]=yes
	fi
	REMOTE_SQL[$q]=$(sed -n 's/^ *Remote SQL: //p' <<<"$plan" | paste -sd ' ')
done
plan_of() { sed -n "/^== $1 /,/^\$/p" "$PLANS"; }
remote_probes() { grep -q '<~' <<<"${REMOTE_SQL[$1]}"; }
for f in "${FORMS[@]}"; do
	bench_check "${FORM_LABEL[$f]}, on: a filter added (bloom_agg in the plan)" [ "${FILTERED[${f}_on]}" = yes ]
	bench_check "${FORM_LABEL[$f]}, on: the probe sent to the remote server (Remote SQL: ${REMOTE_SQL[${f}_on]})" remote_probes "${f}_on"
	bench_check "${FORM_LABEL[$f]}, by hand: the probe sent to the remote server (Remote SQL: ${REMOTE_SQL[${f}_hand]})" remote_probes "${f}_hand"
	bench_check "${FORM_LABEL[$f]}, off: no filter" [ "${FILTERED[${f}_off]}" = no ]
done
for c in "${NEGATIVES[@]}"; do
	bench_check "${NEG_LABEL[$c]}, on: no filter added" [ "${FILTERED[${c}_on]}" = no ]
done
# plan_has QUERY N PATTERN: N lines of QUERY's plan match PATTERN
plan_has() { [ "$(plan_of "$1" | grep -c -- "$3")" = "$2" ]; }
for s in "${STARS[@]}"; do
	w=${STAR_WORKERS[$s]}
	gathers=$((w > 0 ? 1 : 0))
	bench_check "star join, $w workers, off: $gathers Gather in the plan" plan_has "${s}_off" "$gathers" '->  Gather'
	bench_check "star join, $w workers, by hand: two filters in the plan" plan_has "${s}_hand" 2 'InitPlan'
	bench_check "star join, $w workers, dim1's by hand: one filter in the plan" plan_has "${s}_hand1" 1 'InitPlan'
done
if [ -n "$STAR" ]; then
	bench_check "star join, on: no filter added (the setting filters foreign tables only)" [ "${FILTERED[star_on]}" = no ]
fi
for q in "${QUERIES[@]}"; do
	case $q in
	*_on) want=$([[ " ${FORMS[*]} " == *" ${q%_on} "* ]] && echo yes || echo no) ;;
	*) continue ;;
	esac
	if [ "${FILTERED[$q]}" != "$want" ]; then
		bf_warn "the plan of $q, not the one wanted (a filter wanted: $want):"
		plan_of "$q" >&2
	fi
done

# ---- the rounds --------------------------------------------------------------------

bench_rounds_against_off "${QUERIES[@]}"
for base in "${FORMS[@]}" "${NEGATIVES[@]}" "${STARS[@]}"; do
	bench_check "$base, off: the count the data was made with (${WANT_COUNT[$base]}: $(bench_answer "${base}_off"))" \
		[ "$(bench_answer "${base}_off" | cut -d: -f1)" = "${WANT_COUNT[$base]}" ]
done

# ---- the tables --------------------------------------------------------------------

# star_row LABEL S [SUFFIX]: the star join's row of S (star or star0):
# the medians of its queries' keys with SUFFIX (_cpu: the backend's CPU
# time), the ratios, and which of its plans have a Gather
star_row() {
	local s=$2 x=${3-} on_ms='—' r3='—' gathers='' q
	if [ -n "${MED[${s}_on$x]:-}" ]; then
		on_ms=$(bench_ms "${s}_on$x")
		r3=$(bench_med_ratio "${s}_on$x" "${s}_off$x")
		r3="$r3 ($(bench_verdict "$r3" '<=' 1.05))"
	fi
	for q in "${s}_off" "${s}_hand" "${s}_hand1"; do
		gathers+="${gathers:+, }$(plan_has "$q" 0 '->  Gather' && echo no || echo yes)"
	done
	echo "| $1 | $(bench_ms "${s}_off$x") | $(bench_ms "${s}_hand$x") | $(bench_ms "${s}_hand1$x") | $on_ms" \
		"| $(bench_med_ratio "${s}_off$x" "${s}_hand$x") | $(bench_med_ratio "${s}_off$x" "${s}_hand1$x") | $r3 | $gathers |"
}

# star_table: the star join's table, a row a worker count
star_table() {
	cat <<EOF
### A local star join: sales ($STAR_ROWS) JOIN dim1 JOIN dim2 ($DIM each), each dimension filtered to 1%

| max_parallel_workers_per_gather | off ms | hand ms | hand1 ms | on ms | off / hand | off / hand1 | on / off (want ≤ 1.05) | a Gather in the plan (off, hand, hand1) |
|---|---:|---:|---:|---:|---:|---:|---:|---|
$(star_row 2 star)
$(star_row 0 star0)
$(star_row '0, CPU ms of the backend' star0 _cpu)

hand: \`AND $STAR_F1 AND $STAR_F2\`; hand1: the first only; on: bloomfilter.join_filter = on, which adds no filter to a local table. JIT off.

EOF
}

bench_read_stats <(cat "$WORK/times" && bench_cpu_times)
{
	bench_tables_title "Remote events of $ROWS rows, 1% of them by one of the local vip's $VIP users;" \
		"medians of $REPS round(s), each the second run of its query in a session; ms."
	echo "### A foreign table joined with a local one: 1% of the remote rows match"
	echo
	echo "| form | off ms | on ms | by hand ms | off / on (want ≥ 5) | on / by hand (want ≤ 1.2) | on adds a filter (wanted) |"
	echo "|---|---:|---:|---:|---:|---:|---|"
	for f in "${FORMS[@]}"; do
		r1=$(bench_med_ratio "${f}_off" "${f}_on")
		r2=$(bench_med_ratio "${f}_on" "${f}_hand")
		echo "| ${FORM_LABEL[$f]} | $(bench_ms "${f}_off") | $(bench_ms "${f}_on") | $(bench_ms "${f}_hand")" \
			"| $r1 ($(bench_verdict "$r1" '>=' 5)) | $r2 ($(bench_verdict "$r2" '<=' 1.2)) | ${FILTERED[${f}_on]} |"
	done
	echo
	echo "### Where a filter cannot help"
	echo
	echo "| case | off ms | on ms | on / off (want ≤ 1.05) | on adds a filter (wanted: no) |"
	echo "|---|---:|---:|---:|---|"
	for c in "${NEGATIVES[@]}"; do
		r1=$(bench_med_ratio "${c}_on" "${c}_off")
		echo "| ${NEG_LABEL[$c]} | $(bench_ms "${c}_off") | $(bench_ms "${c}_on") | $r1 ($(bench_verdict "$r1" '<=' 1.05)) | ${FILTERED[${c}_on]} |"
	done
	echo
	if [ -n "$STAR" ]; then
		star_table
	fi
	line=''
	for f in "${FORMS[@]}"; do
		line+="${line:+; }${FORM_LABEL[$f]}: \`${REMOTE_SQL[${f}_on]}\`"
	done
	echo "Remote SQL with on: $line."
	echo
	echo "$SHARE"
	echo
} >"$WORK/tables.md"

{
	echo
	bench_every_query 12 "${QUERIES[@]}"
	for q in "${QUERIES[@]}"; do
		if [ -n "${Q_CPU[$q]:-}" ]; then
			printf '%-12s %10.1f %10.1f %10.1f  (CPU ms of the backend)\n' "$q" "${MED[${q}_cpu]}" "${MIN[${q}_cpu]}" "${MAX[${q}_cpu]}"
		fi
	done
	echo
	echo "== Plans (EXPLAIN VERBOSE, COSTS OFF)"
	echo
	cat "$PLANS"
	# with the time of each node, whose clock readings lengthen most the
	# nodes that pass the most rows, then without it
	for opts in 'ANALYZE, COSTS OFF' 'ANALYZE, TIMING OFF, COSTS OFF'; do
		for q in ${STAR:+star0_off star0_hand}; do
			printf '== %s (%s): EXPLAIN (%s)\n%s\n\n' "$q" "${Q_NAME[$q]}" "$opts" "$(explain "$q" "$opts")"
		done
	done
} | tee -a "$REPORT"

bench_finish join_filter_bench join-filter-bench
