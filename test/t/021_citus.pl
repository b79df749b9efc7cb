# test/t/021_citus.pl -- bloomfilter in a Citus cluster: a coordinator and
# two workers, Citus built from the offline kit in ../shared/citus (Citus
# 13.2.2 for PostgreSQL 15, 14.0.1 for 16 to 18) by its build-citus.sh,
# which installs it into PG_CONFIG's PostgreSQL (as root first, where the
# tests run as postgres: 021_citus.root-setup.sh, run by test/tap.sh).
#
# Checked, against the same rows in a plain table on the coordinator:
#   1. bloom_agg over a distributed table runs on the workers (EXPLAIN shows
#      the shard tasks) and gives the local bytes: overall, under GROUP BY
#      the distribution column, and under GROUP BY another column;
#   2. bloom_agg_merge(bloom_agg_partial(...)) and the reserved
#      bloom_agg(key, bits_per_key, expected_keys) the same;
#   3. a pre-check, k <~ (SELECT bloom_agg(k, 10) FROM small), reaches the
#      shards (EXPLAIN shows it in the shard queries) and gives the local
#      count with the small table distributed, a reference table or local;
#      so do the filter as a constant, as a prepared statement's parameter,
#      and ~> and bloom_may_contain; a join with the pre-check gives the
#      plain join's count;
#   4. typed keys: tables distributed by a bigint key probed with a filter
#      of integer keys, and by a uuid key probed with a filter of uuid keys:
#      the local counts, the plain joins' counts, and bloom_agg of the
#      distribution column on the workers with the local bytes;
#   5. a distributed table with a bloomfilter column: INSERT ... SELECT of
#      grouped filters, probes, GROUP BY and DISTINCT on the filters;
#   6. a table distributed by a bloomfilter column (Citus needs the type's
#      default B-tree class, from version 1.1): rows keep their bytes;
#   7. EXPLAIN ANALYZE of a pushed-down bloom_agg: works on Citus 14; fails
#      on Citus 13 ("pseudo-type cstring", a Citus limitation), checked as
#      such;
#   8. the statements of doc/distributed.md's `sql citus` blocks run on the
#      coordinator.
#
# "citus-measure:" notes time the pushed-down aggregate against the local
# one, and with BF_MEASURE=1 a distributed table probed with a 12.5 MB
# filter from a subquery (the figures of doc/distributed.md; never
# checked): from a local table, and from a reference table against the
# local table's time (the ratio), with the session's cache of stored
# filters on and off.
#
# Skipped on a major Citus has no release for (19), and where the kit
# (BLOOM_CITUS_KIT, else ../shared/citus) is missing or has no Citus for
# this major.
use strict;
use warnings;

use BloomFilter::Test;
use Test::More;

my $rows = 200000;

# Said before looking for the kit: no kit could change it.
my $major = pg_major();
plan skip_all =>
  "Citus has no release for PostgreSQL $major; Citus 14.0.1 supports 16 to 18"
  if $major >= 19;

my $kit = $ENV{BLOOM_CITUS_KIT} // bloom_root() . '/../shared/citus';
if (-d $kit)
{
	require Cwd;
	$kit = Cwd::abs_path($kit);
}
plan skip_all => "no Citus kit at $kit" unless -x "$kit/build-citus.sh";

my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $build = `"$kit/build-citus.sh" "$pg_config" 2>&1`;
my $rc = $? >> 8;
note($build);
if ($rc == 77)
{
	my $version = `"$pg_config" --version`;
	chomp $version;
	plan skip_all => "the kit has no Citus for $version";
}
elsif ($rc != 0)
{
	fail("build-citus.sh failed (exit $rc)");
	done_testing();
	exit;
}

# PostgreSQL 18's pg_config.h defines HAVE_LIBCURL, so Citus compiles its
# statistics code against libcurl although the kit configures it
# --without-libcurl, and then does not link libcurl: citus.so would not
# load (undefined symbol curl_easy_perform).  Where that is so, the servers
# get libcurl preloaded, and the test says so.
my $citus_so = `"$pg_config" --pkglibdir`;
chomp $citus_so;
$citus_so .= '/citus.so';
my $undefined = `nm -D --undefined-only "$citus_so" 2>/dev/null`;
my $linked = `ldd "$citus_so" 2>/dev/null`;
if ($undefined =~ / curl_/ && $linked !~ /libcurl/)
{
	my ($curl_lib) = `ldconfig -p 2>/dev/null` =~ /libcurl\.so\.4 .*=> (\S+)/;
	plan skip_all => "the kit's citus.so needs libcurl, which is not installed"
	  unless $curl_lib;
	$ENV{LD_PRELOAD} = $curl_lib;
	note("the kit's citus.so uses libcurl without linking it; the servers preload $curl_lib");
}

