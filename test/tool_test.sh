#!/bin/bash
#
# test/tool_test.sh -- the bloomfilter command-line tool against LevelDB's
# own answers (test/data/vectors) and against a reference written here in
# Python, independent of the C code.
#
#   test/tool_test.sh PATH_TO_TOOL
#
# Prints "ok N - ..." or "not ok N - ..." for each check, then
# "tool: N passed, M failed"; exits non-zero when a check failed.

set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 PATH_TO_TOOL" >&2
	exit 2
fi
TOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$TOOL" ] || { echo "$0: $1 is not an executable" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
VECTORS=$HERE/data/vectors
HEADER=$HERE/../lib/bloomfilter.h
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

passed=0
failed=0
n=0
ok() {
	n=$((n + 1)) passed=$((passed + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	if [ -n "${2:-}" ]; then
		printf '%s\n' "$2" | head -20 | sed 's/^/#   /'
	fi
}
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$desc"; else not_ok "$desc" "$out"; fi
}
# same_file DESCRIPTION EXPECTED ACTUAL
same_file() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(diff "$2" "$3" | head -10 || true)"; fi
}
# fails_with DESCRIPTION STDERR_SUBSTRING COMMAND...: exit status 2, the
# message on stderr, nothing on stdout
fails_with() {
	local desc=$1 want=$2 rc=0
	shift 2
	"$@" >"$WORK/fw.out" 2>"$WORK/fw.err" || rc=$?
	if [ "$rc" -ne 2 ]; then
		not_ok "$desc" "exit status $rc, not 2; stderr: $(cat "$WORK/fw.err")"
	elif ! grep -qF -- "$want" "$WORK/fw.err"; then
		not_ok "$desc" "stderr lacks: $want"$'\n'"stderr: $(cat "$WORK/fw.err")"
	else
		ok "$desc"
	fi
}

# ---- the Python reference -------------------------------------------------

cat >"$WORK/ref.py" <<'PY'
"""Reference code for the checks: LevelDB's algorithms (util/bloom.cc;
util/hash.cc and the vector files' reader are test/lib/leveldb_vectors.py)
in Python."""
import math, os, re, sys, hashlib, struct, uuid

sys.path.insert(0, os.environ["BLOOM_TEST_LIB"])
from leveldb_vectors import M32, leveldb_hash, read_vector_dir  # noqa: E402


def positions(filt, key):
    bits = (len(filt) - 1) * 8
    k = filt[-1]
    h = leveldb_hash(key)
    delta = ((h >> 17) | (h << 15)) & M32
    out = []
    for _ in range(k):
        out.append(h % bits)
        h = (h + delta) & M32
    return out


