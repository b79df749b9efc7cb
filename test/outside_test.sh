#!/usr/bin/env bash
#
# test/outside_test.sh TOOL PYDIR -- filters cross between SQL and the
# programs outside the database, both ways, for every kind of key.
#
#   TOOL   the bloomfilter tool (lib/bloomfilter)
#   PYDIR  a directory holding the built Python package bloomfilter
#          (python3 python/setup.py build --build-lib PYDIR)
#
# On a throw-away cluster of its own (scripts/lib.sh, the installed
# extension), for text, integer (bigint), uuid and multi-column keys:
#   - from SQL: bloom_agg's filter, fetched in its text form, is the filter
#     the tool and the module build from the same keys, byte for byte, and
#     both answer every probe as <~ does;
#   - into SQL: the filters the tool and the module build, loaded into a
#     bloomfilter column with \copy, are accepted, equal bloom_agg's, and
#     answer every probe through <~ as the tool and the module do;
#   - the module's MutableBloomFilter, sized by empty() and for_capacity()
#     and filled by add and update, is bloom_add's filter of the keys in
#     bloom_empty's, byte for byte;
#   - the tool's info --measure and the module's info(measure=True) give
#     bloom_info's seven figures; their plain info, its five counts.
# Multi-column keys: the module composes its tuples itself; the tool reads
# the bytes of SQL's bloom_key as hex, having no tuples of its own.
#
# Prints one line a check and "outside: N passed, N failed".

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

[ $# -eq 2 ] || {
	echo "usage: $0 TOOL PYDIR" >&2
	exit 2
}
TOOL=$(realpath "$1")
PYDIR=$(realpath "$2")

start_test_cluster outside
PSQL=("$(bf_pg_bindir)/psql" -X -q -At -v ON_ERROR_STOP=1)

"${PSQL[@]}" >/dev/null <<'SQL'
CREATE EXTENSION bloomfilter;
-- keys of every kind, each row a key; probes are the keys and as many others
CREATE TABLE text_keys AS
	SELECT 'key-' || i AS k FROM generate_series(1, 500) i
	UNION ALL SELECT 'ключ ' || i FROM generate_series(1, 20) i;
CREATE TABLE text_probes AS
	SELECT 'key-' || i AS k FROM generate_series(1, 1500) i
	UNION ALL SELECT 'ключ ' || i FROM generate_series(1, 40) i;
CREATE TABLE int_keys AS
	SELECT (i * 7919 - 2000000)::bigint AS k FROM generate_series(1, 600) i
	UNION ALL VALUES (0), (-1), (9223372036854775807), (-9223372036854775808);
CREATE TABLE int_probes AS
	SELECT (i * 7919 - 2000000)::bigint AS k FROM generate_series(1, 2400) i
	UNION ALL VALUES (0), (-1), (1), (9223372036854775807), (-9223372036854775808), (-9223372036854775807);
CREATE TABLE uuid_keys AS
	SELECT md5('u' || i)::uuid AS k FROM generate_series(1, 400) i;
CREATE TABLE uuid_probes AS
	SELECT md5('u' || i)::uuid AS k FROM generate_series(1, 1600) i;
-- a tenant and a name, NULL in either now and then
CREATE TABLE multi_keys AS
	SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE i % 5 END AS tenant,
	       CASE WHEN i % 13 = 0 THEN NULL ELSE 'user ' || i END AS name
	FROM generate_series(1, 400) i;
CREATE TABLE multi_probes AS
	SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE i % 5 END AS tenant,
	       CASE WHEN i % 13 = 0 THEN NULL ELSE 'user ' || i END AS name
	FROM generate_series(1, 1200) i
	UNION ALL VALUES (NULL::int, NULL::text), (1, ''), (2, 'user 2');
CREATE TABLE loaded (source text, kind text, f bloomfilter);
SQL

# The key-per-line input of the tool and the module, and the key
# expression in SQL, per kind.
key_lines() { # KIND TABLE
	case $1 in
	text) "${PSQL[@]}" -c "SELECT k FROM $2 ORDER BY k" ;;
	int) "${PSQL[@]}" -c "SELECT k FROM $2 ORDER BY k" ;;
	uuid) "${PSQL[@]}" -c "SELECT k FROM $2 ORDER BY k" ;;
	multi) "${PSQL[@]}" -c "SELECT encode(bloom_key(tenant, name), 'hex') FROM $2 ORDER BY 1" ;;
	esac
}
tool_type() {
	case $1 in text) echo text ;; int) echo int64 ;; uuid) echo uuid ;; multi) echo hex ;; esac
}
sql_key() {
	case $1 in multi) echo "bloom_key(tenant, name)" ;; *) echo k ;; esac
}
# The rows of a table as the module's keys: one JSON line a key.
py_keys_sql() { # KIND TABLE
	case $1 in
	multi) echo "SELECT json_build_array(tenant, name) FROM $2 ORDER BY bloom_key(tenant, name)" ;;
	*) echo "SELECT to_json(k) FROM $2 ORDER BY k" ;;
	esac
}

