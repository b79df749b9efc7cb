#!/bin/sh
#
# bench/lib/procmem.sh -- memory figures of one process, for agg_bench.sh.
#
#   procmem.sh reset PID   reset the peak RSS (VmHWM) to the current RSS
#                          (writes 5 to /proc/PID/clear_refs: needs root or
#                          the process's owner), then print the figures
#   procmem.sh read PID    print the figures
#
# Prints one line, all sizes in kB:
#   MEM|<reset|read>|<reset done: 1, failed: 0, not asked: ->|VmHWM|VmRSS|RssAnon|RssFile|RssShmem
#
# It is called from psql's \! between two queries of the same backend, so
# that psql and this script run one after the other, never concurrently.

set -u
what=${1:?reset or read}
pid=${2:?pid}
status=/proc/$pid/status

case $what in
reset)
	if { printf '5\n' >"/proc/$pid/clear_refs"; } 2>/dev/null; then
		done=1
	else
		done=0
	fi
	;;
read) done=- ;;
*)
	echo "procmem.sh: unknown action $what" >&2
	exit 2
	;;
esac

awk -v what="$what" -v done="$done" '
	/^(VmHWM|VmRSS|RssAnon|RssFile|RssShmem):/ { v[substr($1, 1, length($1) - 1)] = $2 }
	END {
		printf "MEM|%s|%s|%d|%d|%d|%d|%d\n", what, done,
			v["VmHWM"], v["VmRSS"], v["RssAnon"], v["RssFile"], v["RssShmem"]
	}' "$status"
