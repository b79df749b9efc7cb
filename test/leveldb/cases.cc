/*
 * cases.cc
 *		Random cases of byte-string keys: the PRNG's streams, keys of every
 *		style, and filters no writer made.
 */
#include "leveldb_diff.h"

#include <unordered_set>

namespace leveldb_diff
{

Rng
case_rng(uint64_t seed, uint64_t case_no)
{
	return Rng(bloom_mix64(seed ^ bloom_mix64(case_no + 1)));
}

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

static std::string
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

static KeyStyle
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

}								/* namespace leveldb_diff */
