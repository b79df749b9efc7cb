/*
 * implementations.cc
 *		The two implementations, LevelDB's and the core's, and the helpers
 *		every command uses.
 */
#include "leveldb_diff.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <unistd.h>

namespace leveldb_diff
{

std::string
leveldb_create(const leveldb::FilterPolicy &policy,
			   const std::vector<std::string> &keys)
{
	std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
	std::string dst;

	policy.CreateFilter(slices.data(), (int) slices.size(), &dst);
	return dst;
}

bool
leveldb_match(const leveldb::FilterPolicy &policy, const std::string &key,
			  const std::string &filter)
{
	return policy.KeyMayMatch(key, filter);
}

std::vector<uint32_t>
core_hashes(const std::vector<std::string> &keys)
{
	std::vector<uint32_t> hashes;

	hashes.reserve(keys.size());
	for (const std::string &key : keys)
		hashes.push_back(bloom_key_hash(key.data(), key.size()));
	return hashes;
}

/*
 * The filter the SQL functions build: hash each key, size, then set bits.
 * Typed keys come here with the hashes their own functions compute.
 */
bloom_status
core_create_from_hashes(int bpk, const std::vector<uint32_t> &hashes,
						std::string *out)
{
	bloom_geometry geometry;
	bloom_status status;

	status = bloom_geometry_for(hashes.size(), bpk, &geometry);
	if (status != BLOOM_OK)
		return status;
	out->assign(geometry.filter_bytes, '\0');
	bloom_build_from_hashes(reinterpret_cast<uint8_t *>(&(*out)[0]), &geometry,
							hashes.data(), hashes.size());
	return BLOOM_OK;
}

/*
 * The same filter set by bloom_agg's final function on nthreads threads
 * (bloom_final.c), from the hashes split into two runs at cut.
 */
bloom_status
core_create_threaded(int bpk, const std::vector<uint32_t> &hashes,
					 unsigned nthreads, size_t cut, std::string *out)
{
	bloom_geometry geometry;
	bloom_status status;
	bloom_hash_run runs[2];

	status = bloom_geometry_for(hashes.size(), bpk, &geometry);
	if (status != BLOOM_OK)
		return status;
	cut = hashes.empty() ? 0 : cut % (hashes.size() + 1);
	runs[0] = {hashes.data(), cut, nullptr, 0, nullptr};
	runs[1] = {hashes.data() + cut, hashes.size() - cut, nullptr, 0, nullptr};
	out->assign(geometry.filter_bytes, '\0');
	return bloom_build_from_runs(reinterpret_cast<uint8_t *>(&(*out)[0]),
								 &geometry, runs, 2, nthreads);
}

bool
core_match(const std::string &key, const std::string &filter)
{
	return bloom_may_contain(reinterpret_cast<const uint8_t *>(filter.data()),
							 filter.size(), key.data(), key.size());
}

/* ---- helpers ---- */

std::string
to_hex(const std::string &bytes)
{
	static const char digits[] = "0123456789abcdef";
	std::string out;

	out.reserve(2 * bytes.size());
	for (unsigned char b : bytes)
	{
		out += digits[b >> 4];
		out += digits[b & 0xf];
	}
	return out;
}

/* A key for a message: the hex of its start, and its length. */
std::string
describe_bytes(const std::string &bytes)
{
	const size_t shown = 24;
	std::string out = "x'" + to_hex(bytes.substr(0, shown)) + "'";

	if (bytes.size() > shown)
		out += "...";
	return out + " (" + std::to_string(bytes.size()) + " bytes)";
}

/* A filter for a message: its start, length and final (k) byte. */
std::string
describe_filter(const std::string &filter)
{
	std::string out = describe_bytes(filter);

	if (!filter.empty())
	{
		char		k[32];

		/* into the parenthesis describe_bytes ends with */
		snprintf(k, sizeof(k), ", k byte %u", (unsigned char) filter.back());
		out.insert(out.size() - 1, k);
	}
	return out;
}

/*
 * What PostgreSQL's UTF8 encoding accepts as text, the unit tests' check
 * (vec_is_text: no overlong forms, no surrogates, nothing above U+10FFFF,
 * and no NUL, which text cannot hold at all).
 */
bool
is_pg_utf8_text(const std::string &s)
{
	return vec_is_text(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

bool
parse_u64(const char *s, uint64_t *out)
{
	char	   *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

uint64_t
fresh_seed()
{
	uint64_t	seed = 0;
	FILE	   *f = fopen("/dev/urandom", "rb");

	if (f != nullptr)
	{
		if (fread(&seed, sizeof(seed), 1, f) != 1)
			seed = 0;
		fclose(f);
	}
	if (seed == 0)
		seed = bloom_mix64((uint64_t) time(nullptr) ^
						   ((uint64_t) getpid() << 32));
	return seed;
}

}								/* namespace leveldb_diff */
