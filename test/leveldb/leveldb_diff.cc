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
 */
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

extern "C"
{
#include "bloom_core.h"
#include "bloom_final.h"
#include "bloom_keys.h"
}

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
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

/* ---- typed keys: cases and the test's own encoding ---- */

/*
 * The types of typed keys and of a multi-column key's fields.  The core
 * knows integers, uuids and bytes; the types after Bytea are the server's
 * (bloom_key turns their values into bytes), so only the SQL export has
 * them.
 */
enum class FieldType
{
	Int2,
	Int4,
	Int8,
	Uuid,
	Text,
	Bytea,
	Varchar,
	Char,						/* char(char_width) */
	Name,
	Label,						/* an enum of export_labels */
	Bool,
	Float8
};

const size_t char_width = 20;

/* The SQL type, as the export's shape column names it. */
const char *
sql_type_name(FieldType t)
{
	switch (t)
	{
		case FieldType::Int2:
			return "smallint";
		case FieldType::Int4:
			return "integer";
		case FieldType::Int8:
			return "bigint";
		case FieldType::Uuid:
			return "uuid";
		case FieldType::Text:
			return "text";
		case FieldType::Bytea:
			return "bytea";
		case FieldType::Varchar:
			return "varchar";
		case FieldType::Char:
			/* char_width; test/sql_diff_typed.sh knows this name */
			return "char(20)";
		case FieldType::Name:
			return "name";
		case FieldType::Label:
			return "sd_label";
		case FieldType::Bool:
			return "boolean";
		case FieldType::Float8:
			return "float8";
	}
	return "?";
}

bool
is_int_type(FieldType t)
{
	return t == FieldType::Int2 || t == FieldType::Int4 || t == FieldType::Int8;
}

/* One value: which member holds it depends on its type. */
struct Field
{
	bool		null = false;
	int64_t		i = 0;			/* the integer types */
	bool		b = false;		/* Bool */
	double		d = 0;			/* Float8 */
	std::string s;				/* Uuid's 16 bytes; the text types' UTF-8;
								 * Bytea's bytes; Char as typed, padding
								 * and all */
};

using TypedKey = std::vector<Field>;

enum class TypedKind
{
	Int,						/* a smallint, integer or bigint key */
	Uuid,
	Multi						/* bloom_key(...) of the shape's columns */
};

struct TypedCase
{
	int			bpk;
	TypedKind	kind;
	/* Int: the narrowest type every key fits; Uuid: uuid; Multi: the columns */
	std::vector<FieldType> shape;
	std::vector<TypedKey> keys;
	std::vector<TypedKey> absent;
	size_t		split;			/* bloom_agg_partial of keys before and after */
};

/* The shapes of multi-column keys the SQL export draws from. */
const std::vector<std::vector<FieldType>> export_shapes = {
	{FieldType::Int4, FieldType::Text},
	{FieldType::Int8, FieldType::Uuid, FieldType::Bytea},
	{FieldType::Text, FieldType::Int2, FieldType::Int8},
	{FieldType::Uuid, FieldType::Uuid},
	{FieldType::Bytea},
	{FieldType::Text, FieldType::Text},
	{FieldType::Varchar, FieldType::Char, FieldType::Name},
	{FieldType::Label, FieldType::Bool, FieldType::Float8},
	{FieldType::Int2, FieldType::Int4, FieldType::Int8, FieldType::Bytea},
};

const size_t export_max_columns = 4;

/* The labels of the export's enum, in their order (labels.tsv). */
const std::vector<std::string> export_labels = {
	"red", "green", "blue green", "x", "\xc3\xbc" "n" "\xc3\xaf" "c" "\xc3\xb6" "d" "\xc3\xa9",
	"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", std::string(63, 'x'),
};

/*
 * The encoding, restated from its description (the value as a signed
 * 64-bit integer most significant byte first; a uuid's 16 bytes; a field's
 * length as 4 bytes most significant first, 0xFFFFFFFF for NULL) and not
 * taken from bloom_keys.h, whose functions are what is being checked.
 */
std::string
be_bytes(uint64_t v, int nbytes)
{
	std::string out((size_t) nbytes, '\0');

	for (int i = nbytes - 1; i >= 0; i--, v >>= 8)
		out[(size_t) i] = (char) (v & 0xff);
	return out;
}

