#!/usr/bin/env bash
#
# test/bench_lib_test.sh -- bench/manycore_bench.sh puts the installed
# bloomfilter.so back after it swapped another build in, whatever happens:
# when the other build fails to load, and when the bench is interrupted
# while the other build is in place.
#
# The other build of the interrupted run is the installed library with
# bytes appended (a dynamic loader reads an ELF file by its headers, so it
# loads as before), so that which of the two is in place shows in its md5.
# Each run is the bench's --quick one, on a cluster of its own, with the
# installed library.
#
# Prints "bench-lib: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

lib=$("$(bf_pg_config)" --pkglibdir)/bloomfilter.so
lib_md5() { md5sum <"$lib"; }
installed=$(lib_md5)
# which library is in place, for a failure's message
lib_state() { [ "$(lib_md5)" = "$installed" ] && echo "the installed library back" || echo "the installed library NOT back"; }
bf_mktemp_dir WORK
cp "$lib" "$WORK/installed.so"

# ---- the other build fails to load ------------------------------------------

printf 'not a library\n' >"$WORK/bogus.so"
rc=0
bench/manycore_bench.sh --quick --no-build --compare-lib "$WORK/bogus.so" >"$WORK/bogus.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] && grep -q "bogus.so" "$WORK/bogus.log" && [ "$(lib_md5)" = "$installed" ]; then
	pass "a compared build that fails to load: the bench fails (exit $rc) and the installed library is back"
else
	fail "a compared build that fails to load: exit $rc, $(lib_state): $(tail -n 3 "$WORK/bogus.log")"
fi

# ---- interrupted while the other build is in place ---------------------------------

cp "$lib" "$WORK/other.so"
printf 'another build\n' >>"$WORK/other.so"
other=$(md5sum <"$WORK/other.so")
# its own process group, so that the interrupt reaches its psql too, as a
# terminal's would
set -m
bench/manycore_bench.sh --quick --no-build --compare-lib "$WORK/other.so" >"$WORK/interrupted.log" 2>&1 &
pid=$!
set +m
# Watched for as long as the bench runs (the stage's timeout bounds a
# hang), never for a fixed time that a loaded machine could outlast.
seen=''
while kill -0 "$pid" 2>/dev/null; do
	if [ "$(lib_md5)" = "$other" ]; then
		seen=1
		break
	fi
	sleep 0.01
done
[ -z "$seen" ] || kill -TERM -- "-$pid"
rc=0
wait "$pid" || rc=$?
if [ -z "$seen" ]; then
	fail "interrupted: the other build never came in place (exit $rc): $(tail -n 3 "$WORK/interrupted.log")"
elif [ "$rc" -ne 0 ] && grep -q "interrupted: cleaning up" "$WORK/interrupted.log" &&
	[ "$(lib_md5)" = "$installed" ]; then
	pass "interrupted while the compared build was in place: the bench stops (exit $rc) and the installed library is back"
else
	fail "interrupted: exit $rc, $(lib_state): $(tail -n 3 "$WORK/interrupted.log")"
fi
# a library left swapped in would make the tests after this one test it
if [ "$(lib_md5)" != "$installed" ]; then
	cp "$WORK/installed.so" "$lib.new" && mv -f "$lib.new" "$lib"
fi

check_summary bench-lib
