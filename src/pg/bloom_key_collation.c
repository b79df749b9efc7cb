/*
 * bloom_key_collation.c
 *		The refusal of text keys compared under a nondeterministic
 *		collation (bloom_key_arg.h has the check each key makes).
 *
 * A nondeterministic collation (case- or accent-insensitive ICU
 * collations) calls strings with different bytes equal, so a filter of
 * their bytes would say "certainly absent" of a value that "=" finds:
 * every function that hashes a text key refuses one, rather than answer.
 * A deterministic collation decides equality by the bytes, whatever it
 * does for ordering, so it is accepted.
 */
#include "postgres.h"

#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "bloom_key_arg.h"

/*
 * The last collation found deterministic.  A collation's determinism never
 * changes, but a dropped collation's OID can be given to a new one: any
 * change to pg_collation forgets it.
 */
Oid			bloom_deterministic_collation = InvalidOid;

static bool callback_registered = false;

static void
forget_collation(Datum arg, int cacheid, uint32 hashvalue)
{
	(void) arg;
	(void) cacheid;
	(void) hashvalue;
	bloom_deterministic_collation = InvalidOid;
}

void
bloom_key_collation_check_slow(Oid collation)
{
	if (!callback_registered)
	{
		CacheRegisterSyscacheCallback(COLLOID, forget_collation, (Datum) 0);
		callback_registered = true;
	}
	if (get_collation_isdeterministic(collation))
	{
		bloom_deterministic_collation = collation;
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a bloom filter key cannot use the nondeterministic collation \"%s\"",
					get_collation_name(collation)),
			 errdetail("Values that this collation calls equal can have different bytes, so a filter of their bytes could drop a row that \"=\" keeps."),
			 errhint("Build and probe with an expression that is equal exactly when the values are, on both sides: for example lower(x) COLLATE \"C\" for a case-insensitive collation, or normalize(x, NFC) COLLATE \"C\" where only the normal form differs.")));
}
