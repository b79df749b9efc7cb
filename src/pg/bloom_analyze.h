/*
 * bloom_analyze.h
 *		What ANALYZE keeps of a bloomfilter column, for the planner.
 */
#ifndef BLOOM_ANALYZE_H
#define BLOOM_ANALYZE_H

/*
 * The pg_statistic slot kind of a bloomfilter column's summary, from the
 * range PostgreSQL leaves to private use (10000 to 30000).  Its numbers:
 */
#define BLOOM_STATISTIC_KIND			12117
#define BLOOM_STAT_MEAN_KEYS			0	/* the filters' mean estimated key count */
#define BLOOM_STAT_MEAN_FPR				1	/* their mean false-positive rate */
#define BLOOM_STAT_FILTERS				2	/* how many sampled filters gave them */
#define BLOOM_STAT_NUMBERS				3

#endif							/* BLOOM_ANALYZE_H */
