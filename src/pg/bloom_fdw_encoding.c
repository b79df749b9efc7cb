/*
 * bloom_fdw_encoding.c
 *		Whether a postgres_fdw server's database has this database's
 *		encoding.
 *
 * A text key is hashed as its bytes in the database's encoding.  A join
 * filter built here from text keys is probed by the remote server against
 * its own bytes, while the join that the filter must never change compares
 * the rows after postgres_fdw converted them to this database's encoding
 * (it sets client_encoding to it).  So where the two encodings differ, an
 * 'é' is two bytes in the filter and one at the remote probe, and the
 * filter would drop a row that joins: text keys get a filter only where
 * the remote database's encoding is known to be this one's.
 *
 * The remote server tells every connection its encoding (server_encoding,
 * a parameter libpq keeps).  postgres_fdw's own connection is used, through
 * its exported GetConnection and ReleaseConnection, and libpq's
 * PQparameterStatus is found among postgres_fdw's libraries, so that this
 * library links no libpq of its own and opens no connection of its own.
 * Any of them missing means "not known": no filter.
 */
#include "postgres.h"

#include "bloom_compat.h"

BLOOM_SERVER_HEADERS_BEGIN
#include "fmgr.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
BLOOM_SERVER_HEADERS_END

#include "bloom_fdw_encoding.h"

#define POSTGRES_FDW_LIBRARY "$libdir/postgres_fdw"

/* libpq's PQparameterStatus */
typedef const char *(*parameter_status_fn) (const void *conn, const char *name);
/* postgres_fdw's ReleaseConnection */
typedef void (*release_connection_fn) (void *conn);

static bool looked_up = false;
static bloom_fdw_get_connection_fn get_connection = NULL;
static release_connection_fn release_connection = NULL;
static parameter_status_fn parameter_status = NULL;

static void
look_up_functions(void)
{
	looked_up = true;
	get_connection = (bloom_fdw_get_connection_fn)
		bloom_library_symbol(POSTGRES_FDW_LIBRARY, "GetConnection");
	release_connection = (release_connection_fn)
		bloom_library_symbol(POSTGRES_FDW_LIBRARY, "ReleaseConnection");
	/* libpq's, which postgres_fdw's library loads: dlsym searches it too */
	parameter_status = (parameter_status_fn)
		bloom_library_symbol(POSTGRES_FDW_LIBRARY, "PQparameterStatus");
}

bool
bloom_fdw_encoding_knowable(void)
{
	if (!looked_up)
		look_up_functions();
	return get_connection != NULL && release_connection != NULL && parameter_status != NULL;
}

bool
bloom_fdw_same_encoding(Oid serverid, Oid userid)
{
	void	   *conn;
	const char *encoding;
	bool		same;

	if (!bloom_fdw_encoding_knowable())
		return false;
	conn = bloom_fdw_get_connection(get_connection, GetUserMapping(userid, serverid));
	encoding = parameter_status(conn, "server_encoding");
	same = encoding != NULL && pg_char_to_encoding(encoding) == GetDatabaseEncoding();
	release_connection(conn);
	return same;
}
