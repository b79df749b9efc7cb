#!/usr/bin/env bash
#
# test/scale_diff.sh -- bloom_agg over millions of keys writes LevelDB's
# bytes, serially and with parallel workers.
#
# test/sql_diff.sh holds the extension to libleveldb on thousands of small
# cases.  This holds it there at a scale the small cases never reach: a
# state of several runs (the buffer becomes a run every 2^20 hashes), partial states
# combined from parallel workers, and a filter of 4 MB or more, which the
# final function sets through its bucketed path.  The keys (default
# 3,000,000, distinct, of every length modulo 4, plus every 1000th again) are made in SQL,
# exported with \copy, and given to libleveldb by
# `test/leveldb/leveldb_diff filter`; the filters' md5 must be equal, with
# the final function's bits set on 1, 2 and 8 threads
# (bloomfilter.max_final_threads; at 20 bits a key the filter is large
# enough for threads), serially, with 2 workers (their states handed to
# the leader in shared memory, as by default, their hashes where the
# workers made them as they went, and sorted, coded and sent through
# the tuple queues, as with bloomfilter.parallel_handoff off), and with a
# lone worker whose state of every key (its buffer filled twice over) is
# handed off; the leader's DEBUG1 lines must say which way the states
# went.  The
# two-phase state of all keys (bloom_agg_partial), sorted and coded by one
# thread or by threads, must be the same bytes, bloom_agg_merge of it
# libleveldb's filter, and its pg_column_size, asked of the aggregate's
# result, the stored state's size.
# Then as many keys with only 300,000 and only 1,000 distinct ones,
# against `leveldb_diff filter-cycle`.
#
# Runs against the server the PG* environment points at, in a scratch
# database it creates and drops; needs test/leveldb/leveldb_diff built
# (make test/leveldb/leveldb_diff).
#
#   test/scale_diff.sh [--keys N]
#
# Prints "scale-diff: N passed, N failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

KEYS=3000000
bf_options '--keys:KEYS' "$@"

tool=test/leveldb/leveldb_diff
if [ ! -x "$tool" ]; then
	echo "scale_diff.sh: $tool is not built (make test/leveldb/leveldb_diff)" >&2
	fail "libleveldb's side is missing"
	check_summary scale-diff
	exit 1
fi

db="bloom_scale_$$"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-scale.XXXXXX")
finish() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	rm -rf -- "$WORK"
}
trap finish EXIT
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
# Distinct keys, so that a lost key changes the filter (a repeated one
# would hide it), of lengths covering every tail of the hash; then every
# 1000th key again, as LevelDB counts every key given, repeats included.
q <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE keys AS
  WITH distinct_keys AS (
    SELECT i, i::text || ':' || substr(md5(i::text), 1, i % 8) AS k
      FROM generate_series(1, $KEYS) i)
  SELECT k FROM distinct_keys
  UNION ALL
  SELECT k FROM distinct_keys WHERE i % 1000 = 0;
ANALYZE keys;
SQL
q -c "\\copy (SELECT k FROM keys) TO '$WORK/keys.txt'"
echo "keys: $(wc -l <"$WORK/keys.txt") exported, $(q -c "SELECT count(DISTINCT k) FROM keys") distinct"

serial="SET max_parallel_workers_per_gather = 0;"
parallel="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
# A plan for 2 workers run by 1, the leader only gathering: the lone
# worker's state holds every key, runs of full buffers and a partial one,
# all handed to the leader.
worker="$parallel SET max_parallel_workers = 1; SET parallel_leader_participation = off;"
# Parallel, the workers' states sorted, coded and sent through the tuple
# queues rather than handed off in shared memory.
queued="$parallel SET bloomfilter.parallel_handoff = off;"
# settings_for MODE THREADS: mode serial, parallel, queued or worker, on THREADS
settings_for() {
	local mode
	case $1 in
	serial) mode=$serial ;;
	parallel) mode=$parallel ;;
	queued) mode=$queued ;;
	worker) mode=$worker ;;
	esac
	echo "$mode SET bloomfilter.max_final_threads = $2;"
}

for bpk in 10 20; do
	want=$("$tool" filter "$bpk" <"$WORK/keys.txt" 2>"$WORK/tool.log" | md5sum | cut -d' ' -f1)
	sed 's/^/  /' "$WORK/tool.log"
	for mode in serial parallel queued worker; do
		for threads in 1 2 8; do
			settings=$(settings_for $mode $threads)
			explain="EXPLAIN (COSTS OFF)"
			# the lone worker must really be launched, or the leader does its work
			[ "$mode" = worker ] && explain="EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)"
			plan=$(q -c "$settings" -c "$explain SELECT bloom_agg(k, $bpk) FROM keys" | tr '\n' ' ')
			got=$(q -c "$settings" -c "SELECT md5(bloom_agg(k, $bpk)::bytea), octet_length(bloom_agg(k, $bpk)::bytea) FROM keys")
			if [ "$mode" != serial ] && [[ $plan != *"Partial Aggregate"* ]]; then
				fail "bits_per_key $bpk, $mode, $threads final threads: the plan has no partial aggregate: $plan"
			elif [ "$mode" = worker ] && [[ $plan != *"Workers Launched: 1 "* ]]; then
				fail "bits_per_key $bpk, $mode, $threads final threads: not one worker launched: $plan"
			elif [ "${got%%|*}" = "$want" ]; then
				pass "bits_per_key $bpk, $mode, $threads final threads: the ${got#*|}-byte filter is libleveldb's (md5 $want)"
			else
				fail "bits_per_key $bpk, $mode, $threads final threads: md5 ${got%%|*} (${got#*|} bytes), libleveldb's is $want"
			fi
		done
	done
done

