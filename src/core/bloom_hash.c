/*
 * bloom_hash.c
 *		LevelDB's Hash() from util/hash.cc, as released since 1.18.
 *
 * Earlier LevelDB releases (and RocksDB) sign-extended the 1-3 tail bytes,
 * which changes the hash of any key whose tail has a byte >= 0x80; the
 * filters we must match are written by current LevelDB, so the tail is
 * read as unsigned bytes.
 */
#include "bloom_core.h"

#include <string.h>

/*
 * LevelDB's switch over the tail bytes falls through on purpose.
 * PostgreSQL 19 builds with -Wimplicit-fallthrough=5, where only the
 * attribute, not a comment, says so.
 */
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define BLOOM_FALLTHROUGH __attribute__((fallthrough))
#endif
#endif
#ifndef BLOOM_FALLTHROUGH
#define BLOOM_FALLTHROUGH do { } while (0)
#endif

/* The shift after the tail bytes (a whole word shifts by 16). */
#define LEVELDB_HASH_TAIL_SHIFT	24

/*
 * LevelDB's DecodeFixed32: the word is little-endian on every platform.
 * memcpy keeps the load legal at any alignment; compilers turn it into one
 * load on little-endian machines.
 */
static inline uint32_t
load_le32(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t	w;

	memcpy(&w, p, sizeof(w));
	return w;
#else
	return (uint32_t) p[0] |
		((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) |
		((uint32_t) p[3] << 24);
#endif
}

uint32_t
bloom_leveldb_hash(const void *data, size_t len, uint32_t seed)
{
	const unsigned char *p = data;
	size_t		nwords = len / 4;

	uint32_t	h = bloom_hash_start(seed, len);

	/*
	 * Whole 4-byte words, each one load.  Every word depends on the hash so
	 * far, so the chain cannot be shortened; two words a round only halve
	 * the loop's own instructions.
	 */
	for (; nwords >= 2; nwords -= 2, p += 8)
		h = bloom_hash_word(bloom_hash_word(h, load_le32(p)), load_le32(p + 4));
	if (nwords > 0)
	{
		h = bloom_hash_word(h, load_le32(p));
		p += 4;
	}

	switch (len & 3)
	{
		case 3:
			h += (uint32_t) p[2] << 16;
			BLOOM_FALLTHROUGH;
		case 2:
			h += (uint32_t) p[1] << 8;
			BLOOM_FALLTHROUGH;
		case 1:
			h += (uint32_t) p[0];
			h *= BLOOM_HASH_M;
			h ^= (h >> LEVELDB_HASH_TAIL_SHIFT);
			break;
		default:
			break;
	}
	return h;
}
