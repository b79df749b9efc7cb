# shellcheck shell=bash
#
# scripts/lib.sh -- shell functions shared by scripts/test.sh, the script
# tests under test/ and the benchmarks.  Source it; it does nothing by
# itself.  Tests that need more than one cluster or a restart are TAP
# tests (test/t/, PostgreSQL::Test::Cluster), not built on this.
#
#   bf_ensure_deps [--leveldb] [--robustness] [--bench]
#                                check (and as root install) Debian packages
#   bf_ensure_packages PKG...    the same for a list of packages
#   bf_make ARGS...              make with the PostgreSQL 15 pg_config
#   bf_make_install              make install (through sudo when not root)
#   bf_cluster_start             initdb + start a throw-away cluster, export PG*
#   bf_cluster_stop              stop it (also done by the exit trap)
#   bf_cluster_restart           restart it, e.g. after ALTER SYSTEM
#   bf_copy_tree DIR             the checkout's files, no build products, into DIR
#   bf_mktemp_dir                a temp dir removed by the exit trap
#   bf_at_exit CMD...            a command the exit trap runs first
#   bf_cluster_cpu               CPU seconds the cluster's server has used
#   bf_load_start N              N CPU-bound processes until the script exits
#
# Everything is safe under `set -euo pipefail`.  Functions report problems
# with a message on stderr and a non-zero return; they never kill anything
# by name, and stop only the cluster they started, by its data directory.

# The PostgreSQL major version the extension is built for: that of
# PG_CONFIG when it names a PostgreSQL of its own, else the host's (15).
if [ -z "${BF_PG_MAJOR:-}" ] && [ -n "${PG_CONFIG:-}" ]; then
	BF_PG_MAJOR=$("$PG_CONFIG" --version 2>/dev/null | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p') || true
fi
BF_PG_MAJOR=${BF_PG_MAJOR:-15}

bf_log() { printf '==> %s\n' "$*"; }
bf_warn() { printf 'WARNING: %s\n' "$*" >&2; }
bf_err() { printf 'ERROR: %s\n' "$*" >&2; }

bf_is_root() { [ "$(id -u)" -eq 0 ]; }

# ---- PostgreSQL binaries --------------------------------------------------

# pg_config of the wanted major version: Debian's /usr/bin/pg_config picks
# the newest server-dev installed, which may not be ours.
bf_pg_config() {
	if [ -n "${PG_CONFIG:-}" ]; then
		printf '%s\n' "$PG_CONFIG"
	elif [ -x "/usr/lib/postgresql/$BF_PG_MAJOR/bin/pg_config" ]; then
		printf '%s\n' "/usr/lib/postgresql/$BF_PG_MAJOR/bin/pg_config"
	else
		command -v pg_config || printf 'pg_config\n'
	fi
}

# The server binaries: PGBIN if set, else those of PG_CONFIG if set (a
# PostgreSQL built elsewhere, such as the benchmarks' kit), else the
# major's Debian ones.
bf_pg_bindir() {
	if [ -n "${PGBIN:-}" ]; then
		printf '%s\n' "$PGBIN"
	elif [ -n "${PG_CONFIG:-}" ]; then
		"$PG_CONFIG" --bindir
	elif [ -x "/usr/lib/postgresql/$BF_PG_MAJOR/bin/pg_ctl" ]; then
		printf '%s\n' "/usr/lib/postgresql/$BF_PG_MAJOR/bin"
	else
		"$(bf_pg_config)" --bindir
	fi
}

bf_make() {
	make PG_CONFIG="$(bf_pg_config)" "$@"
}

# make install needs root for Debian's directories.
bf_make_install() {
	if bf_is_root; then
		bf_make install
	elif command -v sudo >/dev/null 2>&1; then
		bf_log "not root: running make install through sudo"
		sudo make PG_CONFIG="$(bf_pg_config)" install
	else
		bf_err "make install needs root (and sudo is not available)"
		return 1
	fi
}

# ---- dependencies ---------------------------------------------------------

bf_pkg_installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# bf_ensure_deps [--leveldb] [--robustness] [--bench] [--outside]
bf_ensure_deps() {
	# libipc-run-perl: PostgreSQL::Test::Cluster, which test/tap.sh runs
	local pkgs=("postgresql-$BF_PG_MAJOR" "postgresql-server-dev-$BF_PG_MAJOR"
		build-essential gcc make g++ libipc-run-perl)
	local arg
	for arg in "$@"; do
		case $arg in
		--leveldb) pkgs+=(libleveldb-dev) ;;
		# the sanitizer and fuzz builds (clang, its runtimes) and sqlsmith
		--robustness) pkgs+=(clang libclang-rt-dev sqlsmith) ;;
		# bench/run.sh: the HyperLogLog extension it compares bloom_agg with
		--bench) pkgs+=("postgresql-$BF_PG_MAJOR-hll") ;;
		# libbloomfilter's install test, the tool's manual page (groff renders it in
		# the tool's test) and the Python module's build and pip install
		--outside) pkgs+=(pkg-config groff-base python3-dev python3-setuptools python3-venv python3-pip python3-wheel) ;;
		*)
			bf_err "bf_ensure_deps: unknown argument $arg"
			return 2
			;;
		esac
	done

	bf_ensure_packages "${pkgs[@]}"
}

