#!/usr/bin/env bash
#
# test/fdw_test.sh -- bloomfilter across servers with postgres_fdw.
#
# Three throw-away clusters of BF_PG_MAJOR (default the host's) on Unix
# sockets: a local one, and two remote shards, each holding half of a table
# t(id, k).  The local cluster reaches them through postgres_fdw, once with
# OPTIONS (extensions 'bloomfilter') and once without.  Checked:
#
#   1. with the option, `k <~ filter` is in the Remote SQL, the foreign scan
#      returns only the rows the filter passes, and the answer is the local
#      one;
#   2. without it, the filter is applied locally: no `<~` in the Remote SQL,
#      every row crosses, and the answer is still the same;
#   3. bloom_agg and bloom_agg_partial are in the Remote SQL, and the bytes
#      equal bloom_agg over a local copy of the rows;
#   4. the two-shard build, bloom_agg_merge(bloom_agg_partial(...)) over both
#      foreign tables (and over a partitioned table of them), gives the bytes
#      of bloom_agg over all rows; mixed bits_per_key is an error naming it.
#
# --rows N sets the rows per shard (default 100000); --measure also times
# the join pre-check against the plain join and prints "fdw-measure:" lines
# (times are never checked).  Prints "fdw: N passed, N failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROWS=100000
MEASURE=
while [ $# -gt 0 ]; do
	case $1 in
	--rows) ROWS=${2:?--rows needs a number}; shift 2 ;;
	--measure) MEASURE=1; shift ;;
	*) echo "fdw_test.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

start_test_cluster fdw
PSQL=$(bf_pg_bindir)/psql
R1_SOCK= R1_PORT= R2_SOCK= R2_PORT=
if ! bf_cluster_start_more R1_SOCK R1_PORT >"$WORK/r1.log" 2>&1 ||
	! bf_cluster_start_more R2_SOCK R2_PORT >"$WORK/r2.log" 2>&1; then
	cat "$WORK/r1.log" "$WORK/r2.log" 2>/dev/null || true
	fail "could not start the remote clusters"
	check_summary fdw
	exit 1
fi

local_q() { "$PSQL" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
r1_q() { "$PSQL" -X -q -At -v ON_ERROR_STOP=1 -h "$R1_SOCK" -p "$R1_PORT" "$@"; }
r2_q() { "$PSQL" -X -q -At -v ON_ERROR_STOP=1 -h "$R2_SOCK" -p "$R2_PORT" "$@"; }

# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: got '$3', want '$2'"
	fi
}

# ---- the shards and the local copies ------------------------------------------

shard_sql() {
	cat <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE t (id int PRIMARY KEY, k text NOT NULL);
INSERT INTO t SELECT i, md5(i::text) FROM generate_series($1, $2) i;
ANALYZE t;
SQL
}
shard_sql 1 "$ROWS" | r1_q >/dev/null
shard_sql $((ROWS + 1)) $((2 * ROWS)) | r2_q >/dev/null

local_q >/dev/null <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER r1 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$R1_SOCK', port '$R1_PORT', dbname 'postgres', extensions 'bloomfilter');
CREATE SERVER r1_plain FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$R1_SOCK', port '$R1_PORT', dbname 'postgres');
CREATE SERVER r2 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$R2_SOCK', port '$R2_PORT', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER r1;
CREATE USER MAPPING FOR CURRENT_USER SERVER r1_plain;
CREATE USER MAPPING FOR CURRENT_USER SERVER r2;
CREATE FOREIGN TABLE f1 (id int, k text) SERVER r1 OPTIONS (table_name 't');
CREATE FOREIGN TABLE f1_plain (id int, k text) SERVER r1_plain OPTIONS (table_name 't');
CREATE FOREIGN TABLE f2 (id int, k text) SERVER r2 OPTIONS (table_name 't');
-- one sharded table: each partition a foreign table on its server
CREATE TABLE sharded (id int, k text) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE sharded_1 PARTITION OF sharded FOR VALUES FROM (1) TO ($((ROWS + 1)))
	SERVER r1 OPTIONS (table_name 't');
CREATE FOREIGN TABLE sharded_2 PARTITION OF sharded FOR VALUES FROM ($((ROWS + 1))) TO ($((2 * ROWS + 1)))
	SERVER r2 OPTIONS (table_name 't');
