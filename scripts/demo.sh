#!/usr/bin/env bash
#
# scripts/demo.sh -- build and install the extension, start a throw-away
# PostgreSQL 15 cluster, run examples/demo.sql in it, and stop it.
#
# Needs the Debian packages postgresql-15, postgresql-server-dev-15 and
# build-essential (installed automatically when run as root).

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# shellcheck disable=SC2119 # no --leveldb: the demo needs no LevelDB
bf_ensure_deps

bf_log "building"
if ! bf_make >/dev/null; then
	bf_err "make failed"
	exit 1
fi

bf_log "installing"
if ! bf_make_install >/dev/null; then
	bf_err "make install failed"
	exit 1
fi

bf_cluster_start

bf_log "running examples/demo.sql"
"$(bf_pg_bindir)/psql" -X -v ON_ERROR_STOP=1 -f examples/demo.sql

bf_cluster_stop
bf_log "demo done"
