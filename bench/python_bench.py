#!/usr/bin/env python3
"""Speed of the Python module bloomfilter's may_contain_many.

    python3 python/setup.py -q build --build-lib /tmp/bloomfilter-py
    python3 bench/python_bench.py /tmp/bloomfilter-py

Builds a filter of 1,000,000 str keys of 10 characters at 10 bits a key,
then probes 5,000,000 keys (half of them present) with may_contain_many,
and the same with int keys; each time is the median of 3 runs, on one
core (the module does not release the GIL).  Ends with
"may_contain_many: X.XM keys/s (target 5M)" for the slower of the two key
kinds, and whether the target is met.
"""
import os
import statistics
import sys
import time

KEYS = 1_000_000
PROBES = 5_000_000
BITS_PER_KEY = 10
RUNS = 3
TARGET = 5e6


def timed(fn):
    times = []
    result = None
    for _ in range(RUNS):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def bench(bf, label, keys, probes):
    build_s, f = timed(lambda: bf.BloomFilter.build(keys, BITS_PER_KEY))
    probe_s, answers = timed(lambda: f.may_contain_many(probes))
    hits = sum(answers)
    rate = len(probes) / probe_s
    print("%-4s keys: build %d keys %.3f s (%.1fM keys/s); may_contain_many "
          "%d keys %.3f s = %.1fM keys/s; %d matched (%d present)"
          % (label, len(keys), build_s, len(keys) / build_s / 1e6,
             len(probes), probe_s, rate / 1e6, hits, len(probes) // 2))
    return rate


def main(argv):
    if len(argv) != 2:
        print("usage: python3 bench/python_bench.py BUILD_DIR", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.abspath(argv[1]))
    import bloomfilter as bf

    # str keys: "k" and 9 digits = 10 characters; absent ones start with
    # "a".  The probes are objects of their own, made in order, as keys read
    # from a file or a socket are (not references to the filter's keys in
    # random order, which would time the cache misses of reaching them).
    str_keys = ["k%09d" % i for i in range(KEYS)]
    str_probes = []
    for i in range(PROBES // 2):
        str_probes.append("k%09d" % ((i * 7919) % KEYS))
        str_probes.append("a%09d" % i)
    str_rate = bench(bf, "str", str_keys, str_probes)
    del str_keys, str_probes

    int_keys = list(range(0, 3 * KEYS, 3))
    int_probes = []
    for i in range(PROBES // 2):
        int_probes.append(3 * ((i * 7919) % KEYS))
        int_probes.append(3 * i + 1 + (i & 1))
    int_rate = bench(bf, "int", int_keys, int_probes)

    rate = min(str_rate, int_rate)
    print("may_contain_many: %.1fM keys/s (target 5M) str %.1fM, int %.1fM: "
          "target %s" % (rate / 1e6, str_rate / 1e6, int_rate / 1e6,
                         "met" if rate >= TARGET else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