/* A value's bytes as bloom_key writes them into its field. */
std::string
spec_value_bytes(FieldType t, const Field &f)
{
	uint64_t	bits;
	size_t		end;

	switch (t)
	{
		case FieldType::Int2:
		case FieldType::Int4:
		case FieldType::Int8:
			/* two's complement: the conversion is modulo 2^64 */
			return be_bytes((uint64_t) f.i, 8);
		case FieldType::Uuid:
		case FieldType::Text:
		case FieldType::Bytea:
		case FieldType::Varchar:
		case FieldType::Name:
		case FieldType::Label:
			return f.s;
		case FieldType::Char:
			end = f.s.find_last_not_of(' ');
			return end == std::string::npos ? std::string() : f.s.substr(0, end + 1);
		case FieldType::Bool:
			/* boolsend */
			return std::string(1, f.b ? '\1' : '\0');
		case FieldType::Float8:
			/* float8send: the IEEE 754 bits, most significant byte first */
			memcpy(&bits, &f.d, sizeof(bits));
			return be_bytes(bits, 8);
	}
	return std::string();
}

/* The bytes a typed key is hashed as: what LevelDB is given for it. */
std::string
spec_key_bytes(const TypedCase &c, const TypedKey &key)
{
	std::string out;

	if (c.kind != TypedKind::Multi)
		return spec_value_bytes(c.shape[0], key[0]);
	for (size_t i = 0; i < c.shape.size(); i++)
	{
		if (key[i].null)
			out += std::string(4, '\xff');
		else
		{
			std::string v = spec_value_bytes(c.shape[i], key[i]);

			out += be_bytes(v.size(), 4);
			out += v;
		}
	}
	return out;
}

/* ---- drawing typed keys ---- */

void
int_range(FieldType width, int64_t *lo, int64_t *hi)
{
	switch (width)
	{
		case FieldType::Int2:
			*lo = INT16_MIN;
			*hi = INT16_MAX;
			return;
		case FieldType::Int4:
			*lo = INT32_MIN;
			*hi = INT32_MAX;
			return;
		default:
			*lo = INT64_MIN;
			*hi = INT64_MAX;
			return;
	}
}

/* Where a width's edges or a byte's carry could be got wrong. */
const int64_t int_edges[] = {
	0, -1, 1, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1,
	INT32_MIN, INT32_MAX, (int64_t) INT32_MIN - 1, (int64_t) INT32_MAX + 1,
	INT16_MIN, INT16_MAX, INT16_MIN - 1, INT16_MAX + 1,
	127, 128, -128, -129, 255, 256, -255, -256, 65535, 65536, -65536,
	(int64_t) UINT32_MAX, (int64_t) UINT32_MAX + 1, -(int64_t) UINT32_MAX - 1,
	INT64_C(0x00ff00ff00ff00ff), INT64_C(-0x0100000000000000),
};

/* An integer of the width's range, biased towards the edges. */
int64_t
pick_int(Rng &rng, FieldType width)
{
	int64_t		lo,
				hi;
	uint64_t	p = rng.below(100);
	unsigned	bits = width == FieldType::Int2 ? 16 : width == FieldType::Int4 ? 32 : 64;

	int_range(width, &lo, &hi);
	if (p < 15)
	{
		for (;;)
		{
			int64_t		v = int_edges[rng.below(sizeof(int_edges) / sizeof(int_edges[0]))];

			if (v >= lo && v <= hi)
				return v;
		}
	}
	if (p < 35)
		return (int64_t) rng.below(2001) - 1000;
	if (p < 70)
	{
		/* any magnitude below the width's, either sign */
		uint64_t	m = rng.next() >> (64 - bits + 1 + rng.below(bits - 1));

		return rng.chance(1, 2) ? (int64_t) m : -(int64_t) m - 1;
	}
	if (bits == 64)
		return (int64_t) rng.next();
	return lo + (int64_t) rng.below((uint64_t) (hi - lo) + 1);
}

/* The narrowest integer type v fits. */
FieldType
int_width(int64_t v)
{
	if (v >= INT16_MIN && v <= INT16_MAX)
		return FieldType::Int2;
	if (v >= INT32_MIN && v <= INT32_MAX)
		return FieldType::Int4;
	return FieldType::Int8;
}

