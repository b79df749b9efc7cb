# test/t/031_concurrency.pl -- many sessions changing and reading the same
# filters at once: no error, no crash, no lost key.
#
# pgbench runs three scripts at once, 8 clients for 60 s
# (BLOOM_CONCURRENCY_CLIENTS and BLOOM_CONCURRENCY_SECONDS change them), on
# a shared table of 20 filters (half small and stored inline, half of
# 12.5 kB and stored out of line):
#
#   add    (weight 5)  in one transaction: UPDATE filters SET f =
#                      bloom_add(f, key) for a random filter, and INSERT the
#                      key into a log table
#   probe  (weight 4)  every logged key of a random filter must match it
#                      (<~); both tables are read under one snapshot, so a
#                      key committed without its bits would show here
#   build  (weight 1)  bloom_agg over a filter's logged keys, which must then
#                      match every one of them
#
# A failed check raises an error inside pgbench (a division by zero), which
# fails the run.  Afterwards: pgbench reported no failed or aborted
# transaction; every logged key and every initial key matches its filter;
# every filter kept its size and k; the server log shows no crash.
use strict;
use warnings;

use BloomFilter::Test;
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Test::More;

my $clients = $ENV{BLOOM_CONCURRENCY_CLIENTS} // 8;
my $seconds = $ENV{BLOOM_CONCURRENCY_SECONDS} // 60;
for ($clients, $seconds)
{
	die "BLOOM_CONCURRENCY_CLIENTS and BLOOM_CONCURRENCY_SECONDS take whole numbers\n"
	  unless /^[1-9][0-9]*$/;
}

my $node = bloom_node('concurrency');
my $log_start = -s $node->logfile;
my $db = 'postgres';

$node->safe_psql($db, <<'SQL');
CREATE EXTENSION bloomfilter;
-- the keys each filter starts with: 100 (inline) or 10000 (out of line)
CREATE TABLE initial (fid int, key text);
INSERT INTO initial
  SELECT fid, 'init-' || fid || '-' || i
    FROM generate_series(1, 20) fid,
         LATERAL generate_series(1, CASE WHEN fid <= 10 THEN 100 ELSE 10000 END) i;
CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter NOT NULL);
INSERT INTO filters SELECT fid, bloom_agg(key, 10) FROM initial GROUP BY fid;
CREATE TABLE shape AS SELECT id, octet_length(f::text) AS textlen, right(f::text, 2) AS kbyte FROM filters;
-- every key bloom_add put in, logged in the same transaction
CREATE TABLE added (fid int NOT NULL, key text NOT NULL);
CREATE INDEX ON added (fid);
SQL
is($node->safe_psql($db,
		"SELECT count(*) FILTER (WHERE pg_column_size(f) < 2000) || ' inline, ' ||
		        count(*) FILTER (WHERE pg_column_size(f) >= 2000) || ' out of line' FROM filters"),
	'10 inline, 10 out of line', 'the filters: 10 stored inline, 10 out of line');

my %scripts = (
	add => <<'SQL',
\set fid random(1, 20)
\set n random(1, 2000000000)
BEGIN;
UPDATE filters SET f = bloom_add(f, 'key-' || :client_id || '-' || :n) WHERE id = :fid;
INSERT INTO added VALUES (:fid, 'key-' || :client_id || '-' || :n);
COMMIT;
SQL
	probe => <<'SQL',
\set fid random(1, 20)
SELECT 1 / (count(*) = 0)::int AS no_key_lost
  FROM added a JOIN filters f ON f.id = a.fid
 WHERE a.fid = :fid AND NOT (a.key <~ f.f);
SQL
	build => <<'SQL',
\set fid random(1, 20)
SELECT 1 / (count(*) = 0)::int AS built_filter_matches
  FROM added a
 WHERE a.fid = :fid
   AND NOT (a.key <~ (SELECT bloom_agg(key, 10) FROM added WHERE fid = :fid));
SQL
);
my %weight = (add => 5, probe => 4, build => 1);
my @files;
for my $name (sort keys %scripts)
{
	my $file = "$PostgreSQL::Test::Utils::tmp_check/$name.sql";
	open my $fh, '>', $file or die "cannot write $file: $!";
	print $fh $scripts{$name};
	close $fh;
	push @files, '-f', "$file\@$weight{$name}";
}

note "pgbench, $clients clients for $seconds s: add (5) / probe (4) / build (1)";
my ($out, $err) = ('', '');
my $ran = IPC::Run::run(
	[ 'pgbench', '-n', '-c', $clients, '-j', 2, '-T', $seconds, '-P', 10, @files,
		$node->connstr($db) ],
	'>', \$out, '2>', \$err);
note $out;
my ($processed) = $out =~ /^number of transactions actually processed: (\d+)/m;
my ($failed_tx) = $out =~ /^number of failed transactions: (\d+)/m;
ok($ran && ($processed // 0) > 0 && ($failed_tx // 0) == 0 && "$out$err" !~ /aborted|error/i,
	'pgbench: ' . ($processed // 'no') . ' transactions, none failed or aborted')
  or diag("pgbench: $err");

my $added = $node->safe_psql($db, 'SELECT count(*) FROM added');
is($node->safe_psql($db,
		'SELECT count(*) FROM added a JOIN filters f ON f.id = a.fid WHERE NOT (a.key <~ f.f)'),
	0, "every one of $added keys added by bloom_add matches its filter");
cmp_ok($added, '>', 0, 'bloom_add added keys');

my $initial = $node->safe_psql($db, 'SELECT count(*) FROM initial');
is($node->safe_psql($db,
		'SELECT count(*) FROM initial i JOIN filters f ON f.id = i.fid WHERE NOT (i.key <~ f.f)'),
	0, "every one of $initial initial keys still matches its filter");

is($node->safe_psql($db,
		"SELECT count(*) FROM filters f JOIN shape s USING (id)
		  WHERE octet_length(f.f::text) <> s.textlen OR right(f.f::text, 2) <> s.kbyte"),
	0, 'every filter kept its size and k');

is(crash_lines($node, $log_start), '', 'the server log shows no crashed server process');
is($node->safe_psql($db, 'SELECT 1'), 1, 'the server still answers');

$node->stop;
done_testing();
