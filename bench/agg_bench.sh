#!/usr/bin/env bash
#
# bench/agg_bench.sh -- how fast bloom_agg is, serially and with two parallel
# workers, compared with count(k) over the same rows, and how much memory it
# takes.  One command from a clone:
#
#     bench/agg_bench.sh             # 10,000,000 keys, 5 repetitions
#     bench/agg_bench.sh --quick     # 100,000 keys, 1 repetition (smoke test)
#
# It checks the Debian packages (installing them as root), builds and installs
# the extension, starts a throw-away PostgreSQL 15 cluster, measures, prints a
# report ending in Markdown tables, and stops the cluster.  Every figure it
# prints is measured in this run; nothing is hard-coded.  The final tables are
# also saved under bench/out/.
#
# Options:
#   --keys N      rows in the timed table (default 10000000)
#   --reps R      timed repetitions of each query (default 5; one more
#                 unmeasured warm-up round always runs first)
#   --groups G    groups of 3 keys for the GROUP BY memory check
#                 (default 1000000, i.e. 3,000,000 rows)
#   --hash-budget S  seconds the hashed GROUP BY bloom_agg runs may take in
#                 all (default 90); they start at 1/64 of the groups and
#                 double while the next run is predicted to fit
#   --quick       --keys 100000 --reps 1 --groups 30000 (explicit options win)
#   --no-build    use the extension already installed; skip make/make install
#   -h, --help    this text
#
# What is measured:
#   time    pgbench's latency of each query (bench_time in
#           bench/lib/common.sh: a session of its own, in which the query
#           first runs once untimed), whose result is one boolean or count:
#           the aggregate, its final function included, runs to completion,
#           and no filter is sent to the client.  Queries run in rounds
#           (count(k), bloom_agg without its final function, bloom_agg;
#           serial, 2 workers + leader, 2 workers with the leader not
#           scanning), after a warm-up round run under EXPLAIN ANALYZE that
#           records the plans and the workers launched.  The backend's CPU
#           time is read too, to tell when other work on the machine slowed
#           a run down.
#   memory  the backend's peak RSS (VmHWM in /proc/PID/status) during one
#           query, minus its RSS just before the query, in a fresh backend
#           that has already read the same shared-buffer pages once, so that
#           what grows is the backend's private memory.  The peak is reset
#           first by writing 5 to /proc/PID/clear_refs (root or the postgres
#           user; otherwise the peak since the backend started is used, which
#           in a fresh backend is nearly the same).
#
# Needs: Linux (/proc), the packages scripts/lib.sh installs, and the
# pg_prewarm contrib module (part of Debian's postgresql-15).

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'KEYS=10000000 REPS=5 NGROUPS=1000000 HASH_BUDGET=90 BITS=10' \
	'--keys:KEYS --reps:REPS --groups:NGROUPS --hash-budget:HASH_BUDGET' 'KEYS=100000 REPS=1 NGROUPS=30000' "$@"
GROUP_ROWS=$((NGROUPS * 3))
PROCMEM=$REPO/bench/lib/procmem.sh

if [ ! -r /proc/self/status ]; then
	bf_err "this benchmark reads /proc/PID/status: Linux only"
	exit 1
fi

# ---- build, install, cluster ----------------------------------------------

bench_cluster
# Let the postgres user (the server, and psql's \! helpers) read our files.
chmod 755 "$WORK"

# Shared buffers big enough to hold both tables and the index (about 70 bytes
# a row; room to spare), at least 1 GB.
SB_MB=$(bench_shared_buffers_mb $(((KEYS + GROUP_ROWS) * 100 / 1048576 + 256)) 1024)

bf_log "configuring the cluster: shared_buffers = ${SB_MB}MB, jit off, no huge pages, restart"
# Huge pages would hide shared memory from VmRSS in some kernels and not in
# others: off, for RSS figures that mean the same everywhere.  JIT compiles
# the expressions of queries above jit_above_cost; its compile time (tens
# of ms, varying) would blur the comparison of the aggregates.  No WAL for
# CREATE TABLE AS, and no checkpoint during the measurements.
bench_configure "shared_buffers = '${SB_MB}MB'" "huge_pages = off" "max_worker_processes = 8" \
	"max_parallel_workers = 8" "work_mem = '64MB'" "jit = off" "autovacuum = off" \
	"wal_level = minimal" "max_wal_senders = 0" "max_wal_size = '8GB'" "checkpoint_timeout = '1h'"

# ---- machine ----------------------------------------------------------------

bench_run_info
bench_machine_report \
	"$(bench_settings_line shared_buffers work_mem jit huge_pages max_worker_processes max_parallel_workers)" \
	"run:         --keys $KEYS --reps $REPS --groups $NGROUPS --hash-budget $HASH_BUDGET, bits_per_key $BITS"
echo

# ---- data -------------------------------------------------------------------

bf_log "creating bench_keys ($KEYS rows of md5(i::text)) and bench_groups ($GROUP_ROWS rows, $NGROUPS groups of 3)"
cat >"$WORK/setup.sql" <<EOF
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
CREATE EXTENSION pg_buffercache;
CREATE TABLE bench_keys AS
  SELECT i, md5(i::text) AS k FROM generate_series(1, $KEYS) i;
CREATE TABLE bench_groups AS
  SELECT i, md5(i::text) AS k FROM generate_series(0, $GROUP_ROWS - 1) i;
