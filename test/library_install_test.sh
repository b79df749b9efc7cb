#!/usr/bin/env bash
#
# test/library_install_test.sh -- what a user of the library and the
# module gets from an install, as opposed to from the build tree.
#
#   - make -C lib install under a fresh PREFIX (and DESTDIR) lays out the
#     header, both libraries, the pkg-config file, the tool and its manual
#     page;
#   - a program compiled with that pkg-config file's flags, against the
#     shared and the static library, builds a filter, probes it and gives
#     bloomfilter_version();
#   - the shared library exports bloomfilter_* and nothing else;
#   - pip install --no-build-isolation ./python into a fresh virtual
#     environment (Debian's python3, offline) gives an importable module.
#
# Prints one line a check and "library-install: N passed, N failed".

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=test/lib/checks.sh
. test/lib/checks.sh

WORK=
bf_mktemp_dir WORK
PREFIX=/opt/bloomfilter-test
STAGING=$WORK/staging
ROOT=$STAGING$PREFIX

if make -s -C lib install PREFIX="$PREFIX" DESTDIR="$STAGING" >"$WORK/install.log" 2>&1; then
	pass "make -C lib install PREFIX=... DESTDIR=... succeeds"
else
	cat "$WORK/install.log"
	fail "make -C lib install PREFIX=... DESTDIR=... succeeds"
	check_summary library-install
	exit 1
fi
for f in include/bloomfilter.h lib/libbloomfilter.a lib/libbloomfilter.so lib/libbloomfilter.so.1 \
	lib/pkgconfig/bloomfilter.pc bin/bloomfilter share/man/man1/bloomfilter.1; do
	[ -e "$ROOT/$f" ] && pass "installed: $f" || fail "installed: $f"
done
grep -qx "prefix=$PREFIX" "$ROOT/lib/pkgconfig/bloomfilter.pc" &&
	pass "the .pc names the PREFIX, not the staging directory" ||
	fail "the .pc names the PREFIX, not the staging directory"

cat >"$WORK/user.c" <<'C'
#include <bloomfilter.h>
#include <stdio.h>
#include <string.h>

int
main(void)
{
	bloomfilter_builder *b;
	uint8_t    *filter;
	size_t		len;

	if (bloomfilter_builder_new(10, &b) != BLOOMFILTER_OK)
		return 1;
	bloomfilter_builder_add(b, "hello", 5);
	bloomfilter_builder_add_int64(b, 42);
	if (bloomfilter_builder_finish(b, &filter, &len) != BLOOMFILTER_OK)
		return 1;
	bloomfilter_builder_free(b);
	printf("%s %zu %d %d %d\n", bloomfilter_version(), len,
		   bloomfilter_may_contain(filter, len, "hello", 5),
		   bloomfilter_may_contain_int64(filter, len, 42),
		   bloomfilter_validate(filter, len));
	bloomfilter_free(filter);
	return 0;
}
C
# The .pc holds the final PREFIX; point pkg-config at the staged one.
pc() { PKG_CONFIG_SYSROOT_DIR=$STAGING PKG_CONFIG_PATH=$ROOT/lib/pkgconfig pkg-config "$@" bloomfilter; }
expected="1.4.0 9 1 1 0"
if cc -std=gnu11 -Wall -Wextra -Werror -o "$WORK/user" "$WORK/user.c" $(pc --cflags) $(pc --libs) 2>"$WORK/cc.log" &&
	[ "$(LD_LIBRARY_PATH=$ROOT/lib "$WORK/user")" = "$expected" ]; then
	pass "a program built with pkg-config's flags runs against the shared library"
else
	cat "$WORK/cc.log"
	fail "a program built with pkg-config's flags runs against the shared library"
fi
if cc -std=gnu11 -Wall -Wextra -Werror -o "$WORK/user-static" "$WORK/user.c" $(pc --cflags) \
	"$ROOT/lib/libbloomfilter.a" $(pc --libs --static | sed 's/-lbloomfilter//; s/-L[^ ]*//') 2>"$WORK/cc-static.log" &&
	[ "$("$WORK/user-static")" = "$expected" ]; then
	pass "the same program links the static library"
else
	cat "$WORK/cc-static.log"
	fail "the same program links the static library"
fi

exported=$(nm -D --defined-only "$ROOT/lib/libbloomfilter.so.1" | awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" { print $3 }' | sed 's/@.*//' | sort)
others=$(grep -v '^bloomfilter_' <<<"$exported" || true)
if [ -z "$others" ] && [ "$(wc -l <<<"$exported")" -ge 30 ]; then
	pass "the shared library exports bloomfilter_* only ($(wc -l <<<"$exported") names)"
else
	fail "the shared library exports bloomfilter_* only; also: $(tr '\n' ' ' <<<"$others")"
fi
[ "$(objdump -p "$ROOT/lib/libbloomfilter.so.1" | awk '$1 == "SONAME" { print $2 }')" = libbloomfilter.so.1 ] &&
	pass "its soname is libbloomfilter.so.1" || fail "its soname is libbloomfilter.so.1"

# Without DESTDIR, into a directory the dynamic linker does not search: the
# install says how a program finds the library (and that way works).
if make -s -C lib install PREFIX="$WORK/direct" >"$WORK/install-direct.log" 2>&1 &&
	grep -qx "libbloomfilter: $WORK/direct/lib is not in the dynamic linker's path: run programs with LD_LIBRARY_PATH=$WORK/direct/lib, or add it to /etc/ld.so.conf.d/ and run ldconfig" "$WORK/install-direct.log" &&
	[ "$(LD_LIBRARY_PATH=$WORK/direct/lib "$WORK/user")" = "$expected" ]; then
	pass "an install the dynamic linker does not search prints the LD_LIBRARY_PATH hint, which works"
else
	cat "$WORK/install-direct.log"
	fail "an install the dynamic linker does not search prints the LD_LIBRARY_PATH hint, which works"
fi
grep -qx "libbloomfilter: staged under DESTDIR; run ldconfig on the system it is copied to" "$WORK/install.log" &&
	pass "a DESTDIR install runs no ldconfig and says so" ||
	fail "a DESTDIR install runs no ldconfig and says so"

# pip builds in a copy of nothing: the tree's python/ with its ../ sources
if /usr/bin/python3 -m venv --system-site-packages "$WORK/venv" >"$WORK/venv.log" 2>&1 &&
	"$WORK/venv/bin/pip" install --no-build-isolation --no-index ./python >"$WORK/pip.log" 2>&1 &&
	[ "$(cd "$WORK" && "$WORK/venv/bin/python" -c 'import bloomfilter; f = bloomfilter.BloomFilter.build(["a", 1], 10); print(f.may_contain("a"), f.may_contain(1), len(bytes(f)))')" = "True True 9" ]; then
	pass "pip install ./python into a virtual environment gives a working module"
else
	cat "$WORK/venv.log" "$WORK/pip.log" 2>/dev/null | tail -n 30
	fail "pip install ./python into a virtual environment gives a working module"
fi
rm -rf python/build python/*.egg-info

check_summary library-install
