#!/usr/bin/env bash
#
# scripts/test.sh -- build the extension and run every test suite, on a
# throw-away PostgreSQL cluster.  This is what CI runs (.ci/run).
#
#   deps -> make (warnings are errors) -> make install -> make unittest
#   -> make unittest-sanitize -> test/fuzz/run.sh (smoke)
#   -> make leveldbtest -> start cluster -> make installcheck
#   -> test/sql_diff.sh on the test vectors and on a fresh random LevelDB
#      export -> test/cancel_test.sh -> test/dump_restore_test.sh
#   -> test/sqlsmith_run.sh (own cluster) -> bench/run.sh --quick (own
#      cluster) -> stop cluster -> summary
#
# Every suite's "N passed, N failed" is collected; a suite that crashes or
# prints no count counts as 1 failed.  The last line is
#   tests: N passed, N failed
# and the exit status is non-zero when anything failed.
#
# Environment:
#   BLOOM_TEST_SEED       seed of the random LevelDB export (default: new each run)
#   BLOOM_STAGE_TIMEOUT   seconds any one stage may take (default 1200)
#   PG_CONFIG             pg_config to build with (default PostgreSQL 15's)

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

STAGE_TIMEOUT=${BLOOM_STAGE_TIMEOUT:-1200}
case $STAGE_TIMEOUT in '' | *[!0-9]*)
	bf_err "BLOOM_STAGE_TIMEOUT must be a number of seconds"
	exit 2
	;;
esac

LOGDIR=
bf_mktemp_dir LOGDIR

# make, with PostgreSQL 15's pg_config (an array, so timeout can run it)
MAKE=(make "PG_CONFIG=$(bf_pg_config)")

# ---- bookkeeping ----------------------------------------------------------

SUITE_NAMES=()
SUITE_PASS=()
SUITE_FAIL=()
SUITE_NOTES=()

# record NAME PASSED FAILED [NOTE]
record() {
	SUITE_NAMES+=("$1")
	SUITE_PASS+=("$2")
	SUITE_FAIL+=("$3")
	SUITE_NOTES+=("${4:-}")
}

summary() {
	local i total_p=0 total_f=0
	echo
	echo "==================== summary ===================="
	for i in "${!SUITE_NAMES[@]}"; do
		printf '  %-34s %6d passed %6d failed  %s\n' "${SUITE_NAMES[$i]}" \
			"${SUITE_PASS[$i]}" "${SUITE_FAIL[$i]}" "${SUITE_NOTES[$i]}"
		total_p=$((total_p + SUITE_PASS[i]))
		total_f=$((total_f + SUITE_FAIL[i]))
	done
	echo "================================================="
	echo "tests: $total_p passed, $total_f failed"
	[ "$total_f" -eq 0 ]
}

# Stop here (after a failed build step): summary, then exit 1.
finish_early() {
	summary || true
	exit 1
}

stage() {
	echo
	echo "######## $* ########"
}

# run_logged LOG CMD...: run CMD (with the stage timeout), its output shown
# and kept in LOG; returns CMD's exit status (124 on timeout).
run_logged() {
	local log=$1
	shift
	timeout -k 30 "$STAGE_TIMEOUT" "$@" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

# last_count LABEL LOG: print "P F" from the last "LABEL: P passed, F failed".
last_count() {
	local line
	line=$(grep -E "^[[:space:]]*$1: [0-9]+ passed, [0-9]+ failed" "$2" | tail -n 1 || true)
	[ -n "$line" ] || return 1
	sed -E 's/^[[:space:]]*[^:]+: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$line"
}

# record_counted NAME LABEL RC LOG [NOTE]: record a suite from its count line.
record_counted() {
	local name=$1 label=$2 rc=$3 log=$4 note=${5:-} counts p f
	if ! counts=$(last_count "$label" "$log"); then
		record "$name" 0 1 "$(crash_note "$rc" "printed no '$label: N passed, N failed'") $note"
		return
	fi
	read -r p f <<<"$counts"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		record "$name" "$p" 1 "$(crash_note "$rc" "exited $rc although it counted no failure") $note"
	elif [ $((p + f)) -eq 0 ]; then
		record "$name" 0 1 "ran no tests $note"
	else
		record "$name" "$p" "$f" "$note"
	fi
}

# run_suite [--note NOTE] NAME LABEL LOG CMD...: run CMD, then record NAME
# from its last "LABEL: N passed, N failed" line.
run_suite() {
	local note='' name label log rc=0
	if [ "$1" = --note ]; then
		note=$2
		shift 2
	fi
	name=$1 label=$2 log=$3
	shift 3
	run_logged "$log" "$@" || rc=$?
	record_counted "$name" "$label" "$rc" "$log" "$note"
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

crash_note() {
	case $1 in
	124) echo "TIMED OUT after ${STAGE_TIMEOUT}s;" ;;
	0) echo "$2;" ;;
	*) echo "$2 (exit $1);" ;;
	esac
}

# ---- 1. dependencies ------------------------------------------------------

stage "dependencies"
if ! bf_ensure_deps --leveldb --robustness --bench; then
	record "dependencies" 0 1 "FAILED"
	finish_early
