#!/usr/bin/env bash
#
# scripts/test.sh -- build the extension and run every test suite, on
# throw-away PostgreSQL clusters.  CI runs `scripts/test.sh --pg all`
# (.ci/run).
#
#   scripts/test.sh --quick      before sending a change (at most 3 minutes
#                                on 2 cores): build, exported symbols, unit
#                                tests, make leveldbtest, make installcheck
#                                and the test vectors through SQL
#   scripts/test.sh              the host's PostgreSQL (15) only
#   scripts/test.sh --pg 17      PostgreSQL 17 only, in a Debian chroot
#   scripts/test.sh --pg 13,18   several majors
#   scripts/test.sh --pg all     13, 15, 17, 18 and 19, the .deb packages,
#                                and filters dumped by each major and
#                                restored by every newer one
#   scripts/test.sh --load 2 ... the same with 2 CPU-bound processes beside
#                                it for the whole run (stopped on exit)
#
# The host's suite: deps -> make (warnings are errors) -> make install ->
# exported symbols -> make unittest (also under ASan+UBSan, and on s390x
# under qemu, beside the stages after it) -> fuzz smoke -> make leveldbtest -> cluster -> make
# installcheck -> the documentation's SQL and links -> test/sql_diff.sh on
# the test vectors and on a fresh random LevelDB export ->
# test/sql_diff_typed.sh on fresh typed keys -> scale-diff -> the TAP tests
# (test/t: dump/restore, the upgrade chain, postgres_fdw, Citus, cancel,
# concurrency, the hand-off with too little shared memory, ...) -> sqlsmith
# -> memory -> bench smoke -> PGXN metadata.
#
# Another major's suite runs in a chroot of the Debian suite that carries it
# (scripts/majors.sh; 19, a release candidate, is only in experimental: sid
# with PostgreSQL's packages from there): build (warnings are errors),
# install, exported symbols, make unittest, installcheck, sql_diff.sh on
# the same vectors and random export, and the TAP tests (test/t/*.pl:
# dump/restore, the upgrade chain, postgres_fdw, Citus, skipped where Citus
# has no release for the major, and pg_upgrade from the major before where
# the chroot carries it: 18 to 19).  A suite the mirror no longer
# carries is reported as skipped, never as passed.
#
# Every suite's "N passed, N failed" is collected; a suite that crashes or
# prints no count counts as 1 failed.  After the summary come the wall
# seconds of every stage (inside a chroot, of that major's stages, in its
# log) and the CPU time spent; the last line is
#   tests: N passed, N failed
# and the exit status is non-zero when anything failed.
#
# Environment:
#   BLOOM_TEST_SEED       seed of the random LevelDB exports (default: new each run)
#   BLOOM_STAGE_TIMEOUT   seconds any one stage may take (default 1200)
#   PG_CONFIG             the host's PostgreSQL: built with, installed into and
#                         run from its bindir (default the major's own, Debian's)
#   BF_CHROOT_CACHE       where the chroots are kept (default /var/tmp/bloomfilter-chroots)

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=scripts/majors.sh
. scripts/majors.sh

# --pg LIST: the majors to test; --inside: this is the part of another
# major's suite that runs inside its chroot (records go to BF_RECORDS).
MAJORS=()
INSIDE=
PACKAGES=
QUICK=
LOAD=0
# --opt=VALUE as --opt VALUE
args=()
for arg in "$@"; do
	case $arg in
	--*=*) args+=("${arg%%=*}" "${arg#*=}") ;;
	*) args+=("$arg") ;;
	esac
done
set -- "${args[@]}"
# needs_value ARGC MESSAGE: an option's value must follow it
needs_value() {
	[ "$1" -ge 2 ] && return 0
	bf_err "$2"
	exit 2
}
while [ "$#" -gt 0 ]; do
	case $1 in
	--pg)
		needs_value "$#" "--pg needs a list of majors, or all"
		list=$2
		shift
		[ "$list" = all ] && list=${BF_MAJORS_TESTED[*]}
		PACKAGES=1
		for m in ${list//,/ }; do
			bf_major_suite "$m" >/dev/null || {
				bf_err "PostgreSQL $m is not a major this project is tested on (${BF_MAJORS_TESTED[*]})"
				exit 2
			}
			MAJORS+=("$m")
		done
		;;
	--inside) INSIDE=1 ;;
	--quick) QUICK=1 ;;
	--load)
		needs_value "$#" "--load needs a number of processes"
		LOAD=$2
		shift
		case $LOAD in '' | *[!0-9]*)
			bf_err "--load needs a number of processes, not '$LOAD'"
			exit 2
			;;
		esac
		;;
	*)
		bf_err "unknown argument $1 (see the head of scripts/test.sh)"
		exit 2
		;;
	esac
	shift
done
if [ -n "$QUICK" ] && [ "${#MAJORS[@]}" -gt 0 ]; then
	bf_err "--quick is the host's quick check; it takes no --pg"
	exit 2
fi
[ "${#MAJORS[@]}" -gt 0 ] || MAJORS=("$BF_PG_MAJOR")

STAGE_TIMEOUT=${BLOOM_STAGE_TIMEOUT:-1200}
case $STAGE_TIMEOUT in '' | *[!0-9]*)
	bf_err "BLOOM_STAGE_TIMEOUT must be a number of seconds"
	exit 2
	;;
esac

LOGDIR=
bf_mktemp_dir LOGDIR

