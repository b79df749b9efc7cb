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

# pg_config_value(OPTION): what pg_config of the PostgreSQL the tests run
# (PG_CONFIG, else the first on PATH) prints for OPTION, without its newline.
sub pg_config_value
{
	my ($option) = @_;
	my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
	my $value = `$pg_config $option`;
	chomp $value;
	return $value;
}

# The server binaries the tests run.
sub pg_bindir
{
	return pg_config_value('--bindir');
}

# The major version of those binaries, as a number (13, 15, ..., 19).
sub pg_major
{
	my $v = pg_config_value('--version');
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

# ---- what users store, for the tests that move a database to a new home:
# pg_dump and pg_restore (010), ALTER EXTENSION UPDATE (011), pg_upgrade
# (012).  Each stores values, takes their digests, moves the database, and
# compares the digests row by row. ------------------------------------------

push @EXPORT, qw(bloom_default_version stored_values_create stored_values_digests
  compare_rows typed_keys_create typed_keys_check extension_members);

# The control file's default_version: what CREATE EXTENSION installs.
sub bloom_default_version
{
	open my $fh, '<', bloom_root() . '/bloomfilter.control' or die "bloomfilter.control: $!";
	while (<$fh>)
	{
		return $1 if /^default_version\s*=\s*'([^']+)'/;
	}
	die 'no default_version in bloomfilter.control';
}

# stored_values_create(NODE, DB, SCHEMA): the table SCHEMA.filters of
# filters inline (1-byte and 4-byte headers) and out of line, a NULL, the
# smallest valid filter, every bit set, and bloom_agg_state values of text
# and bytea keys, made with version 1.0's objects only, so that 011 can
# store them before its first update.  One check: the large filter is
# stored out of line.
sub stored_values_create
{
	my ($node, $db, $schema) = @_;
	$node->safe_psql($db, qq{
CREATE SCHEMA IF NOT EXISTS $schema;
CREATE TABLE $schema.filters (id int PRIMARY KEY, f bloomfilter, s bloom_agg_state);
-- the state as bloom_agg's partial aggregation leaves it, with 1.0's
-- transition functions
CREATE AGGREGATE $schema.bloom_state(text, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);
CREATE AGGREGATE $schema.bloom_state(bytea, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);
INSERT INTO $schema.filters (id, f) SELECT 1, bloom_agg('k' || i, 10) FROM generate_series(1, 500) i;
INSERT INTO $schema.filters (id, f) SELECT 2, bloom_agg('k' || i, 10) FROM generate_series(1, 200000) i;
INSERT INTO $schema.filters VALUES (3, NULL, NULL), (4, '\\x0001', NULL),
  (6, '\\x000820208080000206', NULL);
INSERT INTO $schema.filters (id, s) SELECT 5, $schema.bloom_state('k' || i, 10) FROM generate_series(1, 1000) i;
INSERT INTO $schema.filters (id, f, s)
  SELECT 7, ('\\x' || repeat('ff', 3000) || '1e')::bloomfilter,
         $schema.bloom_state(convert_to('k' || i, 'UTF8'), 20) FROM generate_series(1, 300) i;
});
	is($node->safe_psql($db, "SELECT pg_column_size(f) > 100000 FROM $schema.filters WHERE id = 2"),
		't', "$db: the large filter is stored out of line");
}

# stored_values_digests(NODE, DB, SCHEMA): one line a row of SCHEMA.filters:
# id|md5 of the filter's text form|md5 of the state's binary form|md5 of its
# text form|how many of 2,000 probe keys the filter may contain|md5 of those
# 2,000 answers|md5 of the state's filter.
sub stored_values_digests
{
	my ($node, $db, $schema) = @_;
	return $node->safe_psql($db, qq{
SELECT id || '|' || COALESCE(md5(f::text), 'NULL') || '|'
       || COALESCE(md5(bloom_agg_state_send(s)), 'NULL') || '|'
       || COALESCE(md5(s::text), 'NULL') || '|'
       || (SELECT count(*) FROM generate_series(1, 2000) i WHERE ('k' || i) <~ f) || '|'
       || COALESCE((SELECT md5(string_agg(CASE WHEN ('k' || i) <~ f THEN '1' ELSE '0' END, '' ORDER BY i))
                      FROM generate_series(1, 2000) i), 'NULL') || '|'
       || COALESCE(md5(bloom_agg_finalfn(s)::text), 'NULL')
  FROM $schema.filters ORDER BY id});
}

