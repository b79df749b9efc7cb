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
#      of bloom_agg over all rows; mixed bits_per_key is an error naming it;
#   5. typed keys: a remote bigint column probed with a filter of local
#      integer keys ships as `<~` and crosses only the rows it passes, with
#      the local answer; bloom_agg of the bigint column and of a
#      multi-column bloom_key are computed remotely with the local bytes;
#   6. the statements of doc/distributed.md's `sql fdw remote` and `sql fdw`
#      blocks run, on the shards and locally (test/lib/doc_blocks.sh).
#
# It also times the join pre-check against the plain join, over a remote
# table of its own, and prints "fdw-measure:" lines (never checked): 200000
# remote rows and 2000 local keys, or with --measure 1000000 and 10000.
# "fdw-note:" lines say which forms postgres_fdw ships and which it filters
# locally.  --rows N sets the rows per shard of the checks (default 100000).
#
# The binaries are those of BLOOM_PG_BINDIR if set, else bf_pg_bindir
# (BF_PG_MAJOR).  The extension must be installed (make install); the
# test builds nothing.  Prints "fdw: N passed, N failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROWS=100000
MROWS=200000 MKEYS=2000
while [ $# -gt 0 ]; do
	case $1 in
	--rows) ROWS=${2:?--rows needs a number}; shift 2 ;;
	--measure) MROWS=1000000 MKEYS=10000; shift ;;
	*) echo "fdw_test.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

# Every cluster helper asks bf_pg_bindir for the binaries.
if [ -n "${BLOOM_PG_BINDIR:-}" ]; then
	bf_pg_bindir() { printf '%s\n' "$BLOOM_PG_BINDIR"; }
fi

start_test_cluster fdw
PSQL=$(bf_pg_bindir)/psql
if [ "$("$PSQL" -X -q -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'postgres_fdw'")" != 1 ]; then
	fail "postgres_fdw is not available in $(bf_pg_bindir) (contrib)"
	check_summary fdw
	exit 1
fi
R1_SOCK='' R1_PORT='' R2_SOCK='' R2_PORT=''
if ! bf_cluster_start_more R1_SOCK R1_PORT >"$WORK/r1.log" 2>&1 ||
	! bf_cluster_start_more R2_SOCK R2_PORT >"$WORK/r2.log" 2>&1; then
	cat "$WORK/r1.log" "$WORK/r2.log" 2>/dev/null || true
	fail "could not start the remote clusters"
	check_summary fdw
	exit 1
fi

local_q() { "$PSQL" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
# shellcheck disable=SC2120 # the SQL comes on stdin or in -c
r1_q() { "$PSQL" -X -q -At -v ON_ERROR_STOP=1 -h "$R1_SOCK" -p "$R1_PORT" "$@"; }
# shellcheck disable=SC2120
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
# on r1 also: stored filters, probed with a constant key; the measurement table
r1_q >/dev/null <<SQL
CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter);
INSERT INTO filters SELECT g, bloom_agg(md5(i::text), 10) FROM generate_series(1, 1000) i
	CROSS JOIN generate_series(0, 4) g WHERE i % 5 = g GROUP BY g;
CREATE TABLE m (id int, k text);
INSERT INTO m SELECT i, md5('m' || i) FROM generate_series(1, $MROWS) i;
CREATE TABLE ids (id bigint, tenant integer);
INSERT INTO ids SELECT i * 7919, i % 10 FROM generate_series(1, $ROWS) i;
ANALYZE filters; ANALYZE m; ANALYZE ids;
SQL

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
CREATE FOREIGN TABLE ffilters (id int, f bloomfilter) SERVER r1 OPTIONS (table_name 'filters');
CREATE FOREIGN TABLE fm (id int, k text) SERVER r1 OPTIONS (table_name 'm');
CREATE FOREIGN TABLE fm_plain (id int, k text) SERVER r1_plain OPTIONS (table_name 'm');
CREATE FOREIGN TABLE fids (id bigint, tenant integer) SERVER r1 OPTIONS (table_name 'ids');
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
-- the measurement's keys: half of them in m
CREATE TABLE mkeys AS
	SELECT md5('m' || i) AS k FROM generate_series(1, $MROWS, $((2 * MROWS / MKEYS))) i
	UNION ALL SELECT md5('absent-' || i) FROM generate_series(1, $((MKEYS / 2))) i;