# make, with the major's pg_config (an array, so timeout can run it)
MAKE=(make "PG_CONFIG=$(bf_pg_config)")

# ---- bookkeeping ----------------------------------------------------------

# The suites' counts, the stages and their times: scripts/lib.sh (bf_record,
# bf_stage, bf_run_suite, ...); BF_RECORDS, set inside a chroot, is where
# the host reads that major's records.
BF_STAGE_TIMEOUT=$STAGE_TIMEOUT
record() { bf_record "$@"; }
stage() { bf_stage "$@"; }
run_suite() { bf_run_suite "$@"; }

summary() {
	local more=
	bf_summary_table summary
	[ -z "$SERVER_CPU" ] || more="; the throw-away cluster's server $SERVER_CPU s"
	[ "$LOAD" -eq 0 ] || more="$more; $LOAD CPU-bound processes beside the run"
	bf_stage_times "$more"
	# Inside a chroot this is one part of the run: the host prints the total.
	if [ -n "$INSIDE" ]; then
		echo "PostgreSQL $BF_PG_MAJOR in its chroot: $BF_TOTAL_PASSED passed, $BF_TOTAL_FAILED failed"
	else
		echo "tests: $BF_TOTAL_PASSED passed, $BF_TOTAL_FAILED failed"
	fi
	[ "$BF_TOTAL_FAILED" -eq 0 ]
}
SERVER_CPU=

# Stop here (after a failed build step): summary, then exit 1.
finish_early() {
	summary || true
	exit 1
}

# run_skippable NAME LABEL LOG CMD...: run_suite for a suite that may not
# be able to run here: its exit status 77, after a line "LABEL: skipped
# (why)", records NAME as skipped, and why.
run_skippable() {
	local name=$1 label=$2 log=$3 rc=0 why
	shift 3
	bf_run_logged "$log" "$@" || rc=$?
	if [ "$rc" -eq 77 ]; then
		why=$(sed -n "s/^$label: skipped (\\(.*\\))\$/\\1/p" "$log" | tail -n 1)
		record "$name" 0 0 "SKIPPED: ${why:-see ${log##*/}}"
	else
		bf_record_counted "$name" "$label" "$rc" "$log"
	fi
}

# cluster_suite NAME LABEL LOG CMD...: run_suite, or a failure of NAME
# when the cluster did not start.
cluster_suite() {
	if [ -z "$cluster_ok" ]; then
		record "$1" 0 1 "not run: no cluster"
	else
		run_suite "$@"
	fi
}

# ---- stages shared by every major ------------------------------------------

# Each returns non-zero when the suite cannot go on (nothing built or
# installed); the failure is recorded either way.

stage_build() {
	local build_log=$LOGDIR/build.log rc=0 warnings
	stage "build (PostgreSQL $BF_PG_MAJOR)"
	bf_log "PostgreSQL: $(bf_pg_config), installed into its directories, servers from $(bf_pg_bindir)"
	# Rebuild everything, so that every warning shows.
	"${MAKE[@]}" clean >/dev/null 2>&1 || true
	bf_run_logged "$build_log" "${MAKE[@]}" COPT=-Werror || rc=$?
	# Any warning counts, also from tools -Werror does not reach (clang's bitcode).
	warnings=$(grep -E 'warning:' "$build_log" | grep -Ev '^make(\[[0-9]+\])?: ' || true)
	if [ "$rc" -ne 0 ]; then
		record "build" 0 1 "FAILED (exit $rc; compiler warnings are errors)"
		return 1
	elif [ -n "$warnings" ]; then
		echo "build printed warnings:"
		printf '%s\n' "$warnings"
		record "build" 0 1 "FAILED: compiler warnings"
		return 1
	fi
	record "build" 1 0 "$("$(bf_pg_config)" --version), no warning"
}

stage_install() {
	stage "install"
	if ! bf_make_install >"$LOGDIR/install.log" 2>&1; then
		cat "$LOGDIR/install.log"
		record "install" 0 1 "FAILED"
		return 1
	fi
	tail -n 3 "$LOGDIR/install.log"
}

stage_exports() {
	stage "exported symbols (test/exports_test.sh)"
	run_suite "exports" exports "$LOGDIR/exports.log" test/exports_test.sh
}

stage_unit() {
	stage "unit tests (make unittest)"
	run_suite "unit" unit "$LOGDIR/unit.log" "${MAKE[@]}" unittest
}

stage_cluster() {
	stage "throw-away cluster"
	cluster_ok=1
	if ! bf_cluster_start; then
		cluster_ok=
		record "cluster" 0 1 "FAILED to start"
	fi
}

# Sets REG_P REG_F REG_NOTE from pg_regress's closing line; returns 1 if none.
parse_pg_regress() {
	local log=$1 line n t i
	REG_NOTE=
	line=$(grep -E '^ *(All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests (passed|failed))|^# (All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests failed)' "$log" | tail -n 1 || true)
	if [[ $line =~ All\ ([0-9]+)\ tests\ passed ]]; then
		REG_P=${BASH_REMATCH[1]}
		REG_F=0
	elif [[ $line =~ ([0-9]+)\ of\ ([0-9]+)\ tests\ passed,\ ([0-9]+)\ failed ]]; then
		REG_P=${BASH_REMATCH[1]}
		REG_F=0
		REG_NOTE="${BASH_REMATCH[3]} failure(s) ignored"
	elif [[ $line =~ ([0-9]+)\ of\ ([0-9]+)\ tests\ failed,\ ([0-9]+)\ of\ these ]]; then
		n=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]} i=${BASH_REMATCH[3]}
		REG_P=$((t - n))
		REG_F=$((n - i))
		REG_NOTE="$i failure(s) ignored"
	elif [[ $line =~ ([0-9]+)\ of\ ([0-9]+)\ tests\ failed ]]; then
		n=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]}
		REG_P=$((t - n))
		REG_F=$n
	else
		return 1
	fi
}

