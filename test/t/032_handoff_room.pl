# test/t/032_handoff_room.pl -- parallel workers whose shared memory has no
# room for their hashes send them through the tuple queue instead: the
# query neither fails nor changes a byte.
#
# Parallel workers hand their hashes to the leader in /dev/shm
# (bloomfilter.parallel_handoff).  A container's /dev/shm is often 64 MB,
# and a worker that put its hashes there regardless would fail the query
# with PostgreSQL's "could not resize shared memory segment", an error
# nothing can catch.  This runs its cluster in a user and mount namespace
# of its own (unshare, util-linux 2.38 or later; no root needed) whose
# /dev/shm is a 16 MB tmpfs, and aggregates 5,000,000 keys with 2 workers
# and the leader only gathering: each worker holds about 10 MB of hashes
# (20 MB in all, more than fits: without the room check the query fails),
# and needs twice its own free for each of the query's 3 processes.
# Checks:
#   - bloom_agg's filter and bloom_agg_partial's state are the serial ones,
#     byte for byte;
#   - each worker said at DEBUG1 that it queued its state for want of
#     shared memory, and the leader took nothing from shared memory;
#   - with 200,000 keys (about 0.4 MB a worker) the workers hand off in the
#     same 16 MB, some of their hashes where they made them as they went,
#     and the bytes are the serial ones;
#   - with 400,000 keys and 1, 2 and 3 million, where some of a worker's
#     chunks fit as it goes and the rest may not, the query works and its
#     bytes are the serial ones, whichever way each state went.
#
# Skipped where no such namespace is to be had (an older unshare, user
# namespaces turned off, a chroot).
use strict;
use warnings;

my $shm_mb;

# Not yet in the namespace: run this file again inside one, as the same
# user (mapped to root in an outer user namespace, which may mount, and
# back to itself in an inner one: initdb and the server refuse root), with
# a /dev/shm of $shm_mb MB that this cluster alone sees and that goes with
# the namespace.  Before PostgreSQL::Test::Utils starts (its INIT sends
# stdout to its log file, where prove would not read the TAP).
BEGIN
{
	$shm_mb = 16;
	if (!$ENV{BF_HANDOFF_ROOM_NAMESPACE} && !$^C)
	{
		my @inner = ('unshare', '-U', "--map-user=$>", '--map-group=' . (split ' ', $))[0], '--');
		my @outer = ('unshare', '-Urm', 'sh', '-ec',
			"mount -t tmpfs -o size=${shm_mb}m,mode=1777 bloomfilter-shm /dev/shm; exec \"\$@\"", 'sh');
		if (system(@outer, @inner, 'true') != 0)
		{
			print "1..0 # SKIP no user and mount namespace to be had for a /dev/shm of its own (unshare -Urm, then unshare -U --map-user)\n";
			exit 0;
		}
		$ENV{BF_HANDOFF_ROOM_NAMESPACE} = 1;
		$ENV{PERL5LIB} = join ':', grep { !ref } @INC;
		exec(@outer, @inner, $^X, $0);
		die "cannot run unshare: $!";
	}
}

use BloomFilter::Test;
use Test::More;

my $df = `df -k /dev/shm`;
ok($df =~ /^\S+\s+(\d+)\s/m && $1 == $shm_mb * 1024,
	"/dev/shm is a tmpfs of $shm_mb MB of this test's own") or diag($df);

my $node = bloom_node('handoff_room');
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

my $parallel = "SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off; SET client_min_messages = debug1;\n";
my $queries = "SELECT md5(bloom_agg(k, 10)::bytea) FROM keys;
SELECT md5(bloom_agg_state_send(bloom_agg_partial(k, 10))) FROM keys;";

# check_keys(N, EXPECT): the filter and state of N keys, serially and with
# 2 workers; EXPECT is queued (no room), handed (room) or any.
sub check_keys
{
	my ($n, $expect) = @_;
	$node->safe_psql('postgres', "SET client_min_messages = warning;
DROP TABLE IF EXISTS keys;
CREATE TABLE keys AS SELECT md5(i::text) AS k FROM generate_series(1, $n) i;
ANALYZE keys;");
	my $serial = $node->safe_psql('postgres', "SET max_parallel_workers_per_gather = 0;\n$queries");
	my ($got, $log) = ('', '');
	if ($node->psql('postgres', $parallel . $queries, stdout => \$got, stderr => \$log) != 0)
	{
		fail("$n keys, 2 workers: the query failed");
		diag(join '', grep { /ERROR/ } split /^/, $log);
		return;
	}
	is($got, $serial, "$n keys, 2 workers: the filter and the state are the serial ones");
	return if $expect eq 'any';

	my $queued = () = $log =~ /through the tuple queue: too little shared memory/g;
	my $took = () = $log =~ /took \d+ hashes from parallel worker/g;
	my $made = 0;
	$made += $1 while $log =~ /(\d+) where the worker made them/g;
	if ($expect eq 'queued')
	{
		ok($queued >= 2 && $took == 0,
			"$n keys: each worker queued its state for want of shared memory ($queued states, 2 queries)")
		  or diag("$queued states queued, $took taken from shared memory");
	}
	else
	{
		ok($took >= 2 && $queued == 0 && $made > 0,
			"$n keys: the workers handed off their states in the same /dev/shm ($took states, 2 queries; $made hashes where the workers made them)")
		  or diag("$queued states queued, $took taken from shared memory, $made hashes where the workers made them");
	}
}

check_keys(5_000_000, 'queued');
check_keys(200_000, 'handed');
check_keys($_, 'any') for 400_000, 1_000_000, 2_000_000, 3_000_000;

$node->stop;
done_testing();
