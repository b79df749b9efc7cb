#!/usr/bin/env bash
#
# test/meta_test.sh -- the PGXN distribution: META.json is valid, its
# versions are the control file's default_version (as a semantic version:
# '1.0' is 1.0.0), each extension's file is the script that makes that
# version, what it names exists (the docfile included), and `make
# dist` makes bloomfilter-VERSION.zip with the files PGXN needs and the
# documentation.
#
# `make dist` archives a commit.  When the working tree has uncommitted
# changes to tracked files, this test archives `git stash create`'s commit
# of them instead of HEAD (that command changes nothing); files git does not
# track yet are in neither, so only tracked files are looked for.
#
# Prints "meta: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

default_version=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" bloomfilter.control)
# '1.0' -> 1.0.0, '1.2.3' stays
semver=$default_version
while [ "$(tr -cd . <<<"$semver" | wc -c)" -lt 2 ]; do semver=$semver.0; done

# meta QUERY: a value of META.json, by a Python expression over m
meta() {
	python3 -c 'import json, sys; m = json.load(open("META.json")); print(eval(sys.argv[1]))' "$1"
}

if meta 'm["name"]' >/dev/null 2>&1; then
	pass "META.json is valid JSON"
else
	fail "META.json is not valid JSON"
	check_summary meta
	exit 1
fi

for key in name abstract version maintainer license provides prereqs meta-spec tags release_status; do
	if [ "$(meta "'$key' in m")" = True ]; then
		pass "META.json has $key"
	else
		fail "META.json lacks $key"
	fi
done
[ "$(meta 'm["meta-spec"]["version"]')" = 1.0.0 ] && pass "meta-spec 1.0.0" || fail "meta-spec is not 1.0.0"
[ "$(meta 'm["name"]')" = bloomfilter ] && pass "name is bloomfilter" || fail "name is not bloomfilter"

version=$(meta 'm["version"]')
if [ "$version" = "$semver" ]; then
	pass "version $version is default_version '$default_version'"
else
	fail "version $version, but default_version is '$default_version' ($semver)"
fi
while IFS=$'\t' read -r ext ver file; do
	if [ "$ver" = "$semver" ]; then
		pass "provides $ext: version $ver is default_version"
	else
		fail "provides $ext: version $ver, but default_version is '$default_version' ($semver)"
	fi
	# the script that makes default_version: the version's own install
	# script, or the update script into it (a fresh install runs the chain
	# from the newest install script up to it)
	if [ "$file" = "$ext--$default_version.sql" ] ||
		[[ $file == "$ext--"*"--$default_version.sql" ]]; then
		pass "provides $ext: file $file is the script that makes version $default_version"
	else
		fail "provides $ext: file $file is not $ext--$default_version.sql or an update script to $default_version"
	fi
	if [ -f "$file" ] && grep -qE "^DATA *=.*\b${file//./\\.}\b" Makefile; then
		pass "provides $ext: $file exists and is installed (Makefile DATA)"
	else
		fail "provides $ext: $file is missing or not in the Makefile's DATA"
	fi
done < <(meta '"\n".join(k + "\t" + v["version"] + "\t" + v["file"] for k, v in m["provides"].items())')
# each extension's docfile (PGXN's page for it) is there
while IFS=$'\t' read -r ext doc; do
	if [ -z "$doc" ]; then
		fail "provides $ext: no docfile"
	elif [ -f "$doc" ]; then
		pass "provides $ext: docfile $doc exists"
	else
		fail "provides $ext: docfile $doc is missing"
	fi
done < <(meta '"\n".join(k + "\t" + v.get("docfile", "") for k, v in m["provides"].items())')
if [ "$(meta 'm["prereqs"]["runtime"]["requires"]["PostgreSQL"]')" = 13.0.0 ]; then
	pass "prereqs: PostgreSQL >= 13.0.0"
else
	fail "prereqs do not say PostgreSQL >= 13.0.0"
fi

# make dist, into a scratch directory
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-dist.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
ref=$(git stash create 2>/dev/null || true)
ref=${ref:-HEAD}
zip=bloomfilter-$version.zip
if make -s PG_CONFIG="$(bf_pg_config)" dist DIST_REF="$ref" >"$work/dist.log" 2>&1 && [ -f "$zip" ]; then
	mv "$zip" "$work/"
	pass "make dist made $zip ($(wc -c <"$work/$zip") bytes, from ${ref:0:12})"
	listing=$(python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$work/$zip")
	# the README, and the documentation git tracks (doc/, the changelog)
	for f in META.json bloomfilter.control Makefile README.md LICENSE src/core/bloom_core.h \
		$(meta '" ".join(v["file"] for v in m["provides"].values())') \
		$(git ls-files CHANGELOG.md CONTRIBUTING.md doc); do
		if ! git ls-files --error-unmatch "$f" >/dev/null 2>&1; then
			fail "$f is not tracked by git, so make dist leaves it out"
		elif grep -qxF "bloomfilter-$version/$f" <<<"$listing"; then
			pass "$zip holds bloomfilter-$version/$f"
		else
			fail "$zip lacks bloomfilter-$version/$f"
		fi
	done
else
	cat "$work/dist.log"
	fail "make dist did not make $zip"
fi

check_summary meta
