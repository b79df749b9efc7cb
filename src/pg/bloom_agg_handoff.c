/*
 * bloom_agg_handoff.c
 *		Partial states handed to a parallel leader's Finalize Aggregate as
 *		references (bloom_agg_handoff.h): a worker's hashes in the query's
 *		shared memory, the leader's own state where it lies.
 *
 * A worker's hashes lie in blocks of the query's DSA: those its plain
 * state made there as it went (bloom_handoff_alloc_block), and one
 * allocation the rest is copied into at the end, after a header that
 * repeats the reference's token and count and lists every block.  The
 * worker sends the reference through the tuple queue as its state.  The
 * leader's combine function finds the DSA of the Gather (or Gather Merge)
 * that ran the worker by the plan node id the reference carries, below its
 * own Aggregate, maps the header, checks it and maps the blocks.  Nothing
 * frees a handed-off block: the area goes when the Gather shuts down at the
 * query's end.  A query that reruns the parallel aggregate (a rescan of the
 * Gather keeps its area) holds one copy a run until then, which the room
 * check below counts as it counts any other use of shared memory.
 */
#include "postgres.h"

#include "bloom_compat.h"

#include <sys/statvfs.h>

BLOOM_SERVER_HEADERS_BEGIN
#include "access/parallel.h"
#include "access/xact.h"
#include "executor/execParallel.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "storage/dsm_impl.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
BLOOM_SERVER_HEADERS_END
#include "miscadmin.h"

#include "bloom_agg_handoff.h"
#include "bloom_trace_pg.h"

bool		bloom_parallel_handoff = true;

/* A reference's first byte: no version of bloom_state.h's format. */
#define SHARED_MARK			0x80	/* a worker's hashes in shared memory */
#define LOCAL_MARK			0x81	/* the leader's own state */

/* The flat form of a reference (native byte order: it never leaves the host). */
typedef struct HandoffReference
{
	uint8		mark;			/* SHARED_MARK or LOCAL_MARK */
	uint8		reserved[3];	/* 0 */
	int32		bits_per_key;
	uint64		nkeys;
	uint64		nhashes;
	uint64		token;			/* also in the allocation's header */
	uint64		pointer;		/* dsa_pointer of the allocation, or the state */
	int32		plan_node_id;	/* a local reference's: the leader's pid */
	int32		worker;			/* ParallelWorkerNumber (-1: the leader) */
} HandoffReference;

StaticAssertDecl(BLOOM_HANDOFF_REF_SIZE == VARHDRSZ + sizeof(HandoffReference),
				 "BLOOM_HANDOFF_REF_SIZE must match the reference's layout");

/*
 * The allocation the reference points to: this header, the blocks (the
 * last, if any hashes were copied, the copy that follows them), then the
 * copied hashes.
 */
typedef struct HandoffHeader
{
	uint64		token;
	uint64		nhashes;		/* in all blocks */
	uint64		ncopied;		/* of them, in the copy */
	uint64		nblocks;
	BloomHandoffBlock blocks[FLEXIBLE_ARRAY_MEMBER];
} HandoffHeader;