stage_regress() {
	local rc=0
	stage "regression tests (make installcheck)"
	if [ -z "$cluster_ok" ]; then
		record "regression" 0 1 "not run: no cluster"
		return 0
	fi
	rm -f regression.diffs regression.out
	bf_run_logged "$LOGDIR/regress.log" "${MAKE[@]}" installcheck || rc=$?
	if parse_pg_regress "$LOGDIR/regress.log"; then
		if [ "$rc" -ne 0 ] && [ "$REG_F" -eq 0 ]; then
			record "regression" "$REG_P" 1 "$(bf_crash_note "$rc" "installcheck failed") $REG_NOTE"
		elif [ $((REG_P + REG_F)) -eq 0 ]; then
			record "regression" 0 1 "ran no tests $REG_NOTE"
		else
			record "regression" "$REG_P" "$REG_F" "$REG_NOTE"
		fi
	else
		record "regression" 0 1 "$(bf_crash_note "$rc" "pg_regress printed no result")"
	fi
	if [ -s regression.diffs ]; then
		echo "---- regression.diffs (first 400 lines; full file: $ROOT/regression.diffs) ----"
		head -n 400 regression.diffs
		echo "---- end of regression.diffs ----"
	fi
}

# The test vectors as SQL-diff input (test/unit/vectors2tsv, core only).
stage_sqldiff_vectors() {
	local vec_out=$LOGDIR/vectors rc=0
	stage "sql-diff: test vectors (test/data/vectors)"
	if [ -z "$cluster_ok" ]; then
		record "sql-diff vectors" 0 1 "not run: no cluster"
		return 0
	fi
	mkdir -p "$vec_out"
	bf_run_logged "$LOGDIR/vectors2tsv.log" "${MAKE[@]}" test/unit/vectors2tsv || rc=$?
	if [ "$rc" -eq 0 ]; then
		bf_run_logged "$LOGDIR/vectors2tsv-run.log" test/unit/vectors2tsv test/data/vectors "$vec_out" || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		record "sql-diff vectors" 0 1 "$(bf_crash_note "$rc" "export with test/unit/vectors2tsv failed")"
	else
		run_suite "sql-diff vectors" sql-diff "$LOGDIR/sqldiff-vectors.log" test/sql_diff.sh "$vec_out"
	fi
}

# make_random_export DIR: fresh random cases from libleveldb (the oracle is
# the host's libleveldb; other majors get the same cases).  Sets SEED.
make_random_export() {
	SEED=${BLOOM_TEST_SEED:-}
	[ -n "$SEED" ] || SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')
	case $SEED in '' | *[!0-9]*)
		bf_warn "BLOOM_TEST_SEED '$SEED' is not a number"
		;;
	esac
	leveldb_export export-sql "$1" "$SEED"
}

# make_typed_export DIR SEED: typed and multi-column keys from libleveldb,
# over bytes the test encodes itself, for the same seed.
make_typed_export() {
	leveldb_export export-typed-sql "$1" "$2"
}

# leveldb_export COMMAND DIR SEED: test/leveldb/leveldb_diff COMMAND into DIR.
leveldb_export() {
	local command=$1 out=$2 seed=$3 rc=0
	mkdir -p "$out"
	bf_run_logged "$LOGDIR/$command-build.log" "${MAKE[@]}" test/leveldb/leveldb_diff || rc=$?
	if [ "$rc" -eq 0 ]; then
		bf_run_logged "$LOGDIR/$command.log" test/leveldb/leveldb_diff "$command" "$out" --seed "$seed" || rc=$?
	fi
	return "$rc"
}

# stage_sqldiff_random DIR SEED: the export in DIR through bloom_agg and <~.
stage_sqldiff_random() {
	stage_sqldiff_export "random LevelDB export" "sql-diff leveldb-random" sql-diff \
		test/sql_diff.sh export-sql "$@"
}

# stage_sqldiff_typed DIR SEED: the typed export in DIR through bloom_agg,
# bloom_key, bloom_add and <~ at each key type.
stage_sqldiff_typed() {
	stage_sqldiff_export "typed and multi-column keys against LevelDB" "sql-diff typed keys" \
		sql-diff-typed test/sql_diff_typed.sh export-typed-sql "$@"
}

# stage_sqldiff_export WHAT NAME LABEL SCRIPT COMMAND DIR SEED: SCRIPT over
# DIR, what leveldb_diff COMMAND wrote for SEED, recorded as NAME from its
# LABEL count.
stage_sqldiff_export() {
	local what=$1 name=$2 label=$3 script=$4 command=$5 dir=$6 seed=$7
	stage "sql-diff: $what, seed $seed (replay: BLOOM_TEST_SEED=$seed scripts/test.sh)"
	if [ -z "$cluster_ok" ]; then
		record "$name" 0 1 "not run: no cluster; seed $seed"
	elif [ ! -d "$dir" ]; then
		record "$name" 0 1 "no export: leveldb_diff $command failed; seed $seed"
	else
		run_suite --note "seed $seed" "$name" "$label" "$LOGDIR/$label-$command.log" "$script" "$dir"
	fi
}