fi

# ---- 2. build (compiler warnings are errors) -------------------------------

stage "build"
build_log=$LOGDIR/build.log
rc=0
# Rebuild everything, so that every warning shows.
"${MAKE[@]}" clean >/dev/null 2>&1 || true
run_logged "$build_log" "${MAKE[@]}" COPT=-Werror || rc=$?
# Any warning counts, also from tools -Werror does not reach (clang's bitcode).
warnings=$(grep -E 'warning:' "$build_log" | grep -Ev '^make(\[[0-9]+\])?: ' || true)
if [ "$rc" -ne 0 ]; then
	record "build" 0 1 "FAILED (exit $rc; compiler warnings are errors)"
	finish_early
elif [ -n "$warnings" ]; then
	echo "build printed warnings:"
	printf '%s\n' "$warnings"
	record "build" 0 1 "FAILED: compiler warnings"
	finish_early
fi

# ---- 3. install ------------------------------------------------------------

stage "install"
if ! bf_make_install >"$LOGDIR/install.log" 2>&1; then
	cat "$LOGDIR/install.log"
	record "install" 0 1 "FAILED"
	finish_early
fi
tail -n 3 "$LOGDIR/install.log"

# ---- 3b. the module exports only its SQL-callable functions -----------------

stage "exported symbols (test/exports_test.sh)"
run_suite "exports" exports "$LOGDIR/exports.log" test/exports_test.sh

# ---- 4. unit tests ---------------------------------------------------------

stage "unit tests (make unittest)"
run_suite "unit" unit "$LOGDIR/unit.log" "${MAKE[@]}" unittest

# ---- 4b. the same unit tests under AddressSanitizer + UBSan ------------------

stage "unit tests under AddressSanitizer + UBSan (make unittest-sanitize)"
run_suite "unit (ASan+UBSan)" unit "$LOGDIR/unit-sanitize.log" "${MAKE[@]}" unittest-sanitize

# ---- 4c. fuzz smoke: each libFuzzer target for a fixed number of runs -------

stage "fuzz smoke (test/fuzz/run.sh)"
rc=0
run_logged "$LOGDIR/fuzz.log" test/fuzz/run.sh || rc=$?
fuzz_note=$(sed -nE 's/^fuzz: ([0-9]+) executions in total.*/\1 executions/p' "$LOGDIR/fuzz.log" | tail -n 1)
fuzz_seed=$(sed -nE 's/^fuzz: .* seed ([0-9]+) .*/seed \1/p' "$LOGDIR/fuzz.log" | head -n 1)
record_counted "fuzz" fuzz "$rc" "$LOGDIR/fuzz.log" "$fuzz_note $fuzz_seed"

# ---- 5. LevelDB differential test -------------------------------------------

stage "LevelDB differential test (make leveldbtest)"
rc=0
run_logged "$LOGDIR/leveldb.log" "${MAKE[@]}" leveldbtest || rc=$?
ld_seed=$(grep -E '^seed: ' "$LOGDIR/leveldb.log" | head -n 1 | sed 's/^seed: //' || true)
record_counted "leveldb" leveldb "$rc" "$LOGDIR/leveldb.log" "${ld_seed:+seed $ld_seed}"

# ---- 6. cluster -------------------------------------------------------------

stage "throw-away cluster"
cluster_ok=1
if ! bf_cluster_start; then
	cluster_ok=
	record "cluster" 0 1 "FAILED to start"
fi

# ---- 7. regression tests (pg_regress) -----------------------------------------

# Sets REG_P REG_F REG_NOTE from pg_regress's closing line; returns 1 if none.
parse_pg_regress() {
	local log=$1 line n t i
	REG_NOTE=
	line=$(grep -E '^ *(All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests (passed|failed))' "$log" | tail -n 1 || true)
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

stage "regression tests (make installcheck)"
if [ -n "$cluster_ok" ]; then
	rc=0
	rm -f regression.diffs regression.out
	run_logged "$LOGDIR/regress.log" "${MAKE[@]}" installcheck || rc=$?
	if parse_pg_regress "$LOGDIR/regress.log"; then
		if [ "$rc" -ne 0 ] && [ "$REG_F" -eq 0 ]; then
			record "regression" "$REG_P" 1 "$(crash_note "$rc" "installcheck failed") $REG_NOTE"
		elif [ $((REG_P + REG_F)) -eq 0 ]; then
			record "regression" 0 1 "ran no tests $REG_NOTE"
		else
			record "regression" "$REG_P" "$REG_F" "$REG_NOTE"
		fi
	else
		record "regression" 0 1 "$(crash_note "$rc" "pg_regress printed no result")"
	fi
	if [ -s regression.diffs ]; then
		echo "---- regression.diffs (first 400 lines; full file: $ROOT/regression.diffs) ----"
		head -n 400 regression.diffs
		echo "---- end of regression.diffs ----"
	fi
else
	record "regression" 0 1 "not run: no cluster"
fi

# ---- 8. SQL against LevelDB: test vectors, random export ----------------------

stage "sql-diff: test vectors (test/data/vectors)"
if [ -z "$cluster_ok" ]; then
	record "sql-diff vectors" 0 1 "not run: no cluster"
else
	vec_out=$LOGDIR/vectors
	mkdir -p "$vec_out"
	rc=0
	run_logged "$LOGDIR/vectors2tsv.log" "${MAKE[@]}" test/unit/vectors2tsv || rc=$?
	if [ "$rc" -eq 0 ]; then
		run_logged "$LOGDIR/vectors2tsv-run.log" test/unit/vectors2tsv test/data/vectors "$vec_out" || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		record "sql-diff vectors" 0 1 "$(crash_note "$rc" "export with test/unit/vectors2tsv failed")"
	else
		run_suite "sql-diff vectors" sql-diff "$LOGDIR/sqldiff-vectors.log" test/sql_diff.sh "$vec_out"
	fi
fi

seed=${BLOOM_TEST_SEED:-}
if [ -z "$seed" ]; then
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')
fi
case $seed in '' | *[!0-9]*)
	bf_warn "BLOOM_TEST_SEED '$seed' is not a number"
	;;
