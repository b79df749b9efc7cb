#!/usr/bin/env bash
#
# test/s390x_test.sh -- the core's unit tests and known-answer vectors on a
# big-endian machine: built for s390x (gcc-s390x-linux-gnu, static) and run
# under qemu-s390x-static, so that the filter bytes never depend on the
# byte order of the machine that writes them.
#
# Installs the two Debian packages when run as root.  Prints
# "s390x: N passed, N failed", where N are the unit tests' own counts plus
# the check that the binary really is big-endian s390x.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

if ! bf_ensure_packages gcc-s390x-linux-gnu qemu-user-static >/dev/null; then
	fail "gcc-s390x-linux-gnu and qemu-user-static are not installed (see above)"
	check_summary s390x
	exit 1
fi

bin=test/unit/test_core_s390x
log=$(mktemp "${TMPDIR:-/tmp}/bloomfilter-s390x.XXXXXX")
trap 'rm -f -- "$log"' EXIT
rc=0
make -s PG_CONFIG="$(bf_pg_config)" "$bin" || rc=$?
if [ "$rc" -ne 0 ]; then
	fail "cross-compiling $bin failed (exit $rc)"
	check_summary s390x
	exit 1
fi

# ELF header: class 2 (64-bit), data 2 (big-endian), machine 22 (S/390).
read -r class data < <(od -An -tu1 -j4 -N2 "$bin")
machine=$(od -An -tu1 -j18 -N2 "$bin" | awk '{print $1 * 256 + $2}')
if [ "$class" = 2 ] && [ "$data" = 2 ] && [ "$machine" = 22 ]; then
	pass "$bin is a 64-bit big-endian s390x executable"
else
	fail "$bin is not big-endian s390x (ELF class $class, data $data, machine $machine)"
fi

rc=0
make -s PG_CONFIG="$(bf_pg_config)" unittest-s390x >"$log" 2>&1 || rc=$?
grep -E '^(FAIL|not ok)' "$log" || true
line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
if [ -z "$line" ]; then
	tail -n 20 "$log"
	fail "the emulated unit tests printed no count (exit $rc)"
else
	read -r p f < <(sed -E 's/^unit: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$line")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "$line (under qemu-s390x-static)"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "the emulated unit tests exited $rc although they counted no failure"
	fi
fi

check_summary s390x