# bf_ensure_packages PKG...: check for Debian packages; as root install the
# missing ones, otherwise print the command that would.
bf_ensure_packages() {
	local pkgs=("$@")
	if ! command -v dpkg-query >/dev/null 2>&1; then
		bf_warn "dpkg-query not found (not Debian?): not checking for ${pkgs[*]}"
		return 0
	fi

	local missing=() pkg
	for pkg in "${pkgs[@]}"; do
		bf_pkg_installed "$pkg" || missing+=("$pkg")
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		bf_log "dependencies present: ${pkgs[*]}"
		return 0
	fi

	if ! bf_is_root; then
		bf_err "missing Debian packages: ${missing[*]}"
		printf 'Install them with:\n\n    sudo apt-get install -y %s\n\n' "${missing[*]}" >&2
		return 1
	fi

	bf_log "installing missing packages: ${missing[*]}"
	apt-get update || {
		bf_err "apt-get update failed"
		return 1
	}
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" || {
		bf_err "apt-get install -y ${missing[*]} failed"
		return 1
	}
	for pkg in "${missing[@]}"; do
		if ! bf_pkg_installed "$pkg"; then
			bf_err "package $pkg still not installed"
			return 1
		fi
	done
}

# ---- clean-up on exit -----------------------------------------------------

BF_TMP_DIRS=()
BF_TRAPS_SET=
BF_CLUSTER_DIR=
BF_PGDATA=
BF_PGLOG=
BF_CLUSTER_OWNER=
BF_AT_EXIT=()

# bf_at_exit CMD...: run CMD (one word a function or command, each argument
# a word) when the script exits or is interrupted, before the cluster stops
# and the temp dirs go: for what a script must undo whatever happens, such
# as a library it put in place of the installed one.
bf_at_exit() {
	bf__set_traps
	BF_AT_EXIT+=("$(printf '%q ' "$@")")
}

bf__cleanup() {
	local d cmd kept=()
	for cmd in "${BF_AT_EXIT[@]+"${BF_AT_EXIT[@]}"}"; do
		eval "$cmd" || bf_warn "at exit: $cmd failed"
	done
	BF_AT_EXIT=()
	if ! bf_cluster_stop; then
		# Never delete the files of a server that may still be running.
		kept+=("$BF_CLUSTER_DIR")
		bf_warn "leaving $BF_CLUSTER_DIR in place"
	fi
	for d in "${BF_TMP_DIRS[@]+"${BF_TMP_DIRS[@]}"}"; do
		if [ -n "$d" ] && [ -d "$d" ] && [[ " ${kept[*]-} " != *" $d "* ]]; then
			rm -rf -- "$d"
		fi
	done
	BF_TMP_DIRS=()
}