-- the same rows, local
CREATE TABLE all_rows AS SELECT i AS id, md5(i::text) AS k FROM generate_series(1, $((2 * ROWS))) i;
-- the keys to pre-check: 1 in 50 of shard 1's keys and as many absent ones
CREATE TABLE small AS
	SELECT md5(i::text) AS k FROM generate_series(1, $ROWS, 50) i
	UNION ALL SELECT md5('absent-' || i) FROM generate_series(1, $ROWS, 50) i;
ANALYZE all_rows; ANALYZE small;
SQL

# remote_sql QUERY [SERVER-OPTION...]: the Remote SQL lines of EXPLAIN VERBOSE
remote_sql() {
	local_q -c "EXPLAIN (VERBOSE, COSTS OFF) $1" | sed -n 's/^ *Remote SQL: //p'
}

# crossing_rows QUERY RELATION: the rows the foreign scan of RELATION
# received from the remote server: those it returned plus those a local
# filter removed
crossing_rows() {
	local_q -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) $1" |
		awk -v rel="public.$2" '
			/Foreign Scan on / { inscan = index($0, "Foreign Scan on " rel " ") > 0
				if (inscan && match($0, /actual rows=[0-9]+/))
					n += substr($0, RSTART + 12, RLENGTH - 12)
				next }
			inscan && /Rows Removed by Filter: / { sub(/.*Rows Removed by Filter: /, ""); n += $1 }
			/->/ { inscan = 0 }
			END { print n + 0 }'
}

# ---- 1, 2: the pre-check crosses as <~, or is applied locally ----------------

precheck="SELECT count(*) FROM %s r WHERE r.k <~ (SELECT bloom_agg(k, 10) FROM small)"
local_count=$(local_q -c "$(printf "$precheck" "(SELECT * FROM all_rows WHERE id <= $ROWS)")")

[ "$local_count" -gt 0 ] && [ "$local_count" -lt "$ROWS" ] &&
	pass "the filter passes $local_count of $ROWS local rows (some, not all)" ||
	fail "the filter passes $local_count of $ROWS local rows"

q1=$(printf "$precheck" f1)
if remote_sql "$q1" | grep -q '<~'; then
	pass "with extensions 'bloomfilter': <~ is in the Remote SQL"
else
	fail "with extensions 'bloomfilter': no <~ in the Remote SQL: $(remote_sql "$q1")"
fi
expect "with the option: the count equals the local one" "$local_count" "$(local_q -c "$q1")"
rows_q="SELECT r.k FROM %s r WHERE r.k <~ (SELECT bloom_agg(k, 10) FROM small)"
expect "with the option: only the rows the filter passes cross" "$local_count" \
	"$(crossing_rows "$(printf "$rows_q" f1)" f1)"

q1p=$(printf "$precheck" f1_plain)
if remote_sql "$q1p" | grep -q '<~'; then
	fail "without the option: <~ was shipped: $(remote_sql "$q1p")"
else
	pass "without the option: <~ is not in the Remote SQL"
fi
expect "without the option: the count is still the local one" "$local_count" "$(local_q -c "$q1p")"
expect "without the option: every row crosses" "$ROWS" \
	"$(crossing_rows "$(printf "$rows_q" f1_plain)" f1_plain)"

# the join pre-check users write: the same answer as the plain join
join_plain="SELECT count(*) FROM f1 r JOIN small s ON r.k = s.k"
join_pre="SELECT count(*) FROM f1 r JOIN small s ON r.k = s.k WHERE r.k <~ (SELECT bloom_agg(k, 10) FROM small)"
expect "join with the pre-check equals the plain join" "$(local_q -c "$join_plain")" "$(local_q -c "$join_pre")"

# ---- 3: whole aggregates on the remote side ----------------------------------

local_md5=$(local_q -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM all_rows WHERE id <= $ROWS")
q="SELECT bloom_agg(k, 10) FROM f1"
if remote_sql "$q" | grep -q 'bloom_agg('; then
	pass "bloom_agg is in the Remote SQL"
else
	fail "bloom_agg is not in the Remote SQL: $(remote_sql "$q")"
fi
expect "bloom_agg over the foreign table: the local bytes" "$local_md5" \
	"$(local_q -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM f1")"
