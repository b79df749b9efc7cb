/*
 * leveldb_diff.cc
 *		Differential test of the bloomfilter core against the real LevelDB.
 *
 * libleveldb is the oracle: for random inputs, every filter byte and every
 * probe answer of the core must equal what NewBloomFilterPolicy() gives.
 *
 *	 leveldb_diff check [--seed S] [--cases N] [--case I]
 *	 leveldb_diff export-sql OUT_DIR [--seed S] [--cases N]
 *	 leveldb_diff filter BITS_PER_KEY < KEYS > FILTER
 *
 * "check" compares the two directly.  "export-sql" writes the same kind of
 * random cases, with LevelDB's answers only, as COPY text files for the
 * SQL-level comparison, so the extension is held to LevelDB and not to the
 * core it is built from.  "filter" writes the bytes of LevelDB's filter of
 * the keys on standard input, one a line (newline-free keys, then, of any
 * number: test/scale_diff.sh compares big SQL aggregates with it).
 *
 * Every case draws from its own generator, seeded from the run seed and the
 * case number, so "--seed S --case I" replays case I of any run on its own.
 */
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

extern "C"
{
#include "bloom_core.h"
#include "bloom_final.h"
}

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <unistd.h>

namespace
{

/* ---- a PRNG whose stream depends on nothing but its seed ---- */

uint64_t
splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

class Rng
{
public:
	explicit Rng(uint64_t seed) : state_(seed) {}

	/* splitmix64 */
	uint64_t next()
	{
		state_ += UINT64_C(0x9e3779b97f4a7c15);
		return splitmix64_mix(state_);
	}

	/* 0..n-1; the modulo bias is irrelevant for test data */
	uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }

	/* lo..hi inclusive */
	uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }

	/* true with probability num/den */
	bool chance(uint64_t num, uint64_t den) { return below(den) < num; }

private:
	uint64_t	state_;
};

Rng
case_rng(uint64_t seed, uint64_t case_no)
{
	return Rng(splitmix64_mix(seed ^ splitmix64_mix(case_no + 1)));
}

/* ---- random cases ---- */

/* How big cases may get: "check" wants coverage, "export-sql" small files. */
struct Limits
{
	uint64_t	max_n;			/* largest number of keys */
	size_t		max_key_len;	/* > 40; if > 200, 2% of keys are longer than 200 */
	uint64_t	max_filter_bits;	/* n is cut down so that n * bpk fits */
	size_t		min_absent;		/* random keys known not to be inserted */
	size_t		max_absent;
};

const Limits check_limits = {4000, 1000, UINT64_C(1) << 23, 200, 400};
const Limits export_limits = {100, 100, UINT64_C(1) << 14, 10, 30};

enum class KeyStyle
{
	Binary,						/* random bytes, biased towards >= 0x80 and 0 */
	Ascii,						/* printable ASCII */
	Utf8,						/* multi-byte UTF-8 text */
	Counter,					/* "prefix" + decimal number, like real keys */
	Mixed						/* each key picks one of the above */
};

struct Case
{
	int			bpk;
	KeyStyle	style;
	std::vector<std::string> keys;	/* in CreateFilter order, duplicates kept */
	std::vector<std::string> absent;	/* none of these is in keys */
};

int
pick_bpk(Rng &rng)
{
	/* beyond 64, k is clamped to 30 and only the size still grows */
	static const int large[] = {65, 100, 127, 128, 255, 256, 1000, 1023, 4096};
	uint64_t	p = rng.below(100);

	if (p < 85)
		return (int) rng.below(65);
	if (p < 93)
		/* where the 64-bit minimum and the k = 1 clamp decide the filter */
		return (int) rng.below(11);
	return large[rng.below(sizeof(large) / sizeof(large[0]))];
}

/* Mostly small, which is where the size rules bite, with a long tail. */
uint64_t
pick_n(Rng &rng, const Limits &limits)
{
	uint64_t	p = rng.below(100);

	if (p < 8)
		return 0;
	if (p < 35)
		return rng.range(1, 8);
	if (p < 70)
		return rng.range(1, 64);
	if (p < 90)
		return rng.range(1, limits.max_n / 8);
	return rng.range(1, limits.max_n);
}