-- the same ids, local; and integer keys to pre-check: 1 in 50 of them and
-- as many absent ones
CREATE TABLE all_ids AS SELECT i * 7919 AS id, i % 10 AS tenant FROM generate_series(1, $ROWS) i;
CREATE TABLE small_ids AS
	SELECT (i * 7919)::integer AS id FROM generate_series(1, $ROWS, 50) i
	UNION ALL SELECT (i * 7919 + 1)::integer FROM generate_series(1, $ROWS, 50) i;
ANALYZE all_rows; ANALYZE small; ANALYZE mkeys; ANALYZE all_ids; ANALYZE small_ids;
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

# (in the query templates, @REL@ stands for the relation)
at() { printf '%s\n' "${1//@REL@/"$2"}"; }
precheck="SELECT count(*) FROM @REL@ r WHERE r.k <~ (SELECT bloom_agg(k, 10) FROM small)"
local_count=$(local_q -c "$(at "$precheck" "(SELECT * FROM all_rows WHERE id <= $ROWS)")")

if [ "$local_count" -gt 0 ] && [ "$local_count" -lt "$ROWS" ]; then
	pass "the filter passes $local_count of $ROWS local rows (some, not all)"
else
	fail "the filter passes $local_count of $ROWS local rows"
fi

q1=$(at "$precheck" f1)
if remote_sql "$q1" | grep -q '<~'; then
	pass "with extensions 'bloomfilter': <~ is in the Remote SQL"
else
	fail "with extensions 'bloomfilter': no <~ in the Remote SQL: $(remote_sql "$q1")"
fi
expect "with the option: the count equals the local one" "$local_count" "$(local_q -c "$q1")"
rows_q="SELECT r.k FROM @REL@ r WHERE r.k <~ (SELECT bloom_agg(k, 10) FROM small)"
expect "with the option: only the rows the filter passes cross" "$local_count" \
	"$(crossing_rows "$(at "$rows_q" f1)" f1)"

q1p=$(at "$precheck" f1_plain)
if remote_sql "$q1p" | grep -q '<~'; then
	fail "without the option: <~ was shipped: $(remote_sql "$q1p")"
else
	pass "without the option: <~ is not in the Remote SQL"
fi
expect "without the option: the count is still the local one" "$local_count" "$(local_q -c "$q1p")"
expect "without the option: every row crosses" "$ROWS" \
	"$(crossing_rows "$(at "$rows_q" f1_plain)" f1_plain)"

# the join pre-check users write: the same answer as the plain join
join_plain="SELECT count(*) FROM f1 r JOIN small s ON r.k = s.k"
join_pre_where="FROM f1 r JOIN small s ON r.k = s.k WHERE r.k <~ (SELECT bloom_agg(k, 10) FROM small)"
join_pre="SELECT count(*) $join_pre_where"
expect "join with the pre-check equals the plain join" "$(local_q -c "$join_plain")" "$(local_q -c "$join_pre")"
expect "join with the pre-check: only the rows the filter passes cross" "$local_count" \
	"$(crossing_rows "SELECT r.k $join_pre_where" f1)"

# a filter written into the query as a constant (a psql variable, a literal)
filt=$(local_q -c "SELECT bloom_agg(k, 10) FROM small")
q_lit="SELECT count(*) FROM f1 r WHERE r.k <~ '$filt'::bloomfilter"
if remote_sql "$q_lit" | grep -q "<~) E'"; then
	pass "a constant filter is shipped as a literal in the Remote SQL"
else
	fail "a constant filter is not in the Remote SQL: $(remote_sql "$q_lit" | cut -c1-300)"
fi
expect "with a constant filter: the count equals the local one" "$local_count" "$(local_q -c "$q_lit")"

