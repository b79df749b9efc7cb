# shellcheck shell=bash
#
# scripts/majors.sh -- PostgreSQL majors other than the host's, each in a
# Debian chroot of the suite that carries it.  Source it after scripts/lib.sh.
#
#   bf_major_suite N            the Debian suite that carries PostgreSQL N
#                               (experimental: sid with that major's
#                               packages from experimental)
#   bf_apt_mirror               the Debian mirror the host's apt uses
#   bf_chroot_ensure VAR N KIND a cached chroot for major N, KIND "build"
#                               (server, headers, compiler, debhelper) or
#                               "run" (the server alone); its path in VAR.
#                               Returns 77 when the mirror lacks the suite.
#   bf_chroot_session ROOT BIND... -- CMD...
#                               run CMD in a throw-away overlay of the chroot
#                               ROOT (the cache is never written), with each
#                               BIND "HOSTDIR:DIR" mounted read-write, for at
#                               most BF_SESSION_TIMEOUT seconds (default 3600)
#
# The chroots are made by mmdebstrap from the mirror the host's apt is set
# up with, read at run time, and cached under $BF_CHROOT_CACHE (default
# /var/tmp/bloomfilter-chroots), one directory per suite, kind and package
# list.  Sessions run in a private mount namespace (unshare), so nothing
# they mount outlives them, and an overlay keeps the cache as it was made.

BF_CHROOT_CACHE=${BF_CHROOT_CACHE:-/var/tmp/bloomfilter-chroots}

# The majors the project is tested on, oldest first; the host's is built
# and tested without a chroot.
BF_MAJORS_TESTED=(13 15 17 18 19)

bf_major_suite() {
	case $1 in
	13) echo bullseye ;;
	15) echo bookworm ;;
	17) echo trixie ;;
	18) echo sid ;;
	19) echo experimental ;;
	*) return 1 ;;
	esac
}

# experimental is no distribution of its own: most of it does not install
# without sid, and its Release says NotAutomatic.  A major Debian carries
# only there gets sid with experimental added, and apt takes from
# experimental the packages built from that major's source alone: the
# server, client and headers, and libpq5 and libpq-dev, which the client
# and headers there need in their own version.  postgresql-common and the
# rest stay sid's.
bf__experimental_preferences() {
	cat <<EOF
Package: src:postgresql-$1
Pin: release a=experimental
Pin-Priority: 500

Package: *
Pin: release a=experimental
Pin-Priority: 1
EOF
}

# The first Debian archive URI of the host's apt sources (deb822 .sources
# files, then the one-line sources.list), skipping the security archive.
bf_apt_mirror() {
	local f uri=
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ]; then
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i ~ /:\/\//) { if ($i !~ /security/) print $i; break } }' "$f" | head -n 1)
			[ -n "$uri" ] && break
		done
	fi
	if [ -z "$uri" ]; then
		bf_err "no Debian mirror found in /etc/apt/sources.list{,.d/}"
		return 1
	fi
	printf '%s\n' "${uri%/}"
}

# bf__apt_suites N: the Debian suites a chroot of major N installs from.
bf__apt_suites() {
	local suite
	suite=$(bf_major_suite "$1") || return 1
	if [ "$suite" = experimental ]; then
		echo "sid experimental"
	else
		echo "$suite"
	fi
}

# bf_major_upgrade_from N: the major before N, when the suites N's chroot
# installs from carry it too (19's sid carries 18), so that one chroot has
# both and test/t/012_pg_upgrade.pl can run pg_upgrade from it to N;
# non-zero when they do not.
bf_major_upgrade_from() {
	local prev=$(($1 - 1)) suite
	suite=$(bf_major_suite "$prev") || return 1
	case " $(bf__apt_suites "$1") " in
	*" $suite "*) echo "$prev" ;;
	*) return 1 ;;
	esac
}

bf__chroot_packages() {
	local major=$1 kind=$2 citus='' older='' prev
	# what ../shared/citus/build-citus.sh needs, for the majors Citus 14
	# supports (16 to 18); from 18 on, the server's pg_config.h says
	# HAVE_LIBCURL, so Citus compiles its curl code whatever its own
	# configure says
	if [ "$major" -ge 16 ] && [ "$major" -le 18 ]; then
		citus=" liblz4-dev libzstd-dev libkrb5-dev libssl-dev libicu-dev xz-utils"
		[ "$major" -ge 18 ] && citus="$citus libcurl4-openssl-dev"
	fi
	# the major before, server and headers, where the same suites carry it:
	# the extension is built for it too, and pg_upgrade runs from it
	if prev=$(bf_major_upgrade_from "$major"); then
		older=" postgresql-$prev postgresql-server-dev-$prev"
	fi
	case $kind in
	run) echo "postgresql-$major" ;;
	# dh-python and the python3 packages: the .deb builds python3-bloomfilter
	# libipc-run-perl: the TAP tests (test/tap.sh)
	build) echo "postgresql-$major postgresql-server-dev-$major postgresql-server-dev-all build-essential debhelper fakeroot binutils dh-python python3-all-dev python3-setuptools libipc-run-perl$citus$older" ;;
	*) return 1 ;;
	esac
}

# bf__suite_available MIRROR SUITE...: 0 when the mirror has every suite,
# 77 when it answers that it lacks one, 1 when it cannot be asked.
bf__suite_available() {
	local mirror=$1 suite code
	shift
	if ! command -v curl >/dev/null 2>&1; then
		return 0 # mmdebstrap will tell
	fi
	for suite in "$@"; do
		code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 "$mirror/dists/$suite/InRelease" || true)
		case $code in
		200) ;;
		404 | 410) return 77 ;;
		*)
			bf_err "the mirror $mirror did not answer for dists/$suite (HTTP '$code')"
			return 1
			;;
		esac
	done
}

