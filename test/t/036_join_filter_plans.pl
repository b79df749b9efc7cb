# test/t/036_join_filter_plans.pl -- where bloomfilter.join_filter adds a
# filter to a foreign table's scan, and where it must not.
#
# One cluster reaches its own tables through two postgres_fdw servers, one
# listing extensions 'bloomfilter' and one not.  With the setting on:
#
#   1. a filter of the local side's keys is built (an initplan computing
#      bloom_agg over the local table, under its own conditions) and sent
#      with the remote query (<~ against a parameter in the Remote SQL) for
#      JOIN ... ON, USING, a comma join, IN (SELECT ...), EXISTS, a key of
#      two columns (bloom_key), a view or a subquery in FROM (grouped,
#      distinct, a sum of integers) as the local side, varchar against text, character(n) of two
#      lengths (bloom_key, which drops trailing spaces), uuid, bytea,
#      integers of different widths, a local key of a domain, and a join
#      in a subquery of FROM or in a WITH query; its bits per key are the cost model's, 20 for a
#      small local side and fewer for a large one; a large local side
#      counts as the rows its own conditions leave (PostgreSQL's estimate);
#   2. none is added to an outer join's sides, under NOT IN, NOT EXISTS or
#      OR, for a server without the option, a foreign key column of a
#      domain (postgres_fdw would not send it), for text under a
#      nondeterministic collation, for an IN subquery or a subquery in FROM
#      with a LIMIT, a volatile condition or one that may fail on a row
#      (10 / region), over a foreign table (building would fetch it
#      again), over a WITH query of the query or reading the query two
#      levels up (which the filter's own query could not name), for a
#      subquery whose rows depend on the order they come in, which may
#      differ when it runs again (row numbers, DISTINCT ON, string_agg, a
#      grouping, UNION or INTERSECT ALL of numeric values, where 1.0 =
#      1.00), for a foreign table never analyzed, where every remote row matches (a foreign
#      key), where the remote side is small, where the local side (under
#      its conditions) holds most remote keys, or with the setting off;
#   3. under row-level security the filter's input is what the role may
#      see (a policy's subquery comes along; a volatile policy keeps the
#      filter away), and a volatile condition on the local side, or one
#      that may fail on a row, stays out of it (the filter may hold more
#      keys, never other ones);
#   4. every query answers as it does with the setting off (run as it
#      stands: a query's subqueries in FROM and WITH get filters too);
#   5. a statement timeout while the filter is built (over a slow
#      condition, LEAKPROOF, as one that may fail on a row stays out)
#      cancels the query, and the session and its remote connection go on
#      working;
#   6. text keys get a filter only from a remote database of the local
#      encoding (a non-ASCII key is other bytes in another one), and only
#      where postgres_fdw lets the extension learn it; integers from any.
use strict;
use warnings;

use BloomFilter::Test;
use Test::More;

my $node = bloom_node('main');

