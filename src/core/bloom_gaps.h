/*
 * bloom_gaps.h
 *		A compact code for a sorted set of distinct 32-bit hashes (made by
 *		bloom_sort.h): the gaps between the hashes, Rice-coded.  No
 *		PostgreSQL dependency.
 *
 * This is the building block of a compact aggregate state: the
 * filter's bits depend only on which hashes occur, so a state may keep each
 * distinct hash once, sorted, and n distinct hashes spread over 2^32 values
 * leave gaps of about 2^32 / n.  Rice coding with parameter r writes a gap
 * g as g >> r in unary (that many 0 bits, then a 1) and its low r bits;
 * with r near log2(2^32 / n * ln 2) that is close to the entropy of the
 * gaps: about 10.6 bits a hash for 10^7 random hashes (1.33 bytes), against
 * 32 for the hashes themselves.
 *
 * Layout: bits are written from the least significant bit of each byte
 * up, bytes in order (so the code is the same on every platform).  Hash i
 * is coded as the gap g_i = h_i - h_(i-1) - 1, with h_(-1) = -1, so that
 * strictly increasing hashes give gaps >= 0.  After the last hash, the
 * remaining bits of the last byte are 0.
 */
#ifndef BLOOM_GAPS_H
#define BLOOM_GAPS_H

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/* The Rice parameter for n distinct hashes: 0..31. */
extern unsigned bloom_gaps_rice_param(uint64_t n);

/*
 * The most bytes bloom_gaps_encode writes for n hashes with parameter r:
 * n * (r + 1) bits for the low bits and the stop bits, plus at most
 * 2^32 >> r unary 0 bits in all (the gaps' high parts sum to at most
 * the largest hash >> r).  0 when n is too large to code (over 2^32).
 */
extern uint64_t bloom_gaps_max_bytes(uint64_t n, unsigned r);

/*
 * Code n strictly increasing hashes with parameter r (<= 31) into out,
 * which holds bloom_gaps_max_bytes(n, r) bytes; returns the bytes written.
 */
extern size_t bloom_gaps_encode(const uint32_t *hashes, uint64_t n, unsigned r,
								uint8_t *out);

/*
 * The same code written in pieces, so that threads can each write a part:
 * a writer starts after lead_bits (0..7) bits of its first byte that belong
 * to the part before it, and left as 0 (to be OR-ed with that part's last
 * byte), with prev_plus_one the hash before its first plus one (0 when it
 * is the first of all).  Put hashes in increasing order, in any number of
 * calls; finish stores the last partial byte, its unused high bits 0, and
 * returns the bytes written from out.  The writer stores 8 bytes at a time,
 * up to 7 past the bytes it has completed: out must hold
 * bloom_gaps_max_bytes for the part's hashes.
 */
typedef struct bloom_gaps_writer
{
	uint8_t    *out;
	size_t		pos;			/* bytes completed */
	uint64_t	acc;			/* pending bits, from bit 0 up */
	unsigned	nacc;			/* how many, < 8 */
	unsigned	r;
	uint64_t	prev_plus_one;
} bloom_gaps_writer;

extern void bloom_gaps_writer_init(bloom_gaps_writer *w, uint8_t *out,
								   unsigned r, uint64_t prev_plus_one,
								   unsigned lead_bits);
extern void bloom_gaps_writer_put(bloom_gaps_writer *w, const uint32_t *hashes,
								  uint64_t n);
extern size_t bloom_gaps_writer_finish(bloom_gaps_writer *w);

/*
 * Go on writing at out instead: the byte being completed (the old out at
 * the bytes written so far, of which it keeps the pending bits) is out[0],
 * and the count of bytes written starts again from 0.  A part's last
 * hashes go to a buffer of its own this way, so that the writer's stores
 * past its bytes stay off what another writer writes.
 */
extern void bloom_gaps_writer_move(bloom_gaps_writer *w, uint8_t *out);

/*
 * The bits the code of n increasing hashes takes after *prev_plus_one (the
 * hash before them plus one), which is then the last one's plus one.
 */
extern uint64_t bloom_gaps_code_bits(const uint32_t *hashes, uint64_t n,
									 unsigned r, uint64_t *prev_plus_one);

/*
 * Decode exactly n hashes coded with parameter r from the len bytes at
 * code into out, checking everything: a unary run that does not end, a
 * hash past 2^32 - 1, bits left over, nonzero padding or bytes beyond the
 * last one the code needs are all BLOOM_ERR_GAPS_CODE, and nothing is
 * read past code + len.  Every accepted code is the one
 * bloom_gaps_encode writes for its hashes.
 */
extern bloom_status bloom_gaps_decode(const uint8_t *code, size_t len,
									  uint64_t n, unsigned r, uint32_t *out);

/*
 * Decode only the first m hashes of a code (of any number of hashes >= m),
 * with every check but the ones on how the code ends.
 */
extern bloom_status bloom_gaps_decode_prefix(const uint8_t *code, size_t len,
											 uint64_t m, unsigned r,
											 uint32_t *out);

/*
 * The same decoding in parts, so that a caller can stop between them: a
 * code of a billion hashes takes seconds.  Take the hashes in any number
 * of calls, each with every check of bloom_gaps_decode but the ones on how
 * the code ends, which end makes once all n are taken.  After an error the
 * reader is of no further use.
 */
typedef struct bloom_gaps_reader
{
	const uint8_t *code;
	size_t		len;
	size_t		pos;			/* next byte to load */
	uint64_t	buf;			/* bits loaded and not used, from bit 0 up */
	unsigned	avail;			/* how many */
	unsigned	r;
	uint64_t	next;			/* the smallest value the next hash may take */
} bloom_gaps_reader;

extern void bloom_gaps_reader_init(bloom_gaps_reader *reader,
								   const uint8_t *code, size_t len, unsigned r);
extern bloom_status bloom_gaps_reader_take(bloom_gaps_reader *reader,
										   uint64_t n, uint32_t *out);
extern bloom_status bloom_gaps_reader_end(const bloom_gaps_reader *reader);

/*
 * bloom_gaps_decode's answer for a code, with the hashes let go as they
 * come: checking a code from outside needs no room for its hashes.
 */
extern bloom_status bloom_gaps_check(const uint8_t *code, size_t len,
									 uint64_t n, unsigned r);

BLOOM_END_PRIVATE

#endif							/* BLOOM_GAPS_H */
