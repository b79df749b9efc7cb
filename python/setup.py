"""Build the Python module bloomfilter: a C extension compiled from
src/_bloomfilter.c, libbloomfilter (../lib/bloomfilter.c) and the
PostgreSQL-free core (../src/core, the CORE_OBJS list of ../Makefile).

    pip install --no-build-isolation ./python        (offline; from the repository root)
    python3 python/setup.py build_ext --build-lib DIR  (the package lands in DIR)

Every path is computed from this file's place, so either works from any
directory; objects go under python/build/.
"""
import glob
import os
import re

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIB = os.path.join(ROOT, "lib")
CORE = os.path.join(ROOT, "src", "core")


def core_sources():
    """src/core/*.c as the top-level Makefile lists them (CORE_OBJS)."""
    try:
        with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
            text = f.read().replace("\\\n", " ")
        m = re.search(r"^CORE_OBJS\s*:?=\s*(.*)$", text, re.M)
    except OSError:
        m = None
    if m:
        objs = m.group(1).split()
        sources = [os.path.join(ROOT, o[:-2] + ".c") for o in objs if o.endswith(".o")]
    else:
        sources = sorted(glob.glob(os.path.join(CORE, "*.c")))
    missing = [s for s in sources if not os.path.exists(s)]
    if not sources or missing:
        raise SystemExit("bloomfilter: the core sources are not where setup.py "
                         "expects them (%s); build from the repository checkout"
                         % (missing or CORE))
    return sources


def version():
    """BLOOMFILTER_VERSION of lib/bloomfilter.h."""
    with open(os.path.join(LIB, "bloomfilter.h"), encoding="utf-8") as f:
        m = re.search(r'#define\s+BLOOMFILTER_VERSION\s+"([^"]+)"', f.read())
    return m.group(1)


extension = Extension(
    "bloomfilter._bloomfilter",
    sources=[os.path.join(HERE, "src", "_bloomfilter.c"),
             os.path.join(LIB, "bloomfilter.c")] + core_sources(),
    include_dirs=[LIB, CORE],
    extra_compile_args=["-std=gnu11", "-Wall", "-Wextra", "-fvisibility=hidden"],
    extra_link_args=["-pthread"],
    libraries=["m"],
)

setup(
    name="bloomfilter",
    version=version(),
    description="LevelDB bloom filters, byte for byte, as the bloomfilter "
                "PostgreSQL extension writes them",
    python_requires=">=3.9",
    packages=["bloomfilter"],
    package_dir={"bloomfilter": os.path.relpath(os.path.join(HERE, "bloomfilter"))},
    ext_modules=[extension],
    options={"build": {"build_base": os.path.join(HERE, "build")}},
    zip_safe=False,
)