esac
stage "sql-diff: random LevelDB export, seed $seed (replay: BLOOM_TEST_SEED=$seed scripts/test.sh)"
if [ -z "$cluster_ok" ]; then
	record "sql-diff leveldb-random" 0 1 "not run: no cluster; seed $seed"
else
	rnd_out=$LOGDIR/random
	mkdir -p "$rnd_out"
	rc=0
	run_logged "$LOGDIR/export.log" "${MAKE[@]}" test/leveldb/leveldb_diff || rc=$?
	if [ "$rc" -eq 0 ]; then
		run_logged "$LOGDIR/export-run.log" test/leveldb/leveldb_diff export-sql "$rnd_out" --seed "$seed" || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		record "sql-diff leveldb-random" 0 1 "$(crash_note "$rc" "leveldb_diff export-sql failed") seed $seed"
	else
		run_suite --note "seed $seed" "sql-diff leveldb-random" sql-diff "$LOGDIR/sqldiff-random.log" \
			test/sql_diff.sh "$rnd_out"
	fi
fi

# ---- 8b. bloom_agg over millions of keys against LevelDB ---------------------

stage "scale-diff: bloom_agg of 3 million keys, serial and parallel, against libleveldb"
if [ -z "$cluster_ok" ]; then
	record "scale-diff" 0 1 "not run: no cluster"
else
	rc=0
	run_logged "$LOGDIR/scale-build.log" "${MAKE[@]}" test/leveldb/leveldb_diff || rc=$?
	if [ "$rc" -ne 0 ]; then
		record "scale-diff" 0 1 "$(crash_note "$rc" "building test/leveldb/leveldb_diff failed")"
	else
		run_suite "scale-diff" scale-diff "$LOGDIR/scale-diff.log" test/scale_diff.sh
	fi
fi

# ---- 9. a cancel stops a long final function -----------------------------------

stage "cancel: statement_timeout and pg_cancel_backend inside bloom_agg's final"
cluster_suite "cancel" cancel "$LOGDIR/cancel.log" test/cancel_test.sh

# ---- 9b. pg_dump / pg_restore keep the filter bytes ------------------------------

stage "dump-restore: pg_dump and pg_restore, plain and custom format"
BLOOM_PG_BINDIR=$(bf_pg_bindir) cluster_suite "dump-restore" dump-restore "$LOGDIR/dump-restore.log" \
	test/dump_restore_test.sh

# ---- 9c. random SQL (sqlsmith, on a throw-away cluster of its own) ------------

stage "sqlsmith: 1000 random queries, no crash (test/sqlsmith_run.sh)"
rc=0
run_logged "$LOGDIR/sqlsmith.log" test/sqlsmith_run.sh --queries 1000 || rc=$?
smith_seed=$(sed -nE 's/^sqlsmith: [0-9]+ queries, seed ([0-9]+).*/seed \1/p' "$LOGDIR/sqlsmith.log" | head -n 1)
record_counted "sqlsmith" sqlsmith "$rc" "$LOGDIR/sqlsmith.log" "$smith_seed"

# ---- 9d. memory: probing is flat, bloom_agg needs only what it documents ----

stage "memory: a backend's peak while probing and aggregating (test/memory_check.sh)"
run_suite "memory" memory "$LOGDIR/memory.log" test/memory_check.sh

# ---- 9e. benchmark smoke test: it runs, and its filters are identical ------

# Tiny data and one run each: this checks bench/run.sh and the filter
# identity it reports (core vs libleveldb, parallel vs serial, joins with
# and without the pre-check), never the times.
stage "bench smoke: bench/run.sh --quick (own cluster)"
run_suite "bench smoke" bench-smoke "$LOGDIR/bench-smoke.log" bench/run.sh --quick --no-build

# ---- 10. stop, summary ---------------------------------------------------------

stage "stop cluster"
if [ -n "$cluster_ok" ]; then
	bf_cluster_stop || record "cluster stop" 0 1 "FAILED"
fi

summary
