#!/usr/bin/env bash
#
# bench/kit.sh -- the many-core table in one call on a many-core machine
# without build tools: pack the benchmarks' kit here with this tree's
# extension in it, and run bench/manycore_bench.sh on it there.  That
# machine needs no package archive, no compiler and no git: everything is
# built here.
#
#   bench/kit.sh pack [--kit FILE] [--compare REV] [--dir DIR]
#       here: unpack the kit (../shared/pgkit/pg15-x86_64.tar.xz), build
#       this tree (its files as they are, committed or not) against its
#       PostgreSQL and install the extension there, build the same tree
#       with BLOOM_TRACE=1, and with --compare the commit REV, then write
#       DIR (bench/kit/, ignored by git): pgdev.tar.xz (the kit with the
#       extension installed), bloomfilter-trace.so, bloomfilter-compare.so
#       and kit.txt (what each was built from).  Carry DIR to the machine.
#   bench/kit.sh run [--dir DIR] [manycore_bench.sh options]
#       there, as root or as a user who may run the server: unpack DIR's
#       kit into a directory of its own (the kit's PostgreSQL finds its
#       files relative to its binaries, and its libraries through
#       LD_LIBRARY_PATH, so it need not be /opt/pgdev), add
#       a postgres user if root and there is none, and run
#       bench/manycore_bench.sh --no-build on it with DIR's trace library
#       (--trace-lib) and compare library (--compare-lib), if packed, and
#       the options given.  Where $OUT names a directory (the device
#       tool's), kit.txt, the bench's output as it comes (kit-run.log) and
#       its report go into it.
#
# Exit status: manycore_bench.sh's; 2 for a bad option; 1 when packing
# fails, or run finds nothing packed.

set -euo pipefail
export LC_ALL=C

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# shellcheck source=bench/lib/common.sh
. bench/lib/common.sh

ME=${0##*/}
usage() {
	sed -n '3,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}
bad() {
	printf '%s: %s (see --help)\n' "$ME" "$1" >&2
	exit 2
}

MODE=${1-}
[ $# -eq 0 ] || shift
case $MODE in
pack | run) ;;
-h | --help)
	usage
	exit 0
	;;
'') bad "pack or run?" ;;
*) bad "unknown command $MODE" ;;
esac

