# test/perl/BloomFilter/Test.pm -- what the TAP tests under test/t/ share.
#
# The tests use PostgreSQL::Test::Cluster and PostgreSQL::Test::Utils as
# PostgreSQL's own TAP tests do (PostgreSQL 13 has them as aliases of
# PostgresNode and TestLib), and only the methods every major from 13 on
# has: new, init, append_conf, start, stop, restart, safe_psql, psql,
# connstr, host, port, data_dir, logfile, poll_query_until.  A session
# that must stay open beside others is an IPC::Run harness from
# background_session below, never background_psql, whose return value
# differs between majors.
#
# test/tap.sh runs them; BF_ROOT names the source tree.
package BloomFilter::Test;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(bloom_node bloom_root pg_major pg_bindir background_session
	timed_psql round_trip_ms checkpointer_pid crash_lines);

# The source tree.
sub bloom_root
{
	return $ENV{BF_ROOT} // die "BF_ROOT is not set: run the tests through test/tap.sh";
}

# The server binaries the tests run: those of PG_CONFIG, else the first
# on PATH.
sub pg_bindir
{
	my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
	my $dir = `$pg_config --bindir`;
	chomp $dir;
	return $dir;
}

# The major version of those binaries, as a number (13, 15, ..., 19).
sub pg_major
{
	my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
	my $v = `$pg_config --version`;
	$v =~ /PostgreSQL (\d+)/ or die "cannot read the major from '$v'";
	return $1 + 0;
}

# bloom_node(NAME, CONF...): a cluster initialised and started, each CONF
# line appended to postgresql.conf first; the extension is not created.
sub bloom_node
{
	my ($name, @conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', join("\n", @conf) . "\n") if @conf;
	$node->start;
	return $node;
}

# background_session(NODE, DB, \$stdin, \$stdout, \$stderr): a psql session
# that stays open (IPC::Run harness) while the test does other things; feed
# it through $stdin and $h->pump, finish it with $h->finish.
sub background_session
{
	my ($node, $db, $in, $out, $err) = @_;
	return IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
			'-d', $node->connstr($db) ],
		'<', $in, '>', $out, '2>', $err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default // 180));
}

# ---- durations measured in the run, and servers that must not restart ----
#
# For tests whose checks compare a duration with a reference measured in
# the same run (never with a fixed number of milliseconds: a loaded
# machine slows both alike), and that check that what they did crashed no
# server process.

use Time::HiRes ();

# timed_psql(NODE, DB, SQL, PARAM => VALUE...): SQL run by a psql of its
# own, as NODE->psql runs it (PARAMs are its: on_error_stop => 0 lets the
# script go on after an error); returns the milliseconds it took from the
# start of psql to its exit, its exit code, its stdout and its stderr.
sub timed_psql
{
	my ($node, $db, $sql, %params) = @_;
	my ($out, $err) = ('', '');
	my $t0 = Time::HiRes::time();
	my $rc = $node->psql($db, $sql, stdout => \$out, stderr => \$err, %params);
	return (int((Time::HiRes::time() - $t0) * 1000), $rc, $out, $err);
}

# round_trip_ms(NODE): a trivial query's round trip, psql's start and
# connection included, as timed_psql measures it (the median of three):
# the least time any query of the test can take.
sub round_trip_ms
{
	my ($node) = @_;
	my @ms = sort { $a <=> $b } map { (timed_psql($node, 'postgres', 'SELECT 1'))[0] } 1 .. 3;
	return $ms[1];
}

# checkpointer_pid(NODE): the checkpointer's pid.  A server process that
# crashes makes the postmaster restart every other, this one included: a
# pid that changed across a step tells of a crash.  Empty while the server
# recovers, after waiting (PostgreSQL::Test::Utils' default timeout) until
# it accepts connections again, so that the checks after a failed one
# still run.
sub checkpointer_pid
{
	my ($node) = @_;
	my $pid = '';
	my $rc = $node->psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'",
		stdout => \$pid);
	return $pid if $rc == 0 && $pid ne '';
	$node->poll_query_until('postgres', 'SELECT true');
	return '';
}

# crash_lines(NODE, OFFSET): the lines of NODE's server log from byte
# OFFSET on (-s $node->logfile before the step) that tell of a server
# process that crashed or a PANIC.
sub crash_lines
{
	my ($node, $offset) = @_;
	open my $fh, '<', $node->logfile or die "cannot read " . $node->logfile . ": $!";
	seek $fh, $offset // 0, 0;
	return join '', grep { /terminated by signal|server process .* was terminated|PANIC/ } <$fh>;
}

1;
