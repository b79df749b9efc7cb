# test/t/011_upgrade_chain.pl -- ALTER EXTENSION bloomfilter UPDATE gives
# what a fresh CREATE EXTENSION gives, and keeps what users stored.
#
# On a cluster of its own:
#   1. one database installs the oldest version (bloomfilter--1.0.sql),
#      stores filters (inline and out of line) and bloom_agg_state values,
#      and a view over them that calls the extension's functions and
#      operators, then walks ALTER EXTENSION ... UPDATE TO every later
#      version of the bloomfilter--A--B.sql scripts, one step at a time, to
#      the control file's default_version; no step drops a function or
#      aggregate or changes its pg_proc or pg_aggregate row, but for giving
#      names to parameters that had none (and a planner support function to
#      a function that had none);
#   2. another database runs a fresh CREATE EXTENSION bloomfilter;
#   3. the two have the same member objects, properties and comments
#      (extension_members in BloomFilter::Test);
#   4. the stored values keep their bytes and probe the same, and the view
#      its definition and rows;
#   5. the whole regression suite passes on the updated database.
#
# Every later version adds its upgrade script, and this test walks it.
use strict;
use warnings;

use BloomFilter::Test;
use File::Spec;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = bloom_root();
my $default_version = bloom_default_version();

# versions in order: 1.2 before 1.10
sub version_cmp
{
	my @a = split /\./, $_[0];
	my @b = split /\./, $_[1];
	while (@a || @b)
	{
		my $c = (shift(@a) // 0) <=> (shift(@b) // 0);
		return $c if $c;
	}
	return 0;
}

# The chain from the base script's version: each step's target, in order
# (from each version, the furthest script that starts there).
my @scripts = map { s{^.*/}{}r } glob("$root/bloomfilter--*.sql");
my ($base) = sort { version_cmp($a, $b) }
  map { /^bloomfilter--([^-]+)\.sql$/ ? $1 : () } @scripts;
my @steps;
my $from = $base;
while (my ($next) = sort { version_cmp($b, $a) }
	map { /^bloomfilter--\Q$from\E--([^-]+)\.sql$/ ? $1 : () } @scripts)
{
	push @steps, $next;
	$from = $next;
}
is($from, $default_version,
	"the upgrade scripts lead from $base to default_version $default_version (@steps)");

# log_statement = all, the framework's default, would reach the regression
# tests that raise client_min_messages (step 5)
my $node = bloom_node('chain', 'log_statement = none');
sub q1 { return $node->safe_psql('chain_updated', $_[0]); }

# 1. the oldest version, with stored values and a user's view
$node->safe_psql('postgres', 'CREATE DATABASE chain_updated');
$node->safe_psql('postgres', 'CREATE DATABASE chain_fresh');
q1("CREATE EXTENSION bloomfilter VERSION '$base'");
stored_values_create($node, 'chain_updated', 'chain_stored');
my $before = stored_values_digests($node, 'chain_updated', 'chain_stored');
# the update scripts must keep the objects the view depends on
q1(q{CREATE VIEW chain_stored.uses AS
  SELECT id, bloom_add(f, 'x'::text) = f AS has_x, 'k1'::text <~ f AS has_k1,
         bloom_union(f, f) = f AS union_self, bloom_cardinality(f) > 0 AS some_keys
    FROM chain_stored.filters});
my $view_rows = 'SELECT * FROM chain_stored.uses ORDER BY id';
my $view_def = q{SELECT pg_get_viewdef('chain_stored.uses'::regclass)};
my $view_rows_before = q1($view_rows);
my $view_def_before = q1($view_def);

# Each step keeps every function and aggregate it finds, with its catalog
# rows; it may only give names to parameters that had none, and a planner
# support function to a function that had none (1.3's bloom_key).
my $member_procs = q{SELECT d.objid FROM pg_depend d JOIN pg_extension e
  ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
  WHERE e.extname = 'bloomfilter' AND d.deptype = 'e' AND d.classid = 'pg_proc'::regclass};
q1('CREATE SCHEMA chain_catalog');
for my $step (@steps)
{
	q1(qq{SET client_min_messages = warning;
DROP TABLE IF EXISTS chain_catalog.before;
CREATE TABLE chain_catalog.before AS
  SELECT p.oid, p.oid::regprocedure::text AS sig, to_jsonb(p) - 'proargnames' AS proc, p.proargnames,
         (SELECT to_jsonb(a) FROM pg_aggregate a WHERE a.aggfnoid = p.oid) AS agg
    FROM pg_proc p WHERE p.oid IN ($member_procs)});
	my ($rc, $out, $err) = $node->psql('chain_updated', "ALTER EXTENSION bloomfilter UPDATE TO '$step'");
	is($rc, 0, "ALTER EXTENSION bloomfilter UPDATE TO '$step' with stored filters and states")
	  or diag($err);
	my $gone = q1(q{SELECT string_agg(b.sig, ', ') FROM chain_catalog.before b
  WHERE NOT EXISTS (SELECT FROM pg_proc p WHERE p.oid = b.oid)});
	my $changed = q1(q{SELECT string_agg(b.sig, ', ') FROM chain_catalog.before b JOIN pg_proc p ON p.oid = b.oid
  WHERE to_jsonb(p) - 'proargnames' - 'prosupport' IS DISTINCT FROM b.proc - 'prosupport'
     OR (p.prosupport::text <> b.proc->>'prosupport' AND b.proc->>'prosupport' <> '-')
     OR (SELECT to_jsonb(a) FROM pg_aggregate a WHERE a.aggfnoid = p.oid) IS DISTINCT FROM b.agg});
	my $renamed = q1(q{SELECT string_agg(b.sig, ', ') FROM chain_catalog.before b JOIN pg_proc p ON p.oid = b.oid
  WHERE EXISTS (SELECT FROM generate_subscripts(b.proargnames, 1) i
                 WHERE b.proargnames[i] <> '' AND b.proargnames[i] IS DISTINCT FROM p.proargnames[i])});
	my $named = q1(q{SELECT count(*) FROM chain_catalog.before b JOIN pg_proc p ON p.oid = b.oid
  WHERE p.proargnames IS DISTINCT FROM b.proargnames});
	is("dropped: " . ($gone || 'none') . "; rows changed: " . ($changed || 'none')
		  . "; parameters renamed: " . ($renamed || 'none'),
		'dropped: none; rows changed: none; parameters renamed: none',
		"update to $step: every function and aggregate of before keeps its pg_proc and pg_aggregate rows but for its parameters' names ($named given names)");
}
q1('SET client_min_messages = warning; DROP SCHEMA chain_catalog CASCADE');
my $extversion = q{SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'};
is(q1($extversion), $default_version, "the updated database is at $default_version");

# 2. fresh
$node->safe_psql('chain_fresh', 'CREATE EXTENSION bloomfilter');
is($node->safe_psql('chain_fresh', $extversion), $default_version,
	"a fresh CREATE EXTENSION installs $default_version");

# 3. the same member objects
my $fresh = extension_members($node, 'chain_fresh');
my $nmembers = () = $fresh =~ /^/mg;
cmp_ok($nmembers, '>', 50, "the fresh install lists its member objects ($nmembers)");
is(extension_members($node, 'chain_updated'), $fresh,
	'updated and fresh have the same member objects, properties and comments');

# 4. the stored values, and the view over them
compare_rows('across the update', $before,
	stored_values_digests($node, 'chain_updated', 'chain_stored'));
is(q1($view_def), $view_def_before, "a user's view over the extension's functions keeps its definition");
is(q1($view_rows), $view_rows_before, "a user's view over the extension's functions keeps its rows");

# 5. the regression suite on the updated database
my @tests;
{
	open my $fh, '<', "$root/Makefile" or die "Makefile: $!";
	my $make = do { local $/; <$fh> };
	$make =~ s/\\\n/ /g;    # continuation lines joined
	$make =~ /^REGRESS\s*=\s*(.*)$/m or die 'no REGRESS in the Makefile';
	@tests = split ' ', $1;
}
my $out = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir());
# the tests' \copy writes results/ of the directory psql runs in, which
# pg_regress makes under its --outputdir: pg_regress runs there (and only
# it: the framework's paths may be relative to this test's directory)
my $regress_ok = run_log([
		$ENV{PG_REGRESS}, "--inputdir=$root", "--outputdir=$out", '--bindir=' . pg_bindir(),
		'--host=' . $node->host, '--port=' . $node->port,
		'--use-existing', '--dbname=chain_updated', @tests ],
	init => sub { chdir $out or die "chdir $out: $!" });
ok($regress_ok, 'the whole regression suite passes on the updated database (' . scalar(@tests) . ' tests)');
if (!$regress_ok && open my $diffs, '<', "$out/regression.diffs")
{
	my @lines = <$diffs>;
	diag(join '', @lines[0 .. ($#lines < 99 ? $#lines : 99)]);
}

$node->stop;
done_testing();
