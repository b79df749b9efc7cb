#!/usr/bin/env bash
#
# test/tap.sh [test/t/NAME.pl ...] -- the tests that need more than one
# cluster or a restart, under prove, on PostgreSQL's own TAP framework
# (PostgreSQL::Test::Cluster, from the major's pgxs/src/test/perl).
#
# The major is the one of PG_CONFIG (or BF_PG_MAJOR's Debian pg_config); the
# extension must be installed there.  As root the tests run as the postgres
# user (initdb refuses root).  Each test file prints its own count:
#
#   NAME: N passed, N failed      (its ok / not ok lines)
#   NAME: skipped (why)           (a plan of skip_all, e.g. no Citus kit)
#
# and the last line is "tap: N passed, N failed".  PROVE_FLAGS adds flags
# to prove; BF_TAP_KEEP=1 keeps the clusters' directories for a look;
# BF_MEASURE=1 makes the tests that time something (postgres_fdw, Citus)
# time it at the size of the documentation's figures.
#
# A test that needs what only root may do before it (installing into the
# major's PostgreSQL, Debian packages) has a script beside it,
# test/t/NAME.root-setup.sh, which this runs with bash, as root, before
# any test, when it runs as root and NAME.pl is among the tests; with
# PG_CONFIG and BF_ROOT (the source tree) set, its output in the work
# directory's NAME.root-setup.log.  A failure is printed, and the test
# still runs: it must find out for itself what it lacks, since run as
# another user nothing is run for it (021_citus.pl builds Citus so).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

PG_CONFIG=$(bf_pg_config)
export PG_CONFIG
bindir=$("$PG_CONFIG" --bindir)
perldir=$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/perl
pgregress=$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress
if [ ! -f "$perldir/PostgreSQL/Test/Cluster.pm" ]; then
	bf_err "no PostgreSQL::Test::Cluster in $perldir (postgresql-client of this major)"
	echo "tap: 0 passed, 1 failed"
	exit 1
fi
if ! perl -MIPC::Run -e 1 2>/dev/null; then
	if bf_is_root; then
		bf_ensure_packages libipc-run-perl >/dev/null || true
	fi
	if ! perl -MIPC::Run -e 1 2>/dev/null; then
		bf_err "PostgreSQL::Test::Cluster needs IPC::Run: apt-get install libipc-run-perl"
		echo "tap: 0 passed, 1 failed"
		exit 1
	fi
fi

# absolute: prove runs in each test's own directory
tests=()
for t in "$@"; do
	tests+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")")
done
[ "${#tests[@]}" -gt 0 ] || tests=("$ROOT"/test/t/*.pl)

# PostgreSQL::Test::Utils writes its logs and the clusters under
# $TESTDIR/tmp_check; keep the path short (socket paths hold 107 bytes).
base=${TMPDIR:-/tmp}
[ "${#base}" -gt 40 ] && base=/tmp
work=$(mktemp -d "$base/bloomfilter-tap.XXXXXX")
as_owner=()
if bf_is_root; then
	chown postgres: "$work"
	as_owner=(runuser -u postgres --)
fi
cleanup() {
	if [ -n "${BF_TAP_KEEP:-}" ]; then
		echo "kept: $work"
	else
		rm -rf -- "$work"
	fi
}
trap cleanup EXIT

# the tests' root setups (see above), while this still runs as root
if [ -n "${as_owner[*]}" ]; then
	for t in "${tests[@]}"; do
		setup=${t%.pl}.root-setup.sh
		[ -f "$setup" ] || continue
		name=$(basename "$t" .pl)
		rc=0
		env PG_CONFIG="$PG_CONFIG" BF_ROOT="$ROOT" bash "$setup" \
			>"$work/$name.root-setup.log" 2>&1 || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "$name: $(basename "$setup") failed (exit $rc), as root:"
			tail -n 20 "$work/$name.root-setup.log"
		fi
	done
fi

# Each file gets BLOOM_STAGE_TIMEOUT seconds (default 1200), as each stage
# of scripts/test.sh does; one that hangs is a failure of its own.
file_timeout=${BLOOM_STAGE_TIMEOUT:-1200}

total_p=0 total_f=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .pl)
	mkdir -p "$work/$name"
	[ -z "${as_owner[*]}" ] || chown postgres: "$work/$name"
	log=$work/$name.out
	rc=0
	# init runs pg_regress --config-auth, which Debian ships under pgxs.
	# shellcheck disable=SC2086 # PROVE_FLAGS is a list of flags
	(cd "$work/$name" && timeout -k 30 "$file_timeout" "${as_owner[@]}" env PATH="$bindir:$PATH" \
		TESTDIR="$work/$name" PG_REGRESS="$pgregress" \
		BF_ROOT="$ROOT" PG_CONFIG="$PG_CONFIG" \
		prove -v -I "$perldir" -I "$ROOT/test/perl" ${PROVE_FLAGS:-} "$t") \
		>"$log" 2>&1 || rc=$?
	# the test's lines and prove's verdict; the commands' output stays in
	# the log
	grep -E '^ *(ok|not ok) [0-9]+|^ *# |\.pl \.\.|^(Result|Files=|All tests)' "$log" || true
	p=$(grep -cE '^ *ok [0-9]+' "$log" || true)
	f=$(grep -cE '^ *not ok [0-9]+' "$log" || true)
	why=$(sed -n -E 's/^.*\.pl \.+ skipped: (.*)$/\1/p' "$log" | head -n 1)
	if [ -n "$why" ]; then
		echo "$name: skipped ($why)"
		continue
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# died, or a wrong plan: a failure, with the test's own log
		f=1
		tail -n 20 "$log"
		for l in "$work/$name"/tmp_check/log/*; do
			[ -f "$l" ] && { echo "---- $l (last lines)"; tail -n 30 "$l"; }
		done
	fi
	echo "$name: $p passed, $f failed"
	total_p=$((total_p + p))
	total_f=$((total_f + f))
done
echo "tap: $total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
