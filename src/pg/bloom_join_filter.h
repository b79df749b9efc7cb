/*
 * bloom_join_filter.h
 *		bloomfilter.join_filter: filters the planner adds to foreign tables'
 *		scans from the other side of their joins (bloom_join_filter.c).
 *
 * Include after postgres.h.
 */
#ifndef BLOOM_JOIN_FILTER_H
#define BLOOM_JOIN_FILTER_H

#include "bloom_compat.h"
#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/* The setting bloomfilter.join_filter. */
extern bool bloom_join_filter;

/* Puts the planner hook in place, once, from _PG_init. */
extern void bloom_join_filter_install(void);

BLOOM_END_PRIVATE

#endif							/* BLOOM_JOIN_FILTER_H */
