/*
 * explain.c
 *		bloomfilter explain: LevelDB's double hashing, one probe at a time.
 *
 * The probes are worked out here from the hash, as util/bloom.cc does, and
 * then checked against the library's own bloomfilter_probe_positions and
 * bloomfilter_may_contain: what is shown is what the library does, and a
 * disagreement is reported rather than papered over.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

int
cmd_explain(int argc, char **argv)
{
	tool_args	args;
	tool_filter filter;
	tool_key	key = {0};
	const char *text;
	char		why[TOOL_QUOTE_BUF + 100];
	uint8_t		scratch[BLOOMFILTER_UUID_KEY_BYTES];
	const uint8_t *bytes;
	size_t		nbytes;
	uint32_t	hash,
				delta,
				h;
	uint64_t	bits;
	unsigned	k;
	uint64_t	positions[30];
	unsigned	npositions;
	bool		all_set = true;
	unsigned	first_clear = 0;

	tool_parse_args(argc, argv, OPT_KEY_TYPE | OPT_RAW, &args);
	if (args.npositional != 2)
		tool_usage_error("explain", "explain takes a FILTER and one KEY");

	tool_load_filter(args.positional[0], args.raw, &filter);
	key.type = args.key_type;
	text = args.positional[1];
	if (tool_key_parse(&key, text, strlen(text), why, sizeof(why)) != NULL)
		tool_die("key: %s", why);

	bytes = tool_key_bytes(&key, scratch, &nbytes);
	hash = tool_key_hash(&key);
	if (hash != bloomfilter_hash(bytes, nbytes))
		tool_die("internal error: the key's typed hash %" PRIu32
				 " is not the hash of its bytes %" PRIu32,
				 hash, bloomfilter_hash(bytes, nbytes));

	/* util/bloom.cc: delta = (h >> 17) | (h << 15), a rotation by 17 */
	delta = (hash >> 17) | (hash << 15);
	bits = (uint64_t) (filter.len - 1) * 8;
	k = filter.bytes[filter.len - 1];

	npositions = bloomfilter_probe_positions(filter.bytes, filter.len, hash,
											 positions);
	if (npositions != k)
		tool_die("internal error: the library makes %u probes, the k byte says %u",
				 npositions, k);

	printf("key\t%s\n", text);
	printf("key_bytes\t");
	for (size_t i = 0; i < nbytes; i++)
		printf("%02x", bytes[i]);
	printf("\n");
	printf("key_length\t%zu\n", nbytes);
	printf("hash\t%" PRIu32 "\t0x%08" PRIx32 "\n", hash, hash);
	printf("delta\t%" PRIu32 "\t0x%08" PRIx32 "\n", delta, delta);
	printf("k\t%u\n", k);
	printf("bits\t%" PRIu64 "\n", bits);
	printf("#probe\ti\th\th_hex\tposition\tbyte\tbit\tvalue\n");

	h = hash;
	for (unsigned i = 0; i < k; i++)
	{
		uint64_t	pos = (uint64_t) h % bits;
		bool		set = (filter.bytes[pos / 8] >> (pos % 8)) & 1;

		if (pos != positions[i])
			tool_die("internal error: probe %u: h %% bits is %" PRIu64
					 ", the library reads bit %" PRIu64,
					 i + 1, pos, positions[i]);
		printf("probe\t%u\t%" PRIu32 "\t0x%08" PRIx32 "\t%" PRIu64 "\t%" PRIu64
			   "\t%u\t%s\n",
			   i + 1, h, h, pos, pos / 8, (unsigned) (pos % 8),
			   set ? "set" : "clear");
		if (!set && all_set)
		{
			all_set = false;
			first_clear = i + 1;
		}
		h += delta;				/* modulo 2^32, as LevelDB's uint32_t wraps */
	}

	if (all_set != tool_key_may_contain(&key, filter.bytes, filter.len))
		tool_die("internal error: the probes say %s, bloomfilter_may_contain says otherwise",
				 all_set ? "may contain" : "definitely absent");
	if (all_set)
		printf("answer\tmay contain\tall %u probed bits are set\n", k);
	else
		printf("answer\tdefinitely absent\tprobe %u reads a clear bit\n",
			   first_clear);
	tool_finish_stdout();

	tool_key_free(&key);
	tool_filter_free(&filter);
	free(args.positional);
	return 0;
}
