# test/t/012_pg_upgrade.pl -- pg_upgrade from the major before to the one
# under test, with the extension installed, keeps every stored filter and
# state byte for byte and every probe's answer, and the upgraded cluster
# still builds and updates filters.
#
# BF_UPGRADE_FROM_PG_CONFIG names the older major's pg_config, where the
# extension is installed too (scripts/test.sh sets it where one chroot
# carries two majors); without it the test is skipped.
#
# On the old major, two databases:
#   upg    the default version: filters and states of every kind
#          (BloomFilter::Test's stored values; bloom_agg over integer, uuid
#          and bloom_key keys, fixed geometry, bloom_empty, bloom_add;
#          bloom_agg_partial states per group), keys of enums, domains,
#          composites and ranges, a hash and a B-tree index on filters, and
#          a view over the extension's operators;
#   upg10  version 1.0 with stored values, as an install that was never
#          updated.
# Their digests (md5 of each value's text and binary forms, and of the
# answers of thousands of probes) are taken, pg_upgrade --check and then
# pg_upgrade run, and on the new major: the same digests; the indexes
# answer and amcheck finds the B-tree in order; the same member objects;
# ANALYZE's summary of a filter column, which pg_upgrade leaves behind,
# made again by ANALYZE;
# bloom_agg of the same keys gives the stored bytes again (serial and
# parallel), bloom_agg_merge of the stored states gives bloom_agg's bytes,
# bloom_add updates a stored filter; and ALTER EXTENSION UPDATE takes upg10
# to the default version with its values unchanged and the objects of a
# fresh CREATE EXTENSION.
use strict;
use warnings;

use BloomFilter::Test;
use File::Basename qw(dirname);
use File::Spec;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $old_pg_config = $ENV{BF_UPGRADE_FROM_PG_CONFIG};
if (!$old_pg_config)
{
	plan skip_all => 'no older major here: BF_UPGRADE_FROM_PG_CONFIG, the pg_config of a major before '
	  . 'this one with the extension installed, is not set; scripts/test.sh sets it in a chroot that carries two majors';
}

sub config_of
{
	my ($pg_config, $what) = @_;
	my $v = `$pg_config $what`;
	die "$pg_config $what failed" if $?;
	chomp $v;
	return $v;
}
my $old_bindir = config_of($old_pg_config, '--bindir');
my ($old_major) = config_of($old_pg_config, '--version') =~ /PostgreSQL (\d+)/;
my $new_major = pg_major();
my $new_bindir = pg_bindir();
cmp_ok($old_major, '<', $new_major, "pg_upgrade from PostgreSQL $old_major to $new_major");
my $default_version = bloom_default_version();

# ---- the old major ----------------------------------------------------------

my $old = PostgreSQL::Test::Cluster->new('old', install_path => dirname($old_bindir));
$old->init;
$old->start;
like($old->safe_psql('postgres', 'SELECT version()'), qr/^PostgreSQL $old_major(?!\d)/,
	"the old cluster runs PostgreSQL $old_major");
