#!/usr/bin/env bash
#
# test/citus_test.sh -- bloomfilter in a Citus cluster: a coordinator and
# two workers on Unix sockets, built from the offline kit in ../shared/citus
# (Citus 13.2.2 for PostgreSQL 15, 14.0.1 for 16 to 18).
#
# Checked, against the same rows in a plain table on the coordinator:
#   1. bloom_agg over a distributed table runs on the workers (EXPLAIN shows
#      the shard tasks) and gives the local bytes: overall, under GROUP BY
#      the distribution column, and under GROUP BY another column;
#   2. bloom_agg_merge(bloom_agg_partial(...)) and the reserved
#      bloom_agg(key, bits_per_key, expected_keys) the same;
#   3. a join pre-check, k <~ (SELECT bloom_agg(k, 10) FROM small), with the
#      small table distributed and as a reference table: the local count;
#      the same on a table distributed by a bigint key, probed with a filter
#      of integer keys, and bloom_agg of the bigint key on the workers;
#   4. a distributed table with a bloomfilter column: INSERT ... SELECT of
#      grouped filters, probes, GROUP BY and DISTINCT on the filters;
#   5. a table distributed by a bloomfilter column (Citus needs the type's
#      default B-tree class, from version 1.1): rows keep their bytes;
#   6. EXPLAIN ANALYZE of a pushed-down bloom_agg: works on Citus 14; fails
#      on Citus 13 ("pseudo-type cstring", a Citus limitation), checked as
#      such;
#   7. the statements of doc/distributed.md's `sql citus` blocks run on the
#      coordinator (test/lib/doc_blocks.sh).
#
# --measure also times the pushed-down aggregate against the local one and
# probes a distributed table with a 12.5 MB filter from a subquery
# ("citus-measure:" lines, never checked).
#
# Skips (prints "citus: skipped (...)" and exits 77) on a major Citus has
# no release for (19), and where the kit is missing or has no Citus for
# this major.  Needs the extension installed (make install) into the
# PostgreSQL of BLOOM_PG_BINDIR, else of bf_pg_bindir (BF_PG_MAJOR).
# Prints "citus: N passed, N failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

MEASURE=
ROWS=200000
while [ $# -gt 0 ]; do
	case $1 in
	--measure) MEASURE=1; shift ;;
	--rows) ROWS=${2:?--rows needs a number}; shift 2 ;;
	*) echo "citus_test.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

BINDIR=${BLOOM_PG_BINDIR:-$(bf_pg_bindir)}

