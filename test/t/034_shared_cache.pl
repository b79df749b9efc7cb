# test/t/034_shared_cache.pl -- the server's files of stored filters
# (bloomfilter.shared_filter_cache), read by sessions that have not read a
# filter yet, and never for another value.
#
# Every probe runs in a new session, so that the session's own cache
# (bloomfilter.stored_filter_cache) is empty and the filter comes either
# from the table ("read a stored filter ... into the session's cache" in
# the log) or from the server's file ("took a stored filter ... from the
# server's filter cache files").  Version n of the filter holds exactly the
# keys 'v<n>-<i>', so each answer names the version it saw, and the probe
# through the caches must agree key by key with a copy that bypasses them.
#
# Checked: a second session takes the file the first wrote; a file whose
# bytes were changed (in the filter, with data checksums; in the head's
# copy of chunk 0, with or without) or cut short is removed and the filter
# read from its table; a file put under another value's name is not used; UPDATE, VACUUM
# FULL and a restart of the server make the next session read the table; a
# REPEATABLE READ snapshot still gets the version it sees; the bound
# evicts the least recently used file and 0 turns the files off; sessions
# probing at once all get the right version.
use strict;
use warnings;

use BloomFilter::Test;
use IPC::Run ();
use PostgreSQL::Test::Utils;
use Test::More;

# shared_node(NAME, CHECKSUMS): a started cluster with data checksums on or
# off (initdb's default changed in 18), logging at DEBUG1.
sub shared_node
{
	my ($name, $checksums) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	my @extra = $checksums ? ('--data-checksums') : pg_major() >= 18 ? ('--no-data-checksums') : ();
	$node->init(extra => \@extra);
	$node->append_conf('postgresql.conf', "log_min_messages = debug1\n");
	$node->start;
	return $node;
}

my $node = shared_node('shared_cache', 1);
my $db = 'postgres';
my $dir = $node->data_dir . '/pg_stat_tmp/bloomfilter';
my $keys = 80000;    # 100 kB filters: big enough for the caches

my $setup = <<"SQL";
CREATE EXTENSION bloomfilter;
CREATE TABLE sf (id int PRIMARY KEY, f bloomfilter);
ALTER TABLE sf ALTER COLUMN f SET STORAGE EXTERNAL;
CREATE FUNCTION version_filter(v int) RETURNS bloomfilter LANGUAGE sql
  AS \$\$ SELECT bloom_agg('v' || v || '-' || i, 10) FROM generate_series(1, $keys) i \$\$;
INSERT INTO sf VALUES (1, version_filter(0)), (2, version_filter(100));
CREATE TABLE probes AS
  SELECT v, 'v' || v || '-' || (1 + n * 263 % $keys) AS k
    FROM generate_series(0, 12) v, generate_series(1, 300) n
  UNION ALL
  SELECT 100, 'v100-' || (1 + n * 263 % $keys) FROM generate_series(1, 300) n;
SQL
$node->safe_psql($db, $setup);

# the versions filter ID answers for, and how many keys the cached filter
# and an uncached copy of it disagree on
sub probe_sql
{
	my ($id) = @_;
	return "SELECT coalesce((SELECT string_agg(v::text, ',' ORDER BY v)
                   FROM (SELECT v FROM probes GROUP BY v
                          HAVING bool_and(k <~ (SELECT f FROM sf WHERE id = $id))) found), 'none')
       || ' ' ||
       (SELECT count(*) FROM probes
         WHERE (k <~ (SELECT f FROM sf WHERE id = $id)) IS DISTINCT FROM
               (k <~ (SELECT f::bytea::bloomfilter FROM sf WHERE id = $id)));" =~ s/\n/ /gr;
}

my $log_at = -s $node->logfile;

# reads_since(): how many filters sessions read from their table and took
# from the files since the last call, as "table N, files M".
sub reads_since
{
	my $log = substr(slurp_file($node->logfile), $log_at);  # no offset argument on 13
	$log_at = -s $node->logfile;
	my $table = () = $log =~ /read a stored filter of \d+ bytes into the session's cache/g;
	my $files = () = $log =~ /took a stored filter of \d+ bytes from the server's filter cache files/g;
	return "table $table, files $files";
}

# new_session_sees(ID, ANSWER, FROM, NAME): a new session's probe of filter
# ID answers ANSWER, the filter read as FROM says ("table 1, files 0").
sub new_session_sees
{
	my ($id, $answer, $from, $name) = @_;
	is($node->safe_psql($db, probe_sql($id)), "$answer 0", "$name: the answer");
	is(reads_since(), $from, "$name: $from");
}

