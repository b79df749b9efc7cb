/*
 * bloom_trace_pg.c
 *		The step log of make BLOOM_TRACE=1 (bloom_trace_pg.h).
 */
#include "postgres.h"

#include "miscadmin.h"

#include "bloom_trace_pg.h"

#ifdef BLOOM_TRACE
void
bloom_trace_log(const char *fmt,...)
{
	char		what[256];
	va_list		args;
	double		now = bloom_trace_ms();

	va_start(args, fmt);
	vsnprintf(what, sizeof(what), fmt, args);
	va_end(args);
	ereport(LOG,
			(errmsg_internal("bloom-trace %s %d %.3f %s",
							 MyBackendType == B_BG_WORKER ? "worker" : "leader",
							 MyProcPid, now, what),
			 errhidestmt(true), errhidecontext(true)));
}
#endif