def bit(filt, b):
    return (filt[b // 8] >> (b % 8)) & 1


def may_match(filt, key):
    if len(filt) < 2:
        return False
    k = filt[-1]
    if k > 30 or k == 0:
        return True
    return all(bit(filt, p) for p in positions(filt, key))


def create(keys, bpk):
    k = max(1, min(30, int(bpk * 0.69)))
    bits = max(64, len(keys) * bpk)
    nbytes = (bits + 7) // 8
    bits = nbytes * 8
    arr = bytearray(nbytes)
    for key in keys:
        h = leveldb_hash(key)
        delta = ((h >> 17) | (h << 15)) & M32
        for _ in range(k):
            p = h % bits
            arr[p // 8] |= 1 << (p % 8)
            h = (h + delta) & M32
    return bytes(arr) + bytes([k])


def text_form(b):
    return "\\x" + b.hex()


def cmd_vectors(vecdir, out):
    """One directory per case: what the shell feeds the tool and expects."""
    index = open(os.path.join(out, "index"), "w")
    for c in read_vector_dir(vecdir):
        d = os.path.join(out, c["id"])
        os.mkdir(d)
        if c["kind"] == "create":
            with open(os.path.join(d, "keys"), "w") as f:
                f.writelines(k.hex() + "\n" for k in c["keys"])
            with open(os.path.join(d, "bpk"), "w") as f:
                f.write("%d\n" % c["bpk"])
            with open(os.path.join(d, "sha256"), "w") as f:
                f.write(c["sha256"] + "\n")
        if c["filter"] is not None:
            filt = c["filter"]
            with open(os.path.join(d, "expected"), "w") as f:
                f.write(text_form(filt) + "\n")
            with open(os.path.join(d, "filter.raw"), "wb") as f:
                f.write(filt)
            valid = len(filt) >= 2 and 1 <= filt[-1] <= 30
        else:
            valid = True
        with open(os.path.join(d, "probes"), "w") as f:
            f.writelines(k.hex() + "\n" for k, _ in c["probes"])
        with open(os.path.join(d, "answers"), "w") as f:
            f.writelines("%s\t%s\n" % (k.hex(), "true" if a else "false")
                         for k, a in c["probes"])
        index.write("%s\t%s\t%s\t%d\t%d\n" % (
            c["id"], c["kind"], "valid" if valid else "invalid",
            c["filter"] is not None, len(c["probes"])))


def cmd_reference_agrees(vecdir):
    """The Python reference itself reproduces every create case it can."""
    bad = []
    for c in read_vector_dir(vecdir):
        if c["kind"] == "create" and len(c["keys"]) <= 10000:
            got = create(c["keys"], c["bpk"])
            if hashlib.sha256(got).hexdigest() != c["sha256"]:
                bad.append(c["id"])
        for key, answer in c["probes"]:
            if c["filter"] is not None and may_match(c["filter"], key) != answer:
                bad.append(c["id"] + " probe " + key.hex())
    if bad:
        sys.exit("reference disagrees with LevelDB: " + ", ".join(bad[:10]))


def read_filter(path):
    data = open(path, "rb").read()
    s = data.rstrip()
    if re.fullmatch(rb"\\x([0-9a-fA-F]{2})*", s):
        return bytes.fromhex(s[2:].decode())
    return data


def cmd_same_filter(a, b):
    if read_filter(a) != read_filter(b):
        sys.exit("%s and %s differ" % (a, b))


def cmd_combine(op, out, *inputs):
    fs = [read_filter(p) for p in inputs]
    arr = bytearray(fs[0][:-1])
    for f in fs[1:]:
        for i, byte in enumerate(f[:-1]):
            arr[i] = arr[i] | byte if op == "or" else arr[i] & byte
    want = bytes(arr) + fs[0][-1:]
    got = read_filter(out)
    if got != want:
        sys.exit("got %s, want %s" % (got.hex(), want.hex()))
    if want == fs[0] or want == fs[1]:
        sys.exit("a test that cannot fail: the result equals an input")


def cmd_info(filter_path, info_path, estimates="formula"):
    """info's lines: the counts, and (estimates "formula") the ideal
    filter's estimates computed here, or ("measured") any numbers."""
    f = read_filter(filter_path)
    info = dict(l.rstrip("\n").split("\t") for l in open(info_path))
    bits = (len(f) - 1) * 8
    set_ = sum(bin(b).count("1") for b in f[:-1])
    want = {"bytes": len(f), "bits": bits, "k": f[-1], "bits_set": set_}
    for name, value in want.items():
        if int(info[name]) != value:
            sys.exit("%s: got %s, want %d" % (name, info[name], value))
    if abs(float(info["fill_ratio"]) - set_ / bits) > 1e-15:
        sys.exit("fill_ratio %s, want %r" % (info["fill_ratio"], set_ / bits))
    for name in ("estimated_keys", "false_positive_rate"):
        float(info[name])          # a number (or Infinity), nothing else
    if estimates == "formula":
        fill, k = set_ / bits, f[-1]
        keys = math.inf if set_ == bits else -bits / k * math.log1p(-fill)
        for name, value in (("estimated_keys", keys),
                            ("false_positive_rate", fill ** k)):
            got = float(info[name])
            if not (got == value or abs(got - value) <= 1e-12 * abs(value)):
                sys.exit("%s %r, want %r" % (name, got, value))
    names = [l.split("\t")[0] for l in open(info_path)]
    if names != ["bytes", "bits", "k", "bits_set", "fill_ratio",
                 "estimated_keys", "false_positive_rate"]:
        sys.exit("lines: %r" % names)


def cmd_explain(filter_path, key_hex, explain_path, probe_answer):
    f = read_filter(filter_path)
    key = bytes.fromhex(key_hex)
    rows = [l.rstrip("\n").split("\t") for l in open(explain_path)]
    kv = {r[0]: r[1:] for r in rows if r[0] not in ("probe", "#probe")}
    probes = [r[1:] for r in rows if r[0] == "probe"]
    h = leveldb_hash(key)
    delta = ((h >> 17) | (h << 15)) & M32
    bits = (len(f) - 1) * 8
    checks = [
        (kv["key_bytes"][0], key.hex()),
        (int(kv["hash"][0]), h), (int(kv["hash"][1], 16), h),
        (int(kv["delta"][0]), delta), (int(kv["delta"][1], 16), delta),
        (int(kv["k"][0]), f[-1]), (int(kv["bits"][0]), bits),
        (len(probes), f[-1]),
    ]
    want_pos = positions(f, key)
    hh = h
    for i, p in enumerate(probes):
        pos = hh % bits
        checks += [
            (int(p[0]), i + 1), (int(p[1]), hh), (int(p[2], 16), hh),
            (int(p[3]), want_pos[i]), (int(p[3]), pos),
            (int(p[4]), pos // 8), (int(p[5]), pos % 8),
            (p[6], "set" if bit(f, pos) else "clear"),
        ]
        hh = (hh + delta) & M32
    may = may_match(f, key)
    checks.append((kv["answer"][0], "may contain" if may else "definitely absent"))
    checks.append((probe_answer, "true" if may else "false"))
    bad = [c for c in checks if c[0] != c[1]]
    if bad:
        sys.exit("explain disagrees (got, want): %r" % bad[:5])
    return may


def cmd_svg(svg_path, filter_path, regions):
    import xml.etree.ElementTree as ET
    regions = int(regions)
    root = ET.parse(svg_path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        sys.exit("root is %s" % root.tag)
    cells = [e for e in root.iter(ns + "rect") if e.get("class") == "cell"]
    f = read_filter(filter_path)
    bits = (len(f) - 1) * 8
    r = min(regions, bits)
    if len(cells) != r:
        sys.exit("%d cells, want %d" % (len(cells), r))
    for i, c in enumerate(cells):
        lo, hi = i * bits // r, (i + 1) * bits // r
        want = sum(bit(f, b) for b in range(lo, hi))
        m = re.search(r"bits (\d+)-(\d+), (\d+) of (\d+) set",
                      c.find(ns + "title").text)
        got = tuple(int(x) for x in m.groups())
        if got != (lo, hi - 1, want, hi - lo):
            sys.exit("cell %d: %r, want %r" % (i, got, (lo, hi - 1, want, hi - lo)))
    title = root.find(ns + "title").text
    if "%d bits, k=%d" % (bits, f[-1]) not in title:
        sys.exit("title: %s" % title)
    if "ideal" not in ET.tostring(root, encoding="unicode"):
        sys.exit("the legend does not mark the ideal fill")


def cmd_int64(dec_path, hex_path):
    vals = [0, -1, 1, -2 ** 63, 2 ** 63 - 1, 42, -42, 255, 256, 2 ** 31,
            -(2 ** 31) - 1, 2 ** 32, 1234567890123456789, -987654321]
    with open(dec_path, "w") as d, open(hex_path, "w") as h:
        for v in vals:
            d.write("%d\n" % v)
            h.write(struct.pack(">q", v).hex() + "\n")


def cmd_uuid(in_path, hex_path):
    base = [uuid.uuid5(uuid.NAMESPACE_DNS, "key%d" % i) for i in range(8)]
    forms = [str(base[0]), str(base[1]).upper(), base[2].hex, "{%s}" % base[3],
             base[4].hex.upper(), "00000000-0000-0000-0000-000000000000",
             "ffffffff-ffff-ffff-ffff-ffffffffffff", str(base[5]),
             "{%s}" % str(base[6]).upper(), str(base[7]),
             # PostgreSQL's uuid_in allows a hyphen after any 4 digits
             "-".join(base[0].hex[i:i + 4] for i in range(0, 32, 4))]
    with open(in_path, "w") as i, open(hex_path, "w") as h:
        for s in forms:
            i.write(s + "\n")
            h.write(uuid.UUID(s).bytes.hex() + "\n")


def cmd_probe_raw(filter_path, out_path, *keys):
    """probe's lines for keys, the file's bytes taken as they are."""
    filt = open(filter_path, "rb").read()
    with open(out_path, "w") as out:
        for key in keys:
            out.write("%s\t%s\n" % (key, "true" if may_match(filt, key.encode()) else "false"))


def cmd_rewrite_k(src, dst, k):
    f = bytearray(read_filter(src))
    f[-1] = int(k)
    open(dst, "wb").write(bytes(f))


if __name__ == "__main__":
    r = globals()["cmd_" + sys.argv[1].replace("-", "_")](*sys.argv[2:])
    if r is not None:
        print("true" if r else "false")
PY
ref() { BLOOM_TEST_LIB=$HERE/lib python3 "$WORK/ref.py" "$@"; }

# ---- 1. LevelDB's known answers --------------------------------------------

check "the Python reference reproduces LevelDB's vectors" ref reference-agrees "$VECTORS"

mkdir "$WORK/cases"
ref vectors "$VECTORS" "$WORK/cases"
while IFS=$'\t' read -r id kind valid has_filter nprobes; do
	d=$WORK/cases/$id
	if [ "$kind" = create ]; then
		bpk=$(cat "$d/bpk")
		if "$TOOL" build --key-type hex --bits-per-key "$bpk" --output-format text \
			<"$d/keys" >"$d/built.txt" 2>"$d/err" &&
			"$TOOL" build --key-type hex --bits-per-key "$bpk" -o "$d/built.raw" \
				"$d/keys" 2>>"$d/err"; then
			if [ "$has_filter" = 1 ]; then
				same_file "build $id: the filter libleveldb wrote" "$d/expected" "$d/built.txt"
			else
				got=$(sha256sum <"$d/built.raw" | cut -d' ' -f1)
				if [ "$got" = "$(cat "$d/sha256")" ]; then
					ok "build $id: sha256 of the filter libleveldb wrote"
				else
					not_ok "build $id: sha256 of the filter libleveldb wrote" "got $got"
				fi
			fi
		else
			not_ok "build $id" "$(cat "$d/err")"
		fi
		# probe the filter from the vectors where there is one, else the built one
		if [ "$has_filter" = 1 ]; then filt=$d/expected; else filt=$d/built.raw; fi
		if "$TOOL" probe --key-type hex "$filt" <"$d/probes" >"$d/probed" 2>"$d/err"; then
			same_file "probe $id: $nprobes KeyMayMatch answers" "$d/answers" "$d/probed"
		else
			not_ok "probe $id" "$(cat "$d/err")"
		fi
	else
		# hand-made filters, given raw: valid ones answer as they are;
		# invalid ones are refused, and --unchecked answers as KeyMayMatch
		if [ "$valid" = valid ]; then
			if "$TOOL" probe --key-type hex "$d/filter.raw" <"$d/probes" >"$d/probed" 2>"$d/err"; then
				same_file "probe $id (hand-made): $nprobes KeyMayMatch answers" "$d/answers" "$d/probed"
			else
				not_ok "probe $id" "$(cat "$d/err")"
			fi
		else
			fails_with "probe $id (hand-made, not valid): refused" \
				"bloomfilter: $d/filter.raw: " "$TOOL" probe --key-type hex "$d/filter.raw" <"$d/probes"
		fi
		if "$TOOL" probe --unchecked --key-type hex "$d/filter.raw" <"$d/probes" >"$d/probed" 2>"$d/err"; then
			same_file "probe --unchecked $id (hand-made): $nprobes KeyMayMatch answers" "$d/answers" "$d/probed"
		else
			not_ok "probe --unchecked $id" "$(cat "$d/err")"
		fi
		if "$TOOL" probe --unchecked --key-type hex "$d/expected" <"$d/probes" >"$d/probed" 2>"$d/err"; then
			same_file "probe --unchecked $id, text form: the same answers" "$d/answers" "$d/probed"
		else
			not_ok "probe --unchecked $id, text form" "$(cat "$d/err")"
		fi
	fi
done <"$WORK/cases/index"

# ---- 2. typed keys, and how lines end -----------------------------------------

ref int64 int64.dec int64.hex
"$TOOL" build --key-type int64 --bits-per-key 10 --output-format text int64.dec >int64.a || true
"$TOOL" build --key-type hex --bits-per-key 10 --output-format text int64.hex >int64.b || true
check "int64 keys: the filter of their big-endian two's complement bytes" \
	test -s int64.a -a -s int64.b
same_file "int64 keys (-1, 0, min, max, ...) = hex keys of struct.pack('>q')" int64.b int64.a
"$TOOL" probe --key-type int64 int64.a -- $(cat int64.dec) | cut -f2 | sort -u >int64.p || true
check "int64 keys: every key added answers true" test "$(cat int64.p)" = true
"$TOOL" build --key-type int64 --bits-per-key 7 int64.dec >int64.c7 || true
"$TOOL" build --key-type hex --bits-per-key 7 int64.hex >int64.h7 || true
same_file "int64 keys at bits_per_key 7, raw" int64.h7 int64.c7

ref uuid uuid.in uuid.hex
"$TOOL" build --key-type uuid --bits-per-key 10 --output-format text uuid.in >uuid.a || true
"$TOOL" build --key-type hex --bits-per-key 10 --output-format text uuid.hex >uuid.b || true
check "uuid keys: a filter" test -s uuid.a
same_file "uuid keys (hyphens or not, either case, braces) = hex keys of UUID.bytes" uuid.b uuid.a
"$TOOL" probe --key-type uuid uuid.a <uuid.in | cut -f2 | sort -u >uuid.p || true
check "uuid keys: every key added answers true" test "$(cat uuid.p)" = true

printf 'alpha\nbeta\ngamma\n' >lf.txt
printf 'alpha\r\nbeta\r\ngamma\r\n' >crlf.txt
printf 'alpha\nbeta\ngamma' >nofinal.txt
"$TOOL" build --bits-per-key 10 lf.txt >lf.bf || true
"$TOOL" build --bits-per-key 10 crlf.txt >crlf.bf || true
"$TOOL" build --bits-per-key 10 nofinal.txt >nofinal.bf || true
check "text keys: a filter" test -s lf.bf
same_file "CRLF line ends are not part of a key" lf.bf crlf.bf
same_file "a last line without a newline is a key" lf.bf nofinal.bf
printf 'alpha\n' | "$TOOL" build --bits-per-key 10 --key-type hex >/dev/null 2>&1 &&
	not_ok "hex keys: 'alpha' is not hex" || ok "hex keys: 'alpha' is not hex"
printf '\\x616c706861\n62657461\n67616D6D61\n' | "$TOOL" build --bits-per-key 10 --key-type hex >hexkeys.bf || true
same_file "hex keys with \\x or not, either case, are the text keys' bytes" lf.bf hexkeys.bf
"$TOOL" build --bits-per-key 10 --output-format text </dev/null >empty.txt || true
check "empty input: a filter of no keys, 64 bits and k" test "$(cat empty.txt)" = '\x000000000000000006'

# ---- 3. forms, combining, info, explain, picture ----------------------------

seq 1 40 | sed 's/^/key-/' >a.keys
seq 41 80 | sed 's/^/key-/' >b.keys
seq 1 60 | sed 's/^/other-/' >c.keys
"$TOOL" build --bits-per-key 8 -o a.bf a.keys || true
"$TOOL" build --bits-per-key 8 --output-format text -o a.txt a.keys || true
"$TOOL" build --bits-per-key 8 -o b.bf b.keys || true
"$TOOL" build --bits-per-key 8 --output-format text -o b.txt b.keys || true
"$TOOL" build --bits-per-key 8 -o c.bf c.keys || true
check "raw and text output hold the same filter" ref same-filter a.bf a.txt
"$TOOL" info a.bf >info.raw || true
"$TOOL" info a.txt >info.txt || true
check "info: a filter read raw" test -s info.raw
same_file "info reads raw and text forms the same" info.raw info.txt
cat a.keys c.keys | "$TOOL" probe a.bf >probe.raw || true
cat a.keys c.keys | "$TOOL" probe a.txt >probe.txt || true
check "probe: an answer a key" test "$(wc -l <probe.raw)" -eq 100
same_file "probe reads raw and text forms the same" probe.raw probe.txt
check "info: bytes, bits, k, bits_set counted in Python; fill_ratio" ref info a.bf info.raw
"$TOOL" build --bits-per-key 20 --output-format text <c.keys >c20.txt || true
"$TOOL" info c20.txt >info.c20 || true
check "info of another filter (bits_per_key 20) counted in Python" ref info c20.txt info.c20
printf '\\x%s%s\n' "$(printf 'ff%.0s' $(seq 1 16))" 05 >full.txt
"$TOOL" info full.txt >info.full || true
check "info of a saturated filter: estimated_keys prints as Infinity" \
	grep -qx $'estimated_keys\tInfinity' info.full
"$TOOL" info --measure full.txt >info.full-m || true
check "info --measure of a saturated filter: Infinity too" grep -qx $'estimated_keys\tInfinity' info.full-m

# info reads the filter once and computes its estimates; --measure measures
# them on LevelDB's scheme, as bloom_info does (test/outside_test.sh compares
# it with bloom_info)
seq 1 200000 | "$TOOL" build --bits-per-key 10 -o large.bf
"$TOOL" info large.bf >info.large || true
check "info of 200,000 keys: the counts, and the formulas' estimates computed in Python" \
	ref info large.bf info.large
"$TOOL" info --measure large.bf >info.large-m || true
check "info --measure: the same counts, measured estimates" ref info large.bf info.large-m measured
same_file "info and info --measure agree on the counts" <(head -5 info.large) <(head -5 info.large-m)
check "info --measure: the estimates LevelDB's scheme gives (200,000 keys within 1%; rate over 1%)" \
	awk -F'\t' '$1 == "estimated_keys" { k = $2 } $1 == "false_positive_rate" { r = $2 }
		END { exit !(k > 198000 && k < 202000 && r > 0.01 && r < 0.02) }' info.large-m
check "info --raw --measure: both options together" "$TOOL" info --raw --measure large.bf

# Its cost, against what the same run measures: a 200 MB filter (random bytes,
# k 6) costs info no more than three times what loading it costs probe (read,
# check, one key), best of three each; probing millions of times took 25 s.
head -c 200000000 /dev/urandom >huge.bf
printf '\x06' >>huge.bf
best_of_3() {
	local best= t
	for _ in 1 2 3; do
		t=$( { TIMEFORMAT=%R; time "$@" >/dev/null; } 2>&1 )
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
	done
	echo "$best"
}
t_info=$(best_of_3 "$TOOL" info huge.bf)
t_load=$(best_of_3 "$TOOL" probe huge.bf key)
check "info of 200 MB: ${t_info} s, at most 3x probe's load of it (${t_load} s)" \
	awk -v a="$t_info" -v b="$t_load" 'BEGIN { exit !(a <= 3 * b) }'
rm -f huge.bf

"$TOOL" union -o ab.bf a.bf b.txt || true
check "union = bytewise OR of all but the k byte" ref combine or ab.bf a.bf b.bf
"$TOOL" union --output-format text a.txt b.bf >ab.txt || true
check "union, text output" ref combine or ab.txt a.bf b.bf
"$TOOL" intersect -o anb.bf a.bf b.bf || true
check "intersect = bytewise AND of all but the k byte" ref combine and anb.bf a.bf b.bf
"$TOOL" build --bits-per-key 8 -o c2.bf <(seq 1 40 | sed 's/^/third-/') || true
"$TOOL" union -o abc.bf a.bf b.bf c2.bf || true
check "union of three filters" ref combine or abc.bf a.bf b.bf c2.bf
"$TOOL" intersect --output-format text a.bf b.bf c2.bf >anbnc.txt || true
check "intersect of three filters" ref combine and anbnc.txt a.bf b.bf c2.bf
fails_with "union of filters of different sizes: exit 2, naming both files" \
	"a.bf (41 bytes, k=5) and c.bf (61 bytes, k=5)" "$TOOL" union a.bf c.bf
ref rewrite-k a.bf a-k4.bf 4
fails_with "intersect of filters of different k: exit 2, naming both files" \
	"a.bf (41 bytes, k=5) and a-k4.bf (41 bytes, k=4)" "$TOOL" intersect a.bf b.bf a-k4.bf
rm -f out.bf
"$TOOL" union -o out.bf a.bf c.bf 2>/dev/null || true
check "union that fails writes no output file" test ! -e out.bf
fails_with "union of one filter is a usage error" "usage:" "$TOOL" union a.bf

for spec in "text:key-7:6b65792d37" "text:not-a-key:6e6f742d612d6b6579" \
	"hex:\\x00ff80:00ff80" "int64:-1:ffffffffffffffff" \
	"uuid:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11:a0eebc999c0b4ef8bb6d6bb9bd380a11"; do
	type=${spec%%:*} rest=${spec#*:}
	key=${rest%:*} hex=${rest##*:}
	"$TOOL" probe --key-type "$type" a.bf -- "$key" >explain.probe || true
	if "$TOOL" explain --key-type "$type" a.bf -- "$key" >explain.out 2>explain.err; then
		check "explain $type $key: hash, delta, each probe's h, bit, byte and value, recomputed in Python" \
			ref explain a.bf "$hex" explain.out "$(cut -f2 explain.probe)"
	else
		not_ok "explain $type $key" "$(cat explain.err)"
	fi
done
check "explain covers both answers (a key added, one not)" \
	test "$("$TOOL" explain a.bf key-7 | tail -1 | cut -f2)" = "may contain"
check "explain of a key not added reads a clear bit" \
	test "$("$TOOL" explain c.bf key-7 | tail -1 | cut -f2)" = "definitely absent"

"$TOOL" picture --regions 16 a.bf >a.svg || true
check "picture: parseable SVG, 16 cells, each cell's count recomputed in Python" ref svg a.svg a.bf 16
"$TOOL" picture --regions 7 --width 300 c20.txt >c.svg || true
check "picture: 7 regions (an uneven grid) of a text-form filter" ref svg c.svg c20.txt 7
"$TOOL" picture --regions 1000 a.bf >many.svg || true
check "picture: more regions than bits gives one a bit" ref svg many.svg a.bf 1000
"$TOOL" picture --regions 16 a.bf >a2.svg || true
same_file "picture output is deterministic" a.svg a2.svg
"$TOOL" picture --regions 16 -o a3.svg a.bf || true
same_file "picture -o writes the same SVG" a.svg a3.svg

# ---- errors and exit statuses ---------------------------------------------

printf '1\n2\n12x\n4\n' >keys.txt
fails_with "a bad int64 line: file, line, what" \
	'bloomfilter: keys.txt:3: "12x" is not a 64-bit integer' \
	"$TOOL" build --key-type int64 --bits-per-key 10 keys.txt
printf '1\n9223372036854775808\n' >big.txt
fails_with "an int64 out of range" 'big.txt:2: "9223372036854775808" is out of range' \
	"$TOOL" build --key-type int64 --bits-per-key 10 big.txt
fails_with "an int64 of 20 digits" '"99999999999999999999" is out of range' \
	"$TOOL" probe --key-type int64 a.bf 99999999999999999999
fails_with "an int64 below min" '"-9223372036854775809" is out of range' \
	"$TOOL" probe --key-type int64 a.bf -9223372036854775809
printf -- '-9223372036854775808\n9223372036854775807\n' | "$TOOL" build --key-type int64 --bits-per-key 10 >/dev/null 2>&1 &&
	ok "int64 min and max are read" || not_ok "int64 min and max are read"
printf 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\na0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1\n' >uuids.txt
fails_with "a bad uuid: file, line, what" 'uuids.txt:2: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1" is not a uuid' \
	"$TOOL" build --key-type uuid --bits-per-key 10 uuids.txt
printf '00\n0g\n' >hex1.txt
fails_with "bad hex (a bad digit): file, line, what" "hex1.txt:2: \"0g\" is not hex: 'g' is not a hex digit" \
	"$TOOL" build --key-type hex --bits-per-key 10 hex1.txt
printf 'abc\n' >hex2.txt
fails_with "bad hex (odd digits): file, line, what" 'hex2.txt:1: "abc" is not hex: it has an odd number of hex digits' \
	"$TOOL" build --key-type hex --bits-per-key 10 hex2.txt
fails_with "probe reads keys from stdin with line numbers" 'stdin:2: "x" is not a 64-bit integer' \
	"$TOOL" probe --key-type int64 a.bf < <(printf '5\nx\n')
fails_with "a bad key on the command line" '"12x" is not a 64-bit integer' \
	"$TOOL" probe --key-type int64 a.bf 12x
rm -f out.bf
"$TOOL" build --key-type int64 --bits-per-key 10 -o out.bf keys.txt 2>/dev/null || true
check "a failed build with -o leaves no output and no temporary file" \
	test -z "$(ls out.bf* 2>/dev/null)"
cp a.bf out.bf
"$TOOL" build --key-type int64 --bits-per-key 10 -o out.bf keys.txt 2>/dev/null || true
same_file "a failed build with -o leaves an existing OUT as it was" a.bf out.bf

# -o writes regular files only, and replaces one without changing what it is
# (its mode, its owner, its other names); anything else is refused, untouched.
seq 5 >five.keys
# out_refused DESCRIPTION WHAT OUT: the build fails, naming OUT and WHAT it is,
# and leaves no temporary file beside it
out_refused() {
	fails_with "$1" "$3: refusing to" "$TOOL" build --bits-per-key 10 -o "$3" five.keys
	if grep -qF -- "$2" "$WORK/fw.err"; then ok "... the message says it is $2"
	else not_ok "... the message says it is $2" "$(cat "$WORK/fw.err")"; fi
	check "... and no temporary file is left beside it" \
		test -z "$(find "$(dirname "$3")" -maxdepth 1 -name "$(basename "$3").??????" 2>/dev/null)"
}
if [ -c /dev/full ] && [ -w /dev/full ]; then
	out_refused "-o /dev/full is refused (a device)" "a character device" /dev/full
	check "/dev/full is still a character device" test -c /dev/full
fi
echo "the target" >target.txt
ln -s target.txt link.bf
out_refused "-o a symbolic link is refused" "a symbolic link" link.bf
check "... the link is still a link to the same target" test -L link.bf -a "$(readlink link.bf)" = target.txt
check "... and the target is untouched" test "$(cat target.txt)" = "the target"
ln -s nowhere.bf dangling.bf
out_refused "-o a dangling symbolic link is refused" "a symbolic link" dangling.bf
check "... and nothing is created where it points" test ! -e nowhere.bf
mkfifo fifo.bf
# A FIFO opened for writing waits for a reader: this test holds one open
# (read-write, which does not wait), so that a tool that opened it would
# write its filter there and succeed, and the check fails without a clock.
exec 3<>fifo.bf
out_refused "-o a FIFO is refused, without waiting for a reader" "a FIFO" fifo.bf
exec 3<&-
check "... and it is still a FIFO" test -p fifo.bf
mkdir outdir
out_refused "-o a directory is refused" "a directory" outdir
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock.bf 2>/dev/null; then
	out_refused "-o a socket is refused" "a socket" sock.bf
	check "... and it is still a socket" test -S sock.bf
fi
for command in "union a.bf a.bf" "intersect a.bf a.bf" "picture a.bf"; do
	fails_with "$command -o a symbolic link is refused" "link.bf: refusing to" \
		"$TOOL" $command -o link.bf
done
check "... the target is still untouched" test "$(cat target.txt)" = "the target"

echo old >mode.bf
chmod 600 mode.bf
check "-o over a 0600 file succeeds" "$TOOL" build --bits-per-key 10 -o mode.bf five.keys
check "... and the file is still 0600" test "$(stat -c %a mode.bf)" = 600
"$TOOL" build --bits-per-key 10 -o mode.ref five.keys
same_file "... and holds the new filter" mode.ref mode.bf
chmod 640 mode.bf
"$TOOL" union --output-format text -o mode.bf a.bf a.bf
check "union -o over a 0640 file keeps 0640" test "$(stat -c %a mode.bf)" = 640
(umask 077 && "$TOOL" build --bits-per-key 10 -o umask.bf five.keys)
check "a new file gets the umask's mode (077: 0600)" test "$(stat -c %a umask.bf)" = 600
(umask 022 && "$TOOL" build --bits-per-key 10 -o umask2.bf five.keys)
check "a new file gets the umask's mode (022: 0644)" test "$(stat -c %a umask2.bf)" = 644

cp a.bf linked.bf
ln linked.bf other-name.bf
fails_with "-o a file with two hard links is refused" "2 hard links" \
	"$TOOL" build --bits-per-key 10 -o linked.bf five.keys
same_file "... and both names still hold the old bytes" a.bf other-name.bf
check "... and they are still one file" test linked.bf -ef other-name.bf

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	echo old >owned.bf
	chown 65534:65534 owned.bf
	chmod 604 owned.bf
	check "as root, -o over another user's file succeeds" \
		"$TOOL" build --bits-per-key 10 -o owned.bf five.keys
	check "... and the file keeps its owner, group and mode" \
		test "$(stat -c '%u:%g %a' owned.bf)" = "65534:65534 604"
	# a user who may write the directory but cannot give a file away
	# (keys on stdin, and WORK opened for the walk to shared/)
	chmod 711 "$WORK"
	mkdir shared && chmod 777 shared
	echo old >shared/root.bf
	chmod 666 shared/root.bf
	fails_with "-o over a file whose owner cannot be kept is refused" "could not be kept" \
		bash -c 'setpriv --reuid=65534 --regid=65534 --clear-groups "$1" build --bits-per-key 10 -o shared/root.bf <five.keys' _ "$TOOL"
	check "... and it still holds its old bytes, owned by root" \
		test "$(cat shared/root.bf)" = old -a "$(stat -c %u shared/root.bf)" = 0
	check "... and no temporary file is left beside it" \
		test -z "$(find shared -name 'root.bf.??????')"
fi

# A write that fails part way (a file size limit; SIGXFSZ ignored, so the
# write returns EFBIG) leaves OUT as it was and no temporary file.
seq 1 200000 >many.keys
cp a.bf big.bf
rc=0
(ulimit -f 8 && trap '' XFSZ && exec "$TOOL" build --bits-per-key 10 -o big.bf many.keys) 2>big.err || rc=$?
check "a write that fails part way exits 2" test "$rc" -eq 2
same_file "... and leaves OUT as it was" a.bf big.bf
check "... and no temporary file" test -z "$(ls big.bf.?????? 2>/dev/null)"

printf '\x00\x00\x00\x00\x00\x00\x00\x00\x00' >k0.bf
fails_with "a filter whose last byte is 0" "bloomfilter: k0.bf: " "$TOOL" info k0.bf
printf '\x00\x00\x00\x00\x00\x00\x00\x00\x1f' >k31.bf
fails_with "a filter whose last byte is 31" "bloomfilter: k31.bf: " "$TOOL" probe k31.bf a
printf '\\x00000000000000001f\n' >k31.txt
fails_with "a filter in text form whose last byte is 31" "bloomfilter: k31.txt: " "$TOOL" explain k31.txt a
printf '\x06' >short.bf
fails_with "a 1-byte filter" "bloomfilter: short.bf: " "$TOOL" info short.bf
: >empty.bf
fails_with "an empty filter file" "bloomfilter: empty.bf: " "$TOOL" picture empty.bf
fails_with "a filter file that does not exist" "bloomfilter: missing.bf: No such file or directory" \
	"$TOOL" info missing.bf
mkdir adir
fails_with "a filter 'file' that is a directory" "bloomfilter: adir: " "$TOOL" union a.bf adir
fails_with "a keys file that does not exist" "bloomfilter: nokeys.txt: " \
	"$TOOL" build --bits-per-key 10 nokeys.txt
# the different sentences show the library's messages come through
e0=$("$TOOL" info k0.bf 2>&1 || true)
e31=$("$TOOL" info k31.bf 2>&1 || true)
e1=$("$TOOL" info short.bf 2>&1 || true)
check "the three bad filters get three different messages" \
	test "$e0" != "$e31" -a "$e31" != "$e1" -a "$e0" != "$e1"

# Text that is not the text form is not taken for raw bytes (it would be a
# filter of k 10, its final newline, answering at random). psql's table
# output, as psql 15 printed it for the filter of the keys 1 to 6 at 10 bits
# a key (the bytes 11 81 41 31 03 a9 5d 37 06), gets a hint at -XAt.
printf '      bloom_agg       \n----------------------\n \\x1181413103a95d3706\n(1 row)\n\n' >aligned.out
printf -- '-[ RECORD 1 ]-----------\nf | \\x1181413103a95d3706\n\n' >expanded.out
printf 'f\n\\x1181413103a95d3706\n(1 row)\n' >unaligned.out
printf '\\x1181413103a95d3706\n' >at.txt
seq 1 6 | "$TOOL" build --bits-per-key 10 -o six.bf
check "the sample is psql's value of the filter of 1 to 6" ref same-filter six.bf at.txt
for out in aligned expanded unaligned; do
	fails_with "probe refuses psql's $out output, with a hint at psql -XAt" "psql -XAt" \
		"$TOOL" probe $out.out 1
done
for command in "union aligned.out" "intersect six.bf" "explain --key-type text" "probe --unchecked"; do
	fails_with "$command refuses psql's aligned output, with the hint" "aligned.out: The input is psql's table output" \
		"$TOOL" $command aligned.out 1
done
for command in info picture; do
	fails_with "$command refuses psql's aligned output, with the hint" "aligned.out: The input is psql's table output" \
		"$TOOL" $command aligned.out
done
fails_with "psql's aligned output on stdin: refused with the hint" "stdin: The input is psql's table output" \
	"$TOOL" probe - 1 <aligned.out
check "psql -XAt's output answers true for keys 1 to 6" \
	test "$("$TOOL" probe at.txt 1 2 3 4 5 6 | cut -f2 | sort -u)" = true
printf '1181413103a95d3706\n' >nox.txt
fails_with "hex without \\x is refused as text, not a filter" "nox.txt: The input is text but not a filter's text form" \
	"$TOOL" info nox.txt
check "... and the message offers --raw" grep -qF -- "--raw reads it" "$WORK/fw.err"
printf '\\\\x1181413103a95d3706\n' >doubled.txt
fails_with "a doubled \\\\x (COPY's text format) is refused as text" "doubled.txt: The input is text but not" \
	"$TOOL" probe doubled.txt 1
printf '\\x11814131zz03a95d3706\n' >badhex.txt
fails_with "text starting \\x with a bad digit: the text form's error" "only hex digits" \
	"$TOOL" probe badhex.txt 1
printf 'caf\xc3\xa9 au lait\n' >utf8.txt
fails_with "UTF-8 text is refused as text" "utf8.txt: The input is text but not" "$TOOL" info utf8.txt

# --raw: a file that does hold raw bytes, all of them text (a bit array of
# printable bytes and k 10, a newline), is read as they are
printf 'abcdefgh\n' >textlike.bf
fails_with "raw bytes that are all text are refused without --raw" "textlike.bf: The input is text" \
	"$TOOL" probe textlike.bf a
for command in probe "probe --unchecked"; do
	"$TOOL" $command --raw textlike.bf a b key-7 1 >raw-probe.out || true
	ref probe-raw textlike.bf raw-probe.ref a b key-7 1
	same_file "$command --raw reads them as they are (answers from the Python reference)" raw-probe.ref raw-probe.out
done
"$TOOL" info --raw textlike.bf >raw-info.out || true
check "info --raw: counted in Python" ref info textlike.bf raw-info.out
check "union --raw and intersect --raw of it with itself: the same bytes" \
	bash -c '"$1" union --raw -o u.bf textlike.bf textlike.bf && cmp -s u.bf textlike.bf &&
		"$1" intersect --raw textlike.bf textlike.bf | cmp -s - textlike.bf' _ "$TOOL"
check "explain --raw and picture --raw read it" \
	bash -c '"$1" explain --raw textlike.bf a >/dev/null && "$1" picture --raw textlike.bf >/dev/null' _ "$TOOL"
check "--raw takes the text form's characters for bytes (21 of them)" \
	bash -c '"$1" info --raw at.txt | grep -qx "bytes	21"' _ "$TOOL"
fails_with "--raw still validates: k 0" "k0.bf: " "$TOOL" info --raw k0.bf
printf '\x00\x00\x00\x00\x00\x00\x00\x00\x1f' >k31raw.bf
check "probe --unchecked --raw answers for any bytes (k 31: true)" \
	test "$("$TOOL" probe --unchecked --raw k31raw.bf a)" = $'a\ttrue'
fails_with "build takes no --raw" "unknown option" "$TOOL" build --raw --bits-per-key 10 five.keys

fails_with "build without --bits-per-key: usage, exit 2" "usage: bloomfilter build" \
	"$TOOL" build a.keys
fails_with "an unknown option: usage, exit 2" "unknown option" "$TOOL" info --frobnicate a.bf
fails_with "an unknown key type: usage, exit 2" "--key-type" "$TOOL" probe --key-type float a.bf 1
fails_with "an unknown command: exit 2" "is not a command" "$TOOL" frobnicate
fails_with "a negative --bits-per-key: exit 2" "--bits-per-key" "$TOOL" build --bits-per-key -1 a.keys

rc=0; "$TOOL" probe a.bf key-7 >/dev/null || rc=$?
check "probe of one key it may contain: exit 0" test "$rc" -eq 0
rc=0; "$TOOL" probe a.bf other-7 >/dev/null || rc=$?
check "probe of one key it does not contain: exit 1" test "$rc" -eq 1
rc=0; out=$("$TOOL" probe a.bf other-7 key-7) || rc=$?
check "probe of several keys: exit 0 and one line each" \
	test "$rc" -eq 0 -a "$out" = $'other-7\tfalse\nkey-7\ttrue'
rc=0; "$TOOL" probe --key-type int64 int64.a -5 >/dev/null || rc=$?
check "a negative int64 key is a key, not an option" test "$rc" -le 1

version=$(sed -n 's/^#define BLOOMFILTER_VERSION[[:space:]]*"\(.*\)"/\1/p' "$HEADER")
check "--version prints the library's version" test "$("$TOOL" --version)" = "bloomfilter $version"
check "--help exits 0 and lists the commands" bash -c '"$1" --help | grep -q "bloomfilter picture"' _ "$TOOL"
check "help probe documents the exit status" bash -c '"$1" help probe | grep -q "Exit status"' _ "$TOOL"
check "probe --help is help probe" bash -c 'cmp -s <("$1" probe --help) <("$1" help probe)' _ "$TOOL"

# The manual page (tool/manpage.sh, from the tool's own help): groff reads
# it without a warning, and its text, as a terminal shows it, holds every
# word of --help's description and of each command's help, in order
# (compared with runs of white space as one space, since the page refills
# paragraphs; a word roff took for a request, or a lost block, fails it).
normalized() { tr -s '[:space:]' ' ' | sed 's/^ //; s/ $//'; }
if "$HERE/../tool/manpage.sh" "$TOOL" >"$WORK/bloomfilter.1" 2>"$WORK/manpage.err"; then
	ok "tool/manpage.sh writes the manual page"
else
	not_ok "tool/manpage.sh writes the manual page" "$(cat "$WORK/manpage.err")"
fi
if groff -man -Tascii -ww -P-cbou "$WORK/bloomfilter.1" >"$WORK/page.txt" 2>"$WORK/groff.err" &&
	[ ! -s "$WORK/groff.err" ]; then
	ok "groff renders the manual page without a warning"
else
	not_ok "groff renders the manual page without a warning" "$(cat "$WORK/groff.err")"
fi
page=$(normalized <"$WORK/page.txt")
commands=$("$TOOL" --help | sed -n '/^Commands:$/,/^$/s/^  bloomfilter \([a-z][a-z]*\) .*/\1/p' | grep -vx help)
check "--help lists 7 commands for the page" test "$(grep -c . <<<"$commands")" -eq 7
description=$("$TOOL" --help | sed -n '2,/^Commands:$/p' | sed '$d' | normalized)
check "the page's description is --help's" test -n "$description" -a "${page#*"$description"}" != "$page"
for command in $commands; do
	help=$("$TOOL" help "$command" | sed '1s/^usage: //' | normalized)
	if [ -n "$help" ] && [ "${page#*"$help"}" != "$page" ]; then
		ok "the page holds help $command, word for word"
	else
		not_ok "the page holds help $command, word for word" "$(diff <(tr ' ' '\n' <<<"$help") <(tr ' ' '\n' <<<"$page") | head -10)"
	fi
done

echo "tool: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
