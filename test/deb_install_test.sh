#!/usr/bin/env bash
#
# test/deb_install_test.sh -- the postgresql-N-bloomfilter .deb works on a
# system that has the PostgreSQL N server and no build tools.
#
#   test/deb_install_test.sh [--allow-build-tools] PACKAGE.deb...
#
# Meant for a fresh Debian chroot holding postgresql-N and nothing to build
# with, run as root from a copy of the source tree (it needs scripts/lib.sh,
# test/lib/checks.sh and examples/demo.sql, and only bash, coreutils, apt
# and the server's own psql, initdb and pg_ctl).  It
#
#   - checks that no compiler and no make is installed (the premise);
#   - installs the given packages with apt-get, as a user would, with what
#     they depend on (a -dbgsym may come along);
#   - for each postgresql-N-bloomfilter among them: checks that the server
#     of major N is installed and that the module, control file and the
#     tree's bloomfilter--*.sql scripts landed in its directories and
#     belong to the package; starts a throw-away cluster of major N
#     (scripts/lib.sh); runs CREATE EXTENSION bloomfilter and a few probes,
#     then examples/demo.sql with ON_ERROR_STOP and checks what it built;
#     stops the cluster.
#
# The packages stay installed: the chroot is thrown away afterwards.
# --allow-build-tools skips the premise check, for a trial on a
# development machine (then remove the package with dpkg -r).
#
# Prints "deb-install: N passed, N failed".
set -euo pipefail

usage() {
	echo "usage: $0 [--allow-build-tools] PACKAGE.deb..." >&2
	exit 2
}

allow_build_tools=
debs=()
for arg in "$@"; do
	case $arg in
	--allow-build-tools) allow_build_tools=1 ;;
	-*) usage ;;
	*)
		# Absolute, before the cd below.
		case $arg in
		/*) debs+=("$arg") ;;
		*) debs+=("$PWD/$arg") ;;
		esac
		;;
	esac
done
[ "${#debs[@]}" -gt 0 ] || usage

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

if ! bf_is_root; then
	fail "must run as root (apt-get install, and the cluster runs as postgres)"
	check_summary deb-install
	exit 1
fi

# ---- the premise: nothing to build with ---------------------------------

tools=()
for t in gcc cc c99 clang make; do
	command -v "$t" >/dev/null 2>&1 && tools+=("$t")
done
if [ "${#tools[@]}" -eq 0 ]; then
	pass "no build tools (gcc, cc, c99, clang, make) on this system"
elif [ -n "$allow_build_tools" ]; then
	echo "skip build tools present (${tools[*]}): allowed by --allow-build-tools"
else
	fail "build tools present: ${tools[*]} (this test wants a system without them)"
fi

# ---- install --------------------------------------------------------------

majors=()
for deb in "${debs[@]}"; do
	if [ ! -f "$deb" ]; then
		fail "no such file: $deb"
		continue
	fi
	pkg=$(dpkg-deb -f "$deb" Package 2>/dev/null || true)
	if [[ $pkg =~ ^postgresql-([0-9]+)-bloomfilter$ ]]; then
		majors+=("${BASH_REMATCH[1]}")
	fi
done
if [ "${#majors[@]}" -eq 0 ]; then
	fail "no postgresql-N-bloomfilter package among: ${debs[*]}"
	check_summary deb-install
	exit 1
fi

# Made by scripts/lib.sh: removed on exit; readable by the server.
WORK=
bf_mktemp_dir WORK
chmod 755 "$WORK"

# As a user would: apt installs the package files and whatever they depend
# on that the system lacks (the server's JIT package, for one).
if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y \
	--no-install-recommends "${debs[@]}"; } >"$WORK/dpkg.log" 2>&1; then
	pass "apt-get install ${debs[*]##*/}"
else
	cat "$WORK/dpkg.log"
	fail "apt-get install ${debs[*]##*/}"
	check_summary deb-install
	exit 1
fi

# ---- each major's package ---------------------------------------------------

psql_q() {
	"$(bf_pg_bindir)/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"
}

# check_query LABEL EXPECTED SQL: the result of SQL is EXPECTED.
check_query() {
	local label=$1 expected=$2 sql=$3 got
	if got=$(psql_q -c "$sql" 2>&1) && [ "$got" = "$expected" ]; then
		pass "$label"
	else
		fail "$label: got '$got', want '$expected'"
	fi
}

version=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" bloomfilter.control)

