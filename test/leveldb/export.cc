/*
 * export.cc
 *		"filter", "filter-cycle", "export-sql" and "export-typed-sql": LevelDB's
 *		filters and answers written out for the SQL-level tests.
 */
#include "leveldb_diff.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace leveldb_diff
{

/* ---- filter ---- */

static int
write_leveldb_filter(const char *prog, uint64_t bpk,
					 const std::vector<std::string> &keys)
{
	std::unique_ptr<const leveldb::FilterPolicy> policy(
		leveldb::NewBloomFilterPolicy((int) bpk));
	std::string filter = leveldb_create(*policy, keys);

	if (fwrite(filter.data(), 1, filter.size(), stdout) != filter.size() ||
		fflush(stdout) != 0)
	{
		fprintf(stderr, "%s: cannot write the filter: %s\n", prog, strerror(errno));
		return 2;
	}
	fprintf(stderr, "%s: LevelDB filter of %zu keys at %" PRIu64
			" bits per key: %zu bytes\n", prog, keys.size(), bpk, filter.size());
	return 0;
}

int
run_filter(const char *prog, const char *bpk_text)
{
	uint64_t	bpk;
	std::vector<std::string> keys;
	std::string line;
	char		buf[1 << 16];
	size_t		n;
	std::string in;

	if (!parse_u64(bpk_text, &bpk) || bpk > INT32_MAX)
	{
		fprintf(stderr, "%s: filter needs bits_per_key, 0 to %d\n", prog, INT32_MAX);
		return 2;
	}
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		in.append(buf, n);
	if (ferror(stdin))
	{
		fprintf(stderr, "%s: cannot read the keys: %s\n", prog, strerror(errno));
		return 2;
	}
	for (size_t start = 0; start < in.size();)
	{
		size_t		end = in.find('\n', start);

		if (end == std::string::npos)
			end = in.size();
		keys.emplace_back(in, start, end - start);
		start = end + 1;
	}

	return write_leveldb_filter(prog, bpk, keys);
}

/* LevelDB's filter of the keys (i % d)::text, i = 1..n. */
int
run_filter_cycle(const char *prog, const char *bpk_text, const char *n_text,
				 const char *d_text)
{
	uint64_t	bpk,
				n,
				d;
	std::vector<std::string> keys;

	if (!parse_u64(bpk_text, &bpk) || bpk > INT32_MAX ||
		!parse_u64(n_text, &n) || !parse_u64(d_text, &d) || d == 0)
	{
		fprintf(stderr, "%s: filter-cycle needs bits_per_key (0 to %d), N and D > 0\n",
				prog, INT32_MAX);
		return 2;
	}
	keys.reserve(n);
	for (uint64_t i = 1; i <= n; i++)
		keys.push_back(std::to_string(i % d));
	return write_leveldb_filter(prog, bpk, keys);
}

/*
 * Say how to replay the export, and make its directory; false (said on
 * stderr) if it cannot be made.
 */
static bool
start_export(const char *prog, const char *command, const std::string &dir,
			 uint64_t seed, uint64_t ncases)
{
	std::error_code ec;

	printf("seed: %" PRIu64 "\n", seed);
	printf("replay: %s %s %s --seed %" PRIu64 " --cases %" PRIu64 "\n",
		   prog, command, dir.c_str(), seed, ncases);
	fflush(stdout);

	std::filesystem::create_directories(dir, ec);
	if (ec)
	{
		fprintf(stderr, "leveldb_diff: cannot create %s: %s\n",
				dir.c_str(), ec.message().c_str());
		return false;
	}
	return true;
}

/*
 * What both exports share: LevelDB's policies, the three files every
 * export writes (cases.tsv, keys.tsv, probes.tsv) and the keys and probes
 * written to them.
 */
struct ExportRun
{
	Policies	policies;
	std::ofstream cases,
				keys,
				probes;
	uint64_t	nkeys = 0,
				nprobes = 0;

	/* start_export, then the files opened; false where it failed */
	bool
	open(const char *prog, const char *command, const std::string &dir,
		 uint64_t seed, uint64_t ncases)
	{
		if (!start_export(prog, command, dir, seed, ncases))
			return false;
		cases.open(dir + "/cases.tsv", std::ios::binary);
		keys.open(dir + "/keys.tsv", std::ios::binary);
		probes.open(dir + "/probes.tsv", std::ios::binary);
		return true;
	}

	/*
	 * Closes the files, and an export's file of its own (extra) if any:
	 * false, said on stderr, where a write failed.
	 */
	bool
	close(const std::string &dir, std::ofstream *extra = nullptr)
	{
		cases.close();
		keys.close();
		probes.close();
		if (extra != nullptr)
			extra->close();
		if (!cases || !keys || !probes || (extra != nullptr && !*extra))
		{
			fprintf(stderr, "leveldb_diff: writing to %s failed\n", dir.c_str());
			return false;
		}
		return true;
	}
};

/* ---- export-sql ---- */

int
run_export(const char *prog, const std::string &dir, uint64_t seed,
		   uint64_t ncases)
{
	ExportRun	run;
	uint64_t	ntext = 0,
				nempty = 0;

	if (!run.open(prog, "export-sql", dir, seed, ncases))
		return 2;
	for (uint64_t i = 0; i < ncases; i++)
	{
		Rng			rng = case_rng(seed, i);
		Case		c = generate_case(rng, export_limits);
		const leveldb::FilterPolicy &policy = run.policies.get(c.bpk);
		std::string filter = leveldb_create(policy, c.keys);
		std::string id = "rnd-" + std::to_string(seed) + "-" + std::to_string(i);
		bool		text_ok = true;
		uint64_t	ord = 0;

		for (const std::string &k : c.keys)
			text_ok = text_ok && is_pg_utf8_text(k);
		for (const std::string &k : c.absent)
			text_ok = text_ok && is_pg_utf8_text(k);

		run.cases << id << "\tcreate\t" << c.bpk << '\t' << c.keys.size()
			<< '\t' << (text_ok ? 't' : 'f') << '\t' << to_hex(filter)
			<< "\t\\N\n";

		for (size_t j = 0; j < c.keys.size(); j++)
			run.keys << id << '\t' << j << '\t' << to_hex(c.keys[j]) << '\n';

		for (int pass = 0; pass < 2; pass++)
			for (const std::string &k : pass == 0 ? c.keys : c.absent)
				run.probes << id << '\t' << ord++ << '\t' << to_hex(k) << '\t'
					<< (leveldb_match(policy, k, filter) ? 't' : 'f') << '\n';

		run.nkeys += c.keys.size();
		run.nprobes += ord;
		ntext += text_ok;
		nempty += c.keys.empty();
	}

	if (!run.close(dir))
		return 2;
	printf("wrote %" PRIu64 " cases (%" PRIu64 " text_ok, %" PRIu64
		   " with no keys), %" PRIu64 " keys, %" PRIu64 " probes to %s\n",
		   ncases, ntext, nempty, run.nkeys, run.nprobes, dir.c_str());
	return 0;
}

/* ---- export-typed-sql ---- */

/* A value as a component column of keys.tsv or probes.tsv holds it. */
static std::string
sql_component(FieldType t, const Field &f)
{
	if (f.null)
		return "\\N";
	switch (t)
	{
		case FieldType::Int2:
		case FieldType::Int4:
		case FieldType::Int8:
			return std::to_string(f.i);
		case FieldType::Uuid:
			return uuid_text(f.s);
		case FieldType::Bool:
			return f.b ? "t" : "f";
		case FieldType::Float8:
			return double_text(f.d);
		case FieldType::Text:
		case FieldType::Bytea:
		case FieldType::Varchar:
		case FieldType::Char:
		case FieldType::Name:
		case FieldType::Label:
			break;
	}
	return to_hex(f.s);
}

/* Whether SQL can hold the key's values as the export writes them. */
static bool
sql_representable(const TypedCase &c, const TypedKey &key)
{
	for (size_t i = 0; i < c.shape.size(); i++)
	{
		FieldType	t = c.shape[i];

		if (key[i].null || t == FieldType::Bytea || t == FieldType::Uuid ||
			is_int_type(t) || t == FieldType::Bool || t == FieldType::Float8)
			continue;
		if (!is_pg_utf8_text(key[i].s) ||
			(t == FieldType::Name && key[i].s.size() > 63))
			return false;
	}
	return true;
}

static void
write_components(std::ofstream &out, const TypedCase &c, const TypedKey &key)
{
	for (size_t i = 0; i < export_max_columns; i++)
		out << '\t' << (i < c.shape.size() ? sql_component(c.shape[i], key[i]) : "\\N");
}

int
run_export_typed(const char *prog, const std::string &dir, uint64_t seed,
				 uint64_t ncases)
{
	ExportRun	run;
	uint64_t	nkind[3] = {0, 0, 0};

	if (!run.open(prog, "export-typed-sql", dir, seed, ncases))
		return 2;

	std::ofstream labels_out(dir + "/labels.tsv", std::ios::binary);

	for (size_t i = 0; i < export_labels.size(); i++)
		labels_out << i << '\t' << to_hex(export_labels[i]) << '\n';

	for (uint64_t i = 0; i < ncases; i++)
	{
		Rng			rng = typed_case_rng(seed, i);
		TypedCase	c = generate_typed_case(rng, export_limits, true);
		const leveldb::FilterPolicy &policy = run.policies.get(c.bpk);
		std::vector<std::string> key_bytes;
		std::string filter;
		std::string id = "typ-" + std::to_string(seed) + "-" + std::to_string(i);
		uint64_t	ord = 0;

		for (const TypedKey &key : c.keys)
			key_bytes.push_back(spec_key_bytes(c, key));
		filter = leveldb_create(policy, key_bytes);

		for (int pass = 0; pass < 2; pass++)
			for (const TypedKey &key : pass == 0 ? c.keys : c.absent)
				if (c.shape.size() > export_max_columns || !sql_representable(c, key))
				{
					fprintf(stderr, "leveldb_diff: case %s drew a key SQL cannot hold: %s\n",
							id.c_str(), describe_typed_key(c, key).c_str());
					return 2;
				}

		run.cases << id << '\t' << typed_kind_name(c.kind) << '\t' << shape_text(c)
			<< '\t' << c.bpk << '\t' << c.keys.size() << '\t' << c.split
			<< '\t' << to_hex(filter) << '\n';

		for (size_t j = 0; j < c.keys.size(); j++)
		{
			run.keys << id << '\t' << j;
			write_components(run.keys, c, c.keys[j]);
			run.keys << '\n';
		}

		for (int pass = 0; pass < 2; pass++)
			for (const TypedKey &key : pass == 0 ? c.keys : c.absent)
			{
				run.probes << id << '\t' << ord++;
				write_components(run.probes, c, key);
				run.probes << '\t'
					<< (leveldb_match(policy, spec_key_bytes(c, key), filter) ? 't' : 'f')
					<< '\n';
			}

		run.nkeys += c.keys.size();
		run.nprobes += ord;
		nkind[(int) c.kind]++;
	}

	if (!run.close(dir, &labels_out))
		return 2;
	printf("wrote %" PRIu64 " typed cases (%" PRIu64 " integer, %" PRIu64
		   " uuid, %" PRIu64 " multi-column), %" PRIu64 " keys, %" PRIu64
		   " probes to %s\n", ncases, nkind[0], nkind[1], nkind[2], run.nkeys,
		   run.nprobes, dir.c_str());
	return 0;
}

}								/* namespace leveldb_diff */
