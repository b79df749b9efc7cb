#!/usr/bin/env bash
#
# test/python_install_test.sh -- pip install ./python as a user runs it:
# into a fresh virtual environment made by `python3 -m venv` (pip and
# nothing else; no wheel, no system site packages), with the network
# unusable (PIP_NO_INDEX=1, proxies that lead nowhere, no pip config):
#
#   - pip install ./python                        (build isolation)
#   - pip install --no-build-isolation ./python
#   - pip wheel ./python: a wheel whose RECORD lists every file with its
#     hash and size;
#   - the backend's sdist, installed by pip away from the repository.
#
# Each install is imported from outside the tree and builds the bytes SQL
# wrote for the same keys: bloom_add(bloom_add(bloom_empty(2, 10),
# 'a'::text), 1::bigint) is \x0813206080000d0006, which is also
# bloom_agg's filter of those two keys at 10 bits a key.
#
# PYTHON picks the interpreter (default /usr/bin/python3, Debian's, else
# python3).  Prints one line a check and "python-install: N passed, N failed".

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
TREE=$(pwd)
WORK=
bf_mktemp_dir WORK

# the network, unusable; pip's own configuration, ignored
export PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9
export HTTP_PROXY=$http_proxy HTTPS_PROXY=$https_proxy PIP_PROXY=$http_proxy
unset PYTHONPATH PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL || true

BEFORE=$(git status --porcelain --ignored -- python)
VERSION=$(sed -nE 's/^#define[[:space:]]+BLOOMFILTER_VERSION[[:space:]]+"([^"]+)".*/\1/p' lib/bloomfilter.h)

# The checks of an installed module, run from $WORK (not the tree).
cat >"$WORK/check.py" <<'PY'
import sys
import bloomfilter

want_version, venv = sys.argv[1:]
f = bloomfilter.BloomFilter.build(["a", 1], 10)
m = bloomfilter.MutableBloomFilter.empty(2, 10)
m.add("a")
m.add(1)
print(bloomfilter.__file__.startswith(venv), bloomfilter.__version__ == want_version,
      f.to_text(), m.to_text())
PY
want="True True \\x0813206080000d0006 \\x0813206080000d0006"

new_venv() { # DIR
	"$PYTHON" -m venv "$1" >"$1.log" 2>&1
}

installed_works() { # NAME VENV
	local got
	got=$(cd "$WORK" && "$2/bin/python" check.py "$VERSION" "$2" 2>&1) || true
	if [ "$got" = "$want" ]; then
		pass "$1: the module imports from the venv and builds SQL's bytes"
	else
		fail "$1: the module imports from the venv and builds SQL's bytes (got: $got)"
	fi
}

nlog=0
pip_install() { # NAME VENV ARGS...
	local name=$1 venv=$2 log
	shift 2
	nlog=$((nlog + 1))
	log=$WORK/pip-$nlog.log
	if "$venv/bin/pip" install "$@" >"$log" 2>&1; then
		pass "$name: succeeds offline"
		installed_works "$name" "$venv"
	else
		tail -n 30 "$log"
		fail "$name: succeeds offline"
	fi
}

V=$WORK/venv
if new_venv "$V"; then
	pass "python3 -m venv makes a fresh environment ($("$V/bin/pip" --version | cut -d' ' -f1-2))"
else
	cat "$V.log"
	fail "python3 -m venv makes a fresh environment"
	check_summary python-install
	exit 1
fi
if "$V/bin/python" -c 'import wheel' 2>/dev/null; then
	fail "the fresh environment has no wheel (it has: the test proves nothing)"
else
	pass "the fresh environment has no wheel"
fi

pip_install "pip install ./python" "$V" ./python
"$V/bin/pip" uninstall -y bloomfilter >/dev/null 2>&1 || true
pip_install "pip install --no-build-isolation ./python" "$V" --no-build-isolation ./python

# from another directory, by an absolute path
V2=$WORK/venv2
new_venv "$V2"
pushd "$WORK" >/dev/null
pip_install "pip install /abs/path/python, from another directory" "$V2" "$TREE/python"
popd >/dev/null

# pip wheel: the wheel's RECORD is complete and right
mkdir -p "$WORK/wheels"
if "$V/bin/pip" wheel --no-deps -w "$WORK/wheels" ./python >"$WORK/wheel.log" 2>&1 &&
	"$V/bin/python" - "$WORK"/wheels/bloomfilter-"$VERSION"-*.whl <<'PY'; then
import base64, csv, hashlib, io, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
record = [n for n in names if n.endswith(".dist-info/RECORD")]
assert len(record) == 1, record
rows = list(csv.reader(io.StringIO(z.read(record[0]).decode())))
listed = {r[0] for r in rows}
assert listed == names, (listed ^ names)
for path, digest, size in rows:
    if path == record[0]:
        assert digest == size == "", path
        continue
    data = z.read(path)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert digest == want and int(size) == len(data), path
info = z.read(record[0].replace("RECORD", "WHEEL")).decode()
assert "Root-Is-Purelib: false" in info and "Tag: cp" in info, info
assert any(n.startswith("bloomfilter/_bloomfilter.") and n.endswith(".so") for n in names), names
PY
	pass "pip wheel ./python: a wheel whose RECORD lists every file, hashes and sizes right"
else
	tail -n 30 "$WORK/wheel.log"
	fail "pip wheel ./python: a wheel whose RECORD lists every file, hashes and sizes right"
fi

# the sdist carries the C sources: it installs away from the repository
mkdir -p "$WORK/sdist"
if sdist=$("$PYTHON" python/_build/bloomfilter_build.py sdist "$WORK/sdist" 2>"$WORK/sdist.log") &&
	[ "$sdist" = "bloomfilter-$VERSION.tar.gz" ] &&
	tar -tzf "$WORK/sdist/$sdist" >"$WORK/sdist.list" &&
	grep -qx "bloomfilter-$VERSION/vendor/lib/bloomfilter.c" "$WORK/sdist.list"; then
	pass "the backend's sdist holds the C sources ($sdist)"
	V3=$WORK/venv3
	new_venv "$V3"
	pip_install "pip install of the sdist" "$V3" "$WORK/sdist/$sdist"
else
	cat "$WORK/sdist.log"
	fail "the backend's sdist holds the C sources"
fi

# the tree keeps nothing of the builds
AFTER=$(git status --porcelain --ignored -- python)
if [ "$AFTER" = "$BEFORE" ]; then
	pass "the builds leave nothing in python/"
else
	fail "the builds leave nothing in python/: $(diff <(echo "$BEFORE") <(echo "$AFTER") | tr '\n' ' ')"
fi

check_summary python-install