# The major before this one, where this chroot carries it too
# (bf_major_upgrade_from: 18 beside 19): the extension built (warnings are
# errors) and installed for it, from a copy of the tree, and its pg_config
# handed to test/t/012_pg_upgrade.pl (stage_tap) in BF_UPGRADE_FROM_PG_CONFIG.
# Where there is none, that test reports itself skipped.
stage_upgrade_from() {
	local prev pg_config dir=$LOGDIR/upgrade-from rc=0
	prev=$(bf_major_upgrade_from "$BF_PG_MAJOR") || return 0
	pg_config=/usr/lib/postgresql/$prev/bin/pg_config
	stage "PostgreSQL $prev: the extension built and installed for it, to pg_upgrade from (test/t/012_pg_upgrade.pl)"
	if [ ! -x "$pg_config" ] || [ ! -f "$("$pg_config" --pgxs)" ]; then
		record "pg_upgrade from $prev: build" 0 1 "no $pg_config or its PGXS: the chroot lacks postgresql-server-dev-$prev"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a "$ROOT/." "$dir"
	{ make -C "$dir" PG_CONFIG="$pg_config" clean &&
		make -C "$dir" PG_CONFIG="$pg_config" COPT=-Werror &&
		make -C "$dir" PG_CONFIG="$pg_config" install; } >"$LOGDIR/upgrade-from.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$LOGDIR/upgrade-from.log"
		record "pg_upgrade from $prev: build" 0 1 "FAILED (exit $rc; compiler warnings are errors)"
		return 0
	fi
	record "pg_upgrade from $prev: build" 1 0 "$("$pg_config" --version), installed"
	export BF_UPGRADE_FROM_PG_CONFIG=$pg_config
}

