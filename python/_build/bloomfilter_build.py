"""The build backend of the Python module bloomfilter (PEP 517), in the
standard library alone: no setuptools, no wheel, nothing downloaded.

pyproject.toml names it (``build-backend = "bloomfilter_build"``,
``backend-path = ["_build"]``) with ``requires = []``, so

    pip install ./python                        (from the repository root)
    pip install --no-build-isolation ./python

work offline in a fresh ``python3 -m venv``.  The extension is compiled
with the interpreter's own compiler settings (sysconfig's CC, CFLAGS,
CCSHARED, LDSHARED, EXT_SUFFIX; CC, CFLAGS, CPPFLAGS, LDFLAGS and LDSHARED
from the environment override or add to them, as setuptools does), from
src/_bloomfilter.c, libbloomfilter (../lib/bloomfilter.c) and the
PostgreSQL-free core (../src/core, the CORE_OBJS list of ../Makefile).
The wheel is written here: the package, its .dist-info (METADATA, WHEEL,
RECORD).

An sdist carries those sources under vendor/, so it builds away from the
repository too.  setup.py (``python3 python/setup.py build``, Debian's
packaging) takes its source list and version from here.
"""
import base64
import concurrent.futures
import gzip
import hashlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

NAME = "bloomfilter"
SUMMARY = ("LevelDB bloom filters, byte for byte, as the bloomfilter "
           "PostgreSQL extension writes them")
REQUIRES_PYTHON = ">=3.9"
LICENSE = "PostgreSQL"

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTRA_CFLAGS = ["-std=gnu11", "-Wall", "-Wextra", "-fvisibility=hidden"]
LIBS = ["-lm", "-pthread"]


# ---- where the C sources are -------------------------------------------

def source_root():
    """The directory holding lib/ and src/core/: the repository checkout
    (python/..), or vendor/ inside an unpacked sdist."""
    for root in (os.path.dirname(HERE), os.path.join(HERE, "vendor")):
        if os.path.exists(os.path.join(root, "lib", "bloomfilter.c")):
            return root
    raise SystemExit("bloomfilter: libbloomfilter's sources (../lib, "
                     "../src/core) are not beside python/; build from the "
                     "repository checkout or from an sdist")


def core_sources(root=None):
    """src/core/*.c as the top-level Makefile lists them (CORE_OBJS); every
    src/core/*.c where there is no Makefile (an sdist holds only those)."""
    root = root or source_root()
    core = os.path.join(root, "src", "core")
    try:
        with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
            text = f.read().replace("\\\n", " ")
        m = re.search(r"^CORE_OBJS\s*:?=\s*(.*)$", text, re.M)
    except OSError:
        m = None
    if m:
        objs = m.group(1).split()
        sources = [os.path.join(root, o[:-2] + ".c") for o in objs if o.endswith(".o")]
    else:
        sources = sorted(os.path.join(core, n) for n in os.listdir(core)
                         if n.endswith(".c"))
    missing = [s for s in sources if not os.path.exists(s)]
    if not sources or missing:
        raise SystemExit("bloomfilter: the core sources are not where the "
                         "build expects them (%s)" % (missing or core))
    return sources


def version(root=None):
    """BLOOMFILTER_VERSION of lib/bloomfilter.h."""
    root = root or source_root()
    with open(os.path.join(root, "lib", "bloomfilter.h"), encoding="utf-8") as f:
        m = re.search(r'#define\s+BLOOMFILTER_VERSION\s+"([^"]+)"', f.read())
    return m.group(1)


def extension_sources(root=None):
    root = root or source_root()
    return ([os.path.join(HERE, "src", "_bloomfilter.c"),
             os.path.join(root, "lib", "bloomfilter.c")] + core_sources(root))


def include_dirs(root=None):
    root = root or source_root()
    return [os.path.join(root, "lib"), os.path.join(root, "src", "core")]


# ---- compiling ------------------------------------------------------------

def _var(name):
    return sysconfig.get_config_var(name) or ""


