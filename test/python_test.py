#!/usr/bin/env python3
"""Tests of the Python module bloomfilter (python/).

Build the package into a directory, then run the tests against it:

    python3 python/setup.py -q build --build-lib /tmp/bloomfilter-py
    python3 test/python_test.py /tmp/bloomfilter-py

or both at once (the same build command, run by this script):

    python3 test/python_test.py --build /tmp/bloomfilter-py

Prints "ok N - ..." or "not ok N - ..." for each check and ends with
"python: N passed, M failed"; the exit status is 1 when a check failed,
2 on a usage error.

The expected figures are independent of the module: LevelDB's own filters
(test/data/vectors, written by libleveldb 1.23), key bytes composed here
with struct, LevelDB's Hash written again here in Python, bit counts and
bitwise OR/AND computed here.
"""
import enum
import hashlib
import math
import os
import pickle
import random
import struct
import stat
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VECTORS = os.path.join(ROOT, "test", "data", "vectors")
sys.path.insert(0, os.path.join(ROOT, "test", "lib"))
from leveldb_vectors import leveldb_hash, read_vector_dir  # noqa: E402

passed = 0
failed = 0


def check(name, condition, detail=None):
    global passed, failed
    n = passed + failed + 1
    if condition:
        passed += 1
        print("ok %d - %s" % (n, name))
    else:
        failed += 1
        print("not ok %d - %s" % (n, name))
        if detail is not None:
            print("#   %s" % (detail,))


def raises(exc, fn, *args):
    """The exception fn(*args) raises if it is an exc, else None."""
    try:
        fn(*args)
    except exc as e:
        return e
    except Exception as e:  # the wrong kind
        print("#   %r raised %r, not %s" % (args[:1], e, exc.__name__))
        return None
    return None


def test_vectors(bf, raw_probe):
    cases = read_vector_dir(VECTORS)
    check("vectors: 61 cases read", len(cases) == 61, len(cases))
    for c in cases:
        cid = c["id"]
        probe_keys = [k for k, _ in c["probes"]]
        expected = [a for _, a in c["probes"]]
        if c["kind"] == "create":
            check("%s: %d keys given" % (cid, c["nkeys"]),
                  len(c["keys"]) == c["nkeys"])
            f = bf.BloomFilter.build(c["keys"], c["bpk"])
            raw = bytes(f)
            if c["filter"] is not None:
                same = raw == c["filter"]
            else:
                same = hashlib.sha256(raw).hexdigest() == c["sha256"]
            check("%s: build gives LevelDB's bytes (%d bytes, k=%d)"
                  % (cid, c["filter_len"], c["filter_k"]),
                  same and len(raw) == c["filter_len"]
                  and raw[-1] == c["filter_k"],
                  "got %d bytes, k=%d" % (len(raw), raw[-1]))
            check("%s: build from a generator is the same" % cid,
                  bytes(bf.BloomFilter.build((k for k in c["keys"]), c["bpk"]))
                  == raw)
            g = bf.BloomFilter.from_bytes(raw)
            answers = [g.may_contain(k) for k in probe_keys]
            check("%s: %d probes answer as KeyMayMatch" % (cid, len(expected)),
                  answers == expected)
            check("%s: may_contain_many answers as KeyMayMatch" % cid,
                  g.may_contain_many(probe_keys) == expected)
        else:
            filt = c["filter"]
            valid = len(filt) >= 2 and 1 <= filt[-1] <= 30
            if valid:
                g = bf.BloomFilter.from_bytes(filt)
                answers = [g.may_contain(k) for k in probe_keys]
                many = g.may_contain_many(probe_keys)
            else:
                check("%s: from_bytes rejects the filter (%d bytes%s)"
                      % (cid, len(filt), ", k=%d" % filt[-1] if filt else ""),
                      raises(ValueError, bf.BloomFilter.from_bytes, filt)
                      is not None)
                answers = [raw_probe.may_contain(filt, k) for k in probe_keys]
                many = raw_probe.may_contain_many(filt, probe_keys)
            check("%s: %d probes answer as KeyMayMatch" % (cid, len(expected)),
                  answers == expected)
            check("%s: may_contain_many answers as KeyMayMatch" % cid,
                  many == expected)


# ---- keys ----

def compose(*fields):
    """SQL's bloom_key, written here with struct."""
    out = b""
    for v in fields:
        out += b"\xff\xff\xff\xff" if v is None else struct.pack(">I", len(v)) + v
    return out