bf_chroot_ensure() {
	local __var=$1 major=$2 kind=$3 suite pkgs mirror key dir tmp rc
	local apt_suites prefs='' supported='' hooks=() sources=() s
	suite=$(bf_major_suite "$major") || {
		bf_err "no Debian suite known for PostgreSQL $major"
		return 1
	}
	pkgs=$(bf__chroot_packages "$major" "$kind") || return 1
	apt_suites=$(bf__apt_suites "$major")
	key=$(printf '%s|%s|%s' "$suite" "$kind" "$pkgs")
	if [ "$suite" = experimental ]; then
		prefs=$(bf__experimental_preferences "$major")
		# sid's postgresql-common supports one major, its own; pg_buildext
		# builds for the majors the system says it supports, and
		# postgresql-common documents this file for building for others.
		supported=$major
		key="$key|$prefs|$supported"
	fi
	key=$(printf '%s' "$key" | md5sum | cut -c1-8)
	dir=$BF_CHROOT_CACHE/$suite-pg$major-$kind-$key
	mkdir -p "$BF_CHROOT_CACHE"
	(
		# One maker at a time per chroot; a second caller waits and reuses.
		flock 9
		if [ -f "$dir/.bloomfilter-chroot-complete" ]; then
			exit 0
		fi
		command -v mmdebstrap >/dev/null 2>&1 || bf_ensure_packages mmdebstrap || exit 1
		mirror=$(bf_apt_mirror) || exit 1
		rc=0
		# shellcheck disable=SC2086 # the suite list is split on purpose
		bf__suite_available "$mirror" $apt_suites || rc=$?
		[ "$rc" -eq 0 ] || exit "$rc"
		for s in $apt_suites; do
			sources+=("deb $mirror $s main")
		done
		# The hooks run with the chroot as $1 and this environment: the pin
		# before apt first reads the sources, the supported major once
		# postgresql-common is in.
		# shellcheck disable=SC2016 # expanded by the hooks' shell
		if [ -n "$prefs" ]; then
			hooks+=(--setup-hook='mkdir -p "$1/etc/apt/preferences.d" &&
				printf "%s\n" "$BF_APT_PREFERENCES" >"$1/etc/apt/preferences.d/bloomfilter"')
		fi
		# shellcheck disable=SC2016
		if [ -n "$supported" ]; then
			hooks+=(--customize-hook='mkdir -p "$1/etc/postgresql-common" &&
				printf "%s\n" "$BF_PG_SUPPORTED" >"$1/etc/postgresql-common/supported_versions"')
		fi
		tmp=$dir.tmp
		rm -rf -- "$tmp"
		bf_log "making the $suite chroot for PostgreSQL $major ($kind): $pkgs"
		if ! BF_APT_PREFERENCES=$prefs BF_PG_SUPPORTED=$supported \
			mmdebstrap --variant=apt --include="${pkgs// /,}" \
			--aptopt='Acquire::Check-Valid-Until "false"' \
			"${hooks[@]+"${hooks[@]}"}" \
			"${apt_suites%% *}" "$tmp" "${sources[@]}" >"$dir.log" 2>&1; then
			bf_err "mmdebstrap $apt_suites failed; last lines of $dir.log:"
			tail -n 30 "$dir.log" >&2
			rm -rf -- "$tmp"
			exit 1
		fi
		touch "$tmp/.bloomfilter-chroot-complete"
		rm -rf -- "$dir"
		mv -- "$tmp" "$dir"
		# chroots of an older package list for the same suite and kind
		for old in "$BF_CHROOT_CACHE/$suite-pg$major-$kind-"*; do
			case $old in
			"$dir" | "$dir".*) ;;
			*) rm -rf -- "$old" ;;
			esac
		done
	) 9>"$dir.lock"
	rc=$?
	[ "$rc" -eq 0 ] || return "$rc"
	printf -v "$__var" '%s' "$dir"
}

# bf_chroot_session ROOT [HOSTDIR:DIR ...] -- CMD...
bf_chroot_session() {
	local root=$1 binds=() scratch rc=0
	shift
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		binds+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	scratch=$(mktemp -d /var/tmp/bloomfilter-session.XXXXXX) || return 1
	mkdir -p "$scratch/upper" "$scratch/work" "$scratch/root"
	# The inner script gets its arguments positionally, so no path or
	# command word is ever parsed twice.
	timeout -k 30 "${BF_SESSION_TIMEOUT:-3600}" \
		unshare --mount --propagation private -- bash -euo pipefail -c '
		root=$1 scratch=$2 nbinds=$3
		shift 3
		mount -t overlay overlay \
			-o "lowerdir=$root,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
		mount --rbind /dev "$scratch/root/dev"
		mount -t proc proc "$scratch/root/proc"
		cp /etc/resolv.conf "$scratch/root/etc/resolv.conf" 2>/dev/null || true
		for ((i = 0; i < nbinds; i++)); do
			host=${1%%:*} inside=${1#*:}
			shift
			mkdir -p "$scratch/root$inside"
			mount --bind "$host" "$scratch/root$inside"
		done
		exec chroot "$scratch/root" /usr/bin/env -i \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 TMPDIR=/tmp ${CI:+CI=$CI} "$@"
	' bloomfilter-chroot "$root" "$scratch" "${#binds[@]}" "${binds[@]+"${binds[@]}"}" "$@" || rc=$?
	rm -rf -- "$scratch"
	return "$rc"
}