-- sorted grouping reads this index, so it needs no Sort (whose memory
-- would swamp the aggregate's)
CREATE INDEX bench_groups_g ON bench_groups ((i / 3));
VACUUM (ANALYZE) bench_keys, bench_groups;
CHECKPOINT;

-- EXPLAIN ANALYZE one query, return its execution time and plan summary.
CREATE FUNCTION bench_explain(q text,
    OUT ms float8, OUT workers_planned int, OUT workers_launched int,
    OUT hash_batches int, OUT hash_peak_kb bigint, OUT hash_disk_kb bigint,
    OUT plan text)
LANGUAGE plpgsql AS \$f\$
DECLARE
  j jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF, FORMAT JSON) ' || q INTO j;
  ms := (j -> 0 ->> 'Execution Time')::float8;
  SELECT sum(v::int) INTO workers_planned FROM jsonb_path_query(j, 'strict \$.**."Workers Planned"') v;
  SELECT sum(v::int) INTO workers_launched FROM jsonb_path_query(j, 'strict \$.**."Workers Launched"') v;
  hash_batches := jsonb_path_query_first(j, 'strict \$.**."HashAgg Batches"')::int;
  hash_peak_kb := jsonb_path_query_first(j, 'strict \$.**."Peak Memory Usage"')::bigint;
  hash_disk_kb := jsonb_path_query_first(j, 'strict \$.**."Disk Usage"')::bigint;
  WITH RECURSIVE n(node, path) AS (
      SELECT j -> 0 -> 'Plan', ARRAY[1::bigint]
    UNION ALL
      SELECT c.value, n.path || c.ord
        FROM n, jsonb_array_elements(n.node -> 'Plans') WITH ORDINALITY c(value, ord)
  )
  SELECT string_agg(
           CASE WHEN node ->> 'Partial Mode' IN ('Partial', 'Finalize')
                THEN (node ->> 'Partial Mode') || ' ' ELSE '' END
           || CASE WHEN node ->> 'Node Type' = 'Aggregate'
                   THEN CASE node ->> 'Strategy' WHEN 'Hashed' THEN 'HashAggregate'
                                                 WHEN 'Sorted' THEN 'GroupAggregate'
                                                 WHEN 'Mixed' THEN 'MixedAggregate'
                                                 ELSE 'Aggregate' END
                   ELSE node ->> 'Node Type' END,
           ' > ' ORDER BY path)
    INTO plan FROM n;
END
\$f\$;
$(bench_cpu_fn_sql)
EOF
t0=$(date +%s)
psql_file "$WORK/setup.sql" >/dev/null
bf_log "data ready in $(($(date +%s) - t0)) s; loading it into shared buffers"

cat >"$WORK/prewarm.sql" <<'EOF'
SELECT 'R', c.relname, pg_relation_size(c.oid), pg_relation_size(c.oid) / current_setting('block_size')::int,
       pg_prewarm(c.oid::regclass)
  FROM pg_class c WHERE c.relname IN ('bench_keys', 'bench_groups', 'bench_groups_g') ORDER BY c.relname DESC;
-- pg_prewarm reads every block into shared buffers; count what stayed
SELECT 'C', c.relname, count(b.bufferid)
  FROM pg_class c LEFT JOIN pg_buffercache b
    ON b.relfilenode = pg_relation_filenode(c.oid) AND b.relforknumber = 0
       AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
 WHERE c.relname IN ('bench_keys', 'bench_groups', 'bench_groups_g')
 GROUP BY c.relname ORDER BY c.relname DESC;
-- a warm-up scan
SELECT 'W', count(*) FROM bench_keys;
SELECT 'W', count(*) FROM bench_groups;
EOF
psql_file "$WORK/prewarm.sql" >"$WORK/prewarm.out"
echo "== Data (all in shared buffers?)"
awk -F'|' '
	$1 == "R" { size[$2] = $3; pages[$2] = $4 }
	$1 == "C" { cached[$2] = $3 }
	END {
		n = split("bench_keys bench_groups bench_groups_g", r, " ")
		for (i = 1; i <= n; i++)
			printf "%-15s %8.1f MB  %8d pages  %8d in shared buffers (%.1f%%)\n",
				r[i], size[r[i]] / 1048576, pages[r[i]], cached[r[i]],
				pages[r[i]] ? 100 * cached[r[i]] / pages[r[i]] : 0
	}' "$WORK/prewarm.out"
if awk -F'|' '$1 == "R" {p[$2] = $4} $1 == "C" {c[$2] = $3} END {for (r in p) if (c[r] < p[r]) exit 0; exit 1}' "$WORK/prewarm.out"; then
	bf_warn "not every page is in shared buffers: the timings include reads from the OS cache"
fi
echo

# ---- timing -----------------------------------------------------------------

# bench_bloom_state: bloom_agg without its final function (doc/reference.md
# documents the support functions as usable on their own), so that
# bloom_agg - bench_bloom_state is the time the final function takes.
psql_c "CREATE AGGREGATE bench_bloom_state(text, integer) (SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state, COMBINEFUNC = bloom_agg_combinefn, PARALLEL = SAFE)" >/dev/null