std::string
pick_uuid(Rng &rng, const std::string *prev)
{
	uint64_t	p = rng.below(100);
	std::string u(16, '\0');

	if (p < 5)
		return u;
	if (p < 10)
		return std::string(16, '\xff');
	if (p < 20)
	{
		/* one byte that differs from an all-zero or all-ones uuid */
		if (rng.chance(1, 2))
			u.assign(16, '\xff');
		u[rng.below(16)] = (char) rng.below(256);
		return u;
	}
	if (p < 30 && prev != nullptr)
	{
		/* the next uuid, counting most significant byte first */
		u = *prev;
		for (int i = 15; i >= 0 && ++u[(size_t) i] == '\0'; i--)
			;
		return u;
	}
	for (char &c : u)
		c = (char) random_byte(rng);
	if (p < 50)
	{
		/* version 4, variant 10 */
		u[6] = (char) (0x40 | (u[6] & 0x0f));
		u[8] = (char) (0x80 | (u[8] & 0x3f));
	}
	return u;
}

double
pick_double(Rng &rng)
{
	static const double edges[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 0.1, -2.5, 1e300, -1e-300, 123456789.125,
		DBL_MAX, -DBL_MAX, DBL_MIN, DBL_EPSILON, 9007199254740993.0,
		std::numeric_limits<double>::infinity(),
		-std::numeric_limits<double>::infinity(),
		std::numeric_limits<double>::quiet_NaN(),
	};
	uint64_t	p = rng.below(100);
	uint64_t	bits;
	double		d;

	if (p < 30)
		return edges[rng.below(sizeof(edges) / sizeof(edges[0]))];
	if (p < 50)
		return (double) ((int64_t) rng.below(2001) - 1000);
	/* a normal number: no subnormal, whose input older servers refuse */
	bits = (rng.next() & UINT64_C(0x800fffffffffffff)) |
		(rng.range(1, 2046) << 52);
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* Text that float8in reads back as exactly d. */
std::string
double_text(double d)
{
	char		buf[64];

	if (std::isnan(d))
		return "NaN";
	if (std::isinf(d))
		return d > 0 ? "Infinity" : "-Infinity";
	snprintf(buf, sizeof(buf), "%.17g", d);
	return buf;
}

/* Up to char_width characters, often with spaces at either end. */
std::string
pick_char_value(Rng &rng)
{
	size_t		nchars = (size_t) rng.below(char_width + 1);
	size_t		nspaces = rng.chance(1, 3) ? (size_t) rng.below(nchars + 1) : 0;
	std::string s;

	for (size_t i = 0; i < nchars; i++)
	{
		uint64_t	p = rng.below(100);

		if (i >= nchars - nspaces || p < 10)
			s += ' ';
		else if (p < 70)
			s += (char) rng.range(0x21, 0x7e);
		else if (p < 90)
			append_utf8(s, (uint32_t) rng.range(0x80, 0x7ff));
		else
			append_utf8(s, (uint32_t) rng.range(0x10000, 0x10ffff));
	}
	return s;
}

/* UTF-8 text for a text field: often empty, short or ASCII. */
std::string
pick_text_value(Rng &rng, const Limits &limits, size_t max_bytes)
{
	uint64_t	p = rng.below(100);
	size_t		len;
	std::string s;

	if (p < 15)
		return s;
	len = std::min(pick_key_length(rng, limits), max_bytes);
	if (p < 55)
		return ascii_key(rng, len);
	/* utf8_key ends on a whole character, up to 3 bytes past len */
	do
	{
		s = utf8_key(rng, len);
		len /= 2;
	} while (s.size() > max_bytes);
	return s;
}

Field
pick_field(Rng &rng, FieldType t, uint64_t null_percent, const Limits &limits,
		   const Field *prev)
{
	Field		f;

	if (rng.chance(null_percent, 100))
	{
		f.null = true;
		return f;
	}
	switch (t)
	{
		case FieldType::Int2:
		case FieldType::Int4:
		case FieldType::Int8:
			f.i = pick_int(rng, t);
			break;
		case FieldType::Uuid:
			f.s = pick_uuid(rng, prev != nullptr && !prev->null ? &prev->s : nullptr);
			break;
		case FieldType::Text:
		case FieldType::Varchar:
			f.s = pick_text_value(rng, limits, SIZE_MAX);
			break;
		case FieldType::Name:
			/* name holds 63 bytes; a longer value would be cut */
			f.s = pick_text_value(rng, limits, 63);
			break;
		case FieldType::Bytea:
			f.s = rng.chance(15, 100) ? std::string() :
				binary_key(rng, pick_key_length(rng, limits));
			break;
		case FieldType::Char:
			f.s = pick_char_value(rng);
			break;
		case FieldType::Label:
			f.s = export_labels[rng.below(export_labels.size())];
			break;
		case FieldType::Bool:
			f.b = rng.chance(1, 2);
			break;
		case FieldType::Float8:
			f.d = pick_double(rng);
			break;
	}
	return f;
}

/* A multi-column key of the case's shape. */
TypedKey
pick_multi_key(Rng &rng, const TypedCase &c, uint64_t null_percent,
			   const Limits &limits, const TypedKey *prev)
{
	TypedKey	key;

	for (size_t i = 0; i < c.shape.size(); i++)
		key.push_back(pick_field(rng, c.shape[i], null_percent, limits,
								 prev != nullptr ? &(*prev)[i] : nullptr));
	return key;
}

bool
is_byte_string_type(FieldType t)
{
	return t == FieldType::Text || t == FieldType::Bytea ||
		t == FieldType::Varchar || t == FieldType::Name;
}

/*
 * A key close to one that is inserted: a NULL field made empty or the
 * reverse, or a byte moved across the boundary of two fields ('ab', 'c'
 * for 'a', 'bc'), which only the lengths tell apart.
 */
TypedKey
near_multi_key(Rng &rng, const TypedCase &c, const TypedKey &from,
			   const Limits &limits)
{
	TypedKey	key = from;
	size_t		i = (size_t) rng.below(c.shape.size());
	FieldType	t = c.shape[i];

	if (key[i].null)
	{
		key[i] = is_byte_string_type(t) ? Field() : pick_field(rng, t, 0, limits, nullptr);
		return key;
	}
	if (is_byte_string_type(t) && key[i].s.empty())
	{
		key[i].null = true;
		return key;
	}
	if (i + 1 < c.shape.size() && is_byte_string_type(t) &&
		is_byte_string_type(c.shape[i + 1]) && !key[i + 1].null &&
		!key[i].s.empty() && (t == FieldType::Bytea ||
							  (unsigned char) key[i].s.back() < 0x80) &&
		(c.shape[i + 1] != FieldType::Name || key[i + 1].s.size() < 63))
	{
		key[i + 1].s.insert(0, 1, key[i].s.back());
		key[i].s.pop_back();
		return key;
	}
	key[i] = pick_field(rng, t, 0, limits, nullptr);
	return key;
}

/* A shape for the core's check: the types the core has functions for. */
std::vector<FieldType>
pick_check_shape(Rng &rng)
{
	static const FieldType types[] = {
		FieldType::Int2, FieldType::Int4, FieldType::Int8,
		FieldType::Uuid, FieldType::Text, FieldType::Bytea,
	};
	std::vector<FieldType> shape((size_t) rng.range(1, 6));

	for (FieldType &t : shape)
		t = types[rng.below(sizeof(types) / sizeof(types[0]))];
	return shape;
}

/*
 * Typed cases come from a stream of their own, so that adding them left
 * every byte-string case of a seed as it was.
 */
Rng
typed_case_rng(uint64_t seed, uint64_t case_no)
{
	return case_rng(splitmix64_mix(seed ^ UINT64_C(0x7479706564)), case_no);
}

TypedCase
generate_typed_case(Rng &rng, const Limits &limits, bool export_shape)
{
	TypedCase	c;
	uint64_t	n;
	uint64_t	dup_percent;
	uint64_t	null_percent = 0;
	uint64_t	p = rng.below(100);
	std::unordered_set<std::string> inserted;
	size_t		nabsent;
	uint64_t	run_left = 0;

	c.bpk = pick_bpk(rng);
	if (p < 35)
	{
		static const FieldType widths[] = {FieldType::Int2, FieldType::Int4, FieldType::Int8};

		c.kind = TypedKind::Int;
		c.shape = {widths[rng.below(3)]};
	}
	else if (p < 55)
	{
		c.kind = TypedKind::Uuid;
		c.shape = {FieldType::Uuid};
	}
	else
	{
		static const uint64_t null_percents[] = {0, 10, 40};

		c.kind = TypedKind::Multi;
		c.shape = export_shape ? export_shapes[rng.below(export_shapes.size())] :
			pick_check_shape(rng);
		null_percent = null_percents[rng.below(3)];
	}

	n = pick_n(rng, limits);
	if (c.bpk > 0 && n * (uint64_t) c.bpk > limits.max_filter_bits)
		n = limits.max_filter_bits / (uint64_t) c.bpk;
	dup_percent = rng.chance(2, 5) ? rng.range(5, 50) : 0;

	for (uint64_t i = 0; i < n; i++)
	{
		const TypedKey *prev = i > 0 ? &c.keys.back() : nullptr;
		TypedKey	key;

		if (i > 0 && rng.chance(dup_percent, 100))
			key = c.keys[rng.below(i)];
		else if (c.kind == TypedKind::Int)
		{
			int64_t		lo,
						hi;

			int_range(c.shape[0], &lo, &hi);
			key.resize(1);
			/* runs of consecutive integers, as serial ids are */
			if (run_left > 0 && prev != nullptr && (*prev)[0].i < hi)
			{
				key[0].i = (*prev)[0].i + 1;
				run_left--;
			}
			else
			{
				key[0].i = pick_int(rng, c.shape[0]);
				run_left = rng.chance(1, 10) ? rng.range(1, 40) : 0;
			}
		}
		else if (c.kind == TypedKind::Uuid)
			key = {pick_field(rng, FieldType::Uuid, 0, limits,
							  prev != nullptr ? &(*prev)[0] : nullptr)};
		else
			key = pick_multi_key(rng, c, null_percent, limits, prev);
		c.keys.push_back(std::move(key));
	}

	/* every edge the width has, in one case in five */
	if (n > 0 && c.kind != TypedKind::Multi && rng.chance(1, 5))
	{
		int64_t		lo,
					hi;

		Field		f;

		if (c.kind == TypedKind::Int)
		{
			int_range(c.shape[0], &lo, &hi);
			for (int64_t v : int_edges)
				if (v >= lo && v <= hi)
				{
					f.i = v;
					c.keys.push_back({f});
				}
		}
		else
		{
			f.s.assign(16, '\0');
			c.keys.push_back({f});
			f.s.assign(16, '\xff');
			c.keys.push_back({f});
		}
	}

	for (const TypedKey &key : c.keys)
		inserted.insert(spec_key_bytes(c, key));

	nabsent = (size_t) rng.range(limits.min_absent, limits.max_absent);
	for (size_t tries = 0; c.absent.size() < nabsent && tries < 4 * nabsent; tries++)
	{
		bool		near = !c.keys.empty() && rng.chance(1, 3);
		const TypedKey *from = near ? &c.keys[rng.below(c.keys.size())] : nullptr;
		TypedKey	key;

		if (c.kind == TypedKind::Int)
		{
			static const FieldType widths[] = {FieldType::Int2, FieldType::Int4, FieldType::Int8};

			key.resize(1);
			/* a neighbour of a key, or any integer: narrower or wider */
			key[0].i = from != nullptr ? (int64_t) ((uint64_t) (*from)[0].i +
													(rng.chance(1, 2) ? 1 : UINT64_MAX)) :
				pick_int(rng, widths[rng.below(3)]);
		}
		else if (c.kind == TypedKind::Uuid && from != nullptr)
		{
			/* one bit away from a key */
			key = *from;
			key[0].s[rng.below(16)] ^= (char) (1u << rng.below(8));
		}
		else if (c.kind == TypedKind::Uuid)
			key = {pick_field(rng, FieldType::Uuid, 0, limits, nullptr)};
		else
			key = from != nullptr ? near_multi_key(rng, c, *from, limits) :
				pick_multi_key(rng, c, null_percent, limits, nullptr);
		if (inserted.count(spec_key_bytes(c, key)) == 0)
			c.absent.push_back(std::move(key));
	}

	/* the narrowest type every key fits, for the SQL casts */
	if (c.kind == TypedKind::Int)
	{
		c.shape[0] = FieldType::Int2;
		for (const TypedKey &key : c.keys)
			if (int_width(key[0].i) > c.shape[0])
				c.shape[0] = int_width(key[0].i);
	}

	c.split = (size_t) rng.below(c.keys.size() + 1);
	return c;
}

const char *
typed_kind_name(TypedKind kind)
{
	switch (kind)
	{
		case TypedKind::Int:
			return "int";
		case TypedKind::Uuid:
			return "uuid";
		case TypedKind::Multi:
			return "multi";
	}
	return "?";
}

/* "integer,text": the shape as the export writes it. */
std::string
shape_text(const TypedCase &c)
{
	std::string out;

	for (FieldType t : c.shape)
		out += (out.empty() ? "" : ",") + std::string(sql_type_name(t));
	return out;
}

/* ---- check ---- */

/*
 * The core's filter of the hashes, built serially and on the final
 * function's threads (1, 2 and 8 of them), against LevelDB's bytes.
 */
void
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
void
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

/* A uuid's canonical text. */
std::string
uuid_text(const std::string &u)
{
	std::string hex = to_hex(u);

	return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) +
		"-" + hex.substr(16, 4) + "-" + hex.substr(20);
}

