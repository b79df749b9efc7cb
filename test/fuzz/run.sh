#!/usr/bin/env bash
#
# test/fuzz/run.sh -- build the libFuzzer targets and run each for a fixed
# number of executions, under AddressSanitizer (with leak detection) and
# UBSan.
#
#   test/fuzz/run.sh                  smoke: 20000 executions per target
#   test/fuzz/run.sh --runs 5000000   a longer run
#   test/fuzz/run.sh --time 600       each target for 600 s instead
#   test/fuzz/run.sh --seed 1234      replay a run's random choices
#   test/fuzz/run.sh --only probe     one target (probe, hex, state, build, stats, gaps, library)
#
# Targets (test/fuzz/fuzz_*.c; each compares the core with a plain
# reference written in the target, see fuzz_common.h):
#   probe  bloom_validate and KeyMayMatch on any filter bytes and keys
#   hex    the \x text form: check, decode, encode, round trips
#   state  the serialized aggregate state, both versions: check, read
#          every hash (a version 2 code decoded), rewrite
#   build  geometry over the 64-bit range, build from hashes, every key probes
#   stats  bit counts, estimates and sizing; union and intersection
#   library  libbloomfilter (lib/bloomfilter.h) on bytes from outside: parse
#          raw or text, the text round trip, probe positions, info, union
#          (the stats and gaps targets are in the list above too)
#
# The seed corpus is made from test/data/vectors by make_corpus into a
# temporary directory on every run; nothing binary is kept in the
# repository.  An input that crashes, leaks, trips a sanitizer or breaks a
# checked property is saved under test/fuzz/artifacts/ and the target
# counts as failed; replay it with  test/fuzz/build/fuzz_TARGET FILE.
#
# Prints one line per target, the total number of executions, and
#   fuzz: N passed, N failed
# The exit status is non-zero when a target failed.
#
# Environment: FUZZ_CC (default clang), BLOOM_FUZZ_SEED (as --seed).

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

RUNS=20000
TIME=
SEED=${BLOOM_FUZZ_SEED:-}
ONLY=
TARGETS=(probe hex state build stats gaps library)

bf_options '--runs:RUNS --time:TIME --seed:SEED --only:ONLY:word' "$@"
if [ -n "$ONLY" ]; then
	case " ${TARGETS[*]} " in *" $ONLY "*) TARGETS=("$ONLY") ;; *)
		echo "run.sh: unknown target $ONLY (one of: ${TARGETS[*]})" >&2
		exit 2
		;;
	esac
fi
[ -n "$SEED" ] || SEED=$(bf_random_seed)
case $SEED in '' | *[!0-9]*)
	echo "run.sh: the seed must be a positive number" >&2
	exit 2
	;;
esac

FUZZ_CC=${FUZZ_CC:-clang}
if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	echo "run.sh: $FUZZ_CC not found; install clang (Debian: apt-get install clang libclang-rt-14-dev)" >&2
	echo "fuzz: 0 passed, ${#TARGETS[@]} failed"
	exit 1
fi

BUILD=$ROOT/test/fuzz/build
ARTIFACTS=$ROOT/test/fuzz/artifacts
mkdir -p "$BUILD" "$ARTIFACTS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-fuzz.XXXXXX")
trap 'rm -rf -- "$WORK"; rmdir "$ARTIFACTS" 2>/dev/null || true' EXIT

CORE_SRCS=(src/core/bloom_hash.c src/core/bloom_filter.c src/core/bloom_hex.c src/core/bloom_state.c
	src/core/bloom_stats.c src/core/bloom_setops.c src/core/bloom_scheme.c src/core/bloom_scheme_table.c
	src/core/bloom_gaps.c src/core/bloom_sort.c)
CORE_DEPS=("${CORE_SRCS[@]}" src/core/bloom_core.h src/core/bloom_state.h src/core/bloom_stats.h
	src/core/bloom_setops.h src/core/bloom_scheme.h src/core/bloom_gaps.h src/core/bloom_sort.h)
# shellcheck disable=SC2054 # the sanitizers are one comma-separated word
CFLAGS=(-std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc/core)

# needs_build OUT SRC...: OUT is missing or older than a source.
needs_build() {
	local out=$1 src
	shift
	[ -x "$out" ] || return 0
	for src in "$@"; do
		[ "$src" -nt "$out" ] && return 0
	done
	return 1
}

