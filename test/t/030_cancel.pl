# test/t/030_cancel.pl -- a cancel, a statement_timeout or a terminated
# backend stops bloom_agg's final function, and the flatten on threads of a
# state handed on, promptly, even over tens of millions of keys.
#
# The final function is run alone on a stored partial state, so that the
# cancel lands inside it and not in the scan that fed it; the cancel comes
# once the query has read the state (as long after it began as reading the
# state alone takes) and an eighth of the rest after.  Every limit is a
# share of a reference measured in the same run, just before, on the same
# data, never a fixed number of milliseconds: a loaded machine slows the
# reference and the cancelled run alike.  The uncancelled run is the
# reference: the cancel must end the query within a quarter of it, where a
# cancel ignored until the work is done would take most of it.  The premise
# is checked too: the uncancelled run must take at least 20 times a trivial
# query's round trip measured alongside, or the test could not tell a
# prompt cancel from none (BLOOM_CANCEL_KEYS raises the keys if not).
# Each timing check has up to 3 attempts, each against a new reference
# measured just before it: a load that changes between the reference and
# the cancelled run may make one cancel look late, or the run end before
# it, but a cancel ignored until the work is done is late every time.
#
# The flatten (src/core/bloom_flatten.c): the stored state, absorbed twice
# into a new one and sent, is sorted and coded on 4 threads while the
# backend waits; a statement_timeout stops it promptly and the session
# goes on.  Likewise in a parallel worker sorting on its share of the
# threads, which the leader's error then terminates.  A backend terminated
# (a FATAL error, which does not unwind) while its threads run must still
# join them before it exits: the server must not restart.
#
# Also the threads' default: bloomfilter.max_final_threads is the CPUs the
# backend may run on when the library loads (at most 64), for its own
# affinity mask and for a backend pinned to one CPU before it loads it.
use strict;
use warnings;

use BloomFilter::Test;
use Test::More;
use Time::HiRes ();

my $keys = $ENV{BLOOM_CANCEL_KEYS} // 80_000_000;
my $bits_per_key = 43;    # k = 29: many bit writes per key, a long final
my $premise_times = 20;   # the uncancelled run, in trivial round trips
my $attempts = 3;         # each timing check's tries, each with its own reference

my $node = bloom_node('cancel');
my $log_start = -s $node->logfile;
my $db = 'postgres';

$node->safe_psql($db, <<SQL);
CREATE EXTENSION bloomfilter;
CREATE AGGREGATE bloom_partial(text, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);
CREATE AGGREGATE bloom_states(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state);
CREATE TABLE st (s bloom_agg_state);
ALTER TABLE st ALTER COLUMN s SET STORAGE external;
INSERT INTO st SELECT bloom_partial(i::text, $bits_per_key) FROM generate_series(1, $keys) i;
SQL
note "stored a partial state of $keys keys at $bits_per_key bits per key";

# reference_ms(SQL, EXPECTED): SQL run uncancelled; the milliseconds it
# took, or undef (and a diag) where it did not print EXPECTED.
sub reference_ms
{
	my ($sql, $expected) = @_;
	my ($ms, $rc, $out, $err) = timed_psql($node, $db, $sql);
	return $ms if $rc == 0 && $out eq $expected;
	diag("uncancelled: exit $rc, output '$out' (expected '$expected'): $err");
	return undef;
}