q="SELECT bloom_agg_partial(k, 10) FROM f1"
if remote_sql "$q" | grep -q 'bloom_agg_partial('; then
	pass "bloom_agg_partial is in the Remote SQL"
else
	fail "bloom_agg_partial is not in the Remote SQL: $(remote_sql "$q")"
fi
expect "bloom_agg_merge of the remote partial state: the local bytes" "$local_md5" \
	"$(local_q -c "SELECT md5(bloom_agg_merge(s)::bytea) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM f1) x")"
expect "under GROUP BY, every group's filter equals the local one" 0 \
	"$(local_q -c "SELECT count(*) FROM (
		(SELECT id % 7 AS g, md5(bloom_agg(k, 10)::bytea) FROM f1 GROUP BY 1
		 EXCEPT SELECT id % 7, md5(bloom_agg(k, 10)::bytea) FROM all_rows WHERE id <= $ROWS GROUP BY 1)
		UNION ALL
		(SELECT id % 7, md5(bloom_agg(k, 10)::bytea) FROM all_rows WHERE id <= $ROWS GROUP BY 1
		 EXCEPT SELECT id % 7 AS g, md5(bloom_agg(k, 10)::bytea) FROM f1 GROUP BY 1)) d")"

# ---- 4: two shards, one filter -------------------------------------------------

all_md5=$(local_q -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM all_rows")
two_shard="SELECT md5(bloom_agg_merge(s)::bytea) FROM (
	SELECT bloom_agg_partial(k, 10) AS s FROM f1 UNION ALL SELECT bloom_agg_partial(k, 10) FROM f2) x"
if remote_sql "$two_shard" | grep -c 'bloom_agg_partial(' | grep -qx 2; then
	pass "both shards compute bloom_agg_partial remotely"
else
	fail "bloom_agg_partial is not in both shards' Remote SQL: $(remote_sql "$two_shard")"
fi
expect "two shards merged: bloom_agg's bytes over all rows" "$all_md5" "$(local_q -c "$two_shard")"
expect "bloom_agg over the partitioned table of both shards: the same bytes" "$all_md5" \
	"$(local_q -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM sharded")"
expect "merged per partition of the sharded table: the same bytes" "$all_md5" \
	"$(local_q -c "SET enable_partitionwise_aggregate = on;
		SELECT md5(bloom_agg_merge(s)::bytea) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM sharded GROUP BY tableoid) x")"
mixed_out=$(local_q -c "SELECT bloom_agg_merge(s) FROM (
	SELECT bloom_agg_partial(k, 10) AS s FROM f1 UNION ALL SELECT bloom_agg_partial(k, 12) FROM f2) x" 2>&1 || true)
if grep -q 'bits_per_key' <<<"$mixed_out" && grep -q 'ERROR' <<<"$mixed_out"; then
	pass "mixed bits_per_key across shards: an error naming bits_per_key"
else
	fail "mixed bits_per_key across shards: $mixed_out"
fi

# ---- measurements (not checked) --------------------------------------------------

# ms QUERY: the query's wall time in milliseconds, best of three
ms() {
	local best= t0 t1 i
	for i in 1 2 3; do
		t0=$(date +%s%N)
		local_q -c "$1" >/dev/null
		t1=$(date +%s%N)
		i=$(((t1 - t0) / 1000000))
		{ [ -z "$best" ] || [ "$i" -lt "$best" ]; } && best=$i
	done
	echo "$best"
}
if [ -n "$MEASURE" ]; then
	echo "fdw-measure: $ROWS remote rows, $(local_q -c "SELECT count(*) FROM small") local keys," \
		"filter of $(local_q -c "SELECT (bloom_info(bloom_agg(k, 10))).bytes FROM small") bytes"
	echo "fdw-measure: plain join $(ms "$join_plain") ms; with the pre-check $(ms "$join_pre") ms;" \
		"pre-check without the extensions option $(ms "$(printf "$precheck" f1_plain)") ms"
	echo "fdw-measure: bloom_agg(k, 10) over f1: remote $(ms "SELECT bloom_agg(k, 10) FROM f1") ms;" \
		"local copy $(ms "SELECT bloom_agg(k, 10) FROM all_rows WHERE id <= $ROWS") ms"
fi

check_summary fdw
