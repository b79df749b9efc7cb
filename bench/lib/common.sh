# shellcheck shell=bash
#
# bench/lib/common.sh -- shell functions for the benchmarks.  Source it
# after scripts/lib.sh; it does nothing by itself.
#
#   bench_machine            describe the machine (CPU, cores, RAM, kernel,
#                            transparent huge pages, load), one "key: value"
#                            line each
#   bench_load               the load averages, "1 5 15" minutes
#   bench_cpu_ticks          "busy steal total" CPU ticks of the whole machine
#                            so far (from /proc/stat), for bench_cpu_share
#   bench_cpu_share A B      from two bench_cpu_ticks readings: "busy% steal%"
#   bench_stats              stdin "key|value" lines -> "key|median|min|max|n"
#   bench_ratio A B          A / B with 2 decimals
#   bench_need_int OPT V [MIN]  exit 2 unless V is an integer >= MIN (default 1)
#
# Every figure these functions print comes from the machine at the time
# they run; nothing is hard-coded.

bench_machine() {
	local cpu cores phys mem thp
	cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
	[ -n "$cpu" ] || cpu=$(uname -m)
	cores=$(nproc 2>/dev/null || echo '?')
	phys=$(awk -F': *' '/^physical id/ {p=$2} /^core id/ {c[p "-" $2]=1} END {n=0; for (k in c) n++; print n}' /proc/cpuinfo 2>/dev/null)
	mem=$(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
	thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
	echo "cpu: $cpu"
	echo "cores: $cores online (${phys:-?} physical)"
	if grep -q '^flags.* hypervisor' /proc/cpuinfo 2>/dev/null; then
		echo "virtual machine: yes (a hypervisor flag is set)"
	fi
	echo "caches: $(lscpu 2>/dev/null | awk -F': *' '/^L[123][di]? cache/ {printf "%s%s %s", sep, $1, $2; sep="; "}')"
	echo "ram: $mem"
	echo "kernel: $(uname -sr)"
	echo "transparent huge pages: ${thp:-unknown}"
	echo "load average at start: $(bench_load)"
}

bench_load() {
	awk '{print $1, $2, $3}' /proc/loadavg 2>/dev/null || echo '? ? ?'
}

bench_cpu_ticks() {
	awk '/^cpu / {busy = $2 + $3 + $4 + $7 + $8; steal = $9; total = 0; for (i = 2; i <= 9; i++) total += $i; print busy, steal, total; exit}' /proc/stat
}

bench_cpu_share() {
	local b0 s0 t0 b1 s1 t1
	read -r b0 s0 t0 <<<"$1"
	read -r b1 s1 t1 <<<"$2"
	awk -v b=$((b1 - b0)) -v s=$((s1 - s0)) -v t=$((t1 - t0)) \
		'BEGIN {if (t <= 0) print "? ?"; else printf "%.0f%% %.1f%%\n", 100 * b / t, 100 * s / t}'
}

bench_stats() {
	awk -F'|' '
		function median(arr, m,   i, j, x) {
			for (i = 2; i <= m; i++) {
				x = arr[i]
				for (j = i - 1; j >= 1 && arr[j] > x; j--) arr[j + 1] = arr[j]
				arr[j + 1] = x
			}
			return (m % 2) ? arr[(m + 1) / 2] : (arr[m / 2] + arr[m / 2 + 1]) / 2
		}
		NF >= 2 && $2 != "" { n[$1]++; v[$1, n[$1]] = $2 + 0 }
		END {
			for (k in n) {
				m = n[k]
				for (i = 1; i <= m; i++) a[i] = v[k, i]
				med = median(a, m)
				printf "%s|%.3f|%.3f|%.3f|%d\n", k, med, a[1], a[m], m
			}
		}'
}

bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {if (b == 0) print "?"; else printf "%.2f", a / b}'
}

bench_need_int() {
	local min=${3:-1}
	case $2 in
	'' | *[!0-9]*)
		printf '%s: %s needs a positive integer, not "%s"\n' "${0##*/}" "$1" "$2" >&2
		exit 2
		;;
	esac
	if [ "$2" -lt "$min" ]; then
		printf '%s: %s must be at least %s\n' "${0##*/}" "$1" "$min" >&2
		exit 2
	fi
}
