"""Build the Python module bloomfilter with setuptools: a C extension
compiled from src/_bloomfilter.c, libbloomfilter (../lib/bloomfilter.c) and
the PostgreSQL-free core (../src/core, the CORE_OBJS list of ../Makefile).

    python3 python/setup.py build_ext --build-lib DIR  (the package lands in DIR)

Every path is computed from this file's place, so it works from any
directory; objects go under python/build/.  pip does not use this file:
pyproject.toml names the in-tree backend _build/bloomfilter_build.py, which
needs neither setuptools nor wheel (pip install ./python); the source list
and the version come from that backend, so both build the same module.
"""
import os
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
# imported without writing _build/__pycache__ into the source tree
sys.path.insert(0, os.path.join(HERE, "_build"))
_dont_write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
import bloomfilter_build  # noqa: E402
sys.dont_write_bytecode = _dont_write_bytecode

extension = Extension(
    "bloomfilter._bloomfilter",
    sources=bloomfilter_build.extension_sources(),
    include_dirs=bloomfilter_build.include_dirs(),
    extra_compile_args=bloomfilter_build.EXTRA_CFLAGS,
    extra_link_args=["-pthread"],
    libraries=["m"],
)

setup(
    name="bloomfilter",
    version=bloomfilter_build.version(),
    description=bloomfilter_build.SUMMARY,
    python_requires=bloomfilter_build.REQUIRES_PYTHON,
    packages=["bloomfilter"],
    package_dir={"bloomfilter": os.path.relpath(os.path.join(HERE, "bloomfilter"))},
    ext_modules=[extension],
    options={"build": {"build_base": os.path.join(HERE, "build")}},
    zip_safe=False,
)
