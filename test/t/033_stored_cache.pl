# test/t/033_stored_cache.pl -- the session's cache of stored filters
# (bloomfilter.stored_filter_cache) while another session changes them.
#
# Session A stays open and probes a stored filter query after query; the
# test, as session B, UPDATEs, DELETEs, re-inserts, VACUUMs and VACUUM
# FULLs it between A's queries, and once while A holds a REPEATABLE READ
# snapshot of the old value.  Version n of the filter holds exactly the
# keys 'v<n>-<i>', so each answer of A names the version it saw: the one
# whose probe keys all match (a wrong version would miss hundreds).  Every
# answer must be the version A's snapshot sees, and the probe through the
# cache must agree key by key with a copy that bypasses it.  Last, the
# server log must show A reading a value into its cache once per value it
# saw (and once after VACUUM FULL, which writes the value anew), not once
# per query: the cache answered the others.
use strict;
use warnings;

use BloomFilter::Test;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = bloom_node('stored_cache');
my $db = 'postgres';
my $log_start = -s $node->logfile;
my $keys = 80000;    # 100 kB filters: big enough for the cache

$node->safe_psql($db, <<"SQL");
CREATE EXTENSION bloomfilter;
CREATE TABLE sf (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE sf ALTER COLUMN f SET STORAGE EXTERNAL;
CREATE FUNCTION version_filter(v int) RETURNS bloomfilter LANGUAGE sql
  AS \$\$ SELECT bloom_agg('v' || v || '-' || i, 10) FROM generate_series(1, $keys) i \$\$;
INSERT INTO sf VALUES (1, version_filter(0));
-- 300 probe keys of each version 0 to 12
CREATE TABLE probes AS
  SELECT v, 'v' || v || '-' || (1 + n * 263 % $keys) AS k
    FROM generate_series(0, 12) v, generate_series(1, 300) n;
SQL

# the version A's query sees, and how many keys the cached filter and an
# uncached copy of it disagree on
my $probe = <<'SQL';
SELECT coalesce((SELECT string_agg(v::text, ',' ORDER BY v)
                   FROM (SELECT v FROM probes GROUP BY v
                          HAVING bool_and(k <~ (SELECT f FROM sf WHERE id = 1))) found), 'none')
       || ' ' ||
       (SELECT count(*) FROM probes
         WHERE (k <~ (SELECT f FROM sf WHERE id = 1)) IS DISTINCT FROM
               (k <~ (SELECT f::bytea::bloomfilter FROM sf WHERE id = 1)));
SQL
$probe =~ s/\n/ /g;

my ($in, $out, $err) = ('', '', '');
my $session_a = background_session($node, $db, \$in, \$out, \$err);
my $sent = 0;

# in_a(SQL): runs SQL in session A and returns its output.
sub in_a
{
	my ($sql) = @_;
	$sent++;
	$out = '';
	$in .= "$sql\n\\echo end-$sent\n";
	$session_a->pump until $out =~ /^end-$sent$/m;
	$out =~ s/^end-$sent\n//m;
	chomp $out;
	return $out;
}

my $queries = 0;
my $reads_expected = 0;

# a_sees(VERSION, NAME, READS): A's probe answers VERSION, with no key in
# disagreement; READS is 1 when this probe must read the value afresh.
sub a_sees
{
	my ($version, $name, $reads) = @_;
	$queries++;
	$reads_expected += $reads;
	is(in_a($probe), "$version 0", $name);
}

in_a('SET log_min_messages = debug1;');
a_sees(0, 'first probe: version 0', 1);
a_sees(0, 'second probe: version 0', 0);

$node->safe_psql($db, 'UPDATE sf SET f = version_filter(1) WHERE id = 1');
a_sees(1, 'after UPDATE: version 1', 1);

in_a('BEGIN ISOLATION LEVEL REPEATABLE READ;');
a_sees(1, 'in a snapshot: version 1', 0);
$node->safe_psql($db, 'UPDATE sf SET f = version_filter(2) WHERE id = 1');
$node->safe_psql($db, 'VACUUM sf');
a_sees(1, 'the snapshot still sees version 1 after UPDATE and VACUUM', 0);
in_a('COMMIT;');
a_sees(2, 'after the snapshot: version 2', 1);

$node->safe_psql($db, 'DELETE FROM sf WHERE id = 1');
a_sees('none', 'after DELETE: no filter', 0);
$node->safe_psql($db, 'INSERT INTO sf VALUES (1, version_filter(3))');
a_sees(3, 'after re-insert: version 3', 1);
$node->safe_psql($db, 'VACUUM sf');
a_sees(3, 'after VACUUM: version 3', 0);
$node->safe_psql($db, 'VACUUM FULL sf');
a_sees(3, 'after VACUUM FULL: version 3', 1);

for my $v (4 .. 12)
{
	$node->safe_psql($db, "UPDATE sf SET f = version_filter($v) WHERE id = 1; VACUUM sf;");
	a_sees($v, "after UPDATE and VACUUM: version $v", 1);
	a_sees($v, "again: version $v", 0);
}

$in .= "\\q\n";
$session_a->finish;

my $log = substr(slurp_file($node->logfile), $log_start);  # no offset argument on 13
my $reads = () = $log =~ /read a stored filter of \d+ bytes into the session's cache/g;
is($reads, $reads_expected,
	"A read each value once ($reads_expected times in $queries probes): the cache answered the rest");
cmp_ok($reads, '<', $queries, 'fewer reads than probes');

done_testing();