passed=0
failed=0
total_execs=0

# ---- seed corpus from the LevelDB vectors ----------------------------------

corpus_tool=$BUILD/make_corpus
corpus_deps=(test/fuzz/make_corpus.c test/unit/vectors.c test/unit/vectors.h test/lib/bloom_reference.h "${CORE_DEPS[@]}")
if needs_build "$corpus_tool" "${corpus_deps[@]}"; then
	"$FUZZ_CC" -std=gnu11 -O1 -g -Wall -Wextra -Werror -Isrc/core -Itest/unit \
		-o "$corpus_tool" test/fuzz/make_corpus.c test/unit/vectors.c "${CORE_SRCS[@]}" -lm
fi
mkdir -p "$WORK/seeds"
"$corpus_tool" test/data/vectors "$WORK/seeds" >"$WORK/seeds.log" 2>&1 || {
	cat "$WORK/seeds.log"
	echo "fuzz: could not make the seed corpus from test/data/vectors"
	echo "fuzz: 0 passed, ${#TARGETS[@]} failed"
	exit 1
}

if [ -n "$TIME" ]; then
	echo "fuzz: ${TIME} s per target, seed $SEED (replay: test/fuzz/run.sh --time $TIME --seed $SEED)"
else
	echo "fuzz: $RUNS executions per target, seed $SEED (replay: test/fuzz/run.sh --runs $RUNS --seed $SEED)"
fi

# ---- build and run each target ----------------------------------------------

# The library target reads what the probe and hex targets read: filters
# raw and as text.
mkdir -p "$WORK/seeds/library"
for f in "$WORK/seeds/probe"/* "$WORK/seeds/hex"/*; do
	if [ -f "$f" ]; then
		cp "$f" "$WORK/seeds/library/$(basename "$(dirname "$f")")-$(basename "$f")"
	fi
done

for t in "${TARGETS[@]}"; do
	bin=$BUILD/fuzz_$t
	log=$WORK/$t.log
	# libbloomfilter's public face over the same core
	extra=()
	[ "$t" = library ] && extra=(-Ilib lib/bloomfilter.c)
	if needs_build "$bin" "test/fuzz/fuzz_$t.c" test/fuzz/fuzz_common.h test/lib/bloom_reference.h \
		"${CORE_DEPS[@]}" lib/bloomfilter.c lib/bloomfilter.h; then
		if ! "$FUZZ_CC" "${CFLAGS[@]}" -o "$bin" "test/fuzz/fuzz_$t.c" "${extra[@]}" "${CORE_SRCS[@]}" -lm >"$log" 2>&1; then
			cat "$log"
			echo "FAIL $t: does not build"
			failed=$((failed + 1))
			continue
		fi
	fi
	seeds=$(find "$WORK/seeds/$t" -type f | wc -l)
	mkdir -p "$WORK/corpus-$t"
	limit=(-runs="$RUNS")
	[ -n "$TIME" ] && limit=(-runs=-1 -max_total_time="$TIME")
	rc=0
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" "${limit[@]}" -seed="$SEED" -max_len=16384 -timeout=30 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$ARTIFACTS/fuzz_$t-" \
		"$WORK/corpus-$t" "$WORK/seeds/$t" >"$log" 2>&1 || rc=$?
	execs=$(sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1/p' "$log" | tail -n 1)
	secs=$(sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\2/p' "$log" | tail -n 1)
	cov=$(sed -nE 's/.*DONE +cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/p' "$log" | tail -n 1)
	reports=$(grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|fuzz check failed' "$log" || true)
	if [ "$rc" -eq 0 ] && [ -n "$execs" ] && [ "$reports" -eq 0 ]; then
		passed=$((passed + 1))
		total_execs=$((total_execs + execs))
		echo "ok   $t: $execs executions in ${secs} s from $seeds seeds ($cov)"
	else
		failed=$((failed + 1))
		total_execs=$((total_execs + ${execs:-0}))
		echo "FAIL $t: exit $rc, ${reports} report(s); log follows"
		grep -vE '^(#[0-9]+|INFO:|MS:|\s*$)' "$log" | head -n 60
		ls "$ARTIFACTS"/fuzz_"$t"-* 2>/dev/null | sed 's/^/  saved input: /' || true
	fi
done

echo "fuzz: $total_execs executions in total"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
