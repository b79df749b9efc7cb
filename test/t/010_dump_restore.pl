# test/t/010_dump_restore.pl -- pg_dump and pg_restore keep every filter's
# and every state's bytes, in plain, custom and directory format.
#
# The source database holds filters stored inline (1-byte and 4-byte
# headers), one over 1 MB stored out of line, a NULL and every bit set;
# bloom_agg_state values; keys of an enum, a domain, a composite, their
# arrays and a range, whose types get new OIDs in the new database; and a
# hash index and a view that use the extension's operators, so that the
# restore has to make those again.  Each format is restored into a new
# database and compared row by row (md5 of the text forms, and the probe
# answers), with its index, its view, its keys and the extension's objects.
use strict;
use warnings;

use BloomFilter::Test;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = bloom_node('dump');
my $dir = PostgreSQL::Test::Utils::tempdir();

$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', q{
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
CREATE VIEW filter_union AS
  SELECT f | f AS doubled, bloom_union_agg(f) OVER () AS everything, f = f AS same
    FROM filters WHERE id = 4;
});
is($node->safe_psql('src', 'SELECT pg_column_size(f) > 1000000 FROM filters WHERE id = 5'),
	't', 'source: the large filter is stored out of line, over 1 MB');
typed_keys_create($node, 'src');
stored_values_create($node, 'src', 'stored');

# id|md5 of the text form (or NULL) of every row, in id order
my $digests = q{SELECT id || '|' || COALESCE(md5(f::text), 'NULL') FROM filters ORDER BY id};
my $want = $node->safe_psql('src', $digests);
my $want_stored = stored_values_digests($node, 'src', 'stored');
my $want_members = extension_members($node, 'src');

# compare_db(DB, FORMAT): every row, the index, the keys, the view, the
# stored values and the extension's objects.
sub compare_db
{
	my ($db, $format) = @_;
	compare_rows("$format: filters", $want, $node->safe_psql($db, $digests));
	my $lookup = q{SELECT string_agg(id::text, ',' ORDER BY id) FROM filters WHERE f = '\x000820208080000206'};
	like($node->safe_psql($db, "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $lookup"),
		qr/Index Scan using filters_f/, "$format: a lookup by filter uses the restored hash index");
	is($node->safe_psql($db, "SET enable_seqscan = off; $lookup"),
		'1', "$format: the hash index on the filter column finds the filter");
	typed_keys_check($node, $db, $format);
	is($node->safe_psql($db, 'SELECT doubled = everything AND same FROM filter_union'),
		't', "$format: the view using |, = and bloom_union_agg works");
	compare_rows("$format: stored states", $want_stored, stored_values_digests($node, $db, 'stored'));
	is(extension_members($node, $db), $want_members,
		"$format: the extension has the same member objects as in the dumped database");
}

# plain format, restored with psql
$node->safe_psql('postgres', 'CREATE DATABASE plain');
command_ok([ 'pg_dump', '-Fp', '-f', "$dir/plain.sql", '-d', $node->connstr('src') ],
	'plain: pg_dump');
command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('plain'),
		'-f', "$dir/plain.sql" ],
	'plain: psql restores the dump with no error');
compare_db('plain', 'plain');

# custom format, restored with pg_restore
$node->safe_psql('postgres', 'CREATE DATABASE custom');
command_ok([ 'pg_dump', '-Fc', '-f', "$dir/custom.dump", '-d', $node->connstr('src') ],
	'custom: pg_dump -Fc');
command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('custom'), "$dir/custom.dump" ],
	'custom: pg_restore');
compare_db('custom', 'custom');

# directory format, dumped and restored by two jobs each
$node->safe_psql('postgres', 'CREATE DATABASE directory');
command_ok([ 'pg_dump', '-Fd', '-j', '2', '-f', "$dir/directory", '-d', $node->connstr('src') ],
	'directory: pg_dump -Fd -j 2');
command_ok([ 'pg_restore', '--exit-on-error', '-j', '2', '-d', $node->connstr('directory'),
		"$dir/directory" ],
	'directory: pg_restore -j 2');
compare_db('directory', 'directory');

$node->stop;
done_testing();