/* A typed key for a message: its values, as SQL would show them. */
std::string
describe_typed_key(const TypedCase &c, const TypedKey &key)
{
	std::string out;

	for (size_t i = 0; i < c.shape.size(); i++)
	{
		const Field &f = key[i];
		std::string v;

		if (f.null)
			v = "NULL";
		else if (is_int_type(c.shape[i]))
			v = std::to_string(f.i);
		else if (c.shape[i] == FieldType::Uuid)
			v = uuid_text(f.s);
		else if (c.shape[i] == FieldType::Bool)
			v = f.b ? "true" : "false";
		else if (c.shape[i] == FieldType::Float8)
			v = double_text(f.d);
		else
			v = describe_bytes(f.s);
		out += (i > 0 ? ", " : "") + v;
	}
	return c.kind == TypedKind::Multi ? "bloom_key(" + out + ")" : out;
}

/*
 * A multi-column key as the core's functions write it (bloom_int_key_bytes,
 * bloom_put_field, bloom_put_null_field); the other values' bytes are what
 * the server hands them.  Room is left past the end, so that a function
 * writing too much is a wrong length and not a broken heap.
 */
std::string
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
uint32_t
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
void
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
void
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

/* Which cases "check" runs: all of both kinds, or only the ones named. */
struct CheckCases
{
	uint64_t	ncases;			/* byte-string cases */
	uint64_t	ntyped;			/* typed-key cases */
	bool		one_case;
	uint64_t	only_case;
	bool		one_typed;
	uint64_t	only_typed;
};

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