# The tests that need clusters of their own or a restart: test/t/*.pl under
# prove, on PostgreSQL::Test::Cluster of this major (test/tap.sh).  Each
# file is a suite of the summary; one with a plan of skip_all is recorded
# as skipped, and why.
stage_tap() {
	local rc=0 t name why log=$LOGDIR/tap.log
	stage "multi-cluster tests under prove: test/t/*.pl on PostgreSQL::Test::Cluster (test/tap.sh)"
	# test/tap.sh bounds each file by the stage timeout; the stage as a
	# whole gets that for each file
	local files
	files=$(find test/t -name '*.pl' | wc -l)
	BF_STAGE_TIMEOUT=$((STAGE_TIMEOUT * files)) bf_run_logged "$log" \
		env PG_CONFIG="$(bf_pg_config)" BLOOM_STAGE_TIMEOUT="$STAGE_TIMEOUT" test/tap.sh || rc=$?
	for t in test/t/*.pl; do
		name=$(basename "$t" .pl)
		why=$(sed -n "s/^$name: skipped (\\(.*\\))\$/\\1/p" "$log" | tail -n 1)
		if [ -n "$why" ]; then
			record "tap $name" 0 0 "SKIPPED: $why"
		else
			bf_record_counted "tap $name" "$name" 0 "$log"
		fi
	done
	if [ "$rc" -ne 0 ] && ! grep -qE '^tap: [0-9]+ passed, [1-9]' "$log"; then
		record "tap" 0 1 "$(bf_crash_note "$rc" "test/tap.sh failed without counting a failure")"
	fi
}

stage_stop_cluster() {
	stage "stop cluster"
	if [ -n "$cluster_ok" ]; then
		SERVER_CPU=$(bf_cluster_cpu) || SERVER_CPU=
		bf_cluster_stop || record "cluster stop" 0 1 "FAILED"
	fi
	cluster_ok=
}

# How every major's suite starts: dependencies (bf_ensure_deps ARGS),
# build, install, exported symbols, unit tests.  Non-zero when nothing was
# built or installed.
suite_start() {
	stage "dependencies"
	if ! bf_ensure_deps "$@"; then
		record "dependencies" 0 1 "FAILED"
		return 1
	fi
	stage_build || return 1
	stage_install || return 1
	stage_exports
	stage_unit
}

# libbloomfilter, the bloomfilter tool and the Python module: built with
# warnings as errors, tested alone, installed as a user would, and against
# SQL on a cluster of their own.
stage_outside() {
	local pydir=$LOGDIR/python-build rc=0
	stage "outside the database: libbloomfilter, the tool, the Python module"
	make -s -C lib clean >/dev/null 2>&1 || true
	rm -rf "$pydir" python/build
	{ make -C lib CFLAGS="-O2 -g -Werror" all test_library &&
		python3 python/setup.py -q build --build-base "$LOGDIR/python-obj" --build-lib "$pydir"; } \
		>"$LOGDIR/outside-build.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || grep -E '[0-9]+: warning:' "$LOGDIR/outside-build.log"; then
		cat "$LOGDIR/outside-build.log"
		record "outside build" 0 1 "FAILED (exit $rc, or compiler warnings)"
		return 0
	fi
	record "outside build" 1 0 "library, tool and module, no warning"
	run_suite "library (C API)" library "$LOGDIR/library.log" \
		env LD_LIBRARY_PATH=lib lib/test_library test/data/vectors
	run_suite "library install" library-install "$LOGDIR/library-install.log" test/library_install_test.sh
	run_suite "tool" tool "$LOGDIR/tool.log" test/tool_test.sh lib/bloomfilter
	run_suite "python module" python "$LOGDIR/python.log" python3 test/python_test.py "$pydir"
	run_suite "python install" python-install "$LOGDIR/python-install.log" test/python_install_test.sh
	run_suite "outside <-> SQL" outside "$LOGDIR/outside.log" test/outside_test.sh lib/bloomfilter "$pydir"
}

# beside_start LOG CMD...: run a suite beside the stages that follow, its
# output kept in LOG (within the stage timeout; stopped by its process id
# if the script ends first).  One at a time.
BESIDE_PID=
BESIDE_START=
beside_start() {
	local log=$1
	shift
	# timeout leads a process group of its own, and passes a signal on to it
	timeout -k 30 "$STAGE_TIMEOUT" "$@" >"$log" 2>&1 </dev/null &
	BESIDE_PID=$!
	BESIDE_START=$(date +%s)
	bf_at_exit beside_stop
	echo "started in the background (process $BESIDE_PID), its output in $log until it is collected"
}

beside_stop() {
	[ -n "$BESIDE_PID" ] || return 0
	kill "$BESIDE_PID" 2>/dev/null || true
	wait "$BESIDE_PID" 2>/dev/null || true
	BESIDE_PID=
}

# beside_collect TITLE NAME LABEL LOG: wait for the suite beside_start
# started, show its output, and record NAME from its LABEL count; its wall
# time is from its start to its log's last write.
beside_collect() {
	local title=$1 name=$2 label=$3 log=$4 rc=0
	stage "$title, collected"
	wait "$BESIDE_PID" || rc=$?
	BESIDE_PID=
	cat "$log"
	bf_stage_retitle "$name, collected: it ran $(($(stat -c %Y "$log") - BESIDE_START)) s beside the stages after its start"
	bf_record_counted "$name" "$label" "$rc" "$log"
}

# The core against libleveldb: random key sets, a new seed each run.
stage_leveldb() {
	local rc=0 seed
	stage "LevelDB differential test (make leveldbtest)"
	bf_run_logged "$LOGDIR/leveldb.log" "${MAKE[@]}" leveldbtest || rc=$?
	seed=$(grep -E '^seed: ' "$LOGDIR/leveldb.log" | head -n 1 | sed 's/^seed: //' || true)
	bf_record_counted "leveldb" leveldb "$rc" "$LOGDIR/leveldb.log" "${seed:+seed $seed}"
}

# ---- the quick check (--quick) ----------------------------------------------------

# What to run before sending a change, in at most 3 minutes on 2 cores: the
# build, the core's unit tests and its differential test against
# libleveldb, then on a throw-away cluster the regression suite and the
# test vectors through SQL.
quick_suite() {
	suite_start --leveldb || return 1
	stage_leveldb
	stage_cluster
	stage_regress
	stage_sqldiff_vectors
	stage_stop_cluster
}

# ---- the host's suite --------------------------------------------------------

host_suite() {
	local rc

	suite_start --leveldb --robustness --bench --outside || return 1

	# The unit tests on s390x under qemu: the costliest stage (about 2
	# minutes of CPU), and one thread for the most part, so it runs beside
	# the stages that follow, on a core they often leave idle (a backend at
	# a time); collected at the end.
	stage "unit tests on a big-endian machine: s390x under qemu (test/s390x_test.sh), started beside the next stages"
	beside_start "$LOGDIR/s390x.log" test/s390x_test.sh

	stage "unit tests under AddressSanitizer + UBSan (make unittest-sanitize)"
	run_suite "unit (ASan+UBSan)" unit "$LOGDIR/unit-sanitize.log" "${MAKE[@]}" unittest-sanitize

	stage "the threaded final under ThreadSanitizer (make unittest-tsan)"
	run_suite "threads (TSan)" tsan "$LOGDIR/unit-tsan.log" "${MAKE[@]}" unittest-tsan

	# Every way the final sets bits, one run in random order and sorted runs
	# as workers send them, filters large enough for buckets: the same bytes.
	stage "the final's ways of setting bits, the same bytes (bench/micro/set_bench)"
	if "${MAKE[@]}" bench/micro/set_bench >"$LOGDIR/set-bench-build.log" 2>&1; then
		run_suite "set-bench smoke" set-bench "$LOGDIR/set-bench.log" \
			bench/micro/set_bench --keys 4000000 --threads 3 --rounds 2
		run_suite "set-bench smoke, sorted runs" set-bench "$LOGDIR/set-bench-sorted.log" \
			bench/micro/set_bench --keys 4000000 --threads 3 --rounds 2 --sorted-runs 7
	else
		cat "$LOGDIR/set-bench-build.log"
		record "set-bench smoke" 0 1 "FAILED to build (see set-bench-build.log)"
	fi


	stage "fuzz smoke (test/fuzz/run.sh)"
	rc=0
	bf_run_logged "$LOGDIR/fuzz.log" test/fuzz/run.sh || rc=$?
	local fuzz_note fuzz_seed
	fuzz_note=$(sed -nE 's/^fuzz: ([0-9]+) executions in total.*/\1 executions/p' "$LOGDIR/fuzz.log" | tail -n 1)
	fuzz_seed=$(sed -nE 's/^fuzz: .* seed ([0-9]+) .*/seed \1/p' "$LOGDIR/fuzz.log" | head -n 1)
	bf_record_counted "fuzz" fuzz "$rc" "$LOGDIR/fuzz.log" "$fuzz_note $fuzz_seed"

	stage_outside

	# The rates and key counts users read, against real keys (about 30 s),
	# and the checked-in table of rates against the program that made it.
	stage "statistics against measurement (make statstest)"
	if "${MAKE[@]}" bench/micro/scheme_table test/stats/stats_accuracy >"$LOGDIR/stats-build.log" 2>&1; then
		run_suite "scheme table" scheme-table "$LOGDIR/scheme-table.log" bench/micro/scheme_table --check 4 10 20
		run_suite "stats accuracy" stats "$LOGDIR/stats.log" test/stats/stats_accuracy
	else
		cat "$LOGDIR/stats-build.log"
		record "stats accuracy" 0 1 "FAILED to build (see stats-build.log)"
	fi

	stage_leveldb
	stage_cluster
	stage_regress
	stage "documentation: every SQL block runs, every link resolves (test/docs_test.sh)"
	cluster_suite "docs" docs "$LOGDIR/docs.log" test/docs_test.sh
	stage_sqldiff_vectors
	stage_sqldiff_random "$RANDOM_EXPORT" "$SEED"
	stage_sqldiff_typed "$TYPED_EXPORT" "$SEED"

	stage "scale-diff: bloom_agg of 3 million keys, serial and parallel, against libleveldb"
	cluster_suite "scale-diff" scale-diff "$LOGDIR/scale-diff.log" test/scale_diff.sh

	stage_tap

	stage "sqlsmith: 1000 random queries, no crash (test/sqlsmith_run.sh)"
	rc=0
	bf_run_logged "$LOGDIR/sqlsmith.log" test/sqlsmith_run.sh --queries 1000 || rc=$?
	local smith_seed
	smith_seed=$(sed -nE 's/^sqlsmith: [0-9]+ queries, seed ([0-9]+).*/seed \1/p' "$LOGDIR/sqlsmith.log" | head -n 1)
	bf_record_counted "sqlsmith" sqlsmith "$rc" "$LOGDIR/sqlsmith.log" "$smith_seed"

	stage "memory: a backend's peak while probing and aggregating (test/memory_check.sh)"
	run_suite "memory" memory "$LOGDIR/memory.log" test/memory_check.sh

	# Tiny data and one run each: this checks bench/run.sh and the filter
	# identity it reports (core vs libleveldb, parallel vs serial, joins with
	# and without the pre-check), never the times.
	stage "bench smoke: bench/run.sh --quick (own cluster)"
	run_suite "bench smoke" bench-smoke "$LOGDIR/bench-smoke.log" bench/run.sh --quick --no-build
	stage "bench smoke: bench/keys_bench.sh --quick (own cluster)"
	run_suite "keys bench smoke" keys-bench "$LOGDIR/keys-bench-smoke.log" bench/keys_bench.sh --quick --no-build
	# its Citus part runs where Citus is installed (stage_tap's Citus test
	# installs it from the kit) and is skipped, and says so, elsewhere
	stage "bench smoke: bench/distributed_bench.sh --quick (own clusters: postgres_fdw, Citus)"
	run_suite "distributed bench smoke" distributed-bench "$LOGDIR/distributed-bench-smoke.log" \
		bench/distributed_bench.sh --quick --no-build
	# the planner's filter of a foreign table joined with a local one
	# (bloomfilter.join_filter), and the local star join with filters by
	# hand: its plans and answers, never its times
	stage "bench smoke: bench/join_filter_bench.sh --quick --star (own clusters: postgres_fdw)"
	run_suite "join filter bench smoke" join-filter-bench "$LOGDIR/join-filter-bench-smoke.log" \
		bench/join_filter_bench.sh --quick --star --no-build
	# --compare-lib with a copy of the installed library: the second build
	# swapped in and out for its sessions, its table and its checks.
	cp "$("$(bf_pg_config)" --pkglibdir)/bloomfilter.so" "$LOGDIR/bloomfilter-compare.so"
	stage "bench smoke: bench/manycore_bench.sh --quick --build-trace --compare-lib (own cluster)"
	run_suite "many-core bench smoke" manycore-bench "$LOGDIR/manycore-bench-smoke.log" bench/manycore_bench.sh --quick --no-build --build-trace \
		--compare-lib "$LOGDIR/bloomfilter-compare.so"
	stage "bench: the installed library put back after a failed or interrupted comparison (test/bench_lib_test.sh)"
	run_suite "bench library put back" bench-lib "$LOGDIR/bench-lib.log" test/bench_lib_test.sh
	# bench/kit.sh, the borrowed many-core machine's one call: skipped, and
	# said so, where ../shared/pgkit is missing
	stage "bench: the many-core kit packed and run (test/kit_test.sh)"
	run_skippable "many-core kit" kit "$LOGDIR/kit.log" test/kit_test.sh

	stage "PGXN: META.json and make dist (test/meta_test.sh)"
	run_suite "pgxn" meta "$LOGDIR/meta.log" test/meta_test.sh

	beside_collect "unit tests on a big-endian machine: s390x under qemu (test/s390x_test.sh)" \
		"unit (s390x, big-endian)" s390x "$LOGDIR/s390x.log"

	stage_stop_cluster
}