DIR=$REPO/bench/kit
KIT=$REPO/../shared/pgkit/pg15-x86_64.tar.xz
COMPARE=''
passed=()
while [ $# -gt 0 ]; do
	case $1 in
	--dir | --kit | --compare)
		[ $# -ge 2 ] || bad "$1 wants a value"
		case $1 in
		--dir) DIR=$2 ;;
		--kit) KIT=$2 ;;
		--compare) COMPARE=$2 ;;
		esac
		shift 2
		;;
	--dir=*) DIR=${1#*=} && shift ;;
	--kit=*) KIT=${1#*=} && shift ;;
	--compare=*) COMPARE=${1#*=} && shift ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		[ "$MODE" = run ] || bad "unknown option $1"
		passed+=("$1") && shift
		;;
	esac
done
if [ "$MODE" = run ] && { [ "$KIT" != "$REPO/../shared/pgkit/pg15-x86_64.tar.xz" ] || [ -n "$COMPARE" ]; }; then
	bad "--kit and --compare are pack's options"
fi
[ "$MODE" = run ] || mkdir -p "$DIR"
[ -d "$DIR" ] || bad "--dir $DIR: no such directory"
DIR=$(cd "$DIR" && pwd)

# A directory the server's user can reach: the kit's binaries and libraries
# are read by postgres when we are root.
kit_root() {
	bf_mktemp_dir "$1"
	chmod 755 "${!1}"
}

# build_into SRC LOG MAKEARGS...: make in SRC against the unpacked kit.
build_into() {
	local src=$1 log=$2
	shift 2
	if ! make -C "$src" -j "$(nproc)" PG_CONFIG="$PGC" "$@" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		bf_err "make $* in $src failed (log: $log)"
		exit 1
	fi
}

pack() {
	local root work
	[ -f "$KIT" ] || {
		bf_err "no kit at $KIT (../shared/pgkit/ holds it; --kit FILE names another)"
		exit 1
	}
	if [ -n "$COMPARE" ]; then
		COMPARE=$(git rev-parse --short --verify "$COMPARE^{commit}") || bad "--compare: no commit $COMPARE"
	fi
	kit_root root
	bf_mktemp_dir work
	bf_log "unpacking $KIT"
	tar xJf "$KIT" -C "$root"
	PGC=$root/opt/pgdev/bin/pg_config
	[ -x "$PGC" ] || {
		bf_err "$KIT has no opt/pgdev/bin/pg_config"
		exit 1
	}

	bf_log "building this tree ($(bench_git_rev "$REPO")) against $("$PGC" --version) and installing it into the kit"
	bf_copy_tree "$work/tree"
	cp -a "$work/tree" "$work/trace"
	build_into "$work/tree" "$work/tree.log"
	build_into "$work/tree" "$work/tree-install.log" install
	bf_log "building it with BLOOM_TRACE=1"
	build_into "$work/trace" "$work/trace.log" BLOOM_TRACE=1
	rm -f "$DIR/bloomfilter-compare.so"
	if [ -n "$COMPARE" ]; then
		bf_log "building $COMPARE to compare with"
		mkdir "$work/compare"
		git archive "$COMPARE" | tar x -C "$work/compare"
		build_into "$work/compare" "$work/compare.log"
		cp "$work/compare/bloomfilter.so" "$DIR/bloomfilter-compare.so"
	fi
	cp "$work/trace/bloomfilter.so" "$DIR/bloomfilter-trace.so"
	tar cJf "$DIR/pgdev.tar.xz" -C "$root" opt/pgdev
	{
		echo "kit:      $(basename "$KIT"), $("$PGC" --version)"
		echo "packed:   $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "installed: bloomfilter at $(bench_git_rev "$REPO")"
		echo "trace:    the same tree, BLOOM_TRACE=1"
		[ -z "$COMPARE" ] || echo "compare:  bloomfilter at $COMPARE"
	} >"$DIR/kit.txt"
	bf_log "packed into $DIR ($(du -sh "$DIR" | cut -f1)):"
	sed 's/^/    /' "$DIR/kit.txt"
}

# The bench's reports are named by their UTC time, so the glob's last is
# the newest.
newest_report() {
	local reports=(bench/out/manycore-*.md)
	[ ! -f "${reports[-1]}" ] || echo "${reports[-1]}"
}

run() {
	local root args=() report before
	[ -f "$DIR/pgdev.tar.xz" ] || {
		bf_err "no $DIR/pgdev.tar.xz: run $ME pack first, where the extension builds"
		exit 1
	}
	if bf_is_root && ! id postgres >/dev/null 2>&1; then
		bf_log "adding a postgres user to run the server"
		useradd -M -r postgres
	fi
	kit_root root
	tar xJf "$DIR/pgdev.tar.xz" -C "$root"
	[ ! -f "$DIR/kit.txt" ] || sed 's/^/    /' "$DIR/kit.txt"
	[ ! -f "$DIR/bloomfilter-trace.so" ] || args+=(--trace-lib "$DIR/bloomfilter-trace.so")
	[ ! -f "$DIR/bloomfilter-compare.so" ] || args+=(--compare-lib "$DIR/bloomfilter-compare.so")
	before=$(newest_report)
	# where $OUT is, the output as it comes too: a run stopped by the
	# machine's time limit still gives the tables printed before
	local rc=0 out='' log=/dev/null
	if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
		out=$OUT
		log=$out/kit-run.log
		[ ! -f "$DIR/kit.txt" ] || cp "$DIR/kit.txt" "$out/"
	fi
	# the kit's programs name /opt/pgdev/lib as their run path, where
	# nothing is on a machine that has not unpacked it there
	LD_LIBRARY_PATH=$root/opt/pgdev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		PG_CONFIG=$root/opt/pgdev/bin/pg_config bench/manycore_bench.sh --no-build \
		"${args[@]}" "${passed[@]+"${passed[@]}"}" 2>&1 | tee "$log" || rc=$?
	report=$(newest_report)
	if [ -n "$out" ] && [ -n "$report" ] && [ "$report" != "$before" ]; then
		cp "$report" "$out/"
	fi
	return "$rc"
}

"$MODE"