void
bloom_handoff_target(FunctionCallInfo fcinfo, BloomHandoffTarget *target)
{
	AggState   *aggstate;
	Aggref	   *aggref;
	EState	   *estate;

	target->area = NULL;
	target->plan_node_id = -1;
	target->local = false;
	target->plain = false;
	if (!bloom_parallel_handoff || !IsInParallelMode() ||
		fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return;
	aggstate = (AggState *) fcinfo->context;
	/*
	 * Only a partial aggregate's state goes to a Finalize Aggregate (which
	 * always runs in the leader, above the Gather); and only our own
	 * aggregate's: a wrapper that calls our transition function inside its
	 * own state (Citus's worker_partial_agg) has another transition type,
	 * and its state goes wherever the wrapper sends it.
	 */
	if (aggstate->aggsplit != AGGSPLIT_INITIAL_SERIAL)
		return;
	aggref = AggGetAggref(fcinfo);
	if (aggref == NULL ||
		aggref->aggtranstype != get_fn_expr_rettype(fcinfo->flinfo))
		return;
	if (!IsParallelWorker())
	{
		target->local = aggstate->aggstrategy == AGG_PLAIN;
		return;
	}
	estate = aggstate->ss.ps.state;
	if (estate->es_query_dsa == NULL || estate->es_plannedstmt == NULL ||
		estate->es_plannedstmt->planTree == NULL)
		return;
	target->area = estate->es_query_dsa;
	target->plan_node_id = estate->es_plannedstmt->planTree->plan_node_id;
	/*
	 * Only a plain aggregate's one state makes blocks in shared memory as
	 * it goes: a grouped one's many states would hold shared memory that
	 * a hash aggregate's accounting of its memory does not see.
	 */
	target->plain = aggstate->aggstrategy == AGG_PLAIN;
}

/*
 * Whether shared memory has room for bytes more of this worker's, which
 * holds held bytes there already, and as much again for each other process
 * of the query: true only where dynamic shared memory is POSIX shared
 * memory in /dev/shm (Linux's default), with at least twice that free,
 * counting what the worker holds as free.  A full /dev/shm (a container's,
 * often 64 MB) makes the allocation raise an error that nothing can catch
 * and turn into the queued path, so its room is checked first; other kinds
 * of dynamic shared memory take the queued path.
 *
 * The allocation may take more than its bytes: a DSA area grows by
 * segments of doubling size (two of each), so the segment it makes next,
 * and one more made by another process before this one's is used, may
 * each be nearly as large as all the area's segments so far.  Those are
 * in /dev/shm, so at least twice what it holds must be free too.
 */
static bool
shared_memory_has_room(uint64 bytes, uint64 held)
{
	struct statvfs fs;
	uint64		free_bytes;
	uint64		used_bytes;
	uint64		processes = (uint64) Max(max_parallel_workers_per_gather, 1) + 1;

	if (dynamic_shared_memory_type != DSM_IMPL_POSIX)
		return false;
	if (statvfs("/dev/shm", &fs) != 0 || fs.f_bfree < fs.f_bavail ||
		fs.f_blocks < fs.f_bfree)
		return false;
	free_bytes = (uint64) fs.f_bavail * (uint64) fs.f_frsize;
	used_bytes = (uint64) (fs.f_blocks - fs.f_bfree) * (uint64) fs.f_frsize;
	return held + bytes <= (free_bytes + held) / 2 / processes &&
		2 * used_bytes <= free_bytes;
}

/* bytes in the target's area, if it has room for them; else invalid */
static dsa_pointer
allocate_with_room(const BloomHandoffTarget *target, uint64 bytes, uint64 held)
{
	if (!shared_memory_has_room(bytes, held))
		return InvalidDsaPointer;
	return dsa_allocate_extended(target->area, bytes, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
}

void *
bloom_handoff_alloc_block(const BloomHandoffTarget *target, Size bytes,
						  uint64 held, dsa_pointer *pointer)
{
	if (target->area == NULL || !target->plain)
		return NULL;
	*pointer = allocate_with_room(target, bytes, held);
	if (!DsaPointerIsValid(*pointer))
		return NULL;
	return dsa_get_address(target->area, *pointer);
}

void
bloom_handoff_free_block(const BloomHandoffTarget *target, dsa_pointer pointer)
{
	dsa_free(target->area, pointer);
}

bool
bloom_handoff_share(const BloomHandoffTarget *target, int32 bits_per_key,
					uint64 nkeys, const BloomHandoffBlock *blocks, int nblocks,
					const bloom_hash_run *parts, int nparts, uint64 nhashes,
					uint64 held, uint8 *ref)
{
	static uint64 tokens = 0;
	uint64		ncopied = 0;
	int			nall;
	Size		head;
	uint64		bytes;
	dsa_pointer pointer;
	HandoffHeader *header;
	uint32	   *hashes;
	HandoffReference reference;

	if (target->area == NULL)
		return false;
	for (int i = 0; i < nparts; i++)
		ncopied += parts[i].n;
	nall = nblocks + (ncopied > 0 ? 1 : 0);
	head = MAXALIGN(offsetof(HandoffHeader, blocks) + nall * sizeof(BloomHandoffBlock));
	bytes = head + ncopied * sizeof(uint32);
	pointer = allocate_with_room(target, bytes, held);
	if (!DsaPointerIsValid(pointer))
	{
		elog(DEBUG1, "bloom_agg: parallel worker %d sends its " UINT64_FORMAT " hashes through the tuple queue: too little shared memory",
			 ParallelWorkerNumber, nhashes);
		return false;
	}
	header = dsa_get_address(target->area, pointer);
	memcpy(header->blocks, blocks, nblocks * sizeof(BloomHandoffBlock));
	if (ncopied > 0)
	{
		header->blocks[nblocks].hashes = pointer + head;
		header->blocks[nblocks].n = ncopied;
	}
	hashes = (uint32 *) ((char *) header + head);
	for (int i = 0; i < nparts; i++)
	{
		Assert(parts[i].code == NULL);
		memcpy(hashes, parts[i].hashes, parts[i].n * sizeof(uint32));
		hashes += parts[i].n;
	}
	Assert(hashes == (uint32 *) ((char *) header + head) + ncopied);

	/*
	 * The area's handle, then what is unique in this query (the worker's
	 * pid, the time, a counter): the leader reads a reference only in the
	 * area whose handle it carries, so a reference that outlived its query
	 * (a user's aggregate could keep one) is refused before its pointer is
	 * followed into another query's area.
	 */
	header->token = ((uint64) dsa_get_handle(target->area) << 32) |
		(uint32) (((uint64) MyProcPid << 20) ^ (uint64) GetCurrentTimestamp() ^ ++tokens);
	header->nhashes = nhashes;
	header->ncopied = ncopied;
	header->nblocks = nall;
	memset(&reference, 0, sizeof(reference));
	reference.mark = SHARED_MARK;
	reference.bits_per_key = bits_per_key;
	reference.nkeys = nkeys;
	reference.nhashes = nhashes;
	reference.token = header->token;
	reference.pointer = (uint64) pointer;
	reference.plan_node_id = target->plan_node_id;
	reference.worker = ParallelWorkerNumber;
	SET_VARSIZE(ref, BLOOM_HANDOFF_REF_SIZE);
	memcpy(ref + VARHDRSZ, &reference, sizeof(reference));
	BLOOM_TRACE_LOG("handoff shared hashes=" UINT64_FORMAT " copied=" UINT64_FORMAT,
					nhashes, ncopied);
	return true;
}

/*
 * The leader's states with a reference out, each listed until its memory
 * context is reset: a reference is read only if its state is still here.
 */
typedef struct LocalEntry
{
	struct LocalEntry *next;
	uint64		token;
	void	   *state;
	MemoryContextCallback on_reset;
} LocalEntry;

static LocalEntry *local_entries = NULL;

static void
forget_local(void *arg)
{
	LocalEntry *entry = (LocalEntry *) arg;

	for (LocalEntry **link = &local_entries; *link != NULL; link = &(*link)->next)
		if (*link == entry)
		{
			*link = entry->next;
			return;
		}
}

void
bloom_handoff_local(void *state, MemoryContext cxt, int32 bits_per_key,
					uint64 nkeys, uint8 *ref)
{
	static uint64 tokens = 0;
	LocalEntry *entry = MemoryContextAlloc(cxt, sizeof(LocalEntry));
	HandoffReference reference;

	entry->token = ++tokens;
	entry->state = state;
	entry->on_reset.func = forget_local;
	entry->on_reset.arg = entry;
	MemoryContextRegisterResetCallback(cxt, &entry->on_reset);
	entry->next = local_entries;
	local_entries = entry;

	memset(&reference, 0, sizeof(reference));
	reference.mark = LOCAL_MARK;
	reference.bits_per_key = bits_per_key;
	reference.nkeys = nkeys;
	reference.token = entry->token;
	reference.pointer = (uint64) (uintptr_t) state;
	reference.plan_node_id = MyProcPid;
	reference.worker = -1;
	SET_VARSIZE(ref, BLOOM_HANDOFF_REF_SIZE);
	memcpy(ref + VARHDRSZ, &reference, sizeof(reference));
}

/*
 * A reference's bytes, if d is one: a short value from a tuple, or a
 * state's flat form.  A reference is never compressed or stored out of
 * line (48 bytes, and never stored).
 */
static bool
reference_bytes(Datum d, HandoffReference *reference)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTENDED(v) && !VARATT_IS_SHORT(v))
		return false;
	if (VARSIZE_ANY_EXHDR(v) != sizeof(HandoffReference) ||
		(*(const uint8 *) VARDATA_ANY(v) != SHARED_MARK &&
		 *(const uint8 *) VARDATA_ANY(v) != LOCAL_MARK))
		return false;
	memcpy(reference, VARDATA_ANY(v), sizeof(HandoffReference));
	return true;
}