# premise(WHAT, SQL, EXPECTED): the reference of SQL, which must take at
# least $premise_times trivial round trips (measured right after it), or
# the checks that compare with it could not tell a prompt stop from none.
sub premise
{
	my ($what, $sql, $expected) = @_;
	my $ms = reference_ms($sql, $expected);
	my $trivial_ms = round_trip_ms($node);
	ok(defined $ms && $ms >= $premise_times * $trivial_ms,
		"uncancelled $what takes " . ($ms // 'no') . " ms, at least $premise_times times a trivial query's round trip ($trivial_ms ms): long enough for this test to mean anything"
	) or diag('if too short, raise BLOOM_CANCEL_KEYS');
	return $ms;
}

# promptly(WHAT, SQL, EXPECTED, STOP, [REFERENCE_MS]): STOP->(REF) stops a
# run of SQL and judges it against REF, the milliseconds SQL took
# uncancelled just before (REFERENCE_MS for the first attempt where
# given): it returns 'prompt', 'late', 'early' (the run ended before it
# was stopped) or 'wrong' (some other end: a crash, another error), and
# what happened.  One check, passed by the first prompt stop of up to
# $attempts attempts, each with a new reference: a machine whose load
# changes between the reference and the stopped run may make one stop
# look late, or the run end first, where a stop ignored until the work is
# done is late every time.
sub promptly
{
	my ($what, $sql, $expected, $stop, $reference_ms) = @_;
	my @before;
	for my $attempt (1 .. $attempts)
	{
		$reference_ms = reference_ms($sql, $expected) if $attempt > 1 || !defined $reference_ms;
		if (!defined $reference_ms)
		{
			fail("$what: the uncancelled run failed");
			return;
		}
		my ($verdict, $text) = $stop->($reference_ms);
		if ($verdict eq 'prompt')
		{
			pass("$what: $text" . (@before ? " (attempt $attempt)" : ''));
			diag("$what, attempt $_: $before[$_ - 1]") for 1 .. @before;
			return;
		}
		if ($verdict eq 'wrong')
		{
			fail("$what: $text");
			return;
		}
		push @before, $text;
	}
	fail("$what: not stopped promptly in any of $attempts attempts");
	diag("attempt $_: $before[$_ - 1]") for 1 .. @before;
}

# by_timeout(SQL, FRACTION, [AFTER, [READ_SQL]]): a STOP for promptly: SQL
# under a statement_timeout of FRACTION of the reference, which must end
# it with a timeout error within a quarter of the reference after the
# timeout; AFTER runs next in the same session, and $after_out is its
# stdout.  Where READ_SQL (SQL's reading of its input alone) is given, the
# timeout is the time READ_SQL takes, measured just before, and FRACTION
# of the rest of the reference: the timeout then lands in what follows
# the reading (PostgreSQL reads a stored value whole, without looking for
# interrupts).
my $after_out;
sub by_timeout
{
	my ($sql, $fraction, $after, $read_sql) = @_;
	return sub {
		my ($reference_ms) = @_;
		my $read_ms = defined $read_sql ? (timed_psql($node, $db, $read_sql))[0] : 0;
		$read_ms = $reference_ms if $read_ms > $reference_ms;
		my $timeout_ms = $read_ms + int(($reference_ms - $read_ms) * $fraction);
		my $limit_ms = $timeout_ms + int($reference_ms / 4);
		my $read_note = defined $read_sql ? ", reading its input $read_ms ms" : '';
		my ($ms, $rc, $out, $err) = timed_psql($node, $db,
			"SET statement_timeout = $timeout_ms;\n$sql\n" . ($after // ''),
			on_error_stop => 0);
		$after_out = $out;
		return ($ms <= $limit_ms ? 'prompt' : 'late',
			"a statement_timeout of $timeout_ms ms stopped it after $ms ms (at most the timeout and a quarter of the uncancelled $reference_ms ms$read_note)")
		  if $err =~ /canceling statement due to statement timeout/;
		return ('early', "it ended after $ms ms, before its statement_timeout of $timeout_ms ms (uncancelled $reference_ms ms)")
		  if $err !~ /ERROR|FATAL/;
		return ('wrong', "a statement_timeout of $timeout_ms ms: expected a timeout error, got: $err");
	};
}

# by_signal(SQL, FUNCTION, MESSAGE, READ_SQL): a STOP for promptly:
# FUNCTION (pg_cancel_backend or pg_terminate_backend) called from another
# session once SQL has read its input (as long after it began as READ_SQL
# takes, measured just before) and an eighth of the rest of the reference
# after, which must end it with MESSAGE within a quarter of the reference,
# the server not restarting.
sub by_signal
{
	my ($sql, $function, $message, $read_sql) = @_;
	return sub {
		my ($reference_ms) = @_;
		my $read_ms = (timed_psql($node, $db, $read_sql))[0];
		$read_ms = $reference_ms if $read_ms > $reference_ms;
		my $delay_ms = $read_ms + int(($reference_ms - $read_ms) / 8);
		my $before = checkpointer_pid($node);
		my ($signalled, $ms, $err) = signal_during($sql, $function, $delay_ms);
		my $after = checkpointer_pid($node);
		return ('wrong', "the server restarted (checkpointer $before, then $after)")
		  if $before eq '' || $before ne $after;
		return ($ms <= int($reference_ms / 4) ? 'prompt' : 'late',
			"$function stopped it $ms ms after the call (at most a quarter of the uncancelled $reference_ms ms), the server still up")
		  if $signalled eq 't' && $err =~ /$message/;
		return ('early', "it ended before $function reached it ($function returned '$signalled', uncancelled $reference_ms ms)")
		  if $err !~ /ERROR|FATAL/;
		return ('wrong', "$function returned '$signalled'; expected '$message', got: $err");
	};
}

# signal_during(SQL, FUNCTION, DELAY_MS): SQL in a session of its own;
# DELAY_MS after it began, FUNCTION on it from another session, and wait
# for it to end.  Returns what FUNCTION returned, the milliseconds from the
# call to the end, and the session's stderr.
sub signal_during
{
	my ($sql, $function, $delay_ms) = @_;
	my ($in, $out, $err) = ("SELECT pg_backend_pid();\n", '', '');
	my $h = background_session($node, $db, \$in, \$out, \$err);
	$h->pump until $out =~ /^(\d+)$/m;
	my $pid = $1;
	$in .= "$sql\n\\q\n";
	$h->pump_nb while length $in;
	$node->poll_query_until($db,
		"SELECT state = 'active' AND query LIKE 'SELECT %' FROM pg_stat_activity WHERE pid = $pid");
	Time::HiRes::sleep($delay_ms / 1000);
	my $t0 = Time::HiRes::time();
	my $signalled = $node->safe_psql($db, "SELECT $function($pid)");
	eval { $h->finish; 1 } or $err .= "\n(the session did not end: $@)";
	return ($signalled, int((Time::HiRes::time() - $t0) * 1000), $err);
}

# With the bits set on the backend's own thread, and on 4 threads while the
# backend waits and checks for interrupts (bloomfilter.max_final_threads).
for my $threads (1, 4)
{
	my $final_sql =
	  "SET bloomfilter.max_final_threads = $threads;\nSELECT bloom_agg_finalfn(s) IS NOT NULL FROM st;";
	my $what = "final on $threads thread" . ($threads > 1 ? 's' : '');
	my $read_sql = 'SELECT length(bloom_agg_state_send(s)) > 0 FROM st';

	my $full_ms = premise($what, $final_sql, 't');
	promptly("statement_timeout in the $what", $final_sql, 't', by_timeout($final_sql, 1 / 8, '', $read_sql), $full_ms);
	promptly("pg_cancel_backend in the $what", $final_sql, 't',
		by_signal($final_sql, 'pg_cancel_backend', 'canceling statement due to user request', $read_sql));
	# pg_terminate_backend: the backend exits by a FATAL error, which does
	# not unwind; the threads must still be stopped and joined first, or
	# they outlive what they read and crash the server.
	promptly("pg_terminate_backend in the $what", $final_sql, 't',
		by_signal($final_sql, 'pg_terminate_backend', 'terminating connection due to administrator command',
			$read_sql))
	  if $threads > 1;
}

# The flatten: the stored state twice over, in one expanded state (its two
# coded runs kept coded), sent, which sorts and codes every hash.
my $twice = "(SELECT s FROM st UNION ALL SELECT s FROM st) twice";
my $flatten_sql = "SET bloomfilter.max_final_threads = 4;\n"
  . "SELECT length(bloom_agg_state_send(bloom_states(s))) > 0 FROM $twice;";
my $full_ms = premise('flatten on 4 threads', $flatten_sql, 't');
promptly('statement_timeout in the flatten on 4 threads', $flatten_sql, 't',
	by_timeout($flatten_sql, 1 / 3, "RESET statement_timeout;\nSELECT 'still here';",
		"SELECT sum(length(bloom_agg_state_send(s))) > 0 FROM $twice"), $full_ms);
like($after_out, qr/still here/, 'after the timeout in the flatten, the session goes on');
# twice the keys, the same distinct hashes: the bytes after the key count
# (format.md: version, bits a key, key count, then the distinct count and code)
is($node->safe_psql($db,
		"SELECT substring(bloom_agg_state_send(bloom_states(s)) FROM 17) = (SELECT substring(bloom_agg_state_send(s) FROM 17) FROM st) FROM $twice"),
	't', "after the cancel, the stored state twice over sorts into the stored state's distinct hashes and code");

# The same flatten in a parallel worker, on its share of the threads: a
# plan for 2 workers run by 1, the leader not scanning, so that the lone
# worker takes both rows of the stored state, absorbs them and sorts and
# codes every hash on threads when it sends its state.  A statement_timeout
# within the worker's flatten (its first part: the leader then sorts the
# state again) stops the query promptly, and no server process crashes:
# the leader's error terminates the worker, a FATAL error there, which
# must stop and join the worker's threads before it exits.
my $worker_sql = "SET max_parallel_workers_per_gather = 2; SET max_parallel_workers = 1;
SET parallel_leader_participation = off; SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET bloomfilter.max_final_threads = 4;\n";
my $worker_query = "SELECT length(bloom_agg_state_send(bloom_states_parallel(s))) > 0 FROM st2;";
$node->safe_psql($db, <<SQL);
CREATE AGGREGATE bloom_states_parallel(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state,
  COMBINEFUNC = bloom_agg_combinefn, PARALLEL = SAFE);
CREATE TABLE st2 WITH (parallel_workers = 2) AS SELECT s FROM $twice;
SQL
my $plan = $node->safe_psql($db,
	$worker_sql . "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $worker_query");
ok($plan =~ /Partial Aggregate/ && $plan =~ /Workers Launched: 1$/m,
	'the plan has a partial aggregate in one launched worker')
  or diag($plan);
$worker_sql .= $worker_query;
$full_ms = premise("query with a worker's flatten on threads", $worker_sql, 't');
my $before = checkpointer_pid($node);
promptly("statement_timeout in a parallel worker's flatten", $worker_sql, 't',
	by_timeout($worker_sql, 1 / 4, '',
		'SELECT sum(length(bloom_agg_state_send(s))) > 0 FROM st2'), $full_ms);
my $after = checkpointer_pid($node);
ok($before ne '' && $before eq $after,
	"after the timeout in a parallel worker's flatten the server is still up (checkpointer $before, then $after)");

# default_threads(PIN): the CPUs the backend of one session may run on (at
# most 64; after pinning it to CPU 0 if PIN) and then, the library loaded,
# the setting's default.
sub default_threads
{
	my ($pin) = @_;
	my $taskset = $pin ? q{\! taskset -pc 0 "$BLOOM_BACKEND" >/dev/null} : '';
	my $shown = $node->safe_psql($db, <<SQL);
SELECT pg_backend_pid() AS pid \\gset
\\setenv BLOOM_BACKEND :pid
$taskset
\\! awk -F'[:,]' '\$1 == "Cpus_allowed_list" { for (i = 2; i <= NF; i++) c += split(\$i, r, "-") == 2 ? r[2] - r[1] + 1 : 1; print (c > 64 ? 64 : c) }' "/proc/\$BLOOM_BACKEND/status"
LOAD 'bloomfilter';
SHOW bloomfilter.max_final_threads;
SQL
	return split /\n/, $shown;
}
my ($allowed, $shown) = default_threads(0);
ok(defined $shown && $shown eq $allowed,
	"bloomfilter.max_final_threads defaults to the $shown CPUs the backend may run on");
SKIP:
{
	skip 'no taskset to pin a backend with', 1 if system('taskset -p $$ >/dev/null 2>&1') != 0;
	($allowed, $shown) = default_threads(1);
	ok($allowed eq '1' && $shown eq '1', "a backend pinned to one CPU defaults to 1 final thread")
	  or diag("pinned to $allowed CPU(s), $shown final threads");
}

is(crash_lines($node, $log_start), '', 'the server log shows no crashed server process');

$node->stop;
done_testing();
