#!/usr/bin/env bash
#
# test/robustness.sh -- "never crash, never leak, never accept a bad filter":
# every robustness check in one command.
#
#   test/robustness.sh            the bounded run (a few minutes)
#   test/robustness.sh --long     fuzz each target 10 minutes, 100000 sqlsmith
#                                 queries, memory at 50 million rows
#
# Runs, in order:
#   1. dependencies, build, make install (as scripts/test.sh does, without
#      make clean)
#   2. the core unit tests under AddressSanitizer + UBSan (make unittest-sanitize)
#   3. the libFuzzer targets (test/fuzz/run.sh)
#   4. the bad-input regression test (pg_regress bad_input) on a throw-away
#      cluster
#   5. random SQL from sqlsmith, then the server log is checked for crashes
#      (test/sqlsmith_run.sh)
#   6. a backend's peak memory while probing and aggregating 10 million rows
#      (test/memory_check.sh)
#   7. pgbench: concurrent bloom_add, bloom_agg and probes
#      (test/t/031_concurrency.pl, through test/tap.sh)
# Each prints "NAME: N passed, N failed"; the counts are added up, and the
# last line is
#   robustness: N passed, N failed
#
# Options:
#   --fuzz-runs N         executions per fuzz target (default 20000)
#   --fuzz-time S         fuzz each target S seconds instead
#   --sqlsmith-queries N  (default 5000)
#   --rows N              rows for the memory check (default 10000000)
#   --seed S              seed for the fuzzers and sqlsmith (default: new)
#   --skip STAGE          leave out sanitize, fuzz, bad_input, sqlsmith,
#                         memory or concurrency (repeatable)

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

FUZZ_RUNS=20000
FUZZ_TIME=
SMITH_QUERIES=5000
ROWS=10000000
SEED=
SKIP=
LONG=
bf_options '--long:LONG=1 --fuzz-runs:FUZZ_RUNS --fuzz-time:FUZZ_TIME --sqlsmith-queries:SMITH_QUERIES
	--rows:ROWS --seed:SEED --skip:SKIP:more' "$@"
# --long: longer defaults, for what no option set
if [ -n "$LONG" ]; then
	bf_option_given FUZZ_RUNS || bf_option_given FUZZ_TIME || FUZZ_TIME=600
	bf_option_given SMITH_QUERIES || SMITH_QUERIES=100000
	bf_option_given ROWS || ROWS=50000000
fi
FUZZ_ARGS=(--runs "$FUZZ_RUNS")
[ -z "$FUZZ_TIME" ] || FUZZ_ARGS=(--time "$FUZZ_TIME")
SKIP=" $SKIP "
[ -n "$SEED" ] || SEED=$(bf_random_seed)

LOGDIR=
bf_mktemp_dir LOGDIR
MAKE=(make "PG_CONFIG=$(bf_pg_config)")

# The suites' counts and the stages: scripts/lib.sh (bf_record, bf_stage,
# bf_run_suite, ...), as in scripts/test.sh; no stage timeout.
summary() {
	bf_summary_table robustness
	bf_stage_times ""
	echo "robustness: $BF_TOTAL_PASSED passed, $BF_TOTAL_FAILED failed"
	[ "$BF_TOTAL_FAILED" -eq 0 ]
}
skipped() { [[ $SKIP == *" $1 "* ]]; }

# ---- 1. dependencies, build, install ----------------------------------------

bf_stage "dependencies, build, install"
if ! bf_ensure_deps --robustness >"$LOGDIR/deps.log" 2>&1; then
	cat "$LOGDIR/deps.log"
	bf_record "setup" 0 1 "dependencies missing"
	summary
	exit 1
fi
if ! bf_run_logged "$LOGDIR/build.log" "${MAKE[@]}" >/dev/null || ! bf_make_install >"$LOGDIR/install.log" 2>&1; then
	tail -n 30 "$LOGDIR/build.log" "$LOGDIR/install.log" 2>/dev/null || true
	bf_record "setup" 0 1 "build or install failed"
	summary
	exit 1
fi
echo "built and installed"

# ---- 2. unit tests under ASan + UBSan ------------------------------------------

