#!/usr/bin/env bash
#
# test/cancel_test.sh -- a cancel or statement_timeout stops bloom_agg's final
# function promptly, even over tens of millions of keys.
#
# Runs against the server the PG* environment points at, in a scratch
# database it creates and drops.  The final function is run alone on a
# stored partial state, so that the cancel lands inside it and not in the
# scan that fed it.  The premise is checked too: uncancelled, the same final
# must take several times the allowed delay, or the test could not fail.
#
# The same for a large state sorted and coded on threads when it is handed
# on (src/core/bloom_flatten.c): the stored state, absorbed twice into a new
# one and sent, is sorted on 4 threads while the backend waits; a
# statement_timeout stops it promptly and the session goes on.  Likewise
# in a parallel worker sorting on its share of the threads, which the
# leader's error then terminates.  A backend terminated (a FATAL error, which
# does not unwind) while its threads run must still join them before it
# exits: the server must not restart.
#
# Also the threads' default: bloomfilter.max_final_threads is the CPUs the
# backend may run on when the library loads (at most 64), for its own
# affinity mask and for a backend pinned to one CPU before it loads it.
#
# Prints "cancel: N passed, N failed".
set -euo pipefail

KEYS=${BLOOM_CANCEL_KEYS:-80000000}
BPK=43                  # k = 29: many bit writes per key, a long final
ALLOWED_MS=1500         # delay allowed between the cancel and the error
PREMISE_MS=$((3 * ALLOWED_MS))

db="bloom_cancel_$$"
# shellcheck source=test/lib/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
finish() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	check_summary cancel || true
}
trap finish EXIT

