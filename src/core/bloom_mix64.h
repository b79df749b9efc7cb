/*
 * bloom_mix64.h
 *		SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
 *		number generators", 2014): a stream of 64-bit numbers that depends on
 *		nothing but its seed, in integer arithmetic only, so that every
 *		platform sees the same stream.
 *
 * The core draws its built-in scheme's hashes from it; the tests and
 * benchmarks draw their keys and cases from it, each from seeds of its
 * own, so that a failure or a figure reproduces.  Header-only, for C and
 * C++ alike.
 */
#ifndef BLOOM_MIX64_H
#define BLOOM_MIX64_H

#include <stdint.h>

/* The state's step: 2^64 over the golden ratio, odd, so every state is visited once. */
#define BLOOM_MIX64_GAMMA	UINT64_C(0x9e3779b97f4a7c15)

/* The output function: every bit of z reaches every bit of the result. */
static inline uint64_t
bloom_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The next number of the stream at *state. */
static inline uint64_t
bloom_mix64_next(uint64_t *state)
{
	*state += BLOOM_MIX64_GAMMA;
	return bloom_mix64(*state);
}

#endif							/* BLOOM_MIX64_H */
