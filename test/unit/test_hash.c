/*
 * test_hash.c
 *		Unit tests of the core: the hash, and the status messages.
 */
#include "unit.h"

void
test_hash(void)
{
	uint8_t		pattern[80];
	uint8_t		buf[80 + 16];
	size_t		len,
				off;

	group_begin("hash");

	/*
	 * Hash() restated a byte at a time gives every length's answer; the
	 * word loads must not depend on where the key sits in memory.
	 */
	test_begin("the hash equals Hash() restated a byte at a time, every length to 80, at every alignment");
	rng_bytes(pattern, sizeof(pattern));
	for (len = 0; len <= sizeof(pattern); len++)
	{
		uint32_t	want = ref_hash(pattern, len, BLOOM_HASH_SEED);

		for (off = 0; off < 8; off++)
		{
			memset(buf, 0x5a, sizeof(buf));
			memcpy(buf + off, pattern, len);
			check(bloom_key_hash(buf + off, len) == want,
				  "len %zu at offset %zu", len, off);
		}
	}
	test_end();

	test_begin("hash reads only len bytes");
	for (len = 0; len < 12; len++)
	{
		uint32_t	want;

		memset(buf, 0, sizeof(buf));
		memcpy(buf, pattern, len);
		want = bloom_key_hash(buf, len);
		memset(buf + len, 0xff, sizeof(buf) - len);
		check(bloom_key_hash(buf, len) == want, "len %zu", len);
	}
	test_end();

	test_begin("bloom_key_hash is Hash() with LevelDB's seed");
	for (len = 0; len <= sizeof(pattern); len++)
		check(bloom_key_hash(pattern, len) ==
			  bloom_leveldb_hash(pattern, len, UINT32_C(0xbc9f1d34)),
			  "len %zu", len);
	test_end();

	group_end();
}

void
test_messages(void)
{
	const char *msgs[BLOOM_ERR_GAPS_CODE + 1];
	int			s,
				t;

	group_begin("status messages");
	test_begin("every status has its own sentence");
	for (s = BLOOM_OK; s <= BLOOM_ERR_GAPS_CODE; s++)
	{
		const char *m = bloom_status_message((bloom_status) s);
		size_t		n = m ? strlen(m) : 0;

		msgs[s] = m;
		if (!check(n > 0 && strcmp(m, "unknown error") != 0,
				   "%s has no message", status_name((bloom_status) s)))
			continue;
		for (t = 0; t < s; t++)
			check(msgs[t] == NULL || strcmp(msgs[t], m) != 0,
				  "%s and %s share a message", status_name((bloom_status) t),
				  status_name((bloom_status) s));
	}
	test_end();
	group_end();
}