# Said before looking for the kit: no kit could change it.
major=$("$BINDIR/pg_config" --version 2>/dev/null | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p') || true
if [ "${major:-0}" -ge 19 ]; then
	echo "citus: skipped (Citus has no release for PostgreSQL $major; Citus 14.0.1 supports 16 to 18)"
	exit 77
fi

KIT=${BLOOM_CITUS_KIT:-$(cd "$ROOT/.." && pwd)/shared/citus}
if [ ! -x "$KIT/build-citus.sh" ] || [ ! -f "$KIT/citus-cluster.sh" ]; then
	echo "citus: skipped (no Citus kit at $KIT)"
	exit 77
fi

rc=0
"$KIT/build-citus.sh" "$BINDIR/pg_config" || rc=$?
if [ "$rc" -eq 77 ]; then
	echo "citus: skipped (the kit has no Citus for $("$BINDIR/pg_config" --version))"
	exit 77
elif [ "$rc" -ne 0 ]; then
	fail "build-citus.sh failed (exit $rc)"
	check_summary citus
	exit 1
fi

# PostgreSQL 18's pg_config.h defines HAVE_LIBCURL, so Citus compiles its
# statistics code against libcurl although the kit configures it
# --without-libcurl, and then does not link libcurl: citus.so would not
# load (undefined symbol curl_easy_perform).  Where that is so, the servers
# get libcurl preloaded, and the test says so.
CITUS_SO=$("$BINDIR/pg_config" --pkglibdir)/citus.so
undefined=$(nm -D --undefined-only "$CITUS_SO" 2>/dev/null || true)
linked=$(ldd "$CITUS_SO" 2>/dev/null || true)
if grep -q ' curl_' <<<"$undefined" && ! grep -q 'libcurl' <<<"$linked"; then
	curl_lib=$(ldconfig -p 2>/dev/null | awk '/libcurl\.so\.4 / { print $NF; exit }')
	if [ -z "$curl_lib" ]; then
		echo "citus: skipped (the kit's citus.so needs libcurl, which is not installed)"
		exit 77
	fi
	export LD_PRELOAD=$curl_lib
	echo "note: the kit's citus.so uses libcurl without linking it; the servers preload $curl_lib"
fi

# shellcheck source=/dev/null
. "$KIT/citus-cluster.sh"
BASE=$(mktemp -d /tmp/cc.XXXXXX)
chmod 755 "$BASE"
PORT=$((40000 + RANDOM % 9000))
stop_cluster() {
	citus_cluster_stop "$BINDIR" "$BASE" >/dev/null 2>&1 || true
	rmdir "$BASE" 2>/dev/null || true
}
trap stop_cluster EXIT
if ! CITUS_EXTENSIONS=bloomfilter citus_cluster_start "$BINDIR" "$BASE" "$PORT" >"$BASE/start.log" 2>&1; then
	cat "$BASE/start.log"
	fail "the Citus cluster did not start"
	check_summary citus
	exit 1
fi
rm -f "$BASE/start.log"

q() { "$BINDIR/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
CITUS_VERSION=$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'")
echo "Citus $CITUS_VERSION on $(q -c "SHOW server_version"), coordinator and 2 workers"

# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: got '$3', want '$2'"
	fi
}

# same_rows NAME QUERY_A QUERY_B: the two queries return the same rows
same_rows() {
	local a b
	a=$(q -c "$2" | sort)
	b=$(q -c "$3" | sort)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		pass "$1 ($(wc -l <<<"$a") rows)"
	else
		fail "$1: $(comm -3 <(echo "$a") <(echo "$b") | wc -l) rows differ"
	fi
}

q >/dev/null <<SQL
CREATE TABLE t (i int, g int, k text);
SELECT create_distributed_table('t', 'i', shard_count => 32);
INSERT INTO t SELECT i, i % 100, md5(i::text) FROM generate_series(1, $ROWS) i;
CREATE TABLE lt AS SELECT i, i % 100 AS g, md5(i::text) AS k FROM generate_series(1, $ROWS) i;
CREATE TABLE small_dist (k text);
SELECT create_distributed_table('small_dist', 'k');
INSERT INTO small_dist SELECT md5(i::text) FROM generate_series(1, $ROWS, 100) i
	UNION ALL SELECT md5('absent-' || i) FROM generate_series(1, 1000) i;
CREATE TABLE small_ref (k text);
SELECT create_reference_table('small_ref');
INSERT INTO small_ref SELECT k FROM small_dist;
CREATE TABLE small_local AS SELECT k FROM small_dist;
CREATE TABLE events (user_id bigint, n int);
SELECT create_distributed_table('events', 'user_id', shard_count => 32);
INSERT INTO events SELECT i * 7919, i FROM generate_series(1, $ROWS) i;
CREATE TABLE levents AS SELECT i * 7919 AS user_id, i AS n FROM generate_series(1, $ROWS) i;
CREATE TABLE vip (user_id integer);
SELECT create_reference_table('vip');
INSERT INTO vip SELECT i * 7919 FROM generate_series(1, $ROWS, 100) i
	UNION ALL SELECT i * 7919 + 1 FROM generate_series(1, 1000) i;
ANALYZE t; ANALYZE lt; ANALYZE events; ANALYZE levents;
SQL

# ---- 1. bloom_agg on the workers -------------------------------------------------

plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(k, 10) FROM t")
# the shard query computes bloom_agg's partial state (Citus: worker_partial_agg
# of bloom_agg) and the coordinator only combines
if grep -q 'Task Count: 32' <<<"$plan" &&
	grep -qE 'Query: SELECT .*(worker_partial_agg\(.*bloom_agg|bloom_agg\()' <<<"$plan"; then
	pass "bloom_agg runs on the workers: 32 shard tasks compute its partial state"
else
	fail "bloom_agg is not pushed to the shards: $plan"
fi
expect "bloom_agg over the distributed table: the local bytes" \
	"$(q -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM lt")" \
	"$(q -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM t")"
same_rows "GROUP BY the distribution column: every group's bytes are local" \
	"SELECT i, md5(bloom_agg(k, 10)::bytea) FROM t WHERE i <= 20000 GROUP BY i" \
	"SELECT i, md5(bloom_agg(k, 10)::bytea) FROM lt WHERE i <= 20000 GROUP BY i"
same_rows "GROUP BY another column: every group's bytes are local" \
	"SELECT g, md5(bloom_agg(k, 10)::bytea) FROM t GROUP BY g" \
	"SELECT g, md5(bloom_agg(k, 10)::bytea) FROM lt GROUP BY g"

# ---- 2. the two-phase and reserved aggregates ------------------------------------

expect "bloom_agg_merge(bloom_agg_partial) over the distributed table: bloom_agg's bytes" \
	"$(q -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM lt")" \
	"$(q -c "SELECT md5(bloom_agg_merge(s)::bytea) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM t) x")"