sub files
{
	opendir(my $dh, $dir) or return ();
	my @files = sort grep { !/^\./ } readdir($dh);
	closedir($dh);
	return @files;
}

new_session_sees(1, '0', 'table 1, files 0', 'first session');
is(scalar(files()), 1, 'the first session wrote one file');
new_session_sees(1, '0', 'table 0, files 1', 'second session');
new_session_sees(1, '0', 'table 0, files 1', 'third session');

# ---- damaged files ----------------------------------------------------------

# change_byte(PATH, OFFSET, CHANGE): the file's byte at OFFSET replaced by
# CHANGE->(its value).
sub change_byte
{
	my ($path, $offset, $change) = @_;
	open my $fh, '+<', $path or die "$path: $!";
	binmode $fh;
	seek($fh, $offset, 0);
	read($fh, my $byte, 1);
	seek($fh, $offset, 0);
	print $fh chr($change->(ord($byte)));
	close $fh;
}

# flip_byte(PATH, OFFSET): changes one bit of the file's byte at OFFSET.
sub flip_byte
{
	my ($path, $offset) = @_;
	change_byte($path, $offset, sub { $_[0] ^ 0x10 });
}

my ($file) = files();
my $path = "$dir/$file";
my $size = -s $path;
# with data checksums, a byte of the filter (the file's second half); and
# always, a byte of chunk 0's copy (after the head of about 70 bytes)
foreach my $where ([ 'filter', int($size / 2) ], [ 'chunk 0', 200 ])
{
	flip_byte($path, $where->[1]);
	new_session_sees(1, '0', 'table 1, files 0', "a byte of the file's $where->[0] changed");
	like(substr(slurp_file($node->logfile), -4000), qr/removed the damaged filter cache file/,
		'the damaged file is logged');
	is(-s $path, $size, 'the file is written anew');
	new_session_sees(1, '0', 'table 0, files 1', 'after the rewrite');
}

truncate($path, int($size / 2)) or die "truncate $path: $!";
new_session_sees(1, '0', 'table 1, files 0', 'the file cut short');
new_session_sees(1, '0', 'table 0, files 1', 'after the rewrite');

# ---- another value's file under this value's name -------------------------

new_session_sees(2, '100', 'table 1, files 0', 'filter 2, first session');
my @two = files();
is(scalar(@two), 2, 'one file a filter');
my ($file2) = grep { $_ ne $file } @two;
rename("$dir/$file2", "$dir/$file") or die "rename: $!";
new_session_sees(1, '0', 'table 1, files 0', "filter 2's file under filter 1's name");
new_session_sees(1, '0', 'table 0, files 1', 'after the rewrite');

# ---- changes of the stored value --------------------------------------------

$node->safe_psql($db, 'UPDATE sf SET f = version_filter(1) WHERE id = 1');
new_session_sees(1, '1', 'table 1, files 0', 'after UPDATE');
new_session_sees(1, '1', 'table 0, files 1', 'after UPDATE, again');

$node->safe_psql($db, 'VACUUM FULL sf');
new_session_sees(1, '1', 'table 1, files 0', 'after VACUUM FULL');
new_session_sees(1, '1', 'table 0, files 1', 'after VACUUM FULL, again');

# a snapshot taken before an UPDATE, in a session that has read nothing yet
my ($in, $out, $err) = ('', '', '');
my $session_a = background_session($node, $db, \$in, \$out, \$err);
$in .= "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1;\n\\echo end-1\n";
$session_a->pump until $out =~ /^end-1$/m;
$node->safe_psql($db, 'UPDATE sf SET f = version_filter(2) WHERE id = 1; VACUUM sf;');
new_session_sees(1, '2', 'table 1, files 0', 'after the next UPDATE');
$out = '';
$in .= probe_sql(1) . "\n\\echo end-2\n";
$session_a->pump until $out =~ /^end-2$/m;
$out =~ s/^end-2\n//m;
chomp $out;
is($out, '1 0', 'the older snapshot still gets the version it sees');
is(reads_since(), 'table 0, files 1', "the older snapshot took version 1's file");
$in .= "COMMIT;\n\\q\n";
$session_a->finish;

# ---- a restart --------------------------------------------------------------

$node->restart;
$log_at = -s $node->logfile;
new_session_sees(1, '2', 'table 1, files 0', 'after a restart');
ok(!(grep { $_ eq $file } files()), "the earlier start's files are gone");
new_session_sees(1, '2', 'table 0, files 1', 'after a restart, again');