def test_keys(bf):
    B = bf.BloomFilter
    rng = random.Random(42)

    ints = [-1, 0, 1, 5, -(2 ** 63), 2 ** 63 - 1, 255, 256, -256, 2 ** 32]
    ints += [rng.randrange(-(2 ** 63), 2 ** 63) for _ in range(200)]
    packed = [struct.pack(">q", v) for v in ints]
    f_int = B.build(ints, 10)
    check("int keys build the filter of their 8 big-endian bytes",
          f_int == B.build(packed, 10))
    check("key_bytes(int) is struct.pack('>q')",
          [bf.key_bytes(v) for v in ints] == packed)
    check("hash(int) is LevelDB's Hash of its 8 bytes",
          all(bf.hash(v) == leveldb_hash(p) for v, p in zip(ints, packed)))
    f_packed = B.build(packed, 10)
    check("int probes of a filter of bytes keys all match",
          all(v in f_packed for v in ints) and all(f_packed.may_contain_many(ints)))
    absent = [rng.randrange(-(2 ** 63), 2 ** 63) for _ in range(2000)]
    check("int probes answer as their bytes probes",
          f_int.may_contain_many(absent)
          == f_int.may_contain_many([struct.pack(">q", v) for v in absent]))

    class Color(enum.IntEnum):
        RED = 5

    five = struct.pack(">q", 5)
    f5 = B.build([five], 10)
    check("5 is the same key every way: int, IntEnum, in a generator, "
          "in may_contain and may_contain_many",
          B.build([5], 10) == f5 and B.build([Color.RED], 10) == f5
          and B.build(iter([5]), 10) == f5 and f5.may_contain(5)
          and f5.may_contain(Color.RED) and f5.may_contain_many([5, Color.RED])
          == [True, True] and bf.key_bytes(Color.RED) == five
          and bf.hash(5) == bf.hash(five) == leveldb_hash(five))
    check("5 as a tuple field is 8 bytes too",
          bf.key_bytes((5,)) == compose(five)
          and bf.key_bytes((Color.RED, "a")) == compose(five, b"a"))

    uuids = [uuid.UUID(int=0), uuid.UUID(int=2 ** 128 - 1)]
    uuids += [uuid.UUID(int=rng.getrandbits(128)) for _ in range(100)]
    f_uuid = B.build(uuids, 10)
    check("UUID keys build the filter of their .bytes",
          f_uuid == B.build([u.bytes for u in uuids], 10))
    check("key_bytes(UUID) is its .bytes",
          all(bf.key_bytes(u) == u.bytes for u in uuids))
    check("UUID probes match", all(f_uuid.may_contain_many(uuids))
          and all(u in f_uuid for u in uuids))

    strs = ["", "a", "apple", "héllo", "中文字符", "emoji 😀🎉", "ΑΒΓ",
            "x" * 1000, "tab\there", "nul\x00byte", "ÿ", "\u07ff\u0800\uffff"]
    strs += ["".join(chr(rng.choice([rng.randrange(32, 127),
                                     rng.randrange(0xA0, 0xD7FF),
                                     rng.randrange(0x10000, 0x10FFFF)]))
                     for _ in range(rng.randrange(0, 20))) for _ in range(300)]
    utf8 = [s.encode("utf-8") for s in strs]
    check("str keys build the filter of their UTF-8",
          B.build(strs, 10) == B.build(utf8, 10))
    check("key_bytes(str) is its UTF-8",
          [bf.key_bytes(s) for s in strs] == utf8)
    check("hash(str) is LevelDB's Hash of its UTF-8",
          all(bf.hash(s) == leveldb_hash(u) for s, u in zip(strs, utf8)))

    class MyStr(str):
        pass

    check("a str subclass is its UTF-8 too",
          bf.key_bytes(MyStr("héllo")) == "héllo".encode()
          and bf.key_bytes(MyStr("abc")) == b"abc")
    check("bytearray and memoryview keys are their bytes",
          bf.key_bytes(bytearray(b"ab\x00c")) == b"ab\x00c"
          and bf.key_bytes(memoryview(b"xyz")) == b"xyz"
          and bf.key_bytes(memoryview(b"0123456789")[2:5]) == b"234"
          and B.build([bytearray(b"k"), memoryview(b"l")], 10)
          == B.build([b"k", b"l"], 10))

    u = uuids[5]
    tuples = [
        ((1, "a"), compose(struct.pack(">q", 1), b"a")),
        ((None,), compose(None)),
        ((None, None), compose(None, None)),
        (("",), compose(b"")),
        ((b"",), compose(b"")),
        ((-1, None, b"\xff"), compose(struct.pack(">q", -1), None, b"\xff")),
        ((u, "x"), compose(u.bytes, b"x")),
        (("héllo", bytearray(b"b"), memoryview(b"m")),
         compose("héllo".encode(), b"b", b"m")),
        ((2 ** 63 - 1, -(2 ** 63)),
         compose(struct.pack(">q", 2 ** 63 - 1), struct.pack(">q", -(2 ** 63)))),
        (tuple(range(40)), compose(*[struct.pack(">q", i) for i in range(40)])),
        (("a" * 300, "b" * 70000), compose(b"a" * 300, b"b" * 70000)),
    ]
    check("key_bytes(tuple) is the key composed with struct ('>I' lengths, "
          "0xFFFFFFFF for None)",
          all(bf.key_bytes(t) == c for t, c in tuples),
          [t[:3] for t, c in tuples if bf.key_bytes(t) != c])
    check("tuple keys build the filter of their composed bytes",
          B.build([t for t, _ in tuples], 10)
          == B.build([c for _, c in tuples], 10))
    ft = B.build([t for t, _ in tuples], 10)
    check("tuple probes match", all(t in ft for t, _ in tuples)
          and all(ft.may_contain_many([t for t, _ in tuples])))


