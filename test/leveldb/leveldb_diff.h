/*
 * leveldb_diff.h
 *		What the parts of the differential test share: the PRNG, the cases
 *		of byte-string and typed keys, the two implementations, and the
 *		commands (leveldb_diff.cc says what the test is).
 */
#ifndef LEVELDB_DIFF_H
#define LEVELDB_DIFF_H

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

extern "C"
{
#include "bloom_core.h"
#include "bloom_build.h"
#include "bloom_keys.h"
#include "../unit/vectors.h"
}
#include "bloom_mix64.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace leveldb_diff
{

/* ---- a PRNG whose stream depends on nothing but its seed: SplitMix64 ---- */

class Rng
{
public:
	explicit Rng(uint64_t seed) : state_(seed) {}

	uint64_t next() { return bloom_mix64_next(&state_); }

	/* 0..n-1; the modulo bias is irrelevant for test data */
	uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }

	/* lo..hi inclusive */
	uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }

	/* true with probability num/den */
	bool chance(uint64_t num, uint64_t den) { return below(den) < num; }

private:
	uint64_t	state_;
};

/* The generator of case case_no of a run: replays it on its own. */
Rng			case_rng(uint64_t seed, uint64_t case_no);

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

int			pick_bpk(Rng &rng);
uint64_t	pick_n(Rng &rng, const Limits &limits);
size_t		pick_key_length(Rng &rng, const Limits &limits);
uint8_t		random_byte(Rng &rng);
std::string binary_key(Rng &rng, size_t len);
std::string ascii_key(Rng &rng, size_t len);
void		append_utf8(std::string &s, uint32_t cp);
std::string utf8_key(Rng &rng, size_t target);
std::string random_key(Rng &rng, KeyStyle style, const Limits &limits);
Case		generate_case(Rng &rng, const Limits &limits);
std::string hand_made_filter(Rng &rng, const std::string &real);

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

std::string leveldb_create(const leveldb::FilterPolicy &policy,
						   const std::vector<std::string> &keys);
bool		leveldb_match(const leveldb::FilterPolicy &policy, const std::string &key,
						  const std::string &filter);
std::vector<uint32_t> core_hashes(const std::vector<std::string> &keys);
bloom_status core_create_from_hashes(int bpk, const std::vector<uint32_t> &hashes,
									 std::string *out);
bloom_status core_create_threaded(int bpk, const std::vector<uint32_t> &hashes,
								  unsigned nthreads, size_t cut, std::string *out);
bool		core_match(const std::string &key, const std::string &filter);

/* ---- helpers ---- */

std::string to_hex(const std::string &bytes);
std::string describe_bytes(const std::string &bytes);
std::string describe_filter(const std::string &filter);
bool		is_pg_utf8_text(const std::string &s);
bool		parse_u64(const char *s, uint64_t *out);
uint64_t	fresh_seed();

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
const char *sql_type_name(FieldType t);
bool		is_int_type(FieldType t);

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
extern const std::vector<std::vector<FieldType>> export_shapes;

const size_t export_max_columns = 4;

/* The labels of the export's enum, in their order (labels.tsv). */
extern const std::vector<std::string> export_labels;

/* A typed case number case_no of a run, from a stream of its own. */
Rng			typed_case_rng(uint64_t seed, uint64_t case_no);
TypedCase	generate_typed_case(Rng &rng, const Limits &limits, bool export_shape);
const char *typed_kind_name(TypedKind kind);
/* "integer,text": the shape as the export writes it. */
std::string shape_text(const TypedCase &c);
/* The bytes bloom_key writes for a value, and those a typed key is hashed as. */
std::string spec_value_bytes(FieldType t, const Field &f);
std::string spec_key_bytes(const TypedCase &c, const TypedKey &key);
/* Text that float8in reads back as exactly d. */
std::string double_text(double d);
/* A uuid's canonical text. */
std::string uuid_text(const std::string &u);
/* A typed key for a message: its values, as SQL would show them. */
std::string describe_typed_key(const TypedCase &c, const TypedKey &key);

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

/* ---- the commands ---- */

int			run_check(const char *prog, uint64_t seed, const CheckCases &cc);
int			run_filter(const char *prog, const char *bpk_text);
int			run_filter_cycle(const char *prog, const char *bpk_text,
							 const char *n_text, const char *d_text);
int			run_export(const char *prog, const std::string &dir, uint64_t seed,
					   uint64_t ncases);
int			run_export_typed(const char *prog, const std::string &dir,
							 uint64_t seed, uint64_t ncases);

}								/* namespace leveldb_diff */

#endif							/* LEVELDB_DIFF_H */
