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

our @EXPORT = qw(bloom_node bloom_root pg_major pg_bindir background_session);

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

1;
