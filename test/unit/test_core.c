/*
 * test_core.c
 *		Server-free tests of the bloom filter core.
 *
 *		test/unit/test_core VECTOR_DIR
 *
 * First every LevelDB known-answer vector (test/data/vectors), then edge
 * cases the vectors cannot reach: sizes near 2^64, filters beyond 2^32
 * bits, the text form and the aggregate state.  Expected values come from
 * the vectors or from the format's rules, restated independently of src/core/
 * (sizes in 128-bit arithmetic, for instance) here and in the reference
 * implementations the fuzz targets share (test/lib/bloom_reference.h),
 * never from running the core.  Prints one line per failed check and ends with
 * "unit: N passed, N failed"; exits 1 if anything failed.
 *
 * The tests are in one file per part of the core (test_*.c, their shared
 * bookkeeping in unit.c); this file runs them in order.  The order matters
 * to the random cases, which draw from one deterministic sequence.
 */
#include "unit.h"

int
main(int argc, char **argv)
{
	vec_set		set;

	vec_check_usage(argc, argv, "VECTOR_DIR");
	/* keep FAIL lines in order with anything the core or libc prints */
	setvbuf(stdout, NULL, _IOLBF, 0);

	vec_load_dir(argv[1], &set);
	test_vector_set(&set);
	test_vectors(&set);
	vec_set_free(&set);

	test_geometry();
	test_build_probe();
	test_big_filter();
	test_validate();
	test_hex();
	test_state();
	test_state_v2();
	test_popcount();
	test_filter_stats();
	test_stats_beyond_2_32();
	test_sizing();
	test_gaps();
	test_final();
	test_flatten();
	test_team();
	test_setops();
	test_hash();
	test_prepared();
	test_messages();
	test_typed_keys();
	test_kmv();
	test_sample();

	return vec_summary("unit", n_passed, n_failed);
}
