# shellcheck shell=bash
#
# test/lib/checks.sh -- counting checks in the script tests.  Source it.
#
#   pass MESSAGE           count a passed check and print it
#   fail MESSAGE           count a failed check and print it
#   check_summary LABEL    print "LABEL: N passed, N failed", the line
#                          scripts/test.sh reads; false if any check failed

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
check_summary() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