def test_errors(bf):
    B = bf.BloomFilter
    f = B.build(["a"], 10)
    for name, key in [("float", 1.5), ("bool", True), ("list", [1]),
                      ("dict", {}), ("None", None), ("object", object())]:
        e1 = raises(TypeError, B.build, [key], 10)
        e2 = raises(TypeError, f.may_contain, key)
        e3 = raises(TypeError, f.may_contain_many, ["a", key])
        check("a %s key is a TypeError in build, may_contain and "
              "may_contain_many" % name, e1 and e2 and e3)
    e = raises(TypeError, B.build, [1.5], 10)
    check("the TypeError names the type", e is not None and "float" in str(e),
          e)
    check("a bool, float, list or tuple tuple field is a TypeError",
          all(raises(TypeError, bf.key_bytes, (1, v)) for v in
              (True, 1.5, [1], (1,))))
    check("2**63 is an OverflowError (key, tuple field, probes)",
          raises(OverflowError, B.build, [2 ** 63], 10)
          and raises(OverflowError, f.may_contain, 2 ** 63)
          and raises(OverflowError, f.may_contain_many, [2 ** 63])
          and raises(OverflowError, bf.key_bytes, (2 ** 63,)))
    check("-2**63-1 and 2**200 are OverflowErrors",
          raises(OverflowError, bf.key_bytes, -(2 ** 63) - 1)
          and raises(OverflowError, bf.key_bytes, 2 ** 200))
    check("an empty tuple key is a ValueError",
          raises(ValueError, bf.key_bytes, ()))
    check("a negative bits_per_key is a ValueError",
          raises(ValueError, B.build, ["a"], -1))
    check("a str with a lone surrogate is a UnicodeEncodeError",
          raises(UnicodeEncodeError, bf.key_bytes, "a\ud800"))

    msgs = {}
    for label, data in [("1 byte", b"\x06"), ("0 bytes", b""),
                        ("k=0", b"\x00" * 8 + b"\x00"),
                        ("k=31", b"\x00" * 8 + bytes([31])),
                        ("k=255", b"\x00" * 8 + b"\xff"),
                        ("bad hex (str)", "\\x00zz06"),
                        ("bad hex (bytes)", b"\\xzz"),
                        ("odd hex (str)", "\\x00006"),
                        ("no \\x prefix (str)", "000006"),
                        ("a str of raw bytes", "\x00" * 8 + "\x06")]:
        e = raises(ValueError, B.from_bytes, data)
        check("from_bytes(%s) is a ValueError" % label, e is not None)
        msgs[label] = str(e)
    check("from_bytes errors say what is wrong, differently for length, k "
          "and hex", len({msgs["1 byte"], msgs["k=0"], msgs["k=31"],
                          msgs["bad hex (str)"], msgs["odd hex (str)"],
                          msgs["no \\x prefix (str)"]}) == 6
          and all(len(m) > 10 for m in msgs.values()), msgs)
    check("from_bytes(float) is a TypeError",
          raises(TypeError, B.from_bytes, 1.5))

    # Text that is not the text form is refused rather than read as raw
    # bytes, a filter of k 10 (its final newline) answering at random.
    # psql 15's table output of the filter of "1" to "6" at 10 bits a key:
    six = B.build([str(i) for i in range(1, 7)], 10)
    check("the psql sample's value is the filter of 1 to 6",
          bytes(six).hex() == "1181413103a95d3706", bytes(six).hex())
    aligned = (b"      bloom_agg       \n----------------------\n"
               b" \\x1181413103a95d3706\n(1 row)\n\n")
    expanded = b"-[ RECORD 1 ]-----------\nf | \\x1181413103a95d3706\n\n"
    unaligned = b"f\n\\x1181413103a95d3706\n(1 row)\n"
    for label, data in [("aligned bytes", aligned),
                        ("aligned str", aligned.decode()),
                        ("aligned bytearray", bytearray(aligned)),
                        ("expanded", expanded), ("unaligned", unaligned)]:
        e = raises(ValueError, B.from_bytes, data)
        check("from_bytes(psql's %s output) is a ValueError suggesting "
              "psql -XAt" % label, e is not None and "psql -XAt" in str(e), e)
    e = raises(ValueError, B, aligned)
    check("BloomFilter(psql's aligned output) too",
          e is not None and "psql -XAt" in str(e), e)
    check("psql -XAt's output reads as the filter: 1 to 6 present",
          B.from_bytes(b"\\x1181413103a95d3706\n") == six
          and all(six.may_contain_many([str(i) for i in range(1, 7)])))
    for label, data in [("hex without \\x", b"1181413103a95d3706\n"),
                        ("a doubled \\\\x", b"\\\\x1181413103a95d3706\n"),
                        ("UTF-8 text", "café\n".encode()),
                        ("printable bytes and a newline", b"abcdefgh\n")]:
        e = raises(ValueError, B.from_bytes, data)
        check("from_bytes(%s) is a ValueError offering raw=True" % label,
              e is not None and "raw=True" in str(e), e)
    e = raises(ValueError, B.from_bytes, b"\\x11814131zz03a95d3706\n")
    check("text starting \\x with a bad digit: the text form's error",
          e is not None and "hex digits" in str(e), e)

    textlike = b"abcdefgh\n"            # raw bytes of k 10 that are all text
    f_raw = B.from_bytes(textlike, raw=True)
    check("from_bytes(raw=True) takes them as they are",
          bytes(f_raw) == textlike and f_raw.k == 10
          and B(textlike, raw=True) == f_raw
          and B.from_bytes(bytearray(textlike), raw=True) == f_raw
          and B.from_bytes(memoryview(textlike), raw=True) == f_raw)
    probes = ["a", "b", "key-7", "1", "zz"]
    check("... and answers as LevelDB does on those bytes",
          f_raw.may_contain_many(probes)
          == [raw_may_match(textlike, k.encode()) for k in probes])
    check("... info() counts their bits",
          f_raw.info()["bits_set"] == popcount(textlike[:-1]))
    check("a filter that looks like text survives pickle",
          all(pickle.loads(pickle.dumps(f_raw, proto)) == f_raw
              for proto in range(pickle.HIGHEST_PROTOCOL + 1)))
    check("from_bytes(raw=True) does not read the text form",
          bytes(B.from_bytes(b"\\x1181413103a95d3706\n", raw=True))
          == b"\\x1181413103a95d3706\n")
    check("from_bytes(raw=True) still validates",
          raises(ValueError, B.from_bytes, b"\x00" * 8 + b"\x00", True)
          and raises(ValueError, B.from_bytes, b"\x06", True))
    check("from_bytes(str, raw=True) is a TypeError",
          raises(TypeError, B.from_bytes, "\\x0006", True))
    other = B.build(["a"] * 100, 10)
    check("union and intersection of different sizes are ValueErrors",
          raises(ValueError, lambda: f | other)
          and raises(ValueError, lambda: f & other))
    check("union and intersection of different k are ValueErrors",
          raises(ValueError, lambda: B.build(["a"], 10) | B.build(["a"], 11)))
    check("f | bytes is a TypeError",
          raises(TypeError, lambda: f | bytes(f)))


