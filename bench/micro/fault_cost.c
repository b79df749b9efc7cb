/*
 * bench/micro/fault_cost.c -- what first touching memory costs on the
 * machine it runs on: 64 MB mapped anew and written a byte a page, on 4 kB
 * pages and on transparent huge pages (MADV_HUGEPAGE), 3 times each; then
 * the same bytes written again, already faulted in.  bloom_agg touches
 * fresh memory in proportion to its keys (the hashes, the filter, the
 * scratch), which count(k) does not: on a virtual machine whose page faults
 * are slow, that is a large part of the difference (doc/performance.md,
 * doc/internals.md).
 *
 *	make fault-cost
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define AREA	((size_t) 64 << 20)

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int
main(void)
{
	printf("| pages | first touch, ms per MB | written again, ms per MB |\n|---|---:|---:|\n");
	for (int huge = 0; huge < 2; huge++)
		for (int rep = 0; rep < 3; rep++)
		{
			char	   *p = mmap(NULL, AREA, PROT_READ | PROT_WRITE,
								 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			double		t0,
						t1,
						t2;

			if (p == MAP_FAILED)
			{
				perror("mmap");
				return 1;
			}
			(void) madvise(p, AREA, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
			t0 = now_ms();
			for (size_t i = 0; i < AREA; i += 4096)
				p[i] = 1;
			t1 = now_ms();
			memset(p, 2, AREA);
			t2 = now_ms();
			printf("| %s | %.3f | %.3f |\n", huge ? "2 MB (THP)" : "4 kB",
				   (t1 - t0) / 64, (t2 - t1) / 64);
			munmap(p, AREA);
		}
	return 0;
}
