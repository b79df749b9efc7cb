/*
 * test_vectors.c
 *		Unit tests of the core: the LevelDB known-answer vectors (test/data/vectors).
 */
#include "unit.h"

void
test_vector_set(const vec_set *set)
{
	size_t		i;

	group_begin("vector files");
	for (i = 0; i < vec_n_expected_files; i++)
	{
		test_begin("%s is present", vec_expected_files[i]);
		check(vec_find_file(set, vec_expected_files[i]) != NULL,
			  "not found (or not readable) in the vector directory");
		test_end();
	}
	for (i = 0; i < set->nfiles; i++)
	{
		const vec_file *f = &set->files[i];

		test_begin("%s case count", f->name);
		if (check(f->declared_cases >= 0, "no \"# cases=N\" comment"))
			check(f->ncases == (size_t) f->declared_cases && f->ncases > 0,
				  "\"# cases=%ld\" but %zu well-formed cases read",
				  f->declared_cases, f->ncases);
		test_end();
	}
	for (i = 0; i < set->nerrors; i++)
	{
		test_begin("malformed vector file");
		fail("%s", set->errors[i]);
		test_end();
	}
	group_end();
}

static void
run_create_case(const vec_case *c)
{
	uint32_t   *hashes = xcalloc(c->nkeys * sizeof(uint32_t));
	uint8_t    *filter = NULL;
	bloom_geometry g;
	bloom_status st;
	size_t		i;
	uint64_t	fnv;

	test_begin("%s (%s:%ld)", c->id, c->file, c->line);
	for (i = 0; i < c->nkeys; i++)
		hashes[i] = bloom_key_hash(c->keys[i].data, c->keys[i].len);

	st = bloom_geometry_for(c->nkeys, c->bpk, &g);
	if (!check(st == BLOOM_OK, "bloom_geometry_for(%" PRIu64 ", %" PRId64
			   "): %s", c->nkeys, c->bpk, status_name(st)))
		goto out;
	check(g.bits == 8 * (g.filter_bytes - 1),
		  "geometry has %" PRIu64 " bits for %" PRIu64 " bytes", g.bits,
		  g.filter_bytes);
	check(g.k == c->filter_k, "filter_k: expected %u, got %u", c->filter_k,
		  g.k);
	/* the comparisons below need the sizes to agree */
	if (!check(g.filter_bytes == c->filter_len,
			   "filter_len: expected %" PRIu64 ", got %" PRIu64,
			   c->filter_len, g.filter_bytes))
		goto out;

	filter = xcalloc(g.filter_bytes);
	bloom_build_from_hashes(filter, &g, hashes, c->nkeys);

	check(filter[g.filter_bytes - 1] == c->filter_k,
		  "k byte: expected %u, got %u", c->filter_k,
		  filter[g.filter_bytes - 1]);
	fnv = vec_fnv1a64(filter, g.filter_bytes);
	check(fnv == c->filter_fnv1a64,
		  "filter_fnv1a64: expected %016" PRIx64 ", got %016" PRIx64,
		  c->filter_fnv1a64, fnv);
	/* the final's threaded path, whatever the size: the same bytes */
	for (unsigned nthreads = 2; nthreads <= 8; nthreads *= 4)
	{
		uint8_t    *threaded = xcalloc(g.filter_bytes);
		bloom_hash_run runs[2] = {
			{hashes, c->nkeys / 2, NULL, 0, NULL},
			{hashes + c->nkeys / 2, c->nkeys - c->nkeys / 2, NULL, 0, NULL},
		};

		st = bloom_build_from_runs(threaded, &g, runs, 2, nthreads);
		check(st == BLOOM_OK && vec_fnv1a64(threaded, g.filter_bytes) == c->filter_fnv1a64,
			  "set on %u threads: %s", nthreads,
			  st != BLOOM_OK ? status_name(st) : "filter_fnv1a64 differs");
		free(threaded);
	}
	if (c->has_filter)
	{
		/* a vector whose own lines disagree is broken, whatever the core */
		check(vec_fnv1a64(c->filter.data, c->filter.len) == c->filter_fnv1a64,
			  "the vector's filter line does not match its filter_fnv1a64");
		for (i = 0; i < g.filter_bytes; i++)
			if (filter[i] != c->filter.data[i])
			{
				fail("filter bytes differ first at byte %zu of %" PRIu64
					 ": expected %02x, got %02x", i, g.filter_bytes,
					 c->filter.data[i], filter[i]);
				break;
			}
	}
	st = bloom_validate(filter, g.filter_bytes);
	check(st == BLOOM_OK, "bloom_validate of the built filter: %s",
		  status_name(st));

	/* LevelDB guarantees no false negatives, whatever the probe lines say */
	for (i = 0; i < c->nkeys; i++)
		check(bloom_may_contain(filter, g.filter_bytes, c->keys[i].data,
								c->keys[i].len),
			  "inserted key %zu (%s) does not match", i,
			  hexs(c->keys[i].data, c->keys[i].len));

	for (i = 0; i < c->nprobes; i++)
	{
		const vec_probe *pr = &c->probes[i];
		bool		got = bloom_may_contain(filter, g.filter_bytes,
											pr->key.data, pr->key.len);

		check(got == pr->expected, "probe %zu (key %s): expected %d, got %d",
			  i, hexs(pr->key.data, pr->key.len), pr->expected, got);
	}

out:
	test_end();
	free(filter);
	free(hashes);
}

static void
run_match_case(const vec_case *c)
{
	const uint8_t *f = c->filter.data;
	size_t		len = c->filter.len;
	bloom_status want,
				got;
	size_t		i;

	test_begin("%s (%s:%ld)", c->id, c->file, c->line);

	/* the rule bloom_core.h states for stored filters */
	want = ref_validate(f, len);
	got = bloom_validate(f, len);
	check(got == want, "bloom_validate: expected %s, got %s",
		  status_name(want), status_name(got));

	/* probing follows KeyMayMatch even for filters validation rejects */
	for (i = 0; i < c->nprobes; i++)
	{
		const vec_probe *pr = &c->probes[i];
		bool		res = bloom_may_contain(f, len, pr->key.data, pr->key.len);

		check(res == pr->expected, "probe %zu (key %s): expected %d, got %d",
			  i, hexs(pr->key.data, pr->key.len), pr->expected, res);
	}
	test_end();
}

void
test_vectors(const vec_set *set)
{
	size_t		f,
				i;

	for (f = 0; f < set->nfiles; f++)
	{
		const vec_file *file = &set->files[f];
		char		name[160];

		snprintf(name, sizeof(name), "vectors %s", file->name);
		group_begin(name);
		for (i = 0; i < file->ncases; i++)
		{
			if (file->cases[i].kind == VEC_CREATE)
				run_create_case(&file->cases[i]);
			else
				run_match_case(&file->cases[i]);
		}
		group_end();
	}
}
