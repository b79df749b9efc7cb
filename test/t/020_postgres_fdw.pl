# test/t/020_postgres_fdw.pl -- bloomfilter across servers with
# postgres_fdw.
#
# Three clusters: a local one, and two remote shards, each holding half of
# a table t(id, k).  The local cluster reaches them through postgres_fdw,
# once with OPTIONS (extensions 'bloomfilter') and once without.  Checked:
#
#   1. with the option, the filter reaches the remote side in every form a
#      query gives it (a scalar subquery, a constant, a prepared statement's
#      parameter, ~> and bloom_may_contain as well as <~, a join's
#      pre-check): it is in the Remote SQL, the foreign scan returns only
#      the rows the filter passes, and the answer is the local one;
#   2. without it, the filter is applied locally: no `<~` in the Remote SQL,
#      every row crosses, and the answer is still the same; a filter joined
#      from a local table of filters gives the local answer too; a filter
#      stored on the remote server and joined is pushed down with the join
#      (and the count): only the rows it passes cross, and it never does;
#   3. a constant key probing filters stored on the remote side: the local
#      answer (a bytea key is shipped; a text one postgres_fdw keeps local);
#   4. bloom_agg, bloom_agg_partial and bloom_union_agg are in the Remote
#      SQL, and the bytes equal those over a local copy of the rows;
#   5. the two-shard build, bloom_agg_merge(bloom_agg_partial(...)) over
#      both foreign tables (and over a partitioned table of them), gives the
#      bytes of bloom_agg over all rows; mixed bits_per_key is an error
#      naming both;
#   6. typed keys: a remote bigint column probed with a filter of local
#      integer keys, and a remote uuid column probed with a filter of local
#      uuid keys, ship as `<~` and cross only the rows they pass, with the
#      local answer; bloom_agg of the bigint column, of the uuid column and
#      of a multi-column bloom_key are computed remotely with the local
#      bytes;
#   7. the statements of doc/distributed.md's `sql fdw remote` blocks run on
#      both shards, then its `sql fdw` blocks on the local cluster, with the
#      servers the document names (events1.internal and events2.internal,
#      port 5432, database app) made the two shards; its join without a
#      written pre-check gets the filter bloomfilter.join_filter adds.
#
# The local server runs with bloomfilter.join_filter on (loaded by
# session_preload_libraries), so every check holds with the filters the
# planner adds as well.
#
# It also times the join pre-check against the plain join, over a remote
# table of its own, and says so in "fdw-measure:" notes (never checked):
# 200000 remote rows and 2000 local keys, or with BF_MEASURE=1 1000000 and
# 10000 (the figures of doc/distributed.md).  "fdw-note:" notes say which
# forms postgres_fdw keeps local.
use strict;
use warnings;

use BloomFilter::Test;
use Test::More;

my $rows = 100000;
my ($mrows, $mkeys) = $ENV{BF_MEASURE} ? (1000000, 10000) : (200000, 2000);

# The local server plans with bloomfilter.join_filter on, loaded in every
# session: each check below holds with the filters it adds too.
my $local = bloom_node('local', "session_preload_libraries = 'bloomfilter'", 'bloomfilter.join_filter = on');
my $r1 = bloom_node('r1');
my $r2 = bloom_node('r2');

sub lq { return $local->safe_psql('postgres', $_[0]); }

if (lq("SELECT count(*) FROM pg_available_extensions WHERE name = 'postgres_fdw'") ne '1')
{
	fail('postgres_fdw is not available in ' . pg_bindir() . ' (contrib)');
	done_testing();
	exit;
}

# ---- the shards and the local copies ------------------------------------------

