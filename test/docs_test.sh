#!/usr/bin/env bash
#
# test/docs_test.sh -- the documentation's examples run, and its links
# resolve.
#
#   test/docs_test.sh              every file below
#   test/docs_test.sh FILE...      these Markdown files only
#   test/docs_test.sh --keep       leave the databases in place
#   test/docs_test.sh --write-images   remake doc/img/ from the blocks
#
# SQL.  Every fenced block whose info string is exactly `sql` in README.md,
# CONTRIBUTING.md, CHANGELOG.md, bench/README.md, python/README.md and
# doc/*.md is run, in file order, by psql -v ON_ERROR_STOP=1, in a fresh
# database per file (docs_test_<file>, made empty: a file's first block
# creates the extension).  The blocks of one file share that database, so
# a later block may use the tables of an earlier one; each block is one
# psql session.  A block that fails (an error, a psql error, a missing
# object) is a failed test, and the next blocks of the file still run.
# The server is the one the PG* environment points at; the extension must
# be installed there (make install).  A statement, and a program block,
# may take BLOOM_DOCS_TIMEOUT seconds (default 120).
#
# A block that cannot run on one server is marked by its info string:
#   ```sql fdw          statements of doc/distributed.md that
#                       test/t/020_postgres_fdw.pl runs on its local cluster
#   ```sql fdw remote   the same, run on each of its remote clusters
#   ```sql citus        the same for test/t/021_citus.pl, on its coordinator
# Those are not run here.  This test checks that the test named reads the
# file the block is in, and that no other info string starting with `sql`
# is used (a typo would otherwise skip a block silently).
#
# Programs.  Blocks of the tool, the Python module and the C library run too,
# marked by a second word in their info string:
#   ```sh run           run by bash -e -o pipefail
#   ```python run       run by python3
#   ```LANG file NAME   not run: written to NAME, for a later block (a C
#                       program that an `sh run` block compiles, a key file)
# A plain ```sh, ```python or ```c block is shown only (commands that
# install, say), and any other second word fails.  When the files have such
# blocks, the test first builds lib/ (make -C lib, on a copy of the
# sources) and installs it into a temporary root, and builds the Python
# module into a temporary directory;
# the blocks then find the tool on PATH, the module on PYTHONPATH, the
# library through pkg-config (PKG_CONFIG_SYSROOT_DIR) and LD_LIBRARY_PATH,
# and psql on PATH with PGDATABASE the file's database.  Every block of a
# file, sql ones included, runs in one fresh directory, so a file a block
# writes is there for the next (\copy reads it).
#
# Pictures.  An image under doc/img/ that a file shows is made by that
# file's blocks: after they run, the file of the same name in their
# directory must have the image's bytes (the tool's SVG depends on the
# filter alone).  --write-images copies those files into doc/img/ instead.
#
# Signatures.  The ```text block under doc/reference.md's heading
# "Signatures" lists every function and aggregate of the extension, one a
# line, as PostgreSQL gives them: [aggregate ]NAME(ARGUMENTS) → RESULT,
# ARGUMENTS and RESULT those of pg_get_function_arguments and
# pg_get_function_result, parameter names included.  It must be exactly
# the set of a fresh CREATE EXTENSION's, in a database of its own.
#
# Links.  Every relative link and image ([text](path), [text](path#anchor),
# [text](#anchor), reference definitions) in those files, outside code,
# must name a file or directory of the checkout, and an #anchor must be a
# heading of the target Markdown file as GitHub makes anchors of them: the
# heading's text without markup, lower-cased, every character that is not
# a letter, a digit, a space, a hyphen or an underscore dropped, spaces
# made hyphens, and -1, -2, ... appended to repeats.  http(s) and mailto
# links are not fetched.
#
# History.  The user's documents (doc/*.md, bench/README.md and
# CONTRIBUTING.md) say what the code does and costs, not when or where it
# was measured: outside code (fenced blocks and `inline code`) they must
# have no date (YYYY-MM-DD) and none of the notebook's markers ("same
# kind", "borrowed machine", "lent for", "a second call", "fresh
# machine", "not met", "this session", "the 2-core
# machine", "a 2-core virtual machine", "issue 44", "commit 1a2b3c4").
# Dates and runs belong in CHANGELOG.md, commit messages and
# bench/results/.  One test per file.
#
# One test per block, per link and per file's history check.  Prints
# "docs: N passed, N failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

