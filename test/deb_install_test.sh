#!/usr/bin/env bash
#
# test/deb_install_test.sh -- the .debs of the Debian source (the
# postgresql-N-bloomfilter extension, libbloomfilter1, libbloomfilter-dev,
# bloomfilter-tools, python3-bloomfilter) work on a system that has the
# PostgreSQL N server and no build tools.
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
#   - for libbloomfilter1, libbloomfilter-dev, bloomfilter-tools and
#     python3-bloomfilter (without compiling: there is no compiler): their
#     files landed and are theirs (the shared library and its soname link,
#     the header, libbloomfilter.so, libbloomfilter.a, bloomfilter.pc naming
#     the library's directory, /usr/bin/bloomfilter and its manual page,
#     the module);
#     the dynamic linker finds libbloomfilter.so.1 (through Python's ctypes,
#     with python3-bloomfilter); bloomfilter --version; a filter the tool
#     builds from three keys answers for them and not for absent keys; the
#     module imports from /usr/lib/python3/dist-packages, and its filter for
#     the same keys is the tool's, byte for byte;
#   - for each postgresql-N-bloomfilter among them: checks that the server
#     of major N is installed and that the module, control file and the
#     tree's bloomfilter--*.sql scripts landed in its directories and
#     belong to the package; starts a throw-away cluster of major N
#     (scripts/lib.sh); runs CREATE EXTENSION bloomfilter and a few probes,
#     then examples/demo.sql with ON_ERROR_STOP and checks what it built;
#     with bloomfilter-tools and python3-bloomfilter among the packages,
#     the round trip on that cluster: filters bloom_agg builds over text
#     and bigint keys, fetched with psql in their text form, answer in the
#     tool and the module as <~ answers, and are the bytes the tool and the
#     module build for those keys; a filter the module builds, loaded with
#     psql, answers <~ as the module does; stops the cluster.
#
# The packages stay installed: the chroot is thrown away afterwards.
# --allow-build-tools skips the premise check, for a trial on a
# development machine (then remove the packages with dpkg -r).
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
# The other packages given: libbloomfilter1 libbloomfilter-dev ...
declare -A given=()
for deb in "${debs[@]}"; do
	if [ ! -f "$deb" ]; then
		fail "no such file: $deb"
		continue
	fi
	pkg=$(dpkg-deb -f "$deb" Package 2>/dev/null || true)
	if [[ $pkg =~ ^postgresql-([0-9]+)-bloomfilter$ ]]; then
		majors+=("${BASH_REMATCH[1]}")
	else
		given[$pkg]=1
	fi
done
has_pkg() { [ -n "${given[$1]:-}" ]; }
if [ "${#majors[@]}" -eq 0 ] && [ "${#given[@]}" -eq 0 ]; then
	fail "no bloomfilter package among: ${debs[*]}"
	check_summary deb-install
	exit 1
fi
for pkg in "${!given[@]}"; do
	case $pkg in
	libbloomfilter1 | libbloomfilter-dev | bloomfilter-tools | python3-bloomfilter) ;;
	*) fail "$pkg: not a package of this source (installed all the same)" ;;
	esac
done

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

# ---- the library, the tool and the module ------------------------------------

# /usr/bin's, not one PATH may put first; -I: no PYTHON* variables, no user
# site, and not the current directory (the source tree) on sys.path.
TOOL=/usr/bin/bloomfilter
PY=(/usr/bin/python3 -I)
KEYS=(apple banana cherry)
# Present keys and absent ones (none of which the 3-key filter matches).
PROBES=(apple banana cherry durian elderberry fig grape)

# files_of PKG FILE...: each FILE exists (a link: resolves) and is PKG's.
files_of() {
	local pkg=$1 f owned missing=()
	shift
	for f in "$@"; do
		if [ ! -e "$f" ]; then
			missing+=("$f (absent)")
		elif ! owned=$(dpkg -S "$f" 2>/dev/null) || [ "${owned%%:*}" != "$pkg" ]; then
			missing+=("$f (not $pkg's)")
		fi
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		pass "$pkg: $* landed and are $pkg's"
	else
		fail "$pkg files: ${missing[*]}"
	fi
}

# py_probe FILTER_FILE KEY_TYPE KEY...: the module's answers, as the tool's
# probe prints them ("KEY<TAB>true").
py_probe() {
	"${PY[@]}" - "$@" <<'EOF'
import sys, bloomfilter
path, key_type, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(path, "rb") as fh:
    f = bloomfilter.BloomFilter.from_bytes(fh.read())
for k in keys:
    print("%s\t%s" % (k, "true" if f.may_contain(int(k) if key_type == "int64" else k) else "false"))
EOF
}