same_rows "bloom_agg_merge of per-group partial states: bloom_agg's bytes per group" \
	"SELECT g, md5(bloom_agg_merge(s)::bytea) FROM (SELECT g, bloom_agg_partial(k, 10) AS s FROM t GROUP BY g) x GROUP BY g" \
	"SELECT g, md5(bloom_agg(k, 10)::bytea) FROM lt GROUP BY g"
expect "the reserved bloom_agg(k, 10, expected_keys): the local bytes" \
	"$(q -c "SELECT md5(bloom_agg(k, 10, $ROWS)::bytea) FROM lt")" \
	"$(q -c "SELECT md5(bloom_agg(k, 10, $ROWS)::bytea) FROM t")"

# ---- 3. join pre-check -------------------------------------------------------------

want=$(q -c "SELECT count(*) FROM lt WHERE k <~ (SELECT bloom_agg(k, 10) FROM small_local)")
expect "pre-check with a distributed small table: the local count" "$want" \
	"$(q -c "SELECT count(*) FROM t WHERE k <~ (SELECT bloom_agg(k, 10) FROM small_dist)")"
expect "pre-check with a reference small table: the local count" "$want" \
	"$(q -c "SELECT count(*) FROM t WHERE k <~ (SELECT bloom_agg(k, 10) FROM small_ref)")"
expect "join with the pre-check: the plain join's count" \
	"$(q -c "SELECT count(*) FROM t JOIN small_ref s USING (k)")" \
	"$(q -c "SELECT count(*) FROM t JOIN small_ref s USING (k) WHERE t.k <~ (SELECT bloom_agg(k, 10) FROM small_ref)")"

want=$(q -c "SELECT count(*) FROM levents WHERE user_id <~ (SELECT bloom_agg(user_id, 10) FROM vip)")
expect "pre-check of a table distributed by a bigint key, integer keys' filter: the local count" "$want" \
	"$(q -c "SELECT count(*) FROM events WHERE user_id <~ (SELECT bloom_agg(user_id, 10) FROM vip)")"
expect "join on the bigint key with the pre-check: the plain join's count" \
	"$(q -c "SELECT count(*) FROM events e JOIN vip v ON e.user_id = v.user_id")" \
	"$(q -c "SELECT count(*) FROM events e JOIN vip v ON e.user_id = v.user_id
		WHERE e.user_id <~ (SELECT bloom_agg(user_id, 10) FROM vip)")"
expect "bloom_agg of the bigint distribution column on the workers: the local bytes" \
	"$(q -c "SELECT md5(bloom_agg(user_id, 10)::bytea) FROM levents")" \
	"$(q -c "SELECT md5(bloom_agg(user_id, 10)::bytea) FROM events")"

# ---- 4. a bloomfilter column in a distributed table -------------------------------

q >/dev/null <<'SQL'
CREATE TABLE bf (g int, f bloomfilter);
SELECT create_distributed_table('bf', 'g');
INSERT INTO bf SELECT g, bloom_agg(k, 10) FROM t GROUP BY g;
INSERT INTO bf VALUES (1000, '\x000820208080000206');
CREATE TABLE lbf AS SELECT g, bloom_agg(k, 10) AS f FROM lt GROUP BY g;
INSERT INTO lbf VALUES (1000, '\x000820208080000206');
SQL
same_rows "stored filters keep their bytes" \
	"SELECT g, md5(f::bytea) FROM bf" "SELECT g, md5(f::bytea) FROM lbf"
expect "probing the stored filters: the local answers" \
	"$(q -c "SELECT string_agg(g::text, ',' ORDER BY g) FROM lbf WHERE md5('4242') <~ f OR 'abc' <~ f")" \
	"$(q -c "SELECT string_agg(g::text, ',' ORDER BY g) FROM bf WHERE md5('4242') <~ f OR 'abc' <~ f")"
