# test/t/035_join_filter_differential.pl -- bloomfilter.join_filter never
# changes a result.
#
# One cluster reaches its own database through a loopback postgres_fdw
# server with OPTIONS (extensions 'bloomfilter'): the tables of schema
# remote_src are foreign tables of public (r_*), and again foreign tables of
# a server without the option (p_*), beside local tables (l_*: plain, one
# partitioned, a materialized view, a view, one never analyzed).  Their rows are
# random from a seed: NULL keys, duplicates, empty tables, keys of every
# integer width and a domain over bigint, text under the default collation
# and under "C", varchar, char(8) and char(12) (equal values of the two
# differ in their trailing spaces), a nondeterministic ICU collation where
# the server has ICU, uuid, bytea, and a pair of columns for composite
# keys.  The remote tables are larger, the local ones mostly smaller with a
# small share of the remote keys, so that the planner's cost model adds a
# filter to many queries.
#
# Then 1,000 queries, generated from the same seed: joins of 2 to 4 tables
# (inner, comma, USING, LEFT, RIGHT, FULL, a table joined to a join), IN
# (with DISTINCT, GROUP BY, UNION, LIMIT, an aggregate), = ANY, = ALL, NOT
# IN, EXISTS (of count(*), with OFFSET), NOT EXISTS, and IN or EXISTS under
# OR; conditions on either side, tables as subqueries, aggregates, window
# functions and DISTINCT on top; keys of every kind, expressions, explicit
# collations, composite keys of mixed integer widths; some as prepared
# statements in a generic plan, in parallel plans, or without hash joins
# or nested loops, and a tenth of them as a subquery in FROM or WITH.
# Checked:
#
#   1. every query runs with bloomfilter.join_filter = off (the generator
#      writes valid SQL), and its plan has no bloom_agg then;
#   2. with = on, every query runs and gives the same rows as with off,
#      compared as a multiset (count and md5 of the sorted rows; each query
#      runs as it is, at the top level, where the planner's hook looks);
#   3. the filter is there, not only allowed: with = on, EXPLAIN (VERBOSE)
#      of the same statement shows bloom_agg (which no query has of its
#      own) in at least 15% of the plans, and at least once in an inner
#      join, an IN, an EXISTS, a composite key's query, from a subquery
#      in FROM or a view, and on a character(n) key alone (bloom_key of
#      it); and no plan
#      applies it locally rather than in its Remote SQL (<~);
#   4. no filter on a scan it would change: the preserved side of a
#      two-table outer join, either side of a NOT EXISTS or NOT IN, the
#      outer side of = ALL, of IN or EXISTS under OR, of EXISTS of
#      count(*), either side of a two-table join on a key compared under
#      the nondeterministic collation; and none on any table but a foreign
#      table of the server with the extension;
#   5. no server process crashed.
#
# A failure names the seed and each failing query's SQL.  BLOOM_TEST_SEED
# replays another seed; BLOOM_JOINDIFF_QUERIES sets the number of queries;
# BLOOM_JOINDIFF_DUMP=DIR writes each run's script, output and errors there
# (off.sql, on.out, on-explain.err, ...).
use strict;
use warnings;

use BloomFilter::Test;
use Digest::MD5 qw(md5_hex);
use Test::More;

my $seed = $ENV{BLOOM_TEST_SEED} // 35035;
my $nqueries = $ENV{BLOOM_JOINDIFF_QUERIES} // 1000;
note("join-diff: seed $seed (BLOOM_TEST_SEED=$seed replays it), $nqueries queries");
srand($seed);

my $node = bloom_node('joindiff');
my $db = 'joindiff';

if ($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_available_extensions WHERE name = 'postgres_fdw'") ne '1')
{
	fail('postgres_fdw is not available in ' . pg_bindir() . ' (contrib)');
	done_testing();
	exit;
}

# UTF8, so that an ICU collation can be made; the default collation a libc
# one other than "C" where the system has C.UTF-8
my $locale = $node->safe_psql('postgres',
	"SELECT COALESCE((SELECT collcollate FROM pg_collation WHERE collname IN ('C.utf8', 'C.UTF-8')
	                   AND collprovider = 'c' LIMIT 1), 'C')");
$node->safe_psql('postgres',
	"CREATE DATABASE $db TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE '$locale' LC_CTYPE '$locale'");
sub q1 { return $node->safe_psql($db, $_[0]); }

my $icu = q1("SELECT count(*) > 0 FROM pg_collation WHERE collprovider = 'i'") eq 't';
note("join-diff: default collation $locale; "
	  . ($icu ? 'ICU: a nondeterministic collation column' : 'no ICU: no nondeterministic column'));

# ---- the tables ------------------------------------------------------------
#
# Every table has the same columns: integer keys of three widths and a
# domain over bigint, text keys (the default collation, "C", varchar,
# char(8), char(12), and the nondeterministic one), uuid, bytea, a pair (p1, p2) for
# composite keys, and v, a payload for conditions.  A key is made from a
# number n: the remote tables' numbers lie in 1..dom, the local ones' in
# 1..300 (which every remote table has) with probability `match`, else in
# 2501..4000, which no remote table has; a tenth of them negated.  The r_
# tables are foreign tables of a server with extensions 'bloomfilter', the
# p_ tables the same rows through a server without (no filter may reach
# them); l_part is partitioned, l_mv a materialized view, l_view a view,
# l_fresh never analyzed.

