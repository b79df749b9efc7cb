# shellcheck shell=bash
#
# test/lib/sql_diff_common.sh -- what test/sql_diff.sh and
# test/sql_diff_typed.sh share: their settings and their scratch database.
#
#   sql_diff_setup LABEL   after the script's own argument checks: reads
#                          SQL_DIFF_MAX_REPORT into max_report and
#                          SQL_DIFF_PER_CASE into per_case (on/off), makes
#                          a temporary directory ($tmp) and a fresh UTF8
#                          database with C collation ($db), both removed
#                          on exit (SQL_DIFF_KEEP_DB=1 keeps the database);
#                          PSQL is the psql command line to use
#   sql_diff_schema        CREATE EXTENSION bloomfilter in the scratch
#                          database, and the functions both scripts use
#                          (test/lib/sql_diff_common.sql)
#   sql_diff_die MESSAGE   "LABEL: ERROR: MESSAGE" and exit 2, the status
#                          of a check that could not run
#   sql_diff_report        the check queries' output in $tmp/out, tab
#                          separated lines LOADED MESSAGE, FAIL CASE
#                          REASONS (at most max_report) and RESULT PASSED
#                          FAILED, as the report and its closing line
#                          "LABEL: N passed, N failed"; non-zero when a
#                          case failed
#
# The server is the one the PG* environment points at.

sql_diff_die() {
	echo "$SQL_DIFF_LABEL: ERROR: $*" >&2
	exit 2
}

sql_diff_drop_db() {
	rm -rf -- "$tmp"
	[ -n "$SQL_DIFF_CREATED" ] || return 0
	SQL_DIFF_CREATED=
	if [ "${SQL_DIFF_KEEP_DB:-0}" = 1 ]; then
		echo "$SQL_DIFF_LABEL: keeping database $db" >&2
		return 0
	fi
	"${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null ||
		echo "$SQL_DIFF_LABEL: WARNING: could not drop database $db" >&2
}

sql_diff_setup() {
	SQL_DIFF_LABEL=$1
	command -v psql >/dev/null 2>&1 || sql_diff_die "psql not found"
	max_report=${SQL_DIFF_MAX_REPORT:-25}
	case $max_report in '' | *[!0-9]*) sql_diff_die "SQL_DIFF_MAX_REPORT must be a number" ;; esac
	per_case=${SQL_DIFF_PER_CASE:-0}
	[ "$per_case" = 1 ] && per_case=on || per_case=off

	db="bloom_${SQL_DIFF_LABEL//-/}_$$_${RANDOM}"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$SQL_DIFF_LABEL.XXXXXX")
	PSQL=(psql -X -q -v ON_ERROR_STOP=1)
	SQL_DIFF_CREATED=
	trap sql_diff_drop_db EXIT
	trap 'sql_diff_drop_db; exit 130' INT
	trap 'sql_diff_drop_db; exit 143' TERM

	"${PSQL[@]}" -d postgres -c \
		"CREATE DATABASE $db ENCODING 'UTF8' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'" ||
		sql_diff_die "cannot create the scratch database (is the server up? PGHOST=${PGHOST:-} PGPORT=${PGPORT:-})"
	SQL_DIFF_CREATED=1
}

sql_diff_schema() {
	"${PSQL[@]}" -d "$db" -c 'CREATE EXTENSION bloomfilter' \
		-f "$(dirname "${BASH_SOURCE[0]}")/sql_diff_common.sql" ||
		sql_diff_die "CREATE EXTENSION bloomfilter or the shared functions failed"
}

sql_diff_report() {
	local tag a b passed='' failed=''
	while IFS=$'\t' read -r tag a b; do
		case $tag in
		LOADED) echo "$SQL_DIFF_LABEL: loaded $a" ;;
		FAIL) printf 'FAIL %s: %s\n' "$a" "$b" ;;
		RESULT)
			passed=$a
			failed=$b
			;;
		*) ;;
		esac
	done <"$tmp/out"

	if [ -z "$passed" ] || [ -z "$failed" ]; then
		sql_diff_die "no result from the check queries"
	fi
	if [ "$failed" -gt "$max_report" ]; then
		echo "... and $((failed - max_report)) more failing cases (SQL_DIFF_MAX_REPORT=$max_report)"
	fi
	echo "$SQL_DIFF_LABEL: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
