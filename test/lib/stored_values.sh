# shellcheck shell=bash
#
# test/lib/stored_values.sh -- a table of stored filters and states that must
# survive what users do to a database (here, dump and restore across
# majors: test/cross_major_test.sh), its digest, and the row-by-row
# comparison.  The TAP tests (dump and restore, ALTER EXTENSION UPDATE,
# pg_upgrade) have the same in BloomFilter::Test, with more rows.
# Source it after test/lib/checks.sh; q DB ARGS... must run psql on DB.
#
#   stored_values_create DB SCHEMA  the table SCHEMA.filters: filters inline
#                                   and out of line, a NULL, the smallest
#                                   valid filter, and a bloom_agg_state
#   stored_values_digests DB SCHEMA one line a row: id|md5 of the filter's
#                                   bytes|md5 of the state's binary form|how
#                                   many of 2,000 probe keys the filter may
#                                   contain|md5 of the state's filter
#   compare_rows LABEL WANT GOT     a check a row of WANT that GOT has it,
#                                   and one that they have as many rows

stored_values_create() {
	q "$1" <<SQL
CREATE SCHEMA IF NOT EXISTS $2;
CREATE TABLE $2.filters (id int PRIMARY KEY, f bloomfilter, s bloom_agg_state);
-- the state as bloom_agg's partial aggregation leaves it
CREATE AGGREGATE $2.bloom_state(text, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);
INSERT INTO $2.filters (id, f) SELECT 1, bloom_agg('k' || i, 10) FROM generate_series(1, 500) i;
INSERT INTO $2.filters (id, f) SELECT 2, bloom_agg('k' || i, 10) FROM generate_series(1, 200000) i;
INSERT INTO $2.filters VALUES (3, NULL, NULL), (4, '\x0001', NULL);
INSERT INTO $2.filters (id, s) SELECT 5, $2.bloom_state('k' || i, 10) FROM generate_series(1, 1000) i;
SQL
	if [ "$(q "$1" -c "SELECT pg_column_size(f) > 100000 FROM $2.filters WHERE id = 2")" = t ]; then
		pass "$1: the large filter is stored out of line"
	else
		fail "$1: the large filter is not stored out of line"
	fi
}

stored_values_digests() {
	q "$1" -c "SELECT id || '|' || COALESCE(md5(f::bytea), 'NULL') || '|'
	                  || COALESCE(md5(bloom_agg_state_send(s)), 'NULL') || '|'
	                  || (SELECT count(*) FROM generate_series(1, 2000) i WHERE ('k' || i) <~ f) || '|'
	                  || COALESCE(md5(bloom_agg_finalfn(s)::bytea), 'NULL')
	             FROM $2.filters ORDER BY id"
}

compare_rows() {
	local label=$1 want=$2 got=$3 line id
	while IFS= read -r line; do
		id=${line%%|*}
		if grep -qxF -- "$line" <<<"$got"; then
			pass "$label: row $id keeps its bytes and its probes"
		else
			fail "$label: row $id was '$line', is '$(grep "^$id|" <<<"$got" || true)'"
		fi
	done <<<"$want"
	if [ "$(wc -l <<<"$got")" -eq "$(wc -l <<<"$want")" ]; then
		pass "$label: as many rows as before ($(wc -l <<<"$want"))"
	else
		fail "$label: $(wc -l <<<"$got") rows, $(wc -l <<<"$want") before"
	fi
}