# compare_rows(LABEL, WANT, GOT): a check a line of WANT (id|...) that GOT
# has the same line, and one that they have as many lines.
sub compare_rows
{
	my ($label, $want, $got) = @_;
	my @want = split /\n/, $want;
	my %got = map { (split /\|/, $_, 2)[0] => $_ } split /\n/, $got;
	for my $line (@want)
	{
		my ($id) = split /\|/, $line, 2;
		is($got{$id} // '<missing>', $line, "$label: row $id keeps its bytes and its probes");
	}
	my @got = split /\n/, $got;
	is(scalar(@got), scalar(@want), "$label: as many rows as before");
}

# typed_keys_create(NODE, DB): keys of types whose OIDs a restore changes
# (an enum, a domain, a composite, their arrays, a range) and jsonb, each
# row's bloom_key stored beside it, and a filter of them (needs 1.2).
sub typed_keys_create
{
	my ($node, $db) = @_;
	$node->safe_psql($db, q{
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE TYPE reading AS (m mood, amount numeric, tags text[]);
CREATE TABLE key_values (id int PRIMARY KEY, moods mood[], ids posint[], r reading,
                         amounts numrange, doc jsonb, k bytea);
INSERT INTO key_values (id, moods, ids, r, amounts, doc)
  SELECT i, ARRAY[(ARRAY['sad', 'ok', 'happy'])[1 + i % 3]::mood, 'ok'], ARRAY[i, i + 1]::posint[],
         ROW('happy', i / 4.0, ARRAY['t' || i])::reading, numrange(i, i + 1.5),
         jsonb_build_object('id', i, 'mood', 'ok')
    FROM generate_series(1, 300) i;
UPDATE key_values SET k = bloom_key(moods, ids, r, amounts, doc);
CREATE TABLE key_filters AS
  SELECT bloom_agg(bloom_key(moods, ids, r, amounts, doc), 10) AS f FROM key_values;
});
}

# typed_keys_check(NODE, DB, LABEL): every row's key made again is the
# stored one, and the stored filter has every key.
sub typed_keys_check
{
	my ($node, $db, $label) = @_;
	is($node->safe_psql($db, q{
SELECT count(*) FILTER (WHERE bloom_key(moods, ids, r, amounts, doc) IS DISTINCT FROM k) || ' changed, '
       || count(*) FILTER (WHERE NOT bloom_key(moods, ids, r, amounts, doc) <~ f) || ' missed of '
       || count(*)
  FROM key_values, key_filters}),
		'0 changed, 0 missed of 300',
		"$label: keys of enums, domains, composites, their arrays and ranges are the same, and the filter has them");
}

# extension_members(NODE, DB): one line a member object of the extension:
# pg_describe_object, its comment, and its properties (a function's
# signature and parameter names, volatility, parallel safety, strictness,
# cost, C symbol and support function; an aggregate's support functions;
# an operator's estimators, commutator, negator and hash/merge flags; an
# operator class's operators and functions; a type's I/O and ANALYZE
# function; a cast), in a form with no OID, so that two databases or two
# clusters compare.
sub extension_members
{
	my ($node, $db) = @_;
	return $node->safe_psql($db, q{
WITH members AS (
  SELECT d.classid, d.objid, d.objsubid
    FROM pg_depend d
    JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
   WHERE e.extname = 'bloomfilter' AND d.deptype = 'e')
SELECT pg_describe_object(m.classid, m.objid, m.objsubid)
       || ' | comment: ' || COALESCE(obj_description(m.objid, m.classid::regclass::name), '<none>')
       || COALESCE((SELECT format(' | arguments (%s), names %s, returns %s, volatility %s, parallel %s, strict %s, kind %s, symbol %s, support %s, cost %s, rows %s, set %s, security definer %s, leakproof %s, config %s',
                                  pg_get_function_arguments(p.oid), p.proargnames,
                                  p.prorettype::regtype, p.provolatile, p.proparallel, p.proisstrict,
                                  p.prokind, p.prosrc, p.prosupport, p.procost, p.prorows, p.proretset,
                                  p.prosecdef, p.proleakproof, p.proconfig)
                      FROM pg_proc p WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid), '')
       || COALESCE((SELECT format(' | transition %s, final %s, combine %s, serial %s, deserial %s, state %s, init %s, space %s, final modify %s',
                                  a.aggtransfn::regprocedure, a.aggfinalfn, a.aggcombinefn, a.aggserialfn,
                                  a.aggdeserialfn, a.aggtranstype::regtype, a.agginitval, a.aggtransspace,
                                  a.aggfinalmodify)
                      FROM pg_aggregate a WHERE m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid), '')
       || COALESCE((SELECT format(' | function %s, restrict %s, join %s, commutator %s, negator %s, hashes %s, merges %s',
                                  o.oprcode, o.oprrest, o.oprjoin, o.oprcom::regoperator,
                                  o.oprnegate::regoperator, o.oprcanhash, o.oprcanmerge)
                      FROM pg_operator o WHERE m.classid = 'pg_operator'::regclass AND o.oid = m.objid), '')
       || COALESCE((SELECT format(' | default %s, operators %s, functions %s', c.opcdefault,
                                  (SELECT string_agg(format('%s %s', ao.amopstrategy, ao.amopopr::regoperator), ', ' ORDER BY ao.amopstrategy)
                                     FROM pg_amop ao WHERE ao.amopfamily = c.opcfamily),
                                  (SELECT string_agg(format('%s %s', ap.amprocnum, ap.amproc::regprocedure), ', ' ORDER BY ap.amprocnum)
                                     FROM pg_amproc ap WHERE ap.amprocfamily = c.opcfamily))
                      FROM pg_opclass c WHERE m.classid = 'pg_opclass'::regclass AND c.oid = m.objid), '')
       || COALESCE((SELECT format(' | input %s, output %s, receive %s, send %s, analyze %s, length %s, align %s, storage %s, category %s',
                                  t.typinput, t.typoutput, t.typreceive, t.typsend, t.typanalyze, t.typlen, t.typalign,
                                  t.typstorage, t.typcategory)
                      FROM pg_type t WHERE m.classid = 'pg_type'::regclass AND t.oid = m.objid), '')
       || COALESCE((SELECT format(' | function %s, context %s, method %s',
                                  CASE WHEN c.castfunc = 0 THEN '-' ELSE c.castfunc::regprocedure::text END,
                                  c.castcontext, c.castmethod)
                      FROM pg_cast c WHERE m.classid = 'pg_cast'::regclass AND c.oid = m.objid), '')
  FROM members m
 ORDER BY 1});
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

# ---- postgres_fdw servers and the plans they give: for the tests that
# compare a query with and without a planner feature over foreign tables
# (035_join_filter_differential.pl) ------------------------------------------

push @EXPORT, qw(fdw_server_sql plan_scans_matching);

# fdw_server_sql(NAME, NODE, DB, OPTIONS): the SQL that makes a postgres_fdw
# server NAME reaching database DB of NODE (the node itself for a loopback
# server), with the extra server OPTIONS ("extensions 'bloomfilter'", or
# ''), and the current user's mapping to it.  postgres_fdw must be created.
sub fdw_server_sql
{
	my ($name, $node, $db, $options) = @_;
	my $opts = "host '" . $node->host . "', port '" . $node->port . "', dbname '$db'";
	$opts .= ", $options" if ($options // '') ne '';
	return "CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw OPTIONS ($opts);\n"
	  . "CREATE USER MAPPING FOR CURRENT_USER SERVER $name;\n";
}

# plan_scans_matching(PLAN, RE): the aliases (the table's name where it has
# none) of the scans of PLAN, the text of an EXPLAIN (VERBOSE, COSTS OFF),
# that have a line matching RE of their own (a Filter, a Remote SQL), each
# once; a foreign scan of a join pushed down counts for each of the
# relations its "Relations:" line names.
sub plan_scans_matching
{
	my ($plan, $re) = @_;
	my (@current, %found);
	my $first = 1;
	foreach my $line (split /\n/, $plan)
	{
		if ($first || $line =~ /^\s*->/ || $line =~ /^\s*(?:InitPlan|SubPlan|CTE) /)
		{
			$first = 0;
			@current = ();
			@current = ($2 // $1 =~ s/^.*\.//r)
			  if $line =~ /\bScan(?: using \S+)? on (\S+)(?: (\S+))?\s*$/;
			next;
		}
		if ($line =~ /^\s*Relations: (.*)$/)
		{
			my $rels = $1;
			@current = ();
			push @current, $2 // $1 =~ s/^.*\.//r while $rels =~ /\((\S+?)(?: (\w+))?\)/g;
			next;
		}
		$found{$_} = 1 foreach ($line =~ $re ? @current : ());
	}
	return sort keys %found;
}

# ---- the planner's join filter and postgres_fdw's connection ------------------
push @EXPORT, qw(fdw_connection_reachable);

# fdw_connection_reachable(): whether the postgres_fdw of PG_CONFIG's
# PostgreSQL exports GetConnection, through which the extension learns a
# remote database's encoding (src/pg/bloom_fdw_encoding.c): where it does
# not (built with hidden symbols, as Debian's 17 and later are), the
# planner gives text keys no filter.  Read with nm, from binutils.
sub fdw_connection_reachable
{
	my $libdir = pg_config_value('--pkglibdir');
	my $symbols = `nm -D --defined-only '$libdir/postgres_fdw.so' 2>&1`;
	die "cannot read the symbols of $libdir/postgres_fdw.so: $symbols" if $? != 0;
	return $symbols =~ /\bT GetConnection$/m ? 1 : 0;
}

1;
