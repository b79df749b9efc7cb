# shellcheck shell=bash
#
# bench/lib/common.sh -- shell functions for the benchmarks.  Source it
# (it brings scripts/lib.sh with it); it does nothing by itself.  A
# benchmark script is then its options, what it measures and what it
# prints:
#
#     set -euo pipefail
#     # shellcheck source=bench/lib/common.sh
#     . "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
#     bench_begin 'KEYS=10000000 REPS=5' '--keys:KEYS --reps:REPS' 'KEYS=100000 REPS=1' "$@"
#     bench_cluster
#     bench_serial_settings 512
#     bench_tables 't' <<EOF ... EOF        (the tables)
#     bench_queries <<EOF ... EOF           (NAME|LABEL|SQL of each query)
#     bench_rounds "${QUERIES[@]}"
#     bench_read_stats "$WORK/times"        (then MED, MIN and MAX of each)
#
# The script's frame:
#   bench_begin DEFAULTS SPEC QUICK ARG...  the defaults, the options
#                            (bench_options), C messages, and in the
#                            checkout's root REPO, OUT_DIR and STAMP
#   bench_cluster [DEPS_ARG...]  bench_prepare "$BUILD" DEPS_ARG..., then a
#                            throw-away cluster (bf_cluster_start)
#   bench_configure SETTING...  ALTER SYSTEM SET each "name = value", restart
#   bench_serial_settings SB_MB  the settings for comparing serial queries
#   bench_remote_cluster SB_MB  a second cluster with those settings, the
#                            remote server of a postgres_fdw bench:
#                            REMOTE_HOST, REMOTE_PORT, REMOTE_DATA,
#                            REMOTE_LOG, and rq (psql on it)
#   bench_fdw_server_sql NAME  the SQL of a postgres_fdw server NAME on that
#                            cluster, extensions 'bloomfilter', and a user
#                            mapping
#   bench_citus_skip FLAG    CITUS_SKIP, why a Citus part cannot run (empty:
#                            it can), and CITUS_KIT, the kit's directory
#   bench_citus_cluster OPTS  a coordinator and two workers (the kit's
#                            citus-cluster.sh, server options OPTS),
#                            stopped at exit; PGHOST and PGPORT the
#                            coordinator's, CITUS_BASE their directory
#   bench_events_select N VIP  the SELECT of N events (id, user_id,
#                            payload), 1% of them by one of VIP users
#   bench_create_extensions  bloomfilter, and hll where installed (HLL=1)
#   bench_tables TABLES [EXTENSION...]  stdin's SQL makes TABLES, which are
#                            then vacuumed, analyzed and prewarmed
#   bench_queries            stdin's "NAME|LABEL|SQL" lines -> QUERIES (the
#                            names, in order), Q_NAME and Q_SQL
#   bench_worker_counts LIST MAX  the worker counts of LIST that MAX and
#                            the CPUs allow -> WORKER_COUNTS, SKIPPED_COUNTS
#   bench_save REPORT NAME   REPORT saved as bench/out/NAME
#   bench_show_summary FILE  FILE (a Markdown summary) printed under its name
#
# Measuring:
#   bench_time LABEL SQL [BEFORE [AFTER]]  time SQL with pgbench (see below)
#   bench_rounds QUERY...    REPS rounds of the queries of Q_SQL, rotated
#                            (each on the server of Q_SERVER, if set, after
#                            the session's Q_SETUP, if set; the backend's CPU
#                            time too where Q_CPU is set)
#   bench_answers QUERY / bench_answer QUERY  their answers in bench_rounds
#   bench_cpu_times          "QUERY_cpu|ms" of each timed run of Q_CPU's
#                            queries in bench_rounds, for bench_read_stats
#   bench_same_answers QUERY...  a check a QUERY: one answer in every run
#   bench_rounds_against_off QUERY...  bench_rounds, SHARE (the machine's
#                            share), then the checks: one answer in every
#                            run, and each BASE_X the answer of BASE_off
#   bench_cpu_fn_sql         SQL that creates bench_cpu_ms(), the backend's
#                            own CPU time (utime + stime) in ms
#   bench_cpu_ticks          "busy steal total" CPU ticks of the whole machine
#                            so far (from /proc/stat), for bench_cpu_share
#   bench_cpu_share A B      from two bench_cpu_ticks readings: "busy% steal%"
#   bench_part_share START   "machine busy N% ... (steal N%); load now ..."
#                            since START (a bench_cpu_ticks reading)
#
# Figures:
#   bench_stats              stdin "key|value" lines -> "key|median|min|max|n"
#   bench_read_stats FILE    "key|value" lines of FILE -> the arrays MED, MIN
#                            and MAX, indexed by key
#   bench_ratio A B [DECIMALS]  A / B with DECIMALS (default 2) decimals
#   bench_meets VALUE OP TARGET  true when "VALUE OP TARGET" (<, <=, >=, >)
#   bench_verdict VALUE OP TARGET  "met" or "NOT met"
#   bench_cell KEY           "median (min–max)" of KEY, ms to 0.1
#   bench_ms KEY / bench_med_ratio A B  KEY's median, ms to 0.1 / the ratio
#                            of A's median to B's (bench_ratio)
#   bench_tables_title LINE...  "## bench/SCRIPT" (and --quick's warning),
#                            LINE... as a paragraph: the head of a bench's
#                            Markdown tables
#   bench_finish NAME LABEL  the checks, $WORK/tables.md and the load
#                            printed and added to REPORT, both saved as
#                            bench/out/NAME-STAMP[-quick].md and .txt, then
#                            bench_checks_line LABEL
#   bench_results_table NAME_W NUM_W QUERY...  "== Results": each query's
#                            Q_NAME, median, min and max
#   bench_every_query NAME_W QUERY...  "== Every query": each query's name,
#                            median, min and max
#   bench_check DESCRIPTION COMMAND...  a check (never of a time): COMMAND's
#                            status counted in BENCH_PASSED / BENCH_FAILED
#   bench_checks_line LABEL  "LABEL: N passed, N failed"; false on a failure
#
# The machine and the run:
#   bench_machine            describe the machine (CPU, cores, RAM, kernel,
#                            transparent huge pages, load), one "key: value"
#                            line each
#   bench_cpu_model          the CPU's model name (else the architecture)
#   bench_mem_kb             the RAM in kB (MemTotal)
#   bench_ram                the RAM as "N.N GiB"
#   bench_load               the load averages, "1 5 15" minutes
#   bench_git_rev REPO       REPO's short commit, "+ uncommitted changes"
#                            when tracked files differ from it
#   bench_run_info           RUN_DATE and GIT_REV, the run's date and commit
#   bench_machine_report LINE...  the "== Machine" block: date, the machine,
#                            PostgreSQL's version and the commit, then LINE...
#   bench_settings_line NAME...  "settings:" and NAME=value of each setting
#   bench_report_start LINE...  REPORT begun with bench_machine_report, the
#                            serial settings and LINE..., and printed
#   bench_shared_buffers_mb EST MIN  the larger of EST and MIN (MB), with a
#                            warning when that is over 60% of the RAM
#
# Options and setup:
#   bench_need_int OPT V [MIN]  exit 2 unless V is an integer >= MIN (default 1)
#   bench_options SPEC QUICK ARG...  the script's options (see below)
#   bench_build_install LOG  make and make install, output to LOG; on a
#                            failure, its tail and exit 1
#   bench_ensure_deps ARG... bf_ensure_deps ARG..., unless PG_CONFIG or PGBIN
#                            names a PostgreSQL of its own
#   bench_psql               BINDIR, PSQL and psql_c / psql_file (a query /
#                            a script; unaligned, '|'-separated)
#   bench_prepare BUILD [DEPS_ARG...]  the dependencies (no LevelDB), WORK (a
#                            temporary directory), make and make install
#                            unless BUILD is empty, and bench_psql
#
# Every figure these functions print comes from the machine at the time
# they run; nothing is hard-coded.