bf__on_exit() {
	local rc=$?
	bf__cleanup
	exit "$rc"
}

bf__on_signal() {
	trap - INT TERM HUP
	printf '\ninterrupted: cleaning up\n' >&2
	bf__cleanup
	exit "$1"
}

bf__set_traps() {
	[ -n "$BF_TRAPS_SET" ] && return 0
	trap bf__on_exit EXIT
	trap 'bf__on_signal 130' INT
	trap 'bf__on_signal 143' TERM
	trap 'bf__on_signal 129' HUP
	BF_TRAPS_SET=1
}

# bf_copy_tree DIR: the files of the checkout in the current directory
# (tracked, and untracked but not ignored) into DIR, without build
# products: a tree to build in apart from this one's objects.
bf_copy_tree() {
	local dest=$1
	mkdir -p "$dest"
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -xf - -C "$dest"
}

# bf_mktemp_dir VAR: make a fresh directory, removed when the script exits,
# and store its path in VAR.  (Not  VAR=$(...): the registration for
# removal would then happen in a subshell and be lost.)
bf_mktemp_dir() {
	local __var=$1 __dir
	bf__set_traps
	__dir=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter.XXXXXX") || return 1
	BF_TMP_DIRS+=("$__dir")
	printf -v "$__var" '%s' "$__dir"
}

# ---- throw-away cluster ---------------------------------------------------

# Run a command as the owner of the cluster (postgres when we are root).
bf__as_owner() {
	if [ -n "$BF_CLUSTER_OWNER" ]; then
		(cd / && runuser -u "$BF_CLUSTER_OWNER" -- "$@")
	else
		"$@"
	fi
}