def close(a, b):
    return a == b or abs(a - b) <= 1e-12 * abs(b)


def best_time(fn, repeat=3):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        t = time.perf_counter() - t
        best = t if best is None else min(best, t)
    return best


def check_info_cost(B):
    """info() reads the bytes once: its cost against references measured in
    the same run, never a fixed time (simulating probes took 17-32 ms for a
    9-byte filter and 25 s for 200 MB)."""
    small = B.build(["a", "b", "c"], 10)
    t_info = best_time(lambda: [small.info() for _ in range(10000)])
    t_union = best_time(lambda: [small | small for _ in range(10000)])
    check("info() of a 9-byte filter: %.2f us a call, at most 10 times a "
          "union's (%.2f us)" % (t_info * 100, t_union * 100),
          t_info <= 10 * t_union)
    raw = random.Random(11).randbytes(64 << 20) + b"\x06"
    big = B.from_bytes(raw, raw=True)
    t_info = best_time(big.info)
    t_pop = best_time(lambda: int.from_bytes(raw, "little").bit_count())
    check("info() of 64 MB: %.3f s, at most 2 times a popcount of the same "
          "bytes in Python (%.3f s)" % (t_info, t_pop), t_info <= 2 * t_pop)
    check("... and its bits_set is that popcount",
          big.info()["bits_set"] == int.from_bytes(raw[:-1], "little").bit_count())