my @tables = (
	{ name => 'r_big',   kind => 'remote', rows => 5000, dom => 2500 },
	{ name => 'r_mid',   kind => 'remote', rows => 3000, dom => 1500 },
	{ name => 'r_small', kind => 'remote', rows => 1000, dom => 1000 },
	{ name => 'r_empty', kind => 'remote', rows => 0,    dom => 1, weight => 1 },
	{ name => 'p_big',   kind => 'plain',  of => 'r_big', weight => 1 },
	{ name => 'p_small', kind => 'plain',  of => 'r_small', weight => 1 },
	{ name => 'l_tiny',  kind => 'local',  rows => 20,   match => 0.8 },
	{ name => 'l_small', kind => 'local',  rows => 100,  match => 0.5 },
	{ name => 'l_mid',   kind => 'local',  rows => 400,  match => 0.25 },
	# as many keys as the remote tables, all theirs: no filter pays here
	{ name => 'l_wide',  kind => 'local',  rows => 3000, match => 1, weight => 2 },
	{ name => 'l_empty', kind => 'local',  rows => 0,    weight => 1 },
	{ name => 'l_part',  kind => 'local',  rows => 300,  match => 0.3, weight => 2,
	  how => 'PARTITION BY HASH (i4)' },
	{ name => 'l_mv',    kind => 'local',  of => 'l_small', weight => 2 },
	{ name => 'l_view',  kind => 'local',  of => 'l_mid', view => 1, weight => 2 },
	{ name => 'l_fresh', kind => 'local',  rows => 200,  match => 0.4, weight => 2,
	  how => 'WITH (autovacuum_enabled = false)' },
);
# how often a query picks the table, against the others' 4 (an empty
# table answers little)
$_->{weight} //= 4 foreach @tables;
my %table = map { $_->{name} => $_ } @tables;
my @remote = grep { $_->{kind} eq 'remote' } @tables;
my @local = grep { $_->{kind} eq 'local' } @tables;

my $nd_col = $icu ? 'tnd text COLLATE public.nd, ' : '';
my $columns = "i2 smallint, i4 integer, i8 bigint, di jd_big, t text, tc text COLLATE \"C\", "
  . "vc varchar(12), ch char(8), ch2 char(12), ${nd_col}u uuid, b bytea, p1 integer, p2 text, v integer";

# a fresh key number of table T; a tenth of them negative (integers of
# two widths must still meet)
sub fresh_number
{
	my ($t) = @_;
	my $n = $t->{kind} eq 'remote' ? 1 + int(rand($t->{dom}))
	  : rand() < $t->{match} ? 1 + int(rand(300)) : 2501 + int(rand(1500));
	return rand() < 0.1 ? -$n : $n;
}

# one key number of table T for a row whose first key number is $n0, or
# undef (NULL): most often $n0 itself, so that a query joining on other
# columns further on still finds rows; else a fresh number or, for
# duplicates, one of $prev, the column's numbers so far
sub key_number
{
	my ($t, $n0, $prev, $null_share) = @_;
	return undef if rand() < $null_share;
	my $n = rand() < 0.7 ? $n0
	  : @$prev && rand() < 0.3 ? $prev->[ int(rand(@$prev)) ]
	  : fresh_number($t);
	push @$prev, $n;
	return $n;
}

sub sql_num { return defined $_[0] ? $_[0] : 'NULL'; }