expect "GROUP BY and count(DISTINCT) on the filters" \
	"$(q -c "SELECT count(*), count(DISTINCT f) FROM (SELECT f FROM lbf GROUP BY f) x")" \
	"$(q -c "SELECT count(*), count(DISTINCT f) FROM (SELECT f FROM bf GROUP BY f) x")"

# ---- 5. distributed by a bloomfilter column ---------------------------------------

out=$(q -c "CREATE TABLE by_filter (f bloomfilter, g int);
	SELECT create_distributed_table('by_filter', 'f');
	INSERT INTO by_filter SELECT f, g FROM lbf;" 2>&1) && rc=0 || rc=$?
if [ "$rc" -eq 0 ]; then
	pass "create_distributed_table by a bloomfilter column"
	same_rows "rows distributed by their filter keep their bytes" \
		"SELECT g, md5(f::bytea) FROM by_filter" "SELECT g, md5(f::bytea) FROM lbf"
	expect "a filter finds its own row by equality" 1 \
		"$(q -c "SELECT count(*) FROM by_filter WHERE f = (SELECT f FROM lbf WHERE g = 7)")"
else
	fail "create_distributed_table by a bloomfilter column: $out"
fi

# ---- 6. EXPLAIN ANALYZE of a pushed-down bloom_agg ---------------------------------

out=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT bloom_agg(k, 10) FROM t" 2>&1) && rc=0 || rc=$?
case $CITUS_VERSION in
13.*)
	if [ "$rc" -ne 0 ] && grep -q 'cstring' <<<"$out"; then
		pass "Citus 13: EXPLAIN ANALYZE of the pushed-down bloom_agg fails with \"pseudo-type cstring\", a Citus 13 limitation"
	else
		fail "Citus 13: EXPLAIN ANALYZE of the pushed-down bloom_agg: exit $rc, $out"
	fi
	;;
*)
	if [ "$rc" -eq 0 ]; then
		pass "Citus $CITUS_VERSION: EXPLAIN ANALYZE of the pushed-down bloom_agg works"
	else
		fail "Citus $CITUS_VERSION: EXPLAIN ANALYZE of the pushed-down bloom_agg: $out"
	fi
	;;
esac

# ---- 7. the statements of doc/distributed.md ---------------------------------------

# shellcheck source=test/lib/doc_blocks.sh
. test/lib/doc_blocks.sh
[ "$(doc_blocks doc/distributed.md 'sql citus' "$BASE/doc")" -gt 0 ] ||
	fail "doc/distributed.md has no 'sql citus' block"
for block in "$BASE"/doc/*.sql; do
	[ -e "$block" ] || continue
	if q -f "$block" >/dev/null 2>"$BASE/doc.err"; then
		pass "doc/distributed.md:$(doc_block_line "$block"): the document's block runs"
	else
		fail "doc/distributed.md:$(doc_block_line "$block"): the document's block fails: $(head -c 400 "$BASE/doc.err")"
	fi
done
rm -rf "$BASE/doc" "$BASE/doc.err"

# ---- measurements (not checked) ----------------------------------------------------

# ms QUERY: the best of three wall times, in milliseconds
ms() {
	local best='' t0 t1 i
	for i in 1 2 3; do
		t0=$(date +%s%N)
		q -c "$1" >/dev/null
		t1=$(date +%s%N)
		i=$(((t1 - t0) / 1000000))
		if [ -z "$best" ] || [ "$i" -lt "$best" ]; then best=$i; fi
	done
	echo "$best"
}
echo "citus-measure: bloom_agg(k, 10) over $ROWS rows in 32 shards: $(ms "SELECT bloom_agg(k, 10) FROM t") ms;" \
	"over the same rows in a local table: $(ms "SELECT bloom_agg(k, 10) FROM lt") ms"
if [ -n "$MEASURE" ]; then
	q >/dev/null <<'SQL'
CREATE TABLE big_filter AS SELECT bloom_agg(md5(i::text), 10) AS f FROM generate_series(1, 10000000) i;
SELECT create_reference_table('big_filter');
CREATE TABLE big_filter_local AS SELECT f FROM big_filter;
SQL
	echo "citus-measure: a $(q -c "SELECT octet_length(f::bytea) FROM big_filter_local")-byte filter from a subquery" \
		"probing $ROWS distributed rows: $(ms "SELECT count(*) FROM t WHERE k <~ (SELECT f FROM big_filter_local)") ms;" \
		"the same rows locally: $(ms "SELECT count(*) FROM lt WHERE k <~ (SELECT f FROM big_filter_local)") ms"
fi

check_summary citus