# py_build_text BITS_PER_KEY KEY_TYPE KEY...: the module's filter, text form.
py_build_text() {
	"${PY[@]}" - "$@" <<'EOF'
import sys, bloomfilter
bits, key_type, keys = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
if key_type == "int64":
    keys = [int(k) for k in keys]
print(bloomfilter.BloomFilter.build(keys, bits).to_text())
EOF
}

libdir=
test_library_packages() {
	local f got want pc rc

	if has_pkg libbloomfilter1; then
		# The multiarch directory is the one the package put the library in.
		f=$(dpkg -L libbloomfilter1 2>/dev/null | grep -E '^/usr/lib/[^/]+/libbloomfilter\.so\.1$' | head -n 1 || true)
		libdir=${f%/*}
		if [ -n "$libdir" ]; then
			files_of libbloomfilter1 "$libdir/libbloomfilter.so.1" "$(readlink -f "$libdir/libbloomfilter.so.1")"
		else
			fail "libbloomfilter1 has no /usr/lib/<multiarch>/libbloomfilter.so.1"
		fi
	fi
	if has_pkg libbloomfilter-dev; then
		[ -n "$libdir" ] || libdir=$(dirname "$(dpkg -L libbloomfilter-dev 2>/dev/null | grep -E '/libbloomfilter\.a$' | head -n 1 || echo /nonexistent/x)")
		files_of libbloomfilter-dev /usr/include/bloomfilter.h "$libdir/libbloomfilter.so" \
			"$libdir/libbloomfilter.a" "$libdir/pkgconfig/bloomfilter.pc"
		# What pkg-config would say, read without it (no pkg-config here).
		pc=$libdir/pkgconfig/bloomfilter.pc
		# shellcheck disable=SC2016 # ${libdir} is the .pc file's own variable
		if [ -f "$pc" ] && grep -qx "libdir=$libdir" "$pc" && grep -qx 'includedir=/usr/include' "$pc" &&
			grep -qx 'Libs: -L${libdir} -lbloomfilter' "$pc"; then
			pass "bloomfilter.pc: libdir=$libdir, includedir=/usr/include, -lbloomfilter"
		else
			fail "bloomfilter.pc does not name $libdir, /usr/include and -lbloomfilter: $(cat "$pc" 2>/dev/null)"
		fi
		if [ "$(readlink -f "$libdir/libbloomfilter.so")" = "$(readlink -f "$libdir/libbloomfilter.so.1")" ]; then
			pass "libbloomfilter.so links to the shared library ($(readlink -f "$libdir/libbloomfilter.so"))"
		else
			fail "libbloomfilter.so resolves to '$(readlink -f "$libdir/libbloomfilter.so")', not libbloomfilter.so.1's file"
		fi
		want=$(sed -n 's/^#define[[:space:]]*BLOOMFILTER_VERSION[[:space:]]*"\(.*\)".*/\1/p' /usr/include/bloomfilter.h)
		if [ -n "$want" ] && grep -qx "Version: $want" "$pc"; then
			pass "bloomfilter.pc's version is the header's ($want)"
		else
			fail "bloomfilter.pc's version is not the header's ('$want')"
		fi
	fi
	if has_pkg bloomfilter-tools; then
		files_of bloomfilter-tools "$TOOL" /usr/share/man/man1/bloomfilter.1.gz
		want=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" bloomfilter.control)
		if got=$("$TOOL" --version 2>&1) && [[ $got == "bloomfilter $want"* ]]; then
			pass "bloomfilter --version: $got"
		else
			fail "bloomfilter --version: got '$got', want 'bloomfilter $want...'"
		fi
		if printf '%s\n' "${KEYS[@]}" | "$TOOL" build --bits-per-key 10 -o "$WORK/tool3.bin" 2>"$WORK/tool.err" &&
			got=$("$TOOL" probe "$WORK/tool3.bin" "${PROBES[@]}" 2>&1) &&
			[ "$got" = "$(printf '%s\ttrue\n' "${KEYS[@]}"; printf '%s\tfalse\n' "${PROBES[@]:3}")" ]; then
			pass "the tool's filter of ${KEYS[*]} answers true for them, false for ${PROBES[*]:3}"
		else
			fail "the tool's 3-key filter: $(cat "$WORK/tool.err") $got"
		fi
		rc=0
		"$TOOL" probe "$WORK/tool3.bin" durian >/dev/null 2>&1 || rc=$?
		if "$TOOL" probe "$WORK/tool3.bin" apple >/dev/null 2>&1 && [ "$rc" -eq 1 ]; then
			pass "bloomfilter probe's exit status: 0 for apple, 1 for durian"
		else
			fail "bloomfilter probe's exit status for durian: $rc, not 1 (or apple's not 0)"
		fi
	fi
	if has_pkg python3-bloomfilter; then
		f=$("${PY[@]}" -c 'import bloomfilter._bloomfilter as m; print(m.__file__)' 2>&1 || true)
		case $f in
		/usr/lib/python3/dist-packages/bloomfilter/_bloomfilter.cpython-*.so)
			files_of python3-bloomfilter /usr/lib/python3/dist-packages/bloomfilter/__init__.py "$f"
			pass "python3 imports bloomfilter from the package: $f"
			;;
		*) fail "python3 -c 'import bloomfilter._bloomfilter': $f" ;;
		esac
		if got=$("${PY[@]}" -c '
import bloomfilter
f = bloomfilter.BloomFilter.build(["apple", "banana", "cherry"], 10)
print(all(f.may_contain(k) for k in ("apple", "banana", "cherry")),
      any(f.may_contain(k) for k in ("durian", "elderberry", "fig", "grape")),
      f.may_contain_many(["apple", "durian"]) == [True, False],
      bloomfilter.BloomFilter.from_bytes(f.to_text()) == f)' 2>&1) &&
			[ "$got" = "True False True True" ]; then
			pass "the module: BloomFilter.build([...], 10).may_contain answers for the keys and not for absent ones"
		else
			fail "the module's 3-key filter: '$got'"
		fi
		if has_pkg bloomfilter-tools; then
			if got=$(py_build_text 10 text "${KEYS[@]}" 2>&1) &&
				want=$(printf '%s\n' "${KEYS[@]}" | "$TOOL" build --bits-per-key 10 --output-format text 2>&1) &&
				[ "$got" = "$want" ]; then
				pass "the module's filter of ${KEYS[*]} is the tool's, byte for byte ($got)"
			else
				fail "the module's filter '$got' is not the tool's '$want'"
			fi
		fi
		if has_pkg libbloomfilter1 && [ -n "$libdir" ]; then
			# The dynamic linker's cache (dpkg's ldconfig trigger) knows the
			# soname; the library's own version is the header's.
			if got=$("${PY[@]}" -c '
import ctypes
lib = ctypes.CDLL("libbloomfilter.so.1")
lib.bloomfilter_version.restype = ctypes.c_char_p
print(lib.bloomfilter_version().decode())' 2>&1) && [[ $got =~ ^[0-9]+\.[0-9]+ ]]; then
				pass "the dynamic linker loads libbloomfilter.so.1 by its soname; bloomfilter_version() = $got"
			else
				fail "loading libbloomfilter.so.1 by its soname: $got"
			fi
		fi
	fi
}

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

	round_trip "$n"

	if bf_cluster_stop >"$WORK/stop-$n.log" 2>&1; then
		pass "cluster stopped"
	else
		cat "$WORK/stop-$n.log"
		fail "could not stop the cluster"
	fi
}