sub shard_sql
{
	my ($from, $to) = @_;
	return qq{
CREATE EXTENSION bloomfilter;
CREATE TABLE t (id int PRIMARY KEY, k text NOT NULL);
INSERT INTO t SELECT i, md5(i::text) FROM generate_series($from, $to) i;
ANALYZE t;};
}
$r1->safe_psql('postgres', shard_sql(1, $rows));
$r2->safe_psql('postgres', shard_sql($rows + 1, 2 * $rows));
# on r1 also: stored filters, probed with a constant key; the measurement
# table; typed keys (bigint ids and uuids)
$r1->safe_psql('postgres', qq{
CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter);
INSERT INTO filters SELECT g, bloom_agg(md5(i::text), 10) FROM generate_series(1, 1000) i
	CROSS JOIN generate_series(0, 4) g WHERE i % 5 = g GROUP BY g;
CREATE TABLE m (id int, k text);
INSERT INTO m SELECT i, md5('m' || i) FROM generate_series(1, $mrows) i;
CREATE TABLE ids (id bigint, tenant integer, u uuid);
INSERT INTO ids SELECT i * 7919, i % 10, md5('u' || i)::uuid FROM generate_series(1, $rows) i;
ANALYZE filters; ANALYZE m; ANALYZE ids;
});

my ($h1, $p1, $h2, $p2) = ($r1->host, $r1->port, $r2->host, $r2->port);
my $half = $rows + 1;
my $end = 2 * $rows + 1;
my $mstep = int(2 * $mrows / $mkeys);
my $mabsent = int($mkeys / 2);
lq(qq{
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER r1 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$h1', port '$p1', dbname 'postgres', extensions 'bloomfilter');
CREATE SERVER r1_plain FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$h1', port '$p1', dbname 'postgres');
CREATE SERVER r2 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$h2', port '$p2', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER r1;
CREATE USER MAPPING FOR CURRENT_USER SERVER r1_plain;
CREATE USER MAPPING FOR CURRENT_USER SERVER r2;
CREATE FOREIGN TABLE f1 (id int, k text) SERVER r1 OPTIONS (table_name 't');
CREATE FOREIGN TABLE f1_plain (id int, k text) SERVER r1_plain OPTIONS (table_name 't');
CREATE FOREIGN TABLE f2 (id int, k text) SERVER r2 OPTIONS (table_name 't');
CREATE FOREIGN TABLE ffilters (id int, f bloomfilter) SERVER r1 OPTIONS (table_name 'filters');
CREATE FOREIGN TABLE fm (id int, k text) SERVER r1 OPTIONS (table_name 'm');
CREATE FOREIGN TABLE fm_plain (id int, k text) SERVER r1_plain OPTIONS (table_name 'm');
CREATE FOREIGN TABLE fids (id bigint, tenant integer, u uuid) SERVER r1 OPTIONS (table_name 'ids');
-- one sharded table: each partition a foreign table on its server
CREATE TABLE sharded (id int, k text) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE sharded_1 PARTITION OF sharded FOR VALUES FROM (1) TO ($half)
	SERVER r1 OPTIONS (table_name 't');
CREATE FOREIGN TABLE sharded_2 PARTITION OF sharded FOR VALUES FROM ($half) TO ($end)
	SERVER r2 OPTIONS (table_name 't');
-- the same rows, local
CREATE TABLE all_rows AS SELECT i AS id, md5(i::text) AS k FROM generate_series(1, 2 * $rows) i;
-- the keys to pre-check: 1 in 50 of shard 1's keys and as many absent ones
CREATE TABLE small AS
	SELECT md5(i::text) AS k FROM generate_series(1, $rows, 50) i
	UNION ALL SELECT md5('absent-' || i) FROM generate_series(1, $rows, 50) i;
-- a local table of filters, joined to the remote rows
CREATE TABLE local_filters AS SELECT bloom_agg(k, 10) AS f FROM small;
-- the measurement's keys: half of them in m
CREATE TABLE mkeys AS
	SELECT md5('m' || i) AS k FROM generate_series(1, $mrows, $mstep) i
	UNION ALL SELECT md5('absent-' || i) FROM generate_series(1, $mabsent) i;
-- the same ids, local; and integer and uuid keys to pre-check: 1 in 50 of
-- them and as many absent ones
CREATE TABLE all_ids AS SELECT i * 7919 AS id, i % 10 AS tenant, md5('u' || i)::uuid AS u
	FROM generate_series(1, $rows) i;
CREATE TABLE small_ids AS
	SELECT (i * 7919)::integer AS id FROM generate_series(1, $rows, 50) i
	UNION ALL SELECT (i * 7919 + 1)::integer FROM generate_series(1, $rows, 50) i;
CREATE TABLE small_uuids AS
	SELECT md5('u' || i)::uuid AS u FROM generate_series(1, $rows, 50) i
	UNION ALL SELECT md5('absent-' || i)::uuid FROM generate_series(1, $rows, 50) i;
ANALYZE all_rows; ANALYZE small; ANALYZE mkeys; ANALYZE all_ids; ANALYZE small_ids;
ANALYZE small_uuids; ANALYZE local_filters;
});

