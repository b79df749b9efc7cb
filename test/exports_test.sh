#!/usr/bin/env bash
#
# test/exports_test.sh -- the built module exports the SQL-callable functions
# and nothing else.
#
# PostgreSQL loads a module with RTLD_GLOBAL: every symbol it exports can
# bind to, or be bound by, a same-named symbol of another loaded module.  So
# the core and glue functions must stay hidden (BLOOM_BEGIN_PRIVATE in the
# headers), while each function the extension script names for LANGUAGE C,
# with its pg_finfo_ record, and Pg_magic_func must be exported; _PG_init
# (which defines the bloomfilter.* settings) may be; nothing else.
#
#   test/exports_test.sh [MODULE.so [SCRIPT.sql...]]  (default: every bloomfilter--*.sql)
#
# Prints "exports: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

so=${1:-bloomfilter.so}
shift || true
scripts=("$@")
[ "${#scripts[@]}" -gt 0 ] || scripts=(bloomfilter--*.sql)

# The C symbol of each LANGUAGE C function: the function's own name unless
# AS 'MODULE_PATHNAME', 'symbol' names another.
mapfile -t wanted < <(cat "${scripts[@]}" | tr '\n' ' ' |
	grep -oE "CREATE FUNCTION [a-z_0-9]+\([^)]*\)[^;]*AS 'MODULE_PATHNAME'(, *'[a-z_0-9]+')?" |
	sed -E "s/^CREATE FUNCTION ([a-z_0-9]+)\(.*'MODULE_PATHNAME'(, *'([a-z_0-9]+)')?$/\1 \3/" |
	awk '{print ($2 != "") ? $2 : $1}' | sort -u)
mapfile -t exported < <(nm -D --defined-only "$so" | awk '{print $3}' | sort -u)

if [ "${#wanted[@]}" -gt 0 ]; then
	pass "the extension scripts name ${#wanted[@]} C functions"
else
	fail "found no LANGUAGE C function in ${scripts[*]}"
fi

declare -A is_exported=()
for sym in "${exported[@]}"; do is_exported[$sym]=1; done
missing=()
for fn in "${wanted[@]}"; do
	[ -n "${is_exported[$fn]:-}" ] && [ -n "${is_exported[pg_finfo_$fn]:-}" ] || missing+=("$fn")
done
if [ "${#missing[@]}" -eq 0 ]; then
	pass "every C function of the extension scripts is exported with its pg_finfo_ record"
else
	fail "not exported: ${missing[*]}"
fi

declare -A allowed=([Pg_magic_func]=1 [_PG_init]=1)
for fn in "${wanted[@]}"; do allowed[$fn]=1 allowed[pg_finfo_$fn]=1; done
extra=()
for sym in "${exported[@]}"; do
	[ -n "${allowed[$sym]:-}" ] || extra+=("$sym")
done
if [ "${#extra[@]}" -eq 0 ]; then
	pass "$so exports nothing else (${#exported[@]} symbols)"
else
	fail "$so also exports: ${extra[*]}"
fi

check_summary exports