BENCH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! declare -F bf_log >/dev/null; then
	# shellcheck source=scripts/lib.sh
	. "$BENCH_LIB_DIR/../../scripts/lib.sh"
fi

bench_machine() {
	local cores phys thp
	cores=$(nproc 2>/dev/null || echo '?')
	phys=$(awk -F': *' '/^physical id/ {p=$2} /^core id/ {c[p "-" $2]=1} END {n=0; for (k in c) n++; print n}' /proc/cpuinfo 2>/dev/null)
	thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
	echo "cpu: $(bench_cpu_model)"
	echo "cores: $cores online (${phys:-?} physical)"
	if grep -q '^flags.* hypervisor' /proc/cpuinfo 2>/dev/null; then
		echo "virtual machine: yes (a hypervisor flag is set)"
	fi
	# lscpu names no cache on some virtual machines; getconf still may
	echo "caches: $(lscpu 2>/dev/null | awk -F': *' '/^L[123][di]? cache/ {printf "%s%s %s", sep, $1, $2; sep="; "}' |
		grep . || getconf -a 2>/dev/null | awk '/^LEVEL[123]_(D)?CACHE_SIZE/ && $2 > 0 {printf "%s%s %d kB", sep, $1, $2 / 1024; sep="; "}')"
	echo "huge pages reserved (vm.nr_hugepages): $(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo '?'), free: $(awk '/^HugePages_Free/ {print $2}' /proc/meminfo 2>/dev/null)"
	echo "ram: $(bench_ram)"
	echo "kernel: $(uname -sr)"
	echo "transparent huge pages: ${thp:-unknown}"
	echo "load average at start: $(bench_load)"
}

