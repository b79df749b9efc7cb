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

# ---- across servers: what 020_postgres_fdw.pl and 021_citus.pl share ----
#
# The SQL blocks of doc/distributed.md that need several servers (marked
# `sql fdw`, `sql fdw remote`, `sql citus`; test/docs_test.sh checks the
# marks), and the timings both print (never checked).
push @EXPORT, qw(doc_blocks doc_block_runs best_ms);

# doc_blocks(FILE, INFO): each fenced block of FILE (relative to the tree)
# whose opening line is exactly ```INFO, in file order, as a hash of its
# first line (line) and its text (sql).
sub doc_blocks
{
	my ($file, $info) = @_;
	open my $fh, '<', bloom_root() . "/$file" or die "$file: $!";
	my (@blocks, $block);
	while (my $l = <$fh>)
	{
		chomp $l;
		if (!$block && $l eq "```$info")
		{
			$block = { line => $. + 1, sql => '' };
		}
		elsif ($block && $l =~ /^```[ \t]*$/)
		{
			push @blocks, $block;
			undef $block;
		}
		elsif ($block)
		{
			$block->{sql} .= "$l\n";
		}
	}
	close $fh;
	return @blocks;
}

# doc_block_runs(FILE, BLOCK, SQL, NODES...): one check that SQL (BLOCK's
# text, with the test's own servers put in) runs on each node in turn,
# named after the block's place in FILE.
sub doc_block_runs
{
	my ($file, $block, $sql, @nodes) = @_;
	my $err = '';
	foreach my $node (@nodes)
	{
		my ($rc, $out, $stderr) = $node->psql('postgres', $sql);
		if ($rc != 0)
		{
			$err = substr($stderr, 0, 400);
			last;
		}
	}
	return ok($err eq '', "$file:$block->{line}: the document's block runs")
	  || diag("the document's block fails: $err");
}

# best_ms(NODE, SQL): SQL's time in milliseconds (psql's \timing, without
# psql's start), the best of three runs.
sub best_ms
{
	my ($node, $sql) = @_;
	my $out = $node->safe_psql('postgres', join("\n", '\timing on', ($sql . ';') x 3));
	my @ms = $out =~ /^Time: ([0-9.]+) ms/mg;
	my ($best) = sort { $a <=> $b } @ms;
	return sprintf('%.0f', $best // -1);
}

1;