if ! skipped sanitize; then
	bf_stage "core unit tests under AddressSanitizer + UBSan (make unittest-sanitize)"
	rc=0
	bf_run_logged "$LOGDIR/sanitize.log" "${MAKE[@]}" unittest-sanitize >/dev/null || rc=$?
	reports=$(grep -cE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$LOGDIR/sanitize.log" || true)
	tail -n 1 "$LOGDIR/sanitize.log"
	if [ "$reports" -eq 0 ]; then
		bf_record_counted "sanitize unit" unit "$rc" "$LOGDIR/sanitize.log" "no sanitizer report"
	else
		grep -E -A5 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$LOGDIR/sanitize.log" | head -n 40
		bf_record "sanitize unit" 0 1 "$reports sanitizer report(s)"
	fi
fi

# ---- 3. fuzzing -------------------------------------------------------------------

if ! skipped fuzz; then
	bf_stage "fuzzing (test/fuzz/run.sh ${FUZZ_ARGS[*]} --seed $SEED)"
	rc=0
	bf_run_logged "$LOGDIR/fuzz.log" test/fuzz/run.sh "${FUZZ_ARGS[@]}" --seed "$SEED" || rc=$?
	execs=$(sed -nE 's/^fuzz: ([0-9]+) executions in total.*/\1/p' "$LOGDIR/fuzz.log" | tail -n 1)
	bf_record_counted "fuzz" fuzz "$rc" "$LOGDIR/fuzz.log" "${execs:-0} executions, seed $SEED"
fi

# ---- 4. bad input, on a throw-away cluster -----------------------------------------

if ! skipped bad_input; then
	bf_stage "bad-input regression test (pg_regress bad_input)"
	if bf_cluster_start >"$LOGDIR/cluster.log" 2>&1; then
		rc=0
		rm -f regression.diffs regression.out
		bf_run_logged "$LOGDIR/bad_input.log" "${MAKE[@]}" installcheck REGRESS=bad_input >/dev/null || rc=$?
		grep -E '^(test|ok|not ok| *[0-9]+ of|All)' "$LOGDIR/bad_input.log" || true
		if [ "$rc" -eq 0 ] && grep -qE 'All 1 tests passed' "$LOGDIR/bad_input.log"; then
			bf_record "bad_input" 1 0
		else
			[ -s regression.diffs ] && head -n 60 regression.diffs
			bf_record "bad_input" 0 1 "see regression.diffs"
		fi
		if grep -E 'terminated by signal|PANIC' "$BF_PGLOG"; then
			bf_record "bad_input server log" 0 1 "a backend crashed"
		fi
		bf_cluster_stop >/dev/null || true
	else
		cat "$LOGDIR/cluster.log"
		bf_record "bad_input" 0 1 "no cluster"
	fi
fi

# ---- 5. sqlsmith --------------------------------------------------------------------

if ! skipped sqlsmith; then
	bf_stage "random SQL (test/sqlsmith_run.sh --queries $SMITH_QUERIES --seed $SEED)"
	rc=0
	bf_run_logged "$LOGDIR/sqlsmith.log" test/sqlsmith_run.sh --queries "$SMITH_QUERIES" --seed "$SEED" || rc=$?
	ran=$(sed -nE 's/^sqlsmith: ran ([0-9]+) queries.*/\1/p' "$LOGDIR/sqlsmith.log" | tail -n 1)
	bf_record_counted "sqlsmith" sqlsmith "$rc" "$LOGDIR/sqlsmith.log" "${ran:-0} queries, seed $SEED"
fi

# ---- 6. memory ------------------------------------------------------------------------

if ! skipped memory; then
	bf_stage "memory while probing and aggregating (test/memory_check.sh --rows $ROWS)"
	rc=0
	bf_run_logged "$LOGDIR/memory.log" test/memory_check.sh --rows "$ROWS" || rc=$?
	bf_record_counted "memory" memory "$rc" "$LOGDIR/memory.log" "$ROWS rows"
fi

# ---- 7. concurrency ---------------------------------------------------------------------

if ! skipped concurrency; then
	bf_stage "concurrency (test/tap.sh test/t/031_concurrency.pl)"
	rc=0
	bf_run_logged "$LOGDIR/concurrency.log" env PG_CONFIG="$(bf_pg_config)" test/tap.sh test/t/031_concurrency.pl || rc=$?
	bf_record_counted "concurrency" 031_concurrency "$rc" "$LOGDIR/concurrency.log"
fi

summary