# remote_sql(QUERY): the Remote SQL lines of EXPLAIN VERBOSE, one string
sub remote_sql
{
	my $plan = lq("EXPLAIN (VERBOSE, COSTS OFF) $_[0]");
	return join("\n", $plan =~ /^\s*Remote SQL: (.*)$/mg);
}

# crossing_rows(QUERY, RELATION): the rows the foreign scan of RELATION
# received from the remote server: those it returned plus those a local
# filter removed
sub crossing_rows
{
	my ($query, $rel) = @_;
	my ($n, $inscan) = (0, 0);
	foreach (split /\n/,
		lq("EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query"))
	{
		if (/Foreign Scan on /)
		{
			$inscan = index($_, "Foreign Scan on public.$rel ") >= 0;
			$n += $1 if $inscan && /actual rows=(\d+)/;
		}
		elsif ($inscan && /Rows Removed by Filter: (\d+)/)
		{
			$n += $1;
		}
		elsif (/->/)
		{
			$inscan = 0;
		}
	}
	return $n;
}

# shipped(NAME, QUERY, PATTERN): PATTERN is in QUERY's Remote SQL
sub shipped
{
	my ($name, $query, $pattern) = @_;
	my $sql = remote_sql($query);
	return ok($sql =~ $pattern, $name) || diag("Remote SQL: " . substr($sql, 0, 400));
}

# pre_checked(WHAT, QUERY, RELATION, LOCAL): QUERY (SELECT count(*) FROM
# RELATION r WHERE ...) ships its filter as `<~` to RELATION's server, gives
# the LOCAL count, and only the rows the filter passes cross
sub pre_checked
{
	my ($what, $query, $rel, $want) = @_;
	shipped("$what: the filter is in the Remote SQL", $query, qr/<~|~>/);
	is(lq($query), $want, "$what: the count equals the local one");
	(my $rows_q = $query) =~ s/^SELECT count\(\*\)/SELECT r.*/;
	is(crossing_rows($rows_q, $rel), $want,
		"$what: only the rows the filter passes cross");
}

# ---- 1, 2: the filter reaches the remote side, or is applied locally ----------

my $filter = '(SELECT bloom_agg(k, 10) FROM small)';
my $local_count = lq("SELECT count(*) FROM all_rows r WHERE id <= $rows AND r.k <~ $filter");
ok($local_count > 0 && $local_count < $rows,
	"the filter passes $local_count of $rows local rows (some, not all)");

pre_checked('with extensions \'bloomfilter\', a subquery filter',
	"SELECT count(*) FROM f1 r WHERE r.k <~ $filter", 'f1', $local_count);
pre_checked('the commutator, filter ~> key',
	"SELECT count(*) FROM f1 r WHERE $filter ~> r.k", 'f1', $local_count);
