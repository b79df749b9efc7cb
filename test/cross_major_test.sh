#!/usr/bin/env bash
#
# test/cross_major_test.sh -- filters move across PostgreSQL majors the way
# users upgrade: each major's own pg_dump -Fc is restored by every newer
# major's pg_restore, and keeps its bytes and its answers.
#
#   BF_PG_MAJOR=N test/cross_major_test.sh DIR
#
# Run once per major, oldest first, with DIR shared between the runs
# (scripts/test.sh --pg all does, each major in its own chroot).  Each run
# starts a throw-away cluster of major N, where the extension is installed,
# and
#   1. restores every DIR/pgM.dump with M < N and compares each row's bytes
#      and probe counts with what major M wrote in DIR/pgM.expected
#      (test/lib/stored_values.sh);
#   2. builds the same table (filters inline and out of line, a NULL, a
#      bloom_agg_state column) and checks that bloom_agg over the same rows
#      gives the bytes every earlier major gave;
#   3. writes DIR/pgN.expected and dumps the table into DIR/pgN.dump.
#
# Prints "cross-major: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh
# shellcheck source=test/lib/stored_values.sh
. test/lib/stored_values.sh

dir=${1:?usage: BF_PG_MAJOR=N test/cross_major_test.sh DIR}
major=$BF_PG_MAJOR
BINDIR=$(bf_pg_bindir)

start_test_cluster cross-major

q() {
	local db=$1
	shift
	"$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -At -d "$db" "$@"
}

# 1. every older major's dump
for dump in "$dir"/pg*.dump; do
	[ -e "$dump" ] || continue
	from=$(basename "$dump" .dump)
	from=${from#pg}
	[ "$from" -lt "$major" ] || continue
	db="restored_from_$from"
	q postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	if ! "$BINDIR/pg_restore" --exit-on-error -d "$db" "$dump" >"$WORK/restore-$from.log" 2>&1; then
		cat "$WORK/restore-$from.log"
		fail "PostgreSQL $major's pg_restore of PostgreSQL $from's dump failed"
		continue
	fi
	pass "PostgreSQL $major's pg_restore reads PostgreSQL $from's pg_dump -Fc"
	compare_rows "$from -> $major" "$(cat "$dir/pg$from.expected")" "$(stored_values_digests "$db" stored)"
done

# 2. the same table on this major
db=cross_major_src
q postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
q "$db" -c "CREATE EXTENSION bloomfilter"
stored_values_create "$db" stored
agg=$(q "$db" -c "SELECT md5(bloom_agg('k' || i, 10)::bytea) FROM generate_series(1, 200000) i")
for other in "$dir"/pg*.agg; do
	[ -e "$other" ] || continue
	from=$(basename "$other" .agg)
	if [ "$(cat "$other")" = "$agg" ]; then
		pass "bloom_agg over the same rows: PostgreSQL $major gives ${from#pg}'s bytes"
	else
		fail "bloom_agg over the same rows: PostgreSQL $major gives $agg, ${from#pg} gave $(cat "$other")"
	fi
done

# 3. this major's dump, for the newer ones
stored_values_digests "$db" stored >"$dir/pg$major.expected"
printf '%s\n' "$agg" >"$dir/pg$major.agg"
if "$BINDIR/pg_dump" -Fc -f "$WORK/pg$major.dump" "$db"; then
	cp "$WORK/pg$major.dump" "$dir/pg$major.dump"
	pass "PostgreSQL $major: pg_dump -Fc of the table"
else
	fail "PostgreSQL $major: pg_dump -Fc failed"
fi

check_summary cross-major