# the other direction: a constant key probing filters stored on the remote
# side.  A text constant has the default collation, which postgres_fdw does
# not ship unless it comes from a remote column; a bytea key has none.
for key in "md5('7')" "decode(md5('7'), 'escape')" "md5('absent')"; do
	q_key="SELECT string_agg(id::text, ',' ORDER BY id) FROM @REL@ WHERE $key <~ f"
	local_ids=$(local_q -c "$(at "$q_key" "(SELECT g AS id, bloom_agg(md5(i::text), 10) AS f
		FROM generate_series(1, 1000) i CROSS JOIN generate_series(0, 4) g WHERE i % 5 = g GROUP BY g) l")")
	expect "a constant key $key probing remote stored filters: the local answer ($local_ids)" \
		"$local_ids" "$(local_q -c "$(at "$q_key" ffilters)")"
	if remote_sql "$(at "$q_key" ffilters)" | grep -q '<~'; then
		echo "fdw-note: $key <~ stored_filter is shipped"
	else
		echo "fdw-note: $key <~ stored_filter is filtered locally (every filter crosses)"
	fi
done

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
mixed_out=$(local_q -v VERBOSITY=verbose -c "SELECT bloom_agg_merge(s) FROM (
	SELECT bloom_agg_partial(k, 10) AS s FROM f1 UNION ALL SELECT bloom_agg_partial(k, 12) FROM f2) x" 2>&1 || true)
if grep -q '^ERROR: *22023: bloom_agg bits_per_key must be the same' <<<"$mixed_out" &&
	grep -Eq '^DETAIL: .* (10 bits per key and then got 12|12 bits per key and then got 10)' <<<"$mixed_out"; then
	pass "mixed bits_per_key across shards: 22023, naming 10 and 12"
else
	fail "mixed bits_per_key across shards: $mixed_out"
fi

# ---- 5: typed keys ----------------------------------------------------------------

id_precheck="SELECT count(*) FROM @REL@ r WHERE r.id <~ (SELECT bloom_agg(id, 10) FROM small_ids)"
id_local=$(local_q -c "$(at "$id_precheck" all_ids)")
if [ "$id_local" -gt 0 ] && [ "$id_local" -lt "$ROWS" ]; then
	pass "a filter of integer keys passes $id_local of $ROWS local bigint ids (some, not all)"
else
	fail "a filter of integer keys passes $id_local of $ROWS local bigint ids"
fi
q_id=$(at "$id_precheck" fids)
if remote_sql "$q_id" | grep -q '(id OPERATOR(public.<~) \$'; then
	pass "a remote bigint column's pre-check is in the Remote SQL"
else
	fail "a remote bigint column's pre-check is not in the Remote SQL: $(remote_sql "$q_id")"
fi
expect "the remote bigint pre-check: the local count" "$id_local" "$(local_q -c "$q_id")"
expect "the remote bigint pre-check: only the rows the filter passes cross" "$id_local" \
	"$(crossing_rows "$(at "SELECT r.id FROM @REL@ r WHERE r.id <~ (SELECT bloom_agg(id, 10) FROM small_ids)" fids)" fids)"
for agg in "bloom_agg(id, 10)" "bloom_agg(bloom_key(tenant, id), 10)"; do
	q="SELECT $agg FROM fids"
	if remote_sql "$q" | grep -q 'bloom_agg('; then
		pass "$agg over a remote table is in the Remote SQL"
	else
		fail "$agg over a remote table is not in the Remote SQL: $(remote_sql "$q")"
	fi
	expect "$agg over the remote table: the local bytes" \
		"$(local_q -c "SELECT md5($agg::bytea) FROM all_ids")" \
		"$(local_q -c "SELECT md5($agg::bytea) FROM fids")"
done

# ---- 6: the statements of doc/distributed.md ---------------------------------------