shipped('bloom_may_contain(key, filter) is in the Remote SQL',
	"SELECT count(*) FROM f1 r WHERE bloom_may_contain(r.k, $filter)", qr/bloom_may_contain\(/);
is(lq("SELECT count(*) FROM f1 r WHERE bloom_may_contain(r.k, $filter)"), $local_count,
	'bloom_may_contain(key, filter): the count equals the local one');

my $q1p = "SELECT count(*) FROM f1_plain r WHERE r.k <~ $filter";
my $plain_sql = remote_sql($q1p);
ok($plain_sql ne '' && $plain_sql !~ /<~/, 'without the option: <~ is not in the Remote SQL')
  || diag("Remote SQL: $plain_sql");
is(lq($q1p), $local_count, 'without the option: the count is still the local one');
is(crossing_rows("SELECT r.k FROM f1_plain r WHERE r.k <~ $filter", 'f1_plain'), $rows,
	'without the option: every row crosses');

# the join pre-check users write: the same answer as the plain join
my $join_pre_where = "FROM f1 r JOIN small s ON r.k = s.k WHERE r.k <~ $filter";
is(lq("SELECT count(*) $join_pre_where"), lq("SELECT count(*) FROM f1 r JOIN small s ON r.k = s.k"),
	'join with the pre-check equals the plain join');
is(crossing_rows("SELECT r.k $join_pre_where", 'f1'), $local_count,
	'join with the pre-check: only the rows the filter passes cross');

# a filter written into the query as a constant (a psql variable, a literal)
my $filt = lq("SELECT bloom_agg(k, 10) FROM small");
my $q_lit = "SELECT count(*) FROM f1 r WHERE r.k <~ '$filt'::bloomfilter";
shipped('a constant filter is shipped as a literal in the Remote SQL', $q_lit, qr/<~\) E'/);
is(lq($q_lit), $local_count, 'with a constant filter: the count equals the local one');

# a prepared statement's parameter, in its generic plan (a Param, shipped
# as $1) and in a custom plan (a constant)
foreach my $mode ('force_generic_plan', 'force_custom_plan')
{
	my $prep = "SET plan_cache_mode = $mode;
		PREPARE p(bloomfilter) AS SELECT count(*) FROM f1 r WHERE r.k <~ \$1";
	my $explain = lq("$prep; EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p('$filt')");
	ok($explain =~ /Remote SQL: .*<~/, "a prepared statement's parameter ($mode) is in the Remote SQL")
	  || diag($explain);
	is(lq("$prep; EXECUTE p('$filt')"), $local_count,
		"a prepared statement's parameter ($mode): the count equals the local one");
}

# a filter joined from a local table of filters: never shipped (a join
# condition), so the remote rows cross, and the answer is the local one
is(lq("SELECT count(*) FROM f1 r JOIN local_filters lf ON r.k <~ lf.f"), $local_count,
	'a filter joined from a local table: the count equals the local one');
note('fdw-note: a filter joined from a local table: '
	  . crossing_rows("SELECT r.k FROM f1 r JOIN local_filters lf ON r.k <~ lf.f", 'f1')
	  . " rows cross of $rows");

# a filter stored on the remote server, joined: postgres_fdw pushes the
# join (and the count) down, so the filter never crosses, and only the
# rows it passes do; the answer is the local one
my $stored_filter = "(SELECT g AS id, bloom_agg(md5(i::text), 10) AS f
	FROM generate_series(1, 1000) i CROSS JOIN generate_series(0, 4) g WHERE i % 5 = g GROUP BY g) lf";