if ($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_available_extensions WHERE name = 'postgres_fdw'") ne '1')
{
	plan skip_all => 'postgres_fdw is not available (contrib)';
}

$node->safe_psql('postgres', qq{
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SCHEMA src;
CREATE TABLE src.events (id bigint, user_id bigint, region integer, name varchar(20),
	tag uuid, blob bytea, code char(12));
INSERT INTO src.events
	SELECT g, (g * 7919) % 1000003, g % 10, 'u' || (g * 7919) % 1000003,
		md5('t' || (g * 7919) % 1000003)::uuid, decode(md5('b' || (g * 7919) % 1000003), 'hex'),
		'c' || (g * 7919) % 1000003
	FROM generate_series(1::bigint, 200000) g;
CREATE TABLE src.orders (id bigint, user_id integer);
INSERT INTO src.orders SELECT g, 1 + g % 1000 FROM generate_series(1, 50000) g;
CREATE TABLE src.small (user_id bigint);
INSERT INTO src.small SELECT (g * 7919) % 1000003 FROM generate_series(1::bigint, 300) g;
ANALYZE src.events; ANALYZE src.orders; ANALYZE src.small;

@{[ fdw_server_sql('loop', $node, 'postgres', "extensions 'bloomfilter'") ]}
@{[ fdw_server_sql('loop_plain', $node, 'postgres', '') ]}
CREATE FOREIGN TABLE events (id bigint, user_id bigint, region integer, name varchar(20),
	tag uuid, blob bytea, code char(12)) SERVER loop OPTIONS (schema_name 'src', table_name 'events');
CREATE FOREIGN TABLE events_plain (id bigint, user_id bigint, region integer, name varchar(20),
	tag uuid, blob bytea) SERVER loop_plain OPTIONS (schema_name 'src', table_name 'events');
CREATE FOREIGN TABLE events_new (id bigint, user_id bigint, region integer, name varchar(20),
	tag uuid, blob bytea) SERVER loop OPTIONS (schema_name 'src', table_name 'events');
CREATE DOMAIN user_key AS bigint;
CREATE FOREIGN TABLE events_dom (id bigint, user_id user_key) SERVER loop
	OPTIONS (schema_name 'src', table_name 'events');
CREATE FOREIGN TABLE orders (id bigint, user_id integer)
	SERVER loop OPTIONS (schema_name 'src', table_name 'orders');
CREATE FOREIGN TABLE small (user_id bigint)
	SERVER loop OPTIONS (schema_name 'src', table_name 'small');

-- 1,000 keys of the remote table (every third of its first 3,000 rows),
-- and 1,000 that it lacks
-- code: character(n) of another length than the remote one's, so that
-- equal codes differ in their trailing spaces
CREATE TABLE vip (user_id integer, tier text, region smallint, name text, tag uuid, blob bytea,
	code char(9));
INSERT INTO vip
	SELECT (g * 7919) % 1000003, CASE WHEN g % 2 = 0 THEN 'gold' ELSE 'silver' END, g % 10,
		'u' || (g * 7919) % 1000003, md5('t' || (g * 7919) % 1000003)::uuid,
		decode(md5('b' || (g * 7919) % 1000003), 'hex'), 'c' || (g * 7919) % 1000003
	FROM generate_series(3, 3000, 3) g;
INSERT INTO vip SELECT -g, 'gold', 0, 'x' || g, md5('x' || g)::uuid, '\\x00', 'x' || g
	FROM generate_series(1, 1000) g;
-- 60,000 keys, 20,000 of them remote: a filter worth fewer bits a key
CREATE TABLE many (user_id user_key);
INSERT INTO many SELECT (g * 7919) % 1000003 FROM generate_series(1::bigint, 20000) g;
INSERT INTO many SELECT -g FROM generate_series(1, 40000) g;
ANALYZE many;
-- half the remote keys, 500 of them in country 'x': the 500 drop far
-- more remote rows than reading the table again costs
CREATE TABLE big_users (user_id bigint, country text);
INSERT INTO big_users SELECT (g * 7919) % 1000003, CASE WHEN g % 200 = 0 THEN 'x' ELSE 'y' END
	FROM generate_series(1::bigint, 100000) g;
ANALYZE big_users;
-- every remote key, 99.5% of them in country 'y': a filter of them all, or
-- of the 'y' ones, drops (almost) nothing, whatever fdw_tuple_cost (17
-- raised its default twentyfold)
CREATE TABLE all_users (user_id bigint, country text);
INSERT INTO all_users SELECT (g * 7919) % 1000003, CASE WHEN g % 200 = 0 THEN 'x' ELSE 'y' END
	FROM generate_series(1::bigint, 200000) g;
ANALYZE all_users;
CREATE VIEW gold_vip AS SELECT user_id, tier, region FROM vip WHERE tier = 'gold';
CREATE TABLE customers (user_id integer PRIMARY KEY);
INSERT INTO customers SELECT g FROM generate_series(1, 1000) g;
ANALYZE events; ANALYZE events_plain; ANALYZE events_dom; ANALYZE orders; ANALYZE small;
ANALYZE vip; ANALYZE customers;
});

# Text keys get a filter only where the extension can learn the remote
# database's encoding, through postgres_fdw's connection.
my $text_keys = fdw_connection_reachable();
note('text keys ' . ($text_keys ? 'get filters' : "get none: this postgres_fdw hides its connection"));

my $on = "LOAD 'bloomfilter'; SET bloomfilter.join_filter = on;";
my $off = "LOAD 'bloomfilter'; SET bloomfilter.join_filter = off;";

sub plan_with { my ($set, $sql) = @_;
	return $node->safe_psql('postgres', "$set EXPLAIN (VERBOSE, COSTS OFF) $sql"); }
sub answer_with { my ($set, $sql) = @_;
	return $node->safe_psql('postgres', "$set $sql"); }

# A filter is there when an initplan computes bloom_agg and the Remote SQL
# probes a parameter with <~.
sub has_filter
{
	my ($plan) = @_;
	return $plan =~ /InitPlan/ && $plan =~ /bloom_agg\(/
		&& $plan =~ /Remote SQL: .*OPERATOR\([a-z_]+\.<~\) \$\d/;
}

# An error (which only the setting should cause) fails the case, and the
# cases after it still run.
sub check_query
{
	my @args = @_;
	eval { check_query_answers(@args); 1 } or fail("$args[0]: $@");
}

sub check_query_answers
{
	my ($name, $sql, $want_filter, $want_in_plan) = @_;
	my $plan = plan_with($on, $sql);
	if ($want_filter)
	{
		ok(has_filter($plan), "$name: a filter is added") or diag($plan);
		like($plan, $want_in_plan, "$name: built as expected") if $want_in_plan;
	}
	else
	{
		ok(!has_filter($plan) && $plan !~ /bloom_agg/, "$name: no filter") or diag($plan);
	}
	ok(!has_filter(plan_with($off, $sql)), "$name: none with the setting off");
	my $answer = answer_with($on, $sql);
	is($answer, answer_with($off, $sql), "$name: the answer of the setting off ($answer)");
}

# ---- 1. where a filter is added ----------------------------------------------
check_query('JOIN ON',
	'SELECT count(*), sum(e.id) FROM events e JOIN vip v ON v.user_id = e.user_id', 1,
	qr/bloom_agg\(v_1\.user_id, \d+\)/);
check_query('JOIN ON, the local side filtered',
	"SELECT count(*), sum(e.id) FROM events e JOIN vip v ON v.user_id = e.user_id WHERE v.tier = 'gold'",
	1, qr/Filter: \(v_1\.tier = 'gold'::text\)/);
check_query('USING, integer against bigint',
	'SELECT count(*), sum(id) FROM events JOIN vip USING (user_id)', 1, undef);
check_query('comma join',
	'SELECT count(*) FROM vip v, events e WHERE e.user_id = v.user_id AND e.region < 5', 1, undef);
check_query('IN',
	"SELECT count(*), sum(e.id) FROM events e WHERE e.user_id IN (SELECT user_id FROM vip WHERE tier = 'silver')",
	1, qr/bloom_agg\(vip_1\.user_id, \d+\).*tier = 'silver'/s);
check_query('EXISTS',
	"SELECT count(*) FROM events e WHERE EXISTS (SELECT 1 FROM vip v WHERE v.user_id = e.user_id AND v.tier = 'gold')",
	1, qr/Filter: \(v_1\.tier = 'gold'::text\)/);
check_query('two key columns',
	'SELECT count(*) FROM events e JOIN vip v ON v.user_id = e.user_id AND v.region = e.region', 1,
	qr/bloom_agg\(bloomfilter\.bloom_key\(v_1\.user_id, v_1\.region\), \d+\)|bloom_agg\(bloom_key\(v_1\.user_id, v_1\.region\), \d+\)/);
check_query('varchar against text',
	'SELECT count(*) FROM events e JOIN vip v ON v.name = e.name', $text_keys, qr/bloom_agg\(v_1\.name, \d+\)/);
check_query('a join in a subquery of FROM',
	"SELECT count(*) FROM (SELECT e.id FROM events e JOIN vip v USING (user_id) WHERE v.tier = 'gold') s",
	1, qr/Filter: \(v_1\.tier = 'gold'::text\)/);
check_query('a join in a WITH query',
	"WITH j AS MATERIALIZED (SELECT e.id FROM events e JOIN vip v USING (user_id)) SELECT count(*) FROM j",
	1, undef);
# A view or a subquery in FROM as the local side: the filter reads it as
# it stands, under the query's conditions on it.
check_query('a view as the local side',
	'SELECT count(*), sum(e.id) FROM events e JOIN gold_vip g ON g.user_id = e.user_id WHERE g.region < 5',
	1, qr/InitPlan.*Filter: \(\(vip_1\.region < 5\) AND \(vip_1\.tier = 'gold'::text\)\).*Foreign Scan/s);
check_query('a grouped subquery in FROM as the local side',
	'SELECT count(*), sum(e.id) FROM events e JOIN (SELECT user_id, count(*) AS n FROM vip GROUP BY user_id) s '
	  . 'ON s.user_id = e.user_id WHERE s.n = 1', 1, qr/InitPlan.*Group Key: vip_1\.user_id/s);
check_query('a subquery in FROM with a sum of integers',
	'SELECT count(*) FROM events e JOIN (SELECT user_id, sum(region) AS s FROM vip GROUP BY user_id) s '
	  . 'ON s.user_id = e.user_id WHERE s.s > 0', 1, undef);
check_query('a subquery in FROM over a view, by IN',
	'SELECT count(*) FROM events e WHERE e.user_id IN (SELECT user_id FROM (SELECT DISTINCT user_id FROM gold_vip) d)',
	1, undef);
check_query('uuid', 'SELECT count(*) FROM events e JOIN vip v ON v.tag = e.tag', 1, undef);
check_query('bytea', 'SELECT count(*) FROM events e JOIN vip v ON v.blob = e.blob', 1, undef);
# char(9) against char(12): bloom_key drops the trailing spaces "=" ignores
my $bpchar = 'SELECT count(*) FROM events e JOIN vip v ON v.code = e.code';
check_query('character(n) of two lengths', $bpchar, $text_keys,
	qr/bloom_agg\((?:bloomfilter\.)?bloom_key\(v_1\.code\), \d+\)/);
is(answer_with($on, $bpchar), '1000', 'character(n) of two lengths: every vip key with a remote row joins');
check_query('character(n), IN',
	'SELECT count(*) FROM events e WHERE e.code IN (SELECT code FROM vip)', $text_keys, undef);

# The bits per key are the cost model's: the most it tries (20) for a small
# local side, fewer for a large one, whose filter costs more to send.
like(plan_with($on, 'SELECT count(*) FROM events e JOIN vip v ON v.user_id = e.user_id'),
	qr/bloom_agg\(v_1\.user_id, 20\)/, 'bits per key: 20 for 2,000 local keys');
my ($many_bits) = plan_with($on, 'SELECT count(*) FROM events e JOIN many m ON m.user_id = e.user_id')
	=~ /bloom_agg\(\(m_1\.user_id\)::bigint, (\d+)\)/;
ok(defined $many_bits && $many_bits >= 4 && $many_bits < 20,
	'bits per key: fewer for 60,000 local keys (' . ($many_bits // 'no filter') . ')');
check_query('a large local side',
	'SELECT count(*) FROM events e JOIN many m ON m.user_id = e.user_id', 1, undef);

# The local side's own conditions count: a table holding half the remote
# keys gets a filter only where its conditions leave few of them, sized
# for those few (500 keys: 20 bits each).
check_query('a large local side filtered to few rows',
	"SELECT count(*), sum(e.id) FROM events e JOIN big_users u ON u.user_id = e.user_id WHERE u.country = 'x'",
	1, qr/bloom_agg\(u_1\.user_id, 20\).*Filter: \(u_1\.country = 'x'::text\)/s);
check_query('a large local side filtered to few rows, by IN',
	"SELECT count(*) FROM events e WHERE e.user_id IN (SELECT user_id FROM big_users WHERE country = 'x')",
	1, undef);

# ---- 2. where none is ---------------------------------------------------------
check_query('the preserved side of a LEFT JOIN',
	'SELECT count(*), count(v.user_id) FROM events e LEFT JOIN vip v ON v.user_id = e.user_id', 0);
check_query('the nullable side of a LEFT JOIN',
	'SELECT count(*), count(e.id) FROM vip v LEFT JOIN events e ON v.user_id = e.user_id', 0);
check_query('FULL JOIN',
	'SELECT count(*) FROM vip v FULL JOIN events e ON v.user_id = e.user_id', 0);
check_query('NOT IN',
	'SELECT count(*) FROM events e WHERE e.user_id NOT IN (SELECT user_id FROM vip)', 0);
check_query('NOT EXISTS',
	'SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM vip v WHERE v.user_id = e.user_id)', 0);
check_query('under OR',
	'SELECT count(*) FROM events e WHERE e.user_id IN (SELECT user_id FROM vip) OR e.region = 3', 0);
check_query('a server without the option',
	'SELECT count(*) FROM events_plain e JOIN vip v ON v.user_id = e.user_id', 0);
check_query('an IN subquery with a LIMIT',
	'SELECT count(*) FROM events e WHERE e.user_id IN (SELECT user_id FROM vip ORDER BY user_id LIMIT 500)', 0);
check_query('an IN subquery reading a foreign table',
	'SELECT count(*) FROM events e WHERE e.user_id IN (SELECT user_id FROM small)', 0);
check_query('EXISTS over a foreign table',
	'SELECT count(*) FROM events e WHERE EXISTS (SELECT 1 FROM small s WHERE s.user_id = e.user_id)', 0);
check_query('a subquery in FROM with a LIMIT',
	'SELECT count(*) FROM events e JOIN (SELECT user_id FROM vip ORDER BY user_id LIMIT 500) s ON s.user_id = e.user_id', 0);
check_query('a subquery in FROM with a volatile condition',
	'SELECT count(*) FROM events e JOIN (SELECT user_id FROM vip WHERE random() < 2) s ON s.user_id = e.user_id', 0);
# Run again, a subquery may see its rows in another order (a parallel
# plan, a synchronized scan): what depends on that order may differ.
check_query('an IN subquery numbering its rows',
	'SELECT count(*) FROM events e WHERE e.user_id IN '
	  . '(SELECT user_id FROM (SELECT user_id, row_number() OVER () AS n FROM vip) s WHERE n <= 500)', 0);
check_query('a subquery in FROM with DISTINCT ON',
	'SELECT count(*) FROM events e JOIN (SELECT DISTINCT ON (tier) user_id FROM vip) s ON s.user_id = e.user_id', 0);
check_query('a subquery in FROM with string_agg',
	'SELECT count(*) FROM events e JOIN (SELECT user_id, string_agg(name, \',\') AS names FROM vip GROUP BY user_id) s '
	  . "ON s.user_id = e.user_id WHERE s.names LIKE 'n%'", 0);
check_query('a subquery in FROM grouping numeric values',
	'SELECT count(*) FROM events e JOIN (SELECT user_id FROM vip GROUP BY user_id, region::numeric) s '
	  . 'ON s.user_id = e.user_id', 0);
check_query('an IN subquery over a UNION of numeric values',
	'SELECT count(*) FROM events e WHERE e.user_id IN (SELECT v.user_id FROM vip v WHERE v.user_id IN '
	  . '(SELECT user_id FROM (SELECT user_id, region::numeric AS r FROM vip UNION SELECT user_id, 1.0 FROM vip) u '
	  . 'WHERE r::text = \'1\'))', 0);
# INTERSECT ALL and EXCEPT ALL match rows as UNION does: each row they
# return is the first of its equal rows, 1 or 1.0.
check_query('an IN subquery over an INTERSECT ALL of numeric values',
	'SELECT count(*) FROM events e WHERE e.user_id IN (SELECT v.user_id FROM vip v WHERE v.user_id IN '
	  . '(SELECT user_id FROM (SELECT user_id, region::numeric AS r FROM vip INTERSECT ALL SELECT user_id, 1.0 FROM vip) u '
	  . 'WHERE r::text = \'1\'))', 0);
check_query('a subquery in FROM reading a foreign table',
	'SELECT count(*) FROM events e JOIN (SELECT v.user_id FROM vip v JOIN small USING (user_id)) s ON s.user_id = e.user_id', 0);
check_query('a subquery in FROM reading a WITH query of the query',
	'WITH w AS MATERIALIZED (SELECT user_id FROM vip) '
	  . 'SELECT count(*) FROM events e JOIN (SELECT v.user_id FROM vip v JOIN w USING (user_id)) s ON s.user_id = e.user_id', 0);
check_query('an IN subquery reading a WITH query of the query',
	"WITH w AS MATERIALIZED (SELECT user_id FROM vip WHERE tier = 'gold') "
	  . 'SELECT count(*) FROM events e WHERE e.user_id IN (SELECT v.user_id FROM vip v JOIN w USING (user_id))', 0);
# A subquery of a LATERAL subquery may read the query two levels up; the
# filter's own query would put it one level deeper, naming another level.
check_query('a subquery in FROM reading the query two levels up',
	'SELECT r.region, a.n FROM (VALUES (1::smallint), (2::smallint)) r (region), LATERAL '
	  . '(SELECT count(*) AS n FROM events e JOIN (SELECT v.user_id FROM vip v WHERE v.region = r.region) s '
	  . 'ON s.user_id = e.user_id) a ORDER BY 1', 0);
check_query('an IN subquery reading the query two levels up',
	'SELECT r.region, a.n FROM (VALUES (1::smallint), (2::smallint)) r (region), LATERAL '
	  . '(SELECT count(*) AS n FROM events e WHERE e.user_id IN '
	  . '(SELECT v.user_id FROM vip v WHERE v.region = r.region)) a ORDER BY 1', 0);
# The join may read the local side only where the foreign side's
# conditions lead it (e.user_id = 23757 gives v.user_id = 23757, checked
# first); the filter reads every row, where 10 / region fails on region 0.
# A condition that may fail on a row stays out of the filter, and a
# subquery with one gives none: the join, EXISTS and IN forms over a local
# table with such a condition.
sub check_condition_may_fail
{
	my ($what, $table, $condition) = @_;
	check_query("a condition $what",
		"SELECT count(*), sum(e.id) FROM events e JOIN $table v ON v.user_id = e.user_id "
		  . "WHERE e.user_id = 23757 AND $condition", 1, undef);
	check_query("EXISTS with a condition $what",
		'SELECT count(*), sum(e.id) FROM events e WHERE e.user_id = 23757 AND EXISTS '
		  . "(SELECT 1 FROM $table v WHERE v.user_id = e.user_id AND $condition)", 1, undef);
	check_query("an IN subquery with a condition $what",
		'SELECT count(*), sum(e.id) FROM events e WHERE e.user_id = 23757 AND e.user_id IN '
		  . "(SELECT v.user_id FROM $table v WHERE $condition)", 0);
}
check_condition_may_fail('that may fail on a row', 'vip', '10 / v.region > 0');
check_query('a subquery in FROM with a condition that may fail on a row',
	'SELECT count(*), sum(e.id) FROM events e JOIN (SELECT user_id FROM vip WHERE 10 / region > 0) s '
	  . 'ON s.user_id = e.user_id WHERE e.user_id = 23757', 0);
# 18's virtual generated columns are computed where they are read: a
# column that divides fails as the division does, though it reads as a
# plain column.
if (pg_major() >= 18)
{
	$node->safe_psql('postgres', q{
CREATE TABLE vip_gen (user_id integer, region smallint,
	inverse integer GENERATED ALWAYS AS (10 / region) VIRTUAL,
	user_key integer GENERATED ALWAYS AS (user_id + 0 * (10 / region)) VIRTUAL);
INSERT INTO vip_gen (user_id, region) SELECT user_id, region FROM vip;
ANALYZE vip_gen;});
	check_condition_may_fail('on a virtual generated column that may fail on a row', 'vip_gen',
		'v.inverse > 0');
	check_query('a virtual generated column that may fail on a row as the key',
		'SELECT count(*), sum(e.id) FROM events e JOIN vip_gen v ON v.user_key = e.user_id '
		  . 'WHERE v.region > 0', 0);
}
check_query('a foreign column of a domain (postgres_fdw sends no condition on it)',
	'SELECT count(*) FROM events_dom e JOIN vip v ON v.user_id = e.user_id', 0);
check_query('a foreign table never analyzed',
	'SELECT count(*) FROM events_new e JOIN vip v ON v.user_id = e.user_id', 0);
check_query('every remote row matches (a foreign key)',
	'SELECT count(*) FROM orders o JOIN customers c ON c.user_id = o.user_id', 0);
check_query('a large local side holding every remote key',
	'SELECT count(*), sum(e.id) FROM events e JOIN all_users u ON u.user_id = e.user_id', 0);
check_query('a large local side whose condition leaves most keys',
	"SELECT count(*) FROM events e JOIN all_users u ON u.user_id = e.user_id WHERE u.country = 'y'", 0);
check_query('a small remote side',
	'SELECT count(*) FROM small s JOIN vip v ON v.user_id = s.user_id', 0);
check_query('a join on another operator',
	'SELECT count(*) FROM events e JOIN vip v ON v.user_id < e.user_id AND e.id < 100', 0);

SKIP:
{
	my $icu = $node->psql('postgres',
		"CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)");
	skip 'the server has no ICU', 3 if $icu != 0;
	check_query('text under a nondeterministic collation',
		'SELECT count(*) FROM events e JOIN vip v ON v.name = e.name COLLATE ci', 0);
}

# ---- row-level security: the filter reads what the role may see --------------
$node->safe_psql('postgres', q{
CREATE ROLE alice;
GRANT SELECT ON vip, events TO alice;
GRANT USAGE ON FOREIGN SERVER loop TO alice;
CREATE USER MAPPING FOR alice SERVER loop OPTIONS (user 'postgres', password_required 'false');
ALTER TABLE vip ENABLE ROW LEVEL SECURITY;
CREATE POLICY gold_only ON vip FOR SELECT TO alice USING (tier = 'gold');});
my $rls = 'SELECT count(*), sum(e.id) FROM events e JOIN vip v ON v.user_id = e.user_id';
my $rls_plan = plan_with("$on SET ROLE alice;", $rls);
ok(has_filter($rls_plan) && $rls_plan =~ /InitPlan.*tier = 'gold'.*Foreign Scan/s,
	"row-level security: the filter's input is under the role's policy") or diag($rls_plan);
my $rls_answer = answer_with("$on SET ROLE alice;", $rls);
is($rls_answer, answer_with("$off SET ROLE alice;", $rls),
	"row-level security: the answer of the setting off ($rls_answer)");
isnt($rls_answer, answer_with($on, $rls), 'row-level security: the policy changes the answer');
$node->safe_psql('postgres', 'ALTER TABLE vip DISABLE ROW LEVEL SECURITY');

# A policy reading another table (a subquery) is read with the filter's
# input; a volatile one would keep other rows there than in the join, and
# keeps the filter away.
$node->safe_psql('postgres', q{
CREATE TABLE vip_rls AS SELECT * FROM vip;
CREATE TABLE allowed_regions (region smallint);
INSERT INTO allowed_regions VALUES (1), (2);
ANALYZE vip_rls; ANALYZE allowed_regions;
CREATE SEQUENCE rls_calls;
GRANT SELECT ON vip_rls, allowed_regions TO alice;
GRANT USAGE ON SEQUENCE rls_calls TO alice;
ALTER TABLE vip_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY by_region ON vip_rls FOR SELECT TO alice
	USING (region IN (SELECT region FROM allowed_regions));});
my $alice_on = "$on SET ROLE alice;";
my $alice_off = "$off SET ROLE alice;";
foreach my $case (['JOIN', 'SELECT count(*), sum(e.id) FROM events e JOIN vip_rls v ON v.user_id = e.user_id'],
	['EXISTS', 'SELECT count(*) FROM events e WHERE EXISTS (SELECT 1 FROM vip_rls v WHERE v.user_id = e.user_id)'])
{
	my ($kind, $sql) = @$case;
	my $answer = eval {
		my $plan = plan_with($alice_on, $sql);
		ok(has_filter($plan) && $plan =~ /InitPlan.*SubPlan.*allowed_regions.*Foreign Scan/s,
			"a policy with a subquery, $kind: the filter's input is under it") or diag($plan);
		answer_with($alice_on, $sql);
	};
	is($answer, answer_with($alice_off, $sql),
		"a policy with a subquery, $kind: the answer of the setting off") or diag($@);
}
$node->safe_psql('postgres', q{
ALTER POLICY by_region ON vip_rls USING (nextval('rls_calls') % 3 = 0);});
my $restart = q{DO $$BEGIN PERFORM setval('rls_calls', 1); END$$;};
my $volatile_policy = 'SELECT count(*), sum(e.id) FROM events e JOIN vip_rls v ON v.user_id = e.user_id';
ok(!has_filter(plan_with($alice_on, $volatile_policy)), 'a volatile policy: no filter');
my $volatile_answer = answer_with("$restart $alice_on", $volatile_policy);
is($volatile_answer, answer_with("$restart $alice_off", $volatile_policy),
	"a volatile policy: the answer of the setting off ($volatile_answer)");

# ---- 3. a volatile condition stays out of the filter ------------------------
my $plan = plan_with($on,
	"SELECT count(*) FROM events e JOIN vip v ON v.user_id = e.user_id WHERE v.tier = 'gold' AND random() < 2");
ok(has_filter($plan), 'volatile condition: a filter is added');
my ($initplan) = $plan =~ /(InitPlan.*?)\n\s*->\s+(?:Hash|Nested|Merge)/s;
ok(defined $initplan && $initplan =~ /tier = 'gold'/ && $initplan !~ /random/,
	'volatile condition: the filter reads the stable one only') or diag($plan);

# ---- 5. a timeout while the filter is built ------------------------------------
$node->safe_psql('postgres', q{
CREATE FUNCTION slow_ok(smallint) RETURNS boolean LANGUAGE plpgsql STABLE LEAKPROOF
	AS $$ BEGIN PERFORM pg_sleep(0.005); RETURN true; END $$;});
my $slow = 'SELECT count(*) FROM events e JOIN vip v ON v.user_id = e.user_id WHERE slow_ok(v.region)';
like(plan_with($on, $slow), qr/InitPlan.*slow_ok\(v_1\.region\)/s,
	'timeout: the filter reads the slow condition');
my ($rc, $out, $err) = $node->psql('postgres', "$on SET statement_timeout = '300ms'; $slow");
like($err, qr/canceling statement due to statement timeout/, 'timeout: the query is cancelled');
is($node->safe_psql('postgres',
		"$on SELECT count(*) FROM events e JOIN vip v ON v.user_id = e.user_id; SELECT 1"),
	"1000\n1", 'timeout: the next queries of a new session answer');
my ($rc2, $out2, $err2) = $node->psql('postgres',
	"$on SET statement_timeout = '300ms'; $slow; SET statement_timeout = 0; "
	. "SELECT count(*) FROM events e JOIN vip v ON v.user_id = e.user_id", on_error_stop => 0);
like($err2, qr/statement timeout/, 'timeout: cancelled again');
like($out2, qr/^1000$/m, 'timeout: the same session then answers, through the same remote connection');

# ---- 6. text keys and the remote database's encoding ---------------------------
# A text key is its bytes in the database's encoding.  The join compares
# rows postgres_fdw converted to the local encoding; a filter probed on a
# remote database of another encoding would see other bytes for a
# non-ASCII key, and drop rows that join.  chr(233) is é in either.
$node->safe_psql('postgres', q{
CREATE DATABASE enc_local ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE enc_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE enc_utf8 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;});
foreach my $db ('enc_latin1', 'enc_utf8')
{
	$node->safe_psql($db, q{
CREATE EXTENSION bloomfilter;
CREATE TABLE people (id integer, name text);
INSERT INTO people SELECT g, CASE WHEN g <= 500 THEN chr(233) || g ELSE 'x' || g END
	FROM generate_series(1, 100000) g;
ANALYZE people;});
}
$node->safe_psql('enc_local', qq{
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
@{[ fdw_server_sql('latin1', $node, 'enc_latin1', "extensions 'bloomfilter'") ]}
@{[ fdw_server_sql('utf8', $node, 'enc_utf8', "extensions 'bloomfilter'") ]}
CREATE FOREIGN TABLE people_latin1 (id integer, name text) SERVER latin1 OPTIONS (table_name 'people');
CREATE FOREIGN TABLE people_utf8 (id integer, name text) SERVER utf8 OPTIONS (table_name 'people');
CREATE TABLE friends (id integer, name text);
INSERT INTO friends SELECT g, chr(233) || g FROM generate_series(1, 500) g;
ANALYZE friends; ANALYZE people_latin1; ANALYZE people_utf8;});
foreach my $case (['utf8', 1], ['latin1', 0])
{
	my ($server, $want) = @$case;
	my $sql = "SELECT count(*) FROM people_$server p JOIN friends f ON f.name = p.name";
	my $plan = $node->safe_psql('enc_local', "$on EXPLAIN (VERBOSE, COSTS OFF) $sql");
	if ($want && $text_keys)
	{
		ok(has_filter($plan), "text keys, a remote database of the local encoding: a filter") or diag($plan);
	}
	elsif ($want)
	{
		ok(!has_filter($plan), "text keys, a remote database of the local encoding: none, "
			  . 'as the encoding cannot be learnt') or diag($plan);
	}
	else
	{
		ok(!has_filter($plan), "text keys, a remote database of another encoding: no filter") or diag($plan);
	}
	is($node->safe_psql('enc_local', "$on $sql"), '500',
		"text keys, remote server $server: every local key joins its remote row");
}
ok(has_filter($node->safe_psql('enc_local',
			"$on EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM people_latin1 p JOIN friends f ON f.id = p.id")),
	'integer keys, a remote database of another encoding: a filter');

done_testing();