def _compiler():
    """(cc, cflags, ldshared, ldflags) as argument lists."""
    cc = os.environ.get("CC") or _var("CC")
    cflags = (shlex.split(_var("CFLAGS")) + shlex.split(_var("CCSHARED"))
              + shlex.split(os.environ.get("CFLAGS", ""))
              + shlex.split(os.environ.get("CPPFLAGS", "")))
    ldshared = os.environ.get("LDSHARED") or _var("LDSHARED")
    if "CC" in os.environ and "LDSHARED" not in os.environ and \
            ldshared.startswith(_var("CC")):
        ldshared = os.environ["CC"] + ldshared[len(_var("CC")):]
    ldflags = shlex.split(os.environ.get("LDFLAGS", ""))
    return shlex.split(cc), cflags, shlex.split(ldshared), ldflags


def _run(cmd):
    print(" ".join(shlex.quote(c) for c in cmd), flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if done.stdout:
        sys.stdout.write(done.stdout.decode(errors="replace"))
        sys.stdout.flush()
    if done.returncode != 0:
        raise SystemExit("bloomfilter: the command failed (exit %d): %s"
                         % (done.returncode, cmd[0]))


def build_extension(out_dir, temp_dir):
    """Compiles and links bloomfilter/_bloomfilter<EXT_SUFFIX> into
    out_dir; returns its path."""
    root = source_root()
    cc, cflags, ldshared, ldflags = _compiler()
    includes = ["-I" + d for d in include_dirs(root)]
    includes += ["-I" + sysconfig.get_paths()["include"]]
    plat_include = sysconfig.get_paths().get("platinclude")
    if plat_include and plat_include != sysconfig.get_paths()["include"]:
        includes.append("-I" + plat_include)
    sources = extension_sources(root)
    objects = []
    commands = []
    for i, src in enumerate(sources):
        obj = os.path.join(temp_dir, "%02d_%s.o" % (i, os.path.basename(src)[:-2]))
        objects.append(obj)
        commands.append(cc + cflags + EXTRA_CFLAGS + includes + ["-c", src, "-o", obj])
    workers = max(1, min(len(commands), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for future in [pool.submit(_run, c) for c in commands]:
            future.result()
    target = os.path.join(out_dir, NAME, "_bloomfilter" + _var("EXT_SUFFIX"))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    _run(ldshared + objects + ldflags + LIBS + ["-o", target])
    return target


# ---- the wheel ----------------------------------------------------------

def _tag():
    """The wheel's python-abi-platform tag for this interpreter."""
    major, minor = sys.version_info[:2]
    platform = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    if sys.implementation.name == "cpython":
        interpreter = "cp%d%d" % (major, minor)
        abi = interpreter + (getattr(sys, "abiflags", "") or "")
    else:
        interpreter = {"pypy": "pp"}.get(sys.implementation.name,
                                         sys.implementation.name) + "%d%d" % (major, minor)
        abi = re.sub(r"[^A-Za-z0-9_]", "_", _var("SOABI") or "none")
    return "%s-%s-%s" % (interpreter, abi, platform)


def _readme():
    try:
        with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def _metadata(ver):
    return ("Metadata-Version: 2.1\n"
            "Name: %s\n"
            "Version: %s\n"
            "Summary: %s\n"
            "License: %s\n"
            "Requires-Python: %s\n"
            "Description-Content-Type: text/markdown\n"
            "\n%s" % (NAME, ver, SUMMARY, LICENSE, REQUIRES_PYTHON, _readme()))


def _dist_info(ver):
    return "%s-%s.dist-info" % (NAME, ver)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (arcname, digest.decode("ascii"), len(data))


def _zip_write(zf, arcname, data, executable=False):
    info = zipfile.ZipInfo(arcname, date_time=_timestamp()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o755 if executable else 0o644) << 16
    zf.writestr(info, data)


def _timestamp():
    """SOURCE_DATE_EPOCH where set (reproducible builds), else now; a zip
    holds no date before 1980."""
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    return time.gmtime(max(epoch, 315532800))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    ver = version()
    path = os.path.join(metadata_directory, _dist_info(ver))
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(ver))
    with open(os.path.join(path, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return _dist_info(ver)


def _wheel_file():
    return ("Wheel-Version: 1.0\n"
            "Generator: bloomfilter_build\n"
            "Root-Is-Purelib: false\n"
            "Tag: %s\n" % _tag())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    ver = version()
    with tempfile.TemporaryDirectory(prefix="bloomfilter-build-") as tmp:
        out = os.path.join(tmp, "out")
        objs = os.path.join(tmp, "obj")
        os.makedirs(objs)
        ext = build_extension(out, objs)
        files = []
        package = os.path.join(HERE, NAME)
        for name in sorted(os.listdir(package)):
            if name.endswith(".py"):
                with open(os.path.join(package, name), "rb") as f:
                    files.append(("%s/%s" % (NAME, name), f.read(), False))
        with open(ext, "rb") as f:
            files.append(("%s/%s" % (NAME, os.path.basename(ext)), f.read(), True))
        dist_info = _dist_info(ver)
        files.append((dist_info + "/METADATA", _metadata(ver).encode("utf-8"), False))
        files.append((dist_info + "/WHEEL", _wheel_file().encode("utf-8"), False))
        licence = os.path.join(os.path.dirname(HERE), "LICENSE")
        if not os.path.exists(licence):
            licence = os.path.join(HERE, "LICENSE")
        if os.path.exists(licence):
            with open(licence, "rb") as f:
                files.append((dist_info + "/LICENSE", f.read(), False))
        record = [_record_line(a, d) for a, d, _ in files]
        record.append(dist_info + "/RECORD,,")
        wheel_name = "%s-%s-%s.whl" % (NAME, ver, _tag())
        partial = os.path.join(wheel_directory, wheel_name + ".part")
        with zipfile.ZipFile(partial, "w") as zf:
            for arcname, data, executable in files:
                _zip_write(zf, arcname, data, executable)
            _zip_write(zf, dist_info + "/RECORD",
                       ("\n".join(record) + "\n").encode("utf-8"))
        os.replace(partial, os.path.join(wheel_directory, wheel_name))
    return wheel_name


# ---- the sdist ----------------------------------------------------------

def build_sdist(sdist_directory, config_settings=None):
    """python/ as it is, with lib/ and src/core/ (the C sources and headers
    the extension is built from) under vendor/, and LICENSE."""
    root = source_root()
    ver = version(root)
    base = "%s-%s" % (NAME, ver)
    entries = []  # (arcname, path)
    for rel in ("pyproject.toml", "README.md", "_build/bloomfilter_build.py",
                "src/_bloomfilter.c"):
        entries.append((rel, os.path.join(HERE, rel)))
    for name in sorted(os.listdir(os.path.join(HERE, NAME))):
        if name.endswith(".py"):
            entries.append((NAME + "/" + name, os.path.join(HERE, NAME, name)))
    vendor = [("lib/bloomfilter.c", os.path.join(root, "lib", "bloomfilter.c")),
              ("lib/bloomfilter.h", os.path.join(root, "lib", "bloomfilter.h"))]
    core = os.path.join(root, "src", "core")
    for src in core_sources(root):
        vendor.append(("src/core/" + os.path.basename(src), src))
    for name in sorted(os.listdir(core)):
        if name.endswith(".h"):
            vendor.append(("src/core/" + name, os.path.join(core, name)))
    entries += [("vendor/" + a, p) for a, p in vendor]
    licence = os.path.join(root, "LICENSE")
    if os.path.exists(licence):
        entries.append(("LICENSE", licence))
    mtime = int(time.mktime(_timestamp()))

    def add(tar, arcname, data):
        info = tarfile.TarInfo("%s/%s" % (base, arcname))
        info.size = len(data)
        info.mtime = mtime
        info.mode = 0o644
        info.uname = info.gname = "root"
        tar.addfile(info, io.BytesIO(data))

    name = base + ".tar.gz"
    partial = os.path.join(sdist_directory, name + ".part")
    with open(partial, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=mtime) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        add(tar, "PKG-INFO", _metadata(ver).encode("utf-8"))
        for arcname, path in entries:
            with open(path, "rb") as f:
                add(tar, arcname, f.read())
    os.replace(partial, os.path.join(sdist_directory, name))
    return name


if __name__ == "__main__":
    # python3 python/_build/bloomfilter_build.py wheel|sdist DIR
    if len(sys.argv) != 3 or sys.argv[1] not in ("wheel", "sdist"):
        sys.exit("usage: %s wheel|sdist DIR" % sys.argv[0])
    os.makedirs(sys.argv[2], exist_ok=True)
    print((build_wheel if sys.argv[1] == "wheel" else build_sdist)(sys.argv[2]))
