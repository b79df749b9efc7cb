/*
 * typed_cases.cc
 *		Typed keys (integers, uuids, multi-column keys): their cases, and the
 *		bytes the test itself encodes them as.
 */
#include "leveldb_diff.h"

#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_set>

namespace leveldb_diff
{

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
static std::string
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
			/*
			 * the IEEE 754 bits, most significant byte first (float8send),
			 * with -0 written as 0 and every NaN as the one quiet NaN:
			 * "=" calls them equal (doc/format.md's key table)
			 */
			if (std::isnan(f.d))
				bits = UINT64_C(0x7ff8000000000000);
			else if (f.d == 0)
				bits = 0;
			else
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

static void
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
static int64_t
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
static FieldType
int_width(int64_t v)
{
	if (v >= INT16_MIN && v <= INT16_MAX)
		return FieldType::Int2;
	if (v >= INT32_MIN && v <= INT32_MAX)
		return FieldType::Int4;
	return FieldType::Int8;
}

static std::string
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

static double
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
static std::string
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
static std::string
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

static Field
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
static TypedKey
pick_multi_key(Rng &rng, const TypedCase &c, uint64_t null_percent,
			   const Limits &limits, const TypedKey *prev)
{
	TypedKey	key;

	for (size_t i = 0; i < c.shape.size(); i++)
		key.push_back(pick_field(rng, c.shape[i], null_percent, limits,
								 prev != nullptr ? &(*prev)[i] : nullptr));
	return key;
}

static bool
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
static TypedKey
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
static std::vector<FieldType>
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
	return case_rng(bloom_mix64(seed ^ UINT64_C(0x7479706564)), case_no);
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
	/* in TypedKind's order, which the export's counts by kind follow too */
	static const char *const names[] = {"int", "uuid", "multi"};

	return names[(int) kind];
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

}								/* namespace leveldb_diff */