# ---- another major's suite, inside its chroot (--inside) ------------------------

# BF_PG_MAJOR names the major; BF_RANDOM_EXPORT, BF_TYPED_EXPORT and
# BF_RANDOM_SEED the host's random exports.
inside_suite() {
	suite_start || return 1
	stage_cluster
	stage_regress
	stage_sqldiff_vectors
	stage_sqldiff_random "$BF_RANDOM_EXPORT" "$BF_RANDOM_SEED"
	stage_sqldiff_typed "$BF_TYPED_EXPORT" "$BF_RANDOM_SEED"
	stage_stop_cluster
	stage_upgrade_from
	stage_tap
}

# ---- the host's side of another major's suite ----------------------------------

# Keeps each major's tree, so that later stages (packages, cross-major)
# reuse its build.
declare -A MAJOR_TREE=()

chroot_suite() {
	local major=$1 root rc=0 work n p f note binds
	stage "PostgreSQL $major: chroot ($(bf_major_suite "$major"))"
	if ! bf_is_root; then
		record "pg$major" 0 1 "not run: another major's chroot needs root (sudo scripts/test.sh --pg $major)"
		return 0
	fi
	bf_chroot_ensure root "$major" build || rc=$?
	if [ "$rc" -eq 77 ]; then
		record "pg$major" 0 0 "SKIPPED: the mirror no longer carries $(bf_major_suite "$major")"
		return 0
	elif [ "$rc" -ne 0 ]; then
		record "pg$major chroot" 0 1 "FAILED to make the chroot"
		return 0
	fi
	work=$LOGDIR/pg$major
	mkdir -p "$work/out"
	bf_copy_tree "$work/src"
	rm -rf "$work/random"
	[ -d "$RANDOM_EXPORT" ] && cp -r "$RANDOM_EXPORT" "$work/random"
	rm -rf "$work/typed"
	[ -d "$TYPED_EXPORT" ] && cp -r "$TYPED_EXPORT" "$work/typed"
	: >"$work/out/records.tsv"
	MAJOR_TREE[$major]=$work
	rc=0
	# The Citus kit, where there is one, at the same place relative to the
	# tree; its builds cached on the host between runs.
	binds=("$work:/build")
	if [ -d "$ROOT/../shared/citus" ]; then
		mkdir -p "/var/tmp/bloomfilter-citus/pg$major"
		binds+=("$(cd "$ROOT/../shared" && pwd):/build/shared" "/var/tmp/bloomfilter-citus/pg$major:/var/tmp/citus-build")
	fi
	BF_SESSION_TIMEOUT=$((STAGE_TIMEOUT * 4)) bf_chroot_session "$root" "${binds[@]}" -- \
		env BF_PG_MAJOR="$major" BF_RECORDS=/build/out/records.tsv \
		BF_RANDOM_EXPORT=/build/random BF_RANDOM_SEED="$SEED" \
		BF_TYPED_EXPORT=/build/typed \
		BLOOM_STAGE_TIMEOUT="$STAGE_TIMEOUT" \
		bash /build/src/scripts/test.sh --inside 2>&1 | tee "$LOGDIR/pg$major.log" || rc=$?
	while IFS=$'\t' read -r n p f note; do
		[ -n "$n" ] && record "pg$major $n" "$p" "$f" "$note"
	done <"$work/out/records.tsv"
	if [ ! -s "$work/out/records.tsv" ]; then
		record "pg$major" 0 1 "$(bf_crash_note "$rc" "the chroot session recorded nothing")"
	fi
}