Q_count="SELECT count(k) FROM bench_keys"
Q_state="SELECT bench_bloom_state(k, $BITS) IS NOT NULL FROM bench_keys"
Q_bloom="SELECT bloom_agg(k, $BITS) IS NOT NULL FROM bench_keys"
# the reserved aggregate, sized for exactly the table's keys: the same bytes
Q_reserved="SELECT bloom_agg(k, $BITS, $KEYS) IS NOT NULL FROM bench_keys"
SET_serial="SET max_parallel_workers_per_gather = 0;"
SET_par="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
SET_par2="$SET_par SET parallel_leader_participation = on;"
SET_par2nl="$SET_par SET parallel_leader_participation = off;"
CONFIGS=(serial par2 par2nl)
declare -A CFG_SET=([serial]=$SET_serial [par2]=$SET_par2 [par2nl]=$SET_par2nl)
declare -A CFG_NAME=([serial]="serial" [par2]="2 workers + leader" [par2nl]="2 workers, leader not scanning")
QUERIES=(count state bloom reserved)
declare -A Q_SQL=([count]=$Q_count [state]=$Q_state [bloom]=$Q_bloom [reserved]=$Q_reserved)
declare -A Q_NAME=([count]="count(k)" [state]="bloom_agg without final" [bloom]="bloom_agg(k, $BITS)" [reserved]="bloom_agg(k, $BITS, $KEYS)")

# Round 0 is the warm-up, run in one psql session under EXPLAIN ANALYZE to
# record the plan and the workers launched.  In rounds 1..REPS, bench_time
# runs each query in a session of its own: untimed, the plan's settings, the
# query (which warms the session up) and the backend's own CPU time (utime
# + stime from /proc/self/stat); then the query, timed by pgbench (a
# one-row result: server time plus a round trip); then the CPU time again.
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)
CPU_MIN_MS=$((20000 / CLK_TCK))	# 20 ticks
for cfg in "${CONFIGS[@]}"; do
	printf '%s\n' "${CFG_SET[$cfg]}"
	for q in "${QUERIES[@]}"; do
		printf "SELECT 'E', '%s', '%s', * FROM bench_explain(\$q\$%s\$q\$);\n" "$cfg" "$q" "${Q_SQL[$q]}"
	done
done >"$WORK/warmup.sql"

bf_log "timing: $REPS rounds (+1 warm-up) of ${#QUERIES[@]} queries x ${#CONFIGS[@]} plans, interleaved"
stat0=$(head -n 1 /proc/stat)
t0=$(date +%s)
psql_file "$WORK/warmup.sql" >"$WORK/warmup.out"
: >"$WORK/times"
: >"$WORK/runs"
for ((rep = 1; rep <= REPS; rep++)); do
	for cfg in "${CONFIGS[@]}"; do
		for q in "${QUERIES[@]}"; do
			bench_time "$cfg.$q" "${Q_SQL[$q]};" \
				"${CFG_SET[$cfg]}"$'\n'"${Q_SQL[$q]};"$'\n''SELECT bench_cpu_ms() AS c0 \gset' \
				'SELECT bench_cpu_ms() AS c1 \gset'$'\n'"\\shell echo $cfg $q $rep :c0 :c1 >> $WORK/runs"
		done
	done
done
bf_log "timing done in $(($(date +%s) - t0)) s"
stat1=$(head -n 1 /proc/stat)

# -> R|cfg|q|rep|wall ms|cpu ms, a line a timed run, in the order run
paste -d' ' "$WORK/runs" <(cut -d'|' -f2 "$WORK/times") |
	awk '{ printf "R|%s|%s|%s|%s|%.1f\n", $1, $2, $3, $6, $5 - $4 }' >"$WORK/timing.runs"
