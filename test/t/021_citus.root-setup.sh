#!/usr/bin/env bash
# test/t/021_citus.root-setup.sh -- run by test/tap.sh, as root, before
# 021_citus.pl, which runs as postgres: the kit's build-citus.sh installs
# Citus into PG_CONFIG's PostgreSQL and may install its build dependencies,
# which only root may do.  The test calls the script again to learn
# whether it skips, and finds Citus built and installed.  No kit, or no
# Citus for this major (exit 77): nothing to do, and the test says why it
# skips.
kit=${BLOOM_CITUS_KIT:-$BF_ROOT/../shared/citus}
[ -x "$kit/build-citus.sh" ] || exit 0
rc=0
"$kit/build-citus.sh" "$PG_CONFIG" || rc=$?
[ "$rc" -eq 77 ] && exit 0
exit "$rc"