test_major() {
	local n=$1 pkg=postgresql-$1-bloomfilter f missing=() owned scripts=()

	if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" = "install ok installed" ]; then
		pass "$pkg $(dpkg-query -W -f='${Version}' "$pkg") is installed"
	else
		fail "$pkg is not installed"
		return 0
	fi
	if ! bf_pkg_installed "postgresql-$n" || [ ! -x "/usr/lib/postgresql/$n/bin/postgres" ]; then
		fail "the PostgreSQL $n server (postgresql-$n) is not installed"
		return 0
	fi
	pass "the package's major is the installed server's: postgresql-$n $(dpkg-query -W -f='${Version}' "postgresql-$n")"

	# Every install and update script of the tree: the default version may
	# be reached through an update script rather than a script of its own.
	for f in bloomfilter--*.sql; do
		scripts+=("/usr/share/postgresql/$n/extension/$f")
	done
	for f in "/usr/lib/postgresql/$n/lib/bloomfilter.so" \
		"/usr/share/postgresql/$n/extension/bloomfilter.control" \
		"${scripts[@]}"; do
		if [ ! -f "$f" ]; then
			missing+=("$f (absent)")
		elif ! owned=$(dpkg -S "$f" 2>/dev/null) || [ "${owned%%:*}" != "$pkg" ]; then
			missing+=("$f (not $pkg's)")
		fi
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		pass "module, control file and the ${#scripts[@]} bloomfilter--*.sql scripts are $pkg's, in PostgreSQL $n's directories"
	else
		fail "files: ${missing[*]}"
	fi

	BF_PG_MAJOR=$n
	if ! bf_cluster_start >"$WORK/cluster-$n.log" 2>&1; then
		cat "$WORK/cluster-$n.log"
		fail "could not start a throw-away PostgreSQL $n cluster"
		return 0
	fi
	pass "throw-away PostgreSQL $n cluster started"

	check_query "pg_available_extensions offers bloomfilter $version" "$version" \
		"SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter'"
	if psql_q -c 'CREATE EXTENSION bloomfilter' >"$WORK/create-$n.log" 2>&1; then
		pass "CREATE EXTENSION bloomfilter"
	else
		cat "$WORK/create-$n.log"
		fail "CREATE EXTENSION bloomfilter"
	fi
	check_query "bloomfilter $version is installed in the database" "$version" \
		"SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"
	# The module a backend loads is the package's file (the backend's own
	# memory map; an explicit length, as /proc files have no size).
	if [ -r /proc/self/maps ]; then
		check_query "a backend loads /usr/lib/postgresql/$n/lib/bloomfilter.so" \
			"/usr/lib/postgresql/$n/lib/bloomfilter.so" \
			"WITH probe AS MATERIALIZED (SELECT 'x' <~ bloom_agg('x', 10) AS hit)
			 SELECT substring(pg_read_file('/proc/self/maps', 0, 4194304) FROM '/\\S*/bloomfilter\\.so')
			 FROM probe WHERE hit"
	else
		echo "skip no /proc here: not checking which module a backend loads"
	fi
	# The demo's first filter: the keys present match, durian does not.
	check_query "apple and banana <~ their filter, durian not" "t|t|f" \
		"SELECT 'apple' <~ f, 'banana' <~ f, 'durian' <~ f
		 FROM (SELECT bloom_agg(k, 10) AS f FROM (VALUES ('apple'), ('banana')) AS v(k)) AS s"
	check_query "the two-key filter is 8 bytes of bits and k = 6" "9|06" \
		"SELECT octet_length(f::text) / 2 - 1, right(f::text, 2)
		 FROM (SELECT bloom_agg(k, 10) AS f FROM (VALUES ('apple'), ('banana')) AS v(k)) AS s"

	if "$(bf_pg_bindir)/psql" -X -v ON_ERROR_STOP=1 -f examples/demo.sql >"$WORK/demo-$n.out" 2>&1; then
		pass "examples/demo.sql ran without error ($(wc -l <"$WORK/demo-$n.out") lines of output)"
	else
		tail -n 30 "$WORK/demo-$n.out"
		fail "examples/demo.sql stopped with an error"
	fi
	# What the demo left in its schema: 1,000,000 users in one filter.
	check_query "the demo's filter: 1,250,001 bytes over 1,000,000 users" "1000000|1250001" \
		"SELECT (SELECT count(*) FROM bloom_demo.users),
		        octet_length(filter::text) / 2 - 1
		 FROM bloom_demo.filters WHERE name = 'users'"
	check_query "the demo's lookups: no false negative among 50,000 users" "50000|0" \
		"SELECT count(*), count(*) FILTER (WHERE NOT l.key <~ f.filter)
		 FROM bloom_demo.lookups AS l, bloom_demo.filters AS f
		 WHERE f.name = 'users' AND l.is_user"
	check_query "the demo's lookups: LevelDB's 660 false positives among 50,000 absent keys" "50000|660" \
		"SELECT count(*), count(*) FILTER (WHERE l.key <~ f.filter)
		 FROM bloom_demo.lookups AS l, bloom_demo.filters AS f
		 WHERE f.name = 'users' AND NOT l.is_user"

	if bf_cluster_stop >"$WORK/stop-$n.log" 2>&1; then
		pass "cluster stopped"
	else
		cat "$WORK/stop-$n.log"
		fail "could not stop the cluster"
	fi
}

for n in $(printf '%s\n' "${majors[@]}" | sort -un); do
	test_major "$n"
done

check_summary deb-install