# ---- the cluster: a coordinator and two workers ------------------------------

# bloomfilter.join_filter on, loaded in every session: each check below
# holds with it (it adds filters to postgres_fdw tables only, and must
# leave Citus's planning as it is).
my @conf = (
	"shared_preload_libraries = 'citus'",
	"session_preload_libraries = 'bloomfilter'",
	'bloomfilter.join_filter = on',
	'max_connections = 200',
	'max_prepared_transactions = 200');
my $coord = bloom_node('coord', @conf);
my @workers = (bloom_node('worker1', @conf), bloom_node('worker2', @conf));
$_->safe_psql('postgres', 'CREATE EXTENSION citus') foreach ($coord, @workers);
# the nodes are known by their socket directory: libpq takes a host that
# starts with "/" for one, and Citus passes it through
$coord->safe_psql('postgres',
	    "SELECT citus_set_coordinator_host('" . $coord->host . "', " . $coord->port . ');'
	  . join('', map { "SELECT citus_add_node('" . $_->host . "', " . $_->port . ');' } @workers)
	  # Citus propagates it to the workers
	  . 'CREATE EXTENSION bloomfilter;');

sub cq { return $coord->safe_psql('postgres', $_[0]); }

my $citus_version = cq("SELECT extversion FROM pg_extension WHERE extname = 'citus'");
note("Citus $citus_version on " . cq('SHOW server_version') . ', coordinator and 2 workers');

# same_rows(NAME, QUERY_A, QUERY_B): the two queries return the same rows,
# and some
sub same_rows
{
	my ($name, $qa, $qb) = @_;
	my @a = sort split /\n/, cq($qa);
	my @b = sort split /\n/, cq($qb);
	my $n = @a;
	return ok($n > 0 && join("\n", @a) eq join("\n", @b), "$name ($n rows)")
	  || diag("got " . scalar(@a) . " and " . scalar(@b) . " rows, or different ones");
}

cq(qq{
CREATE TABLE t (i int, g int, k text);
SELECT create_distributed_table('t', 'i', shard_count => 32);
INSERT INTO t SELECT i, i % 100, md5(i::text) FROM generate_series(1, $rows) i;
CREATE TABLE lt AS SELECT i, i % 100 AS g, md5(i::text) AS k FROM generate_series(1, $rows) i;
CREATE TABLE small_dist (k text);
SELECT create_distributed_table('small_dist', 'k');
INSERT INTO small_dist SELECT md5(i::text) FROM generate_series(1, $rows, 100) i
	UNION ALL SELECT md5('absent-' || i) FROM generate_series(1, 1000) i;
CREATE TABLE small_ref (k text);
SELECT create_reference_table('small_ref');
INSERT INTO small_ref SELECT k FROM small_dist;
CREATE TABLE small_local AS SELECT k FROM small_dist;
CREATE TABLE events (user_id bigint, n int);
SELECT create_distributed_table('events', 'user_id', shard_count => 32);
INSERT INTO events SELECT i * 7919, i FROM generate_series(1, $rows) i;
CREATE TABLE levents AS SELECT i * 7919 AS user_id, i AS n FROM generate_series(1, $rows) i;
CREATE TABLE vip (user_id integer);
SELECT create_reference_table('vip');
INSERT INTO vip SELECT i * 7919 FROM generate_series(1, $rows, 100) i
	UNION ALL SELECT i * 7919 + 1 FROM generate_series(1, 1000) i;
CREATE TABLE devices (device_id uuid, n int);
SELECT create_distributed_table('devices', 'device_id', shard_count => 32);
INSERT INTO devices SELECT md5('d' || i)::uuid, i FROM generate_series(1, $rows) i;
CREATE TABLE ldevices AS SELECT md5('d' || i)::uuid AS device_id, i AS n FROM generate_series(1, $rows) i;
CREATE TABLE watched (device_id uuid);
SELECT create_reference_table('watched');
INSERT INTO watched SELECT md5('d' || i)::uuid FROM generate_series(1, $rows, 100) i
	UNION ALL SELECT md5('absent-' || i)::uuid FROM generate_series(1, 1000) i;
ANALYZE t; ANALYZE lt; ANALYZE events; ANALYZE levents; ANALYZE devices; ANALYZE ldevices;
});

