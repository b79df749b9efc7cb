# shellcheck shell=bash
#
# bench/lib/common.sh -- shell functions for the benchmarks.  Source it
# after scripts/lib.sh; it does nothing by itself.
#
#   bench_machine            describe the machine (CPU, cores, RAM, kernel,
#                            transparent huge pages, load), one "key: value"
#                            line each
#   bench_cpu_model          the CPU's model name (else the architecture)
#   bench_mem_kb             the RAM in kB (MemTotal)
#   bench_ram                the RAM as "N.N GiB"
#   bench_load               the load averages, "1 5 15" minutes
#   bench_git_rev REPO       REPO's short commit, "+ uncommitted changes"
#                            when tracked files differ from it
#   bench_cpu_ticks          "busy steal total" CPU ticks of the whole machine
#                            so far (from /proc/stat), for bench_cpu_share
#   bench_cpu_share A B      from two bench_cpu_ticks readings: "busy% steal%"
#   bench_stats              stdin "key|value" lines -> "key|median|min|max|n"
#   bench_read_stats FILE    "key|value" lines of FILE -> the arrays MED, MIN
#                            and MAX, indexed by key
#   bench_ratio A B          A / B with 2 decimals
#   bench_need_int OPT V [MIN]  exit 2 unless V is an integer >= MIN (default 1)
#   bench_options SPEC QUICK ARG...  the script's options (see below)
#   bench_time LABEL SQL [BEFORE [AFTER]]  time SQL with pgbench (see below)
#   bench_cpu_fn_sql         SQL that creates bench_cpu_ms(), the backend's
#                            own CPU time (utime + stime) in ms
#   bench_build_install LOG  make and make install, output to LOG; on a
#                            failure, its tail and exit 1 (needs
#                            scripts/lib.sh)
#   bench_prepare BUILD      the dependencies (no LevelDB), WORK (a temporary
#                            directory), make and make install unless BUILD
#                            is empty, BINDIR, PSQL and psql_c / psql_file
#                            (a query / a script; unaligned, '|'-separated)
#   bench_machine_report LINE...  the "== Machine" block: date, the machine,
#                            PostgreSQL's version and the commit, then LINE...
#   bench_shared_buffers_mb EST MIN  the larger of EST and MIN (MB), with a
#                            warning when that is over 60% of the RAM
#
# Every figure these functions print comes from the machine at the time
# they run; nothing is hard-coded.

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
	awk -v a="$1" -v b="$2" 'BEGIN {if (b == 0) print "?"; else printf "%.2f", a / b}'
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

# shellcheck disable=SC2120 # bench_prepare passes none; keys_bench.sh some
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

bench_prepare() {
	# shellcheck disable=SC2119 # no --leveldb: the benchmarks need no LevelDB
	bench_ensure_deps
	bf_mktemp_dir WORK
	if [ -n "$1" ]; then
		bench_build_install "$WORK/build.log"
	else
		bf_log "--no-build: using the installed extension"
	fi
	BINDIR=$(bf_pg_bindir)
	PSQL=("$BINDIR/psql" -X -q -At -F '|' -v ON_ERROR_STOP=1)
	psql_c() { "${PSQL[@]}" -c "$1"; }
	psql_file() { "${PSQL[@]}" -f "$1"; }
}

bench_machine_report() {
	local line
	echo
	echo "== Machine"
	echo "date:        $(date -u '+%Y-%m-%d %H:%M UTC')"
	bench_machine
	echo "PostgreSQL:  $(psql_c "SELECT version()")"
	echo "extension:   bloomfilter at commit $(bench_git_rev "$REPO")"
	for line in "$@"; do
		echo "$line"
	done
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
	bf_log "configuring the cluster: shared_buffers = ${1}MB, jit off, serial plans; restarting"
	psql_c "ALTER SYSTEM SET shared_buffers = '${1}MB'" >/dev/null
	psql_c "ALTER SYSTEM SET jit = off" >/dev/null
	psql_c "ALTER SYSTEM SET max_parallel_workers_per_gather = 0" >/dev/null
	psql_c "ALTER SYSTEM SET autovacuum = off" >/dev/null
	psql_c "ALTER SYSTEM SET max_wal_size = '8GB'" >/dev/null
	psql_c "ALTER SYSTEM SET checkpoint_timeout = '1h'" >/dev/null
	bf_cluster_restart || exit 1
}

# bench_rounds QUERY...: REPS rounds of the queries, whose SQL is in the
# script's associative array Q_SQL (one row, its value named v).  Each round
# runs them in an order rotated by one more, so that none always runs
# first; bench_time runs each in a session of its own, untimed then timed,
# and "QUERY UNTIMED_ANSWER TIMED_ANSWER" goes to $WORK/answers.
bench_rounds() {
	local queries=("$@") nq=$# rep j q
	bf_log "timing: $REPS round(s)"
	: >"$WORK/times"
	: >"$WORK/answers"
	for ((rep = 1; rep <= REPS; rep++)); do
		for ((j = 0; j < nq; j++)); do
			q=${queries[$(((j + rep) % nq))]}
			bench_time "$q" "${Q_SQL[$q]} \gset" "${Q_SQL[$q]} \gset w_" "\\shell echo $q :w_v :v >> $WORK/answers"
		done
	done
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