size_t
pick_key_length(Rng &rng, const Limits &limits)
{
	uint64_t	p = rng.below(100);

	if (p < 15)
		return rng.below(4);	/* the whole key is Hash()'s 0-3 byte tail */
	if (p < 90)
		return rng.below(41);
	if (limits.max_key_len <= 200)
		return rng.range(41, limits.max_key_len);
	if (p < 98)
		return rng.range(41, 200);
	return rng.range(201, limits.max_key_len);
}

uint8_t
random_byte(Rng &rng)
{
	switch (rng.below(8))
	{
		case 0:
			return 0x00;
		case 1:
			return 0xff;
		case 2:
		case 3:
			return (uint8_t) (0x80 | rng.below(0x80));
		default:
			return (uint8_t) rng.below(0x100);
	}
}

std::string
binary_key(Rng &rng, size_t len)
{
	std::string key(len, '\0');
	size_t		tail = key.size() % 4;

	for (char &c : key)
		c = (char) random_byte(rng);

	/*
	 * Hash() adds the 1-3 bytes after the last whole word separately;
	 * LevelDB before 1.18 sign-extended them, so a tail byte >= 0x80 is
	 * what tells the two readings apart.
	 */
	for (size_t i = key.size() - tail; i < key.size(); i++)
		if (rng.chance(7, 10))
			key[i] = (char) (0x80 | rng.below(0x80));
	return key;
}

std::string
ascii_key(Rng &rng, size_t len)
{
	std::string key(len, '\0');

	for (char &c : key)
		c = (char) rng.range(0x20, 0x7e);
	return key;
}

void
append_utf8(std::string &s, uint32_t cp)
{
	if (cp < 0x80)
		s += (char) cp;
	else if (cp < 0x800)
	{
		s += (char) (0xc0 | (cp >> 6));
		s += (char) (0x80 | (cp & 0x3f));
	}
	else if (cp < 0x10000)
	{
		s += (char) (0xe0 | (cp >> 12));
		s += (char) (0x80 | ((cp >> 6) & 0x3f));
		s += (char) (0x80 | (cp & 0x3f));
	}
	else
	{
		s += (char) (0xf0 | (cp >> 18));
		s += (char) (0x80 | ((cp >> 12) & 0x3f));
		s += (char) (0x80 | ((cp >> 6) & 0x3f));
		s += (char) (0x80 | (cp & 0x3f));
	}
}

std::string
utf8_key(Rng &rng, size_t target)
{
	std::string key;

	while (key.size() < target)
	{
		uint64_t	p = rng.below(100);
		uint32_t	cp;

		if (p < 30)
			cp = (uint32_t) rng.range(0x20, 0x7e);
		else if (p < 55)
			cp = (uint32_t) rng.range(0x80, 0x7ff);
		else if (p < 85)
		{
			do
				cp = (uint32_t) rng.range(0x800, 0xffff);
			while (cp >= 0xd800 && cp <= 0xdfff);
		}
		else
			cp = (uint32_t) rng.range(0x10000, 0x10ffff);
		append_utf8(key, cp);
	}
	return key;
}

std::string
counter_key(Rng &rng)
{
	static const char *const prefixes[] = {"", "user:", "k", "order/2024/"};

	return std::string(prefixes[rng.below(4)]) +
		std::to_string(rng.below(rng.chance(1, 2) ? 1000 : UINT64_C(1) << 40));
}

std::string
random_key(Rng &rng, KeyStyle style, const Limits &limits)
{
	if (style == KeyStyle::Mixed)
		style = (KeyStyle) rng.below((uint64_t) KeyStyle::Mixed);
	switch (style)
	{
		case KeyStyle::Binary:
			return binary_key(rng, pick_key_length(rng, limits));
		case KeyStyle::Ascii:
			return ascii_key(rng, pick_key_length(rng, limits));
		case KeyStyle::Utf8:
			return utf8_key(rng, pick_key_length(rng, limits));
		case KeyStyle::Counter:
		case KeyStyle::Mixed:
			break;
	}
	return counter_key(rng);
}

KeyStyle
pick_style(Rng &rng)
{
	uint64_t	p = rng.below(100);

	/* the text styles make up about a third, for the SQL text path */
	if (p < 40)
		return KeyStyle::Binary;
	if (p < 52)
		return KeyStyle::Ascii;
	if (p < 68)
		return KeyStyle::Utf8;
	if (p < 75)
		return KeyStyle::Counter;
	return KeyStyle::Mixed;
}

