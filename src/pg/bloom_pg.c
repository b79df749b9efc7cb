/*
 * bloom_pg.c
 *		Core status codes to PostgreSQL errors, the shared validator, and
 *		the core's go_on for work done on the backend's own thread.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "utils/memutils.h"

#include "bloom_pg.h"

bool
bloom_interrupts_checked(void *arg)
{
	(void) arg;
	CHECK_FOR_INTERRUPTS();
	return true;
}

void
bloom_report_invalid(bloom_status status, int sqlstate, const char *what)
{
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("invalid %s", what),
			 errdetail("%s", bloom_status_message(status))));
	pg_unreachable();
}

void
bloomfilter_check(const uint8 *bytes, Size len, int sqlstate)
{
	bloom_status status = bloom_validate(bytes, len);

	if (status != BLOOM_OK)
		bloom_report_invalid(status, sqlstate, "bloomfilter value");
}

bytea *
bloom_filter_datum_checked(Datum d)
{
	bytea	   *filter = DatumGetBloomFilterPP(d);

	bloomfilter_check(BloomFilterBytes(filter), BloomFilterLength(filter),
					  ERRCODE_DATA_CORRUPTED);
	return filter;
}

bool
bloom_agg_may_write_state(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref;

	if (!AggCheckCallContext(fcinfo, NULL))
		return false;
	/*
	 * AggGetAggref names the aggregate in transition and final calls alike
	 * (and is NULL in a window, whose aggregates are never ordered-set and
	 * whose final functions get no argument but the state).  Only an
	 * ordered-set aggregate's final function gets arguments besides the
	 * state, and there it must not change the state: this function is then
	 * either its final function or, just as rarely, its transition, which
	 * only pays for a copy.
	 */
	aggref = AggGetAggref(fcinfo);
	return aggref == NULL || aggref->aggkind == AGGKIND_NORMAL;
}

bytea *
bloomfilter_from_bytes(const uint8 *bytes, Size len, int sqlstate)
{
	bytea	   *result;

	bloomfilter_check(bytes, len, sqlstate);
	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter value too large"),
				 errdetail("The filter has %zu bytes; a value is limited to %zu bytes.",
						   len, (Size) (MaxAllocSize - VARHDRSZ))));

	result = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	return result;
}

void
bloom_check_bits_per_key(int64 bits_per_key)
{
	if (bits_per_key < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bits_per_key must not be negative"),
				 errdetail("bits_per_key was " INT64_FORMAT ".", bits_per_key),
				 errhint("bloom_bits_per_key(target_fpr) gives the bits_per_key for a false-positive rate; 11 give about 1%%.")));
}

void
bloom_check_key_count(const char *argname, int64 keys)
{
	if (keys < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative", argname),
				 errdetail("%s was " INT64_FORMAT ".", argname, keys),
				 errhint("Give the number of keys the filter is sized for; 0 gives the smallest filter, 64 bits.")));
}

void
bloom_value_geometry(uint64 nkeys, int64 bits_per_key, bloom_geometry *geometry)
{
	if (bloom_geometry_for(nkeys, bits_per_key, geometry) != BLOOM_OK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom filter too large"),
				 errdetail("The filter of " UINT64_FORMAT " keys at " INT64_FORMAT " bits per key needs more than 2^64 bits; a value is limited to %zu bytes.",
						   nkeys, bits_per_key, (Size) (MaxAllocSize - VARHDRSZ)),
				 errhint("Use fewer bits per key, or split the keys into several filters.")));
	if (geometry->filter_bytes > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom filter too large"),
				 errdetail("The filter of " UINT64_FORMAT " keys at " INT64_FORMAT " bits per key needs " UINT64_FORMAT " bytes; a value is limited to %zu bytes.",
						   nkeys, bits_per_key, geometry->filter_bytes,
						   (Size) (MaxAllocSize - VARHDRSZ)),
				 errhint("Use fewer bits per key, or split the keys into several filters.")));
}

bytea *
bloom_new_unzeroed_filter(const bloom_geometry *geometry)
{
	bytea	   *result;
	uint8	   *filter;

	/*
	 * Huge pages for a big filter before it is first touched: the bits are
	 * set at random, and with 4 kB pages nearly every write would also miss
	 * the TLB.
	 */
	result = palloc(VARHDRSZ + geometry->filter_bytes);
	SET_VARSIZE(result, VARHDRSZ + geometry->filter_bytes);
	filter = (uint8 *) VARDATA(result);
	bloom_advise_huge_pages(filter, geometry->filter_bytes);
	filter[geometry->filter_bytes - 1] = (uint8) geometry->k;
	return result;
}

bytea *
bloom_new_empty_filter(const bloom_geometry *geometry)
{
	bytea	   *result = bloom_new_unzeroed_filter(geometry);

	memset(VARDATA(result), 0, geometry->filter_bytes - 1);
	return result;
}

/*
 * Large areas start on a huge page boundary (the allocation is a huge page
 * larger, whose unused pages are never touched) and are asked for in huge
 * pages before anything is written to them: only the aligned part of an
 * area gets huge pages, half of a 4 MB chunk otherwise, and where a first
 * touch of a 4 kB page is expensive (some virtual machines: make
 * fault-cost measures it) the faults of 10M keys' hashes are a large part
 * of an aggregate's time.  The allocation's own address is kept just
 * before the header.
 */
void *
bloom_alloc_hashes(MemoryContext cxt, Size header, uint64 nhashes)
{
	Size		bytes = nhashes * sizeof(uint32);
	Size		lead = MAXALIGN(sizeof(void *)) + MAXALIGN(header);
	char	   *base = MemoryContextAllocExtended(cxt, lead + bloom_huge_page_slack(bytes) + bytes,
												  MCXT_ALLOC_HUGE);
	char	   *hashes = bloom_huge_page_start(base + lead, bytes);
	char	   *start = hashes - MAXALIGN(header);

	((void **) start)[-1] = base;
	return start;
}

void
bloom_free_hashes(void *area)
{
	pfree(((void **) area)[-1]);
}
