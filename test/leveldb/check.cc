/*
 * check.cc
 *		"check": the core against LevelDB, byte for byte, for byte-string and
 *		typed keys.
 */
#include "leveldb_diff.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace leveldb_diff
{

/* ---- check ---- */

/*
 * The core's filter of the hashes, built serially and on the final
 * function's threads (1, 2 and 8 of them), against LevelDB's bytes.
 */
static void
compare_core_filters(int bpk, const std::vector<uint32_t> &hashes,
					 const std::string &expected, Rng &rng,
					 std::vector<std::string> *problems)
{
	std::string actual;
	bloom_status status;
	char		buf[256];

	status = core_create_from_hashes(bpk, hashes, &actual);
	if (status != BLOOM_OK)
		problems->push_back(std::string("core refused to build: ") +
							bloom_status_message(status));
	else if (actual.size() != expected.size())
	{
		snprintf(buf, sizeof(buf),
				 "filter length: leveldb %zu bytes, core %zu bytes",
				 expected.size(), actual.size());
		problems->push_back(buf);
	}
	else if (actual != expected)
	{
		size_t		i = 0;
		size_t		ndiff = 0;

		while (actual[i] == expected[i])
			i++;
		for (size_t j = i; j < actual.size(); j++)
			ndiff += actual[j] != expected[j];
		snprintf(buf, sizeof(buf),
				 "filter bytes: first difference at byte %zu of %zu "
				 "(leveldb 0x%02x, core 0x%02x), %zu bytes differ",
				 i, expected.size(), (unsigned char) expected[i],
				 (unsigned char) actual[i], ndiff);
		problems->push_back(buf);
	}

	if (status == BLOOM_OK)
		for (unsigned nthreads : {1u, 2u, 8u})
		{
			std::string threaded;
			bloom_status st = core_create_threaded(bpk, hashes, nthreads,
												   (size_t) rng.next(), &threaded);

			if (st != BLOOM_OK || threaded != expected)
			{
				snprintf(buf, sizeof(buf),
						 "filter set on %u threads: %s", nthreads,
						 st != BLOOM_OK ? bloom_status_message(st) :
						 "bytes differ from leveldb's");
				problems->push_back(buf);
			}
		}
}

/*
 * Compare one case; append a line to *problems for each disagreement and
 * name the case's shape in *summary.
 */
static void
check_case(uint64_t seed, uint64_t case_no, Policies &policies,
		   std::vector<std::string> *problems, std::string *summary)
{
	Rng			rng = case_rng(seed, case_no);
	Case		c = generate_case(rng, check_limits);
	const leveldb::FilterPolicy &policy = policies.get(c.bpk);
	std::string expected = leveldb_create(policy, c.keys);
	char		buf[256];

	compare_core_filters(c.bpk, core_hashes(c.keys), expected, rng, problems);

	/* both probe LevelDB's filter: a probe bug shows even if builds differ */
	for (int pass = 0; pass < 2; pass++)
	{
		const std::vector<std::string> &probes = pass == 0 ? c.keys : c.absent;

		for (size_t i = 0; i < probes.size(); i++)
		{
			bool		want = leveldb_match(policy, probes[i], expected);

			if (core_match(probes[i], expected) != want)
				problems->push_back(std::string("probe of ") +
									(pass == 0 ? "inserted" : "absent") +
									" key #" + std::to_string(i) + " " +
									describe_bytes(probes[i]) + ": leveldb " +
									(want ? "true" : "false") + ", core " +
									(want ? "false" : "true"));
		}
	}

	for (int f = 0; f < 8; f++)
	{
		std::string filter = hand_made_filter(rng, expected);

		for (int i = 0; i < 16; i++)
		{
			uint64_t	source = rng.below(3);
			std::string key;
			bool		want;

			if (source == 0 && !c.keys.empty())
				key = c.keys[rng.below(c.keys.size())];
			else if (source == 1 && !c.absent.empty())
				key = c.absent[rng.below(c.absent.size())];
			else
				key = random_key(rng, KeyStyle::Mixed, check_limits);

			want = leveldb_match(policy, key, filter);
			if (core_match(key, filter) != want)
				problems->push_back("probe of key " + describe_bytes(key) +
									" in hand-made filter " +
									describe_filter(filter) + ": leveldb " +
									(want ? "true" : "false") + ", core " +
									(want ? "false" : "true"));
		}
	}

	snprintf(buf, sizeof(buf), "bpk %d, n %zu", c.bpk, c.keys.size());
	*summary = buf;
}

/* ---- typed keys through the core (bloom_keys.h) ---- */

/*
 * A multi-column key as the core's functions write it (bloom_int_key_bytes,
 * bloom_put_field, bloom_put_null_field); the other values' bytes are what
 * the server hands them.  Room is left past the end, so that a function
 * writing too much is a wrong length and not a broken heap.
 */
static std::string
core_multi_key(const TypedCase &c, const TypedKey &key)
{
	const size_t slack = 64;
	std::vector<std::string> values;
	size_t		total = 0;
	std::string out;
	uint8_t    *start;
	uint8_t    *p;

	for (size_t i = 0; i < c.shape.size(); i++)
	{
		if (key[i].null)
			values.emplace_back();
		else if (is_int_type(c.shape[i]))
		{
			uint8_t		b[BLOOM_INT_KEY_BYTES];

			bloom_int_key_bytes(key[i].i, b);
			values.emplace_back(reinterpret_cast<const char *>(b), sizeof(b));
		}
		else
			values.push_back(spec_value_bytes(c.shape[i], key[i]));
		total += BLOOM_FIELD_HEADER_BYTES + values.back().size();
	}
	out.assign(total + slack, '\0');
	start = p = reinterpret_cast<uint8_t *>(&out[0]);
	for (size_t i = 0; i < c.shape.size() && (size_t) (p - start) <= total; i++)
		p += key[i].null ? bloom_put_null_field(p) :
			bloom_put_field(p, values[i].data(), (uint32_t) values[i].size());
	out.resize(std::min((size_t) (p - start), total + slack));
	return out;
}

/*
 * The hash the SQL functions probe and build with: an integer's and a
 * uuid's from the value (the uuid read at the given offset, for any
 * alignment), a multi-column key's from the bytes the core wrote.
 */
static uint32_t
core_typed_hash(const TypedCase &c, const TypedKey &key, size_t uuid_offset)
{
	uint8_t		buf[BLOOM_UUID_KEY_BYTES + 8];
	std::string bytes;

	switch (c.kind)
	{
		case TypedKind::Int:
			return bloom_int_key_hash(key[0].i);
		case TypedKind::Uuid:
			uuid_offset %= 8;
			memcpy(buf + uuid_offset, key[0].s.data(), BLOOM_UUID_KEY_BYTES);
			return bloom_uuid_key_hash(buf + uuid_offset);
		case TypedKind::Multi:
			bytes = core_multi_key(c, key);
			return bloom_key_hash(bytes.data(), bytes.size());
	}
	return 0;
}

/* The core's bytes of a key against the encoding, where the core writes any. */
static void
check_typed_bytes(const TypedCase &c, const TypedKey &key,
				  const std::string &spec, const char *what, size_t index,
				  std::vector<std::string> *problems)
{
	std::string core;
	const char *function;

	if (c.kind == TypedKind::Int)
	{
		uint8_t		b[BLOOM_INT_KEY_BYTES];

		bloom_int_key_bytes(key[0].i, b);
		core.assign(reinterpret_cast<const char *>(b), sizeof(b));
		function = "bloom_int_key_bytes";
	}
	else if (c.kind == TypedKind::Multi)
	{
		core = core_multi_key(c, key);
		function = "bloom_put_field/bloom_put_null_field";
	}
	else
		return;
	if (core != spec)
		problems->push_back(std::string(what) + " key #" + std::to_string(index) +
							" " + describe_typed_key(c, key) + ": " + function +
							" wrote x'" + to_hex(core) + "', the encoding is x'" +
							to_hex(spec) + "'");
}

/*
 * Compare one typed case: the core's bytes and hashes of the keys, its
 * filter of them and its probes against LevelDB over the test's encoding.
 */
static void
check_typed_case(uint64_t seed, uint64_t case_no, Policies &policies,
				 std::vector<std::string> *problems, std::string *summary)
{
	Rng			rng = typed_case_rng(seed, case_no);
	TypedCase	c = generate_typed_case(rng, check_limits, false);
	const leveldb::FilterPolicy &policy = policies.get(c.bpk);
	std::vector<std::string> key_bytes;
	std::vector<std::string> absent_bytes;
	std::vector<uint32_t> hashes;
	std::vector<uint32_t> absent_hashes;
	std::string expected;
	char		buf[256];

	for (size_t i = 0; i < c.keys.size(); i++)
	{
		key_bytes.push_back(spec_key_bytes(c, c.keys[i]));
		hashes.push_back(core_typed_hash(c, c.keys[i], (size_t) rng.below(8)));
		check_typed_bytes(c, c.keys[i], key_bytes.back(), "inserted", i, problems);
	}
	for (size_t i = 0; i < c.absent.size(); i++)
	{
		absent_bytes.push_back(spec_key_bytes(c, c.absent[i]));
		absent_hashes.push_back(core_typed_hash(c, c.absent[i], (size_t) rng.below(8)));
		check_typed_bytes(c, c.absent[i], absent_bytes.back(), "absent", i, problems);
	}

	expected = leveldb_create(policy, key_bytes);
	compare_core_filters(c.bpk, hashes, expected, rng, problems);

	for (int pass = 0; pass < 2; pass++)
	{
		const std::vector<TypedKey> &keys = pass == 0 ? c.keys : c.absent;
		const std::vector<std::string> &bytes = pass == 0 ? key_bytes : absent_bytes;
		const std::vector<uint32_t> &h = pass == 0 ? hashes : absent_hashes;

		for (size_t i = 0; i < keys.size(); i++)
		{
			bool		want = leveldb_match(policy, bytes[i], expected);

			if (bloom_may_contain_hash(reinterpret_cast<const uint8_t *>(expected.data()),
									   expected.size(), h[i]) != want)
				problems->push_back(std::string("probe of ") +
									(pass == 0 ? "inserted" : "absent") +
									" key #" + std::to_string(i) + " " +
									describe_typed_key(c, keys[i]) + ": leveldb " +
									(want ? "true" : "false") + ", core " +
									(want ? "false" : "true"));
		}
	}

	for (int f = 0; f < 4; f++)
	{
		std::string filter = hand_made_filter(rng, expected);

		for (int i = 0; i < 16; i++)
		{
			bool		inserted = !c.keys.empty() && (c.absent.empty() || rng.chance(1, 2));
			size_t		j;
			bool		want;

			if (!inserted && c.absent.empty())
				break;
			j = (size_t) rng.below(inserted ? c.keys.size() : c.absent.size());
			want = leveldb_match(policy, inserted ? key_bytes[j] : absent_bytes[j], filter);
			if (bloom_may_contain_hash(reinterpret_cast<const uint8_t *>(filter.data()),
									   filter.size(),
									   inserted ? hashes[j] : absent_hashes[j]) != want)
				problems->push_back("probe of key " +
									describe_typed_key(c, inserted ? c.keys[j] : c.absent[j]) +
									" in hand-made filter " + describe_filter(filter) +
									": leveldb " + (want ? "true" : "false") +
									", core " + (want ? "false" : "true"));
		}
	}

	snprintf(buf, sizeof(buf), "typed %s (%s), bpk %d, n %zu",
			 typed_kind_name(c.kind), shape_text(c).c_str(), c.bpk, c.keys.size());
	*summary = buf;
}

int
run_check(const char *prog, uint64_t seed, const CheckCases &cc)
{
	const size_t max_lines_per_case = 5;
	bool		named = cc.one_case || cc.one_typed;
	Policies	policies;
	uint64_t	passed = 0,
				failed = 0;
	std::string replay = std::string(prog) + " check --seed " + std::to_string(seed);

	if (cc.one_case)
		replay += " --case " + std::to_string(cc.only_case);
	if (cc.one_typed)
		replay += " --typed-case " + std::to_string(cc.only_typed);
	if (!named)
		replay += " --cases " + std::to_string(cc.ncases) +
			" --typed-cases " + std::to_string(cc.ntyped);
	printf("seed: %" PRIu64 "\n", seed);
	printf("replay: %s\n", replay.c_str());
	fflush(stdout);

	for (int typed = 0; typed < 2; typed++)
	{
		const char *what = typed ? "typed case" : "case";
		const char *option = typed ? "--typed-case" : "--case";
		uint64_t	first = 0;
		uint64_t	end = typed ? cc.ntyped : cc.ncases;

		if (named)
		{
			if (!(typed ? cc.one_typed : cc.one_case))
				continue;
			first = typed ? cc.only_typed : cc.only_case;
			end = first + 1;
		}

		for (uint64_t i = first; i < end; i++)
		{
			std::vector<std::string> problems;
			std::string summary;

			if (typed)
				check_typed_case(seed, i, policies, &problems, &summary);
			else
				check_case(seed, i, policies, &problems, &summary);
			if (problems.empty())
			{
				passed++;
				continue;
			}
			failed++;
			for (size_t j = 0; j < problems.size() && j < max_lines_per_case; j++)
				printf("MISMATCH %s %" PRIu64 " (%s): %s\n",
					   what, i, summary.c_str(), problems[j].c_str());
			if (problems.size() > max_lines_per_case)
				printf("MISMATCH %s %" PRIu64 " (%s): ... and %zu more\n",
					   what, i, summary.c_str(), problems.size() - max_lines_per_case);
			printf("  replay this case: %s check --seed %" PRIu64
				   " %s %" PRIu64 "\n", prog, seed, option, i);
		}
	}

	printf("leveldb: %" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}

}								/* namespace leveldb_diff */