# ---- every major's .deb: built in its chroot, installed into a fresh one -------

# deb_build MAJOR DIR LOG: dpkg-buildpackage -b in DIR, a copy of the tree
# below a directory of its own (where the .deb lands), in the build chroot
# of MAJOR, or on the host for MAJOR "host".
deb_build() {
	local major=$1 dir=$2 log=$3 root rc=0 parent
	parent=$(dirname "$dir")
	if [ "$major" = host ]; then
		bf_ensure_packages debhelper postgresql-server-dev-all fakeroot >"$log" 2>&1 || return 1
		(cd "$dir" && timeout -k 30 "$STAGE_TIMEOUT" dpkg-buildpackage -us -uc -b) >>"$log" 2>&1
		return
	fi
	bf_chroot_ensure root "$major" build || return
	BF_SESSION_TIMEOUT=$STAGE_TIMEOUT bf_chroot_session "$root" "$parent:/build" -- \
		bash -c "cd /build/$(basename "$dir") && dpkg-buildpackage -us -uc -b" >"$log" 2>&1
}

package_suite() {
	local major=$1 root rc=0 version deb_dir debs
	# What the source builds for MAJOR: the extension, the library, its
	# development files, the tool and the Python module (not the -dbgsym).
	# Globs, expanded in the directory they were built in.
	local built=("postgresql-$major-bloomfilter_*.deb" "libbloomfilter1_*.deb"
		"libbloomfilter-dev_*.deb" "bloomfilter-tools_*.deb" "python3-bloomfilter_*.deb")
	stage "PostgreSQL $major: .deb packages (dpkg-buildpackage), installed into a fresh chroot"
	version=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" bloomfilter.control)

	# The host builds its own major's packages too, as a packager there would.
	if [ "$major" = "$BF_PG_MAJOR" ]; then
		deb_dir=$LOGDIR/deb-host
		rm -rf "$deb_dir"
		bf_copy_tree "$deb_dir/bloomfilter-$version"
		rc=0
		# The Python module's Build-Depends (deb_build installs the rest).
		bf_ensure_packages dh-python python3-all-dev python3-setuptools \
			>"$LOGDIR/deb-host-deps.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] && { deb_build host "$deb_dir/bloomfilter-$version" "$LOGDIR/deb-host-build.log" || rc=$?; }
		# shellcheck disable=SC2048,SC2086 # the globs are meant to expand there
		if [ "$rc" -eq 0 ] && debs=$(cd "$deb_dir" && ls ${built[*]} 2>/dev/null); then
			record "pg$major deb build (host)" 1 0 "${debs//$'\n'/ }"
		else
			tail -n 40 "$LOGDIR/deb-host-deps.log" "$LOGDIR/deb-host-build.log" 2>/dev/null
			record "pg$major deb build (host)" 0 1 "FAILED (exit $rc): $LOGDIR/deb-host-build.log"
		fi
	fi

	deb_dir=$LOGDIR/deb$major
	rm -rf "$deb_dir"
	bf_copy_tree "$deb_dir/bloomfilter-$version"
	rc=0
	deb_build "$major" "$deb_dir/bloomfilter-$version" "$LOGDIR/deb$major-build.log" || rc=$?
	if [ "$rc" -eq 77 ]; then
		record "pg$major deb" 0 0 "SKIPPED: the mirror no longer carries $(bf_major_suite "$major")"
		return 0
	fi
	# Every package, or the build failed.
	# shellcheck disable=SC2048,SC2086
	if [ "$rc" -ne 0 ] || ! debs=$(cd "$deb_dir" && ls ${built[*]} 2>/dev/null); then
		tail -n 40 "$LOGDIR/deb$major-build.log"
		record "pg$major deb build" 0 1 "FAILED (exit $rc): $LOGDIR/deb$major-build.log"
		return 0
	fi
	debs=${debs//$'\n'/ }
	if grep -E 'warning:' "$LOGDIR/deb$major-build.log" | grep -Ev '^make(\[[0-9]+\])?: |dpkg-' >/dev/null; then
		grep -E 'warning:' "$LOGDIR/deb$major-build.log"
		record "pg$major deb build" 0 1 "FAILED: compiler warnings"
	else
		record "pg$major deb build" 1 0 "$debs ($(bf_major_suite "$major"))"
	fi

	rc=0
	bf_chroot_ensure root "$major" run || rc=$?
	if [ "$rc" -ne 0 ]; then
		record "pg$major deb install" 0 1 "FAILED to make the chroot"
		return 0
	fi
	mkdir -p "$deb_dir/debs"
	# shellcheck disable=SC2048,SC2086
	(cd "$deb_dir" && cp ${built[*]} debs/)
	BF_SESSION_TIMEOUT=$STAGE_TIMEOUT bf_chroot_session "$root" "$deb_dir:/build" -- \
		bash -c "cd /build/bloomfilter-$version && bash test/deb_install_test.sh /build/debs/*.deb" \
		2>&1 | tee "$LOGDIR/deb$major-install.log" || rc=$?
	bf_record_counted "pg$major deb install" deb-install "$rc" "$LOGDIR/deb$major-install.log"
}

# ---- filters dumped by each major, restored by every newer one -----------------

cross_major_suite() {
	local shared=$LOGDIR/cross-major major rc root
	stage "cross-major: each major's pg_dump -Fc restored by every newer major (${MAJORS[*]})"
	mkdir -p "$shared"
	for major in $(printf '%s\n' "${MAJORS[@]}" | sort -n); do
		rc=0
		if [ "$major" = "$BF_PG_MAJOR" ]; then
			BF_PG_MAJOR=$major test/cross_major_test.sh "$shared" \
				>"$LOGDIR/cross-$major.log" 2>&1 || rc=$?
		elif [ -n "${MAJOR_TREE[$major]:-}" ]; then
			bf_chroot_ensure root "$major" build || rc=$?
			[ "$rc" -eq 0 ] && bf_chroot_session "$root" "${MAJOR_TREE[$major]}:/build" "$shared:/cross" -- \
				bash -c "cd /build/src && make -s PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config install >/dev/null &&
					BF_PG_MAJOR=$major test/cross_major_test.sh /cross" \
				>"$LOGDIR/cross-$major.log" 2>&1 || rc=$?
		else
			continue # skipped above
		fi
		cat "$LOGDIR/cross-$major.log"
		bf_record_counted "cross-major pg$major" cross-major "$rc" "$LOGDIR/cross-$major.log"
	done
}

# ---- run -----------------------------------------------------------------------

cluster_ok=
[ "$LOAD" -eq 0 ] || bf_load_start "$LOAD"
if [ -n "$INSIDE" ]; then
	inside_suite || true
	summary
	exit
fi
if [ -n "$QUICK" ]; then
	quick_suite || true
	summary
	exit
fi

stage "dependencies of the random LevelDB export"
RANDOM_EXPORT=$LOGDIR/random
SEED=
if bf_ensure_deps --leveldb && make_random_export "$RANDOM_EXPORT"; then
	:
else
	rm -rf "$RANDOM_EXPORT"
fi
TYPED_EXPORT=$LOGDIR/typed
if [ -n "$SEED" ] && make_typed_export "$TYPED_EXPORT" "$SEED"; then
	:
else
	rm -rf "$TYPED_EXPORT"
fi

for major in "${MAJORS[@]}"; do
	if [ "$major" = "$BF_PG_MAJOR" ]; then
		host_suite || true
	else
		chroot_suite "$major"
	fi
done
if [ -n "$PACKAGES" ]; then
	for major in "${MAJORS[@]}"; do
		package_suite "$major"
	done
fi
if [ "${#MAJORS[@]}" -gt 1 ]; then
	cross_major_suite
fi

summary