def raw_may_match(filt, key):
    """LevelDB's KeyMayMatch on filt's bytes, written here (util/bloom.cc)."""
    bits = (len(filt) - 1) * 8
    k = filt[-1]
    if len(filt) < 2:
        return False
    if k > 30:
        return True
    h = leveldb_hash(key)
    delta = ((h >> 17) | (h << 15)) & 0xFFFFFFFF
    for _ in range(k):
        b = h % bits
        if not filt[b // 8] & (1 << (b % 8)):
            return False
        h = (h + delta) & 0xFFFFFFFF
    return True


def popcount(b):
    return sum(bin(x).count("1") for x in b)


def test_filters(bf):
    B = bf.BloomFilter
    keys = ["key%d" % i for i in range(10000)]
    f = B.build(keys, 10)
    raw = bytes(f)
    check("bytes(f) is the raw filter, k=6 at 10 bits a key",
          isinstance(raw, bytes) and len(raw) == 12501 and raw[-1] == 6)
    text = f.to_text()
    check("to_text is \\x and lowercase hex", text == "\\x" + raw.hex())
    check("from_bytes of raw bytes, bytearray, memoryview",
          B.from_bytes(raw) == f and B.from_bytes(bytearray(raw)) == f
          and B.from_bytes(memoryview(raw)) == f and B(raw) == f)
    check("from_bytes of the text form as str and bytes",
          B.from_bytes(text) == f and B.from_bytes(text.encode()) == f)
    check("from_bytes of upper-case hex and trailing whitespace",
          B.from_bytes("\\x" + raw.hex().upper() + " \n") == f
          and B.from_bytes(text.encode() + b"\t") == f)
    check("from_bytes of a filter that starts with \\x is raw",
          bytes(B.from_bytes(b"\\x" + b"\x00" * 7 + b"\x06"))
          == b"\\x" + b"\x00" * 7 + b"\x06")

    info = f.info()
    bits_set = popcount(raw[:-1])
    check("info(): bytes, bits, k", info["bytes"] == len(raw)
          and info["bits"] == 8 * (len(raw) - 1) and info["k"] == raw[-1],
          info)
    check("info(): bits_set is the count of 1 bits (%d)" % bits_set,
          info["bits_set"] == bits_set, info["bits_set"])
    check("info(): fill_ratio is bits_set / bits",
          abs(info["fill_ratio"] - bits_set / info["bits"]) < 1e-12,
          info["fill_ratio"])
    check("info(): estimated_keys within 3% of 10,000",
          abs(info["estimated_keys"] - 10000) < 300, info["estimated_keys"])
    absent = ["absent%d" % i for i in range(100000)]
    measured = sum(f.may_contain_many(absent)) / len(absent)
    check("info(): false_positive_rate near the measured %.4f" % measured,
          0.5 * measured < info["false_positive_rate"] < 2 * measured,
          info["false_positive_rate"])
    fill, k = bits_set / info["bits"], raw[-1]
    check("info(): the estimates are the ideal filter's formulas, computed here",
          close(info["estimated_keys"], -info["bits"] / k * math.log1p(-fill))
          and close(info["false_positive_rate"], fill ** k), info)
    measured_info = f.info(measure=True)
    check("info(measure=True): the same counts",
          all(measured_info[n] == info[n]
              for n in ("bytes", "bits", "k", "bits_set", "fill_ratio")),
          measured_info)
    check("info(measure=True): estimated_keys within 3% of 10,000",
          abs(measured_info["estimated_keys"] - 10000) < 300, measured_info)
    check("info(measure=True): false_positive_rate near the measured %.4f"
          % measured, 0.5 * measured < measured_info["false_positive_rate"]
          < 2 * measured, measured_info)
    check("info(measure) takes any truth value; positional too",
          f.info(True) == measured_info and f.info(0) == info)
    full = B.from_bytes(b"\xff" * 8 + b"\x06")
    check("info() of a full filter: estimated_keys is infinite, rate 1",
          full.info()["estimated_keys"] == math.inf
          and full.info()["false_positive_rate"] == 1.0, full.info())
    check_info_cost(B)
    empty = B.build([], 10)
    check("info() of an empty filter: 0 bits set, 0 keys",
          empty.info()["bits_set"] == 0 and empty.info()["estimated_keys"] == 0
          and bytes(empty) == b"\x00" * 8 + b"\x06", empty.info())

    g = B.build(["other%d" % i for i in range(10000)], 10)
    gr = bytes(g)
    check("f | g is the bytewise OR",
          bytes(f | g) == bytes(a | b for a, b in zip(raw[:-1], gr[:-1]))
          + raw[-1:])
    check("f & g is the bytewise AND",
          bytes(f & g) == bytes(a & b for a, b in zip(raw[:-1], gr[:-1]))
          + raw[-1:])
    check("union and intersection leave both operands as they were",
          bytes(f) == raw and bytes(g) == gr)
    u = f | g
    check("the union may contain every key of both",
          all(u.may_contain_many(keys)) and all(u.may_contain_many(
              ["other%d" % i for i in range(10000)])))

    check("== compares bytes", f == B.from_bytes(raw) and f != g
          and not (f == raw) and f != empty)
    check("equal filters hash alike; filters work as dict keys",
          hash(f) == hash(B.from_bytes(text)) and {f: 1}[B(raw)] == 1)
    check("repr", repr(f) == "<BloomFilter bytes=12501 k=6>", repr(f))
    check("pickle round trip", all(
        pickle.loads(pickle.dumps(f, proto)) == f
        for proto in range(pickle.HIGHEST_PROTOCOL + 1)))
    check("k and nbytes", f.k == 6 and f.nbytes == 12501)
    check("in uses may_contain", "key0" in f and ("absent0" in f)
          == f.may_contain("absent0"))

    rng = random.Random(7)
    mixed = []
    for i in range(10000):
        r = i % 9
        if r == 0:
            mixed.append("key%d" % rng.randrange(20000))
        elif r == 1:
            mixed.append(rng.randrange(-(2 ** 63), 2 ** 63))
        elif r == 2:
            mixed.append(rng.randrange(-50, 50))
        elif r == 3:
            mixed.append(("key%d" % rng.randrange(20000)).encode())
        elif r == 4:
            mixed.append(bytearray(rng.getrandbits(8) for _ in range(5)))
        elif r == 5:
            mixed.append(uuid.UUID(int=rng.getrandbits(128)))
        elif r == 6:
            mixed.append((rng.randrange(100), None, "x"))
        elif r == 7:
            mixed.append("ключ%d" % rng.randrange(100))
        else:
            mixed.append(memoryview(b"key%d" % rng.randrange(20000)))
    fm = B.build(mixed[: 5000], 8)
    one_by_one = [fm.may_contain(k) for k in mixed]
    check("may_contain_many equals may_contain on 10,000 mixed keys",
          fm.may_contain_many(mixed) == one_by_one)
    check("... and on a tuple and a generator of them",
          fm.may_contain_many(tuple(mixed)) == one_by_one
          and fm.may_contain_many(k for k in mixed) == one_by_one)
    check("... the first 5,000 were added: all match",
          all(one_by_one[:5000]) and 0 < sum(one_by_one[5000:]) < 5000)
    check("may_contain_many([]) is []", fm.may_contain_many([]) == [])


def test_functions(bf):
    rates = [bf.expected_fpr(b) for b in range(0, 41)]
    check("expected_fpr(0) is 1 and falls as bits_per_key grows",
          rates[0] == 1.0 and all(b < a for a, b in zip(rates, rates[1:11]))
          and rates[40] < rates[30] < rates[20] < rates[10]
          and 0.005 < rates[10] < 0.02, rates[10])
    ok = True
    for target in (0.5, 0.1, 0.05, 0.01, 0.001, 5e-4, 3e-4):
        b = bf.bits_per_key_for_fpr(target)
        if not (rates[b] <= target and all(r > target for r in rates[:b])):
            ok = False
    check("bits_per_key_for_fpr is the least bits_per_key whose "
          "expected_fpr reaches the target", ok)
    check("bits_per_key_for_fpr of a rate below the 32-bit hash collisions "
          "is a ValueError", raises(ValueError, bf.bits_per_key_for_fpr, 1e-6))
    check("bits_per_key_for_fpr outside (0, 1) is a ValueError",
          all(raises(ValueError, bf.bits_per_key_for_fpr, t)
              for t in (0, 1, -0.5, 2, float("nan"))))
    check("k_for_bits_per_key is floor(0.69 bpk) in 1..30",
          all(bf.k_for_bits_per_key(b) == min(30, max(1, int(b * 0.69)))
              for b in range(0, 100)))
    check("hash(bytes) is LevelDB's Hash",
          all(bf.hash(k) == leveldb_hash(k) for k in
              [b"", b"a", b"ab", b"abc", b"abcd", b"\x80", b"\xff\xfe\xfd",
               b"hello world!!", bytes(range(256))]))
    check("__version__ is the header's BLOOMFILTER_VERSION", "#define BLOOMFILTER_VERSION\t\t\t\"%s\"" % bf.__version__
          in open(os.path.join(ROOT, "lib", "bloomfilter.h")).read()
          and bf.library_version() == bf.__version__, bf.__version__)


# ---- reserved filters: empty / for_capacity, then add and update ----

def test_reserved(bf):
    B, M = bf.BloomFilter, bf.MutableBloomFilter
    # LevelDB's filters, again key by key into the empty filter of their size
    n = 0
    for c in read_vector_dir(VECTORS):
        if c["kind"] != "create" or c["bpk"] < 0:
            continue
        keys = c["keys"]
        m = M.empty(len(keys), c["bpk"])
        empty_ok = (m.nbytes == c["filter_len"] and m.k == c["filter_k"]
                    and not any(bytes(m)[:-1]))
        half = len(keys) // 2
        for k in keys[:half]:
            m.add(k)
        m.update(iter(keys[half:]))
        raw = bytes(m)
        same = (raw == c["filter"] if c["filter"] is not None
                else hashlib.sha256(raw).hexdigest() == c["sha256"])
        if not (empty_ok and same):
            check("%s: empty(n, bpk) then add/update of each key is LevelDB's "
                  "filter" % c["id"], False)
        n += 1
    check("vectors: empty(n, bpk), then add and update key by key, give "
          "LevelDB's bytes (%d cases)" % n, n > 40)

    # bytes SQL wrote (PostgreSQL 15, bloomfilter 1.3):
    #   SELECT bloom_empty(0, 10)  -- also doc/reference.md
    #   SELECT bloom_add(bloom_add(bloom_add(bloom_add(bloom_empty(3,
    #          bloom_bits_per_key(0.01)), 'a'::text), 1::bigint),
    #          '00000000-0000-0000-0000-000000000001'::uuid),
    #          bloom_key(1, NULL::text, 'x'::text))
    check("empty(0, 10) is SQL's bloom_empty(0, 10)",
          B.empty(0, 10).to_text() == "\\x000000000000000006")
    m = M.for_capacity(3, 0.01)
    check("for_capacity(3, 0.01) is bloom_empty(3, bloom_bits_per_key(0.01))",
          m.to_text() == "\\x000000000000000007" and bf.bits_per_key_for_fpr(0.01) == 11)
    m.add("a")
    m.add(1)
    m.add(uuid.UUID(int=1))
    m.add((1, None, "x"))
    check("add of str, int, uuid and tuple keys is SQL's bloom_add, byte for byte",
          m.to_text() == "\\x4c573460c0051d5407", m.to_text())
    m2 = M.for_capacity(3, 0.01)
    m2.update(["a"], (k for k in [1, uuid.UUID(int=1), (1, None, "x")]))
    check("update of several iterables is the same", m2 == m)

    # the size is fixed: for_capacity is bits_per_key_for_fpr's size
    f = B.for_capacity(1000, 0.01)
    check("for_capacity(1000, 0.01): 1,375 bytes of bits and k 7, no bit set",
          type(f) is B and f.nbytes == 1376 and f.k == 7
          and bytes(f) == bytes(1375) + b"\x07")
    check("for_capacity's default error_rate is 0.01",
          B.for_capacity(1000) == f)
    m = M.for_capacity(10, 0.01)
    before = (m.nbytes, m.k)
    m.update(range(10))
    fill_at_capacity = m.info()["fill_ratio"]
    m.update(range(10, 1000))
    check("adding past the capacity keeps the size and k, and fills more bits",
          (m.nbytes, m.k) == before
          and m.info()["fill_ratio"] > fill_at_capacity)
    check("every key added is found",
          all(m.may_contain_many(list(range(1000)))))

    # keys of every accepted type, the same bytes as build's
    keys = ["apple", b"\x00\xff", bytearray(b"ba"), memoryview(b"mv"), 0, -1,
            2 ** 63 - 1, uuid.UUID(int=7), (None,), ("a", 1, None), ""]
    m = M.empty(len(keys), 10)
    for k in keys:
        m.add(k)
    check("add of every key type gives build's bytes",
          bytes(m) == bytes(B.build(keys, 10)))
    for bad in (True, 1.5, None, object(), 2 ** 63, [1]):
        m2 = m.copy()
        e = raises((TypeError, OverflowError), m2.add, bad)
        check("add(%r) raises and changes nothing" % (bad,),
              e is not None and m2 == m)
    m2 = m.copy()
    check("update stops at a bad key, the keys before it added",
          raises(TypeError, m2.update, ["new key", 1.5]) is not None
          and m2.may_contain("new key"))
    check("update of a non-iterable is a TypeError",
          raises(TypeError, m2.update, 5) is not None)

    # errors of the sizes
    for args, exc in (((-1, 10), ValueError), ((10, -1), ValueError),
                      ((True, 10), TypeError), ((1.0, 10), TypeError),
                      ((10, 1.5), TypeError), ((2 ** 64, 10), OverflowError)):
        check("empty%r raises %s" % (args, exc.__name__),
              raises(exc, B.empty, *args) is not None)
    for rate in (0, 1, 1.5, -0.1, float("nan")):
        check("for_capacity(10, %r) raises ValueError" % rate,
              raises(ValueError, B.for_capacity, 10, rate) is not None)
    check("for_capacity(-1, 0.01) raises ValueError",
          raises(ValueError, B.for_capacity, -1, 0.01) is not None)

    # immutable and hashable beside mutable and unhashable
    f = B.build(["x", "y"], 10)
    m = M(f)
    check("BloomFilter has no add or update (immutable, as frozenset)",
          not hasattr(f, "add") and not hasattr(f, "update"))
    check("MutableBloomFilter is not hashable (as set)",
          raises(TypeError, hash, m) is not None and M.__hash__ is None)
    check("MutableBloomFilter(f) is an equal mutable copy; f is unchanged by adds",
          m == f and f == m and isinstance(m, B))
    m.add("z")
    check("... which adds without touching f",
          m != f and "z" in m and f == B.build(["x", "y"], 10))
    g = m.freeze()
    check("freeze gives a hashable BloomFilter of the same bytes, a copy",
          type(g) is B and g == m and hash(g) == hash(B(bytes(m))))
    frozen = bytes(g)
    m.add("w")
    check("... that later adds do not change", bytes(g) == frozen and g != m)
    c = m.copy()
    c.add("v")
    check("copy is independent", type(c) is M and c != m)
    check("BloomFilter(m) is an immutable copy",
          type(B(m)) is B and B(m) == m)
    check("bytes(m) is bytes, a copy",
          type(bytes(m)) is bytes and type(m.to_bytes()) is bytes)
    p = pickle.loads(pickle.dumps(m))
    check("a pickled MutableBloomFilter comes back mutable and equal",
          type(p) is M and p == m)
    check("union and intersection of a mutable filter are mutable",
          type(m | g) is M and type(m & g) is M and type(g | m) is B)
    u = M.empty(2, 10)
    u.add("only")
    u |= f
    check("|= unions in place", u == (B.build(["x", "y"], 10) | B(bytes(u)))
          and "only" in u and "x" in u)
    u &= f
    check("&= intersects in place", u == (f & B(bytes(u))) and type(u) is M)
    check("|= of filters of another size is a ValueError",
          raises(ValueError, u.__ior__, B.empty(1000, 10)) is not None)
    check("MutableBloomFilter.build and from_bytes make mutable filters",
          type(M.build(["a"], 10)) is M and type(M.from_bytes(bytes(f))) is M)

    # save and load: raw bytes, or the text form, written atomically
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.bloom")
        m = M.for_capacity(100, 0.01)
        m.update(["a", "b", 3])
        m.save(path)
        with open(path, "rb") as fh:
            check("save writes the raw bytes", fh.read() == bytes(m))
        check("load reads them back (raw)", B.load(path) == m
              and type(B.load(path)) is B and type(M.load(path)) is M)
        old_umask = os.umask(0o022)
        os.umask(old_umask)
        check("a new file gets 0666 less the umask",
              stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~old_umask)
        os.chmod(path, 0o640)
        f.save(path, text=True)
        with open(path, "rb") as fh:
            check("save(text=True) writes the text form and a newline",
                  fh.read() == (f.to_text() + "\n").encode())
        check("a replaced file keeps its mode",
              stat.S_IMODE(os.stat(path).st_mode) == 0o640)
        check("load reads the text form", B.load(path) == f)
        check("load accepts a path-like object",
              B.load(__import__("pathlib").Path(path)) == f)
        check("save leaves no temporary file", os.listdir(d) == ["f.bloom"])
        with open(path, "wb") as fh:
            fh.write(b"hello world\n")
        check("load refuses text that is not the text form (ValueError)",
              raises(ValueError, B.load, path) is not None)
        check("load(raw=True) takes it as raw bytes (k 10)",
              B.load(path, raw=True).k == 10)
        check("load of a missing file is FileNotFoundError",
              raises(FileNotFoundError, B.load, path + ".none") is not None)
        link = os.path.join(d, "link")
        os.symlink(path, link)
        check("save refuses to replace a symbolic link",
              raises(OSError, f.save, link) is not None
              and os.path.islink(link))
        hard = os.path.join(d, "hard")
        os.link(path, hard)
        check("save refuses to replace a file with other hard links",
              raises(OSError, f.save, path) is not None)
        os.unlink(hard)
        check("save refuses to replace a directory",
              raises(OSError, f.save, d) is not None)
        check("save into a missing directory is FileNotFoundError",
              raises(FileNotFoundError, f.save,
                     os.path.join(d, "no", "f")) is not None)
        check("after refusals no temporary file is left",
              sorted(os.listdir(d)) == ["f.bloom", "link"])
        cwd = os.getcwd()
        os.chdir(d)
        try:
            f.save("rel.bloom")
            check("save to a relative path", B.load("rel.bloom") == f)
        finally:
            os.chdir(cwd)


def main(argv):
    args = argv[1:]
    build = "--build" in args
    args = [a for a in args if a != "--build"]
    if len(args) != 1:
        print("usage: python3 test/python_test.py [--build] BUILD_DIR",
              file=sys.stderr)
        return 2
    build_dir = os.path.abspath(args[0])
    if build:
        subprocess.check_call([sys.executable,
                               os.path.join(ROOT, "python", "setup.py"), "-q",
                               "build", "--build-lib", build_dir])
    sys.path.insert(0, build_dir)
    import bloomfilter as bf
    from bloomfilter import _bloomfilter as raw_probe

    check("bloomfilter is imported from %s" % build_dir,
          os.path.dirname(os.path.dirname(os.path.abspath(bf.__file__)))
          == build_dir, bf.__file__)
    test_vectors(bf, raw_probe)
    test_keys(bf)
    test_errors(bf)
    test_filters(bf)
    test_functions(bf)
    test_reserved(bf)
    print("python: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
