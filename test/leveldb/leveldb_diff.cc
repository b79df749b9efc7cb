/*
 * leveldb_diff.cc
 *		Differential test of the bloomfilter core against the real LevelDB.
 *
 * libleveldb is the oracle: for random inputs, every filter byte and every
 * probe answer of the core must equal what NewBloomFilterPolicy() gives.
 *
 *	 leveldb_diff check [--seed S] [--cases N] [--typed-cases N]
 *						[--case I] [--typed-case I]
 *	 leveldb_diff export-sql OUT_DIR [--seed S] [--cases N]
 *	 leveldb_diff export-typed-sql OUT_DIR [--seed S] [--cases N]
 *	 leveldb_diff filter BITS_PER_KEY < KEYS > FILTER
 *
 * "check" compares the two directly.  "export-sql" writes the same kind of
 * random cases, with LevelDB's answers only, as COPY text files for the
 * SQL-level comparison, so the extension is held to LevelDB and not to the
 * core it is built from.  "filter" writes the bytes of LevelDB's filter of
 * the keys on standard input, one a line (newline-free keys, then, of any
 * number: test/scale_diff.sh compares big SQL aggregates with it).
 *
 * Typed keys (integers, uuids, multi-column keys) are byte strings to
 * LevelDB: the test writes their bytes itself, from the encoding's
 * description, and LevelDB's filter of those bytes is what "check" holds
 * the core's typed-key functions (bloom_keys.h) to, and what
 * "export-typed-sql" gives test/sql_diff_typed.sh to hold bloom_agg,
 * bloom_key and the operators to.
 *
 * Every case draws from its own generator, seeded from the run seed and the
 * case number, so "--seed S --case I" replays case I of any run on its own
 * ("--typed-case I" a typed case: they have a stream of their own).
 *
 * The parts: cases.cc and typed_cases.cc draw the cases, implementations.cc
 * wraps LevelDB and the core, check.cc and export.cc are the commands.
 */
#include "leveldb_diff.h"

#include <cstdio>
#include <cstring>

using namespace leveldb_diff;

namespace
{

void
usage(const char *prog)
{
	fprintf(stderr,
			"usage: %s check [--seed S] [--cases N] [--typed-cases N]\n"
			"                [--case I] [--typed-case I]\n"
			"       %s export-sql OUT_DIR [--seed S] [--cases N]\n"
			"       %s export-typed-sql OUT_DIR [--seed S] [--cases N]\n"
			"       %s filter BITS_PER_KEY < KEYS > FILTER\n"
			"       %s filter-cycle BITS_PER_KEY N D > FILTER\n",
			prog, prog, prog, prog, prog);
}

}								/* namespace */

int
main(int argc, char **argv)
{
	enum
	{
		CHECK, EXPORT, EXPORT_TYPED
	}			mode;
	const char *prog = argv[0];
	std::string out_dir;
	uint64_t	seed = 0;
	bool		have_seed = false;
	uint64_t	ncases;
	CheckCases	cc = {0, 1000, false, 0, false, 0};
	int			argi = 2;

	if (argc < 2)
	{
		usage(prog);
		return 2;
	}
	if (strcmp(argv[1], "filter") == 0 && argc == 3)
		return run_filter(prog, argv[2]);
	if (strcmp(argv[1], "filter-cycle") == 0 && argc == 5)
		return run_filter_cycle(prog, argv[2], argv[3], argv[4]);
	if (strcmp(argv[1], "check") == 0)
	{
		mode = CHECK;
		ncases = 3000;
	}
	else if ((strcmp(argv[1], "export-sql") == 0 ||
			  strcmp(argv[1], "export-typed-sql") == 0) &&
			 argc >= 3 && argv[2][0] != '-')
	{
		mode = strcmp(argv[1], "export-sql") == 0 ? EXPORT : EXPORT_TYPED;
		ncases = mode == EXPORT ? 2000 : 600;
		out_dir = argv[2];
		argi = 3;
	}
	else
	{
		usage(prog);
		return 2;
	}

	for (; argi < argc; argi += 2)
	{
		const char *opt = argv[argi];
		const char *val = argi + 1 < argc ? argv[argi + 1] : nullptr;
		uint64_t   *target;

		if (strcmp(opt, "--seed") == 0)
		{
			target = &seed;
			have_seed = true;
		}
		else if (strcmp(opt, "--cases") == 0)
			target = &ncases;
		else if (mode == CHECK && strcmp(opt, "--typed-cases") == 0)
			target = &cc.ntyped;
		else if (mode == CHECK && strcmp(opt, "--case") == 0)
		{
			target = &cc.only_case;
			cc.one_case = true;
		}
		else if (mode == CHECK && strcmp(opt, "--typed-case") == 0)
		{
			target = &cc.only_typed;
			cc.one_typed = true;
		}
		else
		{
			usage(prog);
			return 2;
		}
		if (val == nullptr || !parse_u64(val, target))
		{
			fprintf(stderr, "%s: %s needs a non-negative integer\n", prog, opt);
			return 2;
		}
	}
	if (!have_seed)
		seed = fresh_seed();

	switch (mode)
	{
		case CHECK:
			cc.ncases = ncases;
			return run_check(prog, seed, cc);
		case EXPORT:
			return run_export(prog, out_dir, seed, ncases);
		case EXPORT_TYPED:
			break;
	}
	return run_export_typed(prog, out_dir, seed, ncases);
}