now_ms() { date +%s%3N; }
q() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
# signal_during_final FUNCTION: run $final_sql in a session of its own, call
# FUNCTION (pg_cancel_backend or pg_terminate_backend) on it from another a
# second later, and wait for it to end.  Sets signalled (the sessions
# FUNCTION was true for), waited (ms from the start to the call), elapsed
# (ms from the call to the end) and out (the session's output).
signal_during_final() {
	local app="bloom_cancel_test_$$" out_file t_start t0 runner
	out_file=$(mktemp)
	t_start=$(now_ms)
	PGAPPNAME=$app q -c "$final_sql" >"$out_file" 2>&1 &
	runner=$!
	sleep 1
	t0=$(now_ms)
	signalled=$(q -At -c "SELECT count(*) FILTER (WHERE $1(pid))
	                       FROM pg_stat_activity WHERE application_name = '$app'")
	wait "$runner" || true
	elapsed=$(($(now_ms) - t0))
	waited=$((t0 - t_start))
	out=$(cat "$out_file")
	rm -f "$out_file"
}
# The checkpointer's pid: a server process that crashes makes the
# postmaster restart every other, this one included.  Empty while the
# server recovers; then this waits (up to 60 s) until it accepts
# connections again, so that the tests after a failed one still run.
checkpointer() {
	q -At -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'" 2>/dev/null && return
	for _ in $(seq 60); do
		sleep 1
		q -At -c "SELECT 1" >/dev/null 2>&1 && break
	done
	return 0
}

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
q <<SQL
CREATE EXTENSION bloomfilter;
CREATE AGGREGATE bloom_partial(text, integer) (
  SFUNC = bloom_agg_transfn, STYPE = bloom_agg_state);
CREATE AGGREGATE bloom_states(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state);
CREATE TABLE st (s bloom_agg_state);
ALTER TABLE st ALTER COLUMN s SET STORAGE external;
INSERT INTO st SELECT bloom_partial(i::text, $BPK) FROM generate_series(1, $KEYS) i;
SQL
echo "stored a partial state of $KEYS keys at $BPK bits per key"

# With the bits set on the backend's own thread, and on 4 threads while the
# backend waits and checks for interrupts (bloomfilter.max_final_threads).
for threads in 1 4; do
	final_sql="SET bloomfilter.max_final_threads = $threads; SELECT bloom_agg_finalfn(s) IS NOT NULL FROM st"
	echo "-- $threads final threads"

	# The premise: the uncancelled final is long enough to tell a prompt cancel
	# from none.
	t0=$(now_ms)
	q -c "$final_sql" >/dev/null
	full_ms=$(($(now_ms) - t0))
	if [ "$full_ms" -ge "$PREMISE_MS" ]; then
		pass "uncancelled final takes ${full_ms} ms (needs >= ${PREMISE_MS} ms for this test to mean anything)"
	else
		fail "uncancelled final takes only ${full_ms} ms (< ${PREMISE_MS} ms): raise BLOOM_CANCEL_KEYS"
	fi

	# statement_timeout inside the final.
	timeout_ms=500
	t0=$(now_ms)
	out=$(q -c "SET statement_timeout = ${timeout_ms}" -c "$final_sql" 2>&1 || true)
	elapsed=$(($(now_ms) - t0))
	if ! grep -q "canceling statement due to statement timeout" <<<"$out"; then
		fail "statement_timeout: expected a timeout error, got: $out"
	elif [ "$elapsed" -le $((timeout_ms + ALLOWED_MS)) ]; then
		pass "statement_timeout of ${timeout_ms} ms stopped the final after ${elapsed} ms"
	else
		fail "statement_timeout of ${timeout_ms} ms stopped the final only after ${elapsed} ms"
	fi

	# pg_cancel_backend from another session, while the final runs.
	signal_during_final pg_cancel_backend
	if [ "$signalled" != "1" ]; then
		fail "pg_cancel_backend: found $signalled sessions to cancel (after $waited ms)"
	elif ! grep -q "canceling statement due to user request" <<<"$out"; then
		fail "pg_cancel_backend: expected a cancel error, got: $out"
	elif [ "$elapsed" -le "$ALLOWED_MS" ]; then
		pass "pg_cancel_backend stopped the final ${elapsed} ms after the cancel"
	else
		fail "pg_cancel_backend stopped the final only ${elapsed} ms after the cancel"
	fi

	# pg_terminate_backend: the backend exits by a FATAL error, which does
	# not unwind; the threads must still be stopped and joined first, or
	# they outlive what they read and crash the server.
	[ "$threads" -gt 1 ] || continue
	before=$(checkpointer)
	signal_during_final pg_terminate_backend
	after=$(checkpointer)
	if [ "$signalled" != "1" ]; then
		fail "pg_terminate_backend: found $signalled sessions to terminate (after $waited ms)"
	elif ! grep -q "terminating connection due to administrator command" <<<"$out"; then
		fail "pg_terminate_backend: expected the session to be terminated, got: $out"
	elif [ -z "$before" ] || [ "$before" != "$after" ]; then
		fail "pg_terminate_backend during the final on $threads threads: the server restarted (checkpointer $before, then ${after:-none})"
	elif [ "$elapsed" -le "$ALLOWED_MS" ]; then
		pass "pg_terminate_backend ended the final on $threads threads ${elapsed} ms after, the server still up"
	else
		fail "pg_terminate_backend ended the final only ${elapsed} ms after"
	fi
done

# The flatten: the stored state twice over, in one expanded state (its two
# coded runs kept coded), sent, which sorts and codes every hash.
flatten_sql="SET bloomfilter.max_final_threads = 4; SELECT length(bloom_agg_state_send(bloom_states(s))) > 0 FROM (SELECT s FROM st UNION ALL SELECT s FROM st) twice"
t0=$(now_ms)
q -c "$flatten_sql" >/dev/null
full_ms=$(($(now_ms) - t0))
timeout_ms=$((full_ms / 3))
if [ "$full_ms" -ge 900 ]; then
	pass "uncancelled flatten on 4 threads takes ${full_ms} ms (needs >= 900 ms)"
else
	fail "uncancelled flatten on 4 threads takes only ${full_ms} ms (< 900 ms): raise BLOOM_CANCEL_KEYS"
fi
t0=$(now_ms)
out=$(q -c "SET statement_timeout = ${timeout_ms}" -c "$flatten_sql" -c "RESET statement_timeout" -c "SELECT 'still here'" 2>&1 || true)
elapsed=$(($(now_ms) - t0))
if ! grep -q "canceling statement due to statement timeout" <<<"$out"; then
	fail "flatten: expected a timeout error, got: $out"
elif [ "$elapsed" -le $((timeout_ms + ALLOWED_MS)) ]; then
	pass "statement_timeout of ${timeout_ms} ms stopped the flatten on 4 threads after ${elapsed} ms"
else
	fail "statement_timeout of ${timeout_ms} ms stopped the flatten only after ${elapsed} ms"
fi
# twice the keys, the same distinct hashes: the bytes after the key count
# (format.md: version, bits a key, key count, then the distinct count and code)
if [ "$(q -At -c "SELECT substring(bloom_agg_state_send(bloom_states(s)) FROM 17) = (SELECT substring(bloom_agg_state_send(s) FROM 17) FROM st) FROM (SELECT s FROM st UNION ALL SELECT s FROM st) twice")" = t ]; then
	pass "after the cancel, the stored state twice over sorts into the stored state's distinct hashes and code"
else
	fail "after the cancel, the stored state twice over does not sort into the stored state's code"
fi

# The same flatten in a parallel worker, on its share of the threads: a
# plan for 2 workers run by 1, the leader not scanning, so that the lone
# worker takes both rows of the stored state, absorbs them and sorts and
# codes every hash on threads when it sends its state.  A statement_timeout
# within the worker's flatten (its first part: the leader then sorts the
# state again) stops the query promptly, and no server process crashes.
worker_sql="SET max_parallel_workers_per_gather = 2; SET max_parallel_workers = 1;
SET parallel_leader_participation = off; SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET bloomfilter.max_final_threads = 4;"
worker_query="SELECT length(bloom_agg_state_send(bloom_states_parallel(s))) > 0 FROM st2"
q <<SQL
CREATE AGGREGATE bloom_states_parallel(bloom_agg_state) (
  SFUNC = bloom_agg_combinefn, STYPE = bloom_agg_state,
  COMBINEFUNC = bloom_agg_combinefn, PARALLEL = SAFE);
CREATE TABLE st2 WITH (parallel_workers = 2) AS SELECT s FROM st UNION ALL SELECT s FROM st;
SQL
plan=$(q -At -c "$worker_sql" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $worker_query" | tr '\n' ' ')
t0=$(now_ms)
q -c "$worker_sql" -c "$worker_query" >/dev/null
full_ms=$(($(now_ms) - t0))
timeout_ms=$((full_ms / 4))
if [[ $plan != *"Partial Aggregate"* || $plan != *"Workers Launched: 1 "* ]]; then
	fail "worker flatten: the plan has no partial aggregate in one launched worker: $plan"
elif [ "$full_ms" -ge 1200 ]; then
	pass "uncancelled query with a worker's flatten on threads takes ${full_ms} ms (needs >= 1200 ms)"
else
	fail "uncancelled query with a worker's flatten takes only ${full_ms} ms (< 1200 ms): raise BLOOM_CANCEL_KEYS"
fi
# The leader's error terminates the worker: a FATAL error there, which
# must stop and join the worker's threads before it exits.
before=$(checkpointer)
t0=$(now_ms)
out=$(q -c "$worker_sql" -c "SET statement_timeout = ${timeout_ms}" -c "$worker_query" 2>&1 || true)
elapsed=$(($(now_ms) - t0))
after=$(checkpointer)
if ! grep -q "canceling statement due to statement timeout" <<<"$out"; then
	fail "worker flatten: expected a timeout error, got: $out"
elif [ -z "$before" ] || [ "$before" != "$after" ]; then
	fail "worker flatten: the server restarted after the timeout (checkpointer $before, then ${after:-none})"
elif [ "$elapsed" -le $((timeout_ms + ALLOWED_MS)) ]; then
	pass "statement_timeout of ${timeout_ms} ms stopped a parallel worker's flatten after ${elapsed} ms, the server still up"
else
	fail "statement_timeout of ${timeout_ms} ms stopped a parallel worker's flatten only after ${elapsed} ms"
fi

# default_threads PIN: in one session, the CPUs its backend may run on (at
# most 64; after the shell pinned it to CPU 0 if PIN is true) and then, the
# library loaded, the setting's default
default_threads() {
	q -At -v pin="$1" <<'SQL'
SELECT pg_backend_pid() AS pid \gset
\setenv BLOOM_BACKEND :pid
\if :pin
\! taskset -pc 0 "$BLOOM_BACKEND" >/dev/null
\endif
\! awk -F'[:,]' '$1 == "Cpus_allowed_list" { for (i = 2; i <= NF; i++) c += split($i, r, "-") == 2 ? r[2] - r[1] + 1 : 1; print (c > 64 ? 64 : c) }' "/proc/$BLOOM_BACKEND/status"
LOAD 'bloomfilter';
SHOW bloomfilter.max_final_threads;
SQL
}
{ read -r allowed && read -r shown; } < <(default_threads false)
if [ -n "${shown:-}" ] && [ "$shown" = "${allowed:-}" ]; then
	pass "bloomfilter.max_final_threads defaults to the $shown CPUs the backend may run on"
else
	fail "bloomfilter.max_final_threads defaults to '${shown:-}', the backend may run on '${allowed:-}' CPUs"
fi
if command -v taskset >/dev/null 2>&1; then
	{ read -r allowed && read -r shown; } < <(default_threads true)
	if [ "${allowed:-}" = 1 ] && [ "${shown:-}" = 1 ]; then
		pass "a backend pinned to one CPU defaults to 1 final thread"
	else
		fail "a backend pinned to '${allowed:-}' CPU(s) defaults to '${shown:-}' final threads"
	fi
fi
[ "$failed" -eq 0 ]