bf__port_free() {
	local port=$1
	if command -v ss >/dev/null 2>&1; then
		# Any TCP listener on the port, or a unix socket of that port number.
		if [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; then
			return 1
		fi
		if ss -Hlx 2>/dev/null | grep -q "\.s\.PGSQL\.$port\b"; then
			return 1
		fi
		return 0
	fi
	# No ss: try to connect; a refused connection means free.
	! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

bf__pick_port() {
	local try port
	for try in $(seq 1 100); do
		port=$((54000 + RANDOM % 1000))
		if bf__port_free "$port"; then
			printf '%s\n' "$port"
			return 0
		fi
		: "$try"
	done
	bf_err "no free port found in 54000-54999"
	return 1
}

# bf__cluster_make: initdb and start a throw-away cluster in a new
# directory; sets BF__NEW_DIR (registered for removal), BF__NEW_SOCK and
# BF__NEW_PORT.  The caller records the data directory for stopping.
bf__cluster_make() {
	local bindir base dir data log sock port
	bindir=$(bf_pg_bindir) || return 1
	if [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/pg_ctl" ]; then
		bf_err "initdb/pg_ctl not found in $bindir (is postgresql-$BF_PG_MAJOR installed?)"
		return 1
	fi
	bf__set_traps

	# Keep the socket path short: sun_path holds 107 bytes.
	base=${TMPDIR:-/tmp}
	[ "${#base}" -gt 60 ] && base=/tmp
	dir=$(mktemp -d "$base/bloomfilter-pg.XXXXXX") || return 1
	BF_TMP_DIRS+=("$dir")
	data=$dir/data
	log=$dir/server.log
	sock=$dir/socket

	BF_CLUSTER_OWNER=
	if bf_is_root; then
		if ! id postgres >/dev/null 2>&1; then
			bf_err "running as root but there is no 'postgres' user to run the server"
			return 1
		fi
		BF_CLUSTER_OWNER=postgres
		chown postgres: "$dir" || return 1
	fi
	chmod 700 "$dir" || return 1
	bf__as_owner mkdir -m 700 "$sock" || return 1

	bf_log "initdb into $data${BF_CLUSTER_OWNER:+ (as $BF_CLUSTER_OWNER)}"
	if ! bf__as_owner "$bindir/initdb" -D "$data" -A trust -U postgres \
		--no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
		bf_err "initdb failed:"
		cat "$dir/initdb.log" >&2
		return 1
	fi

	port=$(bf__pick_port) || return 1
	bf__as_owner tee -a "$data/postgresql.conf" >/dev/null <<EOF || return 1

# ---- throw-away test cluster (scripts/lib.sh) ----
listen_addresses = ''
port = $port
unix_socket_directories = '$sock'
unix_socket_permissions = 0700
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 30
EOF

	bf_log "starting server on port $port, socket in $sock"
	bf_log "server log: $log"
	if ! bf__as_owner "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 120 start >/dev/null; then
		bf_err "server failed to start; last lines of $log:"
		tail -n 40 "$log" >&2 || true
		return 1
	fi

	BF__NEW_DIR=$dir
	BF__NEW_SOCK=$sock
	BF__NEW_PORT=$port
}

# Start a throw-away cluster; on success exports PGHOST PGPORT PGUSER
# PGDATABASE and sets BF_PGDATA / BF_PGLOG.  The exit trap stops it and
# removes its directory.
bf_cluster_start() {
	local bindir
	bindir=$(bf_pg_bindir) || return 1
	bf__cluster_make || return 1
	BF_CLUSTER_DIR=$BF__NEW_DIR
	BF_PGDATA=$BF_CLUSTER_DIR/data
	BF_PGLOG=$BF_CLUSTER_DIR/server.log

	export PGHOST=$BF__NEW_SOCK PGPORT=$BF__NEW_PORT PGUSER=postgres PGDATABASE=postgres
	unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGPASSWORD PGOPTIONS PGREQUIRESSL PGSSLMODE
	if ! "$bindir/psql" -X -q -At -c 'SELECT 1' >/dev/null; then
		bf_err "server started but psql cannot connect; last lines of $BF_PGLOG:"
		tail -n 40 "$BF_PGLOG" >&2 || true
		return 1
	fi
	bf_log "cluster up: PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER"
}

# Restart the cluster this shell started (after ALTER SYSTEM).
bf_cluster_restart() {
	local bindir
	[ -n "$BF_PGDATA" ] || {
		bf_err "bf_cluster_restart: no cluster started"
		return 1
	}
	bindir=$(bf_pg_bindir) || return 1
	if ! bf__as_owner "$bindir/pg_ctl" -D "$BF_PGDATA" -l "$BF_PGLOG" -w -t 120 restart >/dev/null; then
		bf_err "restart failed; last lines of $BF_PGLOG:"
		tail -n 40 "$BF_PGLOG" >&2 || true
		return 1
	fi
}

# bf__stop_data DATA: stop the server of that data directory, if running.
bf__stop_data() {
	local bindir data=$1
	[ -f "$data/postmaster.pid" ] || return 0
	bindir=$(bf_pg_bindir) || return 1
	bf_log "stopping cluster $data"
	if ! bf__as_owner "$bindir/pg_ctl" -D "$data" stop -m fast -w -t 60 >/dev/null; then
		bf_warn "fast stop failed; trying immediate stop"
		bf__as_owner "$bindir/pg_ctl" -D "$data" stop -m immediate -w -t 60 >/dev/null || {
			bf_err "could not stop the cluster in $data"
			return 1
		}
	fi
}

bf_cluster_stop() {
	[ -n "$BF_PGDATA" ] || return 0
	local data=$BF_PGDATA
	BF_PGDATA=
	bf__stop_data "$data"
}

# bf_cluster_cpu: the CPU seconds (user and system, one decimal) that the
# running cluster's postmaster and its exited backends have used; the
# server is a daemon, so a shell's `times` never counts it.
bf_cluster_cpu() {
	local pid stat ticks hz
	[ -n "$BF_PGDATA" ] && [ -r "$BF_PGDATA/postmaster.pid" ] || return 1
	read -r pid <"$BF_PGDATA/postmaster.pid" || return 1
	stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
	# After the command's name in parentheses, from field 3 on: utime,
	# stime, cutime and cstime are fields 14 to 17.
	read -r -a stat <<<"${stat##*) }"
	ticks=$((stat[11] + stat[12] + stat[13] + stat[14]))
	hz=$(getconf CLK_TCK)
	printf '%d.%d\n' $((ticks / hz)) $((ticks * 10 / hz % 10))
}

# ---- load beside a run ------------------------------------------------------

# bf_load_start N: start N CPU-bound processes (shell loops, no I/O) that
# last until this script exits: the exit trap stops them by their process
# ids, and each also ends by itself within a fraction of a second once
# this shell is gone (killed beyond trapping, say).  For running a suite
# on a machine as busy as a shared one.
bf_load_start() {
	local n=$1 i pids=() parent=$$
	case $n in '' | *[!0-9]*)
		bf_err "bf_load_start: N must be a number, not '$n'"
		return 2
		;;
	esac
	for ((i = 0; i < n; i++)); do
		(
			trap - EXIT INT TERM HUP
			while kill -0 "$parent" 2>/dev/null; do
				for ((j = 0; j < 200000; j++)); do :; done
			done
		) </dev/null >/dev/null 2>&1 &
		pids+=("$!")
	done
	[ "${#pids[@]}" -eq 0 ] && return 0
	bf_at_exit bf__load_stop "${pids[@]}"
	bf_log "load: $n CPU-bound process(es) beside the run: ${pids[*]}"
}

bf__load_stop() {
	local pid
	for pid in "$@"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "$@"; do
		wait "$pid" 2>/dev/null || true
	done
}

# ---- a run of suites: stages, counts, the summary ------------------------------
#
# What scripts/test.sh and test/robustness.sh share:
#   bf_stage TITLE...            a stage's header; its wall time is kept
#   bf_stage_retitle TITLE...    the running stage's title in the times
#   bf_stage_times [NOTE]        the wall seconds of every stage so far and
#                                the CPU time of the script (NOTE: more, such
#                                as a server's CPU time, on that line)
#   bf_record NAME PASSED FAILED [NOTE]  a suite's counts (also appended to
#                                the file BF_RECORDS names, when set)
#   bf_run_logged LOG CMD...     CMD's output shown and kept in LOG, within
#                                BF_STAGE_TIMEOUT seconds when set
#   bf_record_counted NAME LABEL RC LOG [NOTE]  a suite from the last
#                                "LABEL: N passed, N failed" of LOG
#   bf_run_suite [--note NOTE] NAME LABEL LOG CMD...  both
#   bf_summary_table TITLE       the table of the suites; sets
#                                BF_TOTAL_PASSED and BF_TOTAL_FAILED
# A suite that printed no count, or exited non-zero without counting a
# failure, counts as 1 failed.

BF_SUITE_NAMES=()
BF_SUITE_PASS=()
BF_SUITE_FAIL=()
BF_SUITE_NOTES=()
BF_STAGE_TITLES=()
BF_STAGE_TENTHS=()
BF_STAGE_CURRENT=
BF_STAGE_START=
BF_RUN_START=${EPOCHREALTIME//[!0-9]/}

# microseconds since the epoch
bf__now_us() { printf '%s\n' "${EPOCHREALTIME//[!0-9]/}"; }
bf__tenths() { printf '%d.%d' $(($1 / 10)) $(($1 % 10)); }

# The stage that was running ends (at the next stage, or at the summary).
bf__stage_end() {
	[ -n "$BF_STAGE_CURRENT" ] || return 0
	BF_STAGE_TITLES+=("$BF_STAGE_CURRENT")
	BF_STAGE_TENTHS+=("$((($(bf__now_us) - BF_STAGE_START) / 100000))")
	BF_STAGE_CURRENT=
}

bf_stage() {
	bf__stage_end
	BF_STAGE_CURRENT=$*
	BF_STAGE_START=$(bf__now_us)
	echo
	echo "######## $* ########"
}

# bf_stage_retitle TITLE...: the running stage's title in the stage times.
bf_stage_retitle() { BF_STAGE_CURRENT=$*; }

# The CPU seconds are the shell's `times`: this script and what it waited
# for (compilers, tests, clients), never a server, which is a daemon.
bf_stage_times() {
	local i title total=$((($(bf__now_us) - BF_RUN_START) / 100000)) times
	bf__stage_end
	echo "stage times (wall seconds; the whole run $(bf__tenths "$total") s):"
	for i in "${!BF_STAGE_TITLES[@]}"; do
		title=${BF_STAGE_TITLES[$i]%% (replay:*}
		printf '  %7s  %s\n' "$(bf__tenths "${BF_STAGE_TENTHS[$i]}")" "${title:0:100}"
	done
	# `times` in this shell, not in a subshell, whose times start at nought:
	# "XmY.ZZZs XmY.ZZZs" (user, system), the shell's line then its children's
	times=$(mktemp) || return 1
	times >"$times"
	LC_ALL=C awk -v more="${1:-}" '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t[i] += a[1] * 60 + a[2] } }
		END { printf "CPU time: this script and what it ran %.1f s user + %.1f s system%s\n", t[1], t[2], more }' "$times"
	rm -f -- "$times"
}

bf_record() {
	BF_SUITE_NAMES+=("$1")
	BF_SUITE_PASS+=("$2")
	BF_SUITE_FAIL+=("$3")
	BF_SUITE_NOTES+=("${4:-}")
	if [ -n "${BF_RECORDS:-}" ]; then
		printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$BF_RECORDS"
	fi
}

bf_run_logged() {
	local log=$1
	shift
	if [ -n "${BF_STAGE_TIMEOUT:-}" ]; then
		timeout -k 30 "$BF_STAGE_TIMEOUT" "$@" 2>&1 | tee "$log"
	else
		"$@" 2>&1 | tee "$log"
	fi
	return "${PIPESTATUS[0]}"
}

# bf_last_count LABEL LOG: "P F" from the last "LABEL: P passed, F failed".
bf_last_count() {
	local line
	line=$(grep -E "^[[:space:]]*$1: [0-9]+ passed, [0-9]+ failed" "$2" | tail -n 1 || true)
	[ -n "$line" ] || return 1
	sed -E 's/^[[:space:]]*[^:]+: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$line"
}

# bf_crash_note RC MESSAGE: what a suite's exit status RC adds to MESSAGE.
bf_crash_note() {
	case $1 in
	124) echo "TIMED OUT after ${BF_STAGE_TIMEOUT:-?}s;" ;;
	0) echo "$2;" ;;
	*) echo "$2 (exit $1);" ;;
	esac
}

bf_record_counted() {
	local name=$1 label=$2 rc=$3 log=$4 note=${5:-} counts p f
	if ! counts=$(bf_last_count "$label" "$log"); then
		bf_record "$name" 0 1 "$(bf_crash_note "$rc" "printed no '$label: N passed, N failed'") $note"
		return
	fi
	read -r p f <<<"$counts"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		bf_record "$name" "$p" 1 "$(bf_crash_note "$rc" "exited $rc although it counted no failure") $note"
	elif [ $((p + f)) -eq 0 ]; then
		bf_record "$name" 0 1 "ran no tests $note"
	else
		bf_record "$name" "$p" "$f" "$note"
	fi
}

bf_run_suite() {
	local note='' name label log rc=0
	if [ "$1" = --note ]; then
		note=$2
		shift 2
	fi
	name=$1 label=$2 log=$3
	shift 3
	bf_run_logged "$log" "$@" || rc=$?
	bf_record_counted "$name" "$label" "$rc" "$log" "$note"
}

bf_summary_table() {
	local i skipped=0
	BF_TOTAL_PASSED=0
	BF_TOTAL_FAILED=0
	echo
	echo "==================== $1 ===================="
	for i in "${!BF_SUITE_NAMES[@]}"; do
		printf '  %-34s %6d passed %6d failed  %s\n' "${BF_SUITE_NAMES[$i]}" \
			"${BF_SUITE_PASS[$i]}" "${BF_SUITE_FAIL[$i]}" "${BF_SUITE_NOTES[$i]}"
		BF_TOTAL_PASSED=$((BF_TOTAL_PASSED + BF_SUITE_PASS[i]))
		BF_TOTAL_FAILED=$((BF_TOTAL_FAILED + BF_SUITE_FAIL[i]))
		[[ ${BF_SUITE_NOTES[$i]} == SKIPPED* ]] && skipped=$((skipped + 1))
	done
	echo "=================================================="
	if [ "$skipped" -gt 0 ]; then
		echo "($skipped suite(s) skipped: see SKIPPED above)"
	fi
}

# ---- a test script's command line ------------------------------------------------

# bf_options SPEC ARG...: a test script's options ARG... into its
# variables.  SPEC is words
#   --opt:VAR         --opt N sets VAR to N, a whole number
#   --opt:VAR:word    --opt W sets VAR to W
#   --opt:VAR:more    --opt W adds W to VAR (space-separated; repeatable)
#   --opt:VAR=VALUE   the flag --opt sets VAR to VALUE
# with the value as the next argument or after "=".  -h/--help prints the
# script's head comment; anything else, or a value that is not a whole
# number where one is wanted, is a message and exit 2.  bf_option_given
# VAR then says whether an option set VAR.
BF_OPTIONS_GIVEN=' '
bf_options() {
	local spec=" ${1//[$'\n\t']/ } " me=${0##*/} arg opt word var kind val
	shift
	while [ $# -gt 0 ]; do
		arg=$1
		shift
		case $arg in -h | --help)
			sed -n '3,${/^#/!q;s/^# \{0,1\}//;p}' "$0"
			exit 0
			;;
		esac
		opt=${arg%%=*}
		word=${spec#*" $opt:"}
		word=${word%% *}
		if [[ $opt != --?* || $spec != *" $opt:"* || ($word == *=* && $arg != "$opt") ]]; then
			printf '%s: unknown argument %s (see --help)\n' "$me" "$arg" >&2
			exit 2
		fi
		if [[ $word == *=* ]]; then
			printf -v "${word%%=*}" '%s' "${word#*=}"
			continue
		fi
		if [ "$arg" != "$opt" ]; then
			val=${arg#*=}
		elif [ $# -gt 0 ]; then
			val=$1
			shift
		else
			printf '%s: %s needs a value\n' "$me" "$opt" >&2
			exit 2
		fi
		var=${word%%:*}
		kind=${word#"$var"}
		case $kind in
		'')
			case $val in '' | *[!0-9]*)
				printf '%s: %s takes a whole number, not "%s"\n' "$me" "$opt" "$val" >&2
				exit 2
				;;
			esac
			;;
		:more) val="${!var:-} $val" ;;
		esac
		printf -v "$var" '%s' "$val"
		BF_OPTIONS_GIVEN+="$var "
	done
}

bf_option_given() { [[ $BF_OPTIONS_GIVEN == *" $1 "* ]]; }

# A seed for a random run, from /dev/urandom: 1 to 2^31 - 1.
bf_random_seed() {
	echo $(($(od -An -N4 -tu4 /dev/urandom | tr -d ' \n') % 2147483647 + 1))
}