# sql_answers N KEY_TYPE FILTER_SQL KEY...: "KEY<TAB>true|false" for each KEY
# as <~ answers against FILTER_SQL (an expression), KEY_TYPE text or bigint.
sql_answers() {
	local n=$1 type=$2 filter=$3 k list=
	shift 3
	for k in "$@"; do
		list+="${list:+, }'$k'"
	done
	psql_q -c "SELECT k || E'\t' || (k::$type <~ ($filter))::text
		FROM unnest(ARRAY[$list]::text[]) WITH ORDINALITY AS p(k, i) ORDER BY i"
}

# round_trip N: on the running cluster of major N, filters go from SQL to
# the tool and the module, and from the module to SQL.
round_trip() {
	local n=$1 type ktype k list keys probes agg sqltext want got from_py
	if ! has_pkg bloomfilter-tools && ! has_pkg python3-bloomfilter; then
		echo "skip the round trip with the tool and the module: neither bloomfilter-tools nor python3-bloomfilter given"
		return 0
	fi
	for type in text bigint; do
		if [ "$type" = text ]; then
			keys=(apple banana cherry) probes=(apple banana cherry durian elderberry fig grape kiwi)
			ktype=text
		else
			keys=(1 42 -7 9000000000) probes=(1 42 -7 9000000000 0 2 -1 43 1000)
			ktype=int64
		fi
		list=
		for k in "${keys[@]}"; do list+="${list:+, }('$k'::$type)"; done
		agg="SELECT bloom_agg(k, 10) FROM (VALUES $list) AS v(k)"
		if ! sqltext=$(psql_q -c "$agg" 2>&1) || [[ $sqltext != '\x'* ]]; then
			fail "pg$n: $agg: $sqltext"
			continue
		fi
		printf '%s\n' "$sqltext" >"$WORK/sql-$type-$n.txt"
		if ! want=$(sql_answers "$n" "$type" "$agg" "${probes[@]}" 2>&1); then
			fail "pg$n: <~ against the $type filter: $want"
			continue
		fi
		if has_pkg bloomfilter-tools; then
			if got=$("$TOOL" probe --key-type "$ktype" "$WORK/sql-$type-$n.txt" -- "${probes[@]}" 2>&1) &&
				[ "$got" = "$want" ]; then
				pass "pg$n: bloom_agg's filter over ${#keys[@]} $type keys, fetched with psql: the tool answers as <~ for ${#probes[@]} keys"
			else
				fail "pg$n: the tool's answers for bloom_agg's $type filter: '$got', <~'s: '$want'"
			fi
			if got=$(printf '%s\n' "${keys[@]}" | "$TOOL" build --bits-per-key 10 --key-type "$ktype" --output-format text 2>&1) &&
				[ "$got" = "$sqltext" ]; then
				pass "pg$n: the tool builds bloom_agg's $type filter byte for byte"
			else
				fail "pg$n: the tool's $type filter '$got' is not bloom_agg's '$sqltext'"
			fi
		fi
		if has_pkg python3-bloomfilter; then
			if got=$(py_probe "$WORK/sql-$type-$n.txt" "$ktype" "${probes[@]}" 2>&1) && [ "$got" = "$want" ]; then
				pass "pg$n: the module answers as <~ for bloom_agg's $type filter"
			else
				fail "pg$n: the module's answers for bloom_agg's $type filter: '$got', <~'s: '$want'"
			fi
			if got=$(py_build_text 10 "$ktype" "${keys[@]}" 2>&1) && [ "$got" = "$sqltext" ]; then
				pass "pg$n: the module builds bloom_agg's $type filter byte for byte"
			else
				fail "pg$n: the module's $type filter '$got' is not bloom_agg's '$sqltext'"
			fi
			# The other way: the module's filter of other keys, into SQL.
			if [ "$type" = text ]; then
				keys=(kiwi lemon mango nectarine)
			else
				keys=(7 -8 123456789012 5)
			fi
			if ! from_py=$(py_build_text 10 "$ktype" "${keys[@]}" 2>&1) || [[ $from_py != '\x'* ]]; then
				fail "pg$n: the module's $type filter of ${keys[*]}: $from_py"
				continue
			fi
			printf '%s\n' "$from_py" >"$WORK/py-$type-$n.txt"
			if got=$(sql_answers "$n" "$type" "'$from_py'::bloomfilter" "${probes[@]}" "${keys[@]}" 2>&1) &&
				want=$(py_probe "$WORK/py-$type-$n.txt" "$ktype" "${probes[@]}" "${keys[@]}" 2>&1) &&
				[ "$got" = "$want" ] &&
				[ "$(printf '%s\n' "$got" | tail -n "${#keys[@]}" | grep -c $'\ttrue$')" = "${#keys[@]}" ]; then
				pass "pg$n: the module's $type filter, loaded with psql, answers <~ as the module does (its ${#keys[@]} keys: true)"
			else
				fail "pg$n: the module's $type filter in SQL: <~ '$got', the module '$want'"
			fi
			if got=$(psql_q -c "SELECT '$from_py'::bloomfilter::text" 2>&1) && [ "$got" = "$from_py" ]; then
				pass "pg$n: the module's $type filter is the same bytes in SQL"
			else
				fail "pg$n: the module's $type filter in SQL reads back as '$got', not '$from_py'"
			fi
		fi
	done
}

test_library_packages

for n in $(printf '%s\n' "${majors[@]+"${majors[@]}"}" | sort -un); do
	test_major "$n"
done

check_summary deb-install
