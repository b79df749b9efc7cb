/*
 * core_bench.cc
 *		The bloomfilter core against libleveldb's own bloom filter, on the
 *		same keys: build and probe speed, and byte identity of the filters.
 *
 *	 bench/core_bench [--keys N,N...] [--bpk B,B...] [--reps R] [--quick]
 *
 * For each number of keys and bits_per_key:
 *
 *	 build   LevelDB: NewBloomFilterPolicy(bpk)->CreateFilter(keys, n, &dst),
 *			 which hashes every key itself.  Core: what bloom_agg does, i.e.
 *			 hash every key into an array of 32-bit hashes, then size the
 *			 filter and set its bits from the array: allocate it,
 *			 bloom_advise_huge_pages, zero it, bloom_build_from_hashes_scratch
 *			 (with scratch space for a filter larger than the caches).
 *			 Both end with the whole filter in memory they allocated.
 *	 probe   every one of n keys that are in the filter ("present"), then
 *			 n keys that are not ("absent"), one call per key.  LevelDB:
 *			 KeyMayMatch(key, filter), on the filter LevelDB built and, as
 *			 a third figure, on the core's bytes (identical, at the core's
 *			 address, so only the probe code differs).  Core: what the <~ operator does per
 *			 row, i.e. hash the key and probe with the filter's prepared
 *			 geometry (bloom_prepare_probe, done once per filter as the
 *			 operator's call-site cache does).
 *
 * Times are the CPU time of the benchmark's thread.  Runs are interleaved (LevelDB, core, LevelDB, core, ... in alternating
 * order) and each figure is the median, min and max over --reps runs, in
 * nanoseconds per key.  After every build the two filters are compared byte
 * for byte, and every probe's number of matches must be the same for both;
 * any difference is reported and makes the exit status 1.
 *
 * Output: a header, one "R|..." line per measured figure, one "I|..." line
 * per key count and bits_per_key saying whether the bytes were identical,
 * and a readable table.  bench/run.sh reads the R and I lines.
 */
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