if [ "$(wc -l <"$WORK/timing.runs")" -ne $((REPS * ${#CONFIGS[@]} * ${#QUERIES[@]})) ]; then
	bf_err "could not read every timing from $WORK/times and $WORK/runs"
	exit 1
fi

# per cfg.q: MED, MIN, MAX of the wall times, CPUR the median of cpu/wall
bench_read_stats "$WORK/times"
declare -A CPUR LAUNCHED PLAN
while IFS='|' read -r k cr _; do
	CPUR[$k]=$cr
done < <(awk -F'|' '{ print $2 "." $3 "|" ($5 > 0 ? $6 / $5 : 0) }' "$WORK/timing.runs" | bench_stats)
# E|cfg|q|ms|planned|launched|batches|peak|disk|plan
while IFS='|' read -r _ cfg q _ _ launched _ _ _ plan; do
	LAUNCHED[$cfg.$q]=${launched:-0} PLAN[$cfg.$q]=$plan
done < <(grep '^E|' "$WORK/warmup.out")

plans_ok=1
echo "== Plans (EXPLAIN ANALYZE of the warm-up round)"
for cfg in "${CONFIGS[@]}"; do
	for q in "${QUERIES[@]}"; do
		printf '%-32s %-24s %s; workers launched %s\n' "${CFG_NAME[$cfg]}" "${Q_NAME[$q]}" \
			"${PLAN[$cfg.$q]}" "${LAUNCHED[$cfg.$q]}"
		if [ "$cfg" != serial ]; then
			case ${PLAN[$cfg.$q]} in
			*"Finalize Aggregate > Gather > Partial Aggregate"*) ;;
			*)
				plans_ok=''
				bf_warn "${CFG_NAME[$cfg]} ${Q_NAME[$q]}: the plan is not Finalize Aggregate > Gather > Partial Aggregate"
				;;
			esac
			if [ "${LAUNCHED[$cfg.$q]}" -lt 2 ]; then
				plans_ok=''
				bf_warn "${CFG_NAME[$cfg]} ${Q_NAME[$q]}: only ${LAUNCHED[$cfg.$q]} of 2 workers launched"
			fi
		fi
	done
done
echo

# CPU time the whole machine spent elsewhere than idle, and stolen by the
# hypervisor, during the timing phase (all processes, ours included).
read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _ <<<"$stat0"
read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ <<<"$stat1"
tot=$(((u1 + n1 + s1 + i1 + w1 + q1 + sq1 + st1) - (u0 + n0 + s0 + i0 + w0 + q0 + sq0 + st0)))
steal_pct=$(awk -v s=$((st1 - st0)) -v t="$tot" 'BEGIN {printf "%.1f", t ? 100 * s / t : 0}')

printf '== Times (ms, pgbench, each run after an untimed one in its session; %s rounds after one warm-up)\n' "$REPS"
printf '%-32s %-24s %9s %9s %9s %8s %9s\n' plan query median min max Mkeys/s "cpu/wall"
for cfg in "${CONFIGS[@]}"; do
	for q in "${QUERIES[@]}"; do
		printf '%-32s %-24s %9.1f %9.1f %9.1f %8.2f %9s\n' "${CFG_NAME[$cfg]}" "${Q_NAME[$q]}" \
			"${MED[$cfg.$q]}" "${MIN[$cfg.$q]}" "${MAX[$cfg.$q]}" \
			"$(awk -v n="$KEYS" -v ms="${MED[$cfg.$q]}" 'BEGIN {print n / ms / 1000}')" \
			"$(awk -v r="${CPUR[$cfg.$q]}" -v ms="${MED[$cfg.$q]}" -v t="$CPU_MIN_MS" \
				'BEGIN {if (ms < t) print "n/a"; else printf "%.0f%%", 100 * r}')"
	done
done
cat <<EOF
cpu/wall: the CPU time of the session's backend (the leader, for parallel
plans) over the wall time, median; n/a under ${CPU_MIN_MS} ms (the clock ticks
every $((1000 / CLK_TCK)) ms).  Serially it should be about 100%; less means
the backend waited for a CPU, i.e. other work ran on the machine.
CPU stolen by the hypervisor during the timing phase: ${steal_pct}%.
(every timed run, wall ms / backend CPU ms:
EOF
awk -F'|' '$1 == "E" { printf "  %s %s warm-up under EXPLAIN ANALYZE: %.1f ms\n", $2, $3, $4 }' "$WORK/warmup.out"
sort -t'|' -k4,4n -k2,2 "$WORK/timing.runs" | awk -F'|' '{ printf "  %s %s round %d: %.1f / %.1f\n", $2, $3, $4, $5, $6 }'
echo ")"
# serial runs that got less than 90% of a CPU
starved=$(awk -F'|' -v t="$CPU_MIN_MS" '$2 == "serial" && $5 >= t && $6 < 0.9 * $5 {n++} END {print n + 0}' "$WORK/timing.runs")
if [ "$starved" -gt 0 ]; then
	bf_warn "$starved of $((REPS * ${#QUERIES[@]})) serial runs got less than 90% of a CPU: other work on the machine slowed them down (the best runs are the least affected)"
fi
echo

# ---- parallel result = serial result ---------------------------------------

bf_log "checking that the parallel filter is byte-identical to the serial one"
cat >"$WORK/identity.sql" <<EOF
$SET_serial
SELECT 'S', md5(f::text), (octet_length(f::text) - 2) / 2
  FROM (SELECT bloom_agg(k, $BITS) AS f FROM bench_keys) s;
$SET_par2
SELECT 'P', 'par2', plan, workers_launched FROM bench_explain(\$q\$CREATE TABLE bench_md5_par2 AS SELECT md5(bloom_agg(k, $BITS)::text) AS m FROM bench_keys\$q\$);
SELECT 'M', 'par2', m FROM bench_md5_par2;
$SET_par2nl
SELECT 'P', 'par2nl', plan, workers_launched FROM bench_explain(\$q\$CREATE TABLE bench_md5_par2nl AS SELECT md5(bloom_agg(k, $BITS)::text) AS m FROM bench_keys\$q\$);
SELECT 'M', 'par2nl', m FROM bench_md5_par2nl;
DROP TABLE bench_md5_par2, bench_md5_par2nl;
$SET_par2
SELECT 'R', md5(bloom_agg(k, $BITS, $KEYS)::text) FROM bench_keys;
EOF
psql_file "$WORK/identity.sql" >"$WORK/identity.out"
serial_md5=$(awk -F'|' '$1 == "S" {print $2}' "$WORK/identity.out")
filter_bytes=$(awk -F'|' '$1 == "S" {print $3}' "$WORK/identity.out")
identical=yes
reserved_md5=$(awk -F'|' '$1 == "R" {print $2}' "$WORK/identity.out")
if [ "$reserved_md5" != "$serial_md5" ]; then
	identical=NO
fi
echo "== Parallel result = serial result?"
echo "reserved bloom_agg(k, $BITS, $KEYS), 2 workers + leader: md5 $reserved_md5"
echo "serial:                          md5 of the filter's text form $serial_md5 ($filter_bytes filter bytes)"
for cfg in par2 par2nl; do
	m=$(awk -F'|' -v c="$cfg" '$1 == "M" && $2 == c {print $3}' "$WORK/identity.out")
	p=$(awk -F'|' -v c="$cfg" '$1 == "P" && $2 == c {print $3}' "$WORK/identity.out")
	l=$(awk -F'|' -v c="$cfg" '$1 == "P" && $2 == c {print $4}' "$WORK/identity.out")
	verdict=identical
	if [ "$m" != "$serial_md5" ]; then
		verdict=DIFFERENT
		identical=NO
	fi
	case $p in
	*Gather*) ;;
	*)
		verdict="$verdict (NOT a parallel plan)"
		identical="${identical} (not checked in parallel)"
		;;
	esac
	printf '%-32s md5 %s: %s (plan %s; %s workers launched)\n' "${CFG_NAME[$cfg]}:" "$m" "$verdict" "$p" "${l:-0}"
