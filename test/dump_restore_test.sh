#!/usr/bin/env bash
#
# test/dump_restore_test.sh -- pg_dump and pg_restore keep every filter's
# bytes, in plain and in custom format.
#
# Runs against the server the PG* environment points at, in scratch
# databases it creates and drops.  The source table holds filters stored
# inline (1-byte and 4-byte headers), one over 1 MB stored out of line, and
# a NULL, plus a hash index and a view that use the extension's operators,
# so that the restore has to recreate those too.  Every row's filter is
# compared by the md5 of its text form.
#
# Prints "dump-restore: N passed, N failed".
set -euo pipefail

BINDIR=${BLOOM_PG_BINDIR:-/usr/lib/postgresql/15/bin}
PSQL=$BINDIR/psql
PG_DUMP=$BINDIR/pg_dump
PG_RESTORE=$BINDIR/pg_restore

src="bloom_dump_src_$$"
plain="bloom_dump_plain_$$"
custom="bloom_dump_custom_$$"
work=$(mktemp -d "${TMPDIR:-/tmp}/bloom-dump.XXXXXX")

# shellcheck source=test/lib/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
finish() {
	local db
	for db in "$src" "$plain" "$custom"; do
		"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	done
	rm -rf -- "$work"
	check_summary dump-restore || true
}
trap finish EXIT

q() {
	local db=$1
	shift
	"$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}

for tool in "$PSQL" "$PG_DUMP" "$PG_RESTORE"; do
	if [ ! -x "$tool" ]; then
		fail "$tool not found (set BLOOM_PG_BINDIR)"
		exit 1
	fi
done

q postgres -c "CREATE DATABASE $src"
q "$src" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, note text, f bloomfilter);
INSERT INTO filters VALUES
  (1, 'abc at 10 bits a key, 1-byte header', '\x000820208080000206'),
  (2, 'NULL', NULL),
  (3, 'smallest valid filter', '\x0001');
INSERT INTO filters
  SELECT 4, '500 keys, inline with a 4-byte header', bloom_agg('m' || i, 10) FROM generate_series(1, 500) i;
INSERT INTO filters
  SELECT 5, '1000000 keys, over 1 MB, out of line', bloom_agg('l' || i, 10) FROM generate_series(1, 1000000) i;
INSERT INTO filters
  SELECT 6, 'every bit set, k = 30', ('\x' || repeat('ff', 3000) || '1e')::bloomfilter;
CREATE INDEX filters_f ON filters USING hash (f);
-- keys of types whose OIDs the restore changes: an enum, a domain, a
-- composite, their arrays and a range; each row's key and a filter of
-- them must be the same in the new database
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE TYPE reading AS (m mood, amount numeric, tags text[]);
CREATE TABLE key_values (id int PRIMARY KEY, moods mood[], ids posint[], r reading,
                         amounts numrange, doc jsonb, k bytea);
INSERT INTO key_values (id, moods, ids, r, amounts, doc)
  SELECT i, ARRAY[(ARRAY['sad', 'ok', 'happy'])[1 + i % 3]::mood, 'ok'], ARRAY[i, i + 1]::posint[],
         ROW('happy', i / 4.0, ARRAY['t' || i])::reading, numrange(i, i + 1.5),
         jsonb_build_object('id', i, 'mood', 'ok')
    FROM generate_series(1, 300) i;
UPDATE key_values SET k = bloom_key(moods, ids, r, amounts, doc);
CREATE TABLE key_filters AS
  SELECT bloom_agg(bloom_key(moods, ids, r, amounts, doc), 10) AS f FROM key_values;
CREATE VIEW filter_union AS
  SELECT f | f AS doubled, bloom_union_agg(f) OVER () AS everything, f = f AS same
    FROM filters WHERE id = 4;
SQL
if [ "$(q "$src" -At -c "SELECT pg_column_size(f) > 1000000 FROM filters WHERE id = 5")" = t ]; then
	pass "source: the large filter is stored out of line, over 1 MB"
else
	fail "source: the large filter is not over 1 MB"
fi

# id|md5 of the text form (or NULL) for every row, in id order
digests() {
	q "$1" -At -c "SELECT id || '|' || COALESCE(md5(f::text), 'NULL') FROM filters ORDER BY id"
}
want=$(digests "$src")
nrows=$(wc -l <<<"$want")

# compare_db DB FORMAT: every row's digest, the index, the view.
compare_db() {
	local db=$1 format=$2 got line id
	got=$(digests "$db")
	if [ "$(wc -l <<<"$got")" -ne "$nrows" ]; then
		fail "$format: $(wc -l <<<"$got") rows restored, $nrows dumped"
	fi
	while IFS= read -r line; do
		id=${line%%|*}
		if grep -qxF -- "$line" <<<"$got"; then
			pass "$format: row $id has the same bytes"
		else
			fail "$format: row $id differs: dumped ${line#*|}, restored $(awk -F'|' -v id="$id" '$1 == id { print $2 }' <<<"$got")"
		fi
	done <<<"$want"

	if [ "$(q "$db" -At -c "SET enable_seqscan = off" \
		-c "SELECT string_agg(id::text, ',' ORDER BY id) FROM filters WHERE f = '\x000820208080000206'")" = 1 ]; then
		pass "$format: the hash index on the filter column finds a filter"
	else
		fail "$format: the hash index lookup did not find row 1"
	fi
	if [ "$(q "$db" -At -c "SELECT count(*) FROM key_values WHERE bloom_key(moods, ids, r, amounts, doc) IS DISTINCT FROM k")" = 0 ] &&
		[ "$(q "$db" -At -c "SELECT count(*) FROM key_values, key_filters WHERE NOT bloom_key(moods, ids, r, amounts, doc) <~ f")" = 0 ]; then
		pass "$format: keys of enums, domains, composites and their arrays are the same after the restore (new type OIDs)"
	else
		fail "$format: a key of a restored enum, domain or composite changed, or its filter misses it"
	fi
	if [ "$(q "$db" -At -c "SELECT doubled = everything AND same FROM filter_union")" = t ]; then
		pass "$format: the view using |, = and bloom_union_agg works"
	else
		fail "$format: the view using |, = and bloom_union_agg gives a wrong answer"
	fi
}

# plain format, restored with psql
if "$PG_DUMP" -Fp -f "$work/plain.sql" "$src" &&
	q postgres -c "CREATE DATABASE $plain" &&
	q "$plain" -f "$work/plain.sql" >"$work/plain.log" 2>&1; then
	pass "plain: pg_dump and psql restore ($(wc -c <"$work/plain.sql") bytes)"
	compare_db "$plain" plain
else
	fail "plain: dump or restore failed"
	cat "$work/plain.log" 2>/dev/null || true
fi

# custom format, restored with pg_restore
if "$PG_DUMP" -Fc -f "$work/custom.dump" "$src" &&
	q postgres -c "CREATE DATABASE $custom" &&
	"$PG_RESTORE" --exit-on-error -d "$custom" "$work/custom.dump" >"$work/custom.log" 2>&1; then
	pass "custom: pg_dump -Fc and pg_restore ($(wc -c <"$work/custom.dump") bytes)"
	compare_db "$custom" custom
else
	fail "custom: dump or restore failed"
	cat "$work/custom.log" 2>/dev/null || true
fi

[ "$failed" -eq 0 ]