cat >"$WORK/module.py" <<'PY'
"""The module's side: build a filter from keys, or probe one with them.

usage: module.py build|reserve|probe KIND KEYS.json FILTER
Keys are one JSON value a line: a string (text), a number (int), a uuid's
string (uuid), or [tenant, name] (multi, a tuple of int or None and str
or None).  build writes the filter's text form to FILTER; reserve the
text forms of MutableBloomFilter.empty(1000, 7) and .for_capacity(1000,
0.01) with the keys added, a line each; probe reads
FILTER (raw or text) and prints true or false a key.
"""
import json
import sys
import uuid

import bloomfilter

mode, kind, keys_path, filter_path = sys.argv[1:]
with open(keys_path, encoding="utf-8") as f:
    values = [json.loads(line) for line in f if line.strip()]
if kind == "uuid":
    keys = [uuid.UUID(v) for v in values]
elif kind == "multi":
    keys = [tuple(v) for v in values]
else:
    keys = values
if mode == "build":
    with open(filter_path, "w", encoding="ascii") as f:
        f.write(bloomfilter.BloomFilter.build(keys, 10).to_text() + "\n")
elif mode == "reserve":
    # sized first, keys added after: half one by one, half by update
    lines = []
    for m in (bloomfilter.MutableBloomFilter.empty(1000, 7),
              bloomfilter.MutableBloomFilter.for_capacity(1000, 0.01)):
        for k in keys[:len(keys) // 2]:
            m.add(k)
        m.update(keys[len(keys) // 2:])
        lines.append(m.to_text())
    with open(filter_path, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
else:
    with open(filter_path, "rb") as f:
        bf = bloomfilter.BloomFilter.from_bytes(f.read())
    for answer in bf.may_contain_many(keys):
        print("true" if answer else "false")
PY
module() { PYTHONPATH=$PYDIR python3 "$WORK/module.py" "$@"; }

same() { # MESSAGE FILE FILE
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1 ($(diff "$2" "$3" | head -n 4 | tr '\n' ' '))"
	fi
}

for kind in text int uuid multi; do
	d=$WORK/$kind
	mkdir -p "$d"
	key=$(sql_key "$kind")
	key_lines "$kind" "${kind}_keys" >"$d/keys.txt"
	key_lines "$kind" "${kind}_probes" >"$d/probes.txt"
	"${PSQL[@]}" -c "$(py_keys_sql "$kind" "${kind}_keys")" >"$d/keys.json"
	"${PSQL[@]}" -c "$(py_keys_sql "$kind" "${kind}_probes")" >"$d/probes.json"

	# ---- from SQL ----
	"${PSQL[@]}" -c "SELECT bloom_agg($key, 10) FROM ${kind}_keys" >"$d/sql.txt"
	# <~'s answers, in the probes' order (the order of their lines above)
	if [ "$kind" = multi ]; then order="ORDER BY bloom_key(tenant, name)"; else order="ORDER BY k"; fi
	"${PSQL[@]}" -c "SELECT $key <~ (SELECT bloom_agg($key, 10) FROM ${kind}_keys) FROM ${kind}_probes $order" |
		sed 's/^t$/true/; s/^f$/false/' >"$d/sql-answers.txt"

	"$TOOL" build --bits-per-key 10 --key-type "$(tool_type "$kind")" --output-format text "$d/keys.txt" >"$d/tool.txt"
	same "$kind keys: the tool builds bloom_agg's filter, byte for byte" "$d/sql.txt" "$d/tool.txt"
	module build "$kind" "$d/keys.json" "$d/module.txt"
	same "$kind keys: the module builds bloom_agg's filter, byte for byte" "$d/sql.txt" "$d/module.txt"

	# reserved filters: bloom_add of the keys to bloom_empty, and the module's add
	"${PSQL[@]}" -c "SELECT bloom_add(bloom_empty(1000, 7), (SELECT array_agg($key) FROM ${kind}_keys))
		UNION ALL SELECT bloom_add(bloom_empty(1000, bloom_bits_per_key(0.01)), (SELECT array_agg($key) FROM ${kind}_keys))" >"$d/sql-reserved.txt"
	module reserve "$kind" "$d/keys.json" "$d/module-reserved.txt"
	same "$kind keys: the module's add to empty() and for_capacity() is bloom_add's to bloom_empty, byte for byte" \
		"$d/sql-reserved.txt" "$d/module-reserved.txt"

	"$TOOL" probe --key-type "$(tool_type "$kind")" "$d/sql.txt" <"$d/probes.txt" | cut -f2 >"$d/tool-answers.txt"
	same "$kind keys: the tool answers as <~ on bloom_agg's filter ($(wc -l <"$d/probes.txt") probes)" \
		"$d/sql-answers.txt" "$d/tool-answers.txt"
	module probe "$kind" "$d/probes.json" "$d/sql.txt" >"$d/module-answers.txt"
	same "$kind keys: the module answers as <~ on bloom_agg's filter" "$d/sql-answers.txt" "$d/module-answers.txt"
	# bloom_info's figures, to the last bit of each double
	"${PSQL[@]}" -F $'\t' -c "SELECT bytes, bits, k, bits_set, fill_ratio, estimated_keys, false_positive_rate
		FROM bloom_info((SELECT bloom_agg($key, 10) FROM ${kind}_keys))" >"$d/sql-info.txt"
	"$TOOL" info --measure "$d/sql.txt" | cut -f2 | paste -s >"$d/tool-info.txt"
	"$TOOL" info "$d/sql.txt" | cut -f2 | paste -s >"$d/tool-counts.txt"
	# (from $WORK: the tree's root holds the extension's bloomfilter.so)
	for measure in True False; do
		(cd "$WORK" && PYTHONPATH=$PYDIR python3 -c 'import sys, bloomfilter
i = bloomfilter.BloomFilter.from_bytes(open(sys.argv[1], "rb").read()).info(measure=sys.argv[2] == "True")
print("\t".join(repr(i[n]) for n in ("bytes", "bits", "k", "bits_set", "fill_ratio", "estimated_keys", "false_positive_rate")))' \
			"$d/sql.txt" $measure) >"$d/module-$measure.txt"
	done
	mv "$d/module-True.txt" "$d/module-info.txt"
	mv "$d/module-False.txt" "$d/module-counts.txt"
	for source in tool module; do
		if python3 -c 'import sys
a, b = (open(f).read().split() for f in sys.argv[1:])
sys.exit(not (len(a) == 7 and [float(x) for x in a] == [float(x) for x in b]))' "$d/sql-info.txt" "$d/$source-info.txt"; then
			pass "$kind keys: the $source's measured info is bloom_info's, every figure"
		else
			fail "$kind keys: the $source's measured info is bloom_info's ($(cat "$d/sql-info.txt") vs $(cat "$d/$source-info.txt"))"
		fi
		if python3 -c 'import sys
a, b = (open(f).read().split() for f in sys.argv[1:])
sys.exit(not (len(a) == 7 and [float(x) for x in a[:5]] == [float(x) for x in b[:5]]))' "$d/sql-info.txt" "$d/$source-counts.txt"; then
			pass "$kind keys: the $source's plain info has bloom_info's counts"
		else
			fail "$kind keys: the $source's plain info has bloom_info's counts ($(cat "$d/sql-info.txt") vs $(cat "$d/$source-counts.txt"))"
		fi
	done
	if grep -q false "$d/sql-answers.txt" && grep -q true "$d/sql-answers.txt"; then
		pass "$kind keys: the probes have both answers"
	else
		fail "$kind keys: the probes have both answers"
	fi

	# ---- into SQL: built outside, loaded with \copy as a user would ----
	"$TOOL" build --bits-per-key 10 --key-type "$(tool_type "$kind")" -o "$d/tool.raw" "$d/keys.txt"
	module build "$kind" "$d/keys.json" "$d/module-built.txt"
	# The text form is COPY's input for a bloomfilter column; \x doubles there.
	sed 's/\\/\\\\/' "$d/tool.txt" | sed "s/^/tool\t$kind\t/" >"$d/load.tsv"
	sed 's/\\/\\\\/' "$d/module-built.txt" | sed "s/^/module\t$kind\t/" >>"$d/load.tsv"
	if "${PSQL[@]}" -c "\\copy loaded FROM '$d/load.tsv'"; then
		pass "$kind keys: the tool's and the module's filters load into a bloomfilter column"
	else
		fail "$kind keys: the tool's and the module's filters load into a bloomfilter column"
		continue
	fi
	got=$("${PSQL[@]}" -c "SELECT count(*) FILTER (WHERE f = (SELECT bloom_agg($key, 10) FROM ${kind}_keys)) FROM loaded WHERE kind = '$kind'")
	[ "$got" = 2 ] && pass "$kind keys: both loaded filters equal bloom_agg's" ||
		fail "$kind keys: both loaded filters equal bloom_agg's ($got of 2)"
	for source in tool module; do
		"${PSQL[@]}" -c "SELECT $key <~ (SELECT f FROM loaded WHERE kind = '$kind' AND source = '$source') FROM ${kind}_probes $order" |
			sed 's/^t$/true/; s/^f$/false/' >"$d/loaded-$source.txt"
	done
	"$TOOL" probe --key-type "$(tool_type "$kind")" "$d/tool.raw" <"$d/probes.txt" | cut -f2 >"$d/tool-raw-answers.txt"
	same "$kind keys: <~ on the tool's loaded filter answers as the tool" "$d/tool-raw-answers.txt" "$d/loaded-tool.txt"
	module probe "$kind" "$d/probes.json" "$d/module-built.txt" >"$d/module-own-answers.txt"
	same "$kind keys: <~ on the module's loaded filter answers as the module" "$d/module-own-answers.txt" "$d/loaded-module.txt"
	missing=$("${PSQL[@]}" -c "SELECT count(*) FROM ${kind}_keys, loaded WHERE kind = '$kind' AND NOT ($key <~ f)")
	[ "$missing" = 0 ] && pass "$kind keys: every key is found in both loaded filters" ||
		fail "$kind keys: every key is found in both loaded filters ($missing misses)"
done

check_summary outside