bench_cpu_model() {
	local cpu
	cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
	# ARM and MIPS kernels name the CPU in other fields
	[ -n "$cpu" ] || cpu=$(awk -F': *' '/^(Hardware|cpu model|Processor)/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
	echo "${cpu:-$(uname -m)}"
}

bench_mem_kb() {
	awk '/^MemTotal:/ {print $2; exit}' /proc/meminfo 2>/dev/null
}

bench_ram() {
	bench_mem_kb | awk '{printf "%.1f GiB\n", $1 / 1048576}'
}

bench_load() {
	awk '{print $1, $2, $3}' /proc/loadavg 2>/dev/null || echo '? ? ?'
}

bench_git_rev() {
	local rev
	rev=$(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		rev="$rev + uncommitted changes"
	fi
	echo "$rev"
}

bench_cpu_ticks() {
	awk '/^cpu / {busy = $2 + $3 + $4 + $7 + $8; steal = $9; total = 0; for (i = 2; i <= 9; i++) total += $i; print busy, steal, total; exit}' /proc/stat
}

bench_cpu_share() {
	local b0 s0 t0 b1 s1 t1
	read -r b0 s0 t0 <<<"$1"
	read -r b1 s1 t1 <<<"$2"
	awk -v b=$((b1 - b0)) -v s=$((s1 - s0)) -v t=$((t1 - t0)) \
		'BEGIN {if (t <= 0) print "? ?"; else printf "%.0f%% %.1f%%\n", 100 * b / t, 100 * s / t}'
}

# bench_part_share START: the machine's busy and steal share since START
# (bench_cpu_ticks): how much else ran beside a part of a bench.
bench_part_share() {
	local busy steal
	read -r busy steal <<<"$(bench_cpu_share "$1" "$(bench_cpu_ticks)")"
	echo "machine busy $busy of its CPU time during the rounds (steal $steal); load now $(bench_load)"
}

bench_stats() {
	awk -F'|' '
		function median(arr, m,   i, j, x) {	# of arr[1..m], left sorted
			for (i = 2; i <= m; i++) {
				x = arr[i]
				for (j = i - 1; j >= 1 && arr[j] > x; j--) arr[j + 1] = arr[j]
				arr[j + 1] = x
			}
			return (m % 2) ? arr[(m + 1) / 2] : (arr[m / 2] + arr[m / 2 + 1]) / 2
		}
		NF >= 2 && $2 != "" { n[$1]++; v[$1, n[$1]] = $2 + 0 }
		END {
			for (k in n) {
				m = n[k]
				for (i = 1; i <= m; i++) a[i] = v[k, i]
				med = median(a, m)
				printf "%s|%.3f|%.3f|%.3f|%d\n", k, med, a[1], a[m], m
			}
		}'
}

bench_read_stats() {
	local k med mn mx
	declare -gA MED MIN MAX
	# shellcheck disable=SC2034 # for the script
	while IFS='|' read -r k med mn mx _; do
		MED[$k]=$med MIN[$k]=$mn MAX[$k]=$mx
	done < <(bench_stats <"$1")
}

bench_ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN {if (b == 0) print "?"; else printf "%.*f", d, a / b}'
}

bench_need_int() {
	local min=${3:-1}
	case $2 in
	'' | *[!0-9]*)
		printf '%s: %s needs a positive integer, not "%s"\n' "${0##*/}" "$1" "$2" >&2
		exit 2
		;;
	esac
	if [ "$2" -lt "$min" ]; then
		printf '%s: %s must be at least %s\n' "${0##*/}" "$1" "$min" >&2
		exit 2
	fi
}

