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
#      (md5 of f::bytea and of the state's binary form) and probe counts
#      with what major M wrote in DIR/pgM.expected;
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

dir=${1:?usage: BF_PG_MAJOR=N test/cross_major_test.sh DIR}
major=$BF_PG_MAJOR
BINDIR=$(bf_pg_bindir)

start_test_cluster cross-major

q() {
	local db=$1
	shift
	"$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -At -d "$db" "$@"
}

# One line a row: id, bytes of the filter, bytes of the state, how many of
# 2,000 probe keys the filter may contain.  The same query on every major.
digests() {
	q "$1" -c "SELECT id || '|' || COALESCE(md5(f::bytea), 'NULL') || '|'
	                  || COALESCE(md5(bloom_agg_state_send(s)), 'NULL') || '|'
	                  || COALESCE((SELECT count(*) FROM generate_series(1, 2000) i
	                                WHERE ('k' || i) <~ f)::text, 'NULL')
	             FROM filters ORDER BY id"
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
	got=$(digests "$db")
	while IFS= read -r line; do
		id=${line%%|*}
		if grep -qxF -- "$line" <<<"$got"; then
			pass "$from -> $major: row $id keeps its bytes and its probes"
		else
			fail "$from -> $major: row $id: dumped '$line', restored '$(grep "^$id|" <<<"$got" || true)'"
		fi
	done <"$dir/pg$from.expected"
	if [ "$(wc -l <<<"$got")" -eq "$(wc -l <"$dir/pg$from.expected")" ]; then
		pass "$from -> $major: as many rows restored as dumped"
	else
		fail "$from -> $major: $(wc -l <<<"$got") rows restored, $(wc -l <"$dir/pg$from.expected") dumped"
	fi
done

# 2. the same table on this major
db=cross_major_src
q postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
q "$db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter, s bloom_agg_state);
INSERT INTO filters (id, f)
  SELECT 1, bloom_agg('k' || i, 10) FROM generate_series(1, 500) i;
INSERT INTO filters (id, f)
  SELECT 2, bloom_agg('k' || i, 10) FROM generate_series(1, 200000) i;
INSERT INTO filters VALUES (3, NULL, NULL), (4, '\x0001', NULL);
-- The state as bloom_agg's partial aggregation leaves it.
CREATE AGGREGATE bloom_partial(text, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);
INSERT INTO filters (id, s)
  SELECT 5, bloom_partial('k' || i, 10) FROM generate_series(1, 1000) i;
SQL
if [ "$(q "$db" -c "SELECT pg_column_size(f) > 100000 FROM filters WHERE id = 2")" = t ]; then
	pass "PostgreSQL $major: the large filter is stored out of line"
else
	fail "PostgreSQL $major: the large filter is not stored out of line"
fi
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
digests "$db" >"$dir/pg$major.expected"
printf '%s\n' "$agg" >"$dir/pg$major.agg"
if "$BINDIR/pg_dump" -Fc -f "$WORK/pg$major.dump" "$db"; then
	cp "$WORK/pg$major.dump" "$dir/pg$major.dump"
	pass "PostgreSQL $major: pg_dump -Fc of the table"
else
	fail "PostgreSQL $major: pg_dump -Fc failed"
fi

check_summary cross-major
