#!/usr/bin/env bash
#
# test/handoff_room_test.sh -- parallel workers whose shared memory has no
# room for their hashes send them through the tuple queue instead: the
# query neither fails nor changes a byte.
#
# Parallel workers hand their hashes to the leader in /dev/shm
# (bloomfilter.parallel_handoff).  A container's /dev/shm is often 64 MB,
# and a worker that put its hashes there regardless would fail the query
# with PostgreSQL's "could not resize shared memory segment", an error
# nothing can catch.  This runs a throw-away cluster in a mount namespace
# of its own (unshare -m, so root only) whose /dev/shm is a 16 MB tmpfs,
# and aggregates 5,000,000 keys with 2 workers and the leader only
# gathering: each worker holds about 10 MB of hashes (20 MB in all, more
# than fits: without the room check the query fails), and needs twice its
# own free for each of the query's 3 processes.  Checks:
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
# Exits 77, having printed "handoff-room: skipped (why)", where it cannot
# run (not root, no unshare).  Otherwise prints
#   handoff-room: N passed, N failed
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

case ${1-} in
-h | --help)
	sed -n '3,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit 0
	;;
--in-namespace) ;;
'')
	if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
		echo "handoff-room: skipped (needs root and unshare for a /dev/shm of its own)"
		exit 77
	fi
	# a mount namespace of its own: the small /dev/shm is seen by this
	# script's cluster only, and goes with the namespace
	exec unshare -m "${BASH_SOURCE[0]}" --in-namespace
	;;
*)
	echo "handoff_room_test.sh: unknown argument $1" >&2
	exit 2
	;;
esac

# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

mount --make-rprivate / 2>/dev/null || true
mount -t tmpfs -o size=16m,mode=1777 bloomfilter-shm /dev/shm
bf_log "/dev/shm: $(df -h /dev/shm | awk 'NR == 2 {print $2 " tmpfs, " $4 " free"}')"
start_test_cluster handoff-room
q() { "$(bf_pg_bindir)/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "CREATE EXTENSION bloomfilter"

parallel="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off; SET client_min_messages = debug1;"
queries="SELECT md5(bloom_agg(k, 10)::bytea) FROM keys;
SELECT md5(bloom_agg_state_send(bloom_agg_partial(k, 10))) FROM keys;"

# check_keys N EXPECT: the filter and state of N keys, serially and with 2
# workers; EXPECT is queued (no room), handed (room) or any.
check_keys() {
	local n=$1 expect=$2 serial got log queued took made
	q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS keys" -c "CREATE TABLE keys AS SELECT md5(i::text) AS k FROM generate_series(1, $n) i" \
		-c "ANALYZE keys"
	serial=$(q -c "SET max_parallel_workers_per_gather = 0;" -c "$queries" | tr '\n' ' ')
	log=$(q -c "$parallel" -c "$queries" 2>&1 >"$WORK/got") || {
		fail "$n keys, 2 workers: the query failed: $(grep -m 3 ERROR <<<"$log")"
		return
	}
	got=$(tr '\n' ' ' <"$WORK/got")
	queued=$(grep -c "through the tuple queue: too little shared memory" <<<"$log" || true)
	took=$(grep -c "took [0-9]* hashes from parallel worker" <<<"$log" || true)
	made=$(sum_numbers "[0-9]* where the worker made them" "$log")
	if [ "$got" = "$serial" ]; then
		pass "$n keys, 2 workers: the filter and the state are the serial ones"
	else
		fail "$n keys, 2 workers: got $got, serially $serial"
	fi
	if [ "$expect" = queued ] && [ "$queued" -ge 2 ] && [ "$took" -eq 0 ]; then
		pass "$n keys: each worker queued its state for want of shared memory ($queued states, 2 queries)"
	elif [ "$expect" = handed ] && [ "$took" -ge 2 ] && [ "$queued" -eq 0 ] && [ "$made" -gt 0 ]; then
		pass "$n keys: the workers handed off their states in the same /dev/shm ($took states, 2 queries; $made hashes where the workers made them)"
	elif [ "$expect" = any ]; then
		return
	else
		fail "$n keys: $queued states queued for want of room, $took taken from shared memory ($made hashes where the workers made them); wanted them $expect"
	fi
}

check_keys 5000000 queued
check_keys 200000 handed
for n in 400000 1000000 2000000 3000000; do
	check_keys "$n" any
done
check_summary handoff-room