# bench_options SPEC QUICK ARG...: parse the script's options ARG... into
# its variables.  SPEC is words
#   --opt:VAR[:MIN]   --opt N sets VAR to the integer N >= MIN (default 1)
#   --opt:VAR:list    --opt LIST sets VAR to numbers separated by commas
#   --opt:VAR:file    --opt FILE sets VAR to FILE's absolute path (FILE
#                     must exist)
#   --opt:VAR=VALUE   the flag --opt sets VAR to VALUE (which may be empty)
# and a value follows its option as the next argument (taken as it is:
# "--keys --reps=3" complains about "--reps=3") or after "=".  Every
# script also has --quick (QUICK=1, and then the assignments "VAR=V ..." of
# QUICK to the variables no option set: explicit options win), --no-build
# (BUILD='', else 1) and -h/--help (the script's header comment, up to its
# first empty line).  Anything else, or a bad value: a message and exit 2.
# shellcheck disable=SC2034 # QUICK, BUILD: for the script
bench_options() {
	local spec=" $1 " quick=$2 arg opt word var kind val given=' ' a me=${0##*/}
	shift 2
	QUICK='' BUILD=1
	while [ $# -gt 0 ]; do
		arg=$1
		shift
		case $arg in
		--quick) QUICK=1 && continue ;;
		--no-build) BUILD='' && continue ;;
		-h | --help)
			sed -n '3,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[-1]}"
			exit 0
			;;
		esac
		opt=${arg%%=*}
		word=${spec#*" $opt:"}
		word=${word%% *} # VAR[:MIN], VAR:list or VAR=VALUE
		if [[ ! $opt =~ ^--[a-z][a-z-]*$ || $spec != *" $opt:"* || ($word == *=* && $arg != "$opt") ]]; then
			printf '%s: unknown option %s (see --help)\n' "$me" "$arg" >&2
			exit 2
		fi
		if [[ $word == *=* ]]; then
			printf -v "${word%%=*}" '%s' "${word#*=}"
			continue
		fi
		var=${word%%:*}
		kind=${word#"$var"}
		kind=${kind#:}
		if [ "$arg" != "$opt" ]; then
			val=${arg#*=}
		else
			val=${1-}
			[ $# -eq 0 ] || shift
		fi
		if [ "$kind" = list ]; then
			case $val in '' | *[!0-9,]*)
				printf '%s: %s wants numbers separated by commas\n' "$me" "$opt" >&2
				exit 2
				;;
			esac
		elif [ "$kind" = file ]; then
			if [ ! -f "$val" ]; then
				printf '%s: %s %s: no such file\n' "$me" "$opt" "$val" >&2
				exit 2
			fi
			val=$(cd "$(dirname "$val")" && pwd)/$(basename "$val")
		else
			bench_need_int "$opt" "$val" "${kind:-1}"
		fi
		printf -v "$var" '%s' "$val"
		given="$given$var "
	done
	if [ -n "$QUICK" ]; then
		for a in $quick; do
			[[ $given == *" ${a%%=*} "* ]] || printf -v "${a%%=*}" '%s' "${a#*=}"
		done
	fi
}

# bench_time LABEL SQL [BEFORE [AFTER]]: time SQL with pgbench, in a session
# of its own.  "pgbench -n -f FILE -t 3 -l" runs three transactions: BEFORE,
# SQL and AFTER; the per-transaction log's latency of the second (in
# microseconds) is appended as "LABEL|ms" to $BENCH_TIMES (default
# $WORK/times).  BEFORE and AFTER are pgbench script lines the time leaves
# out: settings, a warm-up EXPLAIN, a reading of the backend's CPU time;
# \shell can write down, in AFTER, the variables that SQL or BEFORE \gset
# (its arguments are words, with no quoting: ":v" is variable v).  Needs
# BINDIR and WORK, and the cluster's PG* variables (bf_cluster_start).
bench_time() {
	local file=$WORK/bench_time.sql
	printf '%s\n' '\if :bench_tx = 0' "${3-}" '\elif :bench_tx = 1' "$2" '\else' "${4-}" '\endif' \
		'\set bench_tx :bench_tx + 1' >"$file"
	rm -f "$WORK"/bench_time.log.*
	if ! "$BINDIR/pgbench" -n -f "$file" -t 3 -D bench_tx=0 -l --log-prefix="$WORK/bench_time.log" \
		>/dev/null 2>"$WORK/bench_time.err"; then
		cat "$WORK/bench_time.err" >&2
		bf_err "pgbench failed on: $2"
		exit 1
	fi
	# a line a transaction: client transaction_no latency_us script_no epoch epoch_us
	awk -v l="$1" 'NR == 2 { printf "%s|%.3f\n", l, $3 / 1000 }' "$WORK"/bench_time.log.* >>"${BENCH_TIMES:-$WORK/times}"
}

bench_cpu_fn_sql() {
	cat <<EOF
CREATE FUNCTION bench_cpu_ms() RETURNS float8 LANGUAGE sql AS
\$\$ SELECT ((f[12])::bigint + (f[13])::bigint) * 1000.0 / $(getconf CLK_TCK 2>/dev/null || echo 100)
     FROM regexp_split_to_array(regexp_replace(pg_read_file('/proc/self/stat'), '^.*\) ', ''), ' ') f \$\$;
EOF
}

bench_build_install() {
	bf_log "building (log: $1)"
	if ! bf_make >"$1" 2>&1; then
		tail -n 40 "$1" >&2
		bf_err "make failed"
		exit 1
	fi
	bf_log "installing"
	if ! bf_make_install >>"$1" 2>&1; then
		tail -n 40 "$1" >&2
		bf_err "make install failed"
		exit 1
	fi
}

# bench_ensure_deps ARG...: bf_ensure_deps, unless PG_CONFIG or PGBIN names
# a PostgreSQL of its own (the benchmarks' kit, on a machine with no package
# archive): then nothing is installed, and what it lacks is its to bring.
bench_ensure_deps() {
	if [ -n "${PG_CONFIG:-}${PGBIN:-}" ]; then
		bf_log "using the PostgreSQL of ${PGBIN:-$PG_CONFIG}: installing no package"
		return 0
	fi
	bf_ensure_deps "$@"
}

bench_psql() {
	BINDIR=$(bf_pg_bindir)
	PSQL=("$BINDIR/psql" -X -q -At -F '|' -v ON_ERROR_STOP=1)
	psql_c() { "${PSQL[@]}" -c "$1"; }
	psql_file() { "${PSQL[@]}" -f "$1"; }
}

# bench_prepare BUILD [DEPS_ARG...]: DEPS_ARG are bf_ensure_deps's (no
# --leveldb: these benchmarks need no LevelDB).
bench_prepare() {
	local build=$1
	shift
	bench_ensure_deps "$@"
	bf_mktemp_dir WORK
	if [ -n "$build" ]; then
		bench_build_install "$WORK/build.log"
	else
		bf_log "--no-build: using the installed extension"
	fi
	bench_psql
}

# bench_run_info: RUN_DATE and GIT_REV, for a report that names the run's
# date and commit in more than one place.
bench_run_info() {
	RUN_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
	GIT_REV=$(bench_git_rev "$REPO")
}

# bench_machine_report LINE...: the date and the commit are those of
# bench_run_info, where the script called it.
bench_machine_report() {
	local line
	[ -n "${RUN_DATE:-}" ] || bench_run_info
	echo
	echo "== Machine"
	echo "date:        $RUN_DATE"
	bench_machine
	echo "PostgreSQL:  $(psql_c "SELECT version()")"
	echo "extension:   bloomfilter at commit $GIT_REV"
	for line in "$@"; do
		echo "$line"
	done
}

# bench_settings_line NAME...: "settings:" and each setting NAME=its value,
# for bench_machine_report.
bench_settings_line() {
	local name line='settings:   '
	for name in "$@"; do
		line+=" $name=$(psql_c "SHOW $name")"
	done
	echo "$line"
}

# bench_report_start LINE...: REPORT ($WORK/report.txt), begun with the
# "== Machine" block, bench_serial_settings' settings and LINE..., and
# printed.
bench_report_start() {
	REPORT=$WORK/report.txt
	{
		bench_machine_report "$(bench_settings_line shared_buffers jit max_parallel_workers_per_gather)" "$@"
		echo
	} | tee "$REPORT"
}

bench_shared_buffers_mb() {
	local mb=$(($1 > $2 ? $1 : $2))
	if [ "$((mb * 1024))" -gt "$(($(bench_mem_kb) * 6 / 10))" ]; then
		bf_warn "shared_buffers = ${mb}MB is over 60% of the machine's RAM; timings may include swapping or reads"
	fi
	echo "$mb"
}

# bench_serial_settings SB_MB: settings for comparing serial queries, then a
# restart: shared_buffers of SB_MB MB (to hold the tables), no JIT (its
# compile time, tens of ms and varying, would blur queries that differ in
# one expression), no parallel plans, and no autovacuum or checkpoint
# during the run.
bench_serial_settings() {
	local settings
	bf_log "configuring the cluster: shared_buffers = ${1}MB, jit off, serial plans; restarting"
	mapfile -t settings < <(bench__serial_setting_list "$1")
	bench_configure "${settings[@]}"
}

# bench__serial_setting_list SB_MB: bench_serial_settings' settings, one a line.
bench__serial_setting_list() {
	printf '%s\n' "shared_buffers = '${1}MB'" "jit = off" "max_parallel_workers_per_gather = 0" \
		"autovacuum = off" "max_wal_size = '8GB'" "checkpoint_timeout = '1h'"
}

# bench_remote_cluster SB_MB: a second throw-away cluster, the remote server
# of a postgres_fdw bench, with bench_serial_settings' settings
# (shared_buffers of SB_MB MB) and stopped at exit: REMOTE_HOST,
# REMOTE_PORT, REMOTE_DATA (its data directory, for bf__stop_data) and
# REMOTE_LOG, and rq, psql (PSQL) on it.  Needs bench_psql's BINDIR and
# PSQL.
# shellcheck disable=SC2034 # REMOTE_LOG: for the script
bench_remote_cluster() {
	local setting
	bf__cluster_make || exit 1
	REMOTE_HOST=$BF__NEW_SOCK REMOTE_PORT=$BF__NEW_PORT REMOTE_LOG=$BF__NEW_DIR/server.log
	REMOTE_DATA=$BF__NEW_DIR/data
	bf_at_exit bf__stop_data "$REMOTE_DATA"
	rq() { PGHOST=$REMOTE_HOST PGPORT=$REMOTE_PORT "${PSQL[@]}" "$@"; }
	while read -r setting; do
		rq -c "ALTER SYSTEM SET $setting" >/dev/null
	done < <(bench__serial_setting_list "$1")
	bf__as_owner "$BINDIR/pg_ctl" -D "$REMOTE_DATA" -l "$REMOTE_LOG" -w -t 120 restart >/dev/null || exit 1
}

# bench_fdw_server_sql NAME: the SQL of a postgres_fdw server NAME on
# bench_remote_cluster's cluster, whose extensions include bloomfilter (so
# that postgres_fdw sends its operators and functions to the remote
# server), and the current user's mapping to it.
bench_fdw_server_sql() {
	echo "CREATE SERVER $1 FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '$REMOTE_HOST', port '$REMOTE_PORT', dbname 'postgres', extensions 'bloomfilter');"
	echo "CREATE USER MAPPING FOR CURRENT_USER SERVER $1;"
}

# bench_citus_skip FLAG: CITUS_SKIP, why the script's Citus part cannot
# run, or empty when it can: FLAG empty (the script's --no-citus), Citus
# not installed in bf_pg_config's PostgreSQL (the kit's build-citus.sh
# installs it), or no kit's citus-cluster.sh at CITUS_KIT, which it also
# sets: BLOOM_CITUS_KIT, else ../shared/citus beside the checkout.
bench_citus_skip() {
	CITUS_KIT=${BLOOM_CITUS_KIT:-$REPO/../shared/citus}
	CITUS_SKIP=''
	if [ -z "$1" ]; then
		CITUS_SKIP='--no-citus'
	elif [ ! -f "$("$(bf_pg_config)" --sharedir)/extension/citus.control" ]; then
		CITUS_SKIP="Citus is not installed in the PostgreSQL of $(bf_pg_config) (the kit's build-citus.sh installs it)"
	elif [ ! -f "$CITUS_KIT/citus-cluster.sh" ]; then
		CITUS_SKIP="no Citus kit at $CITUS_KIT (BLOOM_CITUS_KIT names another)"
	fi
}

# bench_citus_cluster OPTS: a Citus coordinator and two workers on three
# free ports, the kit's citus-cluster.sh (at CITUS_KIT, bench_citus_skip)
# in a temporary directory CITUS_BASE, with Citus's default settings,
# bloomfilter created (Citus propagates it to the workers) and the server
# options OPTS ("-c name=value ...") on every node; stopped at exit (and
# by citus_cluster_stop "$BINDIR" "$CITUS_BASE").  PGHOST and PGPORT are
# then the coordinator's.  Needs bench_psql's BINDIR.
bench_citus_cluster() {
	local port0
	# shellcheck source=/dev/null
	. "$CITUS_KIT/citus-cluster.sh"
	CITUS_BASE=$(mktemp -d /tmp/bfdist.XXXXXX)
	for _ in $(seq 1 50); do
		port0=$((55000 + RANDOM % 900))
		bf__port_free "$port0" && bf__port_free $((port0 + 1)) && bf__port_free $((port0 + 2)) && break
	done
	bf_log "starting Citus: a coordinator and two workers in $CITUS_BASE, ports $port0 to $((port0 + 2))"
	bf_at_exit citus_cluster_stop "$BINDIR" "$CITUS_BASE"
	CITUS_EXTENSIONS=bloomfilter CITUS_PG_OPTS=$1 citus_cluster_start "$BINDIR" "$CITUS_BASE" "$port0" || exit 1
}

# bench_events_select N VIP: the SELECT of N events (id, user_id bigint,
# payload), whose each hundredth row is by one of the users 1..VIP (each
# of them the same number of times), the others by one of N/10 users
# whose ids are above VIP's; payload is md5(id::text), 32 characters.
bench_events_select() {
	echo "SELECT i AS id,
		(CASE WHEN i % 100 = 0 THEN (i / 100 - 1) % $2 + 1 ELSE $2 + 1 + i % greatest($1 / 10, 1) END)::bigint AS user_id,
		md5(i::text) AS payload FROM generate_series(1, $1) i"
}

# bench_rounds QUERY...: REPS rounds of the queries, whose SQL is in the
# script's associative array Q_SQL (one row, its value named v).  Each round
# runs them in an order rotated by one more, so that none always runs
# first; bench_time runs each in a session of its own, untimed then timed,
# and "QUERY UNTIMED_ANSWER TIMED_ANSWER" goes to $WORK/answers.  Where
# Q_SETUP[QUERY] is set, its pgbench lines (LOAD, SET, ...) start the
# session, before the untimed run.  Where Q_CPU[QUERY] is set, the line
# also has the backend's CPU time (bench_cpu_ms, which the database must
# have) before and after the timed run: a serial query's work, which the
# other programs of a busy machine lengthen less than its time.
# shellcheck disable=SC2153 # REPS: the script's
bench_rounds() {
	local queries=("$@") nq=$# rep j q c0 c1
	bf_log "timing: $REPS round(s)"
	: >"$WORK/times"
	: >"$WORK/answers"
	for ((rep = 1; rep <= REPS; rep++)); do
		for ((j = 0; j < nq; j++)); do
			q=${queries[$(((j + rep) % nq))]}
			c0='' c1=''
			if [ -n "${Q_CPU[$q]:-}" ]; then
				c0=$'\nSELECT bench_cpu_ms() AS c0 \\gset'
				c1=$'SELECT bench_cpu_ms() AS c1 \\gset\n'
			fi
			bench_on_server "$q" bench_time "$q" "${Q_SQL[$q]} \gset" "${Q_SETUP[$q]:+${Q_SETUP[$q]}
}${Q_SQL[$q]} \gset w_$c0" \
				"$c1\\shell echo $q :w_v :v${c0:+ :c0 :c1} >> $WORK/answers"
		done
	done
}

# bench_cpu_times: "QUERY_cpu|ms", the backend's CPU time of each timed run
# in bench_rounds of a query whose Q_CPU was set.
bench_cpu_times() {
	awk 'NF == 5 { printf "%s_cpu|%.1f\n", $1, $5 - $4 }' "$WORK/answers"
}

# bench_on_server QUERY COMMAND...: COMMAND with PGHOST and PGPORT of the
# server Q_SERVER[QUERY] names ("HOST PORT"), where the script set one (a
# query of a second cluster, timed in the same rounds), else as it is.
bench_on_server() {
	local q=$1 host port
	shift
	if [ -n "${Q_SERVER[$q]:-}" ]; then
		read -r host port <<<"${Q_SERVER[$q]}"
		PGHOST=$host PGPORT=$port "$@"
	else
		"$@"
	fi
}

# bench_answers QUERY: the number of different answers QUERY gave in
# bench_rounds (1 when every run agreed).
bench_answers() {
	awk -v q="$1" '$1 == q { print $2; print $3 }' "$WORK/answers" | sort -u | wc -l
}

# bench_answer QUERY: QUERY's answer in its first timed run.
bench_answer() {
	awk -v q="$1" '$1 == q { print $3; exit }' "$WORK/answers"
}

# bench_same_answers QUERY...: a check a QUERY, that it gave one answer in
# every run of bench_rounds.
bench_same_answers() {
	local q n
	for q in "$@"; do
		n=$(bench_answers "$q")
		bench_check "$q: the same answer in every run ($n different)" [ "$n" -eq 1 ]
	done
}

# bench_rounds_against_off QUERY...: bench_rounds of QUERY..., SHARE (the
# machine's busy share during them, bench_part_share), then the checks:
# each QUERY gave one answer in every run, and each QUERY named BASE_X
# (X not off) gave the answer of BASE_off, where that is among QUERY...
# shellcheck disable=SC2034 # SHARE: for the script
bench_rounds_against_off() {
	local start q off
	start=$(bench_cpu_ticks)
	bench_rounds "$@"
	SHARE=$(bench_part_share "$start")
	bench_same_answers "$@"
	for q in "$@"; do
		off=${q%_*}_off
		[[ $q != "$off" && " $* " == *" $off "* ]] || continue
		bench_check "${Q_NAME[$q]}: off's answer ($(bench_answer "$q") vs $(bench_answer "$off"))" \
			[ "$(bench_answer "$q")" = "$(bench_answer "$off")" ]
	done
}

# ---- the script's frame ------------------------------------------------------

# bench_begin DEFAULTS SPEC QUICK ARG...: the start of a benchmark script.
# The assignments DEFAULTS ("VAR=V ...", V with no space; "VAR=" empties
# VAR), then bench_options SPEC QUICK ARG..., C messages and sorting, and,
# in the checkout's root: REPO, OUT_DIR (bench/out, where the reports are
# saved) and STAMP (the UTC time of the start, which names them).
# shellcheck disable=SC2034 # REPO, OUT_DIR, STAMP: for the script
bench_begin() {
	local a
	for a in $1; do
		printf -v "${a%%=*}" '%s' "${a#*=}"
	done
	shift
	bench_options "$@"
	export LC_ALL=C
	unset LANGUAGE
	cd "$BENCH_LIB_DIR/../.." || exit 1
	REPO=$PWD
	OUT_DIR=$REPO/bench/out
	STAMP=$(date -u +%Y%m%d-%H%M%S)
	RUN_DATE='' GIT_REV=''
}

# bench_cluster [DEPS_ARG...]: bench_prepare "$BUILD" DEPS_ARG..., then a
# throw-away cluster whose PG* variables psql and pgbench use.
# shellcheck disable=SC2120 # most scripts pass no DEPS_ARG
bench_cluster() {
	bench_prepare "$BUILD" "$@"
	bf_cluster_start
}

# bench_configure SETTING...: ALTER SYSTEM SET each SETTING ("name = value"),
# then restart the cluster.
bench_configure() {
	local setting
	for setting in "$@"; do
		psql_c "ALTER SYSTEM SET $setting" >/dev/null
	done
	bf_cluster_restart || exit 1
}

# bench_create_extensions: CREATE EXTENSION bloomfilter, and hll when
# postgresql-hll is installed: HLL=1 then, else HLL is empty.
# shellcheck disable=SC2034 # HLL: for the script
bench_create_extensions() {
	psql_c "CREATE EXTENSION bloomfilter" >/dev/null
	HLL=''
	if psql_c "CREATE EXTENSION hll" >/dev/null 2>&1; then
		HLL=1
	fi
}

# bench_tables TABLES [EXTENSION...]: the SQL on stdin, which makes the
# tables TABLES (words), after CREATE EXTENSION bloomfilter, pg_prewarm and
# each EXTENSION; then the tables vacuumed and analyzed, a checkpoint, and
# the tables, their indexes and their TOAST tables read into shared
# buffers (pg_prewarm).
bench_tables() {
	local tables=$1 ext list
	shift
	# shellcheck disable=SC2086 # one word a table
	list=$(printf "'%s', " $tables)
	list=${list%, }
	{
		echo "SET client_min_messages = warning;"
		for ext in bloomfilter pg_prewarm "$@"; do
			echo "CREATE EXTENSION $ext;"
		done
		cat
		echo "VACUUM (ANALYZE) ${tables// /, };"
		echo "CHECKPOINT;"
		echo "SELECT pg_prewarm(c.oid::regclass) FROM pg_class c WHERE c.relname IN ($list);"
		echo "SELECT pg_prewarm(i.indexrelid::regclass) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname IN ($list);"
		echo "SELECT pg_prewarm(c.reltoastrelid) FROM pg_class c WHERE c.relname IN ($list) AND c.reltoastrelid <> 0;"
	} | "${PSQL[@]}" >/dev/null
}

# bench_queries: the queries a script times, from stdin's lines
# "NAME|LABEL|SQL" (SQL whose one column is v, for bench_rounds): their
# names in QUERIES, in order, their labels in Q_NAME and their SQL in
# Q_SQL, indexed by name; Q_SERVER, empty, is the script's to fill for
# the queries another server runs (bench_on_server), Q_SETUP, empty, for
# the queries whose sessions start with settings, and Q_CPU, empty, for
# those whose backend's CPU time bench_rounds reads too.
# shellcheck disable=SC2034 # for the script
bench_queries() {
	local name label sql
	QUERIES=()
	declare -gA Q_NAME=() Q_SQL=() Q_SERVER=() Q_SETUP=() Q_CPU=()
	while IFS='|' read -r name label sql; do
		[ -n "$name" ] || continue
		QUERIES+=("$name")
		Q_NAME[$name]=$label
		Q_SQL[$name]=$sql
	done
}

# bench_worker_counts LIST MAX: the worker counts of LIST (numbers separated
# by commas or spaces) that are at most MAX and twice the CPUs online, in
# WORKER_COUNTS, and the others in SKIPPED_COUNTS: more workers than twice
# the CPUs would only measure contention.
# shellcheck disable=SC2034 # for the script
bench_worker_counts() {
	local w cores
	cores=$(nproc)
	WORKER_COUNTS=() SKIPPED_COUNTS=()
	for w in ${1//,/ }; do
		if [ "$w" -le "$2" ] && [ "$w" -le $((cores * 2)) ]; then
			WORKER_COUNTS+=("$w")
		else
			SKIPPED_COUNTS+=("$w")
		fi
	done
}

# bench_save REPORT NAME: REPORT saved as bench/out/NAME.
bench_save() {
	mkdir -p "$OUT_DIR"
	cp "$1" "$OUT_DIR/$2"
	bf_log "report saved as bench/out/$2"
}

# bench_show_summary FILE: FILE, a Markdown summary saved under bench/out/,
# printed under a heading that names it.
bench_show_summary() {
	echo "== Summary (Markdown; also saved in ${1#"$REPO"/})"
	echo
	cat "$1"
	echo
}

# ---- figures -------------------------------------------------------------------

bench_meets() {
	awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
		ok = (op == "<") ? v < t : (op == "<=") ? v <= t : (op == ">=") ? v >= t : (op == ">") ? v > t : 0
		exit !ok }'
}

bench_verdict() {
	if bench_meets "$@"; then echo met; else echo "NOT met"; fi
}

bench_cell() {
	printf '%.1f (%.1f–%.1f)' "${MED[$1]:-0}" "${MIN[$1]:-0}" "${MAX[$1]:-0}"
}

bench_ms() {
	printf '%.1f' "${MED[$1]}"
}

bench_med_ratio() {
	bench_ratio "${MED[$1]}" "${MED[$2]}"
}

bench_tables_title() {
	echo "## bench/${0##*/}${QUICK:+ --quick (smoke test: the times mean nothing)}"
	echo
	echo "$*"
	echo
}

# bench_finish NAME LABEL: the end of a bench whose Markdown tables are in
# $WORK/tables.md and whose whole report is REPORT: "== Checks" (each
# check's line), the tables and the load, printed and added to REPORT;
# the tables and REPORT saved under bench/out/ (NAME-STAMP.md and .txt,
# -quick added under --quick); then the last line, bench_checks_line
# LABEL, and its status.
bench_finish() {
	local base=$1-$STAMP${QUICK:+-quick}
	{
		echo "== Checks"
		printf '%s\n' "${BENCH_CHECK_LINES[@]}"
		echo
		cat "$WORK/tables.md"
		echo "load after the run: $(bench_load)"
	} | tee -a "$REPORT"
	mkdir -p "$OUT_DIR"
	cp "$WORK/tables.md" "$OUT_DIR/$base.md"
	bench_save "$REPORT" "$base.txt"
	bench_checks_line "$2"
}

# bench_results_table NAME_W NUM_W QUERY...: "== Results" of bench_rounds'
# REPS rounds: a row a QUERY, its Q_NAME in NAME_W characters, then its
# median, minimum and maximum (MED, MIN, MAX) in NUM_W each.
bench_results_table() {
	local nw=$1 vw=$2 q
	shift 2
	echo "== Results ($REPS round(s); ms)"
	printf "%-${nw}s %${vw}s %${vw}s %${vw}s\n" query median min max
	for q in "$@"; do
		printf "%-${nw}s %${vw}.1f %${vw}.1f %${vw}.1f\n" "${Q_NAME[$q]}" "${MED[$q]}" "${MIN[$q]}" "${MAX[$q]}"
	done
}

# bench_every_query NAME_W QUERY...: "== Every query" of bench_rounds' REPS
# rounds: a line a QUERY, its name in NAME_W characters, then its median,
# minimum and maximum (MED, MIN, MAX) in ms.
bench_every_query() {
	local nw=$1 q
	shift
	echo "== Every query ($REPS round(s); ms: median, min, max)"
	for q in "$@"; do
		printf "%-${nw}s %10.1f %10.1f %10.1f\n" "$q" "${MED[$q]}" "${MIN[$q]}" "${MAX[$q]}"
	done
}

# bench_check DESCRIPTION COMMAND...: a check of a result, never of a time:
# COMMAND (such as [ "$n" -eq 1 ]) succeeds, or DESCRIPTION is reported as
# an error.  Counted in BENCH_PASSED and BENCH_FAILED, and listed as
# "ok   DESCRIPTION" or "FAIL DESCRIPTION" in BENCH_CHECK_LINES.
BENCH_PASSED=0
BENCH_FAILED=0
BENCH_CHECK_LINES=()
bench_check() {
	local what=$1
	shift
	if "$@"; then
		BENCH_PASSED=$((BENCH_PASSED + 1))
		BENCH_CHECK_LINES+=("ok   $what")
	else
		BENCH_FAILED=$((BENCH_FAILED + 1))
		BENCH_CHECK_LINES+=("FAIL $what")
		bf_err "$what"
	fi
}

# bench_checks_line LABEL: the last line of a benchmark, which the test
# command counts: "LABEL: N passed, N failed"; false when a check failed.
bench_checks_line() {
	echo "$1: $BENCH_PASSED passed, $BENCH_FAILED failed"
	[ "$BENCH_FAILED" -eq 0 ]
}