is($old->safe_psql('postgres',
		q{SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter'}),
	$default_version, "the extension is installed for PostgreSQL $old_major too");

$old->safe_psql('postgres', 'CREATE DATABASE upg');
$old->safe_psql('postgres', 'CREATE DATABASE upg10');
$old->safe_psql('upg', 'CREATE EXTENSION bloomfilter');
$old->safe_psql('upg10', q{CREATE EXTENSION bloomfilter VERSION '1.0'});
stored_values_create($old, 'upg', 'stored');
stored_values_create($old, 'upg10', 'stored');
typed_keys_create($old, 'upg');
# what the later versions build: each row says how its probes are made
$old->safe_psql('upg', q{
CREATE TABLE built (name text PRIMARY KEY, probe text, f bloomfilter, s bloom_agg_state);
INSERT INTO built (name, probe, f) VALUES
  ('integer keys', 'integer', (SELECT bloom_agg(i, 10) FROM generate_series(1, 20000) i)),
  ('bigint keys', 'integer', (SELECT bloom_agg(i::bigint * 3, 8) FROM generate_series(1, 20000) i)),
  ('uuid keys', 'uuid', (SELECT bloom_agg(md5(i::text)::uuid, 12) FROM generate_series(1, 20000) i)),
  ('bloom_key keys', 'bloom_key', (SELECT bloom_agg(bloom_key(i, 'x' || i), 10) FROM generate_series(1, 20000) i)),
  ('fixed geometry', 'text', (SELECT bloom_agg('k' || i, 10, 50000) FROM generate_series(1, 20000) i)),
  ('reserved, empty', 'text', bloom_empty(1000, 10)),
  ('reserved, added to', 'text', bloom_add(bloom_empty(1000, 10), ARRAY['k1', 'k2', 'k3']));
INSERT INTO built (name, probe, s)
  SELECT 'partial ' || kind || ' ' || g, kind, s
    FROM (SELECT i % 4 AS g, bloom_agg_partial('k' || i, 10) AS t,
                 bloom_agg_partial(i, 10) AS n, bloom_agg_partial(md5(i::text)::uuid, 10) AS u
            FROM generate_series(1, 20000) i GROUP BY 1) p,
         LATERAL (VALUES ('text', t), ('integer', n), ('uuid', u)) v(kind, s);
-- a B-tree holds filters up to a third of a page: many small ones
CREATE TABLE ordered AS
  SELECT i % 1000 AS g, bloom_agg('k' || i, 10) AS f FROM generate_series(1, 5000) i GROUP BY 1;
CREATE INDEX ordered_f ON ordered USING btree (f);
CREATE INDEX stored_f ON stored.filters USING hash (f);
CREATE VIEW uses AS
  SELECT name, (f | f) = f AS union_self, (f & f) = f AS intersect_self, bloom_cardinality(f) AS cardinality
    FROM built WHERE f IS NOT NULL;
});

# name|md5 of the filter's text form|md5 of the state's text form|md5 of its
# binary form|md5 of the answers of 40,000 probes of the row's key type
# (half of them keys it holds) to the filter, or to the state's filter
my $built_digests = q{
SELECT name || '|' || COALESCE(md5(f::text), 'NULL') || '|' || COALESCE(md5(s::text), 'NULL') || '|'
       || COALESCE(md5(bloom_agg_state_send(s)), 'NULL') || '|'
       || (SELECT md5(string_agg(CASE probe
                                   WHEN 'integer' THEN i <~ g
                                   WHEN 'uuid' THEN md5(i::text)::uuid <~ g
                                   WHEN 'bloom_key' THEN bloom_key(i, 'x' || i) <~ g
                                   ELSE ('k' || i) <~ g END::text, '' ORDER BY i))
             FROM (SELECT COALESCE(f, bloom_agg_finalfn(s)) AS g) filter, generate_series(1, 40000) i)
  FROM built ORDER BY name};
my $view_rows = 'SELECT * FROM uses ORDER BY name';
my $extversion = q{SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'};

my %before = (
	stored => stored_values_digests($old, 'upg', 'stored'),
	stored10 => stored_values_digests($old, 'upg10', 'stored'),
	built => $old->safe_psql('upg', $built_digests),
	view => $old->safe_psql('upg', $view_rows),
	members => extension_members($old, 'upg'),
	members10 => extension_members($old, 'upg10'));
my $nbuilt = () = $before{built} =~ /^/mg;
is($nbuilt, 19, 'the old cluster stores 19 built filters and states');

# ANALYZE's summary of a bloomfilter column (1.4), a slot of the kind
# BLOOM_STATISTIC_KIND of src/pg/bloom_analyze.h in pg_statistic
my ($summary_kind) = do {
	open my $fh, '<', bloom_root() . '/src/pg/bloom_analyze.h' or die "bloom_analyze.h: $!";
	map { /^#define\s+BLOOM_STATISTIC_KIND\s+(\d+)/ ? $1 : () } <$fh>;
};
my $summary = qq{SELECT count(*) FROM pg_statistic
  WHERE starelid = 'built'::regclass AND $summary_kind IN (stakind1, stakind2, stakind3, stakind4, stakind5)};
$old->safe_psql('upg', 'ANALYZE built');
is($old->safe_psql('upg', $summary), '1', 'the old cluster\'s ANALYZE summarises the filters of a column');
$old->stop;

# ---- pg_upgrade -----------------------------------------------------------------

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init;
# pg_upgrade runs in a directory of its own (it may write there), with
# the data directories' absolute paths (the framework's may be relative to
# this test's directory), and the sockets where the nodes' are
my @upgrade = (
	"$new_bindir/pg_upgrade", '--no-sync',
	'-d', File::Spec->rel2abs($old->data_dir), '-D', File::Spec->rel2abs($new->data_dir),
	'-b', $old_bindir, '-B', $new_bindir,
	'-s', $new->host, '-p', $old->port, '-P', $new->port);
my $upgrade_dir = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir());
my $in_upgrade_dir = sub { chdir $upgrade_dir or die "chdir $upgrade_dir: $!" };
ok(run_log([ @upgrade, '--check' ], init => $in_upgrade_dir),
	"pg_upgrade --check: the clusters are compatible");
ok(run_log(\@upgrade, init => $in_upgrade_dir), "pg_upgrade from PostgreSQL $old_major to $new_major");
$new->start;
like($new->safe_psql('postgres', 'SELECT version()'), qr/^PostgreSQL $new_major(?!\d)/,
	"the upgraded cluster runs PostgreSQL $new_major");

# ---- what was stored, on the new major ----------------------------------------

is($new->safe_psql('upg', $extversion), $default_version, "upg: the extension is still at $default_version");
compare_rows('pg_upgrade: stored values', $before{stored}, stored_values_digests($new, 'upg', 'stored'));
compare_rows('pg_upgrade: built filters and states', $before{built}, $new->safe_psql('upg', $built_digests));
typed_keys_check($new, 'upg', 'pg_upgrade');
is($new->safe_psql('upg', $view_rows), $before{view}, "pg_upgrade: a view over the extension's operators gives the same rows");
is(extension_members($new, 'upg'), $before{members}, 'pg_upgrade: the extension has the same member objects');

# The indexes' files were copied: the hash and the B-tree order of the new
# library must be the old one's.
my $lookup = q{SELECT string_agg(id::text, ',') FROM stored.filters WHERE f = '\x000820208080000206'};
like($new->safe_psql('upg', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $lookup"),
	qr/Index Scan using stored_f/, 'pg_upgrade: a lookup by filter uses the hash index');
is($new->safe_psql('upg', "SET enable_seqscan = off; $lookup"), '6',
	'pg_upgrade: the hash index made by the old major finds the filter');
my $range = q{SELECT count(*) || ' rows, ' || md5(string_agg(g::text, ',' ORDER BY f, g))
  FROM ordered WHERE f >= (SELECT f FROM ordered WHERE g = 500)};
my $range_seq = $new->safe_psql('upg', "SET enable_indexscan = off; SET enable_bitmapscan = off; $range");
like($new->safe_psql('upg', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $range"),
	qr/(Index|Index Only|Bitmap Index) Scan (using|on) ordered_f/, 'pg_upgrade: a range of filters is read from the B-tree');
is($new->safe_psql('upg', "SET enable_seqscan = off; $range"), $range_seq,
	"pg_upgrade: a range scan of the B-tree made by the old major finds what a sequential scan finds ($range_seq)");
$new->safe_psql('upg', 'CREATE EXTENSION amcheck');
is($new->safe_psql('upg', q{SELECT bt_index_check('ordered_f', true)}), '',
	'pg_upgrade: amcheck finds the B-tree on filters in order and holding every row');

# pg_upgrade carries PostgreSQL's own statistics at most (from 18 on), not
# the extension's summary: ANALYZE makes it again, as README's Upgrading
# says.
is($new->safe_psql('upg', $summary), '0', 'pg_upgrade: the summary of the filters does not come over');
$new->safe_psql('upg', 'ANALYZE built');
is($new->safe_psql('upg', $summary), '1', 'pg_upgrade: ANALYZE on the new major summarises the filters again');

# ---- building and updating on the new major --------------------------------------

is($new->safe_psql('upg', q{
SELECT (SELECT bloom_agg('k' || i, 10) FROM generate_series(1, 500) i) = f FROM stored.filters WHERE id = 1}),
	't', 'pg_upgrade: bloom_agg of the same keys gives the stored filter\'s bytes again');
is($new->safe_psql('upg', q{
SELECT (SELECT bloom_agg(i, 10) FROM generate_series(1, 20000) i) = f
   AND (SELECT bloom_agg(md5(i::text)::uuid, 12) FROM generate_series(1, 20000) i) = (SELECT f FROM built WHERE name = 'uuid keys')
   AND (SELECT bloom_agg('k' || i, 10, 50000) FROM generate_series(1, 20000) i) = (SELECT f FROM built WHERE name = 'fixed geometry')
  FROM built WHERE name = 'integer keys'}),
	't', 'pg_upgrade: bloom_agg over integer and uuid keys, and in a fixed geometry, gives the stored bytes again');
$new->safe_psql('upg', q{CREATE TABLE keys AS SELECT 'k' || i AS k FROM generate_series(1, 200000) i; ANALYZE keys});
my $parallel = q{SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;};
like($new->safe_psql('upg', "$parallel EXPLAIN (COSTS OFF) SELECT bloom_agg(k, 10) FROM keys"),
	qr/Partial Aggregate/, 'pg_upgrade: bloom_agg plans in parallel on the new major');
is($new->safe_psql('upg', "$parallel SELECT md5(bloom_agg(k, 10)::text) FROM keys"),
	$new->safe_psql('upg', 'SELECT md5(f::text) FROM stored.filters WHERE id = 2'), 'pg_upgrade: a parallel bloom_agg of the same 200,000 keys gives the stored out-of-line filter\'s bytes');
is($new->safe_psql('upg', q{
SELECT (SELECT bloom_agg_merge(s) FROM built WHERE name LIKE 'partial text %')
     = (SELECT bloom_agg('k' || i, 10) FROM generate_series(1, 20000) i)
   AND (SELECT bloom_agg_merge(s) FROM built WHERE name LIKE 'partial integer %')
     = (SELECT f FROM built WHERE name = 'integer keys')}),
	't', 'pg_upgrade: bloom_agg_merge of the stored partial states gives bloom_agg\'s bytes');
$new->safe_psql('upg', q{
UPDATE stored.filters SET f = bloom_add(f, ARRAY['new1', 'new2']) WHERE id IN (1, 2);
INSERT INTO stored.filters (id, f) SELECT 100, bloom_agg('n' || i, 10) FROM generate_series(1, 1000) i;});
is($new->safe_psql('upg', q{
SELECT bool_and('new1' <~ f AND 'new2' <~ f
                AND (SELECT bool_and(('k' || i) <~ f) FROM generate_series(1, 500) i))
  FROM stored.filters WHERE id IN (1, 2)}),
	't', 'pg_upgrade: bloom_add updates stored filters, which keep their old keys');
is($new->safe_psql('upg', q{SET enable_seqscan = off;
SELECT count(*) FROM stored.filters WHERE f = (SELECT bloom_agg('n' || i, 10) FROM generate_series(1, 1000) i)}),
	'1', 'pg_upgrade: the hash index takes new filters and finds them');
my ($rc, $out, $err) = $new->psql('upg', 'ALTER EXTENSION bloomfilter UPDATE');
is($rc, 0, 'pg_upgrade: ALTER EXTENSION bloomfilter UPDATE runs') or diag($err);
is($new->safe_psql('upg', $extversion), $default_version, "pg_upgrade: and leaves $default_version as it was");

# ---- the database of version 1.0: ALTER EXTENSION UPDATE after pg_upgrade ----

is($new->safe_psql('upg10', $extversion), '1.0', 'upg10: pg_upgrade keeps the extension at 1.0');
is(extension_members($new, 'upg10'), $before{members10}, 'upg10: the same 1.0 member objects');
compare_rows('upg10, pg_upgrade', $before{stored10}, stored_values_digests($new, 'upg10', 'stored'));
($rc, $out, $err) = $new->psql('upg10', 'ALTER EXTENSION bloomfilter UPDATE');
is($rc, 0, "upg10: ALTER EXTENSION bloomfilter UPDATE after pg_upgrade") or diag($err);
is($new->safe_psql('upg10', $extversion), $default_version, "upg10: at $default_version");
compare_rows('upg10, pg_upgrade and update', $before{stored10}, stored_values_digests($new, 'upg10', 'stored'));
$new->safe_psql('postgres', 'CREATE DATABASE fresh');
$new->safe_psql('fresh', 'CREATE EXTENSION bloomfilter');
is(extension_members($new, 'upg10'), extension_members($new, 'fresh'),
	'upg10: the member objects of a fresh CREATE EXTENSION on the new major');

$new->stop;
done_testing();
