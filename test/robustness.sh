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
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

FUZZ_ARGS=(--runs 20000)
SMITH_QUERIES=5000
ROWS=10000000
SEED=
SKIP=" "

while [ $# -gt 0 ]; do
	case $1 in
	--long)
		FUZZ_ARGS=(--time 600)
		SMITH_QUERIES=100000
		ROWS=50000000
		shift
		;;
	--fuzz-runs)
		FUZZ_ARGS=(--runs "${2:?}")
		shift 2
		;;
	--fuzz-time)
		FUZZ_ARGS=(--time "${2:?}")
		shift 2
		;;
	--sqlsmith-queries)
		SMITH_QUERIES=${2:?}
		shift 2
		;;
	--rows)
		ROWS=${2:?}
		shift 2
		;;
	--seed)
		SEED=${2:?}
		shift 2
		;;
	--skip)
		SKIP="$SKIP${2:?} "
		shift 2
		;;
	-h | --help)
		sed -n '3,36p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "robustness.sh: unknown argument $1" >&2
		exit 2
		;;
	esac
done
if [ -z "$SEED" ]; then
	SEED=$(($(od -An -N4 -tu4 /dev/urandom | tr -d ' \n') % 2147483647 + 1))
fi

LOGDIR=
bf_mktemp_dir LOGDIR
MAKE=(make "PG_CONFIG=$(bf_pg_config)")

NAMES=()
PASS=()
FAIL=()
NOTES=()
record() {
	NAMES+=("$1")
	PASS+=("$2")
	FAIL+=("$3")
	NOTES+=("${4:-}")
}
summary() {
	local i tp=0 tf=0
	echo
	echo "================== robustness =================="
	for i in "${!NAMES[@]}"; do
		printf '  %-22s %6d passed %6d failed  %s\n' "${NAMES[$i]}" "${PASS[$i]}" "${FAIL[$i]}" "${NOTES[$i]}"
		tp=$((tp + PASS[i]))
		tf=$((tf + FAIL[i]))
	done
	echo "================================================"
	echo "robustness: $tp passed, $tf failed"
	[ "$tf" -eq 0 ]
}
stage() {
	echo
	echo "######## $* ########"
}
skipped() { [[ $SKIP == *" $1 "* ]]; }