KEEP=
WRITE_IMAGES=
FILES=()
while [ "$#" -gt 0 ]; do
	case $1 in
	--keep) KEEP=1 ;;
	--write-images) WRITE_IMAGES=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "docs_test.sh: unknown option $1" >&2
		exit 2
		;;
	*) FILES+=("$1") ;;
	esac
	shift
done
if [ "${#FILES[@]}" -eq 0 ]; then
	for f in README.md CONTRIBUTING.md CHANGELOG.md bench/README.md python/README.md doc/*.md; do
		[ -f "$f" ] && FILES+=("$f")
	done
fi

PSQL=${BLOOM_PG_BINDIR:-$(bf_pg_bindir)}/psql
# Seconds one statement may take (a block's psql gets 30 more).
BLOCK_TIMEOUT=${BLOOM_DOCS_TIMEOUT:-120}
WORK=
bf_mktemp_dir WORK

# ---- the Markdown, read once ----------------------------------------------------

# Writes WORK/blocks.tsv (FILE LINE INFO BLOCKFILE, one line a fenced block
# this test runs or checks: sql, or a second word after sh, python or c),
# WORK/links.tsv (FILE LINE TARGET VERDICT, VERDICT "ok" or why not) and
# WORK/images.tsv (FILE LINE TARGET, each image under doc/img/), the
# blocks' text under WORK/blocks/.
python3 - "$WORK" "${FILES[@]}" <<'PY'
import os
import re
import sys
import unicodedata

work, files = sys.argv[1], sys.argv[2:]
os.makedirs(os.path.join(work, "blocks"), exist_ok=True)

FENCE = re.compile(r"^( {0,12})(`{3,}|~{3,})\s*([^`]*?)\s*$")


def split(path):
    """(lines outside code, with their numbers), [(line, info, text)]"""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    prose, blocks = [], []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append((i + 1, lines[i]))
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        start = i + 1
        body = []
        i += 1
        while i < len(lines):
            c = re.match(r"^ {0,12}(`{3,}|~{3,})\s*$", lines[i])
            if c and c.group(1)[0] == fence[0] and len(c.group(1)) >= len(fence):
                break
            line = lines[i]
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            i += 1
        i += 1
        blocks.append((start, info, "\n".join(body) + "\n"))
    return prose, blocks


def plain(text):
    """A heading's text as GitHub renders it, markup removed."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__|\*|(?<!\w)_(?=\S)|(?<=\S)_(?!\w))", "", text)
    text = text.replace("\\", "")
    return text.strip()


def slug(text):
    out = []
    for ch in plain(text).lower():
        cat = unicodedata.category(ch)
        if ch in " -" or cat[0] in "LMN" or cat == "Pc":
            out.append("-" if ch == " " else ch)
    return "".join(out)


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        prose, _ = split(path)
        seen, result = {}, set()
        for _, line in prose:
            m = re.match(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
            names = []
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                names.append(s if n == 0 else "%s-%d" % (s, n))
            names += re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line)
            result.update(names)
        anchor_cache[path] = result
    return anchor_cache[path]


def check_link(src, target):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
        return None  # http(s), mailto: not fetched
    path, _, anchor = target.partition("#")
    if path:
        full = os.path.normpath(os.path.join(os.path.dirname(src), path))
        if full.startswith(".."):
            return "points outside the checkout"
        if not os.path.exists(full):
            return "no such file"
    else:
        full = src
    if anchor:
        if not full.endswith(".md") or not os.path.isfile(full):
            return "an anchor into a file that is not Markdown"
        if anchor not in anchors(full):
            return "no heading makes the anchor #%s in %s" % (anchor, full)
    return "ok"


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")

# The program blocks' languages; a plain ```sh (one word) is shown only.
PROGRAMS = {"sh": "sh", "python": "py", "c": "c"}
IMAGE = re.compile(r"!\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?")

# Run dates and the lab notebook's phrases (see History in the header).
HISTORY = re.compile(
    r"\b20\d\d-[01]\d-[0-3]\d\b"
    r"|\bsame kind\b|\bborrowed machines?\b|\blent for\b|\ba second call\b"
    r"|\bfresh machines?\b|\bnot met\b|\bthis session\b"
    r"|\bthe \d+-core machines?\b|\b\d+-core (?:[\w-]+ ){0,3}?virtual machines?\b"
    r"|\b\d+-core x86-64 machines?\b|\bissues? #?\d+\b|\bcommit [0-9a-f]{7,40}\b",
    re.I)


def history_checked(path):
    return (path.startswith("doc/") and path.endswith(".md")
            or path in ("bench/README.md", "CONTRIBUTING.md"))


with open(os.path.join(work, "history.tsv"), "w") as ht:
    for path in files:
        if not history_checked(path):
            continue
        prose, _ = split(path)
        hits = []
        for num, line in prose:
            code_free = re.sub(r"(`+)(?:(?!\1).)+\1", "", line)
            for m in HISTORY.finditer(code_free):
                hits.append("%d: %s" % (num, m.group(0)))
        ht.write("%s\t%s\n" % (path, "; ".join(hits) if hits else "ok"))

with open(os.path.join(work, "blocks.tsv"), "w") as bt, \
        open(os.path.join(work, "links.tsv"), "w") as lt, \
        open(os.path.join(work, "images.tsv"), "w") as it:
    n = 0
    for path in files:
        prose, blocks = split(path)
        for start, info, text in blocks:
            words = info.split()
            if info.lower().startswith("sql"):
                ext = "sql"
            elif len(words) > 1 and words[0] in PROGRAMS:
                ext = PROGRAMS[words[0]]
            else:
                continue
            n += 1
            name = os.path.join(work, "blocks", "%04d.%s" % (n, ext))
            with open(name, "w") as f:
                f.write(text)
            bt.write("%s\t%d\t%s\t%s\n" % (path, start, info, name))
        for num, line in prose:
            code_free = re.sub(r"(`+)(?:(?!\1).)+\1", "", line)
            targets = [m.group(1) for m in LINK.finditer(code_free)]
            m = REFDEF.match(code_free)
            if m:
                targets.append(m.group(1))
            for t in targets:
                verdict = check_link(path, t)
                if verdict is not None:
                    lt.write("%s\t%d\t%s\t%s\n" % (path, num, t, verdict))
            for m in IMAGE.finditer(code_free):
                full = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
                if os.path.dirname(full) == os.path.join("doc", "img"):
                    it.write("%s\t%d\t%s\n" % (path, num, full))
PY

# ---- the databases ----------------------------------------------------------------

# db_name FILE: the file's database
db_name() {
	local n=${1%.md}
	n=${n//[^A-Za-z0-9]/_}
	printf 'docs_test_%s\n' "${n,,}"
}

psql_admin() { "$PSQL" -X -q -v ON_ERROR_STOP=1 -d postgres "$@"; }

current=
ndb=0
new_database() {
	local db
	db=$(db_name "$1")
	psql_admin -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	if psql_admin -c "CREATE DATABASE $db" >"$WORK/createdb.log" 2>&1; then
		current=$db
		ndb=$((ndb + 1))
		DATABASES+=("$db")
	else
		current=
		fail "$1: could not create a database for its blocks: $(head -c 300 "$WORK/createdb.log")"
	fi
}

DATABASES=()
drop_databases() {
	local db
	[ -n "$KEEP" ] && return 0
	for db in "${DATABASES[@]}"; do
		psql_admin -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	done
}

# ---- the programs' kit ----------------------------------------------------------

# run_dir FILE: the directory the blocks of FILE run in
run_dir() { printf '%s/run/%s\n' "$WORK" "$(db_name "$1")"; }

# Builds what the program blocks use, once, if any file has one: lib/ and
# the tool from a copy of their sources (so that a build or clean in the
# checkout at the same time cannot disturb it), installed under WORK/root
# as `make -C lib install` installs them, and the Python module under
# WORK/python.  Output goes to logs, shown on failure.
KIT=
build_kit() {
	local tree=$WORK/tree root=$WORK/root prefix=/usr/local pypid rc=0
	[ -n "$KIT" ] && return 0
	KIT=failed
	mkdir -p "$tree/lib" "$tree/src/core" "$tree/tool"
	cp lib/Makefile lib/*.c lib/*.h lib/*.in lib/*.map "$tree/lib/"
	cp src/core/*.c src/core/*.h "$tree/src/core/"
	cp tool/*.c tool/*.h tool/*.sh "$tree/tool/"
	# the module builds beside the library: they share no files
	python3 python/setup.py -q build --build-lib "$WORK/python" \
		--build-temp "$WORK/python-build" >"$WORK/python.log" 2>&1 &
	pypid=$!
	if ! make -s -j2 -C "$tree/lib" PREFIX=$prefix >"$WORK/lib.log" 2>&1 ||
		! make -s -C "$tree/lib" install PREFIX=$prefix DESTDIR="$root" >>"$WORK/lib.log" 2>&1; then
		fail "make -C lib, or its install, fails:"
		sed 's/^/     /' "$WORK/lib.log" | tail -n 20
		rc=1
	fi
	if ! wait "$pypid"; then
		fail "the Python module does not build:"
		sed 's/^/     /' "$WORK/python.log" | tail -n 20
		rc=1
	fi
	[ "$rc" -eq 0 ] || return 1
	PATH="$root$prefix/bin:${PSQL%/*}:$PATH"
	export PATH
	export PYTHONPATH="$WORK/python${PYTHONPATH:+:$PYTHONPATH}"
	export PKG_CONFIG_SYSROOT_DIR=$root
	export PKG_CONFIG_PATH="$root$prefix/lib/pkgconfig"
	export LD_LIBRARY_PATH="$root$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	KIT=ok
	pass "lib, the tool and the Python module build for the program blocks"
}

# ---- the blocks -------------------------------------------------------------------

# run_block WHERE KIND COMMAND...: one block, in the file's directory
run_block() {
	local where=$1 kind=$2
	shift 2
	if (cd "$dir" && PGOPTIONS="${PGOPTIONS:-} -c statement_timeout=${BLOCK_TIMEOUT}s" \
		timeout -k 10 $((BLOCK_TIMEOUT + 30)) "$@") >"$WORK/out" 2>&1 </dev/null; then
		pass "$where: the $kind block runs"
	else
		fail "$where: the $kind block fails:"
		sed 's/^/     /' "$WORK/out" | tail -n 20
	fi
}

if ! psql_admin -At -c "SELECT 1" >/dev/null 2>"$WORK/connect.log"; then
	cat "$WORK/connect.log"
	fail "no server (PGHOST=${PGHOST:-} PGPORT=${PGPORT:-}): the SQL blocks cannot run"
else
	if grep -qE $'\t(sh|python|c) ' "$WORK/blocks.tsv"; then
		build_kit || true
	fi
	file_seen=
	dir=
	while IFS=$'\t' read -r file line info block; do
		where="$file:$line"
		case $info in
		sql | 'sh run' | 'python run' | 'sh file '* | 'python file '* | 'c file '*)
			if [ "$file" != "$file_seen" ]; then
				file_seen=$file
				new_database "$file"
				dir=$(run_dir "$file")
				mkdir -p "$dir"
				export PGDATABASE=$current
			fi
			[ -n "$current" ] || {
				fail "$where: not run (no database)"
				continue
			}
			;;
		esac
		case $info in
		sql)
			run_block "$where" sql "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$current" -f "$block"
			;;
		'sh run' | 'python run')
			if [ "$KIT" != ok ]; then
				fail "$where: not run (the tool or the module did not build)"
			elif [ "$info" = 'sh run' ]; then
				run_block "$where" sh bash -e -o pipefail "$block"
			else
				run_block "$where" python python3 "$block"
			fi
			;;
		'sh file '* | 'python file '* | 'c file '*)
			name=${info#* file }
			if [[ $name =~ ^[A-Za-z0-9._-]+$ ]]; then
				cp "$block" "$dir/$name"
				pass "$where: the block is written to $name"
			else
				fail "$where: '$info': the file name must be a plain name"
			fi
			;;
		'sql fdw' | 'sql fdw remote' | 'sql citus')
			case $info in
			'sql citus') script=test/t/021_citus.pl ;;
			*) script=test/t/020_postgres_fdw.pl ;;
			esac
			if grep -qF "$file" "$script" 2>/dev/null; then
				pass "$where: a '$info' block, run by $script, which reads $file"
			else
				fail "$where: a '$info' block, but $script does not read $file"
			fi
			;;
		*)
			fail "$where: unknown info string '$info' (sql, sql fdw, sql fdw remote, sql citus, sh run, python run or LANG file NAME)"
			;;
		esac
	done <"$WORK/blocks.tsv"
	drop_databases

	# The pictures the blocks made, against those in doc/img/.
	while IFS=$'\t' read -r file line image; do
		made=$(run_dir "$file")/${image##*/}
		if [ ! -f "$made" ]; then
			fail "$file:$line: $image: no block of $file makes ${image##*/}"
		elif [ -z "$WRITE_IMAGES" ] && [ ! -f "$image" ]; then
			fail "$file:$line: $image is missing (test/docs_test.sh --write-images makes it)"
		elif [ -n "$WRITE_IMAGES" ]; then
			cp "$made" "$image"
			pass "$file:$line: $image written"
		elif cmp -s "$made" "$image"; then
			pass "$file:$line: $image is what the blocks make"
		else
			fail "$file:$line: $image differs from what the blocks make (test/docs_test.sh --write-images remakes it)"
		fi
	done <"$WORK/images.tsv"