done
echo

# ---- memory -----------------------------------------------------------------

declare -A M_DELTA M_AFTER M_SHM M_MS M_HPEAK M_PLAN
reset_note="peak reset with clear_refs before each query"

# mem_run LABEL SETTINGS PRETOUCH QUERY [TIMEOUT_S]: one fresh backend.
# PRETOUCH (through bench_explain as well, so that PL/pgSQL is loaded) reads
# the pages QUERY will read; then reset the peak, run QUERY once, read the
# peak.  Returns 1 when QUERY hit TIMEOUT_S (0: none).
mem_run() {
	local label=$1 settings=$2 pretouch=$3 query=$4 timeout=${5:-0}
	local rss0 hwm rss1 shm0 shm1 reset ms batches hpeak disk plan
	cat >"$WORK/mem_$label.sql" <<EOF
SELECT pg_backend_pid() AS bpid \gset
\setenv BF_BENCH_PID :bpid
$settings
SELECT 'W', ms FROM bench_explain(\$q\$$pretouch\$q\$);
\! "$PROCMEM" reset "\$BF_BENCH_PID"
SET statement_timeout = '${timeout}s';
SELECT 'Q', * FROM bench_explain(\$q\$$query\$q\$);
RESET statement_timeout;
\! "$PROCMEM" read "\$BF_BENCH_PID"
EOF
	if ! psql_file "$WORK/mem_$label.sql" >"$WORK/mem_$label.out" 2>"$WORK/mem_$label.err"; then
		if grep -q 'statement timeout' "$WORK/mem_$label.err"; then
			return 1
		fi
		cat "$WORK/mem_$label.err" >&2
		bf_err "memory run $label failed"
		exit 1
	fi
	IFS='|' read -r rss0 hwm rss1 shm0 shm1 reset ms batches hpeak disk plan < <(awk -F'|' '
		$1 == "MEM" && $2 == "reset" { rss0 = $5; shm0 = $8; reset = $3 }
		$1 == "MEM" && $2 == "read" { hwm = $4; rss1 = $5; shm1 = $8 }
		$1 == "Q" { ms = $2; batches = $5; hpeak = $6; disk = $7; plan = $8 }
		END { printf "%d|%d|%d|%d|%d|%s|%.1f|%s|%s|%s|%s\n", rss0, hwm, rss1, shm0, shm1, reset, ms, batches, hpeak, disk, plan }
	' "$WORK/mem_$label.out")
	M_DELTA[$label]=$((hwm - rss0))
	M_AFTER[$label]=$((rss1 - rss0))
	M_SHM[$label]=$((shm1 - shm0))
	M_MS[$label]=$ms M_HPEAK[$label]=$hpeak
	M_PLAN[$label]=$plan
	if [ "$reset" != 1 ]; then
		reset_note="could not write /proc/PID/clear_refs (not root?): peak since the backend started"
	fi
	if [ -n "$batches" ] && [ "$batches" != 1 ]; then
		bf_warn "$label: the hash aggregate spilled to disk ($batches batches, ${disk:-?} kB on disk): its peak RSS is not its whole state"
	fi
	return 0
}

# kB -> MB; kB per item -> bytes per item
mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
per() { awk -v k="$1" -v n="$2" 'BEGIN {printf "%.1f", k * 1024 / n}'; }

HASH_SET="$SET_serial SET work_mem = '2GB'; SET enable_sort = off; SET enable_hashagg = on;"
SORT_SET="$SET_serial SET enable_hashagg = off; SET enable_sort = off; SET enable_seqscan = off; SET enable_bitmapscan = off;"
q_groups() { # AGG ROWS
	printf 'SELECT i / 3, %s FROM bench_groups WHERE i < %d GROUP BY 1' "$1" "$2"
}

bf_log "memory: one fresh backend per query"
mem_run serial_count "$SET_serial" "SELECT count(*) FROM bench_keys" "$Q_count"
mem_run serial_bloom "$SET_serial" "SELECT count(*) FROM bench_keys" "$Q_bloom"
# sorted grouping (GroupAggregate over the index on i / 3): the count(k)
# query touches the same heap and index pages and keeps nothing
sort_count_q=$(q_groups "count(k)" "$GROUP_ROWS")
mem_run sort_count "$SORT_SET" "$sort_count_q" "$sort_count_q"
mem_run sort_bloom "$SORT_SET" "$sort_count_q" "$(q_groups "bloom_agg(k, $BITS) IS NOT NULL" "$GROUP_ROWS")"

# Hashed grouping, at 1/64, 1/32, ... of the groups up to all of them, while
# the bloom_agg runs stay within HASH_BUDGET seconds in all: a run is skipped
# when the previous one, times 6, would not fit in what is left.
hash_sizes=()
g=$NGROUPS
while [ "$g" -ge 1000 ] && [ "${#hash_sizes[@]}" -lt 7 ]; do
	hash_sizes=("$g" "${hash_sizes[@]}")
	g=$((g / 2))
done
[ "${#hash_sizes[@]}" -gt 0 ] || hash_sizes=("$NGROUPS")
bf_log "hashed GROUP BY at ${hash_sizes[*]} groups (bloom_agg budget ${HASH_BUDGET} s)"
hash_done=()
hash_stop_note=''
spent_ms=0
last_ms=0
for g in "${hash_sizes[@]}"; do
	budget_ms=$((HASH_BUDGET * 1000))
	last_int=${last_ms%.*}
	if [ "$last_int" -gt 0 ] && [ $((spent_ms + last_int * 6)) -gt "$budget_ms" ]; then
		hash_stop_note="not run at $g groups and more: the run at ${hash_done[-1]} groups took $(awk -v m="$last_ms" 'BEGIN {printf "%.1f", m / 1000}') s, and 6 times that would exceed the ${HASH_BUDGET} s budget (--hash-budget)"
		break
	fi
	mem_run "hash_count_$g" "$HASH_SET" "SELECT count(*) FROM bench_groups" "$(q_groups "count(k)" $((g * 3)))"
	left_s=$(((budget_ms - spent_ms) / 1000 + 1))
	if ! mem_run "hash_bloom_$g" "$HASH_SET" "SELECT count(*) FROM bench_groups" \
		"$(q_groups "bloom_agg(k, $BITS) IS NOT NULL" $((g * 3)))" "$left_s"; then
		hash_stop_note="the run at $g groups was cancelled after ${left_s} s (the rest of the --hash-budget)"
		break
	fi
	hash_done+=("$g")
	last_ms=${M_MS[hash_bloom_$g]}
	spent_ms=$((spent_ms + ${last_ms%.*}))
done
if [ "${#hash_done[@]}" -eq 0 ]; then
	bf_err "no hashed GROUP BY run finished within the budget (--hash-budget $HASH_BUDGET)"
	exit 1
fi
hash_g=${hash_done[-1]}
hash_g0=${hash_done[0]}
if [ "$hash_g" != "$NGROUPS" ] && [ -z "$hash_stop_note" ]; then
	hash_stop_note="not run at $NGROUPS groups"
fi
# mem_run for count(k) at every attempted size, and at all groups
if [ -z "${M_MS[hash_count_$NGROUPS]:-}" ]; then
	mem_run "hash_count_$NGROUPS" "$HASH_SET" "SELECT count(*) FROM bench_groups" "$(q_groups "count(k)" "$GROUP_ROWS")"
fi

# The model of the serial bloom_agg's private memory, from the code's design
# (not measured): the hash array doubles from 128 entries, but only the pages
# written (4 bytes a key) count in RSS; the filter is palloc0'd whole.
cap=128
while [ "$cap" -lt "$KEYS" ]; do cap=$((cap * 2)); done
model_state_kb=$((KEYS * 4 / 1024))
model_filter_kb=$((filter_bytes / 1024))
bloom_own_kb=$((M_DELTA[serial_bloom] - M_DELTA[serial_count]))

cat <<EOF
== Memory (one fresh backend per query; $reset_note)
Each backend first ran a query that read the same shared-buffer pages, so the
growth during the measured query is private memory: the aggregate's state, the
filter, the hash table, executor memory.  "peak" = VmHWM after the query minus
VmRSS just before it.  "shmem +" = RssShmem growth during the query (about 0:
the pages were touched before).  "kept" = RSS still held after the query.
"per item": per key for the first two rows, per group of 3 keys for the others.

EOF
printf '%-44s %10s %9s %10s %9s %8s  %s\n' query "EXPLAIN ms" "peak MB" "per item B" "shmem +MB" "kept MB" plan
mem_line() {
	local label=$1 name=$2 n=$3
	printf '%-44s %10s %9s %10s %9s %8s  %s\n' "$name" "${M_MS[$label]}" "$(mb "${M_DELTA[$label]}")" \
		"$(per "${M_DELTA[$label]}" "$n")" "$(mb "${M_SHM[$label]}")" "$(mb "${M_AFTER[$label]}")" "${M_PLAN[$label]}"
}
mem_line serial_count "count(k), $KEYS keys" "$KEYS"
mem_line serial_bloom "bloom_agg(k, $BITS), $KEYS keys" "$KEYS"
mem_line "hash_count_$hash_g" "hashed GROUP BY, $hash_g groups: count(k)" "$hash_g"
mem_line "hash_bloom_$hash_g" "hashed GROUP BY, $hash_g groups: bloom_agg" "$hash_g"
[ "$hash_g" = "$NGROUPS" ] || mem_line "hash_count_$NGROUPS" "hashed GROUP BY, $NGROUPS groups: count(k)" "$NGROUPS"
mem_line sort_count "sorted GROUP BY, $NGROUPS groups: count(k)" "$NGROUPS"
mem_line sort_bloom "sorted GROUP BY, $NGROUPS groups: bloom_agg" "$NGROUPS"

cat <<EOF

Serial bloom_agg over $KEYS keys: peak $(mb "${M_DELTA[serial_bloom]}") MB private, count(k) $(mb "${M_DELTA[serial_count]}") MB;
the aggregate's own memory (the difference) is $(mb "$bloom_own_kb") MB = $(per "$bloom_own_kb" "$KEYS") bytes/key.
What the design predicts for it (not measured): the hash array, 4 B/key written
= $(mb "$model_state_kb") MB (its allocation is $cap hashes = $(mb $((cap * 4 / 1024))) MB of address space, but
untouched pages are not resident), plus the filter, $filter_bytes bytes = $(mb "$model_filter_kb") MB,
both alive while the final function sets the bits: $(mb $((model_state_kb + model_filter_kb))) MB = $(per $((model_state_kb + model_filter_kb)) "$KEYS") B/key.

== Hashed GROUP BY by number of groups (3 keys a group, work_mem 2GB, one run each)
EOF
printf '%9s %12s %13s %15s %13s %13s %15s %16s\n' groups "count(k) ms" "bloom_agg ms" "bloom us/group" "bloom peak MB" "bloom B/group" "count B/group" "bloom HashAgg kB"
for g in "${hash_done[@]}"; do
	printf '%9d %12s %13s %15s %13s %13s %15s %16s\n' "$g" "${M_MS[hash_count_$g]}" "${M_MS[hash_bloom_$g]}" \
		"$(awk -v m="${M_MS[hash_bloom_$g]}" -v g="$g" 'BEGIN {printf "%.2f", m * 1000 / g}')" \
		"$(mb "${M_DELTA[hash_bloom_$g]}")" "$(per "${M_DELTA[hash_bloom_$g]}" "$g")" \
		"$(per "${M_DELTA[hash_count_$g]}" "$g")" "${M_HPEAK[hash_bloom_$g]:-?}"
done
[ -z "$hash_stop_note" ] || echo "bloom_agg: $hash_stop_note."
us_first=$(awk -v m="${M_MS[hash_bloom_$hash_g0]}" -v g="$hash_g0" 'BEGIN {print m * 1000 / g}')
us_last=$(awk -v m="${M_MS[hash_bloom_$hash_g]}" -v g="$hash_g" 'BEGIN {print m * 1000 / g}')
us_growth=$(awk -v a="$us_first" -v b="$us_last" 'BEGIN {printf "%.1f", b / a}')
if [ "$hash_g" != "$hash_g0" ]; then
	echo "bloom_agg time per group grew ${us_growth}x from $hash_g0 to $hash_g groups ($(awk -v a="$hash_g" -v b="$hash_g0" 'BEGIN {printf "%.0f", a / b}')x the groups)."
	if awk -v x="$us_growth" 'BEGIN {exit !(x >= 3)}'; then
		cat <<'EOF'
The time per group grows with the number of groups: the whole GROUP BY is
superlinear.  (For each new group, PostgreSQL's hash aggregate sums the memory
of the aggregate context with all its child contexts, hash_agg_check_limits ->
MemoryContextMemAllocated(..., true); a state that owns a memory context per
group makes that walk, and so the GROUP BY, quadratic in the groups.)
EOF
	fi
fi
if [ "$hash_g" != "$NGROUPS" ]; then
	echo "count(k) at all $NGROUPS groups: ${M_MS[hash_count_$NGROUPS]} ms, peak $(mb "${M_DELTA[hash_count_$NGROUPS]}") MB."
fi
echo

# ---- summary ----------------------------------------------------------------

# ratio_row LABEL NUMERATOR DENOMINATOR [TARGET]: the ratio over medians,
# and over the best (minimum) times, which are less disturbed by other work
# on the machine.
ratio_row() {
	local m b verdict=''
	m=$(bench_ratio "${MED[$2]}" "${MED[$3]}")
	b=$(bench_ratio "${MIN[$2]}" "${MIN[$3]}")
	if [ -n "${4:-}" ]; then
		verdict=$(awk -v m="$m" -v b="$b" -v t="$4" 'BEGIN {print (m >= t) ? "met" : (b >= t) ? "met by the best runs only" : "NOT met"}')
		verdict=" ($verdict)"
	fi
	echo "| $1 | ${m}×$verdict | ${b}× |"
}
# the final function, serially: bloom_agg minus bloom_agg without its final
final_ms=$(awk -v a="${MED[serial.bloom]}" -v b="${MED[serial.state]}" 'BEGIN {printf "%.1f", a - b}')
final_best=$(awk -v a="${MIN[serial.bloom]}" -v b="${MIN[serial.state]}" 'BEGIN {printf "%.1f", a - b}')
final_pct=$(awk -v a="${MED[serial.bloom]}" -v f="$final_ms" 'BEGIN {printf "%.0f", 100 * f / a}')
final_pct_best=$(awk -v a="${MIN[serial.bloom]}" -v f="$final_best" 'BEGIN {printf "%.0f", 100 * f / a}')
# Amdahl: everything but the final split perfectly over 2 CPUs
amdahl() { awk -v a="$1" -v f="$2" 'BEGIN {x = f / a; if (x < 0) x = 0; printf "%.2f", 1 / (x + (1 - x) / 2)}'; }

if [ "$hash_g" = "$NGROUPS" ]; then
	hash_cell="$(per "${M_DELTA[hash_bloom_$hash_g]}" "$hash_g") / $(per "${M_DELTA[hash_count_$hash_g]}" "$hash_g") B/group; ${M_MS[hash_bloom_$hash_g]} / ${M_MS[hash_count_$hash_g]} ms"
else
	hash_cell="only up to $hash_g groups: $(per "${M_DELTA[hash_bloom_$hash_g]}" "$hash_g") / $(per "${M_DELTA[hash_count_$hash_g]}" "$hash_g") B/group; ${M_MS[hash_bloom_$hash_g]} / ${M_MS[hash_count_$hash_g]} ms"
fi

mkdir -p "$OUT_DIR"
SUMMARY=$OUT_DIR/agg_bench-$STAMP.md
{
	echo "### bloom_agg benchmark"
	echo
	echo "$RUN_DATE; $(bench_cpu_model), $(nproc) cores, $(bench_ram) RAM; PostgreSQL $(psql_c "SHOW server_version"); commit $GIT_REV."
	echo "$KEYS keys \`md5(i::text)\` (32 characters), bits_per_key $BITS, table in shared buffers, jit off."
	echo "Times: pgbench's latency in ms, each run in a session of its own after an untimed run of the query;"
	echo "median (min–max) of $REPS runs after a warm-up round."
	echo "\"bloom_agg without final\" is an aggregate of bloom_agg's transition and combine functions alone."
	echo
	echo "| query | serial | 2 workers + leader | 2 workers, leader not scanning |"
	echo "|---|---:|---:|---:|"
	for q in "${QUERIES[@]}"; do
		echo "| \`${Q_NAME[$q]}\` | $(bench_cell "serial.$q") | $(bench_cell "par2.$q") | $(bench_cell "par2nl.$q") |"
	done
	echo
	echo "| ratio | of medians | of best runs |"
	echo "|---|---:|---:|"
	ratio_row "bloom_agg / count(k), serial" serial.bloom serial.count
	ratio_row "bloom_agg / count(k), 2 workers + leader" par2.bloom par2.count
	ratio_row "bloom_agg / count(k), 2 workers, leader not scanning" par2nl.bloom par2nl.count
	ratio_row "bloom_agg speed-up, serial / 2 workers + leader (target ≥ 1.6×)" serial.bloom par2.bloom 1.6
	ratio_row "bloom_agg speed-up, serial / 2 workers, leader not scanning" serial.bloom par2nl.bloom 1.6
	ratio_row "bloom_agg without final speed-up, serial / 2 workers + leader" serial.state par2.state
	ratio_row "reserved bloom_agg(k, $BITS, $KEYS) / count(k), serial" serial.reserved serial.count
	ratio_row "reserved bloom_agg(k, $BITS, $KEYS) / count(k), 2 workers + leader" par2.reserved par2.count
	ratio_row "reserved bloom_agg / bloom_agg, serial" serial.reserved serial.bloom
	ratio_row "reserved bloom_agg speed-up, serial / 2 workers + leader" serial.reserved par2.reserved
	ratio_row "count(k) speed-up, serial / 2 workers + leader" serial.count par2.count
	ratio_row "count(k) speed-up, serial / 2 workers, leader not scanning" serial.count par2nl.count
	echo "| bloom_agg's final function, serial (bloom_agg − without final) | $final_ms ms = ${final_pct}% | $final_best ms = ${final_pct_best}% |"
	echo "| speed-up bound on 2 CPUs if only the final stays serial | $(amdahl "${MED[serial.bloom]}" "$final_ms")× | $(amdahl "${MIN[serial.bloom]}" "$final_best")× |"
	echo
	echo "| check | this run |"
	echo "|---|---:|"
	echo "| parallel filter byte-identical to serial | $identical |"
	echo "| bloom_agg peak memory, serial, over count(k) | $(mb "$bloom_own_kb") MB = $(per "$bloom_own_kb" "$KEYS") B/key |"
	echo "| bloom_agg peak memory, serial, whole backend growth | $(mb "${M_DELTA[serial_bloom]}") MB = $(per "${M_DELTA[serial_bloom]}" "$KEYS") B/key |"
	echo "| hashed GROUP BY, groups of 3 keys: bloom_agg / count(k) peak, time | $hash_cell |"
	if [ "$hash_g" != "$hash_g0" ]; then
		echo "| hashed GROUP BY: bloom_agg time per group, $hash_g0 → $hash_g groups | $(awk -v u="$us_first" 'BEGIN {printf "%.1f", u}') → $(awk -v u="$us_last" 'BEGIN {printf "%.1f", u}') µs (${us_growth}×) |"
	fi
	echo "| sorted GROUP BY, $NGROUPS groups of 3 keys: bloom_agg / count(k) peak, time | $(mb "${M_DELTA[sort_bloom]}") / $(mb "${M_DELTA[sort_count]}") MB; ${M_MS[sort_bloom]} / ${M_MS[sort_count]} ms |"
	echo
	echo "Peak memory: growth of the backend's VmHWM during the query, after the same shared-buffer pages"
	echo "were read once; the difference from count(k) is the aggregate's own memory (state + filter)."
	echo "GROUP BY times are single runs under EXPLAIN ANALYZE."
} >"$SUMMARY"

bench_show_summary "$SUMMARY"

if [ -z "$plans_ok" ]; then
	bf_warn "some parallel runs did not have the expected plan or workers; see Plans above"
fi
if [ "$identical" != yes ]; then
	bf_err "the parallel filter differs from the serial one"
fi

bf_cluster_stop
bf_log "benchmark done"
[ "$identical" = yes ]