extern "C"
{
#include "bloom_core.h"
}
#include "bloom_mix64.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace
{

const size_t KEY_LEN = 32;

/*
 * n keys of 32 lowercase hex digits (like md5(i::text) in the SQL
 * benchmark), numbered from first, in one buffer.  Key i is the hex of
 * the first numbers of SplitMix64's streams from 2i and 2i + 1: distinct
 * keys for distinct numbers, depending on nothing but their number.
 */
struct KeySet
{
	std::vector<char> bytes;
	std::vector<leveldb::Slice> slices;

	KeySet(uint64_t first, size_t n) : bytes(n * KEY_LEN), slices(n)
	{
		static const char hex[] = "0123456789abcdef";

		for (size_t i = 0; i < n; i++)
		{
			char	   *p = &bytes[i * KEY_LEN];
			uint64_t	stream_a = 2 * (first + i);
			uint64_t	stream_b = stream_a + 1;
			uint64_t	a = bloom_mix64_next(&stream_a);
			uint64_t	b = bloom_mix64_next(&stream_b);

			for (int j = 0; j < 16; j++)
			{
				p[j] = hex[(a >> (4 * j)) & 15];
				p[16 + j] = hex[(b >> (4 * j)) & 15];
			}
			slices[i] = leveldb::Slice(p, KEY_LEN);
		}
	}
};

/*
 * CPU time of this thread: on a shared machine, time spent waiting for a
 * CPU while others run does not count (their use of the caches still does).
 */
double
now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- the two implementations ---- */

void
leveldb_build(const leveldb::FilterPolicy &policy, const KeySet &keys,
			  std::string *dst)
{
	dst->clear();
	policy.CreateFilter(keys.slices.data(), (int) keys.slices.size(), dst);
}

size_t
leveldb_probe(const leveldb::FilterPolicy &policy, const KeySet &keys,
			  const leveldb::Slice &f)
{
	size_t		matches = 0;

	for (const leveldb::Slice &key : keys.slices)
		matches += policy.KeyMayMatch(key, f);
	return matches;
}

struct FreeDeleter
{
	void		operator() (void *p) const { free(p); }
};
typedef std::unique_ptr<uint8_t, FreeDeleter> Buffer;

bool
core_build(int bpk, const KeySet &keys, Buffer *dst, size_t *len)
{
	size_t		n = keys.slices.size();
	bloom_geometry geometry;
	std::unique_ptr<uint32_t[]> hashes(new uint32_t[n]);
	uint8_t    *filter;

	/* what bloom_agg's transition function does per row */
	for (size_t i = 0; i < n; i++)
		hashes[i] = bloom_key_hash(keys.slices[i].data(), keys.slices[i].size());
	/* and its final function: allocate, advise, zero, set the bits */
	if (bloom_geometry_for(n, bpk, &geometry) != BLOOM_OK)
		return false;
	dst->reset();
	filter = static_cast<uint8_t *>(malloc(geometry.filter_bytes));
	if (filter == NULL)
		return false;
	dst->reset(filter);
	bloom_advise_huge_pages(filter, geometry.filter_bytes);
	memset(filter, 0, geometry.filter_bytes);
	{
		size_t		scratch_size = bloom_set_scratch_size(geometry.bits);
		std::unique_ptr<uint32_t[]> scratch(scratch_size > 0 ? new uint32_t[scratch_size] : nullptr);

		bloom_build_from_hashes_scratch(filter, &geometry, hashes.get(), n,
										scratch.get(), scratch_size);
	}
	*len = geometry.filter_bytes;
	return true;
}

size_t
core_probe(const KeySet &keys, const uint8_t *bytes, size_t len)
{
	bloom_prepared pg;
	size_t		matches = 0;

	/* once per filter, as the operator's per-call-site cache does */
	bloom_prepare_probe(&pg, bytes, len);
	for (const leveldb::Slice &key : keys.slices)
		matches += bloom_prepared_may_contain(&pg, bytes,
										bloom_key_hash(key.data(), key.size()));
	return matches;
}

/* ---- bookkeeping ---- */

struct Stat
{
	double		median,
				min,
				max;
};

Stat
stat_of(std::vector<double> v)
{
	Stat		s;

	std::sort(v.begin(), v.end());
	s.min = v.front();
	s.max = v.back();
	s.median = v.size() % 2 ? v[v.size() / 2]
		: (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
	return s;
}

std::vector<long>
parse_list(const char *opt, const char *s)
{
	std::vector<long> out;
	char	   *end;

	for (;;)
	{
		long		v = strtol(s, &end, 10);

		if (end == s || v < 1)
		{
			fprintf(stderr, "core_bench: %s wants positive integers separated by commas\n", opt);
			exit(2);
		}
		out.push_back(v);
		if (*end == '\0')
			return out;
		if (*end != ',')
		{
			fprintf(stderr, "core_bench: %s wants positive integers separated by commas\n", opt);
			exit(2);
		}
		s = end + 1;
	}
}

volatile size_t sink;

}								/* namespace */

int
main(int argc, char **argv)
{
	std::vector<long> key_counts = {1000000, 10000000};
	std::vector<long> bpks = {10, 20};
	long		reps = 5;
	bool		all_identical = true;

	for (int i = 1; i < argc; i++)
	{
		std::string a = argv[i];

		if (a == "--quick")
		{
			key_counts = {20000};
			reps = 1;
		}
		else if (a == "--keys" && i + 1 < argc)
			key_counts = parse_list("--keys", argv[++i]);
		else if (a == "--bpk" && i + 1 < argc)
			bpks = parse_list("--bpk", argv[++i]);
		else if (a == "--reps" && i + 1 < argc)
			reps = parse_list("--reps", argv[++i]).at(0);
		else
		{
			fprintf(stderr, "usage: core_bench [--keys N,N...] [--bpk B,B...] [--reps R] [--quick]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("core_bench: keys of %zu hex characters; %ld runs of each figure, interleaved; ns per key\n",
		   KEY_LEN, reps);
	printf("R|keys|bpk|op|impl|median ns/key|min|max\n");

	struct Row
	{
		long		n,
					bpk;
		const char *op;
		Stat		ldb,
					core,
					same;
		bool		has_same;
	};
	std::vector<Row> rows;

	for (long n : key_counts)
	{
		KeySet		present(0, (size_t) n);
		KeySet		absent((uint64_t) 1 << 40, (size_t) n);

		for (long bpk : bpks)
		{
			std::unique_ptr<const leveldb::FilterPolicy> policy(
				leveldb::NewBloomFilterPolicy((int) bpk));
			std::vector<double> t[3][3];	/* [build, present, absent][leveldb, core, leveldb on the core's bytes] */
			std::string f_ldb;
			Buffer		f_core;
			size_t		f_core_len = 0;
			bool		identical = true;
			bool		answers_same = true;

			for (long r = 0; r < reps; r++)
			{
				/* alternate which one goes first */
				for (int turn = 0; turn < 2; turn++)
				{
					int			impl = (turn + (int) r) % 2;	/* 0 leveldb, 1 core */
					double		t0 = now_ns();

					if (impl == 0)
						leveldb_build(*policy, present, &f_ldb);
					else if (!core_build((int) bpk, present, &f_core, &f_core_len))
					{
						fprintf(stderr, "core_bench: bloom_geometry_for failed\n");
						return 1;
					}
					t[0][impl].push_back((now_ns() - t0) / n);
				}
				if (f_ldb.size() != f_core_len ||
					memcmp(f_ldb.data(), f_core.get(), f_core_len) != 0)
					identical = false;

				/*
				 * Each probes the filter its own build wrote (the core's buffer
				 * may have huge pages, LevelDB's std::string has not); LevelDB
				 * also probes the core's bytes, the same bytes at the same
				 * address, which isolates the probe code from where the
				 * filter lives.
				 */
				for (int which = 1; which <= 2; which++)
				{
					const KeySet &keys = which == 1 ? present : absent;
					size_t		m[3] = {0, 0, 0};

					for (int turn = 0; turn < 3; turn++)
					{
						int			impl = (turn + (int) r) % 3;	/* 0 leveldb, 1 core, 2 leveldb on the core's bytes */
						double		t0 = now_ns();

						if (impl == 0)
							m[0] = leveldb_probe(*policy, keys, leveldb::Slice(f_ldb));
						else if (impl == 1)
							m[1] = core_probe(keys, f_core.get(), f_core_len);
						else
							m[2] = leveldb_probe(*policy, keys,
												 leveldb::Slice(reinterpret_cast<const char *>(f_core.get()),
																f_core_len));
						t[which][impl].push_back((now_ns() - t0) / n);
					}
					if (m[0] != m[1] || m[2] != m[1] || (which == 1 && m[0] != (size_t) n))
					{
						answers_same = false;
						fprintf(stderr, "core_bench: %ld keys, bpk %ld, %s keys: LevelDB matched %zu (%zu on the core's bytes), the core %zu\n",
								n, bpk, which == 1 ? "present" : "absent", m[0], m[2], m[1]);
					}
					sink = m[0] + m[1] + m[2];
				}
			}

			static const char *ops[3] = {"build", "probe_present", "probe_absent"};

			for (int op = 0; op < 3; op++)
			{
				Row			row = {n, bpk, ops[op], stat_of(t[op][0]), stat_of(t[op][1]),
					op > 0 ? stat_of(t[op][2]) : Stat(), op > 0};

				printf("R|%ld|%ld|%s|leveldb|%.2f|%.2f|%.2f\n", n, bpk, ops[op],
					   row.ldb.median, row.ldb.min, row.ldb.max);
				printf("R|%ld|%ld|%s|core|%.2f|%.2f|%.2f\n", n, bpk, ops[op],
					   row.core.median, row.core.min, row.core.max);
				if (row.has_same)
					printf("R|%ld|%ld|%s|leveldb_same|%.2f|%.2f|%.2f\n", n, bpk, ops[op],
						   row.same.median, row.same.min, row.same.max);
				rows.push_back(row);
			}
			printf("I|%ld|%ld|%s|%s|%zu\n", n, bpk, identical ? "identical" : "DIFFERENT",
				   answers_same ? "same answers" : "DIFFERENT answers", f_core_len);
			if (!identical || !answers_same)
				all_identical = false;
		}
	}

	printf("\n%-10s %4s %-14s %22s %22s %22s %8s %8s\n", "keys", "bpk", "operation",
		   "LevelDB", "LevelDB, core's bytes", "core", "speed-up", "same");
	for (const Row &row : rows)
	{
		char		a[64],
					b[64],
					c[64];

		snprintf(a, sizeof(a), "%.1f (%.1f-%.1f)", row.ldb.median, row.ldb.min, row.ldb.max);
		snprintf(c, sizeof(c), "%.1f (%.1f-%.1f)", row.core.median, row.core.min, row.core.max);
		if (row.has_same)
			snprintf(b, sizeof(b), "%.1f (%.1f-%.1f)", row.same.median, row.same.min, row.same.max);
		else
			snprintf(b, sizeof(b), "-");
		printf("%-10ld %4ld %-14s %22s %22s %22s %7.2fx", row.n, row.bpk, row.op, a, b, c,
			   row.ldb.median / row.core.median);
		if (row.has_same)
			printf(" %7.2fx\n", row.same.median / row.core.median);
		else
			printf(" %8s\n", "-");
	}
	printf("(ns per key, median (min-max); speed-up: LevelDB / core; same: LevelDB on the core's bytes / core)\n");
	printf("\nfilters byte-identical to LevelDB's and same probe answers: %s\n",
		   all_identical ? "yes, every run" : "NO");
	return all_identical ? 0 : 1;
}