bool
bloom_handoff_is_reference(Datum d)
{
	HandoffReference reference;

	return reference_bytes(d, &reference);
}

typedef struct GatherSearch
{
	int			plan_node_id;
	dsa_area   *area;
} GatherSearch;

/* Find the Gather or Gather Merge whose workers ran the plan node given. */
static bool
find_gather_area(PlanState *planstate, void *context)
{
	GatherSearch *search = (GatherSearch *) context;
	struct ParallelExecutorInfo *pei = NULL;

	if (planstate == NULL)
		return false;
	if (IsA(planstate, GatherState))
		pei = ((GatherState *) planstate)->pei;
	else if (IsA(planstate, GatherMergeState))
		pei = ((GatherMergeState *) planstate)->pei;
	if (pei != NULL && outerPlanState(planstate) != NULL &&
		outerPlanState(planstate)->plan->plan_node_id == search->plan_node_id)
	{
		search->area = pei->area;
		return true;
	}
	return planstate_tree_walker(planstate, find_gather_area, context);
}

void
bloom_handoff_read(FunctionCallInfo fcinfo, Datum d, BloomHandoffHashes *out)
{
	HandoffReference reference;
	GatherSearch search;
	const HandoffHeader *header;
	const uint32 **hashes;
	uint64	   *counts;
	uint64		total = 0;
	uint64		i;

	if (!reference_bytes(d, &reference))
		elog(ERROR, "bloom_agg_state value is not a parallel query's reference");
	if (reference.reserved[0] != 0 || reference.reserved[1] != 0 ||
		reference.reserved[2] != 0 || reference.nhashes > reference.nkeys ||
		reference.bits_per_key < 0)
		elog(ERROR, "a parallel query's bloom_agg reference is damaged");
	memset(out, 0, sizeof(*out));
	out->bits_per_key = reference.bits_per_key;
	out->nkeys = reference.nkeys;

	if (reference.mark == LOCAL_MARK)
	{
		LocalEntry *entry;

		for (entry = local_entries; entry != NULL; entry = entry->next)
			if (entry->token == reference.token &&
				(uint64) (uintptr_t) entry->state == reference.pointer)
				break;
		if (entry == NULL || reference.plan_node_id != MyProcPid)
			elog(ERROR, "bloom_agg found no state for the parallel leader's reference");
		out->local_state = entry->state;
		return;
	}
	if (reference.nhashes == 0)
		elog(ERROR, "parallel worker %d's bloom_agg reference is damaged", reference.worker);

	search.plan_node_id = reference.plan_node_id;
	search.area = NULL;
	if (fcinfo->context != NULL && IsA(fcinfo->context, AggState))
	{
		EState	   *estate = ((AggState *) fcinfo->context)->ss.ps.state;

		(void) find_gather_area((PlanState *) fcinfo->context, &search);

		/*
		 * A Finalize Aggregate that runs in the worker that made the
		 * reference (its plan under a single-copy Gather, as
		 * debug_parallel_query puts one, or a Parallel Append's subplan
		 * run whole by one worker) reads it from the worker's own area.
		 */
		if (search.area == NULL && IsParallelWorker() &&
			reference.worker == ParallelWorkerNumber &&
			estate->es_plannedstmt != NULL && estate->es_plannedstmt->planTree != NULL &&
			estate->es_plannedstmt->planTree->plan_node_id == reference.plan_node_id)
			search.area = estate->es_query_dsa;
	}
	if (search.area == NULL)
		elog(ERROR, "bloom_agg found no shared memory for parallel worker %d's state",
			 reference.worker);
	if ((uint32) (reference.token >> 32) != (uint32) dsa_get_handle(search.area))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_agg_state value is a reference to another parallel query's shared memory"),
				 errdetail("A parallel worker's state is read only by the query that made it.")));
	header = dsa_get_address(search.area, (dsa_pointer) reference.pointer);
	if (header == NULL || header->token != reference.token ||
		header->nhashes != reference.nhashes ||
		header->nblocks == 0 || header->nblocks > reference.nhashes)
		elog(ERROR, "parallel worker %d's bloom_agg state is not where its reference says",
			 reference.worker);

	out->nhashes = reference.nhashes;
	out->nblocks = (int) header->nblocks;
	hashes = palloc(header->nblocks * sizeof(const uint32 *));
	counts = palloc(header->nblocks * sizeof(uint64));
	for (i = 0; i < header->nblocks; i++)
	{
		hashes[i] = dsa_get_address(search.area, header->blocks[i].hashes);
		counts[i] = header->blocks[i].n;
		if (hashes[i] == NULL || counts[i] == 0 || counts[i] > reference.nhashes - total)
			break;
		total += counts[i];
	}
	if (i < header->nblocks || total != reference.nhashes)
		elog(ERROR, "parallel worker %d's bloom_agg state is not where its reference says",
			 reference.worker);
	out->hashes = hashes;
	out->counts = counts;
	elog(DEBUG1, "bloom_agg: took " UINT64_FORMAT " hashes from parallel worker %d's shared memory, " UINT64_FORMAT " where the worker made them",
		 reference.nhashes, reference.worker, reference.nhashes - Min(header->ncopied, reference.nhashes));
}