# ---- 1. bloom_agg on the workers -------------------------------------------------

my $plan = cq('EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(k, 10) FROM t');
# the shard query computes bloom_agg's partial state (Citus: worker_partial_agg
# of bloom_agg) and the coordinator only combines
ok($plan =~ /Task Count: 32/
	  && $plan =~ /Query: SELECT .*(worker_partial_agg\(.*bloom_agg|bloom_agg\()/,
	'bloom_agg runs on the workers: 32 shard tasks compute its partial state')
  || diag($plan);
is(cq('SELECT md5(bloom_agg(k, 10)::bytea) FROM t'), cq('SELECT md5(bloom_agg(k, 10)::bytea) FROM lt'),
	'bloom_agg over the distributed table: the local bytes');
same_rows('GROUP BY the distribution column: every group\'s bytes are local',
	'SELECT i, md5(bloom_agg(k, 10)::bytea) FROM t WHERE i <= 20000 GROUP BY i',
	'SELECT i, md5(bloom_agg(k, 10)::bytea) FROM lt WHERE i <= 20000 GROUP BY i');
same_rows('GROUP BY another column: every group\'s bytes are local',
	'SELECT g, md5(bloom_agg(k, 10)::bytea) FROM t GROUP BY g',
	'SELECT g, md5(bloom_agg(k, 10)::bytea) FROM lt GROUP BY g');

# ---- 2. the two-phase and reserved aggregates ------------------------------------

is(cq('SELECT md5(bloom_agg_merge(s)::bytea) FROM (SELECT bloom_agg_partial(k, 10) AS s FROM t) x'),
	cq('SELECT md5(bloom_agg(k, 10)::bytea) FROM lt'),
	'bloom_agg_merge(bloom_agg_partial) over the distributed table: bloom_agg\'s bytes');
same_rows('bloom_agg_merge of per-group partial states: bloom_agg\'s bytes per group',
	'SELECT g, md5(bloom_agg_merge(s)::bytea) FROM (SELECT g, bloom_agg_partial(k, 10) AS s FROM t GROUP BY g) x GROUP BY g',
	'SELECT g, md5(bloom_agg(k, 10)::bytea) FROM lt GROUP BY g');
is(cq("SELECT md5(bloom_agg(k, 10, $rows)::bytea) FROM t"),
	cq("SELECT md5(bloom_agg(k, 10, $rows)::bytea) FROM lt"),
	'the reserved bloom_agg(k, 10, expected_keys): the local bytes');

# ---- 3. the pre-check, in every form it reaches the shards ---------------------

my $want = cq('SELECT count(*) FROM lt WHERE k <~ (SELECT bloom_agg(k, 10) FROM small_local)');
ok($want > 0 && $want < $rows, "the filter passes $want of $rows local rows (some, not all)");
foreach my $small ('small_dist', 'small_ref', 'small_local')
{
	my $kind = { small_dist => 'distributed', small_ref => 'reference', small_local => 'local' }->{$small};
	is(cq("SELECT count(*) FROM t WHERE k <~ (SELECT bloom_agg(k, 10) FROM $small)"), $want,
		"pre-check with a $kind small table: the local count");
}
$plan = cq('EXPLAIN (VERBOSE, COSTS OFF)
	SELECT count(*) FROM t WHERE k <~ (SELECT bloom_agg(k, 10) FROM small_ref)');
ok($plan =~ /Task Count: 32/ && $plan =~ /Query: SELECT .*WHERE .*<~/,
	'the pre-check is in the 32 shard tasks\' queries')
  || diag($plan);
is(cq('SELECT count(*) FROM t JOIN small_ref s USING (k) WHERE t.k <~ (SELECT bloom_agg(k, 10) FROM small_ref)'),
	cq('SELECT count(*) FROM t JOIN small_ref s USING (k)'),
	'join with the pre-check: the plain join\'s count');
is(cq('SELECT count(*) FROM t WHERE (SELECT bloom_agg(k, 10) FROM small_ref) ~> k'), $want,
	'the commutator, filter ~> key: the local count');
is(cq('SELECT count(*) FROM t WHERE bloom_may_contain(k, (SELECT bloom_agg(k, 10) FROM small_ref))'), $want,
	'bloom_may_contain(key, filter): the local count');
my $filt = cq('SELECT bloom_agg(k, 10) FROM small_local');
is(cq("SELECT count(*) FROM t WHERE k <~ '$filt'::bloomfilter"), $want,
	'a constant filter: the local count');
# seven times: past the fifth execution, where PostgreSQL may switch to a
# generic plan (Citus plans each execution itself; plan_cache_mode =
# force_generic_plan is refused for a multi-shard query: "could not create
# distributed plan", a Citus limitation)
is(cq("PREPARE p(bloomfilter) AS SELECT count(*) FROM t WHERE k <~ \$1;"
		  . join('', ("EXECUTE p('$filt');") x 7)),
	join("\n", ($want) x 7),
	"a prepared statement's parameter, executed seven times: the local count each time");

# ---- 4. typed keys -----------------------------------------------------------------

foreach my $typed (
	[ 'bigint', 'integer keys', 'events', 'levents', 'user_id', 'vip' ],
	[ 'uuid', 'uuid keys', 'devices', 'ldevices', 'device_id', 'watched' ])
{
	my ($type, $keys, $dist, $local, $col, $small) = @$typed;
	my $pre = "WHERE $col <~ (SELECT bloom_agg($col, 10) FROM $small)";
	my $local_count = cq("SELECT count(*) FROM $local $pre");
	ok($local_count > 0 && $local_count < $rows,
		"a filter of $keys passes $local_count of $rows local $type keys (some, not all)");
	is(cq("SELECT count(*) FROM $dist $pre"), $local_count,
		"pre-check of a table distributed by a $type key, $keys' filter: the local count");
	is(cq("SELECT count(*) FROM $dist e JOIN $small v ON e.$col = v.$col
			WHERE e.$col <~ (SELECT bloom_agg($col, 10) FROM $small)"),
		cq("SELECT count(*) FROM $dist e JOIN $small v ON e.$col = v.$col"),
		"join on the $type key with the pre-check: the plain join's count");
	is(cq("SELECT md5(bloom_agg($col, 10)::bytea) FROM $dist"),
		cq("SELECT md5(bloom_agg($col, 10)::bytea) FROM $local"),
		"bloom_agg of the $type distribution column on the workers: the local bytes");
}

# ---- 5. a bloomfilter column in a distributed table -------------------------------

cq(q{
CREATE TABLE bf (g int, f bloomfilter);
SELECT create_distributed_table('bf', 'g');
INSERT INTO bf SELECT g, bloom_agg(k, 10) FROM t GROUP BY g;
INSERT INTO bf VALUES (1000, '\x000820208080000206');
CREATE TABLE lbf AS SELECT g, bloom_agg(k, 10) AS f FROM lt GROUP BY g;
INSERT INTO lbf VALUES (1000, '\x000820208080000206');
});
same_rows('stored filters keep their bytes',
	'SELECT g, md5(f::bytea) FROM bf', 'SELECT g, md5(f::bytea) FROM lbf');
is(cq("SELECT string_agg(g::text, ',' ORDER BY g) FROM bf WHERE md5('4242') <~ f OR 'abc' <~ f"),
	cq("SELECT string_agg(g::text, ',' ORDER BY g) FROM lbf WHERE md5('4242') <~ f OR 'abc' <~ f"),
	'probing the stored filters: the local answers');
is(cq('SELECT count(*), count(DISTINCT f) FROM (SELECT f FROM bf GROUP BY f) x'),
	cq('SELECT count(*), count(DISTINCT f) FROM (SELECT f FROM lbf GROUP BY f) x'),
	'GROUP BY and count(DISTINCT) on the filters');

# ---- 6. distributed by a bloomfilter column ---------------------------------------

my ($ret, $out, $err) = $coord->psql('postgres', "CREATE TABLE by_filter (f bloomfilter, g int);
	SELECT create_distributed_table('by_filter', 'f');
	INSERT INTO by_filter SELECT f, g FROM lbf;");
if (ok($ret == 0, 'create_distributed_table by a bloomfilter column') || diag($err))
{
	same_rows('rows distributed by their filter keep their bytes',
		'SELECT g, md5(f::bytea) FROM by_filter', 'SELECT g, md5(f::bytea) FROM lbf');
	is(cq('SELECT count(*) FROM by_filter WHERE f = (SELECT f FROM lbf WHERE g = 7)'), 1,
		'a filter finds its own row by equality');
}

# ---- 7. EXPLAIN ANALYZE of a pushed-down bloom_agg ---------------------------------

($ret, $out, $err) = $coord->psql('postgres',
	'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT bloom_agg(k, 10) FROM t');
if ($citus_version =~ /^13\./)
{
	ok($ret != 0 && $err =~ /cstring/,
		'Citus 13: EXPLAIN ANALYZE of the pushed-down bloom_agg fails with "pseudo-type cstring", a Citus 13 limitation')
	  || diag("exit $ret, $out $err");
}
else
{
	ok($ret == 0, "Citus $citus_version: EXPLAIN ANALYZE of the pushed-down bloom_agg works")
	  || diag($err);
}

# ---- 8. the statements of doc/distributed.md ---------------------------------------

my @blocks = doc_blocks('doc/distributed.md', 'sql citus');
ok(@blocks > 0, "doc/distributed.md has 'sql citus' blocks");
doc_block_runs('doc/distributed.md', $_, $_->{sql}, $coord) foreach @blocks;

# ---- measurements (not checked) ----------------------------------------------------

note("citus-measure: bloom_agg(k, 10) over $rows rows in 32 shards: "
	  . best_ms($coord, 'SELECT bloom_agg(k, 10) FROM t')
	  . ' ms; over the same rows in a local table: '
	  . best_ms($coord, 'SELECT bloom_agg(k, 10) FROM lt') . ' ms');
if ($ENV{BF_MEASURE})
{
	cq(q{
CREATE TABLE big_filter AS SELECT bloom_agg(md5(i::text), 10) AS f FROM generate_series(1, 10000000) i;
SELECT create_reference_table('big_filter');
CREATE TABLE big_filter_local AS SELECT f FROM big_filter;
});
	my $bytes = cq('SELECT octet_length(f::bytea) FROM big_filter_local');
	my $dist_ms = best_ms($coord, 'SELECT count(*) FROM t WHERE k <~ (SELECT f FROM big_filter_local)');
	my $local_ms = best_ms($coord, 'SELECT count(*) FROM lt WHERE k <~ (SELECT f FROM big_filter_local)');
	note("citus-measure: a $bytes-byte filter from a subquery probing $rows distributed rows: "
		  . "$dist_ms ms; the same rows locally: $local_ms ms");
	# the filter in the reference table: each shard task reads it on its
	# worker, from the worker backend's cache of stored filters after that
	# backend's first (bloomfilter.stored_filter_cache), which lives as
	# long as Citus keeps the connection: citus.max_cached_conns_per_worker
	# (1 by default) of them outlive a query.  Then with that cache off, in
	# each node's ALTER SYSTEM (it fails, and changes nothing, with a
	# library that has no such setting).
	my $ratio = sub { return sprintf('%.2f', $_[0] / ($_[1] || 1)); };
	my $alter_system = sub {
		$_->psql('postgres', "LOAD 'bloomfilter'; ALTER SYSTEM $_[0]; SELECT pg_reload_conf();")
		  foreach ($coord, @workers);
	};
	my $ref_query = 'SELECT count(*) FROM t WHERE k <~ (SELECT f FROM big_filter)';
	my $ref_ms = best_ms($coord, $ref_query);
	$alter_system->('SET citus.max_cached_conns_per_worker = 16');
	my $ref_kept_ms = best_ms($coord, $ref_query);
	$alter_system->('RESET citus.max_cached_conns_per_worker');
	$alter_system->('SET bloomfilter.stored_filter_cache = 0');
	my $ref_off_ms = best_ms($coord, $ref_query);
	my $local_off_ms = best_ms($coord, 'SELECT count(*) FROM lt WHERE k <~ (SELECT f FROM big_filter_local)');
	$alter_system->('RESET bloomfilter.stored_filter_cache');
	note("citus-measure: the filter from a reference table probing $rows rows in 32 shards: "
		  . "$ref_ms ms, " . $ratio->($ref_ms, $local_ms) . "x the local table's $local_ms ms; "
		  . "with 16 connections a worker kept: $ref_kept_ms ms, " . $ratio->($ref_kept_ms, $local_ms) . 'x; '
		  . "with bloomfilter.stored_filter_cache = 0: $ref_off_ms ms, "
		  . $ratio->($ref_off_ms, $local_off_ms) . "x the local table's $local_off_ms ms");
}

$_->stop foreach (@workers, $coord);
done_testing();