Case
generate_case(Rng &rng, const Limits &limits)
{
	Case		c;
	uint64_t	n;
	uint64_t	dup_percent;
	std::unordered_set<std::string> inserted;
	size_t		nabsent;

	c.bpk = pick_bpk(rng);
	c.style = pick_style(rng);
	n = pick_n(rng, limits);
	if (c.bpk > 0 && n * (uint64_t) c.bpk > limits.max_filter_bits)
		n = limits.max_filter_bits / (uint64_t) c.bpk;
	dup_percent = rng.chance(2, 5) ? rng.range(5, 50) : 0;

	c.keys.reserve(n);
	for (uint64_t i = 0; i < n; i++)
	{
		if (i > 0 && rng.chance(dup_percent, 100))
			c.keys.push_back(c.keys[rng.below(i)]);
		else
			c.keys.push_back(random_key(rng, c.style, limits));
		inserted.insert(c.keys.back());
	}

	nabsent = (size_t) rng.range(limits.min_absent, limits.max_absent);
	for (size_t tries = 0; c.absent.size() < nabsent && tries < 4 * nabsent; tries++)
	{
		std::string key = random_key(rng, c.style, limits);

		if (inserted.count(key) == 0)
			c.absent.push_back(std::move(key));
	}
	return c;
}

/*
 * Bytes that no writer produced: short, k = 0, k reserved (> 30), nearly
 * all ones so that probes do match, or a real filter with damage.
 */
std::string
hand_made_filter(Rng &rng, const std::string &real)
{
	std::string f;

	if (!real.empty() && real.size() <= 4096 && rng.chance(1, 3))
	{
		f = real;
		for (uint64_t flips = rng.below(4); flips > 0; flips--)
			f[rng.below(f.size())] ^= (char) (1u << rng.below(8));
		if (rng.chance(1, 4))
			f.resize(rng.below(f.size() + 1));
		if (rng.chance(1, 4))
			for (uint64_t extra = rng.range(1, 8); extra > 0; extra--)
				f += (char) random_byte(rng);
	}
	else
	{
		uint64_t	density = rng.below(4);

		f.resize(rng.below(65));
		for (char &c : f)
		{
			uint64_t	r = rng.next();

			switch (density)
			{
				case 0:			/* each bit set with probability 1/2 */
					c = (char) r;
					break;
				case 1:			/* 7/8 */
					c = (char) ~(r & (r >> 8) & (r >> 16));
					break;
				case 2:			/* 63/64 */
					c = (char) ~(r & (r >> 8) & (r >> 16) & (r >> 24) &
								 (r >> 32) & (r >> 40));
					break;
				default:
					c = (char) 0xff;
					break;
			}
		}
	}

	if (!f.empty())
	{
		static const uint8_t edges[] = {0, 1, 30, 31, 32, 0x7f, 0x80, 0xff};

		switch (rng.below(5))
		{
			case 0:
				f.back() = 0;
				break;
			case 1:
				f.back() = (char) rng.range(1, BLOOM_MAX_K);
				break;
			case 2:
				f.back() = (char) rng.range(BLOOM_MAX_K + 1, 0xff);
				break;
			case 3:
				f.back() = (char) edges[rng.below(sizeof(edges))];
				break;
			default:
				break;			/* keep whatever the bytes above left */
		}
	}
	return f;
}

/* ---- the two implementations ---- */

class Policies
{
public:
	const leveldb::FilterPolicy &get(int bpk)
	{
		std::unique_ptr<const leveldb::FilterPolicy> &p = cache_[bpk];

		if (!p)
			p.reset(leveldb::NewBloomFilterPolicy(bpk));
		return *p;
	}

private:
	std::map<int, std::unique_ptr<const leveldb::FilterPolicy>> cache_;
};

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

