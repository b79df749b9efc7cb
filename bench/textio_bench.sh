#!/usr/bin/env bash
#
# bench/textio_bench.sh -- is a filter's text form (hex) as fast to write
# and to read as bytea's?  One command from a clone:
#
#     bench/textio_bench.sh            # a 12.5 MB filter, 7 repetitions
#     bench/textio_bench.sh --quick    # a 125 kB filter, 1 repetition (smoke test)
#
# It checks the Debian packages (installing them as root), builds and installs
# the extension, starts a throw-away PostgreSQL 15 cluster, measures, prints a
# report, and stops the cluster.  Every figure it prints is measured in this
# run; nothing is hard-coded.  The report is also saved under bench/out/.
#
# Options:
#   --keys N      keys of the filter, md5(i::text) for i = 1..N, at 10 bits
#                 a key (default 10000000: a filter of 12,500,001 bytes, whose
#                 text is 25,000,004 characters)
#   --reps R      timed rounds (default 7; each runs every query twice, each
#                 time right after an untimed run of it in the same session)
#   --quick       --keys 100000 --reps 1 (explicit options win)
#   --no-build    use the extension already installed
#   -h, --help    this text
#
# The same bytes are stored twice, in a bloomfilter column (bench_f) and in
# a bytea column (bench_b), both stored out of line and uncompressed, and
# their hex text once in a text file written by COPY and in a text column
# (bench_hex).  The pairs, timed in one session, interleaved: each query
# runs twice a round, bloomfilter-bytea-bytea-bloomfilter in odd rounds and
# the reverse in even ones, so that both have the same neighbours:
#   output, COPY   COPY bench_f (f) TO '/dev/null'   vs the same of bench_b:
#                  the output function, plus the detoast and COPY's escaping
#                  that both pay alike
#   output, cast   SELECT octet_length(f::text)      vs octet_length(b::text)
#                  (both casts are I/O conversions: the output function)
#   input, COPY    COPY bench_in_f FROM 'file' WHERE false   vs bench_in_b:
#                  the file read, COPY's unescaping and the input function;
#                  WHERE false keeps the row from being stored
#   input, cast    SELECT h::bloomfilter IS NOT NULL FROM bench_hex   vs
#                  h::bytea (I/O conversions: the input function, after a
#                  detoast of the text both pay alike)
# Times are pgbench's latency, in ms (bench_time in bench/lib/common.sh: each
# run in a session of its own, right after an untimed run of the same
# statement); the ratios are bloomfilter / bytea, of the medians and of the
# best runs.  The target is <= 1.2 for the COPY pairs.
# The last line checks that the bytes round-trip: the filter read back from
# its COPY text and from its cast text equals the bytea, and its text equals
# bytea's text.

set -euo pipefail

# shellcheck source=bench/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
bench_begin 'KEYS=10000000 REPS=7 BITS=10' '--keys:KEYS --reps:REPS' 'KEYS=100000 REPS=1' "$@"

# ---- build, install, cluster ----------------------------------------------

bench_cluster
# The server (the postgres user) writes and reads the hex file here.
chmod 755 "$WORK"
IO_DIR=$WORK/io
mkdir -p "$IO_DIR"
chmod 1777 "$IO_DIR"
HEX_FILE=$IO_DIR/filter.hex

bf_log "configuring the cluster: shared_buffers = 256MB, jit off, restart"
bench_configure "shared_buffers = '256MB'" "jit = off" "autovacuum = off"

bench_run_info
bench_machine_report "run:         --keys $KEYS --reps $REPS, bits_per_key $BITS"
echo

# ---- data -------------------------------------------------------------------

bf_log "building the filter (bloom_agg over $KEYS md5 keys) and its copies"
t0=$(date +%s)
psql_file /dev/stdin >"$WORK/setup.out" <<EOF
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
CREATE TABLE bench_f (f bloomfilter);
CREATE TABLE bench_b (b bytea);
ALTER TABLE bench_b ALTER COLUMN b SET STORAGE EXTERNAL;
CREATE TABLE bench_hex (h text);
ALTER TABLE bench_hex ALTER COLUMN h SET STORAGE EXTERNAL;
-- targets of the timed COPY ... FROM ... WHERE false, which stay empty
CREATE TABLE bench_in_f (f bloomfilter);
CREATE TABLE bench_in_b (b bytea);
-- targets of the round-trip check
CREATE TABLE bench_rt_f (f bloomfilter);
CREATE TABLE bench_rt_b (b bytea);
INSERT INTO bench_f
  SELECT bloom_agg(md5(i::text), $BITS) FROM generate_series(1, $KEYS) i;
INSERT INTO bench_b SELECT f::bytea FROM bench_f;
INSERT INTO bench_hex SELECT b::text FROM bench_b;
COPY bench_b (b) TO '$HEX_FILE';
VACUUM ANALYZE bench_f, bench_b, bench_hex;
SELECT 'S', octet_length(b), octet_length(h), pg_column_size(b), pg_column_size(f)
  FROM bench_b, bench_hex, bench_f;
EOF
IFS='|' read -r _ filter_bytes hex_chars stored_b stored_f < <(grep '^S|' "$WORK/setup.out")
file_bytes=$(wc -c <"$HEX_FILE")
bf_log "data ready in $(($(date +%s) - t0)) s: a filter of $filter_bytes bytes (stored $stored_f as bloomfilter, $stored_b as bytea), text $hex_chars characters, COPY file $file_bytes bytes"

# ---- timing -----------------------------------------------------------------