/* ---- export-typed-sql ---- */

/* A value as a component column of keys.tsv or probes.tsv holds it. */
std::string
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
bool
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

void
write_components(std::ofstream &out, const TypedCase &c, const TypedKey &key)
{
	for (size_t i = 0; i < export_max_columns; i++)
		out << '\t' << (i < c.shape.size() ? sql_component(c.shape[i], key[i]) : "\\N");
}

int
run_export_typed(const char *prog, const std::string &dir, uint64_t seed,
				 uint64_t ncases)
{
	Policies	policies;
	std::error_code ec;
	uint64_t	nkeys = 0,
				nprobes = 0,
				nkind[3] = {0, 0, 0};

	printf("seed: %" PRIu64 "\n", seed);
	printf("replay: %s export-typed-sql %s --seed %" PRIu64 " --cases %" PRIu64 "\n",
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
	std::ofstream labels_out(dir + "/labels.tsv", std::ios::binary);

	for (size_t i = 0; i < export_labels.size(); i++)
		labels_out << i << '\t' << to_hex(export_labels[i]) << '\n';

	for (uint64_t i = 0; i < ncases; i++)
	{
		Rng			rng = typed_case_rng(seed, i);
		TypedCase	c = generate_typed_case(rng, export_limits, true);
		const leveldb::FilterPolicy &policy = policies.get(c.bpk);
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

		cases_out << id << '\t' << typed_kind_name(c.kind) << '\t' << shape_text(c)
			<< '\t' << c.bpk << '\t' << c.keys.size() << '\t' << c.split
			<< '\t' << to_hex(filter) << '\n';

		for (size_t j = 0; j < c.keys.size(); j++)
		{
			keys_out << id << '\t' << j;
			write_components(keys_out, c, c.keys[j]);
			keys_out << '\n';
		}

		for (int pass = 0; pass < 2; pass++)
			for (const TypedKey &key : pass == 0 ? c.keys : c.absent)
			{
				probes_out << id << '\t' << ord++;
				write_components(probes_out, c, key);
				probes_out << '\t'
					<< (leveldb_match(policy, spec_key_bytes(c, key), filter) ? 't' : 'f')
					<< '\n';
			}

		nkeys += c.keys.size();
		nprobes += ord;
		nkind[(int) c.kind]++;
	}

	cases_out.close();
	keys_out.close();
	probes_out.close();
	labels_out.close();
	if (!cases_out || !keys_out || !probes_out || !labels_out)
	{
		fprintf(stderr, "leveldb_diff: writing to %s failed\n", dir.c_str());
		return 2;
	}
	printf("wrote %" PRIu64 " typed cases (%" PRIu64 " integer, %" PRIu64
		   " uuid, %" PRIu64 " multi-column), %" PRIu64 " keys, %" PRIu64
		   " probes to %s\n", ncases, nkind[0], nkind[1], nkind[2], nkeys,
		   nprobes, dir.c_str());
	return 0;
}

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