# the rows of T as VALUES: a number for each key column, the case of the
# text keys (upper-case in a quarter of the rows), the pair, v
sub table_values
{
	my ($t) = @_;
	my @rows;
	my %prev;
	my $nulls = $t->{kind} eq 'remote' ? 0.03 : 0.06;
	for (1 .. $t->{rows})
	{
		my $n0 = fresh_number($t);
		my @n = map { key_number($t, $n0, $prev{$_} //= [], $nulls) } qw(i2 i4 i8 t tc nd u b);
		my @case = map { rand() < 0.25 ? 1 : 0 } 1 .. 3;
		my ($p1, $p2);
		if ($t->{kind} eq 'remote' || rand() < $t->{match})
		{
			($p1, $p2) = (1 + int(rand(50)), 1 + int(rand(50)));
		}
		else
		{
			($p1, $p2) = (51 + int(rand(500)), 1 + int(rand(500)));
		}
		$p1 = undef if rand() < $nulls;
		$p2 = undef if rand() < $nulls;
		my $v = rand() < 0.04 ? undef : int(rand(100));
		push @rows, '(' . join(',', map { sql_num($_) } @n, @case, $p1, $p2, $v) . ')';
	}
	return @rows;
}

# the statements that make table T (qualified) and fill it
sub table_sql
{
	my ($t, $qualified) = @_;
	return "CREATE FOREIGN TABLE $qualified ($columns) SERVER plain
	          OPTIONS (schema_name 'remote_src', table_name '$t->{of}')" if $t->{kind} eq 'plain';
	return "CREATE VIEW $qualified AS SELECT * FROM $t->{of} WHERE v < 80" if $t->{view};
	return "CREATE MATERIALIZED VIEW $qualified AS SELECT * FROM $t->{of} WHERE v < 70" if $t->{of};
	my $sql = "CREATE TABLE $qualified ($columns) " . ($t->{how} // '') . ";\n";
	$sql .= "CREATE TABLE ${qualified}_$_ PARTITION OF $qualified FOR VALUES WITH (MODULUS 2, REMAINDER $_);\n"
	  foreach ($t->{how} // '') =~ /PARTITION/ ? (0, 1) : ();
	my @rows = table_values($t);
	return $sql unless @rows;
	my $nd = $icu ? q{CASE WHEN c3 = 1 THEN 'K' ELSE 'k' END || nnd::int, } : '';
	return $sql . qq{
INSERT INTO $qualified
SELECT ni2::smallint, ni4::int, ni8::bigint, ni8::bigint,
       CASE WHEN c1 = 1 THEN 'K' ELSE 'k' END || nt::int,
       CASE WHEN c2 = 1 THEN 'K' ELSE 'k' END || ntc::int,
       CASE WHEN c1 = 1 THEN 'K' ELSE 'k' END || nt::int,
       CASE WHEN c2 = 1 THEN 'K' ELSE 'k' END || ntc::int,
       CASE WHEN c2 = 1 THEN 'K' ELSE 'k' END || ntc::int, $nd
       md5('u' || nu::int)::uuid, decode(lpad(to_hex(nb::int), 8, '0'), 'hex'),
       p1::int, 'p' || p2::int, v::int
  FROM (VALUES } . join(",\n", @rows) . q{) x(ni2, ni4, ni8, nt, ntc, nnd, nu, nb, c1, c2, c3, p1, p2, v);};
}

q1("CREATE EXTENSION bloomfilter");
q1("CREATE COLLATION public.nd (provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
  if $icu;
q1("CREATE DOMAIN public.jd_big AS bigint");
q1("CREATE SCHEMA remote_src;\nCREATE EXTENSION postgres_fdw;\n"
	  . fdw_server_sql('loopback', $node, $db, "extensions 'bloomfilter'")
	  . fdw_server_sql('plain', $node, $db, ''));
foreach my $t (grep { !$_->{of} } @tables)
{
	q1(table_sql($t, $t->{kind} eq 'remote' ? "remote_src.$t->{name}" : "public.$t->{name}"));
}
q1("IMPORT FOREIGN SCHEMA remote_src FROM SERVER loopback INTO public");
q1(table_sql($_, "public.$_->{name}")) foreach grep { $_->{of} } @tables;
q1(join(";\n", map { "ANALYZE public.$_->{name}" } grep { $_->{name} ne 'l_fresh' && !$_->{view} } @tables)
	  . ";\nANALYZE remote_src.r_big, remote_src.r_mid, remote_src.r_small, remote_src.r_empty");
# what each table is, its rows, and whether ANALYZE has statistics of it
# (none of an empty table, of l_fresh, nor of the view)
is(q1(join("\nUNION ALL ", map {
	"SELECT c.relname || ':' || c.relkind::text || ':' || (SELECT count(*) FROM public.$_->{name}) || ':'
	        || EXISTS (SELECT 1 FROM pg_statistic st WHERE st.starelid = c.oid)
	   FROM pg_class c WHERE c.oid = 'public.$_->{name}'::regclass"
	} @tables)),
	join("\n", map {
		my $t = $_;
		my $rows = $t->{rows} // $table{ $t->{of} }{rows};
		$rows = q1("SELECT count(*) FROM $t->{of} WHERE v < " . ($t->{view} ? 80 : 70))
		  if $t->{kind} eq 'local' && $t->{of};
		"$t->{name}:"
		  . ($t->{kind} ne 'local' ? 'f' : $t->{view} ? 'v' : $t->{of} ? 'm'
			  : ($t->{how} // '') =~ /PARTITION/ ? 'p' : 'r')
		  . ":$rows:" . ($rows > 0 && $t->{name} ne 'l_fresh' && !$t->{view} ? 'true' : 'false')
	} @tables),
	'the foreign and local tables are there, with their rows, analyzed (but l_fresh)');

# ---- the queries -------------------------------------------------------------
#
# A key equality is a list of pairs [X's expression, Y's expression, tag],
# each expression with %s for the alias: one pair, or several for a
# composite key.  Tags: the key's family, "int-widths" where integers of
# two widths meet, "nd" where the equality compares under the
# nondeterministic collation (no filter may come of it).

my %family_cols = (
	# the domain's keys less often: a foreign column of a domain gets no
	# filter (postgres_fdw would not send it)
	int    => [qw(i2 i4 i8 i2 i4 i8 di)],
	text   => [qw(t vc)],
	textc  => [qw(tc)],
	uuid   => ['u'],
	bytea  => ['b'],
	nd     => ['tnd'],
);
my @families = (('int') x 7, ('text') x 3, ('textc') x 1, ('bpchar') x 1, ('composite') x 3,
	('uuid') x 2, ('bytea') x 2, ('expr') x 2, $icu ? ('nd') : ());
my @out_cols = qw(i2 i4 i8 di t tc vc ch u b p1 p2 v);

# keys that are expressions, or columns compared under another collation
my @expr_pairs = (
	[ '%s.i4 + 0', '%s.i4' ], [ '%s.i8::int', '%s.i4' ], [ '%s.i2::bigint', '%s.i8' ],
	[ 'abs(%s.i4)', '%s.i8' ], [ '%s.i4', '%s.p1 * 1' ], [ 'lower(%s.t)', '%s.t' ],
	[ "%s.t || ''", '%s.t' ], [ '%s.t', '%s.t COLLATE "C"' ], [ '%s.tc', '%s.tc COLLATE "default"' ],
	[ '%s.t', '%s.tc' ], [ '%s.u::text', '%s.u::text' ], [ '%s.ch::text', '%s.vc' ],
	[ '%s.b', q{decode(lpad(to_hex(%s.i4), 8, '0'), 'hex')} ],
	$icu ? ([ '%s.t', '%s.t COLLATE public.nd', 'nd' ], [ '%s.tnd', '%s.t', 'nd' ],
		[ '%s.tnd', '%s.tnd COLLATE "C"', 'nd-as-c' ]) : (),
);

sub pick { return $_[ int(rand(@_)) ]; }
sub rnd { my ($lo, $hi) = @_; return $lo + int(rand($hi - $lo + 1)); }
sub col_pair { my ($x, $y, $tag) = @_; return [ "%s.$x", "%s.$y", $tag ]; }

# key_pairs(FAMILY): the pairs of an equality of FAMILY
sub key_pairs
{
	my ($family) = @_;
	if ($family eq 'composite')
	{
		return (col_pair('p1', 'p1'), col_pair('p2', 'p2')) if rand() < 0.5;
		# integers of any widths, and a second key of another kind
		my @ints = @{ $family_cols{int} };
		return (col_pair(pick(@ints), pick(@ints)),
			pick(col_pair('t', 't'), col_pair('tc', 'tc'), col_pair('u', 'u'), col_pair('b', 'b'),
				col_pair('vc', 't'), col_pair('i8', 'i2'), col_pair('ch', 'ch2')));
	}
	return (pick(@expr_pairs)) if $family eq 'expr';
	# char(8) against char(12): equal values differ in their trailing spaces
	return (pick(col_pair('ch', 'ch'), col_pair('ch', 't'), col_pair('t', 'ch'), col_pair('ch', 'ch2'),
			col_pair('ch2', 'ch'), col_pair('ch2', 'ch2'))) if $family eq 'bpchar';
	my $cols = $family_cols{$family};
	return (col_pair(pick(@$cols), pick(@$cols), $family eq 'nd' ? 'nd' : undef));
}

# key_eq(X, Y, PAIRS): X's and Y's keys equal, in random order
sub key_eq
{
	my ($x, $y, @pairs) = @_;
	@pairs = reverse @pairs if rand() < 0.3;
	return join(' AND ', map {
		my ($l, $r) = (sprintf($_->[0], $x), sprintf($_->[1], $y));
		rand() < 0.5 ? "$l = $r" : "$r = $l"
	} @pairs);
}

# the tags of a key equality
sub key_tags
{
	my ($family, @pairs) = @_;
	my @tags = ($family eq 'textc' ? 'text' : $family, map { $_->[2] // () } @pairs);
	push @tags, 'int-widths' if grep {
		$_->[0] =~ /^%s\.(i2|i4|i8|di)$/ && $_->[1] =~ /^%s\.(i2|i4|i8|di)$/ && $_->[0] ne $_->[1]
	} @pairs;
	return @tags;
}

# cond(A): a condition on alias A alone
sub cond
{
	my ($a) = @_;
	my @c = (
		sub { "$a.v < " . rnd(10, 90) },
		sub { "$a.v % " . rnd(2, 5) . ' = ' . rnd(0, 1) },
		sub { "($a.v < " . rnd(5, 30) . " OR $a.v > " . rnd(60, 95) . ')' },
		sub { "abs($a.v - 50) < " . rnd(10, 40) },
		sub { "$a.i4 IS NOT NULL" },
		sub { "$a.t LIKE 'k" . rnd(1, 9) . "%'" },
		sub { "lower($a.t) LIKE 'k" . rnd(1, 9) . "%'" },
		sub { "length($a.tc) = " . rnd(2, 5) },
		sub { "($a.i8 > " . rnd(100, 2000) . " OR $a.t LIKE 'K%')" },
		sub { "coalesce($a.i2, 0) < " . rnd(100, 3000) },
		sub { "$a.u IS NOT NULL" },
		sub { my $lo = rnd(1, 40); "$a.p1 BETWEEN $lo AND " . ($lo + rnd(5, 30)) },
		sub { "length($a.b) = 4" },
		sub { "upper($a.tc) <> 'K" . rnd(1, 99) . "'" },
		sub { "$a.v IN (" . join(', ', map { rnd(0, 99) } 1 .. 5) . ')' },
		sub { "NOT ($a.v > " . rnd(20, 80) . ')' },
		sub { "($a.v < " . rnd(10, 50) . " OR $a.i4 IS NULL)" },
		sub { "$a.i8 % 7 <> 0" },
		sub { "$a.di < " . rnd(200, 2000) },
		sub { "$a.ch LIKE 'k" . rnd(1, 9) . "%'" },
		sub { "length($a.vc) < " . rnd(3, 5) },
	);
	return pick(@c)->();
}

# cross_cond(A, B): a condition on two aliases
sub cross_cond
{
	my ($a, $b) = @_;
	return pick("$a.v <= $b.v", "($a.v < 50 OR $b.v > 20)", "$a.p1 IS DISTINCT FROM $b.p1",
		"coalesce($a.i4, 0) + coalesce($b.i4, 0) > " . rnd(100, 3000));
}

# select_list(ALIASES): the select list and what follows the WHERE clause
# (GROUP BY, HAVING, or '')
sub select_list
{
	my @aliases = @_;
	my $r = rand();
	my $col = sub { pick(@aliases) . '.' . pick(@out_cols) };
	if ($r < 0.5)
	{
		my $i = 0;
		return (join(', ', map { $col->() . ' AS c' . $i++ } 1 .. rnd(1, 3)), '');
	}
	if ($r < 0.63)
	{
		my $a = pick(@aliases);
		return ("count(*) AS n, sum($a.v) AS s, count($a.i4) AS c", '');
	}
	if ($r < 0.78)
	{
		my $g = $col->();
		return ("$g AS g, count(*) AS n", "GROUP BY $g" . (rand() < 0.3 ? ' HAVING count(*) > 1' : ''));
	}
	if ($r < 0.85)
	{
		my ($c, $p) = ($col->(), $col->());
		return ("$c AS c0, count(*) OVER (PARTITION BY $p) AS w", '');
	}
	my $i = 0;
	return ('DISTINCT ' . join(', ', map { $col->() . ' AS d' . $i++ } 1 .. rnd(1, 2)), '');
}

sub pick_table
{
	my ($kind) = @_;
	my @from = $kind eq 'remote' ? @remote : $kind eq 'local' ? @local : @tables;
	return pick(map { ($_) x $_->{weight} } @from)->{name};
}

# where(CONDS): the WHERE clause of CONDS, or ''
sub where { return @_ ? 'WHERE ' . join(' AND ', @_) : ''; }

# table_ref(TABLE, ALIAS, TAGS): TABLE as ALIAS, most often itself, else a
# subquery with a condition, which the planner pulls up, or with OFFSET 0,
# which it keeps as a subquery (its scan's alias ALIAS followed by "i")
sub table_ref
{
	my ($table, $alias, $tags) = @_;
	my $r = rand();
	return "$table $alias" if $r < 0.9;
	push @$tags, 'derived';
	return "(SELECT * FROM $table ${alias}i WHERE " . cond("${alias}i")
	  . ($r < 0.97 ? '' : ' OFFSET 0') . ") $alias";
}

# a join of 2 to 4 tables: returns the query's hash (sql, tags, tables by
# alias, forbid: the aliases no filter may reach, and why)
sub join_query
{
	my $n = pick(2, 2, 2, 3, 3, 4);
	my @t;
	if (rand() < 0.9)
	{
		# a local and a remote table at least, in either order
		@t = rand() < 0.5 ? (pick_table('local'), pick_table('remote'))
		  : (pick_table('remote'), pick_table('local'));
		push @t, pick_table('any') while @t < $n;
	}
	else
	{
		@t = map { pick_table('any') } 1 .. $n;
	}
	my @aliases = map { "a$_" } 1 .. $n;
	my $style = pick(qw(inner inner inner inner inner comma comma using left left right full nested));
	$style = 'inner' if $style eq 'nested' && $n < 3;
	my (@tags, @where, %refs);
	my @refs = map { table_ref($t[$_ - 1], "a$_", \@tags) } 1 .. $n;
	# the equality joining Y to X: its SQL, and its key's tags
	my $join_eq = sub {
		my ($x, $y) = @_;
		my $family = pick(@families);
		my @pairs = key_pairs($family);
		push @tags, key_tags($family, @pairs);
		return (key_eq($x, $y, @pairs), @pairs);
	};
	# the ON clause: the equality, sometimes with a condition
	my $on = sub {
		my ($x, $y, $eq) = @_;
		$eq .= ' AND ' . cond(pick($x, $y)) if rand() < 0.2;
		$eq .= ' AND ' . cross_cond($x, $y) if rand() < 0.1;
		return "ON $eq";
	};
	my $from = $refs[0];
	my $used_using = 0;
	my $k = 2;
	if ($style eq 'nested')
	{
		# a1 joined to a join of a2 and a3
		my ($inner_eq) = $join_eq->('a2', 'a3');
		my ($outer_eq) = $join_eq->('a1', pick('a2', 'a3'));
		$from .= ' ' . pick('JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN') . " ($refs[1] "
		  . pick('JOIN', 'LEFT JOIN') . " $refs[2] " . $on->('a2', 'a3', $inner_eq) . ') '
		  . $on->('a1', 'a2', $outer_eq);
		$k = 4;
	}
	for (; $k <= $n; $k++)
	{
		my $x = $aliases[ int(rand($k - 1)) ];
		my $y = "a$k";
		my ($eq, @pairs) = $join_eq->($x, $y);
		if ($style eq 'comma')
		{
			$from .= ", $refs[$k - 1]";
			push @where, $eq;
			next;
		}
		my $jt = $style eq 'inner' || $style eq 'using' || $style eq 'nested' ? 'JOIN'
		  : $k == 2 ? uc($style) . ' JOIN'
		  : pick('JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN');
		my @cols = map { $_->[0] =~ /^%s\.(\w+)$/ && $_->[0] eq $_->[1] ? $1 : () } @pairs;
		if ($style eq 'using' && $k == 2 && @cols == @pairs && !grep { $_ eq 'tnd' } @cols)
		{
			$from .= " $jt $refs[$k - 1] USING (" . join(', ', @cols) . ')';
			$used_using = 1;
			next;
		}
		$from .= " $jt $refs[$k - 1] " . $on->($x, $y, $eq);
	}
	for (1 .. pick(0, 0, 1, 1, 2, 3))
	{
		my $a = pick(@aliases);
		$refs{$a} = 1;
		push @where, cond($a);
	}
	if (rand() < 0.1)
	{
		my ($a, $b) = (pick(@aliases), pick(@aliases));
		@refs{ $a, $b } = (1, 1);
		push @where, cross_cond($a, $b);
	}
	my ($sel, $rest) = select_list(@aliases);
	my %q = (sql => "SELECT $sel FROM $from " . where(@where) . " $rest",
		tags => [ $style eq 'using' && !$used_using ? 'inner' : $style, @tags ],
		tables => { map { ("a$_" => $t[ $_ - 1 ]) } 1 .. $n }, forbid => {});
	# the preserved side of a two-table outer join, which no WHERE
	# condition on the other side turns into an inner join
	if ($n == 2)
	{
		$q{forbid}{a1} = 'the preserved side of a LEFT JOIN' if $style eq 'left' && !$refs{a2};
		$q{forbid}{a2} = 'the preserved side of a RIGHT JOIN' if $style eq 'right' && !$refs{a1};
		%{ $q{forbid} } = (a1 => 'a side of a FULL JOIN', a2 => 'a side of a FULL JOIN')
		  if $style eq 'full' && !%refs;
		%{ $q{forbid} } = (a1 => 'a nondeterministic key', a2 => 'a nondeterministic key')
		  if grep { $_ eq 'nd' } @tags;
	}
	return \%q;
}

# a semi or anti join: [NOT] IN (and = ANY, = ALL, under OR), [NOT]
# EXISTS; the outer side one table, or two joined
sub sub_query
{
	my $form = pick(qw(in in in in exists exists exists exists notin notin notexists notexists
		all in-or exists-or exists-agg));
	my $r = rand();
	my ($outer, $inner) = $r < 0.7 ? (pick_table('remote'), pick_table('local'))
	  : $r < 0.9 ? (pick_table('local'), pick_table('remote'))
	  : (pick_table('any'), pick_table('any'));
	# an EXISTS that cannot be a semi join runs once an outer row (and a
	# remote query each time): small tables then, to keep the test short
	my $tail = $form =~ /^exists|^notexists/ && rand() < 0.1 ? pick(' OFFSET 1', ' LIMIT 1', ' HAVING count(*) > 1') : '';
	($outer, $inner) = (pick(qw(r_small r_empty l_small l_mid)), pick(qw(l_tiny l_small l_mid l_empty)))
	  if $tail ne '' || $form eq 'exists-or' || $form eq 'exists-agg';
	my $family = pick(@families);
	# an explicit collation on the outer side: a subquery's column keeps
	# none (it would conflict with the other side's)
	my @pairs = map { $_->[1] =~ /COLLATE/ ? [ $_->[1], $_->[0], $_->[2] ] : $_ } key_pairs($family);
	my @tags = ($form, key_tags($family, @pairs));
	my @aliases = ('a1');
	my %tables = (a1 => $outer, s1 => $inner);
	my $from = table_ref($outer, 'a1', \@tags);
	my $inner_ref = table_ref($inner, 's1', \@tags);
	if (rand() < 0.15)
	{
		# the outer side a join of two
		my $f2 = pick(@families);
		my @p2 = key_pairs($f2);
		$tables{a2} = pick_table('any');
		$from .= ' ' . pick('JOIN', 'JOIN', 'LEFT JOIN') . ' ' . table_ref($tables{a2}, 'a2', \@tags)
		  . ' ON ' . key_eq('a1', 'a2', @p2);
		push @aliases, 'a2';
		push @tags, key_tags($f2, @p2);
	}
	my $x = pick(@aliases);
	my @sub_where = map { cond('s1') } 1 .. pick(0, 1, 1, 2);
	# a NULL key in NOT IN's subquery leaves no row: often keep them out
	push @sub_where, map { sprintf($_->[1], 's1') . ' IS NOT NULL' } @pairs
	  if ($form eq 'notin' || $form eq 'all') && rand() < 0.5;
	my $test;
	if ($form =~ /^(in|notin|all|in-or)$/)
	{
		# a correlated IN runs once an outer row: over small tables only
		push @sub_where, cross_cond('s1', $x)
		  if rand() < 0.08 && "$outer $inner" =~ /^(r_small|r_empty|l_tiny|l_small|l_mid) l_(tiny|small|mid|empty)$/;
		my ($l, $r) = (join(', ', map { sprintf($_->[0], $x) } @pairs),
			join(', ', map { sprintf($_->[1], 's1') } @pairs));
		$l = "($l)" if @pairs > 1;
		# the subquery's shape: plain, DISTINCT, grouped, a union, ordered
		# and limited (the same rows each time), an aggregate
		my $sub = "SELECT $r FROM $inner_ref " . where(@sub_where);
		my $shape = @pairs > 1 ? 'plain' : pick(qw(plain plain plain distinct having union limit agg));
		$shape = 'plain' if $shape eq 'agg' && $family !~ /^(int|text|textc)$/;
		if ($shape eq 'distinct') { $sub =~ s/^SELECT /SELECT DISTINCT /; }
		elsif ($shape eq 'having') { $sub .= " GROUP BY $r HAVING count(*) >= " . rnd(1, 3); }
		elsif ($shape eq 'limit') { $sub .= (@sub_where ? ' AND ' : ' WHERE ') . "$r IS NOT NULL ORDER BY 1 LIMIT " . rnd(1, 50); }
		elsif ($shape eq 'agg') { $sub =~ s/^SELECT \Q$r\E /'SELECT ' . pick('min', 'max') . "($r) "/e; $sub .= ' GROUP BY s1.v'; }
		elsif ($shape eq 'union')
		{
			$tables{s2} = pick_table('any');
			$sub .= ' UNION' . pick('', ' ALL') . ' SELECT ' . sprintf($pairs[0][1], 's2') . " FROM $tables{s2} s2 WHERE "
			  . cond('s2');
		}
		push @tags, "in-$shape" unless $shape eq 'plain';
		$test = $form eq 'notin' ? "NOT $l IN ($sub)"
		  : $form eq 'all' ? "$l = ALL ($sub)"
		  : $form eq 'in-or' ? "($l IN ($sub) OR " . cond($x) . ')'
		  : rand() < 0.2 ? "$l = ANY ($sub)" : "$l IN ($sub)";
	}
	else
	{
		push @sub_where, cross_cond('s1', $x) if rand() < 0.1;
		my $eq = key_eq($x, 's1', @pairs);
		my $what = '1';
		if ($form eq 'exists-or') { $eq = "($eq OR s1.v = " . rnd(0, 99) . ')'; }
		elsif ($form eq 'exists-agg') { $what = 'count(*)'; }
		$test = ($form eq 'notexists' ? 'NOT ' : '') . "EXISTS (SELECT $what FROM $inner_ref "
		  . where($eq, @sub_where) . "$tail)";
	}
	my @where = ($test, map { cond(pick(@aliases)) } 1 .. pick(0, 0, 1, 2));
	@where = reverse @where if rand() < 0.3;
	my ($sel, $rest) = select_list(@aliases);
	my %q = (sql => "SELECT $sel FROM $from " . where(@where) . " $rest", tags => \@tags,
		tables => \%tables, forbid => {});
	if (@aliases == 1)
	{
		%{ $q{forbid} } = (a1 => 'the outer side of an anti join', s1 => 'the inner side of an anti join')
		  if $form eq 'notin' || $form eq 'notexists';
		$q{forbid}{a1} = "the outer side of $form" if $form =~ /^(all|in-or|exists-or|exists-agg)$/;
		%{ $q{forbid} } = (a1 => 'a nondeterministic key', s1 => 'a nondeterministic key')
		  if grep { $_ eq 'nd' } @tags;
	}
	return \%q;
}

# prepared(Q, I): Q as a prepared statement (its "prepare", the statements
# that go before it), where one of its conditions
# has a number that can be its parameter, run with that number in a
# generic plan
sub prepared
{
	my ($q, $i) = @_;
	return $q unless $q->{sql} =~ /\b(\w+\.v) < (\d+)\b/;
	my $n = $2;
	(my $sql = $q->{sql}) =~ s/\b(\w+\.v) < \d+\b/$1 < \$1/;
	$q->{prepare} = "PREPARE jd$i(int) AS $sql;\n";
	$q->{sql} = "EXECUTE jd$i($n)";
	push @{ $q->{tags} }, 'prepared';
	return $q;
}

my @queries = map { rand() < 0.6 ? join_query() : sub_query() } 1 .. $nqueries;
for my $i (0 .. $#queries)
{
	$queries[$i]{sql} =~ s/ +/ /g;
	$queries[$i]{sql} =~ s/ $//;
	# the query one level down: in FROM or in WITH (the filter then comes
	# from the subquery's own joins)
	if (rand() < 0.1)
	{
		$queries[$i]{sql} = sprintf(pick('SELECT * FROM (%s) wq', 'WITH wq AS (%s) SELECT * FROM wq',
				'WITH wq AS MATERIALIZED (%s) SELECT * FROM wq'), $queries[$i]{sql});
		push @{ $queries[$i]{tags} }, 'wrapped';
	}
	prepared($queries[$i], $i) if rand() < 0.08;
	# other plans for the same query: parallel ones (the filter's
	# aggregate too; without nested loops, which would start workers again
	# for each outer row), or without hash joins, or without nested loops
	# (without both, a remote query each outer row could take minutes)
	my $r = rand();
	my @set = $r < 0.08 ? ('parallel_setup_cost = 0', 'parallel_tuple_cost = 0',
		'min_parallel_table_scan_size = 0', 'max_parallel_workers_per_gather = 2', 'enable_nestloop = off')
	  : $r < 0.12 ? ('enable_hashjoin = off')
	  : $r < 0.16 ? ('enable_nestloop = off') : ();
	next unless @set;
	$queries[$i]{prepare} = join('', map { "SET $_;\n" } @set) . ($queries[$i]{prepare} // '');
	$queries[$i]{reset} = join('', map { 'RESET ' . s/ =.*//r . ";\n" } @set);
	push @{ $queries[$i]{tags} }, $r < 0.08 ? 'parallel' : $r < 0.12 ? 'no-hash' : 'no-nestloop';
}

# ---- the runs ------------------------------------------------------------------

# the script of a run with the setting on or off: each query as it is
# (the planner's hook sees only a statement's top level: wrapped in a
# subquery that counts its rows, no query would get a filter), or its
# EXPLAIN, between a line "@@Q<i>" and a line "@@E <whether it failed>"
sub script
{
	my ($setting, $explain) = @_;
	my $s = "SET statement_timeout = '60s';\nLOAD 'bloomfilter';\n"
	  . "SET bloomfilter.join_filter = $setting;\n"
	  . "SELECT 'GUC|' || coalesce(current_setting('bloomfilter.join_filter', true), '<none>');\n"
	  . "SET plan_cache_mode = force_generic_plan;\n\\pset null '<NULL>'\n";
	for my $i (0 .. $#queries)
	{
		$s .= ($queries[$i]{prepare} // '') . "\\echo \@\@Q$i\n" . ($explain ? 'EXPLAIN (VERBOSE, COSTS OFF) ' : '')
		  . "$queries[$i]{sql};\n\\echo \@\@E :ERROR\n" . ($queries[$i]{reset} // '');
	}
	return $s;
}

# run(SETTING, EXPLAIN): the setting psql shows, a hash of each query's
# answer (its row count and the md5 of its sorted rows) or plan, and
# psql's stderr; a query that failed has none
sub run
{
	my ($setting, $explain) = @_;
	my ($out, $err) = ('', '');
	my $script = script($setting, $explain);
	$node->psql($db, $script, stdout => \$out, stderr => \$err, on_error_stop => 0);
	if (my $dir = $ENV{BLOOM_JOINDIFF_DUMP})
	{
		my $name = "$dir/$setting" . ($explain ? '-explain' : '');
		foreach (['sql', $script], ['out', $out], ['err', $err])
		{
			open my $fh, '>', "$name.$_->[0]" or die "$name.$_->[0]: $!";
			print $fh $_->[1];
			close $fh;
		}
	}
	my ($guc) = $out =~ /^GUC\|(.*)$/m;
	# after a crash, the next run waits until the server is back
	$node->poll_query_until($db, 'SELECT true');
	my (%res, $cur, @lines);
	foreach (split /\n/, $out)
	{
		if (/^\@\@Q(\d+)$/)
		{
			($cur, @lines) = ($1);
		}
		elsif (defined $cur && /^\@\@E (\w+)$/)
		{
			$res{$cur} = $explain ? join("\n", @lines) : scalar(@lines) . '|' . md5_hex(join("\n", sort @lines))
			  if $1 eq 'false';
			undef $cur;
		}
		elsif (defined $cur)
		{
			push @lines, $_;
		}
	}
	return ($guc // '<psql failed>', \%res, $err);
}

# why(I, SETTING): query I's error with SETTING, run alone
sub why
{
	my ($i, $setting) = @_;
	my ($out, $err) = ('', '');
	$node->psql($db, "LOAD 'bloomfilter'; SET bloomfilter.join_filter = $setting;
		SET plan_cache_mode = force_generic_plan; " . ($queries[$i]{prepare} // '') . $queries[$i]{sql},
		stdout => \$out, stderr => \$err, on_error_stop => 1);
	$err =~ s/\s+$//;
	return $err eq '' ? '(no error when run alone)' : $err;
}

sub replay { return "Q$_[0] (seed $seed): " . ($queries[$_[0]]{prepare} // '') . $queries[$_[0]]{sql}; }

my $log_offset = -s $node->logfile;
my $t0 = time;
my ($guc_off, $off, $off_err) = run('off', 0);
my ($guc_on, $on, $on_err) = run('on', 0);
my (undef, $plan_off) = run('off', 1);
my (undef, $plan_on) = run('on', 1);
note('join-diff: ' . (time - $t0) . ' s for the four runs of ' . scalar(@queries) . ' queries');

is($guc_on, 'on', 'bloomfilter.join_filter exists and is on in the run with it on');

my @off_fail = grep { !exists $off->{$_} } 0 .. $#queries;
ok(!@off_fail, 'every query runs with bloomfilter.join_filter = off')
  || diag(join("\n", map { replay($_) . "\n  " . why($_, 'off') } @off_fail[ 0 .. ($#off_fail < 4 ? $#off_fail : 4) ]));

my (@differ, @on_fail);
for my $i (0 .. $#queries)
{
	next unless exists $off->{$i};
	if (!exists $on->{$i}) { push @on_fail, $i; }
	elsif ($on->{$i} ne $off->{$i}) { push @differ, $i; }
}
ok(!@on_fail, 'every query that runs with the setting off runs with it on')
  || diag(join("\n", map { replay($_) . "\n  " . why($_, 'on') } @on_fail[ 0 .. ($#on_fail < 9 ? $#on_fail : 9) ])
	  . (@on_fail > 10 ? "\n... and " . (@on_fail - 10) . ' more' : ''));
ok(!@differ, 'every query gives the same rows with bloomfilter.join_filter on and off')
  || diag(join("\n", map { replay($_) . "\n  off: $off->{$_}\n  on:  $on->{$_}" } @differ));

my @off_filtered = grep { ($plan_off->{$_} // '') =~ /bloom_agg/ } 0 .. $#queries;
ok(!@off_filtered, 'with the setting off, no plan has a filter')
  || diag(join("\n", map { replay($_) } @off_filtered[ 0 .. ($#off_filtered < 4 ? $#off_filtered : 4) ]));
my @no_plan = grep { exists $off->{$_} && !exists $plan_on->{$_} } 0 .. $#queries;
ok(!@no_plan, 'every query has a plan with the setting on')
  || diag(join("\n", map { replay($_) } @no_plan[ 0 .. ($#no_plan < 4 ? $#no_plan : 4) ]));

# the filters, by form and key
my (%by_tag, %tagged, @filtered);
for my $i (0 .. $#queries)
{
	my $got = ($plan_on->{$i} // '') =~ /bloom_agg/ ? 1 : 0;
	push @filtered, $i if $got;
	my %seen;
	foreach my $tag (grep { !$seen{$_}++ } @{ $queries[$i]{tags} })
	{
		$tagged{$tag}++;
		$by_tag{$tag} += $got;
	}
}
note(sprintf('join-diff: %d of %d queries got a filter; by form and key: %s', scalar(@filtered),
		scalar(@queries), join(', ', map { "$_ " . ($by_tag{$_} // 0) . "/$tagged{$_}" } sort keys %tagged)));
# a filter that postgres_fdw could not send would be applied locally,
# after every row has crossed: right, but it saves nothing.  (A plan may
# also keep a filter it never reads, where the planner has found that the
# scan returns nothing: "One-Time Filter: false".)
my @local_only = grep { $plan_on->{$_} =~ /^(?!\s*Remote SQL:).*<~/m } @filtered;
ok(!@local_only, 'no plan applies a filter locally rather than in its Remote SQL')
  || diag(join("\n", map { replay($_) } @local_only[ 0 .. ($#local_only < 4 ? $#local_only : 4) ]));
ok(@filtered >= 0.15 * @queries, 'at least 15% of the queries got a filter')
  || diag(scalar(@filtered) . ' of ' . scalar(@queries));
foreach my $tag (qw(inner in exists composite))
{
	ok(($by_tag{$tag} // 0) > 0, "at least one query of the form or key '$tag' got a filter")
	  || diag("0 of " . ($tagged{$tag} // 0));
}
# a subquery in FROM (its scan's alias ends in "i") or the view (whose
# scan is l_mid's, under no alias of the query's) as the local side
my @from_subquery = grep { $plan_on->{$_} =~ /bloom_agg\([^\n]*\b(?:a\d+i|l_mid)_\d+\./ } @filtered;
note('join-diff: ' . scalar(@from_subquery) . ' filters built from a subquery in FROM or a view');
ok(@from_subquery > 0, 'at least one filter is built from a subquery in FROM or a view');
# a character(n) key alone is hashed as bloom_key(ch), without its
# trailing spaces; text keys get filters only where the extension can
# learn the remote database's encoding through postgres_fdw
my @bpchar_filters = grep { $plan_on->{$_} =~ /bloom_agg\((?:\w+\.)?bloom_key\(\w+\.ch2?\), \d+\)/ } @filtered;
if (fdw_connection_reachable())
{
	ok(@bpchar_filters > 0, 'at least one query got the filter of a character(n) key')
	  || diag("0 of " . ($tagged{bpchar} // 0));
}
else
{
	ok(!@bpchar_filters, 'no query got the filter of a character(n) key: the remote encoding cannot be learnt')
	  || diag(replay($bpchar_filters[0]));
}

# the scans a filter would change, and the tables no filter may reach: a
# filter goes only to a foreign table of the server with extensions
# 'bloomfilter'
my ($checked, @wrong) = (0);
for my $i (0 .. $#queries)
{
	my $q = $queries[$i];
	next unless defined $plan_on->{$i};
	$checked++ if %{ $q->{forbid} };
	# a subquery's scan of table_ref is named after its alias and "i"
	my %filtered = map { s/i$//r => 1 } plan_scans_matching($plan_on->{$i}, qr/<~|~>|bloom_may_contain/);
	foreach my $alias (sort keys %filtered)
	{
		my $t = $q->{tables}{$alias} // '?';
		my $why = $q->{forbid}{$alias}
		  // (($table{$t}{kind} // '') ne 'remote' ? "$t, not a foreign table of the server with the extension" : undef);
		push @wrong, replay($i) . "\n  a filter on $alias, $why" if defined $why;
	}
}
note("join-diff: $checked queries with a scan that must keep every row");
ok(!@wrong, 'no filter on the preserved side of an outer join, an anti join, a nondeterministic key, '
	  . 'or a table other than a foreign table of the server with the extension')
  || diag(join("\n", @wrong));

is(crash_lines($node, $log_offset), '', 'no server process crashed');

done_testing();