# The two-phase state: flattened on one thread and on the threads a
# leader uses for a state of more than 2^21 hashes, serially and from
# parallel workers' runs; one state's bytes, and libleveldb's filter.
want=$("$tool" filter 10 <"$WORK/keys.txt" 2>/dev/null | md5sum | cut -d' ' -f1)
states=''
for mode in serial parallel queued worker; do
	for threads in 1 8; do
		settings=$(settings_for $mode $threads)
		got=$(q -c "$settings" -c "CREATE TEMP TABLE st AS SELECT bloom_agg_partial(k, 10) AS s FROM keys" \
			-c "SELECT md5(bloom_agg_state_send(s)), (SELECT md5(bloom_agg_merge(s)::bytea) FROM st), octet_length(bloom_agg_state_send(s)) + 4 FROM st" -c "DROP TABLE st")
		IFS='|' read -r state_md5 merged_md5 flat_size <<<"$got"
		states="$states $state_md5"
		pass_if_same "$merged_md5" "$want" \
			"bloom_agg_partial, $mode, $threads threads: bloom_agg_merge of it is libleveldb's filter" \
			"bloom_agg_partial, $mode, $threads threads: bloom_agg_merge gives md5 $merged_md5, libleveldb's is $want"
		# The size a state gives before it is flattened (from 16 on, all
		# pg_column_size asks of the aggregate's result): the exact length
		# its sorted hashes' code will take.
		if [ "$threads" = 8 ]; then
			size=$(q -c "$settings" -c "SELECT pg_column_size(bloom_agg_partial(k, 10)) FROM keys")
			pass_if_same "$size" "$flat_size" \
				"bloom_agg_partial, $mode, $threads threads: pg_column_size is the stored state's $flat_size bytes" \
				"bloom_agg_partial, $mode, $threads threads: pg_column_size says $size bytes, the stored state has $flat_size"
		fi
	done
done
if [ "$(tr ' ' '\n' <<<"$states" | sort -u | grep -c .)" -eq 1 ]; then
	pass "bloom_agg_partial: one state's bytes on 1 and 8 threads, serially, in parallel (handed off or queued) and from a lone worker"
else
	fail "bloom_agg_partial: the states differ:$states"
fi

# Which way the states went: the leader says at DEBUG1 what it took from
# shared memory (each worker's hashes, how many of them where the worker
# made them, and its own state where it lies), and says nothing of it
# when the hand-off is off.  A worker makes its chunks after its first
# 2^16 hashes in shared memory, and a full buffer (2^20 hashes) of these
# distinct keys stays where it lies: its sample's share of distinct hashes
# is 1 however the scan's chunks fell (a buffer judged to repeat would be
# sorted into the worker's own memory and copied at the hand-off).  So
# each of 2 workers must have made some of its hashes in shared memory,
# and the workers, as the lone worker, most of them.
for mode in parallel worker queued; do
	settings=$(settings_for $mode 2)
	log=$(q -c "$settings SET client_min_messages = debug1;" -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM keys" 2>&1 >/dev/null)
	workers=$(grep -c "took [0-9]* hashes from parallel worker" <<<"$log" || true)
	made_some=$(grep -c "took [0-9]* hashes from parallel worker .*, [1-9][0-9]* where the worker made them" <<<"$log" || true)
	own=$(grep -c "took the parallel leader's own state" <<<"$log" || true)
	taken=$(sum_numbers "took [0-9]* hashes from parallel worker" "$log")
	made=$(sum_numbers "[0-9]* where the worker made them" "$log")
	if [ "$mode" = parallel ] && [ "$workers" -ge 1 ] && [ "$made_some" -eq "$workers" ] && [ "$made" -gt $((taken / 2)) ] && [ "$own" -eq 1 ]; then
		pass "parallel: the leader took $workers workers' $taken hashes from shared memory ($made where they made them, each some) and its own state where it lies"
	elif [ "$mode" = worker ] && [ "$workers" -eq 1 ] && [ "$own" -eq 0 ] && [ "$made" -gt $((taken / 2)) ]; then
		pass "worker: the leader took the lone worker's $taken hashes from shared memory, $made of them where the worker made them"
	elif [ "$mode" = queued ] && [ "$workers" -eq 0 ] && [ "$own" -eq 0 ]; then
		pass "queued: no state handed off with bloomfilter.parallel_handoff off"
	else
		fail "$mode: $workers workers' states ($made_some made some of their hashes in shared memory; $made of $taken hashes where the workers made them) and $own leader's state handed off: $(grep -i bloom <<<"$log" | head -5)"
	fi
done

# Repeated keys: the states sort their buffers into runs of distinct
# hashes and merge them (300,000 distinct keys), or hold a few distinct
# hashes for millions of rows (1,000); workers send them gap-coded.
for distinct in 300000 1000; do
	q <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS cycle;
CREATE TABLE cycle AS SELECT (i % $distinct)::text AS k FROM generate_series(1, $KEYS) i;
ANALYZE cycle;
SQL
	want=$("$tool" filter-cycle 10 "$KEYS" "$distinct" 2>"$WORK/tool.log" | md5sum | cut -d' ' -f1)
	sed 's/^/  /' "$WORK/tool.log"
	for mode in serial parallel; do
		settings=$serial
		[ "$mode" = parallel ] && settings=$parallel
		got=$(q -c "$settings" -c "SELECT md5(bloom_agg(k, 10)::bytea) FROM cycle")
		pass_if_same "$got" "$want" "$KEYS keys, $distinct distinct, $mode: the filter is libleveldb's (md5 $want)" \
			"$KEYS keys, $distinct distinct, $mode: md5 $got, libleveldb's is $want"
	done
done

check_summary scale-diff
