/*
 * fuzz_common.h
 *		What the libFuzzer targets share: the plain reference
 *		implementations of LevelDB's bloom filter that the unit tests use
 *		too (test/lib/bloom_reference.h), a check macro that turns a wrong
 *		answer into a crash, and buffers of exactly their size.
 *
 * The references follow LevelDB 1.23's util/hash.cc and util/bloom.cc
 * statement by statement, including their reading of the k byte as a
 * (signed, on x86) char.  They share nothing with src/ but its types, so a
 * fuzz target that compares the core with them checks two independent
 * readings of the format.
 */
#ifndef BLOOM_FUZZ_COMMON_H
#define BLOOM_FUZZ_COMMON_H

#include "bloom_core.h"
#include "../lib/bloom_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A violated property is a finding: report it and abort, which libFuzzer
 * records as a crash and saves the input for.
 */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz check failed at %s:%d: %s\n  ", \
					__FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

/*
 * A copy of len bytes in a block of exactly that size, so that AddressSanitizer
 * catches a read even one byte past the end (or before the start).
 */
static inline uint8_t *
fuzz_alloc(size_t len)
{
	uint8_t    *p = malloc(len ? len : 1);

	if (p == NULL)
		abort();
	return p;
}

static inline uint8_t *
fuzz_dup(const uint8_t *data, size_t len)
{
	uint8_t    *p = fuzz_alloc(len);

	if (len)
		memcpy(p, data, len);
	return p;
}

static inline uint64_t
fuzz_le(const uint8_t *p, int nbytes)
{
	uint64_t	v = 0;

	for (int i = 0; i < nbytes; i++)
		v |= (uint64_t) p[i] << (8 * i);
	return v;
}

/*
 * The entry point of a target made of several checks, each of which takes
 * every input in turn: FUZZ_TARGET_OF(check_a, check_b), where a check is
 * a void function of (data, size).
 */
typedef void (*fuzz_check_fn) (const uint8_t *data, size_t size);

#define FUZZ_TARGET_OF(...) \
	int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
	int \
	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) \
	{ \
		static const fuzz_check_fn checks[] = {__VA_ARGS__}; \
		for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) \
			checks[i](data, size); \
		return 0; \
	}

#endif							/* BLOOM_FUZZ_COMMON_H */