PAIRS=(out_copy out_cast in_copy in_cast)
declare -A P_NAME Q
P_NAME[out_copy]="output, COPY TO /dev/null"
P_NAME[out_cast]="output, octet_length(x::text)"
P_NAME[in_copy]="input, COPY FROM file WHERE false"
P_NAME[in_cast]="input, text column ::type"
Q[out_copy.f]="COPY bench_f (f) TO '/dev/null'"
Q[out_copy.b]="COPY bench_b (b) TO '/dev/null'"
Q[out_cast.f]="SELECT octet_length(f::text) FROM bench_f"
Q[out_cast.b]="SELECT octet_length(b::text) FROM bench_b"
Q[in_copy.f]="COPY bench_in_f FROM '$HEX_FILE' WHERE false"
Q[in_copy.b]="COPY bench_in_b FROM '$HEX_FILE' WHERE false"
Q[in_cast.f]="SELECT h::bloomfilter IS NOT NULL FROM bench_hex"
Q[in_cast.b]="SELECT h::bytea IS NOT NULL FROM bench_hex"

bf_log "timing: $REPS rounds of ${#PAIRS[@]} pairs, interleaved"
t0=$(date +%s)
: >"$WORK/times"
for ((rep = 1; rep <= REPS; rep++)); do
	# each of the pair runs twice a round, once before the other and once
	# after it: whatever the previous query leaves behind weighs on both alike
	if ((rep % 2)); then order="f b b f"; else order="b f f b"; fi
	for p in "${PAIRS[@]}"; do
		for t in $order; do
			bench_time "$p.$t" "${Q[$p.$t]};" "${Q[$p.$t]};"
		done
	done
done
bf_log "timing done in $(($(date +%s) - t0)) s"
if [ "$(wc -l <"$WORK/times")" -ne $((REPS * ${#PAIRS[@]} * 4)) ]; then
	bf_err "could not read every timing from $WORK/times"
	exit 1
fi
bench_read_stats "$WORK/times"

# ---- round trip ---------------------------------------------------------------

bf_log "checking the round trip"
psql_file /dev/stdin >"$WORK/check.out" <<EOF
COPY bench_rt_f FROM '$HEX_FILE';
COPY bench_rt_b FROM '$HEX_FILE';
SELECT 'C',
  (SELECT f::bytea FROM bench_rt_f) = b,
  (SELECT b FROM bench_rt_b) = b,
  (SELECT h::bloomfilter::bytea FROM bench_hex) = b,
  (SELECT f::text FROM bench_f) = b::text,
  (SELECT f FROM bench_f)::bytea = b,
  md5(b)
  FROM bench_b;
EOF
IFS='|' read -r _ rt_copy rt_copy_b rt_cast rt_text rt_stored md5_b < <(grep '^C|' "$WORK/check.out")

# ---- report -------------------------------------------------------------------

mkdir -p "$OUT_DIR"
SUMMARY=$OUT_DIR/textio_bench-$STAMP.md
{
	echo "### bloomfilter text I/O against bytea"
	echo
	echo "$RUN_DATE; $(bench_cpu_model), $(nproc) cores; PostgreSQL $(psql_c "SHOW server_version"); commit $GIT_REV."
	echo "A filter of $filter_bytes bytes (bloom_agg over $KEYS md5 keys, $BITS bits a key); its text is $hex_chars characters."
	echo "Times: pgbench's latency in ms, each run in a session of its own after an untimed run of the same"
	echo "statement; median (min–max) of $((2 * REPS)) runs ($REPS rounds), interleaved."
	echo
	echo "| what | bloomfilter | bytea | bloomfilter / bytea, medians | of best runs |"
	echo "|---|---:|---:|---:|---:|"
	for p in "${PAIRS[@]}"; do
		echo "| ${P_NAME[$p]} | $(bench_cell "$p.f") | $(bench_cell "$p.b") | $(bench_ratio "${MED[$p.f]}" "${MED[$p.b]}")× | $(bench_ratio "${MIN[$p.f]}" "${MIN[$p.b]}")× |"
	done
	echo
	echo "Target: bloomfilter / bytea <= 1.2 for input and output (COPY)."
} >"$SUMMARY"

bench_show_summary "$SUMMARY"
echo "(every timed run, ms, in the order run:"
for p in "${PAIRS[@]}"; do
	for t in f b; do
		printf '  %-36s %-11s %s\n' "${P_NAME[$p]}" "$([ $t = f ] && echo bloomfilter || echo bytea)" \
			"$(awk -F'|' -v k="$p.$t" '$1 == k {printf "%s%.1f", sep, $2; sep = " "}' "$WORK/times")"
	done
done
echo ")"
for p in "${PAIRS[@]}"; do
	printf 'ratio %-36s %s (best %s)\n' "${P_NAME[$p]}:" \
		"$(bench_ratio "${MED[$p.f]}" "${MED[$p.b]}")" "$(bench_ratio "${MIN[$p.f]}" "${MIN[$p.b]}")"
done

bf_cluster_stop
ok=no
if [ "$rt_copy" = t ] && [ "$rt_copy_b" = t ] && [ "$rt_cast" = t ] && [ "$rt_text" = t ] && [ "$rt_stored" = t ]; then
	ok=yes
fi
echo "textio-check: round trip equal: $ok (COPY text -> bloomfilter $rt_copy, -> bytea $rt_copy_b; cast text -> bloomfilter $rt_cast; bloomfilter text = bytea text $rt_text; md5 of the bytes $md5_b)"
[ "$ok" = yes ]
