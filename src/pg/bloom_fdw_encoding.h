/*
 * bloom_fdw_encoding.h
 *		Whether a postgres_fdw server's database has this database's
 *		encoding.
 */
#ifndef BLOOM_FDW_ENCODING_H
#define BLOOM_FDW_ENCODING_H

#include "bloom_core.h"

BLOOM_BEGIN_PRIVATE

/*
 * True when the database that postgres_fdw reaches through server as user
 * has the same encoding as this one, as the server reported it to the
 * connection; false when it differs or cannot be learnt.  Connects (or
 * reuses postgres_fdw's connection), as a remote scan of the server would.
 */
extern bool bloom_fdw_same_encoding(Oid serverid, Oid userid);

/*
 * False when bloom_fdw_same_encoding can only answer false: this
 * postgres_fdw exports no way to its connections (17 and later hide them),
 * so a text key's filter need not be weighed at all.
 */
extern bool bloom_fdw_encoding_knowable(void);

BLOOM_END_PRIVATE

#endif							/* BLOOM_FDW_ENCODING_H */