/* The filter the SQL functions build: hash each key, size, then set bits. */
bloom_status
core_create(int bpk, const std::vector<std::string> &keys, std::string *out)
{
	bloom_geometry geometry;
	bloom_status status;
	std::vector<uint32_t> hashes;

	status = bloom_geometry_for(keys.size(), bpk, &geometry);
	if (status != BLOOM_OK)
		return status;
	hashes.reserve(keys.size());
	for (const std::string &key : keys)
		hashes.push_back(bloom_key_hash(key.data(), key.size()));
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
core_create_threaded(int bpk, const std::vector<std::string> &keys,
					 unsigned nthreads, size_t cut, std::string *out)
{
	bloom_geometry geometry;
	bloom_status status;
	std::vector<uint32_t> hashes;
	bloom_hash_run runs[2];

	status = bloom_geometry_for(keys.size(), bpk, &geometry);
	if (status != BLOOM_OK)
		return status;
	for (const std::string &key : keys)
		hashes.push_back(bloom_key_hash(key.data(), key.size()));
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
 * What PostgreSQL's UTF8 encoding accepts as text (pg_utf8_islegal: no
 * overlong forms, no surrogates, nothing above U+10FFFF), and no NUL,
 * which text cannot hold at all.
 */
bool
is_pg_utf8_text(const std::string &s)
{
	const unsigned char *p = reinterpret_cast<const unsigned char *>(s.data());
	const unsigned char *end = p + s.size();

	while (p < end)
	{
		unsigned char c = *p;
		size_t		len;
		unsigned char lo = 0x80,
					hi = 0xbf;

		if (c == 0)
			return false;
		if (c < 0x80)
		{
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
		{
			len = 3;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		}
		else if (c >= 0xf0 && c <= 0xf4)
		{
			len = 4;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		}
		else
			return false;
		if ((size_t) (end - p) < len || p[1] < lo || p[1] > hi)
			return false;
		for (size_t i = 2; i < len; i++)
			if (p[i] < 0x80 || p[i] > 0xbf)
				return false;
		p += len;
	}
	return true;
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
		seed = splitmix64_mix((uint64_t) time(nullptr) ^
							  ((uint64_t) getpid() << 32));
	return seed;
}

/* ---- check ---- */

/*
 * Compare one case; append a line to *problems for each disagreement and
 * name the case's shape in *summary.
 */
void
check_case(uint64_t seed, uint64_t case_no, Policies &policies,
		   std::vector<std::string> *problems, std::string *summary)
{
	Rng			rng = case_rng(seed, case_no);
	Case		c = generate_case(rng, check_limits);
	const leveldb::FilterPolicy &policy = policies.get(c.bpk);
	std::string expected = leveldb_create(policy, c.keys);
	std::string actual;
	bloom_status status;
	char		buf[256];

	status = core_create(c.bpk, c.keys, &actual);
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

	/* the final function's threads: 1, 2 and 8 of them, the same bytes */
	if (status == BLOOM_OK)
		for (unsigned nthreads : {1u, 2u, 8u})
		{
			std::string threaded;
			bloom_status st = core_create_threaded(c.bpk, c.keys, nthreads,
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

int
run_check(const char *prog, uint64_t seed, uint64_t ncases, bool one_case,
		  uint64_t only_case)
{
	const size_t max_lines_per_case = 5;
	Policies	policies;
	uint64_t	passed = 0,
				failed = 0;

	printf("seed: %" PRIu64 "\n", seed);
	if (one_case)
		printf("replay: %s check --seed %" PRIu64 " --case %" PRIu64 "\n",
			   prog, seed, only_case);
	else
		printf("replay: %s check --seed %" PRIu64 " --cases %" PRIu64 "\n",
			   prog, seed, ncases);
	fflush(stdout);

	uint64_t	first = one_case ? only_case : 0;
	uint64_t	end = one_case ? only_case + 1 : ncases;

	for (uint64_t i = first; i < end; i++)
	{
		std::vector<std::string> problems;
		std::string summary;

		check_case(seed, i, policies, &problems, &summary);
		if (problems.empty())
		{
			passed++;
			continue;
		}
		failed++;
		for (size_t j = 0; j < problems.size() && j < max_lines_per_case; j++)
			printf("MISMATCH case %" PRIu64 " (%s): %s\n",
				   i, summary.c_str(), problems[j].c_str());
		if (problems.size() > max_lines_per_case)
			printf("MISMATCH case %" PRIu64 " (%s): ... and %zu more\n",
				   i, summary.c_str(), problems.size() - max_lines_per_case);
		printf("  replay this case: %s check --seed %" PRIu64
			   " --case %" PRIu64 "\n", prog, seed, i);
	}

	printf("leveldb: %" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}

/* ---- filter ---- */

int
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

/* ---- export-sql ---- */

int
run_export(const char *prog, const std::string &dir, uint64_t seed,
		   uint64_t ncases)
{
	Policies	policies;
	std::error_code ec;
	uint64_t	nkeys = 0,
				nprobes = 0,
				ntext = 0,
				nempty = 0;

	printf("seed: %" PRIu64 "\n", seed);
	printf("replay: %s export-sql %s --seed %" PRIu64 " --cases %" PRIu64 "\n",
		   prog, dir.c_str(), seed, ncases);
	fflush(stdout);

	std::filesystem::create_directories(dir, ec);
	if (ec)
	{
		fprintf(stderr, "leveldb_diff: cannot create %s: %s\n",
				dir.c_str(), ec.message().c_str());
		return 2;
	}

	std::ofstream cases_out(dir + "/cases.tsv", std::ios::binary);
	std::ofstream keys_out(dir + "/keys.tsv", std::ios::binary);
	std::ofstream probes_out(dir + "/probes.tsv", std::ios::binary);

	for (uint64_t i = 0; i < ncases; i++)
	{
		Rng			rng = case_rng(seed, i);
		Case		c = generate_case(rng, export_limits);
		const leveldb::FilterPolicy &policy = policies.get(c.bpk);
		std::string filter = leveldb_create(policy, c.keys);
		std::string id = "rnd-" + std::to_string(seed) + "-" + std::to_string(i);
		bool		text_ok = true;
		uint64_t	ord = 0;

		for (const std::string &k : c.keys)
			text_ok = text_ok && is_pg_utf8_text(k);
		for (const std::string &k : c.absent)
			text_ok = text_ok && is_pg_utf8_text(k);

		cases_out << id << "\tcreate\t" << c.bpk << '\t' << c.keys.size()
			<< '\t' << (text_ok ? 't' : 'f') << '\t' << to_hex(filter)
			<< "\t\\N\n";

		for (size_t j = 0; j < c.keys.size(); j++)
			keys_out << id << '\t' << j << '\t' << to_hex(c.keys[j]) << '\n';

		for (int pass = 0; pass < 2; pass++)
			for (const std::string &k : pass == 0 ? c.keys : c.absent)
				probes_out << id << '\t' << ord++ << '\t' << to_hex(k) << '\t'
					<< (leveldb_match(policy, k, filter) ? 't' : 'f') << '\n';

		nkeys += c.keys.size();
		nprobes += ord;
		ntext += text_ok;
		nempty += c.keys.empty();
	}

	cases_out.close();
	keys_out.close();
	probes_out.close();
	if (!cases_out || !keys_out || !probes_out)
	{
		fprintf(stderr, "leveldb_diff: writing to %s failed\n", dir.c_str());
		return 2;
	}
	printf("wrote %" PRIu64 " cases (%" PRIu64 " text_ok, %" PRIu64
		   " with no keys), %" PRIu64 " keys, %" PRIu64 " probes to %s\n",
		   ncases, ntext, nempty, nkeys, nprobes, dir.c_str());
	return 0;
}

void
usage(const char *prog)
{
	fprintf(stderr,
			"usage: %s check [--seed S] [--cases N] [--case I]\n"
			"       %s export-sql OUT_DIR [--seed S] [--cases N]\n"
			"       %s filter BITS_PER_KEY < KEYS > FILTER\n"
			"       %s filter-cycle BITS_PER_KEY N D > FILTER\n",
			prog, prog, prog, prog);
}

}								/* namespace */

int
main(int argc, char **argv)
{
	const char *prog = argv[0];
	bool		check;
	std::string out_dir;
	uint64_t	seed = 0;
	bool		have_seed = false;
	uint64_t	ncases;
	bool		one_case = false;
	uint64_t	only_case = 0;
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
		check = true;
		ncases = 3000;
	}
	else if (strcmp(argv[1], "export-sql") == 0 && argc >= 3 &&
			 argv[2][0] != '-')
	{
		check = false;
		ncases = 2000;
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
		else if (check && strcmp(opt, "--case") == 0)
		{
			target = &only_case;
			one_case = true;
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

	if (check)
		return run_check(prog, seed, ncases, one_case, only_case);
	return run_export(prog, out_dir, seed, ncases);
}
