"""What the Python tests share: LevelDB's Hash (util/hash.cc, tail bytes
read unsigned, as in 1.23) written again in Python, independent of the C
code, and a reader of the known-answer vectors (test/data/vectors, format
in their README.txt), which libleveldb itself wrote.

Used by test/tool_test.sh and test/python_test.py.
"""
import os
import struct

M32 = 0xFFFFFFFF


def leveldb_hash(data, seed=0xBC9F1D34):
    m = 0xC6A4A793
    n = len(data)
    h = (seed ^ (n * m)) & M32
    i = 0
    while i + 4 <= n:
        h = (h + int.from_bytes(data[i:i + 4], "little")) & M32
        h = (h * m) & M32
        h ^= h >> 16
        i += 4
    rest = n - i
    if rest == 3:
        h = (h + (data[i + 2] << 16)) & M32
    if rest >= 2:
        h = (h + (data[i + 1] << 8)) & M32
    if rest >= 1:
        h = (h + data[i]) & M32
        h = (h * m) & M32
        h ^= h >> 24
    return h


def unhex(s):
    return b"" if s == "-" else bytes.fromhex(s)


def gen_keys(scheme, n):
    if scheme == "dec":
        return [str(i).encode() for i in range(n)]
    if scheme == "le32":
        return [struct.pack("<I", i) for i in range(n)]
    if scheme == "le24":
        return [struct.pack("<I", i)[:3] for i in range(n)]
    raise ValueError("unknown keygen scheme " + scheme)


def read_vector_file(path):
    """The cases of one .tsv file, each a dict: id, kind, keys, probes
    ((key, expected) pairs), filter (None when the file gives only its
    checksums), file, and where given bpk, nkeys, filter_len, filter_k and
    sha256."""
    cases, case = [], None
    name = os.path.basename(path)
    with open(path, encoding="ascii") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            tag = fields[0]
            if tag == "case":
                case = {"id": fields[1], "kind": fields[2], "keys": [],
                        "probes": [], "filter": None, "file": name}
            elif case is None:
                continue
            elif tag == "bpk":
                case["bpk"] = int(fields[1])
            elif tag == "nkeys":
                case["nkeys"] = int(fields[1])
            elif tag == "key":
                case["keys"].append(unhex(fields[1]))
            elif tag == "keygen":
                case["keys"] = gen_keys(fields[1], int(fields[2]))
            elif tag == "filter_len":
                case["filter_len"] = int(fields[1])
            elif tag == "filter_k":
                case["filter_k"] = int(fields[1])
            elif tag == "filter":
                case["filter"] = unhex(fields[1])
            elif tag == "filter_sha256":
                case["sha256"] = fields[1]
            elif tag == "probe":
                case["probes"].append((unhex(fields[1]), fields[2] == "1"))
            elif tag == "end":
                cases.append(case)
                case = None
    return cases


def read_vector_dir(directory):
    """The cases of every .tsv file of the directory, file by file in name
    order."""
    cases = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".tsv"):
            cases.extend(read_vector_file(os.path.join(directory, name)))
    return cases
