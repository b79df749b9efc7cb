#!/usr/bin/env bash
#
# test/kit_test.sh -- bench/kit.sh, the one call a many-core machine
# without build tools is given: pack the benchmarks' kit here with this tree's
# extension, a BLOOM_TRACE=1 build and a build to compare (HEAD's), then
# run the many-core bench's --quick table on the packed kit, unpacked where
# the kit's PostgreSQL was not built to live, as the many-core machine does.
#
# Skips (prints "kit: skipped (...)" and exits 77) where the kit is missing
# (../shared/pgkit/pg15-x86_64.tar.xz) or the machine is not x86-64, the
# kit's only architecture.
#
# Prints "kit: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

KIT=../shared/pgkit/pg15-x86_64.tar.xz
if [ ! -f "$KIT" ]; then
	echo "kit: skipped (no $KIT beside the checkout)"
	exit 77
fi
if [ "$(uname -m)" != x86_64 ]; then
	echo "kit: skipped (the kit is built for x86-64, this machine is $(uname -m))"
	exit 77
fi

bf_mktemp_dir WORK
packed=$WORK/packed
head=$(git rev-parse --short HEAD)

# ---- misuse ------------------------------------------------------------------

mkdir "$WORK/empty"
rc=0
bench/kit.sh run --dir "$WORK/empty" >"$WORK/unpacked.log" 2>&1 || rc=$?
if [ "$rc" -eq 1 ] && grep -q "pack first" "$WORK/unpacked.log"; then
	pass "run before pack: exit 1, and it says to pack first"
else
	fail "run before pack: exit $rc: $(tail -n 2 "$WORK/unpacked.log")"
fi
rc=0
bench/kit.sh pack --workers 2 >"$WORK/bad.log" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "unknown option --workers" "$WORK/bad.log"; then
	pass "pack with the bench's option: exit 2, named"
else
	fail "pack with the bench's option: exit $rc: $(tail -n 2 "$WORK/bad.log")"
fi

# ---- pack ----------------------------------------------------------------------

rc=0
bench/kit.sh pack --dir "$packed" --compare HEAD >"$WORK/pack.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && [ -s "$packed/pgdev.tar.xz" ] && [ -s "$packed/bloomfilter-trace.so" ] &&
	[ -s "$packed/bloomfilter-compare.so" ] && [ -s "$packed/kit.txt" ]; then
	pass "pack: the kit, the trace and compare builds and kit.txt written"
else
	fail "pack: exit $rc: $(tail -n 5 "$WORK/pack.log")"
fi
if grep -q "^installed: bloomfilter at $head" "$packed/kit.txt" &&
	grep -q "^compare:  bloomfilter at $head\$" "$packed/kit.txt"; then
	pass "kit.txt names the commit of the installed and the compared build ($head)"
else
	fail "kit.txt: $(cat "$packed/kit.txt" 2>/dev/null)"
fi
listing=$(tar tJf "$packed/pgdev.tar.xz" 2>/dev/null || true)
if grep -qx "opt/pgdev/lib/postgresql/bloomfilter.so" <<<"$listing" &&
	grep -qx "opt/pgdev/share/postgresql/extension/bloomfilter.control" <<<"$listing" &&
	grep -qx "opt/pgdev/lib/postgresql/hll.so" <<<"$listing"; then
	pass "the packed kit has the extension installed beside hll"
else
	fail "the packed kit lacks the extension or hll: $(grep -c . <<<"$listing") files"
fi
# the trace build logs its steps; the others log nothing of the kind
if grep -qa "bloom-trace" "$packed/bloomfilter-trace.so" && ! grep -qa "bloom-trace" "$packed/bloomfilter-compare.so"; then
	pass "the trace library is a BLOOM_TRACE build, the compared one is not"
else
	fail "the trace library's and the compared one's builds are not what they should be"
fi

# ---- run -----------------------------------------------------------------------

# The kit's programs were linked to find their libraries in /opt/pgdev/lib,
# and the many-core machine has neither that nor a libpq of its own: the run
# goes on in a mount namespace where /opt/pgdev is an empty tmpfs and every
# libpq the system's loader knows is an empty file, so that the kit's own
# must be found, as there.
mkdir "$WORK/out"
hidden=()
where="where the kit's PostgreSQL was not built to live"
if bf_is_root && unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016 # the inner shell's $@ and $f
	hidden=(unshare -m sh -c '
		[ ! -d /opt/pgdev ] || mount -t tmpfs none /opt/pgdev || exit 1
		for f in $(ldconfig -p | sed -n "s/^[[:space:]]*libpq\.so.* => //p"); do
			mount --bind /dev/null "$f" || exit 1
		done
		exec "$@"' sh)
	where="$where, with /opt/pgdev and the system's libpq hidden"
else
	where="$where, but with /opt/pgdev and the system's libpq as they are (hiding them takes root and a mount namespace)"
fi
rc=0
OUT=$WORK/out "${hidden[@]}" bench/kit.sh run --dir "$packed" --quick >"$WORK/run.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -Eq "^manycore-bench: [1-9][0-9]* passed, 0 failed" "$WORK/run.log"; then
	pass "run --quick, $where: the bench passes its checks ($(grep "^manycore-bench:" "$WORK/run.log"))"
else
	fail "run --quick: exit $rc: $(tail -n 5 "$WORK/run.log")"
fi
kit_version=$(sed -n 's/^kit: .*, PostgreSQL \([0-9.]*\)$/\1/p' "$packed/kit.txt")
if [ -n "$kit_version" ] && grep -q "^PostgreSQL:  PostgreSQL $kit_version " "$WORK/run.log"; then
	pass "run: the bench ran the kit's PostgreSQL $kit_version"
else
	fail "run: not the kit's PostgreSQL (${kit_version:-no version in kit.txt}): $(grep "^PostgreSQL:" "$WORK/run.log")"
fi
if grep -q "^#### This build against $packed/bloomfilter-compare.so" "$WORK/run.log" &&
	grep -q "^#### Steps of bloom_agg, 2 workers" "$WORK/run.log"; then
	pass "run: the packed compare build's table and the trace build's steps"
else
	fail "run: no compare table or no steps"
fi
reports=("$WORK"/out/manycore-*.md)
if [ -f "${reports[0]}" ] && [ -f "$WORK/out/kit.txt" ] && grep -q "^#### Scaling over parallel workers" "${reports[0]}" &&
	grep -q "^==> 2 workers, lowest ms: count [0-9]" "$WORK/out/kit-run.log" && grep -q "^manycore-bench: " "$WORK/out/kit-run.log"; then
	pass "run: the report, kit.txt and the output with each worker count's times as they came in \$OUT"
else
	fail "run: \$OUT has: $(cd "$WORK/out" && echo *)"
fi

check_summary kit
