# bench/lib/trace_steps.awk -- the table of a parallel bloom_agg's steps,
# from the server log of a library built with make BLOOM_TRACE=1
# (src/pg/bloom_trace_pg.h).  bench/manycore_bench.sh writes a line
# "bloom-mark NAME WORKERS" before each traced query; this prints one table
# a query, its times in ms from the first row any process aggregated.
# WORKERS, the workers the query asked for, is only printed.
#
#   awk -f bench/lib/trace_steps.awk server.log

function stat_row(label, arr, n,   i, j, x, lo, hi, med) {
	if (n == 0)
		return
	for (i = 2; i <= n; i++) {
		x = arr[i]
		for (j = i - 1; j >= 1 && arr[j] > x; j--) arr[j + 1] = arr[j]
		arr[j + 1] = x
	}
	med = (n % 2) ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
	printf "| %s | %d | %.0f | %.0f | %.0f |\n", label, n, arr[1], med, arr[n]
}

function one_row(label, v) {
	if (v != "")
		printf "| %s | 1 | | %.0f | |\n", label, v
}

function flush_section(   p, n, t0, a, i, leader, absorbs, absorb_sum, first_absorb, last_absorb) {
	if (section == "" || section == "end")
		return
	t0 = ""
	for (p in first)
		if (t0 == "" || first[p] < t0)
			t0 = first[p]
	if (t0 == "") {
		printf "\n%s: no trace lines (is the library built with BLOOM_TRACE=1?)\n", section
		return
	}
	printf "\n#### Steps of %s, %s workers (ms from the first row any process aggregated)\n\n", section, section_workers
	print "| step | processes | min | median | max |"
	print "|---|---:|---:|---:|---:|"
	n = 0; for (p in first) if (role[p] == "worker") a[++n] = first[p] - t0
	stat_row("workers: first row", a, n)
	n = 0; for (p in flat_start) if (role[p] == "worker") a[++n] = flat_start[p] - t0
	stat_row("workers: scan and transition done", a, n)
	n = 0; for (p in flushes) if (role[p] == "worker") a[++n] = flushes[p]
	stat_row("workers: buffer flushes (count)", a, n)
	n = 0; for (p in flush_ms) if (role[p] == "worker") a[++n] = flush_ms[p]
	stat_row("workers: time in flushes (sorting, sampling)", a, n)
	n = 0; for (p in flat_threads) if (role[p] == "worker") a[++n] = flat_threads[p]
	stat_row("workers: threads sorting and coding, where more than one (count)", a, n)
	n = 0; for (p in flat_sorted) if (role[p] == "worker") a[++n] = flat_sorted[p] - flat_start[p]
	stat_row("workers: state sorted (duration; on threads, coded too)", a, n)
	n = 0; for (p in flat_coded) if (role[p] == "worker" && (p in flat_sorted)) a[++n] = flat_coded[p] - flat_sorted[p]
	stat_row("workers: state coded (duration)", a, n)
	n = 0; for (p in handed_off) if (role[p] == "worker") a[++n] = handed_off[p] - flat_start[p]
	stat_row("workers: hashes copied to shared memory (duration)", a, n)
	n = 0; for (p in flat_coded) if (role[p] == "worker") a[++n] = flat_coded[p] - t0
	stat_row("workers: state ready to send", a, n)
	n = 0; for (p in absorb_at) a[++n] = absorb_at[p] - t0
	stat_row("leader: a worker's state taken in (combine start)", a, n)
	n = 0; for (p in absorb_took) a[++n] = absorb_took[p]
	stat_row("leader: combine (duration)", a, n)
	for (p in role)
		if (role[p] == "leader")
			leader = p
	if (leader != "") {
		if (leader in first)
			one_row("leader: its own first row", first[leader] - t0)
		if (leader in flush_ms)
			one_row("leader: time in its flushes", flush_ms[leader])
		if (final_start != "")
			one_row("leader: final function starts", final_start - t0)
		if (set_start != "")
			one_row("leader: filter allocated, threads start", set_start - t0)
		if (zeroed != "") {
			one_row("final threads: filter zeroed", zeroed - t0)
			one_row("final threads: runs decoded", decoded - t0)
			one_row("final threads: bits set", ended - t0)
		}
		if (final_end != "")
			one_row("leader: final function returns", final_end - t0)
		if (leader in handed_on)
			one_row("leader: its own state handed on where it lies", handed_on[leader] - t0)
		if ((leader in flat_start) && (leader in flat_sorted)) {
			one_row("leader: flattening starts", flat_start[leader] - t0)
			one_row("leader: state sorted", flat_sorted[leader] - t0)
			one_row("leader: state coded", flat_coded[leader] - t0)
		}
	}
	if (threads_line != "")
		printf "\nfinal: %s\n", threads_line
}

function reset() {
	split("", first); split("", role); split("", flat_start); split("", flat_sorted)
	split("", flat_coded); split("", flat_threads); split("", flushes); split("", flush_ms); split("", flush_at)
	split("", absorb_at); split("", absorb_took); split("", handed_off); split("", handed_on)
	nabsorb = 0; open_absorb = ""
	final_start = set_start = zeroed = decoded = ended = final_end = threads_line = ""
}

BEGIN { reset() }

/bloom-mark / {
	for (i = 1; i <= NF; i++)
		if ($i == "bloom-mark") {
			flush_section()
			reset()
			section = $(i + 1)
			section_workers = $(i + 2)
		}
	next
}

/bloom-trace / {
	for (i = 1; i <= NF; i++)
		if ($i == "bloom-trace")
			break
	r = $(i + 1); p = $(i + 2); t = $(i + 3) + 0; w1 = $(i + 4); w2 = $(i + 5)
	role[p] = r
	if (w1 == "new" && $(i + 6) != "bloom_agg_combinefn" && !(p in first))
		first[p] = t
	else if (w1 == "flush" && w2 == "start")
		flush_at[p] = t
	else if (w1 == "flush") {
		flushes[p]++
		flush_ms[p] += t - flush_at[p]
	} else if (w1 == "flat" && w2 == "start")
		flat_start[p] = t
	else if (w1 == "flat" && w2 == "sorted") {
		flat_sorted[p] = t
		if ($(i + 6) ~ /^threads=/)
			flat_threads[p] = substr($(i + 6), 9) + 0
	}
	else if (w1 == "flat" && w2 == "coded")
		flat_coded[p] = t
	else if (w1 == "handoff" && w2 == "shared")
		handed_off[p] = flat_coded[p] = t
	else if (w1 == "handoff" && w2 == "local") {
		handed_on[p] = t
		delete flat_start[p]
	}
	else if (w1 == "absorb" && w2 == "start")
		open_absorb = t
	else if (w1 == "absorb" && w2 == "end" && open_absorb != "") {
		nabsorb++
		absorb_at[nabsorb] = open_absorb
		absorb_took[nabsorb] = t - open_absorb
		open_absorb = ""
	} else if (w1 == "final" && w2 == "start")
		final_start = t
	else if (w1 == "final" && w2 == "set")
		set_start = t
	else if (w1 == "final" && w2 == "end")
		final_end = t
	else if (w1 == "final" && w2 == "threads") {
		threads_line = ""
		for (j = i + 6; j <= NF; j++) {
			split($j, kv, "=")
			if (kv[1] == "zeroed") zeroed = kv[2] + 0
			else if (kv[1] == "decoded") decoded = kv[2] + 0
			else if (kv[1] == "end") ended = kv[2] + 0
			else if (kv[1] != "go") threads_line = threads_line " " $j
		}
	}
}

END { flush_section() }