fi

# ---- the signatures ---------------------------------------------------------------

# signatures_documented: the lines of the text block under "## Signatures"
signatures_documented() {
	python3 - doc/reference.md <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
i = lines.index("## Signatures")
while not re.match(r"^```text\s*$", lines[i]):
    if i > 0 and lines[i].startswith("## ") and lines[i] != "## Signatures":
        sys.exit("no text block under ## Signatures")
    i += 1
i += 1
while not lines[i].startswith("```"):
    if lines[i].strip():
        print(lines[i].strip())
    i += 1
PY
}
SIGNATURES_QUERY="SELECT CASE p.prokind WHEN 'a' THEN 'aggregate ' ELSE '' END || p.proname
       || '(' || pg_get_function_arguments(p.oid) || ') → ' || pg_get_function_result(p.oid)
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'"
for f in "${FILES[@]}"; do
	[ "$f" = doc/reference.md ] || continue
	if ! signatures_documented >"$WORK/sig-doc.txt" 2>"$WORK/sig-doc.err" || [ ! -s "$WORK/sig-doc.txt" ]; then
		fail "doc/reference.md: no signatures read under '## Signatures': $(cat "$WORK/sig-doc.err")"
		break
	fi
	db=docs_test_signatures
	psql_admin -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	if psql_admin -c "CREATE DATABASE $db" >"$WORK/sig.log" 2>&1 &&
		"$PSQL" -X -q -v ON_ERROR_STOP=1 -At -d "$db" -c "CREATE EXTENSION bloomfilter" \
			-c "$SIGNATURES_QUERY" >"$WORK/sig-db.txt" 2>>"$WORK/sig.log"; then
		if diff <(LC_ALL=C sort "$WORK/sig-doc.txt") <(LC_ALL=C sort "$WORK/sig-db.txt") >"$WORK/sig.diff"; then
			pass "doc/reference.md: its $(wc -l <"$WORK/sig-doc.txt") signatures are those of CREATE EXTENSION bloomfilter, parameter names included"
		else
			fail "doc/reference.md: its signatures differ from the database's (< documented, > in the database):"
			sed 's/^/     /' "$WORK/sig.diff"
		fi
	else
		fail "doc/reference.md: could not list the database's signatures: $(head -c 300 "$WORK/sig.log")"
	fi
	[ -n "$KEEP" ] || psql_admin -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
done

# ---- the links ------------------------------------------------------------------------

while IFS=$'\t' read -r file line target verdict; do
	if [ "$verdict" = ok ]; then
		pass "$file:$line: link $target"
	else
		fail "$file:$line: link $target: $verdict"
	fi
done <"$WORK/links.tsv"

# ---- history ----------------------------------------------------------------------

while IFS=$'\t' read -r file verdict; do
	if [ "$verdict" = ok ]; then
		pass "$file: no run dates or machine history outside code"
	else
		fail "$file: run dates or machine history outside code (move them to bench/results/): $verdict"
	fi
done <"$WORK/history.tsv"

echo "docs: $(wc -l <"$WORK/blocks.tsv") blocks in ${#FILES[@]} files ($ndb databases), $(wc -l <"$WORK/links.tsv") relative links"
check_summary docs