# ---- sessions at once -------------------------------------------------------

$node->safe_psql($db, 'UPDATE sf SET f = version_filter(3) WHERE id = 1');
my @runs;
for my $s (1 .. 4)
{
	my $sql = join('', map { probe_sql(1) . "\n" } 1 .. 3);
	my ($o, $e) = ('', '');
	push @runs, [ IPC::Run::start(
			[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db) ],
			'<', \$sql, '>', \$o, '2>', \$e), \$o ];
}
my @answers;
foreach my $run (@runs)
{
	$run->[0]->finish;
	push @answers, split /\n/, ${ $run->[1] };
}
is(join(',', @answers), join(',', ('3 0') x 12), '4 sessions at once: 12 right answers');
reads_since();

# ---- the bound --------------------------------------------------------------

sub set_bound
{
	my ($value) = @_;
	$node->safe_psql($db, "LOAD 'bloomfilter'; ALTER SYSTEM SET bloomfilter.shared_filter_cache = '$value'; SELECT pg_reload_conf();");
	$node->poll_query_until($db,
		"SELECT current_setting('bloomfilter.shared_filter_cache', true) = '$value'")
	  or die "bloomfilter.shared_filter_cache did not become $value";
}

set_bound('150kB');    # one 100 kB filter's file, not two
new_session_sees(1, '3', 'table 0, files 1', 'under a bound of one file');
new_session_sees(2, '100', 'table 1, files 0', 'filter 2 under a bound of one file');
is(scalar(files()), 1, 'writing the second file evicted the first');
new_session_sees(1, '3', 'table 1, files 0', 'the evicted filter');
new_session_sees(1, '3', 'table 0, files 1', 'the evicted filter, again');

set_bound('0');
new_session_sees(1, '3', 'table 1, files 0', 'files off');
new_session_sees(1, '3', 'table 1, files 0', 'files off, again');
$node->safe_psql($db, 'UPDATE sf SET f = version_filter(4) WHERE id = 1');
my @before = files();
new_session_sees(1, '4', 'table 1, files 0', 'files off, a new value');
is_deeply([ files() ], \@before, 'files off: none written');

# ---- the output functions ----------------------------------------------------
# They read through the session's cache but write no file: a dump of many
# filters would push out the files that probes use.

set_bound('256MB');
$node->safe_psql($db, 'UPDATE sf SET f = version_filter(5) WHERE id = 1');
my @files_before = files();
is($node->safe_psql($db,
		"SELECT f::text = '\\x' || encode(f::bytea, 'hex') AND bloomfilter_send(f) = f::bytea FROM sf WHERE id = 1"),
	't', 'the text and binary forms of a new value');
is(reads_since(), 'table 1, files 0', 'the output functions read the value once');
is_deeply([ files() ], \@files_before, 'and wrote no file');
new_session_sees(1, '5', 'table 1, files 0', 'a probe after the output functions');
new_session_sees(1, '5', 'table 0, files 1', 'a probe after the output functions, again');

unlike(slurp_file($node->logfile), qr/TRAP|terminated by signal|PANIC/, 'no crash');
$node->stop;

# ---- without data checksums -------------------------------------------------
# The filter's own checksum is not read; the head's and chunk 0's still is.

$node = shared_node('no_checksums', 0);
$dir = $node->data_dir . '/pg_stat_tmp/bloomfilter';
$log_at = -s $node->logfile;
$node->safe_psql($db, $setup);
is($node->safe_psql($db, 'SHOW data_checksums'), 'off', 'a cluster without data checksums');
new_session_sees(1, '0', 'table 1, files 0', 'no checksums: first session');
new_session_sees(1, '0', 'table 0, files 1', 'no checksums: second session');
($file) = files();
$path = "$dir/$file";
flip_byte($path, 200);
new_session_sees(1, '0', 'table 1, files 0', "no checksums: a byte of the file's chunk 0 changed");
new_session_sees(1, '0', 'table 0, files 1', 'no checksums: after the rewrite');
# the filter's last byte, its k, made 0: no filter, so a damaged file, not
# an error of the query
change_byte($path, (-s $path) - 1, sub { 0 });
new_session_sees(1, '0', 'table 1, files 0', "no checksums: the file's k byte made 0");
new_session_sees(1, '0', 'table 0, files 1', 'no checksums: after the rewrite');
unlike(slurp_file($node->logfile), qr/TRAP|terminated by signal|PANIC/, 'no crash');
$node->stop;
done_testing();
