# shellcheck shell=bash
#
# test/lib/checks.sh -- counting checks in the script tests.  Source it.
#
#   pass MESSAGE           count a passed check and print it
#   fail MESSAGE           count a failed check and print it
#   pass_if_same GOT WANT MESSAGE FAILURE  pass MESSAGE when GOT is
#                          WANT, else fail FAILURE
#   check_summary LABEL    print "LABEL: N passed, N failed", the line
#                          scripts/test.sh reads; false if any check failed
#   start_test_cluster LABEL  (needs scripts/lib.sh) a throw-away cluster
#                          where the extension is available, and WORK, a
#                          temporary directory the server may read; if not,
#                          a failed check, the summary, and exit 1
#   sum_numbers PATTERN TEXT  the sum of the first number in each match of
#                          the grep pattern in TEXT (0 if none): a count
#                          the server's DEBUG lines give, added up

passed=0
failed=0
pass() {
	passed=$((passed + 1))
	echo "ok   $*"
}
fail() {
	failed=$((failed + 1))
	echo "FAIL $*"
}
pass_if_same() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$4"
	fi
}
check_summary() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
sum_numbers() {
	{ grep -o "$1" <<<"$2" || true; } |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { n += $i; next } } END { print n + 0 }'
}
start_test_cluster() {
	WORK=
	bf_mktemp_dir WORK
	chmod 755 "$WORK"
	if ! bf_cluster_start >"$WORK/cluster.log" 2>&1; then
		cat "$WORK/cluster.log"
		fail "could not start a throw-away cluster"
		check_summary "$1"
		exit 1
	fi
	if [ "$("$(bf_pg_bindir)/psql" -X -q -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'bloomfilter'")" != 1 ]; then
		fail "the bloomfilter extension is not installed (run make install)"
		check_summary "$1"
		exit 1
	fi
}