# Its `sql fdw remote` blocks run on both shards, then its `sql fdw` blocks
# on the local cluster, in order; the servers the document names
# (events1.internal and events2.internal, port 5432, database app) are the
# two shards.
# shellcheck source=test/lib/doc_blocks.sh
. test/lib/doc_blocks.sh
doc_sql() {
	sed -e "s|host 'events1.internal', port '5432'|host '$R1_SOCK', port '$R1_PORT'|" \
		-e "s|host 'events2.internal', port '5432'|host '$R2_SOCK', port '$R2_PORT'|" \
		-e "s|dbname 'app'|dbname 'postgres'|" "$1"
}
[ "$(doc_blocks doc/distributed.md 'sql fdw remote' "$WORK/doc-remote")" -gt 0 ] ||
	fail "doc/distributed.md has no 'sql fdw remote' block"
[ "$(doc_blocks doc/distributed.md 'sql fdw' "$WORK/doc-local")" -gt 0 ] ||
	fail "doc/distributed.md has no 'sql fdw' block"
for block in "$WORK"/doc-remote/*.sql "$WORK"/doc-local/*.sql; do
	[ -e "$block" ] || continue
	where="doc/distributed.md:$(doc_block_line "$block")"
	if [ "${block#"$WORK"/doc-remote/}" != "$block" ]; then
		doc_sql "$block" | r1_q >/dev/null 2>"$WORK/doc.err" &&
			doc_sql "$block" | r2_q >/dev/null 2>>"$WORK/doc.err" && rc=0 || rc=$?
	else
		doc_sql "$block" | local_q >/dev/null 2>"$WORK/doc.err" && rc=0 || rc=$?
	fi
	if [ "$rc" -eq 0 ]; then
		pass "$where: the document's block runs"
	else
		fail "$where: the document's block fails: $(head -c 400 "$WORK/doc.err")"
	fi
done

# ---- measurements (not checked) --------------------------------------------------

# ms QUERY: the query's time in milliseconds (psql's \timing), best of three
ms() {
	local_q -c '\timing on' -c "$1" -c "$1" -c "$1" |
		awk '/^Time: / { v = $2 + 0; if (best == "" || v < best) best = v }
			END { printf "%.0f\n", best }'
}
mfilter="(SELECT bloom_agg(k, 10) FROM mkeys)"
m_plain="SELECT count(*) FROM fm r JOIN mkeys s ON r.k = s.k"
m_pre="SELECT count(*) FROM fm r JOIN mkeys s ON r.k = s.k WHERE r.k <~ $mfilter"
m_count="SELECT count(*) FROM fm r WHERE r.k <~ $mfilter"
m_local="SELECT count(*) FROM fm_plain r JOIN mkeys s ON r.k = s.k WHERE r.k <~ $mfilter"
m_passed=$(local_q -c "$m_count")
m_present=$(local_q -c "$m_plain")
echo "fdw-measure: $MROWS remote rows, $MKEYS local keys ($m_present in the remote table)," \
	"filter at 10 bits per key: $(local_q -c "SELECT (bloom_info(bloom_agg(k, 10))).bytes FROM mkeys") bytes"
echo "fdw-measure: rows crossing: plain join $MROWS, with the pre-check $m_passed" \
	"($((m_passed - m_present)) false positives)"
echo "fdw-measure: plain join $(ms "$m_plain") ms; join with the pre-check $(ms "$m_pre") ms;" \
	"the pre-check alone, count(*) WHERE r.k <~ filter, $(ms "$m_count") ms;" \
	"join with the pre-check without extensions 'bloomfilter' (filtered locally) $(ms "$m_local") ms"
echo "fdw-measure: bloom_agg(k, 10) over $ROWS remote rows: computed on the remote side $(ms "SELECT bloom_agg(k, 10) FROM f1") ms," \
	"without extensions 'bloomfilter' (every row crosses) $(ms "SELECT bloom_agg(k, 10) FROM f1_plain") ms"
echo "fdw-measure: $((2 * ROWS)) rows on two shards: bloom_agg_merge of the remote partial states" \
	"$(ms "SELECT bloom_agg_merge(s) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM f1
		UNION ALL SELECT bloom_agg_partial(k, 10) FROM f2) x") ms," \
	"bloom_agg over the partitioned table (every row crosses) $(ms "SELECT bloom_agg(k, 10) FROM sharded") ms"

check_summary fdw