my $stored_want = lq("SELECT count(*) FROM all_rows r JOIN $stored_filter ON lf.id = 2 AND r.k <~ lf.f
	WHERE r.id <= $rows");
ok($stored_want > 0 && $stored_want < $rows,
	"a stored filter passes $stored_want of $rows local rows (some, not all)");
my $stored_join = 'FROM f1 r JOIN ffilters lf ON lf.id = 2 AND r.k <~ lf.f';
shipped('a filter stored on the remote server, joined: the join and the count are in the Remote SQL',
	"SELECT count(*) $stored_join",
	qr/^SELECT count\(\*\) FROM \(public\.t r\d INNER JOIN public\.filters r\d ON .*<~/);
is(lq("SELECT count(*) $stored_join"), $stored_want,
	'a filter stored on the remote server, joined: the count equals the local one');
my $stored_rows = lq("EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT r.k $stored_join");
# (18 prints rows with two decimals)
ok($stored_rows =~ /^Foreign Scan \(actual rows=(\d+)(?:\.\d+)? /m && $1 == $stored_want
	  && $stored_rows =~ /Relations: \(public\.f1 r\) INNER JOIN \(public\.ffilters lf\)/,
	"a filter stored on the remote server, joined: one foreign scan of the join, only the $stored_want rows it passes cross")
  || diag($stored_rows);

# ---- 3: constant keys probing filters stored on the remote side ----------------

# A text constant has the default collation, which postgres_fdw does not
# ship unless it comes from a remote column; a bytea key has none.
my $local_filters = "(SELECT g AS id, bloom_agg(md5(i::text), 10) AS f
	FROM generate_series(1, 1000) i CROSS JOIN generate_series(0, 4) g WHERE i % 5 = g GROUP BY g) l";
foreach my $key ("md5('7')", "decode(md5('7'), 'escape')", "md5('absent')")
{
	my $q_key = "SELECT string_agg(id::text, ',' ORDER BY id) FROM %s WHERE $key <~ f";
	my $want = lq(sprintf($q_key, $local_filters));
	is(lq(sprintf($q_key, 'ffilters')), $want,
		"a constant key $key probing remote stored filters: the local answer ($want)");
	my $ships = remote_sql(sprintf($q_key, 'ffilters')) =~ /<~/;
	if ($key =~ /^decode/)
	{
		ok($ships, "a bytea constant key $key probing remote stored filters is shipped");
	}
	else
	{
		note("fdw-note: $key <~ stored_filter is "
			  . ($ships ? 'shipped' : 'filtered locally (every filter crosses)'));
	}
}

# ---- 4: whole aggregates on the remote side ----------------------------------

my $local_md5 = lq("SELECT md5(bloom_agg(k, 10)::bytea) FROM all_rows WHERE id <= $rows");
shipped('bloom_agg is in the Remote SQL', 'SELECT bloom_agg(k, 10) FROM f1', qr/bloom_agg\(/);
is(lq('SELECT md5(bloom_agg(k, 10)::bytea) FROM f1'), $local_md5,
	'bloom_agg over the foreign table: the local bytes');
shipped('bloom_agg_partial is in the Remote SQL', 'SELECT bloom_agg_partial(k, 10) FROM f1',
	qr/bloom_agg_partial\(/);
is(lq('SELECT md5(bloom_agg_merge(s)::bytea) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM f1) x'),
	$local_md5, 'bloom_agg_merge of the remote partial state: the local bytes');
is(lq("SELECT count(*) FROM (
		(SELECT id % 7 AS g, md5(bloom_agg(k, 10)::bytea) FROM f1 GROUP BY 1
		 EXCEPT SELECT id % 7, md5(bloom_agg(k, 10)::bytea) FROM all_rows WHERE id <= $rows GROUP BY 1)
		UNION ALL
		(SELECT id % 7, md5(bloom_agg(k, 10)::bytea) FROM all_rows WHERE id <= $rows GROUP BY 1
		 EXCEPT SELECT id % 7 AS g, md5(bloom_agg(k, 10)::bytea) FROM f1 GROUP BY 1)) d"),
	0, 'under GROUP BY, every group\'s filter equals the local one');
shipped('bloom_union_agg of remote stored filters is in the Remote SQL',
	'SELECT bloom_union_agg(f) FROM ffilters', qr/bloom_union_agg\(/);
is(lq('SELECT md5(bloom_union_agg(f)::bytea) FROM ffilters'),
	lq("SELECT md5(bloom_union_agg(f)::bytea) FROM $local_filters"),
	'bloom_union_agg of remote stored filters: the local bytes');

# ---- 5: two shards, one filter -------------------------------------------------

my $all_md5 = lq('SELECT md5(bloom_agg(k, 10)::bytea) FROM all_rows');
my $two_shard = 'SELECT md5(bloom_agg_merge(s)::bytea) FROM (
	SELECT bloom_agg_partial(k, 10) AS s FROM f1 UNION ALL SELECT bloom_agg_partial(k, 10) FROM f2) x';
my @partials = remote_sql($two_shard) =~ /bloom_agg_partial\(/g;
is(scalar(@partials), 2, 'both shards compute bloom_agg_partial remotely');
is(lq($two_shard), $all_md5, 'two shards merged: bloom_agg\'s bytes over all rows');
is(lq('SELECT md5(bloom_agg(k, 10)::bytea) FROM sharded'), $all_md5,
	'bloom_agg over the partitioned table of both shards: the same bytes');
is(lq('SET enable_partitionwise_aggregate = on;
		SELECT md5(bloom_agg_merge(s)::bytea) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM sharded GROUP BY tableoid) x'),
	$all_md5, 'merged per partition of the sharded table: the same bytes');
my ($rc, $out, $err) = $local->psql('postgres', 'SELECT bloom_agg_merge(s) FROM (
	SELECT bloom_agg_partial(k, 10) AS s FROM f1 UNION ALL SELECT bloom_agg_partial(k, 12) FROM f2) x',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
ok($rc != 0
	  && $err =~ /(^|: )ERROR: +22023: bloom_agg bits_per_key must be the same/m
	  && $err =~ /^DETAIL: .* (10 bits per key and then got 12|12 bits per key and then got 10)/m,
	'mixed bits_per_key across shards: 22023, naming 10 and 12') || diag($err);

# ---- 6: typed keys ----------------------------------------------------------------

foreach my $typed (
	[ 'integer keys', 'a remote bigint column', 'id', 'small_ids' ],
	[ 'uuid keys', 'a remote uuid column', 'u', 'small_uuids' ])
{
	my ($keys, $column, $col, $small) = @$typed;
	my $pre = "SELECT count(*) FROM %s r WHERE r.$col <~ (SELECT bloom_agg($col, 10) FROM $small)";
	my $want = lq(sprintf($pre, 'all_ids'));
	ok($want > 0 && $want < $rows,
		"a filter of $keys passes $want of $rows local rows (some, not all)");
	shipped("$column\'s pre-check ships as `$col <~ \$1`", sprintf($pre, 'fids'),
		qr/\($col OPERATOR\(public\.<~\) \$/);
	is(lq(sprintf($pre, 'fids')), $want, "$column\'s pre-check: the local count");
	(my $rows_q = sprintf($pre, 'fids')) =~ s/^SELECT count\(\*\)/SELECT r.$col/;
	is(crossing_rows($rows_q, 'fids'), $want,
		"$column\'s pre-check: only the rows the filter passes cross");
}
foreach my $agg ('bloom_agg(id, 10)', 'bloom_agg(u, 10)', 'bloom_agg(bloom_key(tenant, id), 10)')
{
	shipped("$agg over a remote table is in the Remote SQL", "SELECT $agg FROM fids",
		qr/bloom_agg\(/);
	is(lq("SELECT md5(${agg}::bytea) FROM fids"), lq("SELECT md5(${agg}::bytea) FROM all_ids"),
		"$agg over the remote table: the local bytes");
}

# ---- 7: the statements of doc/distributed.md ---------------------------------------

sub doc_sql
{
	my $sql = shift;
	$sql =~ s/host 'events1\.internal', port '5432'/host '$h1', port '$p1'/g;
	$sql =~ s/host 'events2\.internal', port '5432'/host '$h2', port '$p2'/g;
	$sql =~ s/dbname 'app'/dbname 'postgres'/g;
	return $sql;
}
my @remote_blocks = doc_blocks('doc/distributed.md', 'sql fdw remote');
my @local_blocks = doc_blocks('doc/distributed.md', 'sql fdw');
ok(@remote_blocks > 0, "doc/distributed.md has 'sql fdw remote' blocks");
ok(@local_blocks > 0, "doc/distributed.md has 'sql fdw' blocks");
doc_block_runs('doc/distributed.md', $_, doc_sql($_->{sql}), $r1, $r2) foreach @remote_blocks;
doc_block_runs('doc/distributed.md', $_, doc_sql($_->{sql}), $local) foreach @local_blocks;

# The document's join without a written pre-check gets one from
# bloomfilter.join_filter, as its comments show, with the same answer.
my $doc_join = 'SELECT count(*) FROM events e JOIN vip v ON e.user_id = v.user_id';
my $doc_plan = lq("LOAD 'bloomfilter'; SET bloomfilter.join_filter = on; EXPLAIN (VERBOSE, COSTS OFF) $doc_join");
like($doc_plan, qr/InitPlan.*bloom_agg\(v_1\.user_id, \d+\).*Remote SQL: SELECT user_id FROM public\.events WHERE \(\(user_id OPERATOR\(public\.<~\) \$1::public\.bloomfilter\)\)/s,
	"doc/distributed.md's join gets the filter its comments show with bloomfilter.join_filter on");
is(lq("LOAD 'bloomfilter'; SET bloomfilter.join_filter = on; $doc_join"), lq($doc_join),
	"doc/distributed.md's join: the answer of the setting off");

# ---- measurements (not checked) --------------------------------------------------

# The plain join is timed as users without the setting run it; the join
# the setting filters is timed apart (once the foreign table has the
# statistics it decides by).
lq('ANALYZE fm');
my $m_auto_ms = best_ms($local, 'SELECT count(*) FROM fm r JOIN mkeys s ON r.k = s.k');
lq('ALTER SYSTEM SET bloomfilter.join_filter = off');
lq('SELECT pg_reload_conf()');
$local->poll_query_until('postgres', "SELECT current_setting('bloomfilter.join_filter') = 'off'");

my $mfilter = '(SELECT bloom_agg(k, 10) FROM mkeys)';
my $m_plain = 'SELECT count(*) FROM fm r JOIN mkeys s ON r.k = s.k';
my $m_pre = "$m_plain WHERE r.k <~ $mfilter";
my $m_count = "SELECT count(*) FROM fm r WHERE r.k <~ $mfilter";
my $m_local = "SELECT count(*) FROM fm_plain r JOIN mkeys s ON r.k = s.k WHERE r.k <~ $mfilter";
my $m_passed = lq($m_count);
my $m_present = lq($m_plain);
note("fdw-measure: $mrows remote rows, $mkeys local keys ($m_present in the remote table), "
	  . 'filter at 10 bits per key: '
	  . lq('SELECT (bloom_info(bloom_agg(k, 10))).bytes FROM mkeys') . ' bytes');
note("fdw-measure: rows crossing: plain join $mrows, with the pre-check $m_passed ("
	  . ($m_passed - $m_present) . ' false positives)');
note('fdw-measure: plain join ' . best_ms($local, $m_plain) . ' ms; join with the pre-check '
	  . best_ms($local, $m_pre) . ' ms; the pre-check alone, count(*) WHERE r.k <~ filter, '
	  . best_ms($local, $m_count) . " ms; join with the pre-check without extensions 'bloomfilter' "
	  . '(filtered locally) ' . best_ms($local, $m_local) . " ms; the plain join with bloomfilter.join_filter on $m_auto_ms ms");
note("fdw-measure: bloom_agg(k, 10) over $rows remote rows: computed on the remote side "
	  . best_ms($local, 'SELECT bloom_agg(k, 10) FROM f1')
	  . " ms, without extensions 'bloomfilter' (every row crosses) "
	  . best_ms($local, 'SELECT bloom_agg(k, 10) FROM f1_plain') . ' ms');
note('fdw-measure: ' . (2 * $rows) . ' rows on two shards: bloom_agg_merge of the remote partial states '
	  . best_ms($local, 'SELECT bloom_agg_merge(s) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM f1
		UNION ALL SELECT bloom_agg_partial(k, 10) FROM f2) x')
	  . ' ms, bloom_agg over the partitioned table (every row crosses) '
	  . best_ms($local, 'SELECT bloom_agg(k, 10) FROM sharded') . ' ms');

$_->stop foreach ($local, $r1, $r2);
done_testing();