# counted NAME LABEL RC LOG [NOTE]: record from the last "LABEL: P passed, F failed"
counted() {
	local name=$1 label=$2 rc=$3 log=$4 note=${5:-} line p f
	line=$(grep -E "^[[:space:]]*$label: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1 || true)
	if [ -z "$line" ]; then
		record "$name" 0 1 "printed no count (exit $rc) $note"
		return
	fi
	read -r p f < <(sed -E 's/^[[:space:]]*[^:]+: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$line")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		note="exit $rc; $note"
	fi
	record "$name" "$p" "$f" "$note"
}

# run LOG CMD...: run, show and keep the output; return CMD's status
run() {
	local log=$1
	shift
	"$@" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

# ---- 1. dependencies, build, install ----------------------------------------

stage "dependencies, build, install"
if ! bf_ensure_deps --robustness >"$LOGDIR/deps.log" 2>&1; then
	cat "$LOGDIR/deps.log"
	record "setup" 0 1 "dependencies missing"
	summary
	exit 1
fi
if ! run "$LOGDIR/build.log" "${MAKE[@]}" >/dev/null || ! bf_make_install >"$LOGDIR/install.log" 2>&1; then
	tail -n 30 "$LOGDIR/build.log" "$LOGDIR/install.log" 2>/dev/null || true
	record "setup" 0 1 "build or install failed"
	summary
	exit 1
fi
echo "built and installed"

# ---- 2. unit tests under ASan + UBSan ------------------------------------------

if ! skipped sanitize; then
	stage "core unit tests under AddressSanitizer + UBSan (make unittest-sanitize)"
	rc=0
	run "$LOGDIR/sanitize.log" "${MAKE[@]}" unittest-sanitize >/dev/null || rc=$?
	reports=$(grep -cE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$LOGDIR/sanitize.log" || true)
	tail -n 1 "$LOGDIR/sanitize.log"
	if [ "$reports" -eq 0 ]; then
		counted "sanitize unit" unit "$rc" "$LOGDIR/sanitize.log" "no sanitizer report"
	else
		grep -E -A5 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$LOGDIR/sanitize.log" | head -n 40
		record "sanitize unit" 0 1 "$reports sanitizer report(s)"
	fi
fi

# ---- 3. fuzzing -------------------------------------------------------------------

if ! skipped fuzz; then
	stage "fuzzing (test/fuzz/run.sh ${FUZZ_ARGS[*]} --seed $SEED)"
	rc=0
	run "$LOGDIR/fuzz.log" test/fuzz/run.sh "${FUZZ_ARGS[@]}" --seed "$SEED" || rc=$?
	execs=$(sed -nE 's/^fuzz: ([0-9]+) executions in total.*/\1/p' "$LOGDIR/fuzz.log" | tail -n 1)
	counted "fuzz" fuzz "$rc" "$LOGDIR/fuzz.log" "${execs:-0} executions, seed $SEED"
fi

# ---- 4. bad input, on a throw-away cluster -----------------------------------------

if ! skipped bad_input; then
	stage "bad-input regression test (pg_regress bad_input)"
	if bf_cluster_start >"$LOGDIR/cluster.log" 2>&1; then
		rc=0
		rm -f regression.diffs regression.out
		run "$LOGDIR/bad_input.log" "${MAKE[@]}" installcheck REGRESS=bad_input >/dev/null || rc=$?
		grep -E '^(test|ok|not ok| *[0-9]+ of|All)' "$LOGDIR/bad_input.log" || true
		if [ "$rc" -eq 0 ] && grep -qE 'All 1 tests passed' "$LOGDIR/bad_input.log"; then
			record "bad_input" 1 0
		else
			[ -s regression.diffs ] && head -n 60 regression.diffs
			record "bad_input" 0 1 "see regression.diffs"
		fi
		if grep -E 'terminated by signal|PANIC' "$BF_PGLOG"; then
			record "bad_input server log" 0 1 "a backend crashed"
		fi
		bf_cluster_stop >/dev/null || true
	else
		cat "$LOGDIR/cluster.log"
		record "bad_input" 0 1 "no cluster"
	fi
fi

# ---- 5. sqlsmith --------------------------------------------------------------------

if ! skipped sqlsmith; then
	stage "random SQL (test/sqlsmith_run.sh --queries $SMITH_QUERIES --seed $SEED)"
	rc=0
	run "$LOGDIR/sqlsmith.log" test/sqlsmith_run.sh --queries "$SMITH_QUERIES" --seed "$SEED" || rc=$?
	ran=$(sed -nE 's/^sqlsmith: ran ([0-9]+) queries.*/\1/p' "$LOGDIR/sqlsmith.log" | tail -n 1)
	counted "sqlsmith" sqlsmith "$rc" "$LOGDIR/sqlsmith.log" "${ran:-0} queries, seed $SEED"
fi

# ---- 6. memory ------------------------------------------------------------------------

if ! skipped memory; then
	stage "memory while probing and aggregating (test/memory_check.sh --rows $ROWS)"
	rc=0
	run "$LOGDIR/memory.log" test/memory_check.sh --rows "$ROWS" || rc=$?
	counted "memory" memory "$rc" "$LOGDIR/memory.log" "$ROWS rows"
fi

# ---- 7. concurrency ---------------------------------------------------------------------

if ! skipped concurrency; then
	stage "concurrency (test/tap.sh test/t/031_concurrency.pl)"
	rc=0
	run "$LOGDIR/concurrency.log" env PG_CONFIG="$(bf_pg_config)" test/tap.sh test/t/031_concurrency.pl || rc=$?
	counted "concurrency" 031_concurrency "$rc" "$LOGDIR/concurrency.log"
fi

cd "$ROOT"
summary
